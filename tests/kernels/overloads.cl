// Built-in calls with arguments of mixed types: the overload is the one clang chooses (the
// best conversion for every argument), never the first argument's type with the others
// converted (and narrowed) to it.

// mul24/mad24 exist for int and uint only: uchar and short operands are promoted to int, and
// 9798 or -70000 are not narrowed to the first operand's type. upsample(short, int) is the
// (short, ushort) overload, giving an int.
kernel void int_overloads(global const uchar *u, global const short *s, global int *out) {
    int i = get_global_id(0);
    out[5 * i] = mul24(u[i], 9798);
    out[5 * i + 1] = mad24(u[i], 3735, 0);
    out[5 * i + 2] = mad24(s[i], u[i], -70000);
    out[5 * i + 3] = upsample(s[i], 0x1234);
    // The vector form with scalar bounds: the bounds convert to int, then apply to every
    // component.
    int4 v = (int4)(s[i], u[i], -s[i], 70000);
    int4 c = clamp(v, -1000, 40000u);
    out[5 * i + 4] = c.x + c.y + c.z + c.w + max(v, 0).z;
}

// Scalar (sgentype) operands of the vector forms, with int arguments converted to float.
kernel void float_overloads(global const float4 *x, global float4 *out) {
    int i = get_global_id(0);
    float4 a = x[i];
    out[6 * i] = clamp(a, 0, 1);
    out[6 * i + 1] = mix(a, (float4)(2.0f), 1);
    out[6 * i + 2] = step(0, a) + smoothstep(-1, 1, a);
    out[6 * i + 3] = ldexp(a, 2) + pown(a, 2);
    out[6 * i + 4] = fmax(a, 0) + fmin(i, a);
    out[6 * i + 5] = (float4)(fmax(i, 0.5f), distance(i, 1.5f), dot(a.xy, (float2)(1)), 0.0f);
}

#ifdef cl_khr_fp64
// An integer first argument with a double one is the double overload (int -> double and
// int -> float are both conversions; double -> double is exact): the double is not
// narrowed to float.
kernel void double_overloads(global const double *d, global double *out, global int *flags) {
    int i = get_global_id(0);
    double y = d[i];
    out[5 * i] = pow(2, y);
    out[5 * i + 1] = atan2(1, y);
    out[5 * i + 2] = hypot(3, y);
    out[5 * i + 3] = fma(2, 3, y);
    out[5 * i + 4] = mix(1, 2, y);
    flags[2 * i] = isless(1, y);
    flags[2 * i + 1] = isequal(1, y);
}
#endif
