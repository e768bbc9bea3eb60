//! Transcendental functions in software, for `double` (GLSL.std.450 has none for 64-bit
//! floats: naga accepts them but the SPIR-V is invalid) and for full-precision `float`
//! (Vulkan's precision for GLSL.std.450 is far looser than OpenCL's ULP limits; `native_` and
//! `half_` forms keep the hardware functions). Classic scheme: Cody–Waite range reduction with
//! constants split so `k * hi` is exact, a Taylor polynomial on the reduced argument, and the
//! exponent put back with `ldexp`. The splits were computed for this file from 60-digit values
//! of ln 2, π/2 and log10 2.

use super::{Ctx, LowerError, R};
use crate::compiler::sema::model::{MathFn, Scalar as S, Type as T};
use crate::compiler::source::Loc;
use naga::{BinaryOperator as B, Expression, Handle, MathFunction as M, RelationalFunction, ScalarKind};

type H = Handle<Expression>;

mod reduce64;
mod special;
mod wide;

const LN10: f64 = std::f64::consts::LN_10;
/// 2/π in 32-bit words after two zero words (computed for this file by Machin's formula in
/// integers, 1184 bits: enough for the largest double).
const TWO_OVER_PI: [u32; 39] = [
    0x00000000, 0x00000000, 0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0, 0xdb629599, 0x3c439041, 0xfe5163ab, 0xdebbc561,
    0xb7246e3a, 0x424dd2e0, 0x06492eea, 0x09d1921c, 0xfe1deb1c, 0xb129a73e, 0xe88235f5, 0x2ebb4484, 0xe99c7026, 0xb45f7e41,
    0x3991d639, 0x835339f4, 0x9c845f8b, 0xbdf9283b, 0x1ff897ff, 0xde05980f, 0xef2f118b, 0x5a0a6d1f, 0x6d367ecf, 0x27cb09b7,
    0x4f463f66, 0x9e5fea2d, 0x7527bac7, 0xebe5f17b, 0x3d0739f7, 0x8a5292ea, 0x6bfb5fb1, 0x1f8d5d08, 0x56033046,
];
const LOG2_10: f64 = std::f64::consts::LOG2_10;
/// π/2 for `half_sin`/`half_cos`/`half_tan`: four parts of at most 8 significant bits (k c
/// exact for every k < 2^16, i.e. |x| ≤ 2^16) and the rest rounded to float; together within
/// 2^-63 of π/2 (computed for this file from 100 digits of π).
const HALF_PIO2: [f64; 5] = [1.5703125, 0.0004825592041015625, 1.2665987014770508e-06, 9.89530235528946e-10, 2.5633440682570896e-12];

/// π/2 as the float nearest it and the floats nearest the two remainders (for
/// `reduce_fused`; computed for this file with mpmath).
const FLOAT_PIO2_FUSED: [f64; 3] = [1.5707963705062866, -4.371138828673793e-08, -1.7151245100058819e-15];

/// What the algorithms need to know about one floating-point format.
struct Format {
    /// ln 2, π/2 and log10 2 split so that k times the first part is exact for the k that occur.
    ln2: [f64; 2],
    pio2: &'static [f64],
    lg2: [f64; 2],
    /// Arguments past which exp, exp2 and exp10 overflow / underflow to 0.
    exp_limits: (f64, f64),
    exp2_limits: (f64, f64),
    exp10_limits: (f64, f64),
    /// Bit layout: mantissa bits, exponent mask (after shifting), bias; the unsigned integer
    /// type of the same width.
    mantissa_bits: u32,
    exponent_mask: u64,
    bias: f64,
    uint: S,
    /// Size in bytes.
    bytes: u8,
    /// Polynomial lengths: exp, Taylor series of sinh/tanh (terms of z = x²), log and atan
    /// series.
    exp_degree: u32,
    trig_degree: u32,
    /// sin and cos of |r| ≤ π/4.
    trig: TrigPoly,
    series_terms: u32,
    /// Terms of asin's series after x (for |x| ≤ ½), and of atan's (|x| ≤ tan(π/8)).
    asin_terms: u32,
    atan_terms: u32,
    /// erfc's continued fraction: its depth, and from where it replaces 1 - erf (it converges
    /// slowly near 1: 140 levels at 1.2 are within 2 double ulp, 70 at 0.85 within 1e-8).
    erfc_fraction: (u32, f64),
}

const DOUBLE: Format = Format {
    ln2: [0.6931471804855391, 7.440617110012397e-11],
    pio2: &[1.5707963267341256, 6.077100506303966e-11, 2.0222662487959506e-21],
    lg2: [0.30102999560767785, 5.630334806675098e-11],
    exp_limits: (709.782712893384, -745.1332191019412),
    exp2_limits: (1024.0, -1075.0),
    exp10_limits: (308.25471555991675, -323.60724533877976),
    mantissa_bits: 52,
    exponent_mask: 0x7ff,
    bias: 1023.0,
    uint: S::ULong,
    bytes: 8,
    exp_degree: 13,
    trig_degree: 20,
    trig: TrigPoly::Taylor(20),
    series_terms: 14,
    asin_terms: 25,
    atan_terms: 22,
    erfc_fraction: (140, 1.2),
};

const FLOAT: Format = Format {
    ln2: [0.693145751953125, 1.428606765330187e-06],
    // Three 12-bit parts (k c exact for k < 2^12) and the rest: near a zero of sin or cos the
    // result keeps its relative precision (3 parts left 15 ulp at 3π/2).
    pio2: &[1.5703125, 0.0004837512969970703, 7.549533620476723e-08, 2.5633440682570896e-12],
    lg2: [0.301025390625, 4.605039066518657e-06],
    exp_limits: (88.72283905206835, -103.97207708399179),
    exp2_limits: (128.0, -150.0),
    exp10_limits: (38.531839419103626, -45.15449934959718),
    mantissa_bits: 23,
    exponent_mask: 0xff,
    bias: 127.0,
    uint: S::UInt,
    bytes: 4,
    exp_degree: 8,
    trig_degree: 12,
    trig: TrigPoly::Fit(&FLOAT_TRIG),
    series_terms: 7,
    asin_terms: 11,
    atan_terms: 10,
    erfc_fraction: (70, 0.85),
};

/// How sin and cos of a reduced argument |r| ≤ π/4 are evaluated, in z = r².
#[derive(Clone, Copy)]
pub(super) enum TrigPoly {
    /// Taylor polynomials of this degree (cos) and one less (sin).
    Taylor(u32),
    Fit(&'static TrigFit),
}

/// Polynomials fitted to sin and cos on |r| ≤ π/4: sin r = r + r z (s0 + s1 z + ...), cos r =
/// 1 - z/2 + z² (c0 + c1 z + ...).
pub(super) struct TrigFit {
    sin: [f64; 3],
    cos: [f64; 3],
}

/// Float's fit: Chebyshev fits (mpmath `chebyfit`) of (sin √z / √z - 1) / z and
/// (cos √z - 1 + z/2) / z² on [0, (π/4)²], rounded to float; within 2e-8 and 2e-9, a fifth of
/// an ulp and less of the result. Half the multiply-adds of the Taylor polynomials that reach
/// the same accuracy: the FFT's twiddles are sincos-bound.
const FLOAT_TRIG: TrigFit = TrigFit {
    sin: [-0.166666641831398, 0.008332747966051102, -0.00019587890710681677],
    cos: [0.0416666641831398, -0.001388830249197781, 2.454794230288826e-05],
};

fn format(ty: &T) -> &'static Format {
    if ty.element() == Some(S::Double) { &DOUBLE } else { &FLOAT }
}

/// The functions implemented here.
pub fn handles(f: MathFn) -> bool {
    use MathFn::*;
    matches!(
        f,
        Exp | Exp2 | Exp10 | Log | Log2 | Log10 | Sin | Cos | Tan | Pow | Powr | Sinh | Cosh | Tanh | Radians | Degrees | Cbrt | Atan | Atan2 | Asin | Acos
            | Asinh | Acosh | Atanh | Asinpi | Acospi | Atanpi | Atan2pi | Sinpi | Cospi | Tanpi | Expm1 | Log1p | Pown | Rootn | Erf | Erfc | Lgamma | Tgamma | LgammaSign
    )
}

/// Functions with no hardware (GLSL.std.450) equivalent: always built here.
pub fn needs_software(f: MathFn) -> bool {
    use MathFn::*;
    matches!(f, Asinpi | Acospi | Atanpi | Atan2pi | Sinpi | Cospi | Tanpi | Expm1 | Log1p | Pown | Rootn | Asinh | Acosh | Atanh | Erf | Erfc | Lgamma | Tgamma | LgammaSign)
}

/// The coefficients of asin x = x + x z P(z), z = x²: P's n-th is (2n)! / (4^n n!² (2n + 1)),
/// n from 1.
fn factorial_free_asin_series(terms: u32) -> Vec<f64> {
    let mut a = 1.0f64;
    (1..=terms)
        .map(|n| {
            a *= f64::from(2 * n - 1) / f64::from(2 * n);
            a / f64::from(2 * n + 1)
        })
        .collect()
}

/// Taylor coefficients 1/n! for n in `range`, with alternating signs when `alternate`.
fn factorial_series(range: std::ops::RangeInclusive<u32>, step: usize, alternate: bool) -> Vec<f64> {
    let mut out = Vec::new();
    let mut fact = 1.0f64;
    let mut sign = 1.0;
    for n in 1..=*range.end() {
        fact *= f64::from(n);
        if n >= *range.start() && ((n - range.start()) as usize).is_multiple_of(step) {
            out.push(sign / fact);
            if alternate {
                sign = -sign;
            }
        }
    }
    if *range.start() == 0 {
        out.insert(0, 1.0);
    }
    out
}

impl Ctx<'_> {
    /// `f(args)` for float or double (vector) arguments of type `ty`.
    pub(super) fn soft_math(&mut self, f: MathFn, v: &[H], ty: &T, loc: Loc) -> R<H> {
        let fmt = format(ty);
        let x = *v.first().ok_or_else(|| LowerError::new(loc, "internal: missing argument"))?;
        let y = v.get(1).copied();
        Ok(match f {
            MathFn::Exp => self.exp64(x, ty, loc)?,
            MathFn::Exp2 => self.exp2_64(x, ty, loc)?,
            MathFn::Exp10 => {
                // x = k log10(2) + r1, 10^x = 2^k e^(r1 ln 10)
                let k = self.mul_c(x, LOG2_10, ty, loc)?;
                let k = self.b.math(M::Round, &[k]);
                let r = self.reduce(x, k, &fmt.lg2, ty, loc)?;
                let r = self.mul_c(r, LN10, ty, loc)?;
                let p = self.exp_poly(r, ty, loc)?;
                let e = self.scale(p, k, ty);
                self.exp_limits(e, x, fmt.exp10_limits, ty, loc)?
            }
            MathFn::Log => self.log64(x, LogBase::E, ty, loc)?,
            MathFn::Log2 => self.log64(x, LogBase::Two, ty, loc)?,
            MathFn::Log10 => self.log64(x, LogBase::Ten, ty, loc)?,
            // Float tan in double where the device has it: in float the quotient of two
            // polynomials, each a few roundings off, came within 0.2 ulp of the 5 ulp limit
            // (host simulation of this code: 4.8 ulp with a rounded division), and NVIDIA's
            // division through the reciprocal took it past (5.1 ulp at -6556 in the CTS).
            MathFn::Tan => self.in_double(&[x], ty, |cx, a, t| cx.trig64(f, a[0], t, loc))?,
            MathFn::Sin | MathFn::Cos => self.trig64(f, x, ty, loc)?,
            MathFn::Pow | MathFn::Powr => {
                let y = y.ok_or_else(|| LowerError::new(loc, "internal: missing argument"))?;
                let r = self.pow64(x, y, ty, loc)?;
                if f == MathFn::Powr { self.powr_domain(r, x, y, ty, loc)? } else { r }
            }
            MathFn::Sinh | MathFn::Cosh | MathFn::Tanh => self.hyperbolic64(f, x, ty, loc)?,
            MathFn::Radians => self.mul_c(x, std::f64::consts::PI / 180.0, ty, loc)?,
            MathFn::Degrees => self.mul_c(x, 180.0 / std::f64::consts::PI, ty, loc)?,
            MathFn::Cbrt => self.cbrt64(x, ty, loc)?,
            // The inverse trigonometric functions run in double where the device has it: in
            // float they are within the spec's bounds (atan 1.7 ulp), but pyopencl's atan test
            // allows less than 2e-7.
            MathFn::Atan => self.in_double(&[x], ty, |cx, a, t| cx.atan64(a[0], t, loc))?,
            MathFn::Atan2 | MathFn::Atan2pi => {
                let y = y.ok_or_else(|| LowerError::new(loc, "internal: missing argument"))?;
                let turn = if f == MathFn::Atan2 { std::f64::consts::PI } else { 1.0 };
                self.in_double(&[x, y], ty, |cx, a, t| cx.atan2_turns(a[0], a[1], turn, t, loc))?
            }
            MathFn::Asin | MathFn::Acos => self.in_double(&[x], ty, |cx, a, t| cx.asin_acos(f == MathFn::Acos, a[0], t, loc))?,
            MathFn::Asinpi | MathFn::Acospi | MathFn::Atanpi => self.in_double(&[x], ty, |cx, a, t| {
                let v = match f {
                    MathFn::Atanpi => cx.atan64(a[0], t, loc)?,
                    _ => cx.asin_acos(f == MathFn::Acospi, a[0], t, loc)?,
                };
                cx.mul_c(v, std::f64::consts::FRAC_1_PI, t, loc)
            })?,
            MathFn::Sinpi | MathFn::Cospi | MathFn::Tanpi => self.trig_pi(f, x, ty, loc)?,
            MathFn::Log1p => self.log1p(x, ty, loc)?,
            MathFn::Expm1 => {
                // Near 0 the Taylor series without its constant term (no cancellation), e^x - 1
                // elsewhere.
                let series: Vec<f64> = factorial_series(1..=format(ty).exp_degree + 1, 1, false);
                let p = self.poly(x, &series, ty, loc)?;
                let near = self.b.binary(B::Multiply, x, p);
                let u = self.exp64(x, ty, loc)?;
                let one = self.float_like(1.0, ty, loc)?;
                let far = self.b.binary(B::Subtract, u, one);
                let ax = self.b.math(M::Abs, &[x]);
                let half = self.float_like(0.5, ty, loc)?;
                let small = self.b.binary(B::Less, ax, half);
                self.b.select(small, near, far)
            }
            MathFn::Asinh | MathFn::Acosh | MathFn::Atanh => self.inverse_hyperbolic(f, x, ty, loc)?,
            MathFn::Erf | MathFn::Erfc => self.in_double(&[x], ty, |cx, a, t| cx.erf(f == MathFn::Erfc, a[0], t, loc))?,
            MathFn::Lgamma | MathFn::Tgamma => self.in_double(&[x], ty, |cx, a, t| cx.gamma(f == MathFn::Tgamma, a[0], t, loc))?,
            MathFn::LgammaSign => {
                // The sign of Γ(x): 1 for x > 0, that of sin(πx) below, 0 at the poles.
                let ity = match ty {
                    T::Vector(_, n) => T::Vector(S::Int, *n),
                    _ => T::Scalar(S::Int),
                };
                let s = self.soft_math(MathFn::Sinpi, &[x], ty, loc)?;
                let zero = self.float_like(0.0, ty, loc)?;
                let (one, minus, none) = (self.int_like(1, &ity, loc)?, self.int_like(-1, &ity, loc)?, self.int_like(0, &ity, loc)?);
                let s_neg = self.b.binary(B::Less, s, zero);
                let s_pos = self.b.binary(B::Greater, s, zero);
                let r = self.b.select(s_pos, one, none);
                let r = self.b.select(s_neg, minus, r);
                let positive = self.b.binary(B::Greater, x, zero);
                self.b.select(positive, one, r)
            }
            MathFn::Pown | MathFn::Rootn if format(ty).bytes == 4 && self.target.fp64 => {
                // In double, 1/n included (x^(1/n) with 1/n rounded to float is far off).
                let n = y.ok_or_else(|| LowerError::new(loc, "internal: missing argument"))?;
                let wide = match ty {
                    T::Vector(_, k) => T::Vector(S::Double, *k),
                    _ => T::Scalar(S::Double),
                };
                let xd = self.b.cast(x, ScalarKind::Float, Some(8));
                let r = self.soft_math(f, &[xd, n], &wide, loc)?;
                self.b.cast(r, ScalarKind::Float, Some(4))
            }
            MathFn::Pown | MathFn::Rootn => {
                let n = y.ok_or_else(|| LowerError::new(loc, "internal: missing argument"))?;
                let nf = self.b.cast(n, ScalarKind::Float, Some(format(ty).bytes));
                // The parity of n itself: n as float may round to an even value.
                let (i1, i0) = (self.b.i32(1), self.b.i32(0));
                let (i1, i0) = (self.match_width(i1, ty), self.match_width(i0, ty));
                let low = self.b.binary(B::And, n, i1);
                let even = self.b.binary(B::Equal, low, i0);
                let ax = self.b.math(M::Abs, &[x]);
                if f == MathFn::Pown {
                    // |x|^n, negative for negative x and odd n.
                    let r = self.pow64(ax, nf, ty, loc)?;
                    let signed = self.copysign(r, x, ty);
                    self.b.select(even, r, signed)
                } else {
                    // x^(1/n); negative x only for odd n (the sign comes back).
                    let (inv, inv_lo) = self.reciprocal_wide(n, nf, ty, loc)?;
                    let r = self.pow_extended(ax, inv, Some(inv_lo), ty, loc)?;
                    let r = self.copysign(r, x, ty);
                    let zero = self.float_like(0.0, ty, loc)?;
                    let neg = self.b.binary(B::Less, x, zero);
                    let bad = self.b.select(neg, even, neg);
                    let n_zero = self.b.binary(B::Equal, nf, zero);
                    let bad = self.b.select(n_zero, n_zero, bad);
                    let nan = self.float_like(f64::NAN, ty, loc)?;
                    let r = self.b.select(bad, nan, r);
                    self.rootn_at_zero(r, x, n, even, ty, loc)?
                }
            }
            _ => return Err(LowerError::new(loc, "this math function is not supported yet")),
        })
    }

    fn mul_c(&mut self, x: H, c: f64, ty: &T, loc: Loc) -> R<H> {
        let c = self.float_like(c, ty, loc)?;
        Ok(self.b.binary(B::Multiply, x, c))
    }

    /// `c[0] + x (c[1] + x (c[2] + ...))`.
    fn poly(&mut self, x: H, coeffs: &[f64], ty: &T, loc: Loc) -> R<H> {
        let mut acc = self.float_like(*coeffs.last().unwrap_or(&0.0), ty, loc)?;
        for &c in coeffs.iter().rev().skip(1) {
            // One rounding per step (and one instruction on every GPU).
            let c = self.float_like(c, ty, loc)?;
            acc = self.b.math(M::Fma, &[acc, x, c]);
        }
        Ok(acc)
    }

    /// `x - k c[0] - k c[1] - ...` (each product exact or nearly so).
    fn reduce(&mut self, x: H, k: H, parts: &[f64], ty: &T, loc: Loc) -> R<H> {
        let mut r = x;
        for &c in parts {
            let kc = self.mul_c(k, c, ty, loc)?;
            r = self.b.binary(B::Subtract, r, kc);
        }
        Ok(r)
    }

    /// Float `x - k π/2` by fused multiply-adds with π/2 in three float parts: the first is
    /// exact (the difference needs fewer bits than a float has while |k| < 2^12, below
    /// Payne–Hanek's limit), and the parts carry 72 bits of π/2.
    fn reduce_fused(&mut self, x: H, k: H, ty: &T, loc: Loc) -> R<H> {
        let nk = self.b.unary(naga::UnaryOperator::Negate, k);
        let mut r = x;
        for c in FLOAT_PIO2_FUSED {
            let c = self.float_like(c, ty, loc)?;
            r = self.b.math(M::Fma, &[nk, c, r]);
        }
        Ok(r)
    }

    /// e^r for |r| ≤ ln2/2 (Taylor to degree 13).
    fn exp_poly(&mut self, r: H, ty: &T, loc: Loc) -> R<H> {
        self.poly(r, &factorial_series(0..=format(ty).exp_degree, 1, false), ty, loc)
    }

    /// `p * 2^k` (k a whole double), in two steps so no single exponent leaves ldexp's range.
    fn scale(&mut self, p: H, k: H, ty: &T) -> H {
        let k = self.b.cast(k, ScalarKind::Sint, Some(4));
        let one = self.b.u32(1);
        let one = self.match_width(one, ty);
        let k1 = self.b.binary(B::ShiftRight, k, one);
        let k2 = self.b.binary(B::Subtract, k, k1);
        let p = self.b.math(M::Ldexp, &[p, k1]);
        self.b.math(M::Ldexp, &[p, k2])
    }

    /// Overflow to +inf above `hi`, underflow to 0 below `lo`, NaN kept.
    fn exp_limits(&mut self, e: H, x: H, (hi, lo): (f64, f64), ty: &T, loc: Loc) -> R<H> {
        let (hi, lo) = (self.float_like(hi, ty, loc)?, self.float_like(lo, ty, loc)?);
        let (inf, zero) = (self.float_like(f64::INFINITY, ty, loc)?, self.float_like(0.0, ty, loc)?);
        let over = self.b.binary(B::Greater, x, hi);
        let e = self.b.select(over, inf, e);
        let under = self.b.binary(B::Less, x, lo);
        let e = self.b.select(under, zero, e);
        let nan = self.b.expr(Expression::Relational { fun: RelationalFunction::IsNan, argument: x });
        Ok(self.b.select(nan, x, e))
    }

    fn exp64(&mut self, x: H, ty: &T, loc: Loc) -> R<H> {
        self.exp_scaled(x, 0.0, ty, loc)
    }

    /// e^x 2^extra (`extra` whole), finite wherever the product is: cosh and sinh take
    /// e^x / 2 where e^x alone overflows.
    fn exp_scaled(&mut self, x: H, extra: f64, ty: &T, loc: Loc) -> R<H> {
        let k = self.mul_c(x, std::f64::consts::LOG2_E, ty, loc)?;
        let k = self.b.math(M::Round, &[k]);
        let r = self.reduce(x, k, &format(ty).ln2, ty, loc)?;
        let p = self.exp_poly(r, ty, loc)?;
        let extra_c = self.float_like(extra, ty, loc)?;
        let k2 = self.b.binary(B::Add, k, extra_c);
        let e = self.scale(p, k2, ty);
        let (hi, lo) = format(ty).exp_limits;
        let shift = extra * std::f64::consts::LN_2;
        self.exp_limits(e, x, (hi - shift, lo - shift), ty, loc)
    }

    fn exp2_64(&mut self, x: H, ty: &T, loc: Loc) -> R<H> {
        let k = self.b.math(M::Round, &[x]);
        let f = self.b.binary(B::Subtract, x, k);
        let [hi, lo] = format(ty).ln2;
        let (a, b) = (self.mul_c(f, hi, ty, loc)?, self.mul_c(f, lo, ty, loc)?);
        let r = self.b.binary(B::Add, a, b);
        let p = self.exp_poly(r, ty, loc)?;
        let e = self.scale(p, k, ty);
        self.exp_limits(e, x, format(ty).exp2_limits, ty, loc)
    }

    /// `x = 2^e m` for positive finite `x`: (e as a double, m in [√½, √2)). Subnormals are
    /// normalised on their bits (a float multiply may flush them).
    fn split_exponent(&mut self, x: H, ty: &T, loc: Loc) -> R<(H, H)> {
        let fmt = format(ty);
        let width = fmt.bytes;
        let uty = match ty {
            T::Vector(_, n) => T::Vector(fmt.uint, *n),
            _ => T::Scalar(fmt.uint),
        };
        let u32t = match ty {
            T::Vector(_, n) => T::Vector(S::UInt, *n),
            _ => T::Scalar(S::UInt),
        };
        let bits = self.b.cast(x, ScalarKind::Uint, None);
        let shift = self.u32_like(fmt.mantissa_bits, &u32t);
        let exp_bits = self.b.binary(B::ShiftRight, bits, shift);
        let mask = self.int_like(fmt.exponent_mask as i64, &uty, loc)?;
        let exp_bits = self.b.binary(B::And, exp_bits, mask);
        let frac_mask = self.int_like(((1u64 << fmt.mantissa_bits) - 1) as i64, &uty, loc)?;
        let frac = self.b.binary(B::And, bits, frac_mask);
        // A subnormal's fraction shifted up to the hidden bit's place: by s = clz - (width·8
        // - 1 - mantissa bits), its exponent field 1 - s.
        let lz = if width == 8 { self.clz64(frac, &u32t) } else { self.b.math(M::CountLeadingZeros, &[frac]) };
        let spare = self.u32_like(u32::from(width) * 8 - 1 - fmt.mantissa_bits, &u32t);
        let s_up = self.b.binary(B::Subtract, lz, spare);
        let k31 = self.u32_like(u32::from(width) * 8 - 1, &u32t);
        let s_up = self.b.math(M::Min, &[s_up, k31]);
        let normalized = self.b.binary(B::ShiftLeft, frac, s_up);
        let normalized = self.b.binary(B::And, normalized, frac_mask);
        let zero_field = self.int_like(0, &uty, loc)?;
        let subnormal = self.b.binary(B::Equal, exp_bits, zero_field);
        let frac = self.b.select(subnormal, normalized, frac);
        let e = self.b.cast(exp_bits, ScalarKind::Float, Some(width));
        let s_f = self.b.cast(s_up, ScalarKind::Float, Some(width));
        let one = self.float_like(1.0, ty, loc)?;
        let sub_e = self.b.binary(B::Subtract, one, s_f);
        let e = self.b.select(subnormal, sub_e, e);
        let bias = self.float_like(fmt.bias, ty, loc)?;
        let e = self.b.binary(B::Subtract, e, bias);
        let one_bits = self.int_like(((fmt.bias as u64) << fmt.mantissa_bits) as i64, &uty, loc)?;
        let m = self.b.binary(B::InclusiveOr, frac, one_bits);
        let m = self.b.cast(m, ScalarKind::Float, None);
        // m in [1, 2): fold above √2 down to [√½, 1).
        let sqrt2 = self.float_like(std::f64::consts::SQRT_2, ty, loc)?;
        let high = self.b.binary(B::Greater, m, sqrt2);
        let half = self.mul_c(m, 0.5, ty, loc)?;
        let m = self.b.select(high, half, m);
        let one = self.float_like(1.0, ty, loc)?;
        let e1 = self.b.binary(B::Add, e, one);
        let e = self.b.select(high, e1, e);
        Ok((e, m))
    }

    /// Natural logarithm parts of positive finite `x`: (e, log(m)) with x = 2^e m.
    fn log_parts(&mut self, x: H, ty: &T, loc: Loc) -> R<(H, H)> {
        let (e, m) = self.split_exponent(x, ty, loc)?;
        let one = self.float_like(1.0, ty, loc)?;
        let f = self.b.binary(B::Subtract, m, one);
        Ok((e, self.log1p_series(f, ty, loc)?))
    }

    /// log(1 + f) for |f| up to about 0.41: 2 atanh(s) with s = f / (2 + f), written as
    /// f - (f²/2 - s (f²/2 + R)), R = 2s²/3 + 2s⁴/5 + ..., so that the exact f carries the
    /// result and the rounding errors only touch the small corrections (2s = f - s f).
    fn log1p_series(&mut self, f: H, ty: &T, loc: Loc) -> R<H> {
        let two = self.float_like(2.0, ty, loc)?;
        let d = self.b.binary(B::Add, two, f);
        let s = self.b.binary(B::Divide, f, d);
        let z = self.b.binary(B::Multiply, s, s);
        let coeffs: Vec<f64> = (1..format(ty).series_terms).map(|k| 2.0 / f64::from(2 * k + 1)).collect();
        let p = self.poly(z, &coeffs, ty, loc)?;
        let r = self.b.binary(B::Multiply, z, p);
        let ff = self.b.binary(B::Multiply, f, f);
        let hfsq = self.mul_c(ff, 0.5, ty, loc)?;
        let t = self.b.binary(B::Add, hfsq, r);
        let st = self.b.binary(B::Multiply, s, t);
        let c = self.b.binary(B::Subtract, hfsq, st);
        Ok(self.b.binary(B::Subtract, f, c))
    }

    fn log64(&mut self, x: H, base: LogBase, ty: &T, loc: Loc) -> R<H> {
        let (e, l) = self.log_parts(x, ty, loc)?;
        let r = match base {
            LogBase::E => {
                let [hi, lo] = format(ty).ln2;
                let (a, b) = (self.mul_c(e, hi, ty, loc)?, self.mul_c(e, lo, ty, loc)?);
                let t = self.b.binary(B::Add, l, b);
                self.b.binary(B::Add, a, t)
            }
            LogBase::Two => {
                let t = self.mul_c(l, std::f64::consts::LOG2_E, ty, loc)?;
                self.b.binary(B::Add, e, t)
            }
            LogBase::Ten => {
                let [hi, lo] = format(ty).lg2;
                let (a, b) = (self.mul_c(e, hi, ty, loc)?, self.mul_c(e, lo, ty, loc)?);
                let t = self.mul_c(l, std::f64::consts::LOG10_E, ty, loc)?;
                let t = self.b.binary(B::Add, t, b);
                self.b.binary(B::Add, a, t)
            }
        };
        // Special values: log(0) = -inf, log(x < 0) = NaN, log(inf) = inf, NaN kept.
        let (zero, inf) = (self.float_like(0.0, ty, loc)?, self.float_like(f64::INFINITY, ty, loc)?);
        let (ninf, nan) = (self.float_like(f64::NEG_INFINITY, ty, loc)?, self.float_like(f64::NAN, ty, loc)?);
        let is_zero = self.b.binary(B::Equal, x, zero);
        let r = self.b.select(is_zero, ninf, r);
        let neg = self.b.binary(B::Less, x, zero);
        let r = self.b.select(neg, nan, r);
        let is_inf = self.b.binary(B::Equal, x, inf);
        let r = self.b.select(is_inf, inf, r);
        let is_nan = self.b.expr(Expression::Relational { fun: RelationalFunction::IsNan, argument: x });
        Ok(self.b.select(is_nan, x, r))
    }

    /// sin, cos or tan: reduction by π/2 (Cody–Waite; Payne–Hanek for large arguments),
    /// quadrant, Taylor.
    fn trig64(&mut self, f: MathFn, x: H, ty: &T, loc: Loc) -> R<H> {
        let (q, r) = self.reduce_pio2(x, ty, loc)?;
        self.trig_eval(f, q, r, format(ty).trig, ty, loc)
    }

    /// (sin x, cos x) from one reduction and one pair of polynomials (`sincos`).
    pub(super) fn sin_cos64(&mut self, x: H, ty: &T, loc: Loc) -> R<(H, H)> {
        let (q, r) = self.reduce_pio2(x, ty, loc)?;
        self.sin_cos_of(q, r, format(ty).trig, ty, loc)
    }

    /// (q, r) with x = (4n + q) π/2 + r, |r| ≤ π/4; r is NaN at ±∞, so sin, cos and tan are.
    fn reduce_pio2(&mut self, x: H, ty: &T, loc: Loc) -> R<(H, H)> {
        let k = self.mul_c(x, std::f64::consts::FRAC_2_PI, ty, loc)?;
        let k = self.b.math(M::Round, &[k]);
        let r = if self.target.fused_fma && format(ty).bytes == 4 {
            self.reduce_fused(x, k, ty, loc)?
        } else {
            self.reduce(x, k, format(ty).pio2, ty, loc)?
        };
        let q = self.b.cast(k, ScalarKind::Sint, Some(4));
        if self.target.int64 {
            return self.reduce_large(x, q, r, ty, loc);
        }
        Ok((q, self.nan_at_infinity(r, x, ty, loc)?))
    }

    /// `half_sin`, `half_cos`, `half_tan` of float `x`: within 8192 ulp on their domain
    /// |x| ≤ 2^16 (OpenCL C 7.4), where the hardware's functions are not (NVIDIA's lose their
    /// relative precision near the zeros as |x| grows). Cody–Waite reduction by π/2 with
    /// `HALF_PIO2` (products exact for every k of the domain: the remainder, at least 2^-27.8
    /// there, keeps 2^-18 of relative precision), then Taylor polynomials of degree 5 and 6
    /// (2^-14 relative at π/4). Past the domain 0 stands in, so results stay in [-1, 1] (tan
    /// finite), as the CTS asks; ±∞ and NaN give NaN.
    pub(super) fn half_trig(&mut self, f: MathFn, x: H, ty: &T, loc: Loc) -> R<H> {
        let ax = self.b.math(M::Abs, &[x]);
        let limit = self.float_like(65536.0, ty, loc)?;
        let outside = self.b.binary(B::Greater, ax, limit);
        let zero = self.float_like(0.0, ty, loc)?;
        let xr = self.b.select(outside, zero, x);
        let k = self.mul_c(xr, std::f64::consts::FRAC_2_PI, ty, loc)?;
        let k = self.b.math(M::Round, &[k]);
        let r = self.reduce(xr, k, &HALF_PIO2, ty, loc)?;
        let q = self.b.cast(k, ScalarKind::Sint, Some(4));
        let v = self.trig_eval(f, q, r, TrigPoly::Taylor(6), ty, loc)?;
        self.nan_at_infinity(v, x, ty, loc)
    }

    /// sin, cos or tan of `q π/2 + r` for |r| ≤ π/4 (`q` an i32 value), by the polynomials
    /// `poly`.
    pub(super) fn trig_eval(&mut self, f: MathFn, q: H, r: H, poly: TrigPoly, ty: &T, loc: Loc) -> R<H> {
        let (sin, cos) = self.sin_cos_of(q, r, poly, ty, loc)?;
        Ok(match f {
            MathFn::Sin => sin,
            MathFn::Cos => cos,
            _ => self.b.binary(B::Divide, sin, cos),
        })
    }

    /// (sin, cos) of `q π/2 + r` as [`Self::trig_eval`] computes them.
    fn sin_cos_of(&mut self, q: H, r: H, poly: TrigPoly, ty: &T, loc: Loc) -> R<(H, H)> {
        let z = self.b.binary(B::Multiply, r, r);
        let (s, c) = match poly {
            TrigPoly::Taylor(n) => {
                let sin_c = factorial_series(1..=n - 1, 2, true);
                let s = self.poly(z, &sin_c, ty, loc)?;
                let cos_c = factorial_series(0..=n, 2, true);
                let cos_c: Vec<f64> = cos_c.iter().enumerate().map(|(i, c)| if i == 0 { 1.0 } else { -c }).collect();
                (self.b.binary(B::Multiply, r, s), self.poly(z, &cos_c, ty, loc)?)
            }
            TrigPoly::Fit(fit) => {
                let p = self.poly(z, &fit.sin, ty, loc)?;
                let rz = self.b.binary(B::Multiply, r, z);
                let s = self.b.math(M::Fma, &[rz, p, r]);
                let cos_c = [1.0, -0.5, fit.cos[0], fit.cos[1], fit.cos[2]];
                (s, self.poly(z, &cos_c, ty, loc)?)
            }
        };
        let three = self.b.i32(3);
        let three = self.match_width(three, ty);
        let q = self.b.binary(B::And, q, three);
        let quadrant = |cx: &mut Self, n: i32| {
            let v = cx.b.i32(n);
            let v = cx.match_width(v, ty);
            cx.b.binary(B::Equal, q, v)
        };
        let (q1, q2, q3) = (quadrant(self, 1), quadrant(self, 2), quadrant(self, 3));
        let (ns, nc) = (self.b.unary(naga::UnaryOperator::Negate, s), self.b.unary(naga::UnaryOperator::Negate, c));
        // sin: s, c, -s, -c; cos: c, -s, -c, s (quadrants 0..3).
        let pick = |cx: &mut Self, v: [H; 4]| {
            let a = cx.b.select(q1, v[1], v[0]);
            let a = cx.b.select(q2, v[2], a);
            cx.b.select(q3, v[3], a)
        };
        Ok((pick(self, [s, c, ns, nc]), pick(self, [c, ns, nc, s])))
    }

    /// Payne–Hanek reduction of float `x`: (quadrant, remainder) with x = (4n + q) π/2 + r, from
    /// 96 bits of 2/π chosen by the exponent of x, multiplied exactly in 32-bit limbs.
    fn payne_hanek_scalar(&mut self, x: H, table: Handle<naga::GlobalVariable>) -> (H, H) {
        let u = |cx: &mut Self, v: u32| cx.b.u32(v);
        let u64c = |cx: &mut Self, v: u64| cx.b.lit(naga::Literal::U64(v));
        let ax = self.b.math(M::Abs, &[x]);
        let bits = self.b.cast(ax, ScalarKind::Uint, None);
        // |x| = m 2^s with m the 24-bit mantissa.
        let k23 = u(self, 23);
        let exp = self.b.binary(B::ShiftRight, bits, k23);
        let mant_mask = u(self, 0x7f_ffff);
        let m = self.b.binary(B::And, bits, mant_mask);
        let implicit = u(self, 0x80_0000);
        let m = self.b.binary(B::InclusiveOr, m, implicit);
        // First bit of 2/π that matters: s - 25, plus 64 for the two zero words heading the
        // table (s = exp - 127 - 23); clamped so small inputs, unused here, stay in the table.
        let base = u(self, 127 + 23 + 25 - 63);
        let (lo, hi) = (u(self, 0), u(self, 32 * (TWO_OVER_PI.len() as u32 - 4)));
        let start = self.b.binary(B::Subtract, exp, base);
        let start = self.b.math(M::Clamp, &[start, lo, hi]);
        let underflow = self.b.binary(B::Less, exp, base);
        let start = self.b.select(underflow, lo, start);
        let [w0, w1, w2] = self.two_over_pi_windows(table, start);
        let k32 = u(self, 32);
        let m64 = self.b.cast(m, ScalarKind::Uint, Some(8));
        let (p0, p1, p2) = (self.b.binary(B::Multiply, m64, w0), self.b.binary(B::Multiply, m64, w1), self.b.binary(B::Multiply, m64, w2));
        let mask = u64c(self, 0xffff_ffff);
        let limb0 = self.b.binary(B::And, p2, mask);
        let carry = self.b.binary(B::ShiftRight, p2, k32);
        let t1 = self.b.binary(B::Add, p1, carry);
        let limb1 = self.b.binary(B::And, t1, mask);
        let carry = self.b.binary(B::ShiftRight, t1, k32);
        let t0 = self.b.binary(B::Add, p0, carry);
        // x 2/π = P 2^-70 with P = limbs: quadrant = bits 70-71, fraction = bits 69-6.
        let k6 = u(self, 6);
        let qbits = self.b.binary(B::ShiftRight, t0, k6);
        let three = u64c(self, 3);
        let q = self.b.binary(B::And, qbits, three);
        let low6 = u64c(self, 63);
        let top = self.b.binary(B::And, t0, low6);
        let (k58, k26) = (u(self, 58), u(self, 26));
        let top = self.b.binary(B::ShiftLeft, top, k58);
        let mid = self.b.binary(B::ShiftLeft, limb1, k26);
        let bottom = self.b.binary(B::ShiftRight, limb0, k6);
        let frac = self.b.binary(B::InclusiveOr, top, mid);
        let frac = self.b.binary(B::InclusiveOr, frac, bottom);
        // A fraction of one half or more belongs to the next quadrant: as a signed number it
        // is then the (negative) distance to it.
        let k63 = u(self, 63);
        let round_up = self.b.binary(B::ShiftRight, frac, k63);
        let q = self.b.binary(B::Add, q, round_up);
        let q = self.b.binary(B::And, q, three);
        let q = self.b.cast(q, ScalarKind::Sint, Some(4));
        let signed = self.b.cast(frac, ScalarKind::Sint, None);
        let f = self.b.cast(signed, ScalarKind::Float, Some(4));
        let scale = self.b.lit(naga::Literal::F32((std::f64::consts::FRAC_PI_2 * 2f64.powi(-64)) as f32));
        let r = self.b.binary(B::Multiply, f, scale);
        // Negative x: x = -(q π/2 + r) = (-q) π/2 - r.
        let zero = self.b.lit(naga::Literal::F32(0.0));
        let neg = self.b.binary(B::Less, x, zero);
        let (four, mask3) = (self.b.i32(4), self.b.i32(3));
        let nq = self.b.binary(B::Subtract, four, q);
        let nq = self.b.binary(B::And, nq, mask3);
        let q = self.b.select(neg, nq, q);
        let nr = self.b.unary(naga::UnaryOperator::Negate, r);
        (q, self.b.select(neg, nr, r))
    }

    /// `N` consecutive 32-bit windows (as u64, most significant first) of the 2/π table,
    /// starting at bit `start` (counted from the table's first bit).
    pub(super) fn two_over_pi_windows<const N: usize>(&mut self, table: Handle<naga::GlobalVariable>, start: H) -> [H; N] {
        let k5 = self.b.u32(5);
        let idx = self.b.binary(B::ShiftRight, start, k5);
        let k31 = self.b.u32(31);
        let sh = self.b.binary(B::And, start, k31);
        let k32 = self.b.u32(32);
        let back = self.b.binary(B::Subtract, k32, sh);
        let tptr = self.b.expr(Expression::GlobalVariable(table));
        let word = |cx: &mut Self, j: usize| {
            let o = cx.b.u32(j as u32);
            let i = cx.b.binary(B::Add, idx, o);
            let p = cx.b.index(tptr, i);
            let w = cx.b.load(p);
            cx.b.cast(w, ScalarKind::Uint, Some(8))
        };
        let low32 = self.b.lit(naga::Literal::U64(0xffff_ffff));
        let mut windows = [start; N];
        for (j, slot) in windows.iter_mut().enumerate() {
            let (a, b) = (word(self, j), word(self, j + 1));
            let up = self.b.binary(B::ShiftLeft, a, k32);
            let pair = self.b.binary(B::InclusiveOr, up, b);
            let w = self.b.binary(B::ShiftRight, pair, back);
            *slot = self.b.binary(B::And, w, low32);
        }
        windows
    }

    /// The private table of 2/π bits (created on first use).
    fn two_over_pi_table(&mut self) -> Handle<naga::GlobalVariable> {
        if let Some(t) = self.two_over_pi {
            return t;
        }
        let words: Vec<H> = TWO_OVER_PI
            .iter()
            .map(|&w| self.module.global_expressions.append(Expression::Literal(naga::Literal::U32(w)), naga::Span::UNDEFINED))
            .collect();
        let u32_ty = super::builder::scalar_ty(&mut self.module, naga::Scalar::U32);
        let len = std::num::NonZeroU32::MIN.saturating_add(TWO_OVER_PI.len() as u32 - 1);
        let ty = super::builder::intern(&mut self.module, naga::TypeInner::Array { base: u32_ty, size: naga::ArraySize::Constant(len), stride: 4 });
        let init = self.module.global_expressions.append(Expression::Compose { ty, components: words }, naga::Span::UNDEFINED);
        let var = naga::GlobalVariable {
            name: Some("two_over_pi".into()),
            space: naga::AddressSpace::Private,
            binding: None,
            ty,
            init: Some(init),
            memory_decorations: naga::MemoryDecorations::empty(),
        };
        let t = self.module.global_variables.append(var, naga::Span::UNDEFINED);
        self.two_over_pi = Some(t);
        t
    }

    /// log(1 + x), accurate near 0: 2 atanh(x / (2 + x)) by its series while that converges
    /// fast (no cancellation: drivers may fold `(1 + x) - 1` to `x`), log(1 + x) elsewhere.
    fn log1p(&mut self, x: H, ty: &T, loc: Loc) -> R<H> {
        // |s| < 0.1716 (x in [-0.29, 0.41]) needs the same number of terms as log itself.
        let near = self.log1p_series(x, ty, loc)?;
        let one = self.float_like(1.0, ty, loc)?;
        let u = self.b.binary(B::Add, one, x);
        let far = self.log64(u, LogBase::E, ty, loc)?;
        let (lo, hi) = (self.float_like(-0.29, ty, loc)?, self.float_like(0.41, ty, loc)?);
        let above = self.b.binary(B::Greater, x, lo);
        let below = self.b.binary(B::Less, x, hi);
        let inside = self.b.select(above, below, above);
        Ok(self.b.select(inside, near, far))
    }

    /// asinh, acosh and atanh through log1p (and log for huge arguments).
    fn inverse_hyperbolic(&mut self, f: MathFn, x: H, ty: &T, loc: Loc) -> R<H> {
        let one = self.float_like(1.0, ty, loc)?;
        let ax = self.b.math(M::Abs, &[x]);
        // Past 2^(mantissa/2) the square of the argument no longer matters (or overflows):
        // asinh x ≈ acosh x ≈ log 2x.
        let huge = self.float_like(2f64.powi(format(ty).mantissa_bits as i32 / 2 + 2), ty, loc)?;
        let big = self.b.binary(B::Greater, ax, huge);
        let log_ax = self.log64(ax, LogBase::E, ty, loc)?;
        let ln2 = self.float_like(std::f64::consts::LN_2, ty, loc)?;
        let log_2ax = self.b.binary(B::Add, log_ax, ln2);
        Ok(match f {
            MathFn::Asinh => {
                // log1p(a + a² / (1 + √(1 + a²)))
                let a2 = self.b.binary(B::Multiply, ax, ax);
                let s = self.b.binary(B::Add, one, a2);
                let s = self.b.math(M::Sqrt, &[s]);
                let d = self.b.binary(B::Add, one, s);
                let q = self.b.binary(B::Divide, a2, d);
                let arg = self.b.binary(B::Add, ax, q);
                let r = self.log1p(arg, ty, loc)?;
                let r = self.b.select(big, log_2ax, r);
                self.copysign(r, x, ty)
            }
            MathFn::Acosh => {
                // log1p(t + √(2t + t²)), t = x - 1 (NaN below 1 through the square root).
                let t = self.b.binary(B::Subtract, x, one);
                let t2 = self.b.binary(B::Multiply, t, t);
                let two_t = self.b.binary(B::Add, t, t);
                let s = self.b.binary(B::Add, two_t, t2);
                let s = self.b.math(M::Sqrt, &[s]);
                let arg = self.b.binary(B::Add, t, s);
                let r = self.log1p(arg, ty, loc)?;
                let r = self.b.select(big, log_2ax, r);
                // x < 1 is NaN (the square root's NaN does not survive an infinite t²).
                let below = self.b.binary(B::Less, x, one);
                let nan = self.float_like(f64::NAN, ty, loc)?;
                self.b.select(below, nan, r)
            }
            _ => {
                // ½ log1p(2a / (1 - a)), sign of x.
                let two_a = self.b.binary(B::Add, ax, ax);
                let d = self.b.binary(B::Subtract, one, ax);
                let q = self.b.binary(B::Divide, two_a, d);
                let r = self.log1p(q, ty, loc)?;
                let r = self.mul_c(r, 0.5, ty, loc)?;
                let r = self.copysign(r, x, ty);
                // NaN past 1 explicitly: a device that divides through the reciprocal (NVIDIA)
                // flushes 1 / (1 - a) to 0 for a > 2^126, which made atanh 0 there.
                let outside = self.b.binary(B::Greater, ax, one);
                let nan = self.float_like(f64::NAN, ty, loc)?;
                self.b.select(outside, nan, r)
            }
        })
    }

    /// `f(x)` computed in double precision when `ty` is float and the device has doubles (for
    /// functions whose float result needs more than float intermediates).
    pub(super) fn in_double(&mut self, args: &[H], ty: &T, f: impl FnOnce(&mut Self, &[H], &T) -> R<H>) -> R<H> {
        if format(ty).bytes == 8 || !self.target.fp64 {
            return f(self, args, ty);
        }
        let wide = match ty {
            T::Vector(_, n) => T::Vector(S::Double, *n),
            _ => T::Scalar(S::Double),
        };
        let wide_args: Vec<H> = args.iter().map(|&a| self.b.cast(a, ScalarKind::Float, Some(8))).collect();
        let r = f(self, &wide_args, &wide)?;
        Ok(self.b.cast(r, ScalarKind::Float, Some(4)))
    }

    /// e^(-x²), with x² split so its rounding error is not magnified by the exponential.
    fn exp_minus_square(&mut self, x: H, ty: &T, loc: Loc) -> R<H> {
        // x = h + l with h holding the upper half of the mantissa: h² is exact.
        let split = self.float_like(2f64.powi(format(ty).mantissa_bits as i32 / 2 + 1) + 1.0, ty, loc)?;
        let c = self.b.binary(B::Multiply, split, x);
        let d = self.b.binary(B::Subtract, c, x);
        let h = self.b.binary(B::Subtract, c, d);
        let l = self.b.binary(B::Subtract, x, h);
        let hh = self.b.binary(B::Multiply, h, h);
        let s = self.b.binary(B::Add, x, h);
        let rest = self.b.binary(B::Multiply, l, s);
        let (nhh, nrest) = (self.b.unary(naga::UnaryOperator::Negate, hh), self.b.unary(naga::UnaryOperator::Negate, rest));
        let (a, b) = (self.exp64(nhh, ty, loc)?, self.exp64(nrest, ty, loc)?);
        Ok(self.b.binary(B::Multiply, a, b))
    }

    /// erf or erfc: the Maclaurin series below |x| = 2, the continued fraction of erfc above.
    fn erf(&mut self, complement: bool, x: H, ty: &T, loc: Loc) -> R<H> {
        let ax = self.b.math(M::Abs, &[x]);
        // erf x = 2/√π Σ (-1)^n x^(2n+1) / (n! (2n+1))
        let two_over_sqrt_pi = std::f64::consts::FRAC_2_SQRT_PI;
        let mut fact = 1.0f64;
        let coeffs: Vec<f64> = (0..40)
            .map(|n| {
                if n > 0 {
                    fact *= f64::from(n);
                }
                let sign = if n % 2 == 0 { 1.0 } else { -1.0 };
                sign * two_over_sqrt_pi / (fact * f64::from(2 * n + 1))
            })
            .collect();
        let z = self.b.binary(B::Multiply, x, x);
        let p = self.poly(z, &coeffs, ty, loc)?;
        let series = self.b.binary(B::Multiply, x, p);
        // erfc x = e^(-x²)/√π / (x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))) for x > 0
        let (depth, fraction_from) = format(ty).erfc_fraction;
        let mut t = ax;
        for k in (1..=depth).rev() {
            let kk = self.float_like(f64::from(k) / 2.0, ty, loc)?;
            let q = self.b.binary(B::Divide, kk, t);
            t = self.b.binary(B::Add, ax, q);
        }
        let e = self.exp_minus_square(ax, ty, loc)?;
        let e = self.mul_c(e, 1.0 / std::f64::consts::PI.sqrt(), ty, loc)?;
        let tail = self.b.binary(B::Divide, e, t);
        // Huge |x|: the fraction underflows to 0 (and ∞/∞ would be NaN).
        let far = self.float_like(30.0, ty, loc)?;
        let is_far = self.b.binary(B::Greater, ax, far);
        let zero = self.float_like(0.0, ty, loc)?;
        let tail = self.b.select(is_far, zero, tail);
        let two = self.float_like(2.0, ty, loc)?;
        // erfc = 1 - erf loses (1 - erfc) / erfc of its precision: the fraction takes over
        // early for erfc.
        let series_below = self.float_like(if complement { fraction_from } else { 2.0 }, ty, loc)?;
        let small = self.b.binary(B::Less, ax, series_below);
        let one = self.float_like(1.0, ty, loc)?;
        let neg = self.b.binary(B::Less, x, zero);
        Ok(if complement {
            // erfc(-x) = 2 - erfc(x)
            let from_series = self.b.binary(B::Subtract, one, series);
            let two_minus = self.b.binary(B::Subtract, two, tail);
            let big = self.b.select(neg, two_minus, tail);
            self.b.select(small, from_series, big)
        } else {
            let one_minus = self.b.binary(B::Subtract, one, tail);
            let big = self.copysign(one_minus, x, ty);
            self.b.select(small, series, big)
        })
    }

    /// log Γ(a) for a > 0: Stirling's series at a + 10 or more, shifted back by log Π(a + k).
    fn lgamma_positive(&mut self, a: H, ty: &T, loc: Loc) -> R<H> {
        let ten = self.float_like(10.0, ty, loc)?;
        let small = self.b.binary(B::Less, a, ten);
        let shifted = self.b.binary(B::Add, a, ten);
        let y = self.b.select(small, shifted, a);
        // (y - ½) log y - y + ½ log 2π + Σ B2k / (2k (2k - 1) y^(2k-1))
        let ly = self.log64(y, LogBase::E, ty, loc)?;
        let half = self.float_like(0.5, ty, loc)?;
        let ym = self.b.binary(B::Subtract, y, half);
        let main = self.b.binary(B::Multiply, ym, ly);
        let main = self.b.binary(B::Subtract, main, y);
        let c = self.float_like(0.5 * (2.0 * std::f64::consts::PI).ln(), ty, loc)?;
        let main = self.b.binary(B::Add, main, c);
        let series = self.stirling_series(y, ty, loc)?;
        let st = self.b.binary(B::Add, main, series);
        let product = self.rising_product(a, ty, loc)?;
        let lp = self.log64(product, LogBase::E, ty, loc)?;
        let back = self.b.binary(B::Subtract, st, lp);
        Ok(self.b.select(small, back, st))
    }

    /// The tail of Stirling's series for log Γ(y): Σ B2k / (2k (2k - 1) y^(2k-1)).
    fn stirling_series(&mut self, y: H, ty: &T, loc: Loc) -> R<H> {
        let one = self.float_like(1.0, ty, loc)?;
        let inv = self.b.binary(B::Divide, one, y);
        let inv2 = self.b.binary(B::Multiply, inv, inv);
        let bernoulli = [1.0 / 6.0, -1.0 / 30.0, 1.0 / 42.0, -1.0 / 30.0, 5.0 / 66.0, -691.0 / 2730.0, 7.0 / 6.0, -3617.0 / 510.0];
        let coeffs: Vec<f64> = (1..=8).zip(bernoulli).map(|(k, b)| b / f64::from(2 * k * (2 * k - 1))).collect();
        let series = self.poly(inv2, &coeffs, ty, loc)?;
        Ok(self.b.binary(B::Multiply, series, inv))
    }

    /// a (a + 1) ... (a + 9).
    fn rising_product(&mut self, a: H, ty: &T, loc: Loc) -> R<H> {
        let mut product = a;
        for k in 1..10 {
            let kk = self.float_like(f64::from(k), ty, loc)?;
            let term = self.b.binary(B::Add, a, kk);
            product = self.b.binary(B::Multiply, product, term);
        }
        Ok(product)
    }

    /// lgamma (log |Γ(x)|) or tgamma (Γ(x)); negative x by reflection,
    /// Γ(x) = π / (sin(πx) Γ(1 - x)).
    fn gamma(&mut self, tgamma: bool, x: H, ty: &T, loc: Loc) -> R<H> {
        let (zero, one) = (self.float_like(0.0, ty, loc)?, self.float_like(1.0, ty, loc)?);
        let positive = self.b.binary(B::Greater, x, zero);
        let reflected = self.b.binary(B::Subtract, one, x);
        let a = self.b.select(positive, x, reflected);
        let lg_a = self.lgamma_positive(a, ty, loc)?;
        // Float without double (else this runs in double), and double tgamma: Γ(a) in
        // extended precision, whose log is also free of the cancellation in lgamma_positive's
        // shift (while Γ(a) stays finite); e^(lgamma) magnifies lgamma's error by |lgamma|
        // (30 ulp at -2^-63, 544 at -169.00000000001455).
        // Double tgamma past 160: Γ(a - 12) and the 12 factors up to a apart, so that 1 / Γ(a)
        // is still formed where Γ(a) overflows (x down to -183, near the poles).
        let double_tgamma = tgamma && format(ty).bytes == 8;
        let big = self.float_like(160.0, ty, loc)?;
        let big = self.b.binary(B::Greater, a, big);
        let twelve = self.float_like(12.0, ty, loc)?;
        let lowered = self.b.binary(B::Subtract, a, twelve);
        let g_arg = if double_tgamma { self.b.select(big, lowered, a) } else { a };
        let wide = if format(ty).bytes == 4 || tgamma {
            let g = self.gamma_wide(g_arg, ty, loc)?;
            let lg = self.log64(g, LogBase::E, ty, loc)?;
            let limit = self.float_like(30.0, ty, loc)?;
            let finite = self.b.binary(B::Less, a, limit);
            Some((g, self.b.select(finite, lg, lg_a)))
        } else {
            None
        };
        let lg_a = wide.map_or(lg_a, |(_, lg)| lg);
        let s = self.soft_math(MathFn::Sinpi, &[x], ty, loc)?;
        let abs_s = self.b.math(M::Abs, &[s]);
        let pi = self.float_like(std::f64::consts::PI, ty, loc)?;
        let ratio = self.b.binary(B::Divide, pi, abs_s);
        let l_ratio = self.log64(ratio, LogBase::E, ty, loc)?;
        let lg_neg = self.b.binary(B::Subtract, l_ratio, lg_a);
        let lg = self.b.select(positive, lg_a, lg_neg);
        let nan = self.b.expr(Expression::Relational { fun: RelationalFunction::IsNan, argument: x });
        let x_inf = self.is_inf(x);
        if !tgamma {
            let inf = self.float_like(f64::INFINITY, ty, loc)?;
            // Poles at 0 and the negative integers; lgamma(±∞) = +∞.
            let pole = self.b.binary(B::Equal, s, zero);
            let not_pos = self.b.unary(naga::UnaryOperator::LogicalNot, positive);
            let pole = self.b.select(not_pos, pole, not_pos);
            let pole = self.either(pole, x_inf);
            let lg = self.b.select(pole, inf, lg);
            return Ok(self.b.select(nan, x, lg));
        }
        let e = if let Some((g, _)) = wide {
            // |Γ(x)| = π / (|sin πx| Γ(1 - x)) for negative x.
            let den = self.b.binary(B::Multiply, abs_s, g);
            let reflected = self.b.binary(B::Divide, pi, den);
            let (g, reflected) = if double_tgamma {
                // (a - 12) ... (a - 1): at most 184^12, no overflow.
                let mut product = lowered;
                for k in 1..12 {
                    let kk = self.float_like(f64::from(k), ty, loc)?;
                    let term = self.b.binary(B::Add, lowered, kk);
                    product = self.b.binary(B::Multiply, product, term);
                }
                let (up, down) = (self.b.binary(B::Multiply, g, product), self.b.binary(B::Divide, reflected, product));
                (self.b.select(big, up, g), self.b.select(big, down, reflected))
            } else {
                (g, reflected)
            };
            self.b.select(positive, g, reflected)
        } else {
            self.exp64(lg, ty, loc)?
        };
        // Sign for negative x: that of sin(πx); NaN at the negative integers, ±∞ at ±0.
        let ne = self.b.unary(naga::UnaryOperator::Negate, e);
        let neg_s = self.b.binary(B::Less, s, zero);
        let signed = self.b.select(neg_s, ne, e);
        let r = self.b.select(positive, e, signed);
        let nan_v = self.float_like(f64::NAN, ty, loc)?;
        let pole = self.b.binary(B::Equal, s, zero);
        let not_pos = self.b.unary(naga::UnaryOperator::LogicalNot, positive);
        let pole = self.b.select(not_pos, pole, not_pos);
        let r = self.b.select(pole, nan_v, r);
        let inf = self.float_like(f64::INFINITY, ty, loc)?;
        let signed_inf = self.copysign(inf, x, ty);
        let is_zero = self.b.binary(B::Equal, x, zero);
        let r = self.b.select(is_zero, signed_inf, r);
        // Γ(+∞) = +∞, Γ(-∞) = NaN.
        let at_inf = self.b.select(positive, x, nan_v);
        let r = self.b.select(x_inf, at_inf, r);
        Ok(self.b.select(nan, x, r))
    }

    /// x^y as e^(y log x), with the sign for negative x and integer y and the usual special
    /// values. The error of y log x is magnified by |y log x|, so float pow runs in double
    /// when the device has it, else in float-float, and double pow in double-double
    /// (`wide.rs`).
    fn pow64(&mut self, x: H, y: H, ty: &T, loc: Loc) -> R<H> {
        self.pow_extended(x, y, None, ty, loc)
    }

    /// pow64 with y + y_lo as the exponent where y_lo is given.
    fn pow_extended(&mut self, x: H, y: H, y_lo: Option<H>, ty: &T, loc: Loc) -> R<H> {
        if format(ty).bytes == 4 && self.target.fp64 {
            return self.in_double(&[x, y], ty, |cx, a, t| cx.pow64(a[0], a[1], t, loc));
        }
        let ax = self.b.math(M::Abs, &[x]);
        let r = self.exp_y_log_wide(ax, y, y_lo, ty, loc)?;
        // Negative base: defined for integer y, negative for odd y.
        let (zero, one, two) = (self.float_like(0.0, ty, loc)?, self.float_like(1.0, ty, loc)?, self.float_like(2.0, ty, loc)?);
        let yi = self.b.math(M::Trunc, &[y]);
        let is_int = self.b.binary(B::Equal, yi, y);
        let half = self.b.binary(B::Divide, y, two);
        let half_t = self.b.math(M::Trunc, &[half]);
        let even = self.b.binary(B::Equal, half_t, half);
        let neg_x = self.b.binary(B::Less, x, zero);
        let nr = self.b.unary(naga::UnaryOperator::Negate, r);
        let nan = self.float_like(f64::NAN, ty, loc)?;
        // (-∞)^y is defined for every y: ±0 or ±∞, signed only for odd integer y.
        let x_inf = self.is_inf(x);
        let defined = self.either(is_int, x_inf);
        let odd = self.b.unary(naga::UnaryOperator::LogicalNot, even);
        let odd = self.both(odd, is_int);
        let signed = self.b.select(odd, nr, r);
        let neg_result = self.b.select(defined, signed, nan);
        let r = self.b.select(neg_x, neg_result, r);
        // (-0)^y: ±0 or ±∞, negative for odd integer y.
        let minus_zero = self.sign_bit_set(x, ty);
        let x_zero = self.b.binary(B::Equal, x, zero);
        let minus_zero = self.both(minus_zero, x_zero);
        let r = self.b.select(minus_zero, signed, r);
        // x^0 = 1 and 1^y = 1, even for NaN; (-1)^±∞ = 1.
        let y0 = self.b.binary(B::Equal, y, zero);
        let x1 = self.b.binary(B::Equal, x, one);
        let minus_one = self.float_like(-1.0, ty, loc)?;
        let xm1 = self.b.binary(B::Equal, x, minus_one);
        let y_inf = self.is_inf(y);
        let xm1 = self.both(xm1, y_inf);
        let x1 = self.either(x1, xm1);
        let r = self.b.select(y0, one, r);
        Ok(self.b.select(x1, one, r))
    }

    fn hyperbolic64(&mut self, f: MathFn, x: H, ty: &T, loc: Loc) -> R<H> {
        let ax = self.b.math(M::Abs, &[x]);
        // e^|x| / 2 (finite as long as cosh is) and e^-|x| / 2 = 1/4 / (e^|x| / 2).
        let e_half = self.exp_scaled(ax, -1.0, ty, loc)?;
        let quarter = self.float_like(0.25, ty, loc)?;
        let inv_half = self.b.binary(B::Divide, quarter, e_half);
        let one = self.float_like(1.0, ty, loc)?;
        let half = self.float_like(0.5, ty, loc)?;
        // Small |x|: Taylor series, free of the cancellation in e^x - e^-x.
        let z = self.b.binary(B::Multiply, x, x);
        let small = self.b.binary(B::Less, ax, half);
        Ok(match f {
            MathFn::Cosh => self.b.binary(B::Add, e_half, inv_half),
            MathFn::Sinh => {
                let big = self.b.binary(B::Subtract, e_half, inv_half);
                let big = self.copysign(big, x, ty);
                let series = factorial_series(1..=format(ty).trig_degree - 1, 2, false);
                let p = self.poly(z, &series, ty, loc)?;
                let tiny = self.b.binary(B::Multiply, x, p);
                self.b.select(small, tiny, big)
            }
            _ => {
                // tanh = (1 - e^-2|x|) / (1 + e^-2|x|); sinh/cosh by series when small.
                let inv = self.b.binary(B::Add, inv_half, inv_half);
                let e2 = self.b.binary(B::Multiply, inv, inv);
                let (n, d) = (self.b.binary(B::Subtract, one, e2), self.b.binary(B::Add, one, e2));
                let big = self.b.binary(B::Divide, n, d);
                let big = self.copysign(big, x, ty);
                let n = format(ty).trig_degree;
                let sinh_s = factorial_series(1..=n - 1, 2, false);
                let cosh_s = factorial_series(0..=n - 2, 2, false);
                let sp = self.poly(z, &sinh_s, ty, loc)?;
                let sp = self.b.binary(B::Multiply, x, sp);
                let cp = self.poly(z, &cosh_s, ty, loc)?;
                let tiny = self.b.binary(B::Divide, sp, cp);
                self.b.select(small, tiny, big)
            }
        })
    }

    /// Cube root: x = 2^(3q + r) m with r in {0, 1, 2}; the root of a = 2^r m (in [0.7, 6)) is
    /// estimated in single precision, refined by two Newton steps, and scaled by 2^q.
    fn cbrt64(&mut self, x: H, ty: &T, loc: Loc) -> R<H> {
        let abs_x = self.b.math(M::Abs, &[x]);
        let (e, m) = self.split_exponent(abs_x, ty, loc)?;
        let third = self.mul_c(e, 1.0 / 3.0, ty, loc)?;
        let q = self.b.math(M::Floor, &[third]);
        let q3 = self.mul_c(q, 3.0, ty, loc)?;
        let r = self.b.binary(B::Subtract, e, q3);
        let r = self.b.cast(r, ScalarKind::Sint, Some(4));
        let a = self.b.math(M::Ldexp, &[m, r]);
        let double = format(ty).bytes == 8;
        let af = if double { self.b.cast(a, ScalarKind::Float, Some(4)) } else { a };
        let l = self.b.math(M::Log2, &[af]);
        let f3 = self.b.lit(naga::Literal::F32(1.0 / 3.0));
        let f3 = self.match_width(f3, ty);
        let l = self.b.binary(B::Multiply, l, f3);
        let y0 = self.b.math(M::Exp2, &[l]);
        let mut y = if double { self.b.cast(y0, ScalarKind::Float, Some(8)) } else { y0 };
        for _ in 0..2 {
            // y -= (y³ - a) / (3y²)
            let y2 = self.b.binary(B::Multiply, y, y);
            let y3 = self.b.binary(B::Multiply, y2, y);
            let num = self.b.binary(B::Subtract, y3, a);
            let den = self.mul_c(y2, 3.0, ty, loc)?;
            let step = self.b.binary(B::Divide, num, den);
            y = self.b.binary(B::Subtract, y, step);
        }
        let q = self.b.cast(q, ScalarKind::Sint, Some(4));
        let y = self.b.math(M::Ldexp, &[y, q]);
        // Zeros (and subnormals a device flushing them compares equal to 0: those give 0, not
        // themselves), infinities and NaN pass through; the sign comes back.
        let (zero, inf) = (self.float_like(0.0, ty, loc)?, self.float_like(f64::INFINITY, ty, loc)?);
        let is_zero = self.b.binary(B::Equal, abs_x, zero);
        let y = self.b.select(is_zero, zero, y);
        let is_inf = self.b.binary(B::Equal, abs_x, inf);
        let y = self.b.select(is_inf, abs_x, y);
        let y = self.copysign(y, x, ty);
        let nan = self.b.expr(Expression::Relational { fun: RelationalFunction::IsNan, argument: x });
        Ok(self.b.select(nan, x, y))
    }

    /// atan: t = min(|x|, 1/|x|); past tan(π/8), atan t = π/4 + atan u with u = (t - 1)/(t + 1)
    /// (t - 1 exact there); atan u = u + u z P(z), z = u², |u| ≤ tan(π/8); beyond 1,
    /// π/2 - atan t. π/4 and π/2 as hi + lo so that the sums keep their last bits.
    fn atan64(&mut self, x: H, ty: &T, loc: Loc) -> R<H> {
        let ax = self.b.math(M::Abs, &[x]);
        let one = self.float_like(1.0, ty, loc)?;
        let big = self.b.binary(B::Greater, ax, one);
        let inv = self.b.binary(B::Divide, one, ax);
        let t = self.b.select(big, inv, ax);
        let tan_pi_8 = self.float_like(std::f64::consts::SQRT_2 - 1.0, ty, loc)?;
        let upper = self.b.binary(B::Greater, t, tan_pi_8);
        let (n, d) = (self.b.binary(B::Subtract, t, one), self.b.binary(B::Add, t, one));
        let shifted = self.b.binary(B::Divide, n, d);
        let u = self.b.select(upper, shifted, t);
        let z = self.b.binary(B::Multiply, u, u);
        let coeffs: Vec<f64> = (1..=format(ty).atan_terms).map(|k| if k % 2 == 1 { -1.0 } else { 1.0 } / f64::from(2 * k + 1)).collect();
        let p = self.poly(z, &coeffs, ty, loc)?;
        let zp = self.b.binary(B::Multiply, z, p);
        let uzp = self.b.binary(B::Multiply, u, zp);
        let series = self.b.binary(B::Add, u, uzp);
        let plus = |cx: &mut Self, c: f64, v: H, negate: bool| -> R<H> {
            let single = format(ty).bytes == 4;
            let hi = if single { f64::from(c as f32) } else { c };
            let lo = if single { c - hi } else if c == std::f64::consts::FRAC_PI_2 { 6.123233995736766e-17 } else { 3.061616997868383e-17 };
            let (h, l) = (cx.float_like(hi, ty, loc)?, cx.float_like(lo, ty, loc)?);
            let s = cx.b.binary(if negate { B::Subtract } else { B::Add }, h, v);
            Ok(cx.b.binary(B::Add, s, l))
        };
        let a = plus(self, std::f64::consts::FRAC_PI_4, series, false)?;
        let a = self.b.select(upper, a, series);
        let rest = plus(self, std::f64::consts::FRAC_PI_2, a, true)?;
        let a = self.b.select(big, rest, a);
        let a = self.copysign(a, x, ty);
        let nan = self.b.expr(Expression::Relational { fun: RelationalFunction::IsNan, argument: x });
        Ok(self.b.select(nan, x, a))
    }
}

#[derive(Clone, Copy)]
enum LogBase {
    E,
    Two,
    Ten,
}
