// Vectors of 2, 3, 4, 8 and 16 components: literals, swizzles as values and lvalues,
// component-wise operators, comparisons (-1/0), select.

kernel void literals(global int *o) {
    int2 a = (int2)(1, 2);
    int3 b = (int3)(a, 3);
    int4 c = (int4)(4);
    int8 d = (int8)(a, b, 6, 7, 8);
    int16 e = (int16)(c, d, (int4)(13, 14, 15, 16));
    o[0] = a.x + a.y * 10;
    o[1] = b.x + b.y * 10 + b.z * 100;
    o[2] = c.x + c.y + c.z + c.w;
    o[3] = d.s0 + d.s7 * 10 + d.s3 * 100;
    o[4] = e.s0 + e.sF * 100 + e.sa * 10000;
    o[5] = vec_step(b) * 100 + vec_step(int16);
    o[6] = sizeof(int3) * 100 + sizeof(int16);
}

kernel void swizzle_values(global const float4 *in, global float4 *o, global float2 *h, global float8 *w) {
    float4 v = in[0];
    o[0] = v.wzyx;
    o[1] = v.xxyy;
    o[2] = (float4)(v.s32, v.s01);
    h[0] = v.lo;
    h[1] = v.hi;
    h[2] = v.even;
    h[3] = v.odd;
    float8 e = (float8)(v, v * 10.0f);
    w[0] = e.s76543210;
    h[4] = e.hi.lo;
    h[5] = (float2)(e.s6 - e.s5, e.odd.w);
}

kernel void swizzle_lvalues(global int4 *o, global int8 *w, global int3 *t) {
    int4 v = (int4)(0);
    v.x = 1;
    v.wz = (int2)(4, 3);
    v.s1 = 2;
    o[0] = v;
    v.lo = v.hi;
    o[1] = v;
    v.odd = (int2)(7, 9);
    o[2] = v;
    int8 e = (int8)(0);
    e.s7 = 7;
    e.hi.lo = (int2)(4, 5);
    e.even = (int4)(10, 12, 14, 16);
    w[0] = e;
    int3 c = (int3)(1, 2, 3);
    c.zx = c.xz;
    t[0] = c;
    o[3].y = 42;
    o[3].xzw = (int3)(41, 43, 44);
    o[4] = o[3];
    o[4].wx += (int2)(100, 200);
}

kernel void componentwise(global const int4 *a, global const int4 *b, global int4 *o) {
    size_t g = get_global_id(0);
    int4 x = a[g], y = b[g];
    global int4 *r = o + g * 9;
    r[0] = x + y;
    r[1] = x * y - 3;
    r[2] = x / (y | 1);
    r[3] = x & y ^ 5;
    r[4] = x << 2;
    r[5] = x < y;
    r[6] = x == y;
    r[7] = !x;
    r[8] = -x;
}

kernel void compare_types(global const float8 *a, global const float8 *b, global int8 *o,
                          global const short16 *c, global short16 *s, global const long2 *l, global long2 *lo) {
    o[0] = a[0] > b[0];
    o[1] = a[1] != b[1];
    o[2] = a[0] <= b[0] && b[0] > 0.0f;
    s[0] = c[0] >= (short)0;
    lo[0] = l[0] < (long2)(0, 5);
}

kernel void selects(global const int4 *a, global const int4 *b, global const float4 *f, global int4 *o, global float4 *fo) {
    int4 x = a[0], y = b[0];
    o[0] = select(x, y, x < y);
    o[1] = select(x, y, (int4)(0, -1, 1, 0x80000000));
    o[2] = x < y ? x : y;
    fo[0] = select(f[0], -f[0], f[0] < 0.0f);
    o[3] = (int4)(select(1, 2, 0), select(1, 2, 5), bitselect(0x0f0f, 0x3333, 0x00ff), 0);
    o[4] = (int4)(any(x < 0), all(x > -100000), any((int4)(0)), all((int4)(-1)));
    // A vector condition between two scalars of one type: a vector of that type (char4).
    char4 picked = convert_char4(x < y) ? (char)10 : (char)-3;
    o[5] = convert_int4(picked);
}

kernel void uchar_ops(global const uchar16 *a, global const uchar16 *b, global uchar16 *o, global char3 *c) {
    size_t g = get_global_id(0);
    o[g * 3] = a[g] + b[g];
    o[g * 3 + 1] = a[g] >> (uchar16)(3);
    o[g * 3 + 2] = max(a[g], b[g]);
    if (g == 0) {
        char3 v = (char3)(-1, 2, -3);
        c[0] = v * (char)3;
        c[1] = abs(v) == (uchar3)(1, 2, 3) ? (char3)(7) : (char3)(9);
    }
}

kernel void vload_vstore(global const float *f, global float *o, global const uchar *b, global uchar *ob, global int *oi) {
    size_t g = get_global_id(0);
    float4 v = vload4(g, f);
    vstore4(v * 2.0f, g, o);
    float3 t = vload3(g, f + 1);
    vstore3(t, g, o + 32);
    uchar8 u = vload8(g, b);
    vstore8(u + (uchar8)(1), g, ob);
    int2 p = vload2(1, (global const int *)f);
    if (g == 0) vstore2(p, 0, oi);
    private int arr[4] = { 5, 6, 7, 8 };
    int2 q = vload2(1, arr);
    if (g == 0) { oi[2] = q.x; oi[3] = q.y; }
}

kernel void int_conversions(global const long *l, global char *c, global uchar *uc, global short *s, global ushort *us,
                            global int *i, global uint *u, global ulong *ul) {
    size_t g = get_global_id(0);
    long v = l[g];
    c[g] = convert_char_sat(v);
    uc[g] = convert_uchar_sat(v);
    s[g] = convert_short_sat(v);
    us[g] = convert_ushort_sat(v);
    i[g] = convert_int(v);
    u[g] = convert_uint_sat(v);
    ul[g] = convert_ulong(v);
}

// Component-wise operators on vectors of every integer element type and width.
#define VOPS(T, N) \
kernel void vops_##T##N(global const T *a, global const T *b, global T *o, global int *c) { \
    size_t g = get_global_id(0); \
    T##N x = vload##N(g, a), y = vload##N(g, b); \
    size_t k = g * 10; \
    vstore##N(x + y, k, o); vstore##N(x - y, k + 1, o); vstore##N(x * y, k + 2, o); \
    vstore##N(x / y, k + 3, o); vstore##N(x % y, k + 4, o); vstore##N(x & y, k + 5, o); \
    vstore##N(x | y, k + 6, o); vstore##N(x ^ y, k + 7, o); vstore##N(x << y, k + 8, o); \
    vstore##N(x >> y, k + 9, o); \
    vstore##N(convert_int##N(x < y), g * 3, c); vstore##N(convert_int##N(x == y), g * 3 + 1, c); \
    vstore##N(convert_int##N(x >= y), g * 3 + 2, c); \
}
// Every element type and every width, not every pair (the device compiles each kernel).
VOPS(char, 3)
VOPS(uchar, 8)
VOPS(short, 4)
VOPS(ushort, 3)
VOPS(int, 2) VOPS(int, 8)
VOPS(uint, 16)
VOPS(long, 3)
VOPS(ulong, 4)

#define FOPS(N) \
kernel void fops_##N(global const float *a, global const float *b, global float *o, global int *c) { \
    size_t g = get_global_id(0); \
    float##N x = vload##N(g, a), y = vload##N(g, b); \
    vstore##N(x + y, g * 4, o); vstore##N(x - y, g * 4 + 1, o); vstore##N(x * y, g * 4 + 2, o); \
    vstore##N(-x, g * 4 + 3, o); \
    vstore##N(convert_int##N(x < y), g * 2, c); vstore##N(convert_int##N(x == y), g * 2 + 1, c); \
}
FOPS(3) FOPS(8)

// select and bitselect on every integer element type, with a signed and an unsigned mask
// (the mask's most significant bit picks).
#define SEL(T, U, N) \
kernel void sel_##T##N##_##U(global const T *a, global const T *b, global const U *c, global T *o) { \
    size_t g = get_global_id(0); \
    T##N x = vload##N(g, a), y = vload##N(g, b); \
    U##N m = vload##N(g, c); \
    vstore##N(select(x, y, m), 2 * g, o); \
    vstore##N(bitselect(x, y, as_##T##N(m)), 2 * g + 1, o); \
}
SEL(char, char, 16) SEL(char, uchar, 16) SEL(uchar, char, 4) SEL(uchar, uchar, 4)
SEL(short, short, 8) SEL(short, ushort, 8) SEL(ushort, short, 3) SEL(ushort, ushort, 3)
SEL(int, int, 4) SEL(int, uint, 4) SEL(uint, int, 2) SEL(uint, uint, 2)
SEL(long, long, 3) SEL(long, ulong, 3) SEL(ulong, long, 2) SEL(ulong, ulong, 2)

// Scalar select: any nonzero mask picks b, whatever its type.
kernel void sel_scalars(global const char *a, global const char *b, global const uchar *m, global char *o, global short *so) {
    size_t i = get_global_id(0);
    uchar mu = m[i];
    ushort su = (ushort)(mu << 8);
    short sa = a[i] * 300, sb = b[i] * -7;
    o[2 * i] = select(a[i], b[i], mu);
    o[2 * i + 1] = select(a[i], b[i], as_char(mu));
    so[2 * i] = select(sa, sb, su);
    so[2 * i + 1] = select(sa, sb, as_short(su));
}

// bitselect on float, float4 and float8: on the bit patterns (4 work-items: results of the
// scalars at o[0..4], of the float4s at o[4..20], of the float8s at o[20..52]).
kernel void bitsel_floats(global const float *a, global const float *b, global const uint *c, global float *o) {
    size_t g = get_global_id(0);
    o[g] = bitselect(a[g], b[g], as_float(c[g]));
    vstore4(bitselect(vload4(g, a), vload4(g, b), as_float4(vload4(g, c))), g, o + 4);
    vstore8(bitselect(vload8(g, a), vload8(g, b), as_float8(vload8(g, c))), g, o + 20);
}

// vloadn/vstoren on __local and __private memory of narrow and wide types.
kernel void vload_spaces(global const uchar *in, global uchar *out, global long *lo) {
    local uchar tile[64];
    size_t l = get_local_id(0);
    vstore8(vload8(l, in), l, tile);
    barrier(CLK_LOCAL_MEM_FENCE);
    vstore8(vload8(7 - l, tile), l, out);
    if (l == 0) {
        short s[8] = { 1, -2, 3, -4, 5, -6, 7, -8 };
        short4 v = vload4(1, s);
        vstore2((short2)(100, 200), 3, s);
        long acc = 0;
        for (int i = 0; i < 8; i++)
            acc = acc * 10 + s[i];
        lo[0] = acc;
        lo[1] = v.x + v.y * 10 + v.z * 100 + v.w * 1000;
        long3 w = vload3(0, (global const long *)in);
        lo[2] = w.z;
    }
}
