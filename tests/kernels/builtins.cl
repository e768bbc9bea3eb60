// Math, integer, common and geometric built-ins.

kernel void math1(global const float *x, global float *o) {
    size_t g = get_global_id(0);
    float v = x[g];
    global float *r = o + g * 24;
    r[0] = sqrt(fabs(v));
    r[1] = floor(v);
    r[2] = ceil(v);
    r[3] = trunc(v);
    r[4] = round(v);
    r[5] = rint(v);
    r[6] = exp(v * 0.1f);
    r[7] = log(fabs(v) + 1.0f);
    r[8] = sin(v);
    r[9] = cos(v);
    r[10] = pow(fabs(v), 1.5f);
    r[11] = fmin(v, 0.5f);
    r[12] = fmax(v, 0.5f);
    r[13] = fmod(v, 3.0f);
    r[14] = copysign(2.0f, v);
    r[15] = mad(v, 2.0f, 1.0f);
    r[16] = fma(v, v, -1.0f);
    r[17] = clamp(v, -1.0f, 1.0f);
    r[18] = mix(0.0f, 10.0f, 0.25f);
    r[19] = step(0.0f, v);
    r[20] = rsqrt(fabs(v) + 1.0f);
    r[21] = atan2(v, 2.0f);
    r[22] = hypot(v, 3.0f);
    r[23] = sign(v);
}

kernel void math_misc(global float *o, global int *i) {
    o[0] = exp2(3.0f);
    o[1] = log2(32.0f);
    o[2] = exp10(2.0f);
    o[3] = log10(1000.0f);
    o[4] = cbrt(27.0f);
    o[5] = radians(180.0f);
    o[6] = degrees(M_PI_F);
    o[7] = tan(0.5f);
    o[8] = asin(0.5f);
    o[9] = acos(0.5f);
    o[10] = atan(1.0f);
    o[11] = sinh(1.0f);
    o[12] = cosh(1.0f);
    o[13] = tanh(0.5f);
    o[14] = native_sqrt(16.0f);
    o[15] = half_exp(0.0f);
    o[16] = smoothstep(0.0f, 1.0f, 0.5f);
    o[17] = FLT_MAX;
    o[18] = FLT_EPSILON;
    o[19] = INFINITY;
    i[0] = isnan(NAN);
    i[1] = isinf(-INFINITY);
    i[2] = isfinite(1.0f);
    i[3] = signbit(-0.0f);
    i[4] = isequal(1.0f, 1.0f);
    i[5] = isnotequal(NAN, NAN);
    i[6] = isless(NAN, 1.0f);
    int4 n = isnan((float4)(0.0f, NAN, 1.0f, NAN));
    i[7] = n.x; i[8] = n.y; i[9] = n.z; i[10] = n.w;
    i[11] = isgreater(2.0f, 1.0f);
}

kernel void geometric(global const float4 *a, global const float4 *b, global float *o, global float4 *v) {
    o[0] = dot(a[0], b[0]);
    o[1] = length(a[0]);
    o[2] = distance(a[0], b[0]);
    o[3] = dot(a[0].xy, b[0].xy);
    v[0] = normalize(a[0]);
    v[1] = cross(a[0], b[0]);
    v[2] = min(a[0], b[0]);
    v[3] = max(a[0], 1.0f);
    v[4] = clamp(a[0], (float4)(-1.0f), (float4)(1.0f));
    v[5] = fabs(b[0]);
    v[6] = mix(a[0], b[0], 0.5f);
}

kernel void integer(global const int *a, global const int *b, global int *o, global uint *u) {
    size_t g = get_global_id(0);
    int x = a[g], y = b[g];
    global int *r = o + g * 10;
    r[0] = abs(x);
    r[1] = abs_diff(x, y);
    r[2] = add_sat(x, y);
    r[3] = sub_sat(x, y);
    r[4] = hadd(x, y);
    r[5] = rhadd(x, y);
    r[6] = min(x, y);
    r[7] = max(x, y);
    r[8] = clamp(x, -1000, 1000);
    r[9] = mul_hi(x, y);
    global uint *w = u + g * 6;
    w[0] = clz((uint)x);
    w[1] = popcount(x);
    w[2] = rotate((uint)x, (uint)y);
    w[3] = mad24((uint)x & 0xffffff, (uint)y & 0xffffff, 7u);
    w[4] = mul24((uint)x & 0xffffff, 3u);
    w[5] = mad_sat((uint)x, 2u, (uint)y);
}

kernel void integer_small(global const uchar *a, global const short *s, global uchar *o, global short *so, global long *l) {
    size_t g = get_global_id(0);
    o[g * 4] = add_sat(a[g], (uchar)200);
    o[g * 4 + 1] = sub_sat(a[g], (uchar)100);
    o[g * 4 + 2] = clz(a[g]);
    o[g * 4 + 3] = rotate(a[g], (uchar)3);
    so[g * 2] = add_sat(s[g], (short)30000);
    so[g * 2 + 1] = upsample((char)s[g], (uchar)a[g]);
    l[g] = upsample(s[g] * 1000, (uint)a[g] * 3u);
}

// Built-ins with a pointer output, shuffles and the ordered/unordered relations.
kernel void fract_out(global const float *x, global float *o, global float *w) {
    size_t g = get_global_id(0);
    o[g] = fract(x[g], &w[g]);
}
kernel void sincos_out(global const float4 *x, global float4 *s, global float4 *c) {
    size_t g = get_global_id(0);
    float4 cv;
    s[g] = sincos(x[g], &cv);
    c[g] = cv;
}
kernel void modf_out(global const float *x, global float *o, global float *w) {
    size_t g = get_global_id(0);
    float whole;
    o[g] = modf(x[g], &whole);
    w[g] = whole;
}
kernel void shuffles(global const int4 *a, global const int4 *b, global int8 *o, global uint8 *m, global int2 *p) {
    o[0] = shuffle(a[0], m[0]);
    o[1] = shuffle2(a[0], b[0], m[0]);
    p[0] = shuffle(a[0], (uint2)(3, 0));
}
kernel void shuffles16(global const uchar16 *a, global uchar16 *o, global const uchar16 *m) {
    o[0] = shuffle(a[0], m[0]);
    o[1] = shuffle2(a[0], a[1], m[0]);
}
kernel void ordering(global const float *x, global const float *y, global int *o, global int4 *v) {
    size_t g = get_global_id(0);
    o[g * 3] = isordered(x[g], y[g]);
    o[g * 3 + 1] = isunordered(x[g], y[g]);
    o[g * 3 + 2] = islessgreater(x[g], y[g]);
    if (g == 0) v[0] = islessgreater((float4)(1.0f, 2.0f, NAN, 3.0f), (float4)(1.0f, 3.0f, 1.0f, 2.0f));
}

kernel void normal_and_fast(global const float *x, global int *n, global float4 *v, global float *f) {
    size_t g = get_global_id(0);
    n[g] = isnormal(x[g]);
    if (g == 0) {
        int4 vn = isnormal((float4)(1.0f, 1e-40f, INFINITY, -2.0f));
        n[8] = vn.x; n[9] = vn.y; n[10] = vn.z; n[11] = vn.w;
        v[0] = fast_normalize((float4)(3.0f, 0.0f, 4.0f, 0.0f));
        f[0] = fast_length((float2)(3.0f, 4.0f));
        f[1] = fast_distance((float3)(1.0f, 2.0f, 3.0f), (float3)(1.0f, 2.0f, 5.0f));
    }
}

// Integer built-ins on vectors of every integer type.
#define IFN(T, N) \
kernel void ifn_##T##N(global const T *a, global const T *b, global T *o) { \
    size_t g = get_global_id(0); \
    T##N x = vload##N(g, a), y = vload##N(g, b); \
    size_t k = g * 11; \
    vstore##N(as_##T##N(abs(x)), k, o); \
    vstore##N(as_##T##N(abs_diff(x, y)), k + 1, o); \
    vstore##N(add_sat(x, y), k + 2, o); \
    vstore##N(sub_sat(x, y), k + 3, o); \
    vstore##N(hadd(x, y), k + 4, o); \
    vstore##N(rhadd(x, y), k + 5, o); \
    vstore##N(clz(x), k + 6, o); \
    vstore##N(popcount(x), k + 7, o); \
    vstore##N(rotate(x, y), k + 8, o); \
    vstore##N(mul_hi(x, y), k + 9, o); \
    vstore##N(max(x, y) - min(x, y), k + 10, o); \
}
IFN(char, 3) IFN(uchar, 16) IFN(short, 3) IFN(ushort, 8) IFN(int, 4) IFN(uint, 3) IFN(long, 2) IFN(ulong, 3)

// Float built-ins on 16-wide vectors (done in parts by lowering).
kernel void float16_builtins(global const float16 *x, global const float16 *y, global float16 *o, global int16 *c) {
    float16 a = x[0], b = y[0];
    o[0] = sqrt(fabs(a));
    o[1] = floor(a);
    o[2] = fmin(a, b);
    o[3] = mix(a, b, 0.25f);
    o[4] = clamp(a, -1.0f, 1.0f);
    o[5] = fma(a, b, 1.0f);
    o[6] = copysign(b, a);
    o[7] = fmod(a, 1.5f);
    o[8] = exp(a * 0.125f);
    o[9] = select(a, b, isgreater(a, b));
    c[0] = isnan(a / b);
    c[1] = signbit(a);
}

// The rest of the OpenCL C math functions; x in (-1, 1), y in [1.5, 10].
kernel void more_math(global const float *xs, global const float *ys, global float *o, global int *oi) {
    size_t g = get_global_id(0);
    float x = xs[g], y = ys[g];
    global float *r = o + g * 28;
    global int *ri = oi + g * 6;
    r[0] = asinh(x); r[1] = acosh(y); r[2] = atanh(x);
    r[3] = asinpi(x); r[4] = acospi(x); r[5] = atanpi(x); r[6] = atan2pi(x, y);
    r[7] = sinpi(x); r[8] = cospi(x); r[9] = tanpi(x * 0.25f);
    r[10] = erf(x); r[11] = erfc(x); r[12] = expm1(x); r[13] = log1p(y);
    r[14] = logb(y); r[15] = ldexp(x, 5); r[16] = pown(x, 3); r[17] = rootn(y, 3);
    r[18] = fdim(x, y); r[19] = fdim(y, x); r[20] = maxmag(x, -y); r[21] = minmag(x, -y);
    r[22] = nextafter(x, y); r[23] = tgamma(y); r[24] = lgamma(y);
    int sign, e, q;
    r[25] = lgamma_r(y, &sign);
    r[26] = frexp(y, &e);
    r[27] = remquo(y, x + 2.0f, &q);
    ri[0] = sign; ri[1] = e; ri[2] = q; ri[3] = ilogb(y);
    ri[4] = isnan(nan(5u));
    ri[5] = as_int(remainder(y, x + 2.0f)) == as_int(r[27]);
}
