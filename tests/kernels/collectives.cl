// Sub-group functions and work-group collectives (OpenCL C 3.0 with -cl-std=CL3.0).

kernel void sub_group_items(global uint *o) {
    size_t i = 6 * get_global_id(0);
    o[i] = get_sub_group_size();
    o[i + 1] = get_max_sub_group_size();
    o[i + 2] = get_num_sub_groups();
    o[i + 3] = get_enqueued_num_sub_groups();
    o[i + 4] = get_sub_group_id();
    o[i + 5] = get_sub_group_local_id();
}

// Nine results per work-item, each block of n: reduce, inclusive and exclusive scan of add,
// min and max; then a broadcast.
#define COLLECTIVES(T, G, ID)                                                              \
    kernel void G##_##T(global const T *in, global T *o) {                                 \
        size_t i = get_global_id(0), n = get_global_size(0);                               \
        T x = in[i];                                                                       \
        o[i] = G##_reduce_add(x);                                                          \
        o[n + i] = G##_reduce_min(x);                                                      \
        o[2 * n + i] = G##_reduce_max(x);                                                  \
        o[3 * n + i] = G##_scan_inclusive_add(x);                                          \
        o[4 * n + i] = G##_scan_inclusive_min(x);                                          \
        o[5 * n + i] = G##_scan_inclusive_max(x);                                          \
        o[6 * n + i] = G##_scan_exclusive_add(x);                                          \
        o[7 * n + i] = G##_scan_exclusive_min(x);                                          \
        o[8 * n + i] = G##_scan_exclusive_max(x);                                          \
        o[9 * n + i] = G##_broadcast(x, ID);                                               \
    }
#define BOTH(T) COLLECTIVES(T, work_group, 5) COLLECTIVES(T, sub_group, 1)
BOTH(int)
BOTH(uint)
BOTH(long)
BOTH(ulong)
BOTH(float)
BOTH(double)
// cl_khr_subgroup_extended_types: 8/16-bit integers, and broadcasts of vectors.
COLLECTIVES(char, sub_group, 1)
COLLECTIVES(uchar, sub_group, 1)
COLLECTIVES(short, sub_group, 1)
COLLECTIVES(ushort, sub_group, 1)

kernel void sub_group_broadcast_vectors(global const char3 *c, global const short8 *s, global char3 *oc, global short8 *os) {
    size_t i = get_global_id(0);
    oc[i] = sub_group_broadcast(c[i], 2);
    os[i] = sub_group_broadcast(s[i], 3);
}

kernel void votes(global const int *in, global int *o) {
    size_t i = get_global_id(0), n = get_global_size(0);
    o[i] = work_group_all(in[i]);
    o[n + i] = work_group_any(in[i]);
    o[2 * n + i] = sub_group_all(in[i]);
    o[3 * n + i] = sub_group_any(in[i]);
}

// A 2D work-group: the value of local id (2, 1); barriers with a scope.
kernel void broadcast_2d(global const int *in, global int *o) {
    size_t i = get_global_id(1) * get_global_size(0) + get_global_id(0);
    work_group_barrier(CLK_GLOBAL_MEM_FENCE, memory_scope_work_group);
    sub_group_barrier(CLK_LOCAL_MEM_FENCE);
    o[i] = work_group_broadcast(in[i], 2, 1);
}

// cl_khr_subgroup_shuffle, _shuffle_relative, _ballot and _non_uniform_vote: 12 results per
// work-item.
kernel void sub_group_extensions(global const int *in, global uint *o) {
    size_t i = get_global_id(0);
    int x = in[i];
    uint lane = get_sub_group_local_id(), size = get_sub_group_size();
    global uint *r = o + 12 * i;
    r[0] = sub_group_shuffle(x, size - 1 - lane);
    r[1] = sub_group_shuffle_xor(x, 1);
    // Every work-item shuffles (the extension asks it); those below 2 read nothing defined.
    uint up = sub_group_shuffle_up(x, 2);
    r[2] = lane >= 2 ? up : 0;
    r[3] = sub_group_shuffle_down(x, 1);
    uint4 b = sub_group_ballot(x & 1);
    r[4] = sub_group_ballot_bit_count(b);
    r[5] = sub_group_ballot_inclusive_scan(b);
    r[6] = sub_group_ballot_exclusive_scan(b);
    r[7] = sub_group_ballot_find_lsb(b) + 100 * sub_group_ballot_find_msb(b);
    r[8] = sub_group_inverse_ballot(b) + 2 * sub_group_ballot_bit_extract(b, 0);
    r[9] = get_sub_group_lt_mask().x + get_sub_group_eq_mask().x + (get_sub_group_gt_mask().x & 0xff);
    r[10] = (x & 2) ? sub_group_elect() : 7;
    r[11] = sub_group_non_uniform_all_equal(x > 0 ? 1 : 2) + 10 * sub_group_broadcast_first(lane);
}

// cl_khr_subgroup_non_uniform_arithmetic in divergent code: the work-items whose input is odd
// compute six int results and one uchar; the others write 7s.
kernel void sub_group_non_uniform(global const int *in, global const uchar *c, global int *o, global uchar *oc) {
    size_t i = get_global_id(0);
    int x = in[i];
    global int *r = o + 6 * i;
    if (x & 1) {
        r[0] = sub_group_non_uniform_scan_inclusive_min(x);
        r[1] = sub_group_non_uniform_scan_exclusive_max(x);
        r[2] = sub_group_non_uniform_reduce_xor(x);
        r[3] = sub_group_non_uniform_reduce_mul(x);
        r[4] = sub_group_non_uniform_scan_exclusive_logical_or(x & 4);
        r[5] = sub_group_non_uniform_reduce_logical_and(x & 8);
        oc[i] = sub_group_non_uniform_scan_exclusive_and(c[i]);
    } else {
        for (int k = 0; k < 6; k++)
            r[k] = 7;
        oc[i] = 7;
    }
}

// cl_khr_subgroup_clustered_reduce and cl_khr_subgroup_rotate: four results per work-item.
kernel void sub_group_clusters(global const int *in, global int *o) {
    size_t i = get_global_id(0);
    int x = in[i];
    global int *r = o + 4 * i;
    r[0] = sub_group_clustered_reduce_add(x, 4);
    r[1] = sub_group_clustered_reduce_max(x, 2);
    r[2] = sub_group_rotate(x, -3);
    r[3] = sub_group_clustered_rotate(x, 5, 4);
}
