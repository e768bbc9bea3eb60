// half with cl_khr_fp16: arithmetic, built-ins, conversions, memory and sub-groups (a fuzzer
// corpus file; the results are checked in tests/rounding.rs and tests/collectives.rs).
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

typedef struct { half h; short s; half4 v; } mixed_t;

half scale(half x, half k) { return x * k + (half)1.5h; }

kernel void arithmetic(global const half *a, global half *o, global mixed_t *m) {
    size_t i = get_global_id(0);
    half x = a[i], y = a[i + 1];
    half4 v = vload4(0, a + 4 * (i / 4));
    o[i] = fma(x, y, scale(x, HALF_EPSILON)) / (y + 1.0h) - sqrt(fabs(x));
    v = mix(v, (half4)(x), (half)0.25h) * convert_half4_rtz(v * 3.0f);
    vstore4(v, i, o + 64);
    m[i].h = nextafter(x, y);
    half whole;
    m[i].s = as_short(fract(x, &whole)) + (short)whole;
    m[i].v.s23 = (half2)(native_sin(x), HALF_MAX);
}

kernel void conversions(global const float *f, global const int *n, global half *o, global ushort *u) {
    size_t i = get_global_id(0);
    o[i] = convert_half_rtp(f[i]) + convert_half_rtn(n[i]);
    vstore_half_rtz(f[i] * 0.5f, i, o + 32);
    u[i] = as_ushort(o[i]) ^ as_ushort((half)n[i]);
    float back = vload_half(i, o) + (float)o[i + 1];
    o[i + 2] = back > HALF_MAX ? INFINITY : (half)back;
}

kernel void groups(global const half *a, local half *l, global half *o) {
    size_t i = get_global_id(0), j = get_local_id(0);
    l[j] = a[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    half s = sub_group_reduce_add(l[j]) + sub_group_scan_exclusive_max(l[get_local_size(0) - 1 - j]);
    o[i] = s + work_group_broadcast(l[0], 0) + sub_group_broadcast(a[i], 0);
}
