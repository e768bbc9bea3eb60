//! Conversions to `float` and `double` in every rounding mode (`convert_float_rtz(long)`,
//! `convert_double_rtp(ulong)`, `convert_float_rtn(double)`, ...), from every integer type and
//! from double, scalars and vectors, against references computed here by integer arithmetic.
mod common;
#[path = "kernels/harness.rs"]
#[allow(dead_code)]
mod harness;

use harness::{val, values, Arg, Suite};

#[derive(Clone, Copy, Debug)]
enum Mode {
    Rte,
    Rtz,
    Rtp,
    Rtn,
}

const MODES: [Mode; 4] = [Mode::Rte, Mode::Rtz, Mode::Rtp, Mode::Rtn];
const SUFFIXES: [&str; 4] = ["rte", "rtz", "rtp", "rtn"];

/// A binary floating-point format: significand bits, the exponent of its least subnormal
/// unit, and the exponent of the top bit of its largest finite value.
struct Format {
    precision: i32,
    min_unit: i32,
    max_top: i32,
}

const FLOAT: Format = Format { precision: 24, min_unit: -149, max_top: 127 };
const DOUBLE: Format = Format { precision: 53, min_unit: -1074, max_top: 1023 };

/// 2^e as a double (exact for every e from -1074 to 1023).
fn pow2(e: i32) -> f64 {
    if e >= -1022 { f64::from_bits(((e + 1023) as u64) << 52) } else { f64::from_bits(1u64 << (e + 1074)) }
}

/// (-1)^negative m 2^q rounded to `f` in `mode`, as the double holding that value exactly.
fn round(negative: bool, m: u64, q: i32, f: &Format, mode: Mode) -> f64 {
    let sign = if negative { -1.0 } else { 1.0 };
    if m == 0 {
        return sign * 0.0;
    }
    let top = q + 63 - m.leading_zeros() as i32;
    let unit = (top - (f.precision - 1)).max(f.min_unit);
    let (kept, up) = if unit <= q {
        (m << (q - unit), false)
    } else {
        // Bits below `unit` are dropped: compare them with half a unit.
        let shift = (unit - q) as u32;
        let m = u128::from(m);
        let kept = if shift >= 128 { 0 } else { m >> shift };
        let rest = m - if shift >= 128 { 0 } else { kept << shift };
        let half = if shift > 127 { u128::MAX } else { 1u128 << (shift - 1) };
        let inexact = rest != 0;
        let up = match mode {
            Mode::Rte => rest > half || (rest == half && shift <= 127 && kept & 1 == 1),
            Mode::Rtz => false,
            Mode::Rtp => inexact && !negative,
            Mode::Rtn => inexact && negative,
        };
        (kept as u64, up)
    };
    let kept = kept + u64::from(up);
    let result_top = unit + 63 - kept.leading_zeros() as i32;
    if result_top > f.max_top {
        let away = matches!((mode, negative), (Mode::Rte, _) | (Mode::Rtp, false) | (Mode::Rtn, true));
        let max = (2.0 - pow2(1 - f.precision)) * pow2(f.max_top);
        return sign * if away { f64::INFINITY } else { max };
    }
    sign * kept as f64 * pow2(unit)
}

fn of_int(v: i128, f: &Format, mode: Mode) -> f64 {
    round(v < 0, v.unsigned_abs() as u64, 0, f, mode)
}

/// A finite double as (negative, m, q): m 2^q.
fn parts(d: f64) -> (bool, u64, i32) {
    let bits = d.to_bits();
    let (e, frac) = (((bits >> 52) & 0x7ff) as i32, bits & ((1 << 52) - 1));
    let (m, q) = if e == 0 { (frac, -1074) } else { (frac | 1 << 52, e - 1075) };
    (d.is_sign_negative(), m, q)
}

fn of_double(d: f64, mode: Mode) -> f32 {
    if !d.is_finite() {
        return d as f32;
    }
    let (negative, m, q) = parts(d);
    round(negative, m, q, &FLOAT, mode) as f32
}

/// Whether the device returned `want`: bit for bit, NaN for NaN, or zero of its sign where a
/// subnormal float may be flushed.
fn same(got: f32, want: f32) -> bool {
    got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()) || got.to_bits() == common::flushed(want).to_bits()
}

fn edge_and_random<T: Copy>(edges: &[T], n: usize, seed: u32, spread: impl Fn(T, u32) -> T) -> Vec<T> {
    let mut v = edges.to_vec();
    let shifts = values::<u32>(n, seed ^ 0x5555);
    v.extend(values::<T>(n, seed).into_iter().zip(shifts).map(|(x, s)| spread(x, s)));
    v
}

/// Values near the rounding boundaries of float and double, and random ones of every size.
struct Inputs {
    i32s: Vec<i32>,
    u32s: Vec<u32>,
    i64s: Vec<i64>,
    u64s: Vec<u64>,
}

const N: usize = 256;

fn inputs() -> Inputs {
    let p24 = 1i64 << 24;
    let i32_edges = [0, 1, -1, (p24 - 1) as i32, p24 as i32, (p24 + 1) as i32, (p24 + 2) as i32, (p24 + 3) as i32, -(p24 + 1) as i32, -(p24 + 3) as i32, (2 * p24 + 3) as i32, i32::MAX, i32::MIN, i32::MIN + 1, 0x7fff_ff80, 0x7fff_ffc0, -0x7fff_ffc0, 0x7fff_ff7f];
    let u32_edges = [0, 1, u32::MAX, 0xffff_ff80, 0xffff_ff7f, 0x8000_0001, 0x8000_0080, 0x8000_0180, (p24 + 1) as u32];
    let p53 = 1i64 << 53;
    let i64_edges = [0, -1, p53 - 1, p53, p53 + 1, p53 + 2, p53 + 3, -(p53 + 1), -(p53 + 3), i64::MAX, i64::MIN, i64::MIN + 1, p24 + 1, -(p24 + 1), (1 << 62) + 1, i64::MAX - 1023, i64::MAX - 1024, i64::MAX - 512];
    let u64_edges = [0, 1, u64::MAX, u64::MAX - 1024, u64::MAX - 2048, (1 << 63) + 1, (1 << 63) + 1024, (1 << 63) + 3072, (p53 + 1) as u64, (p24 + 1) as u64];
    // Random values with random leading zeros, so every exponent is met.
    Inputs {
        i32s: edge_and_random(&i32_edges, N - i32_edges.len(), 1, |x, s| x >> (s % 31)),
        u32s: edge_and_random(&u32_edges, N - u32_edges.len(), 2, |x, s| x >> (s % 32)),
        i64s: edge_and_random(&i64_edges, N - i64_edges.len(), 3, |x, s| x >> (s % 63)),
        u64s: edge_and_random(&u64_edges, N - u64_edges.len(), 4, |x, s| x >> (s % 64)),
    }
}

/// Doubles at the edges of float's range and precision, and random ones around it.
fn doubles() -> Vec<f64> {
    let f32_max = f64::from(f32::MAX);
    let mut v = vec![
        0.0, -0.0, 1.0, 0.1, -0.1, 1.0 / 3.0, 1.0 + pow2(-30), -(1.0 + pow2(-30)), 1.0 + pow2(-24), 1.0 + pow2(-24) + pow2(-40),
        f32_max, f32_max * (1.0 + pow2(-40)), -f32_max * (1.0 + pow2(-40)), f32_max + pow2(103), pow2(128), -pow2(128), 1e39, -1e39,
        f64::MAX, -f64::MAX, f64::MIN_POSITIVE, 5e-324, -5e-324, pow2(-149), pow2(-150), 1.5 * pow2(-150), 1.5 * pow2(-149),
        -1.5 * pow2(-149), pow2(-126) - pow2(-160), pow2(-126) + pow2(-160), 1e-40, -1e-40, 1e-45, 1e-300,
        f64::INFINITY, f64::NEG_INFINITY, f64::NAN,
    ];
    let rest = N - v.len();
    // Random significands with exponents from 2^-160 to 2^130.
    v.extend(values::<u64>(rest, 5).into_iter().map(|b| {
        let e = (b >> 52) % 291;
        f64::from_bits((b & 0x800f_ffff_ffff_ffff) | ((e + 1023 - 160) << 52))
    }));
    v
}

const KERNELS: &str = "
    #define MODES(T, out, x, at) out[at] = convert_##T##_rte(x); out[at + 1] = convert_##T##_rtz(x); \\
        out[at + 2] = convert_##T##_rtp(x); out[at + 3] = convert_##T##_rtn(x);
    kernel void ints(global const int *a, global const uint *b, global const long *c, global const ulong *d, global float *f) {
        int i = get_global_id(0);
        MODES(float, f, a[i], 16 * i) MODES(float, f, b[i], 16 * i + 4)
        MODES(float, f, c[i], 16 * i + 8) MODES(float, f, d[i], 16 * i + 12) }
    kernel void vectors(global const int4 *a, global const uint3 *b, global const long2 *c, global const ulong8 *d, global float *f) {
        int i = get_global_id(0);
        float4 fa[4]; MODES(float4, fa, a[i], 0)
        float3 fb[4]; MODES(float3, fb, b[i], 0)
        float2 fc[4]; MODES(float2, fc, c[i], 0)
        float8 fd[4]; MODES(float8, fd, d[i], 0)
        for (int m = 0; m < 4; m++) {
            vstore4(fa[m], 0, f + 68 * i + 17 * m);
            vstore3(fb[m], 0, f + 68 * i + 17 * m + 4);
            vstore2(fc[m], 0, f + 68 * i + 17 * m + 7);
            vstore8(fd[m], 0, f + 68 * i + 17 * m + 9);
        } }
    kernel void constants(global float *f) {
        MODES(float, f, 16777217, 0) MODES(float, f, -16777219L, 4) MODES(float, f, 0xffffffffffffffffUL, 8)
        float4 v[4]; MODES(float4, v, (long4)(16777217L, -16777217L, 3, 0x7fffffffffffffffL), 0)
        for (int m = 0; m < 4; m++) vstore4(v[m], 0, f + 12 + 4 * m); }";

fn run_ints(src: &str) -> (Inputs, Vec<f32>, Vec<f32>, Vec<f32>) {
    let s = Suite::new(src);
    let x = inputs();
    let (a, b, c, d) = (s.buf(&x.i32s), s.buf(&x.u32s), s.buf(&x.i64s), s.buf(&x.u64s));
    let f = s.zeros::<f32>(16 * N);
    s.run("ints", &[Arg::Buf(&a), Arg::Buf(&b), Arg::Buf(&c), Arg::Buf(&d), Arg::Buf(&f)], &[N], None);
    let scalar = s.get::<f32>(&f, 16 * N);
    // The vector kernel reads the same arrays as int4, uint3 (padded to 4), long2 and ulong8.
    let groups = N / 8;
    let v = s.zeros::<f32>(68 * groups);
    let b4: Vec<u32> = x.u32s.chunks(3).flat_map(|c| [c[0], *c.get(1).unwrap_or(&0), *c.get(2).unwrap_or(&0), 0]).collect();
    let b4 = s.buf(&b4);
    s.run("vectors", &[Arg::Buf(&a), Arg::Buf(&b4), Arg::Buf(&c), Arg::Buf(&d), Arg::Buf(&v)], &[groups], None);
    let vector = s.get::<f32>(&v, 68 * groups);
    let k = s.zeros::<f32>(28);
    s.run("constants", &[Arg::Buf(&k)], &[1], None);
    (x, scalar, vector, s.get::<f32>(&k, 28))
}

#[test]
fn integers_to_float_in_every_rounding_mode() {
    let (x, got, vectors, constants) = run_ints(KERNELS);
    let mut bad = Vec::new();
    let mut check = |what: String, got: f32, v: i128, m: Mode| {
        let want = of_int(v, &FLOAT, m) as f32;
        if !same(got, want) {
            bad.push(format!("{what} {v} {m:?}: {got:e} ({:#x}), want {want:e} ({:#x})", got.to_bits(), want.to_bits()));
        }
    };
    for i in 0..N {
        let sources = [i128::from(x.i32s[i]), i128::from(x.u32s[i]), i128::from(x.i64s[i]), i128::from(x.u64s[i])];
        for (k, (&v, ty)) in sources.iter().zip(["int", "uint", "long", "ulong"]).enumerate() {
            for (j, m) in MODES.into_iter().enumerate() {
                check(format!("convert_float_{}({ty})", SUFFIXES[j]), got[16 * i + 4 * k + j], v, m);
            }
        }
    }
    for g in 0..N / 8 {
        for (j, m) in MODES.into_iter().enumerate() {
            let base = 68 * g + 17 * j;
            for c in 0..4 {
                check("int4".into(), vectors[base + c], i128::from(x.i32s[4 * g + c]), m);
            }
            for c in 0..3 {
                check("uint3".into(), vectors[base + 4 + c], i128::from(x.u32s[3 * g + c]), m);
            }
            for c in 0..2 {
                check("long2".into(), vectors[base + 7 + c], i128::from(x.i64s[2 * g + c]), m);
            }
            for c in 0..8 {
                check("ulong8".into(), vectors[base + 9 + c], i128::from(x.u64s[8 * g + c]), m);
            }
        }
    }
    let consts = [16777217i128, -16777219, u64::MAX as i128];
    for (k, &v) in consts.iter().enumerate() {
        for (j, m) in MODES.into_iter().enumerate() {
            check("constant".into(), constants[4 * k + j], v, m);
        }
    }
    let lanes = [16777217i128, -16777217, 3, i64::MAX as i128];
    for (j, m) in MODES.into_iter().enumerate() {
        for (c, &v) in lanes.iter().enumerate() {
            check("constant long4".into(), constants[12 + 4 * j + c], v, m);
        }
    }
    assert!(bad.is_empty(), "{} wrong:\n{}", bad.len(), bad.join("\n"));
}

#[test]
fn reference_rounds_to_nearest_as_rust_does() {
    let x = inputs();
    for &v in &x.i64s {
        assert_eq!(of_int(i128::from(v), &FLOAT, Mode::Rte) as f32, v as f32, "{v}");
        assert_eq!(of_int(i128::from(v), &DOUBLE, Mode::Rte), v as f64, "{v}");
    }
    for &v in &x.u64s {
        assert_eq!(of_int(i128::from(v), &FLOAT, Mode::Rte) as f32, v as f32, "{v}");
    }
    for d in doubles() {
        let (got, want) = (of_double(d, Mode::Rte), d as f32);
        assert!(got.to_bits() == want.to_bits() || want.is_nan(), "{d:e}: {got:e} != {want:e}");
    }
}

#[test]
fn long_and_double_conversions_in_every_rounding_mode() {
    if !common::has_fp64() {
        return;
    }
    let src = "
        #define MODES(T, out, x, at) out[at] = convert_##T##_rte(x); out[at + 1] = convert_##T##_rtz(x); \\
            out[at + 2] = convert_##T##_rtp(x); out[at + 3] = convert_##T##_rtn(x);
        kernel void k(global const long *a, global const ulong *b, global const double *d, global double *o, global float *f) {
            int i = get_global_id(0);
            MODES(double, o, a[i], 8 * i) MODES(double, o, b[i], 8 * i + 4)
            MODES(float, f, d[i], 4 * i) }
        kernel void v(global const double8 *d, global const long4 *a, global float *f, global double *o) {
            int i = get_global_id(0);
            float8 r[4]; MODES(float8, r, d[i], 0)
            double4 s[4]; MODES(double4, s, a[i], 0)
            for (int m = 0; m < 4; m++) { vstore8(r[m], 0, f + 32 * i + 8 * m); vstore4(s[m], 0, o + 16 * i + 4 * m); } }
        kernel void r(global const double4 *d, global long4 *l, global int4 *i) {
            int g = get_global_id(0);
            l[g] = convert_long4_rte(d[g]);
            i[g] = convert_int4_sat_rte(d[g] * 1e9); }
        kernel void c(global float *f, global double *o) {
            MODES(float, f, 0x1.000001p0, 0) MODES(float, f, -1e39, 4) MODES(float, f, 0x1.8p-150, 8)
            MODES(double, o, 9007199254740993L, 0) MODES(double, o, 0xffffffffffffffffUL, 4) }";
    let s = Suite::new(src);
    let x = inputs();
    let ds = doubles();
    let (a, b, d) = (s.buf(&x.i64s), s.buf(&x.u64s), s.buf(&ds));
    let (o, f) = (s.zeros::<f64>(8 * N), s.zeros::<f32>(4 * N));
    s.run("k", &[Arg::Buf(&a), Arg::Buf(&b), Arg::Buf(&d), Arg::Buf(&o), Arg::Buf(&f)], &[N], None);
    let (o, f) = (s.get::<f64>(&o, 8 * N), s.get::<f32>(&f, 4 * N));
    let (vf, vo) = (s.zeros::<f32>(4 * N), s.zeros::<f64>(2 * N));
    s.run("v", &[Arg::Buf(&d), Arg::Buf(&a), Arg::Buf(&vf), Arg::Buf(&vo)], &[N / 8], None);
    let (vf, vo) = (s.get::<f32>(&vf, 4 * N), s.get::<f64>(&vo, 2 * N));
    let (cf, co) = (s.zeros::<f32>(12), s.zeros::<f64>(8));
    s.run("c", &[Arg::Buf(&cf), Arg::Buf(&co)], &[1], None);
    let (cf, co) = (s.get::<f32>(&cf, 12), s.get::<f64>(&co, 8));
    // Doubles to integers, to nearest even, as vectors (ties and values beyond int's range).
    let halves: Vec<f64> = (-16..16).map(|k| f64::from(k) * 0.5 + if k % 5 == 0 { 0.25 } else { 0.0 }).collect();
    let (h, l, ii) = (s.buf(&halves), s.zeros::<i64>(32), s.zeros::<i32>(32));
    s.run("r", &[Arg::Buf(&h), Arg::Buf(&l), Arg::Buf(&ii)], &[8], None);
    let (l, ii) = (s.get::<i64>(&l, 32), s.get::<i32>(&ii, 32));
    for (k, &v) in halves.iter().enumerate() {
        assert_eq!(l[k], v.round_ties_even() as i64, "convert_long4_rte({v})");
        assert_eq!(ii[k], (v * 1e9).round_ties_even().clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32, "convert_int4_sat_rte({v} * 1e9)");
    }
    let mut bad = Vec::new();
    let mut check_d = |what: &str, got: f64, v: i128, m: Mode| {
        let want = of_int(v, &DOUBLE, m);
        if got.to_bits() != want.to_bits() {
            bad.push(format!("{what} {v} {m:?}: {got:e}, want {want:e}"));
        }
    };
    for i in 0..N {
        for (j, m) in MODES.into_iter().enumerate() {
            check_d("convert_double(long)", o[8 * i + j], i128::from(x.i64s[i]), m);
            check_d("convert_double(ulong)", o[8 * i + 4 + j], i128::from(x.u64s[i]), m);
        }
    }
    for g in 0..N / 8 {
        for (j, m) in MODES.into_iter().enumerate() {
            for c in 0..4 {
                check_d("long4", vo[16 * g + 4 * j + c], i128::from(x.i64s[4 * g + c]), m);
            }
        }
    }
    for (j, m) in MODES.into_iter().enumerate() {
        check_d("constant long", co[j], 9007199254740993, m);
        check_d("constant ulong", co[4 + j], i128::from(u64::MAX), m);
    }
    let mut check_f = |what: &str, got: f32, d: f64, m: Mode| {
        let want = of_double(d, m);
        if !same(got, want) {
            bad.push(format!("{what} {d:e} ({:#x}) {m:?}: {got:e} ({:#x}), want {want:e} ({:#x})", d.to_bits(), got.to_bits(), want.to_bits()));
        }
    };
    for (i, &v) in ds.iter().enumerate() {
        for (j, m) in MODES.into_iter().enumerate() {
            check_f("convert_float(double)", f[4 * i + j], v, m);
        }
    }
    for g in 0..N / 8 {
        for (j, m) in MODES.into_iter().enumerate() {
            for c in 0..8 {
                check_f("double8", vf[32 * g + 8 * j + c], ds[8 * g + c], m);
            }
        }
    }
    for (k, v) in [1.0 + pow2(-24), -1e39, 1.5 * pow2(-150)].into_iter().enumerate() {
        for (j, m) in MODES.into_iter().enumerate() {
            check_f("constant double", cf[4 * k + j], v, m);
        }
    }
    assert!(bad.is_empty(), "{} wrong:\n{}", bad.len(), bad.join("\n"));
}

const HALF: Format = Format { precision: 11, min_unit: -24, max_top: 15 };

/// The value of binary16 bits.
fn half_value(h: u16) -> f64 {
    let sign = if h >> 15 == 1 { -1.0 } else { 1.0 };
    let (e, f) = (i32::from((h >> 10) & 0x1f), f64::from(h & 0x3ff));
    sign * match e {
        31 if f == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        0 => f * pow2(-24),
        _ => (f + 1024.0) * pow2(e - 25),
    }
}

/// `d` rounded to half in `mode`.
fn to_half(d: f64, mode: Mode) -> f64 {
    if !d.is_finite() {
        return d;
    }
    let (negative, m, q) = parts(d);
    round(negative, m, q, &HALF, mode)
}

/// Values around half's range and precision: its largest values, its subnormals, ties.
fn half_edges() -> Vec<f64> {
    let mut v = vec![
        0.0, -0.0, 1.0, -1.0, 65504.0, 65519.0, 65520.0, -65520.0, 65536.0, 1e6, -1e6, pow2(-24), pow2(-25), 1.5 * pow2(-25),
        -1.5 * pow2(-24), pow2(-14) - pow2(-30), 1.0 + pow2(-11), 1.0 + pow2(-12), -(1.0 + pow2(-12)), 0.1, 1.0 / 3.0,
        f64::INFINITY, f64::NEG_INFINITY, f64::NAN,
    ];
    let rest = 64 - v.len();
    // Random significands with exponents from 2^-30 to 2^20.
    v.extend(values::<u64>(rest, 6).into_iter().map(|b| {
        let e = (b >> 52) % 51;
        f64::from_bits((b & 0x800f_ffff_ffff_ffff) | ((e + 1023 - 30) << 52))
    }));
    v
}

fn check_halves(what: &str, got: &[u16], inputs: &[f64], bad: &mut Vec<String>) {
    for (i, &x) in inputs.iter().enumerate() {
        for (j, m) in MODES.into_iter().enumerate() {
            let (g, want) = (half_value(got[4 * i + j]), to_half(x, m));
            if !(g.to_bits() == want.to_bits() || (g.is_nan() && want.is_nan())) {
                bad.push(format!("{what} {x:e} {m:?}: {g:e}, want {want:e}"));
            }
        }
    }
}

const HALF_STORES: &str = "
    #define STORES(n, x, o, at) vstore_half##n##_rte(x, at, o); vstore_half##n##_rtz(x, at + 1, o); \\
        vstore_half##n##_rtp(x, at + 2, o); vstore_half##n##_rtn(x, at + 3, o);
    kernel void k(global const float *x, global half *o) { int i = get_global_id(0); STORES(, x[i], o, 4 * i) }
    kernel void v(global const float4 *x, global half *o) {
        int i = get_global_id(0);
        float4 a = x[i];
        vstore_half4_rte(a, 4 * i, o); vstore_half4_rtz(a, 4 * i + 1, o); vstorea_half4_rtp(a, 4 * i + 2, o); vstorea_half4_rtn(a, 4 * i + 3, o); }";

#[test]
fn stores_to_half_in_every_rounding_mode() {
    let s = Suite::new(HALF_STORES);
    let xs: Vec<f32> = half_edges().into_iter().map(|d| d as f32).collect();
    let x = s.buf(&xs);
    let o = s.zeros::<u16>(4 * xs.len());
    s.run("k", &[Arg::Buf(&x), Arg::Buf(&o)], &[xs.len()], None);
    let got = s.get::<u16>(&o, 4 * xs.len());
    let v = s.zeros::<u16>(4 * xs.len());
    s.run("v", &[Arg::Buf(&x), Arg::Buf(&v)], &[xs.len() / 4], None);
    // vstore_half4 at offset 4i + j writes halves 16i + 4j ..: back to value-major order.
    let vector = s.get::<u16>(&v, 4 * xs.len());
    let by_value: Vec<u16> = (0..xs.len()).flat_map(|k| (0..4).map(move |j| (k, j))).map(|(k, j)| vector[16 * (k / 4) + 4 * j + k % 4]).collect();
    let inputs: Vec<f64> = xs.iter().map(|&f| f64::from(f)).collect();
    let mut bad = Vec::new();
    check_halves("vstore_half(float)", &got, &inputs, &mut bad);
    check_halves("vstore_half4(float4)", &by_value, &inputs, &mut bad);
    assert!(bad.is_empty(), "{} wrong:\n{}", bad.len(), bad.join("\n"));
}

#[test]
fn doubles_stored_to_half_in_every_rounding_mode() {
    if !common::has_fp64() {
        return;
    }
    let s = Suite::new(&HALF_STORES.replace("float", "double"));
    let xs = half_edges();
    let x = s.buf(&xs);
    let o = s.zeros::<u16>(4 * xs.len());
    s.run("k", &[Arg::Buf(&x), Arg::Buf(&o)], &[xs.len()], None);
    let mut bad = Vec::new();
    check_halves("vstore_half(double)", &s.get::<u16>(&o, 4 * xs.len()), &xs, &mut bad);
    assert!(bad.is_empty(), "{} wrong:\n{}", bad.len(), bad.join("\n"));
}

/// Half bits of a double that half holds exactly (NaN as the quiet NaN).
fn half_bits(v: f64) -> u16 {
    let sign = if v.is_sign_negative() { 0x8000 } else { 0 };
    let a = v.abs();
    if a.is_nan() {
        return 0x7e00;
    }
    if a.is_infinite() {
        return sign | 0x7c00;
    }
    if a < pow2(-14) {
        return sign | (a / pow2(-24)) as u16;
    }
    let e = ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    sign | (((e + 15) as u16) << 10) | ((a / pow2(e - 10)) as u16 - 1024)
}

/// The same half, any NaN matching any NaN.
fn same_half(got: u16, want: u16) -> bool {
    let nan = |h: u16| h & 0x7c00 == 0x7c00 && h & 0x3ff != 0;
    got == want || (nan(got) && nan(want))
}

/// `x y + z` for halves, rounded once: the exact sum as an integer of 2^-48 units, kept to 64
/// bits with the dropped ones as a sticky bit (enough for an 11-bit rounding).
fn half_fma(x: u16, y: u16, z: u16) -> u16 {
    let (x, y, z) = (half_value(x), half_value(y), half_value(z));
    if !(x * y + z).is_finite() || (x * y).is_infinite() {
        return half_bits(x * y + z);
    }
    let units = |v: f64, scale: i32| (v * pow2(scale)) as i128;
    let exact = units(x, 24) * units(y, 24) + units(z, 24) * (1 << 24);
    if exact == 0 {
        return half_bits(x * y + z);
    }
    let (negative, mut m, mut q) = (exact < 0, exact.unsigned_abs(), -48);
    while m >> 63 != 0 {
        m = (m >> 1) | (m & 1);
        q += 1;
    }
    half_bits(round(negative, m as u64, q, &HALF, Mode::Rte))
}

/// Halves at the edges (zeros, subnormals, the largest, near 1) and random finite ones.
fn halves(n: usize, seed: u32) -> Vec<u16> {
    let mut v = vec![0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x7bff, 0xfbff, 0x3c00, 0x3bff, 0x3c01, 0xbc00, 0x7c00, 0xfc00];
    let rest = n - v.len();
    v.extend(values::<u16>(rest, seed).into_iter().map(|b| if b & 0x7c00 == 0x7c00 { b & 0xbfff } else { b }));
    v
}

/// `half` arithmetic with cl_khr_fp16: +, -, *, /, sqrt and fma rounded once to half (each
/// result is computed here from the exact value), conversions to half from float, double and
/// int in every rounding mode, and nextafter and fract on halves' own grid.
#[test]
fn half_arithmetic_rounds_once_to_half() {
    if !common::has_extension("cl_khr_fp16") {
        return;
    }
    let fp64 = common::has_fp64();
    let src = format!(
        "#pragma OPENCL EXTENSION cl_khr_fp16 : enable
        {}
        #define MODES(out, x, at) out[at] = convert_half_rte(x); out[at + 1] = convert_half_rtz(x); \\
            out[at + 2] = convert_half_rtp(x); out[at + 3] = convert_half_rtn(x);
        kernel void ops(global const half *a, global const half *b, global const half *c, global half *o) {{
            int i = get_global_id(0);
            half x = a[i], y = b[i], z = c[i];
            o[8 * i] = x + y; o[8 * i + 1] = x - y; o[8 * i + 2] = x * y; o[8 * i + 3] = x / y;
            o[8 * i + 4] = fma(x, y, z); o[8 * i + 5] = sqrt(fabs(x)); o[8 * i + 6] = nextafter(x, y);
            half whole; o[8 * i + 7] = fract(x * (half)0.001f, &whole); }}
        kernel void vec(global const half4 *a, global const half4 *b, global half4 *o) {{
            int i = get_global_id(0);
            o[i] = a[i] * b[i] + a[i]; }}
        kernel void conv(global const float *f, global const int *n, global const {} *d, global half *o) {{
            int i = get_global_id(0);
            MODES(o, f[i], 12 * i) MODES(o, n[i], 12 * i + 4) MODES(o, d[i], 12 * i + 8) }}",
        if fp64 { "#pragma OPENCL EXTENSION cl_khr_fp64 : enable" } else { "" },
        if fp64 { "double" } else { "float" },
    );
    let s = Suite::new(&src);
    let (a, b, c) = (halves(N, 11), halves(N, 12), halves(N, 13));
    let (ab, bb, cb) = (s.buf(&a), s.buf(&b), s.buf(&c));
    let o = s.zeros::<u16>(8 * N);
    s.run("ops", &[Arg::Buf(&ab), Arg::Buf(&bb), Arg::Buf(&cb), Arg::Buf(&o)], &[N], None);
    let o = s.get::<u16>(&o, 8 * N);
    let v = s.zeros::<u16>(N);
    s.run("vec", &[Arg::Buf(&ab), Arg::Buf(&bb), Arg::Buf(&v)], &[N / 4], None);
    let v = s.get::<u16>(&v, N);
    let floats: Vec<f32> = values::<u32>(N, 14).into_iter().map(|b| f32::from_bits((b & 0x8fff_ffff) | (0x3000_0000 + ((b % 0x1a00_0000) & 0x0f80_0000)))).collect();
    let ints: Vec<i32> = values::<i32>(N, 15).into_iter().enumerate().map(|(k, n)| n >> (k % 32)).collect();
    let doubles: Vec<f64> = floats.iter().zip(values::<u32>(N, 16)).map(|(&f, r)| f64::from(f) * (1.0 + f64::from(r) * pow2(-45))).collect();
    let (fb, nb) = (s.buf(&floats), s.buf(&ints));
    let db = if fp64 { s.buf(&doubles) } else { s.buf(&floats) };
    let co = s.zeros::<u16>(12 * N);
    s.run("conv", &[Arg::Buf(&fb), Arg::Buf(&nb), Arg::Buf(&db), Arg::Buf(&co)], &[N], None);
    let co = s.get::<u16>(&co, 12 * N);
    let mut bad = Vec::new();
    let mut check = |what: String, got: u16, want: u16| {
        if !same_half(got, want) {
            bad.push(format!("{what}: {got:#06x}, want {want:#06x}"));
        }
    };
    for i in 0..N {
        let (x, y) = (half_value(a[i]), half_value(b[i]));
        let name = |op: &str| format!("{op}({:#06x}, {:#06x})", a[i], b[i]);
        check(name("add"), o[8 * i], half_bits(to_half(x + y, Mode::Rte)));
        check(name("sub"), o[8 * i + 1], half_bits(to_half(x - y, Mode::Rte)));
        check(name("mul"), o[8 * i + 2], half_bits(to_half(x * y, Mode::Rte)));
        // A double quotient or root rounds correctly to half: 53 >= 2 * 11 + 2 bits.
        check(name("div"), o[8 * i + 3], half_bits(to_half(x / y, Mode::Rte)));
        check(name("fma"), o[8 * i + 4], half_fma(a[i], b[i], c[i]));
        check(name("sqrt"), o[8 * i + 5], half_bits(to_half(x.abs().sqrt(), Mode::Rte)));
        let next = if x.is_nan() || y.is_nan() {
            0x7e00
        } else if x == y {
            b[i]
        } else if x == 0.0 {
            (if y > 0.0 { 0x0001 } else { 0x8001 }) as u16
        } else {
            let away = (y > x) == (x > 0.0);
            if away { a[i] + 1 } else { a[i] - 1 }
        };
        check(name("nextafter"), o[8 * i + 6], next);
        let scaled = to_half(x * to_half(0.001, Mode::Rte), Mode::Rte);
        let fract = if scaled.is_finite() { to_half(scaled - scaled.floor(), Mode::Rte).min(half_value(0x3bff)) } else { f64::NAN };
        check(format!("fract({scaled:e})"), o[8 * i + 7], if scaled.is_infinite() { 0 } else { half_bits(fract) });
        let prod = to_half(x * y, Mode::Rte);
        check(name("half4 a * b + a"), v[i], half_bits(to_half(prod + x, Mode::Rte)));
        for (j, m) in MODES.into_iter().enumerate() {
            check(format!("convert_half_{}(float {:e})", SUFFIXES[j], floats[i]), co[12 * i + j], half_bits(to_half(f64::from(floats[i]), m)));
            check(format!("convert_half_{}(int {})", SUFFIXES[j], ints[i]), co[12 * i + 4 + j], half_bits(to_half(f64::from(ints[i]), m)));
            let d = if fp64 { doubles[i] } else { f64::from(floats[i]) };
            check(format!("convert_half_{}(double {d:e})", SUFFIXES[j]), co[12 * i + 8 + j], half_bits(to_half(d, m)));
        }
    }
    assert!(bad.is_empty(), "{} wrong:\n{}", bad.len(), bad[..bad.len().min(40)].join("\n"));
}

/// Every half times factors whose products fall between halves, on ties among them, below
/// half's least normal and past its largest: each product rounded once, to nearest even.
#[test]
fn every_half_product_rounds_to_nearest_even() {
    if !common::has_extension("cl_khr_fp16") {
        return;
    }
    let s = Suite::new(
        "#pragma OPENCL EXTENSION cl_khr_fp16 : enable
        kernel void k(global const half *a, global const half *f, global half *o, int n) {
            int i = get_global_id(0);
            for (int j = 0; j < n; j++) o[n * i + j] = a[i] * f[j]; }",
    );
    let all: Vec<u16> = (0..=u16::MAX).collect();
    // 1.5 and 1.25 make ties, 0.75 and 2^-10 subnormal results, 2^-5 + 2^-15 most others.
    let factors: Vec<u16> = [1.5, 1.25, 0.75, pow2(-10), pow2(-5) + pow2(-15), -3.0, 1024.0].iter().map(|&f| half_bits(f)).collect();
    let (a, f) = (s.buf(&all), s.buf(&factors));
    let o = s.zeros::<u16>(all.len() * factors.len());
    let n = factors.len() as i32;
    s.run("k", &[Arg::Buf(&a), Arg::Buf(&f), Arg::Buf(&o), val(n)], &[all.len()], None);
    let o = s.get::<u16>(&o, all.len() * factors.len());
    let mut bad = Vec::new();
    for (i, &x) in all.iter().enumerate() {
        for (j, &y) in factors.iter().enumerate() {
            let want = half_bits(to_half(half_value(x) * half_value(y), Mode::Rte));
            let got = o[factors.len() * i + j];
            if !same_half(got, want) {
                bad.push(format!("{x:#06x} * {y:#06x}: {got:#06x}, want {want:#06x}"));
            }
        }
    }
    assert!(bad.is_empty(), "{} wrong:\n{}", bad.len(), bad[..bad.len().min(40)].join("\n"));
}

/// Halves copied through registers keep their bits: signalling NaNs and payloads through
/// global, local and private memory and an async copy, `as_half`/`as_short` both ways, and
/// `as_ushort` of a negative short is its 16 bits (a short's register is sign-extended).
#[test]
fn halves_keep_their_bits_through_registers() {
    if !common::has_extension("cl_khr_fp16") {
        return;
    }
    let s = Suite::new(
        "#pragma OPENCL EXTENSION cl_khr_fp16 : enable
        kernel void k(global const half *a, global const short *b, global half *o, global short *p, global uint *q, local half *l) {
            int i = get_global_id(0), j = get_local_id(0);
            half priv[2]; priv[j & 1] = a[i];
            l[j] = priv[j & 1];
            barrier(CLK_LOCAL_MEM_FENCE);
            o[4 * i] = l[j];
            o[4 * i + 1] = as_half(b[i]);
            half3 v = vload3(0, a + 3 * (i / 3)); o[4 * i + 2] = v.s0;
            p[i] = as_short(a[i]);
            q[i] = as_ushort(b[i]) >> 4;
            event_t e = async_work_group_copy(l, a + get_group_id(0) * get_local_size(0), get_local_size(0), 0);
            wait_group_events(1, &e);
            o[4 * i + 3] = l[j]; }",
    );
    let mut halves = vec![0x7d77u16, 0xfd01, 0x7c01, 0x7e00, 0xffff, 0x7c00, 0x8001, 0x0000];
    halves.extend(values::<u16>(N - halves.len(), 21));
    let shorts: Vec<i16> = halves.iter().map(|&h| h as i16).collect();
    let (a, b) = (s.buf(&halves), s.buf(&shorts));
    let (o, p, q) = (s.zeros::<u16>(4 * N), s.zeros::<i16>(N), s.zeros::<u32>(N));
    s.run("k", &[Arg::Buf(&a), Arg::Buf(&b), Arg::Buf(&o), Arg::Buf(&p), Arg::Buf(&q), Arg::Local(2 * 64)], &[N], Some(&[64]));
    let (o, p, q) = (s.get::<u16>(&o, 4 * N), s.get::<i16>(&p, N), s.get::<u32>(&q, N));
    for i in 0..N {
        let h = halves[i];
        let want = [h, h, halves[3 * (i / 3)], h];
        assert_eq!(o[4 * i..4 * i + 4], want, "half {h:#06x} through local/private, as_half, vload3, async copy");
        assert_eq!(p[i], shorts[i], "as_short({h:#06x})");
        assert_eq!(q[i], u32::from(h) >> 4, "as_ushort((short){h:#06x}) >> 4");
    }
}
