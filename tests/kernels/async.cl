// Asynchronous copies between global and local memory, with events chained through a
// function and waited for; a strided copy of bytes in both directions; prefetch.

event_t copy_in(local int4 *dst, const global int4 *src, size_t n, event_t e) {
    return async_work_group_copy(dst, src, n, e);
}

// Groups of 12 work-items (not a divisor of the 64 or 40 elements each group copies).
kernel void copies(const global int4 *in, global int4 *out, const global char *bytes, global char *strided,
                   global uint *event_size, local int4 *tile) {
    local char chars[40];
    size_t g = get_group_id(0);
    prefetch(in + g * 64, 64);
    event_t e = copy_in(tile, in + g * 64, 64, 0);
    e = async_work_group_strided_copy(chars, bytes + g * 80, 40, 2, e);
    wait_group_events(1, &e);
    for (size_t i = get_local_id(0); i < 64; i += get_local_size(0)) tile[i] = tile[i] * 2 + (int)g;
    for (size_t i = get_local_id(0); i < 40; i += get_local_size(0)) chars[i] += 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    event_t out_events[2];
    out_events[0] = async_work_group_copy(out + g * 64, (const local int4 *)tile, 64, 0);
    out_events[1] = async_work_group_strided_copy(strided + g * 120, chars, 40, 3, 0);
    wait_group_events(2, out_events);
    event_size[0] = sizeof(event_t);
}
