// Work-item functions in 1, 2 and 3 dimensions, with global offsets.

#define WORDS 19

kernel void ids(global uint *o) {
    size_t x = get_global_id(0) - get_global_offset(0);
    size_t y = get_global_id(1) - get_global_offset(1);
    size_t z = get_global_id(2) - get_global_offset(2);
    size_t flat = (z * get_global_size(1) + y) * get_global_size(0) + x;
    global uint *r = o + flat * WORDS;
    for (uint d = 0; d < 3; d++) {
        r[d] = get_global_id(d);
        r[3 + d] = get_local_id(d);
        r[6 + d] = get_group_id(d);
        r[9 + d] = get_num_groups(d) * 100 + get_local_size(d);
    }
    r[12] = get_work_dim();
    r[13] = get_global_size(0) * 10000 + get_global_size(1) * 100 + get_global_size(2);
    r[14] = get_global_offset(0) * 10000 + get_global_offset(1) * 100 + get_global_offset(2);
    r[15] = get_global_id(3) * 10 + get_local_size(5);
    r[16] = get_global_linear_id();
    r[17] = get_local_linear_id();
    r[18] = get_enqueued_local_size(0) * 10000 + get_enqueued_local_size(1) * 100 + get_enqueued_local_size(2);
}
