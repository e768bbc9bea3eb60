//! The math built-ins at the special values that OpenCL C §7.5.1 and C99 Annex F state, and
//! their accuracy where the CTS math suite found them off (huge trigonometric arguments,
//! pow of large logarithms, asin/acos/atan, log10, log1p, hypot and cosh near overflow, float
//! fma), against the spec's values and the host's libm.
mod common;
#[path = "kernels/harness.rs"]
#[allow(dead_code)]
mod harness;

use common::{ulps, ulps32};
use harness::{values, Arg, Suite};

/// Kernel `k` applies each expression to its own slot of `o`; the values come back.
fn eval<T: Copy + Default>(ty: &str, exprs: &[&str]) -> Vec<T> {
    let body: String = exprs.iter().enumerate().map(|(i, e)| format!("o[{i}] = {e};\n")).collect();
    let src = format!("kernel void k(global {ty} *o, global const {ty} *zero) {{ {ty} z = zero[0]; {body} }}");
    // `z` (0 from a buffer) keeps the operands from being constants: the run-time code is
    // what is checked.
    let s = Suite::new(&src.replace("(Z)", "z"));
    let o = s.zeros::<T>(exprs.len());
    let zero = s.zeros::<T>(1);
    s.run("k", &[Arg::Buf(&o), Arg::Buf(&zero)], &[1], None);
    s.get::<T>(&o, exprs.len())
}

/// (expression, expected value) at the special values: in the expressions `#` stands for the
/// type's literal suffix, `INFV`, `NANV` and `MAXV` for its infinity, NaN and largest value.
fn special_cases(inf: f64, pi: f64) -> Vec<(&'static str, f64)> {
    vec![
        ("sin(-INFV + (Z))", f64::NAN),
        ("cos(INFV + (Z))", f64::NAN),
        ("tan(-INFV + (Z))", f64::NAN),
        ("sinpi(1.0# + (Z))", 0.0),
        ("sinpi(-2.0# + (Z))", -0.0),
        ("sinpi(-0.0# - (Z))", -0.0),
        ("cospi(0.5# + (Z))", 0.0),
        ("cospi(-1.5# + (Z))", 0.0),
        ("tanpi(1.0# + (Z))", -0.0),
        ("tanpi(-2.0# + (Z))", -0.0),
        ("tanpi(0.5# + (Z))", inf),
        ("tanpi(2.5# + (Z))", inf),
        ("tanpi(-0.5# + (Z))", -inf),
        ("sinpi(0x1p100# + (Z))", 0.0),
        ("cospi(-0x1p100# + (Z))", 1.0),
        ("atan2(0.0# + (Z), -0.0# - (Z))", pi),
        ("atan2(-0.0# - (Z), -0.0# - (Z))", -pi),
        ("atan2(-0.0# - (Z), 0.0# + (Z))", -0.0),
        ("atan2(INFV + (Z), -INFV + (Z))", 0.75 * pi),
        ("atan2(-INFV + (Z), INFV + (Z))", -0.25 * pi),
        ("atan2(NANV + (Z), -0.0# - (Z))", f64::NAN),
        ("atan2pi(0.0# + (Z), -0.0# - (Z))", 1.0),
        ("atan2pi(-INFV + (Z), -INFV + (Z))", -0.75),
        ("acosh(-1e30# + (Z))", f64::NAN),
        ("powr(-1.0# + (Z), 2.0#)", f64::NAN),
        ("powr(0.0# + (Z), 0.0#)", f64::NAN),
        ("powr(INFV + (Z), 0.0#)", f64::NAN),
        ("powr(1.0# + (Z), INFV)", f64::NAN),
        ("powr(-0.0# - (Z), -3.0#)", inf),
        ("powr(-0.0# - (Z), 2.0#)", 0.0),
        ("pow(-1.0# + (Z), -INFV)", 1.0),
        ("pow(-0.0# - (Z), -3.0#)", -inf),
        ("pow(-INFV + (Z), -3.5#)", 0.0),
        ("pow(-INFV + (Z), 3.0#)", -inf),
        ("rootn(-0.0# - (Z), -2)", inf),
        ("rootn(-0.0# - (Z), 3)", -0.0),
        ("rootn(-0.0# - (Z), 2)", 0.0),
        ("rootn(0.0# + (Z), 0)", f64::NAN),
        ("lgamma(-INFV + (Z))", inf),
        ("tgamma(INFV + (Z))", inf),
        ("tgamma(-INFV + (Z))", f64::NAN),
        ("ldexp(-INFV + (Z), -5)", -inf),
        ("hypot(INFV + (Z), NANV)", inf),
        ("fma(-MAXV + (Z), MAXV, -INFV)", -inf),
        ("(!(NANV + (Z)) ? 1.0# : 2.0#)", 2.0),
        ("(ilogb(0.0# + (Z)) == FP_ILOGB0 && FP_ILOGB0 == INT_MIN && ilogb(NANV + (Z)) == FP_ILOGBNAN ? 1.0# : 2.0#)", 1.0),
    ]
}

fn same(got: f64, want: f64) -> bool {
    got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan())
}

#[test]
fn special_values_of_the_float_functions() {
    let cases = special_cases(f64::INFINITY, std::f64::consts::PI);
    let exprs: Vec<String> = cases.iter().map(|(e, _)| e.replace("MAXV", "FLT_MAX").replace('#', "f").replace("INFV", "INFINITY").replace("NANV", "NAN")).collect();
    let got = eval::<f32>("float", &exprs.iter().map(String::as_str).collect::<Vec<_>>());
    let bad: Vec<String> = cases.iter().zip(&got).filter(|((_, w), g)| !same(f64::from(**g), f64::from(*w as f32))).map(|((e, w), g)| format!("{e}: {g:e}, want {w:e}")).collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn special_values_of_the_double_functions() {
    if !common::has_fp64() {
        return;
    }
    let cases = special_cases(f64::INFINITY, std::f64::consts::PI);
    let exprs: Vec<String> = cases.iter().map(|(e, _)| e.replace("MAXV", "DBL_MAX").replace('#', "").replace("INFV", "(double)INFINITY").replace("NANV", "(double)NAN")).collect();
    let got = eval::<f64>("double", &exprs.iter().map(String::as_str).collect::<Vec<_>>());
    let bad: Vec<String> = cases.iter().zip(&got).filter(|((_, w), g)| !same(**g, *w)).map(|((e, w), g)| format!("{e}: {g:e}, want {w:e}")).collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Kernel `k` applies one- and two-argument functions to the arrays `a` and `b`.
const FUNCTIONS: &str = "
    kernel void k(global const T *a, global const T *b, global T *o) {
        int i = get_global_id(0);
        T x = a[i], y = b[i];
        o[8 * i] = asin(x); o[8 * i + 1] = acos(x); o[8 * i + 2] = atan(y); o[8 * i + 3] = log10(y);
        o[8 * i + 4] = log1p(x); o[8 * i + 5] = hypot(y, x); o[8 * i + 6] = atanpi(y); o[8 * i + 7] = asinpi(x); }";

/// The CTS's limits for asin, acos, atan, log10, log1p, hypot, atanpi, asinpi.
const LIMITS: [f64; 8] = [4.0, 4.0, 5.0, 3.0, 2.0, 4.0, 5.0, 5.0];

fn references(x: f64, y: f64) -> [f64; 8] {
    let pi = std::f64::consts::PI;
    [x.asin(), x.acos(), y.atan(), y.log10(), x.ln_1p(), y.hypot(x), y.atan() / pi, x.asin() / pi]
}

#[test]
fn float_functions_within_their_ulp_limits() {
    // x in (-1, 1), y positive over many binades (hypot's squares overflow past 2^64).
    let x: Vec<f32> = values::<u32>(512, 11).iter().map(|v| (f64::from(*v) / 2f64.powi(31) - 1.0) as f32).collect();
    let y: Vec<f32> = values::<u32>(512, 12).iter().map(|v| f32::from_bits(0x0100_0000 + v % 0x7d00_0000)).collect();
    let s = Suite::new(&FUNCTIONS.replace('T', "float"));
    let (a, b, o) = (s.buf(&x), s.buf(&y), s.zeros::<f32>(8 * x.len()));
    s.run("k", &[Arg::Buf(&a), Arg::Buf(&b), Arg::Buf(&o)], &[x.len()], None);
    let got = s.get::<f32>(&o, 8 * x.len());
    let mut bad = Vec::new();
    for i in 0..x.len() {
        for (k, w) in references(f64::from(x[i]), f64::from(y[i])).into_iter().enumerate() {
            // Within the limit of the exact value: of its rounding, one ulp less is allowed.
            let (g, w) = (got[8 * i + k], w as f32);
            if f64::from(ulps32(g, w)) > LIMITS[k] + 0.5 {
                bad.push(format!("function {k} at ({}, {}): {g:e}, want {w:e}", x[i], y[i]));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn double_functions_within_their_ulp_limits() {
    if !common::has_fp64() {
        return;
    }
    let x: Vec<f64> = values::<u64>(512, 13).iter().map(|v| (*v as f64) / 2f64.powi(63) - 1.0).collect();
    let y: Vec<f64> = values::<u64>(512, 14).iter().map(|v| f64::from_bits(0x0020_0000_0000_0000 + v % 0x7fa0_0000_0000_0000)).collect();
    let s = Suite::new(&FUNCTIONS.replace('T', "double"));
    let (a, b, o) = (s.buf(&x), s.buf(&y), s.zeros::<f64>(8 * x.len()));
    s.run("k", &[Arg::Buf(&a), Arg::Buf(&b), Arg::Buf(&o)], &[x.len()], None);
    let got = s.get::<f64>(&o, 8 * x.len());
    let mut bad = Vec::new();
    for i in 0..x.len() {
        for (k, w) in references(x[i], y[i]).into_iter().enumerate() {
            let g = got[8 * i + k];
            if ulps(g, w) as f64 > LIMITS[k] + 1.0 {
                bad.push(format!("function {k} at ({:e}, {:e}): {g:e}, want {w:e}", x[i], y[i]));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn huge_trigonometric_arguments_powers_and_overflow_edges() {
    if !common::has_fp64() {
        return;
    }
    let src = "kernel void k(global const double *a, global const double *b, global double *o, global const float *f, global float *g) {
        int i = get_global_id(0);
        double x = a[i], y = b[i];
        o[5 * i] = sin(x); o[5 * i + 1] = cos(x); o[5 * i + 2] = tan(x);
        o[5 * i + 3] = pow(y, 600.0); o[5 * i + 4] = rootn(-x, 3);
        g[3 * i] = cosh(f[i]); g[3 * i + 1] = sinh(-f[i]); g[3 * i + 2] = fma(f[i], f[i] * 0.75f, -f[i]); }";
    let x = [2f64.powi(897), -2f64.powi(961), f64::MAX, 8454144.0000004, 1e22, 1e300, 2097152.5, 3.0e7];
    let y: [f64; 8] = [1.5, std::f64::consts::SQRT_2, 0.6826349496841431, 1.0000001, 0.999, 2.0, 1.1, 1.3];
    let f = [89.0f32, 88.5, 0.0001, 1.0000001, 3.0, 65.0, 88.72, 10.0];
    let s = Suite::new(src);
    let (a, b, fb) = (s.buf(&x), s.buf(&y), s.buf(&f));
    let (o, g) = (s.zeros::<f64>(40), s.zeros::<f32>(24));
    s.run("k", &[Arg::Buf(&a), Arg::Buf(&b), Arg::Buf(&o), Arg::Buf(&fb), Arg::Buf(&g)], &[8], None);
    let (o, g) = (s.get::<f64>(&o, 40), s.get::<f32>(&g, 24));
    let mut bad = Vec::new();
    for i in 0..8 {
        let want = [x[i].sin(), x[i].cos(), x[i].tan(), y[i].powf(600.0), -x[i].cbrt()];
        for (k, (w, limit)) in want.into_iter().zip([4, 4, 5, 16, 16]).enumerate() {
            if ulps(o[5 * i + k], w) > limit {
                bad.push(format!("double function {k} at {:e} / {:e}: {:e}, want {w:e}", x[i], y[i], o[5 * i + k]));
            }
        }
        let v = f64::from(f[i]);
        let want = [v.cosh() as f32, (-v).sinh() as f32, f[i].mul_add(f[i] * 0.75, -f[i])];
        for (k, (w, limit)) in want.into_iter().zip([4, 4, 0]).enumerate() {
            if ulps32(g[3 * i + k], w) > limit {
                bad.push(format!("float function {k} at {}: {:e}, want {w:e}", f[i], g[3 * i + k]));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Float sin, cos, tan and sincos where one vector mixes small arguments with huge ones (the
/// huge ones take the Payne–Hanek branch, the others must not be disturbed by it), against f64.
#[test]
fn float_trigonometry_of_small_and_huge_arguments_in_one_vector() {
    let src = "kernel void k(global const float4 *a, global float4 *o) {
        int i = get_global_id(0);
        float4 x = a[i], c;
        o[4 * i] = sin(x); o[4 * i + 1] = cos(x); o[4 * i + 2] = tan(x); o[4 * i + 3] = sincos(x, &c) - c; }";
    let x: [f32; 16] = [0.5, 1e30, -5999.0, 6001.0, -3.0e7, 2.5, 1e-3, f32::MAX, 100.0, -0.75, 7.0e5, 3.4e38, 0.0, -1e-30, 8192.0, 1.2e4];
    let s = Suite::new(src);
    let a = s.buf(&x);
    let o = s.zeros::<f32>(64);
    s.run("k", &[Arg::Buf(&a), Arg::Buf(&o)], &[4], None);
    let o = s.get::<f32>(&o, 64);
    let mut bad = Vec::new();
    for (i, &xi) in x.iter().enumerate() {
        let v = f64::from(xi);
        let (base, lane) = (16 * (i / 4), i % 4);
        let want = [v.sin(), v.cos(), v.tan(), v.sin() - v.cos()];
        for (k, (w, limit)) in want.into_iter().zip([4, 4, 5, 8]).enumerate() {
            let got = o[base + 4 * k + lane];
            // sin − cos near a zero of it is checked against the larger term's ulp instead.
            let scale = if k == 3 { v.sin().abs().max(v.cos().abs()) } else { w.abs() };
            if ulps32(got, w as f32) > limit && (f64::from(got) - w).abs() > scale * f64::from(f32::EPSILON) * 8.0 {
                bad.push(format!("float function {k} at {xi:e}: {got:e}, want {w:e}"));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// `sincos` computes its sine and cosine together: as a statement whose sine is discarded, in
/// a loop, on float8 parts and on doubles, each result is its own argument's.
#[test]
fn sincos_pairs_its_sine_with_its_own_cosine() {
    let src = "kernel void k(global const float8 *a, global float8 *o, global double *d) {
        int i = get_global_id(0);
        float8 x = a[i], c, c2;
        sincos(x * 3.0f, &c2);
        float8 s = sincos(x, &c);
        float t = 0.0f, tc;
        for (int j = 0; j < 3; j++) t += sincos(x.s0 + (float)j, &tc) * tc;
        o[3 * i] = s; o[3 * i + 1] = c - c2; o[3 * i + 2] = (float8)(t);
        double dc; d[2 * i] = sincos((double)x.s3 * 1e6, &dc); d[2 * i + 1] = dc; }";
    let x: Vec<f32> = (0..16).map(|k| (k as f32 - 7.5) * 0.9 + if k == 5 { 1e7 } else { 0.0 }).collect();
    let s = Suite::new(src);
    let a = s.buf(&x);
    let (o, d) = (s.zeros::<f32>(48), s.zeros::<f64>(4));
    s.run("k", &[Arg::Buf(&a), Arg::Buf(&o), Arg::Buf(&d)], &[2], None);
    let (o, d) = (s.get::<f32>(&o, 48), s.get::<f64>(&d, 4));
    let mut bad = Vec::new();
    let check = |bad: &mut Vec<String>, what: &str, got: f32, want: f64, scale: f64| {
        if (f64::from(got) - want).abs() > scale.max(want.abs()) * 1e-6 {
            bad.push(format!("{what}: {got:e}, want {want:e}"));
        }
    };
    for i in 0..2 {
        for l in 0..8 {
            let v = f64::from(x[8 * i + l]);
            check(&mut bad, &format!("sin lane {l} of {i}"), o[24 * i + l], v.sin(), 0.0);
            let three = f64::from(x[8 * i + l] * 3.0);
            check(&mut bad, &format!("cos difference lane {l} of {i}"), o[24 * i + 8 + l], v.cos() - three.cos(), 1.0);
        }
        let v0 = x[8 * i];
        let t: f64 = (0..3).map(|j| f64::from(v0 + j as f32)).map(|y| y.sin() * y.cos()).sum();
        check(&mut bad, &format!("loop sum of {i}"), o[24 * i + 16], t, 1.0);
        let dv = f64::from(x[8 * i + 3]) * 1e6;
        for (k, want) in [dv.sin(), dv.cos()].into_iter().enumerate() {
            if ulps(d[2 * i + k], want) > 4 {
                bad.push(format!("double sincos part {k} of {dv:e}: {:e}, want {want:e}", d[2 * i + k]));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn double_ldexp_rounds_subnormal_results_and_half_powr_keeps_its_bound_near_one() {
    if !common::has_fp64() {
        return;
    }
    let s = Suite::new(
        "kernel void k(global const ulong *bits, global const int *k, global double *o, global const float *x, global const float *y, global float *p) {
            int i = get_global_id(0);
            o[i] = ldexp(as_double(bits[i]), k[i]);
            p[i] = half_powr(x[i], y[i]); }",
    );
    // Operands given as bits and results read as bits: no float operation may flush them.
    let bits: [u64; 6] = [0x8000_0000_0000_0005, 0x0000_0000_0000_0003, 0x0010_0000_0000_0001, 0x0000_0000_0000_0001, 0xc1f0_0000_0000_0000, 0x0000_0000_0000_0006];
    let k = [-3, 1, -2, 1074, -1022, -2];
    let x: [f32; 6] = [f32::from_bits(0x3f7f_a046), 0.9999, 1.0001, 1.03, 0.97, 2.0];
    let y: [f32; 6] = [50375.0, 100000.0, -300000.0, 2000.0, -1500.0, 100.5];
    let (b, kb, xb, yb) = (s.buf(&bits), s.buf(&k), s.buf(&x), s.buf(&y));
    let (o, p) = (s.zeros::<u64>(6), s.zeros::<f32>(6));
    s.run("k", &[Arg::Buf(&b), Arg::Buf(&kb), Arg::Buf(&o), Arg::Buf(&xb), Arg::Buf(&yb), Arg::Buf(&p)], &[6], None);
    let (o, p) = (s.get::<u64>(&o, 6), s.get::<f32>(&p, 6));
    // -5·2^-1074 / 8 = -0.625 units → -1 unit; 3 units · 2 = 6 units; (2^-1022 + 2^-1074) / 4
    // = 2^50 + 0.25 units → 2^50; 2^-1074 · 2^1074 = 1; -2^32 · 2^-1022 = -2^-990; 6 / 4 = 1.5
    // units → 2 (ties to even).
    let want: [u64; 6] = [0x8000_0000_0000_0001, 0x0000_0000_0000_0006, 0x0004_0000_0000_0000, 0x3ff0_0000_0000_0000, 0x8210_0000_0000_0000, 0x0000_0000_0000_0002];
    assert_eq!(o, want, "ldexp bits");
    for i in 0..6 {
        let w = f64::from(x[i]).powf(f64::from(y[i])) as f32;
        assert!(ulps32(p[i], w) <= 8192, "half_powr({}, {}) = {:e}, want {w:e}", x[i], y[i], p[i]);
    }
}

/// remquo's quotient (sign of x / y, low 7 bits of the n nearest x / y, ties to even) for
/// positive finite floats with x / y below 2^100, by integer division.
fn remquo_reference(x: f32, y: f32) -> i32 {
    let parts = |v: f32| {
        let b = v.to_bits();
        let (e, f) = ((b >> 23) as i32, u128::from(b & 0x7f_ffff));
        if e == 0 { (f, -149) } else { (f | 1 << 23, e - 150) }
    };
    let ((mx, qx), (my, qy)) = (parts(x.abs()), parts(y.abs()));
    let d = qx - qy;
    let (num, den) = if d >= 0 { (mx << d, my) } else { (mx, my << -d) };
    let (q, r) = (num / den, num % den);
    let n = if 2 * r > den || (2 * r == den && q % 2 == 1) { q + 1 } else { q };
    let low = (n % 128) as i32;
    if (x < 0.0) != (y < 0.0) { -low } else { low }
}

#[test]
fn remquo_quotients_of_huge_ratios_are_exact() {
    // Exact through double's long division; without double the quotient is x / y rounded.
    if !common::has_fp64() {
        return;
    }
    let s = Suite::new("kernel void k(global const float *x, global const float *y, global int *q, global float *r) {
        int i = get_global_id(0); int n; r[i] = remquo(x[i], y[i], &n); q[i] = n; }");
    let x: Vec<f32> = values::<u32>(256, 21).iter().map(|v| f32::from_bits(0x3000_0000 + v % 0x0d00_0000) * if v % 3 == 0 { -1.0 } else { 1.0 }).collect();
    let y: Vec<f32> = values::<u32>(256, 22).iter().map(|v| f32::from_bits(0x1000_0000 + v % 0x2000_0000) * if v % 5 == 0 { -1.0 } else { 1.0 }).collect();
    let (xb, yb, qb, rb) = (s.buf(&x), s.buf(&y), s.zeros::<i32>(256), s.zeros::<f32>(256));
    s.run("k", &[Arg::Buf(&xb), Arg::Buf(&yb), Arg::Buf(&qb), Arg::Buf(&rb)], &[256], None);
    let q = s.get::<i32>(&qb, 256);
    let bad: Vec<String> = (0..256).filter(|&i| q[i] != remquo_reference(x[i], y[i])).map(|i| format!("remquo({:e}, {:e}): {}, want {}", x[i], y[i], q[i], remquo_reference(x[i], y[i]))).collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

extern "C" {
    /// The host C library's Γ (glibc's is within a few ulp).
    fn tgamma(x: f64) -> f64;
}

#[test]
fn double_tgamma_near_poles_and_overflow() {
    if !common::has_fp64() {
        return;
    }
    let s = Suite::new("kernel void k(global const double *x, global double *o) { int i = get_global_id(0); o[i] = tgamma(x[i]); }");
    let x = [f64::from_bits(0xc065_6000_0000_0200), f64::from_bits(0xc065_2000_0000_0200), f64::from_bits(0xc000_0000_0000_0200), -2f64.powi(-63), -175.00001, -170.5, 165.5, 171.5, 30.0, 0.5, 7.25, -3.75];
    let (xb, o) = (s.buf(&x), s.zeros::<f64>(x.len()));
    s.run("k", &[Arg::Buf(&xb), Arg::Buf(&o)], &[x.len()], None);
    let got = s.get::<f64>(&o, x.len());
    for (i, &v) in x.iter().enumerate() {
        // SAFETY: a pure C math function.
        let want = unsafe { tgamma(v) };
        assert!(ulps(got[i], want) <= 16, "tgamma({v:e}) = {:e}, want {want:e}", got[i]);
    }
}

extern "C" {
    /// The host C library's neighbours (exact by definition).
    fn nextafterf(x: f32, y: f32) -> f32;
    fn nextafter(x: f64, y: f64) -> f64;
}

/// Operands at the edges where a device that flushes float subnormals (NVIDIA) broke the CTS
/// bounds: nextafter from and to subnormals, atanh past 1 (its 1 / (1 - a) is subnormal past
/// 2^126), given and read back as bits so no float operation of the test can flush them.
#[test]
fn nextafter_of_subnormals_and_atanh_past_one_as_bits() {
    let s = Suite::new(
        "kernel void k(global const uint *x, global const uint *y, global uint *n, global uint *a) {
            int i = get_global_id(0);
            n[i] = as_uint(nextafter(as_float(x[i]), as_float(y[i])));
            a[i] = as_uint(atanh(as_float(x[i]))); }",
    );
    let tiny = |k: u32| f32::from_bits(k);
    let pairs: [(f32, f32); 16] = [
        (tiny(5), 1.0),
        (tiny(5), -1.0),
        (-tiny(5), 1.0),
        (tiny(1), 0.0),
        (-tiny(1), 1.0),
        (0.0, -1.0),
        (-0.0, tiny(3)),
        (tiny(3), tiny(2)),
        (tiny(2), tiny(3)),
        (f32::MIN_POSITIVE, 0.0),
        (-f32::MIN_POSITIVE, -1.0),
        (-0.0, 0.0),
        (f32::MAX, f32::INFINITY),
        (f32::from_bits(0x7e80_0001), 1.0),
        (-f32::from_bits(0x7ec0_0000), 0.0),
        (-f32::MIN_POSITIVE * 1.5, f32::NAN),
    ];
    let (x, y): (Vec<u32>, Vec<u32>) = pairs.iter().map(|(a, b)| (a.to_bits(), b.to_bits())).unzip();
    let (xb, yb, n, a) = (s.buf(&x), s.buf(&y), s.zeros::<u32>(16), s.zeros::<u32>(16));
    s.run("k", &[Arg::Buf(&xb), Arg::Buf(&yb), Arg::Buf(&n), Arg::Buf(&a)], &[16], None);
    let (n, a) = (s.get::<u32>(&n, 16), s.get::<u32>(&a, 16));
    let mut bad = Vec::new();
    for (i, &(p, q)) in pairs.iter().enumerate() {
        // SAFETY: pure C math functions.
        let want = unsafe { nextafterf(p, q) };
        let got = f32::from_bits(n[i]);
        if got.to_bits() != want.to_bits() && !(got.is_nan() && want.is_nan()) {
            bad.push(format!("nextafter({p:e}, {q:e}) = {got:e} ({:#x}), want {want:e} ({:#x})", n[i], want.to_bits()));
        }
        // atanh: NaN past 1, x itself (within the 5 ulp bound) for tiny x.
        let want = (f64::from(p)).atanh() as f32;
        let got = f32::from_bits(a[i]);
        if common::ulps32(got, want) > 5 {
            bad.push(format!("atanh({p:e}) = {got:e}, want {want:e}"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn double_nextafter_of_subnormals_as_bits() {
    if !common::has_fp64() {
        return;
    }
    let s = Suite::new("kernel void k(global const ulong *x, global const ulong *y, global ulong *n) {
        int i = get_global_id(0); n[i] = as_ulong(nextafter(as_double(x[i]), as_double(y[i]))); }");
    let tiny = |k: u64| f64::from_bits(k);
    let pairs: [(f64, f64); 8] = [(tiny(5), 1.0), (-tiny(5), 1.0), (tiny(1), 0.0), (0.0, -1.0), (-0.0, 0.0), (tiny(3), tiny(2)), (f64::MIN_POSITIVE, 0.0), (f64::MAX, f64::INFINITY)];
    let (x, y): (Vec<u64>, Vec<u64>) = pairs.iter().map(|(a, b)| (a.to_bits(), b.to_bits())).unzip();
    let (xb, yb, n) = (s.buf(&x), s.buf(&y), s.zeros::<u64>(8));
    s.run("k", &[Arg::Buf(&xb), Arg::Buf(&yb), Arg::Buf(&n)], &[8], None);
    let n = s.get::<u64>(&n, 8);
    for (i, &(p, q)) in pairs.iter().enumerate() {
        // SAFETY: a pure C math function.
        let want = unsafe { nextafter(p, q) };
        assert_eq!(n[i], want.to_bits(), "nextafter({p:e}, {q:e})");
    }
}

/// rsqrt within 2 ulp and tan within 5 (float, scalar and float4), half_sin/half_cos/half_tan
/// within 8192 on |x| ≤ 2^16 (near the multiples of π/2 too) and bounded past it; references
/// from the host's double functions.
#[test]
fn rsqrt_tan_and_half_trigonometry_within_their_bounds() {
    let s = Suite::new(
        "kernel void k(global const float *x, global float *o, global float4 *v) {
            int i = get_global_id(0);
            float a = x[i];
            o[5 * i] = rsqrt(fabs(a)); o[5 * i + 1] = tan(a);
            o[5 * i + 2] = half_sin(a); o[5 * i + 3] = half_cos(a); o[5 * i + 4] = half_tan(a);
            float4 w = (float4)(a, -a, a * 0.5f, a * 3.0f);
            v[2 * i] = rsqrt(fabs(w)); v[2 * i + 1] = tan(w); }",
    );
    // Random floats over every binade, and the worst cases of a host simulation of the
    // earlier float tan (rounded or reciprocal division) and of the half_ functions.
    let mut x: Vec<f32> = values::<u32>(480, 31).iter().map(|v| f32::from_bits(v % 0x7f80_0000) * if v % 2 == 0 { -1.0 } else { 1.0 }).collect();
    x.extend((0..480u32).map(|i| (i as f32 - 240.0) * 273.1));
    x.extend([-6556.0, 6.6374e3, 7.184198e6, 4.0037334e22, 3.9208965, 6.4406582e4, 5.0713945e4, f32::from_bits(0x437c_e5f1), 65536.0, -65535.99]);
    x.extend([1e20, -3e9, 65540.0, f32::INFINITY, -f32::INFINITY, 1.0, f32::MAX, f32::MIN_POSITIVE, 1e-30, 0.0]);
    let n = x.len();
    let (xb, o, v) = (s.buf(&x), s.zeros::<f32>(5 * n), s.zeros::<f32>(8 * n));
    s.run("k", &[Arg::Buf(&xb), Arg::Buf(&o), Arg::Buf(&v)], &[n], None);
    let (o, v) = (s.get::<f32>(&o, 5 * n), s.get::<f32>(&v, 8 * n));
    let mut bad = Vec::new();
    // Where the device may flush subnormals (no CL_FP_DENORM), the results for the flushed
    // argument, and flushed results, are right too.
    // `args`: the argument as computed exactly, then as a device that flushes may compute it.
    let check = |bad: &mut Vec<String>, what: &str, args: [f32; 2], got: f32, f: fn(f64) -> f64, limit: u32| {
        let within = |arg: f32| {
            let want = f(f64::from(arg)) as f32;
            common::ulps32(got, want) <= limit || common::ulps32(got, common::flushed(want)) <= limit
        };
        if !args.iter().any(|&a| within(a) || within(common::flushed(a))) {
            bad.push(format!("{what}({:e}) = {got:e}, want {:e}", args[0], f(f64::from(args[0]))));
        }
    };
    let rsqrt: fn(f64) -> f64 = |x| 1.0 / x.sqrt();
    for (i, &a) in x.iter().enumerate() {
        let flat = common::flushed(a);
        check(&mut bad, "rsqrt", [a.abs(), flat.abs()], o[5 * i], rsqrt, 2);
        check(&mut bad, "tan", [a, flat], o[5 * i + 1], f64::tan, 5);
        // The lanes are computed from `a`, which such a device flushes first.
        let lanes = |a: f32| [a, -a, a * 0.5, a * 3.0];
        for (k, (&c, &cf)) in lanes(a).iter().zip(&lanes(flat)).enumerate() {
            check(&mut bad, "rsqrt (float4)", [c.abs(), cf.abs()], v[8 * i + k], rsqrt, 2);
            check(&mut bad, "tan (float4)", [c, cf], v[8 * i + 4 + k], f64::tan, 5);
        }
        let half = [o[5 * i + 2], o[5 * i + 3], o[5 * i + 4]];
        if a.abs() <= 65536.0 {
            check(&mut bad, "half_sin", [a, flat], half[0], f64::sin, 8192);
            check(&mut bad, "half_cos", [a, flat], half[1], f64::cos, 8192);
            check(&mut bad, "half_tan", [a, flat], half[2], f64::tan, 8192);
        } else if a.is_finite() {
            // Outside the domain: sin and cos in [-1, 1], tan a number.
            if half[0].abs() > 1.0 || half[1].abs() > 1.0 || half[2].is_nan() {
                bad.push(format!("half_sin/cos/tan({a:e}) = {half:?} outside their range"));
            }
        } else if !half.iter().all(|h| h.is_nan()) {
            bad.push(format!("half_sin/cos/tan({a:e}) = {half:?}, want NaN"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn float_subnormals_kept_where_the_device_reports_them() {
    // `CL_DEVICE_SINGLE_FP_CONFIG` says whether float subnormals survive arithmetic: reported,
    // products and sums landing among the subnormals are exact; not reported, they may also be
    // flushed to zero (of the same sign).
    let exprs = ["0x1.161d46p-38f * (-0x1.e9b178p-106f + (Z))", "(0x1p-127f + (Z)) + 0x1p-128f", "(0x1.8p-130f - (Z)) * 4.0f", "(0x1p-149f + (Z)) * 1.0f"];
    let want: [f32; 4] = [f32::from_bits(0x2c8b_0ea3) * f32::from_bits(0x8af4_d8bc), f32::from_bits(0x0060_0000), f32::from_bits(0x0030_0000), f32::from_bits(1)];
    let got: Vec<f32> = eval("float", &exprs);
    let kept = common::device_info::<cl_sys::cl_device_fp_config>(cl_sys::CL_DEVICE_SINGLE_FP_CONFIG) & cl_sys::CL_FP_DENORM != 0;
    for ((e, g), w) in exprs.iter().zip(&got).zip(want) {
        assert!(w != 0.0 && w.is_subnormal(), "{e}: the reference {w:e} is not subnormal");
        let flushed = *g == 0.0 && g.is_sign_negative() == w.is_sign_negative();
        assert!(g.to_bits() == w.to_bits() || (!kept && flushed), "{e}: {g:e} where {w:e} is wanted (subnormals reported: {kept})");
    }
}
