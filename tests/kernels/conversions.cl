// Conversions: implicit, casts, convert_T with saturation and rounding, as_T.

kernel void sat(global const float *f, global const int *i, global char *c, global uchar *uc,
                global short *s, global ushort *us, global int *oi, global uint *ou) {
    size_t g = get_global_id(0);
    c[g] = convert_char_sat(i[g]);
    uc[g] = convert_uchar_sat(i[g]);
    s[g] = convert_short_sat(i[g]);
    us[g] = convert_ushort_sat(i[g]);
    oi[g] = convert_int_sat(f[g]);
    ou[g] = convert_uint_sat(f[g]);
}

kernel void rounding(global const float *f, global int *o) {
    size_t g = get_global_id(0);
    global int *r = o + g * 5;
    r[0] = convert_int(f[g]);
    r[1] = convert_int_rte(f[g]);
    r[2] = convert_int_rtz(f[g]);
    r[3] = convert_int_rtp(f[g]);
    r[4] = convert_int_rtn(f[g]);
}

kernel void casts(global const int *i, global float *f, global long *l, global uchar *u, global int *back) {
    size_t g = get_global_id(0);
    int v = i[g];
    f[g] = (float)v;
    l[g] = (long)v * 3;
    u[g] = (uchar)v;
    back[g] = (int)((float)v * 0.5f);
}

kernel void reinterpret(global const float *f, global uint *u, global float *back, global int *bits) {
    size_t g = get_global_id(0);
    u[g] = as_uint(f[g]);
    back[g] = as_float(u[g] ^ 0x80000000u);
    int2 pair = as_int2((float2)(f[g], -f[g]));
    uchar4 b = as_uchar4(f[g]);
    bits[g] = (pair.x ^ pair.y) + (b.x + b.y * 256 + b.z * 65536) - (u[g] & 0xffffff);
}

kernel void vector_convert(global const float4 *f, global int4 *i, global uchar4 *sat, global float4 *back) {
    size_t g = get_global_id(0);
    i[g] = convert_int4(f[g]);
    sat[g] = convert_uchar4_sat(f[g]);
    back[g] = convert_float4(convert_int4_rtn(f[g]));
}

kernel void long_convert(global const long *l, global int *sat, global ulong *u, global float *f) {
    size_t g = get_global_id(0);
    sat[g] = convert_int_sat(l[g]);
    u[g] = convert_ulong_sat(l[g]);
    f[g] = convert_float(l[g]);
}

// Half-precision storage without cl_khr_fp16: vload_half / vstore_half.
kernel void halves(global const half *h, global float *o, global half *w) {
    size_t g = get_global_id(0);
    o[g] = vload_half(g, h);
    vstore_half(o[g] * 2.0f, g, w);
    if (g == 0) {
        float4 v = vload_half4(1, h);
        o[8] = v.x + v.y + v.z + v.w;
    }
}

// Every scalar type converted to every other (a cast, and the implicit conversion on
// assignment), one kernel per source type.
#define TO(D) \
    o_##D[g] = (D)a[g]; \
    { D implicit = a[g]; if (implicit != o_##D[g]) o_##D[g] = 0; }
#define FROM(S, BODY) \
kernel void conv_from_##S(global const S *a, global char *o_char, global uchar *o_uchar, \
                          global short *o_short, global ushort *o_ushort, global int *o_int, \
                          global uint *o_uint, global long *o_long, global ulong *o_ulong, \
                          global float *o_float) { \
    size_t g = get_global_id(0); \
    TO(char) TO(uchar) TO(short) TO(ushort) TO(int) TO(uint) TO(float) BODY \
}
FROM(char, TO(long) TO(ulong))
FROM(uchar, TO(long) TO(ulong))
FROM(short, TO(long) TO(ulong))
FROM(ushort, TO(long) TO(ulong))
FROM(int, TO(long) TO(ulong))
FROM(uint, TO(long) TO(ulong))
FROM(long, TO(long) TO(ulong))
FROM(ulong, TO(long) TO(ulong))
FROM(float, TO(long) TO(ulong))

// Saturating conversions of vectors between integer types.
#define VSAT(S, D, N) \
kernel void vsat_##S##_##D(global const S *a, global D *o) { \
    size_t g = get_global_id(0); \
    vstore##N(convert_##D##N##_sat(vload##N(g, a)), g, o); \
}
VSAT(int, char, 4) VSAT(int, uchar, 16) VSAT(short, uchar, 8) VSAT(uint, short, 3) VSAT(long, int, 2)
VSAT(ulong, uint, 4) VSAT(char, uchar, 16) VSAT(uchar, char, 4) VSAT(long, ushort, 3) VSAT(int, ulong, 2)
VSAT(char, ushort, 8) VSAT(ushort, short, 4)
