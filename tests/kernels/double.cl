// Double precision (cl_khr_fp64): arithmetic, conversions, vectors, literals, relational and
// math built-ins. Built only where the device reports cl_khr_fp64.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

double twice(double v) {
    return v * 2.0;
}

kernel void double_arith(global const double *a, global const double *b, global double *o, global int *cmp, double k) {
    size_t g = get_global_id(0);
    double x = a[g], y = b[g];
    global double *r = o + g * 8;
    r[0] = x + y;
    r[1] = x - y;
    r[2] = x * y;
    r[3] = x / y;
    r[4] = -x;
    r[5] = x * k;
    r[6] = twice(x) + y;
    double acc = x;
    acc += y;
    acc *= 0.5;
    r[7] = acc;
    global int *c = cmp + g * 8;
    c[0] = x < y;
    c[1] = x <= y;
    c[2] = x > y;
    c[3] = x >= y;
    c[4] = x == y;
    c[5] = x != y;
    c[6] = x && y;
    c[7] = !x || y;
}

// Reversal through __local doubles, and a private array.
kernel void double_local(global const double *a, global double *o, local double *arg) {
    local double tmp[64];
    size_t l = get_local_id(0), g = get_global_id(0);
    double priv[4] = {a[g], a[g] * 0.5, a[g] * 0.25, 0.0};
    tmp[l] = a[g];
    arg[l] = priv[1] + priv[2];
    barrier(CLK_LOCAL_MEM_FENCE);
    o[g] = tmp[63 - l] + arg[(l + 1) % 64] + priv[3];
}

typedef struct {
    char c;
    double d;
    float f;
    double2 v;
} mixed_t;

// Layout: d at 8, f at 16, v at 32 (16-byte aligned), 48 bytes in all.
kernel void double_struct(global mixed_t *m, global int *size) {
    size_t g = get_global_id(0);
    m[g].d = m[g].d * 3.0 + m[g].f;
    m[g].v = m[g].v.yx + (double2)(m[g].c, 1.0);
    *size = sizeof(mixed_t);
}

kernel void double_convert(global const double *d, global const double *small, global int *oi, global long *ol,
                           global float *of, global int *oin) {
    size_t g = get_global_id(0);
    double v = d[g], s = small[g];
    global int *i = oi + g * 10;
    i[0] = convert_int_sat(v);
    i[1] = convert_int_sat_rte(v);
    i[2] = convert_int_sat_rtz(v);
    i[3] = convert_int_sat_rtp(v);
    i[4] = convert_int_sat_rtn(v);
    i[5] = as_int(convert_uint_sat(v));
    i[6] = convert_char_sat(v);
    i[7] = convert_uchar_sat(v);
    i[8] = convert_short_sat_rte(v);
    i[9] = convert_ushort_sat(v);
    global long *l = ol + g * 3;
    l[0] = convert_long_sat(v);
    l[1] = as_long(convert_ulong_sat(v));
    l[2] = convert_long_sat_rtn(v);
    of[g * 2] = convert_float(v);
    of[g * 2 + 1] = (float)v;
    // In range: the plain conversions.
    global int *n = oin + g * 6;
    n[0] = (int)s;
    n[1] = convert_int(s);
    n[2] = convert_int_rte(s);
    n[3] = convert_int_rtz(s);
    n[4] = convert_int_rtp(s);
    n[5] = convert_int_rtn(s);
}

kernel void to_double(global const int *i, global const long *l, global const ulong *u, global const float *f,
                      global double *o) {
    size_t g = get_global_id(0);
    global double *r = o + g * 5;
    r[0] = i[g];
    r[1] = convert_double(l[g]);
    r[2] = (double)u[g];
    r[3] = f[g];
    r[4] = as_double(l[g] & 0x7fefffffffffffffL);
}

kernel void double_vectors(global const double *a, global double *o) {
    size_t g = get_global_id(0), n = get_global_size(0);
    double2 v2 = vload2(g, a);
    double3 v3 = vload3(g, a);
    double4 v4 = vload4(g, a);
    double8 v8 = vload8(g, a);
    double16 v16 = vload16(g, a);
    vstore2(v2 * 2.0 + v2.yx, g, o);
    vstore3(v3.zxy - v3 / 4.0, g, o + 2 * n);
    vstore4((double4)(v4.xy, v4.wz) * v4 + fabs(v4), g, o + 5 * n);
    vstore8(v8.s76543210 + floor(v8), g, o + 9 * n);
    vstore16(v16 + v16.sfedcba9876543210 * 0.5, g, o + 17 * n);
    // Components, and a vector argument to a built-in.
    double4 w = (double4)(1.0, 2.0, v4.s3, v4[0]);
    o[33 * n + g] = w.x + w.y * 4.0 + w.z + w.w + fmax(v2, w.xy).y;
}

kernel void double_relational(global const double *a, global const double *b, global int *s, global long *v,
                              global double *sel) {
    size_t g = get_global_id(0);
    double x = a[g], y = b[g];
    global int *r = s + g * 12;
    r[0] = isnan(x);
    r[1] = isinf(x);
    r[2] = isfinite(x);
    r[3] = isnormal(x);
    r[4] = signbit(x);
    r[5] = isgreater(x, y);
    r[6] = isgreaterequal(x, y);
    r[7] = isless(x, y);
    r[8] = islessequal(x, y);
    r[9] = islessgreater(x, y);
    r[10] = isordered(x, y);
    r[11] = isunordered(x, y);
    // Vectors of double compare to long vectors: -1 for true.
    double2 x2 = (double2)(x, y), y2 = (double2)(y, x);
    global long *m = v + g * 8;
    vstore2(isnan(x2), 0, m);
    vstore2(x2 < y2, 1, m);
    vstore2(signbit(x2), 2, m);
    m[6] = any(isinf(x2));
    m[7] = all(isfinite(x2));
    sel[g * 4] = select(x, y, (long)(x < y));
    double2 s2 = select(x2, y2, x2 > y2);
    sel[g * 4 + 1] = s2.x;
    sel[g * 4 + 2] = s2.y;
    sel[g * 4 + 3] = x < y ? x : y;
}

kernel void double_literals(global double *o, global int *n) {
    o[0] = 0.1;
    o[1] = 0.1f;
    o[2] = 1.0 / 3.0;
    o[3] = 0x1.8p1;
    o[4] = 1e300 * 1e10;
    o[5] = M_PI;
    o[6] = DBL_EPSILON;
    o[7] = DBL_MIN;
    o[8] = DBL_MAX;
    o[9] = 2.5e-320;
    o[10] = 1 + 0.1;
    o[11] = 0.1f + 0.2;
    o[12] = 1e-5;
    o[13] = M_E;
    n[0] = sizeof(1.0);
    n[1] = sizeof(1.0f);
    n[2] = sizeof(double4);
    n[3] = sizeof(double3);
    n[4] = 0.1 == 0.1f;
    n[5] = 0.5 == 0.5f;
    n[6] = DBL_MANT_DIG * DBL_RADIX;
    n[7] = DBL_MAX_EXP;
    n[8] = 0;
#ifdef cl_khr_fp64
    n[8] += 1;
#endif
#ifdef __opencl_c_fp64
    n[8] += 2;
#endif
    n[9] = sizeof(0.5 * 2.0f);
    n[10] = DBL_RADIX;
}

// Math built-ins; the order matches the table in tests/kernels.rs.
kernel void double_math(global const double *xs, global const double *ys, global const double *zs, global double *o,
                        global int *oi) {
    size_t g = get_global_id(0);
    double x = xs[g], y = ys[g], z = zs[g];
    global double *r = o + g * 56;
    int e;
    double ip;
    r[0] = sqrt(y);
    r[1] = exp(x);
    r[2] = log(y);
    r[3] = pow(y, x);
    r[4] = sin(y);
    r[5] = cos(y);
    r[6] = tan(x);
    r[7] = fma(x, y, z);
    r[8] = mad(x, y, z);
    r[9] = fabs(x);
    r[10] = floor(x * 3.0);
    r[11] = ceil(x * 3.0);
    r[12] = rint(x * 3.0);
    r[13] = round(x * 3.0);
    r[14] = trunc(x * 3.0);
    r[15] = fmod(y, x);
    r[16] = frexp(y * 1000.0, &e);
    oi[g * 3] = e;
    r[17] = ldexp(x, (int)g - 30);
    r[18] = hypot(x, y);
    r[19] = atan2(x, y);
    r[20] = cbrt(x);
    r[21] = asin(x / 4.0);
    r[22] = acos(x / 4.0);
    r[23] = atan(x);
    r[24] = sinh(x);
    r[25] = cosh(x);
    r[26] = tanh(x);
    r[27] = exp2(x);
    r[28] = exp10(x);
    r[29] = log2(y);
    r[30] = log10(y);
    r[31] = expm1(x);
    r[32] = log1p(y);
    r[33] = rsqrt(y);
    r[34] = fmin(x, z);
    r[35] = fmax(x, z);
    r[36] = copysign(y, x);
    r[37] = fdim(x, z);
    r[38] = maxmag(x, z);
    r[39] = minmag(x, z);
    r[40] = nextafter(x, z);
    r[41] = remainder(y, x);
    r[42] = fract(x * 3.0, &ip);
    r[43] = ip;
    r[44] = modf(x * 3.0, &ip);
    r[45] = ip;
    r[46] = logb(y);
    oi[g * 3 + 1] = ilogb(y);
    oi[g * 3 + 2] = isnan(nan((ulong)g));
    r[47] = sign(x);
    r[48] = degrees(x);
    r[49] = radians(y);
    r[50] = mix(x, y, (double)0.25); // a float 0.25 (-cl-single-precision-constant) would be ambiguous
    r[51] = clamp(x, (double)-1.0, (double)1.0);
    r[52] = step(z, x);
    r[53] = exp(y * 60.0);
    r[54] = log(x * x * 1e-200);
    r[55] = asinh(x);
}

// fma, fmod and remainder must be exact (correctly rounded); scalar and vector forms.
kernel void double_exact(global const double *a, global const double *b, global const double *c, global double *o) {
    size_t g = get_global_id(0);
    o[g * 3] = fma(a[g], b[g], c[g]);
    o[g * 3 + 1] = fmod(a[g], b[g]);
    o[g * 3 + 2] = remainder(a[g], b[g]);
}

kernel void double_exact4(global const double4 *a, global const double4 *b, global const double4 *c, global double4 *o) {
    size_t g = get_global_id(0);
    o[g * 3] = fma(a[g], b[g], c[g]);
    o[g * 3 + 1] = fmod(a[g], b[g]);
    o[g * 3 + 2] = remainder(a[g], b[g]);
}

// Float fmod and remainder are computed in double where the device has it: exact too.
kernel void float_exact(global const float *a, global const float *b, global float *o) {
    size_t g = get_global_id(0);
    o[g * 2] = fmod(a[g], b[g]);
    o[g * 2 + 1] = remainder(a[g], b[g]);
}

// vstore_half of double: one rounding to half (no double rounding through float).
kernel void double_to_half(global const double *d, global half *h) {
    size_t g = get_global_id(0);
    vstore_half(d[g], g, h);
    vstore_half2(vload2(g, d), g, h + get_global_size(0));
}
