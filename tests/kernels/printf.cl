// printf: conversions with flags, widths, precisions and length modifiers, vectors, pointers,
// calls from helpers and loops, many work-items, a full buffer. tests/printf.rs runs these in
// a child process and compares what they print with the C library's snprintf.

kernel void scalars(global const int *i, global const long *l, global const float *f, global int *ret) {
    ret[0] = printf("%d|%5i|%-+6d|%05u|%x|%#X|%#o|%hhd|%hx|%ld|%lu|%#lx|%c|% d|%.0d|%+.3i\n",
                    i[0], i[1], i[2], i[3], i[4], i[5], i[6], i[7], i[8], l[0], l[1], l[2], i[9], i[10], 0, i[11]);
    ret[1] = printf("%f|%.3e|%g|%#.0f|%a|%.2A|%+G|%08.3f|%-10e|%.13a|%E|%.1g\n",
                    f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9], f[10], f[11]);
    ret[2] = printf("%s|%.2s|%6s|%-4s|%%|%c|%5c\n", "text", "text", "ab", "x", 'z', 'q');
    ret[3] = printf("no conversions\n");
}

kernel void vectors(global const int4 *i, global const uchar8 *c, global const short2 *s, global const long2 *l,
                    global const float4 *f, global const uint16 *u) {
    printf("%v4hld|%#v8hhx|%+v2hd|%v2ld|%.2v4hlf|%v16hlu|%v3hle\n", i[0], c[0], s[0], l[0], f[0], u[0], f[0].xyz);
}

kernel void pointers(global int *g, global ulong *addr) {
    local int l[4];
    int p[2];
    l[get_local_id(0)] = g[0];
    p[0] = g[1];
    p[1] = l[0];
    addr[0] = (uintptr_t)g;
    addr[1] = (uintptr_t)(g + 3);
    addr[2] = (uintptr_t)&l[1];
    addr[3] = (uintptr_t)&p[1];
    printf("%p|%p|%p|%p|%p\n", g, g + 3, &l[1], &p[1], (global int *)0);
    g[2] = p[0] + p[1];
}

kernel void many(global const int *v) {
    size_t gid = get_global_id(0);
    printf("item %u of %u: %d\n", (uint)gid, (uint)get_global_size(0), v[gid]);
}

kernel void ordered(int n, int tag) {
    for (int k = 0; k < n; k++)
        printf("%d:%d\n", tag, k);
}

// Four words a record: 65535 of them fit in the buffer's 262143 words.
kernel void overflow(global int *ret, int per_item) {
    uint gid = get_global_id(0);
    for (int k = 0; k < per_item; k++)
        ret[gid * per_item + k] = printf("%u %d %d\n", gid, k, -k);
}

int show(int x) {
    return printf("show %d\n", x);
}

kernel void calls(global int *o) {
    o[0] = show(o[1]);
    // The arguments the format does not use are evaluated all the same.
    o[2] = printf("%d\n", 7, o[3] = 11, o[4]++);
}

#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
kernel void doubles(global const double *d) {
    printf("%.17g|%a|%le|%10.4f|%G|%.0e\n", d[0], d[1], d[2], d[3], d[4], d[5]);
}
#endif
