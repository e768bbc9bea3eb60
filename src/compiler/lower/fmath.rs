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

const LN10: f64 = std::f64::consts::LN_10;
const LOG2_10: f64 = std::f64::consts::LOG2_10;

/// What the algorithms need to know about one floating-point format.
struct Format {
    /// ln 2, π/2 and log10 2 split so that k times the first part is exact for the k that occur.
    ln2: [f64; 2],
    pio2: [f64; 3],
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
    /// Polynomial lengths: exp, sin/cos (terms of z = r²), log and atan series.
    exp_degree: u32,
    trig_degree: u32,
    series_terms: u32,
}

const DOUBLE: Format = Format {
    ln2: [0.6931471804855391, 7.440617110012397e-11],
    pio2: [1.5707963267341256, 6.077100506303966e-11, 2.0222662487959506e-21],
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
    series_terms: 14,
};

const FLOAT: Format = Format {
    ln2: [0.693145751953125, 1.428606765330187e-06],
    pio2: [1.5703125, 0.0004837512969970703, 7.549790126404332e-08],
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
    series_terms: 7,
};

fn format(ty: &T) -> &'static Format {
    if ty.element() == Some(S::Double) { &DOUBLE } else { &FLOAT }
}

/// The functions implemented here.
pub fn handles(f: MathFn) -> bool {
    use MathFn::*;
    matches!(f, Exp | Exp2 | Exp10 | Log | Log2 | Log10 | Sin | Cos | Tan | Pow | Powr | Sinh | Cosh | Tanh | Radians | Degrees | Cbrt | Atan | Atan2 | Asin | Acos)
}

/// Taylor coefficients 1/n! for n in `range`, with alternating signs when `alternate`.
fn factorial_series(range: std::ops::RangeInclusive<u32>, step: usize, alternate: bool) -> Vec<f64> {
    let mut out = Vec::new();
    let mut fact = 1.0f64;
    let mut sign = 1.0;
    for n in 1..=*range.end() {
        fact *= f64::from(n);
        if n >= *range.start() && (n - range.start()) as usize % step == 0 {
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
            MathFn::Sin | MathFn::Cos | MathFn::Tan => self.trig64(f, x, ty, loc)?,
            MathFn::Pow | MathFn::Powr => {
                let y = y.ok_or_else(|| LowerError::new(loc, "internal: missing argument"))?;
                self.pow64(x, y, ty, loc)?
            }
            MathFn::Sinh | MathFn::Cosh | MathFn::Tanh => self.hyperbolic64(f, x, ty, loc)?,
            MathFn::Radians => self.mul_c(x, std::f64::consts::PI / 180.0, ty, loc)?,
            MathFn::Degrees => self.mul_c(x, 180.0 / std::f64::consts::PI, ty, loc)?,
            MathFn::Cbrt => self.cbrt64(x, ty, loc)?,
            MathFn::Atan => self.atan64(x, ty, loc)?,
            MathFn::Atan2 => {
                let y = y.ok_or_else(|| LowerError::new(loc, "internal: missing argument"))?;
                self.atan2_64(x, y, ty, loc)?
            }
            MathFn::Asin | MathFn::Acos => {
                // asin x = atan2(x, √((1-x)(1+x))), acos x = atan2(√((1-x)(1+x)), x)
                let one = self.float_like(1.0, ty, loc)?;
                let (a, b) = (self.b.binary(B::Subtract, one, x), self.b.binary(B::Add, one, x));
                let c = self.b.binary(B::Multiply, a, b);
                let c = self.b.math(M::Sqrt, &[c]);
                if f == MathFn::Asin { self.atan2_64(x, c, ty, loc)? } else { self.atan2_64(c, x, ty, loc)? }
            }
            _ => return Err(LowerError::new(loc, "this double-precision function is not supported yet")),
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
            let m = self.b.binary(B::Multiply, acc, x);
            let c = self.float_like(c, ty, loc)?;
            acc = self.b.binary(B::Add, m, c);
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
        let k = self.mul_c(x, std::f64::consts::LOG2_E, ty, loc)?;
        let k = self.b.math(M::Round, &[k]);
        let r = self.reduce(x, k, &format(ty).ln2, ty, loc)?;
        let p = self.exp_poly(r, ty, loc)?;
        let e = self.scale(p, k, ty);
        self.exp_limits(e, x, format(ty).exp_limits, ty, loc)
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

    /// `x = 2^e m` for positive finite `x`: (e as a double, m in [√½, √2)).
    fn split_exponent(&mut self, x: H, ty: &T, loc: Loc) -> R<(H, H)> {
        let fmt = format(ty);
        let width = fmt.bytes;
        // Subnormals: scale into the normal range first.
        let scale = fmt.mantissa_bits as i32 + 2;
        let tiny = self.float_like(if width == 8 { f64::MIN_POSITIVE } else { f64::from(f32::MIN_POSITIVE) }, ty, loc)?;
        let is_tiny = self.b.binary(B::Less, x, tiny);
        let big = self.float_like(2f64.powi(scale), ty, loc)?;
        let scaled = self.b.binary(B::Multiply, x, big);
        let x = self.b.select(is_tiny, scaled, x);
        let (adj, none) = (self.float_like(-f64::from(scale), ty, loc)?, self.float_like(0.0, ty, loc)?);
        let adj = self.b.select(is_tiny, adj, none);
        let bits = self.b.cast(x, ScalarKind::Uint, None);
        let uty = match ty {
            T::Vector(_, n) => T::Vector(fmt.uint, *n),
            _ => T::Scalar(fmt.uint),
        };
        let shift = self.b.u32(fmt.mantissa_bits);
        let shift = self.match_width(shift, ty);
        let exp_bits = self.b.binary(B::ShiftRight, bits, shift);
        let mask = self.int_like(fmt.exponent_mask as i64, &uty, loc)?;
        let exp_bits = self.b.binary(B::And, exp_bits, mask);
        let e = self.b.cast(exp_bits, ScalarKind::Float, Some(width));
        let bias = self.float_like(fmt.bias, ty, loc)?;
        let e = self.b.binary(B::Subtract, e, bias);
        let e = self.b.binary(B::Add, e, adj);
        let frac = self.int_like(((1u64 << fmt.mantissa_bits) - 1) as i64, &uty, loc)?;
        let one_bits = self.int_like(((fmt.bias as u64) << fmt.mantissa_bits) as i64, &uty, loc)?;
        let m = self.b.binary(B::And, bits, frac);
        let m = self.b.binary(B::InclusiveOr, m, one_bits);
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
        // log(1 + f) = 2 atanh(s), s = f / (2 + f).
        let f = self.b.binary(B::Subtract, m, one);
        let two = self.float_like(2.0, ty, loc)?;
        let d = self.b.binary(B::Add, two, f);
        let s = self.b.binary(B::Divide, f, d);
        let z = self.b.binary(B::Multiply, s, s);
        let coeffs: Vec<f64> = (0..format(ty).series_terms).map(|k| 2.0 / f64::from(2 * k + 1)).collect();
        let p = self.poly(z, &coeffs, ty, loc)?;
        Ok((e, self.b.binary(B::Multiply, s, p)))
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

    /// sin, cos or tan: reduction by π/2 (accurate while |x| < 2^20 π/2), quadrant, Taylor.
    fn trig64(&mut self, f: MathFn, x: H, ty: &T, loc: Loc) -> R<H> {
        let k = self.mul_c(x, std::f64::consts::FRAC_2_PI, ty, loc)?;
        let k = self.b.math(M::Round, &[k]);
        let r = self.reduce(x, k, &format(ty).pio2, ty, loc)?;
        let n = format(ty).trig_degree;
        let z = self.b.binary(B::Multiply, r, r);
        let sin_c = factorial_series(1..=n - 1, 2, true);
        let s = self.poly(z, &sin_c, ty, loc)?;
        let s = self.b.binary(B::Multiply, r, s);
        let cos_c = factorial_series(0..=n, 2, true);
        let cos_c: Vec<f64> = cos_c.iter().enumerate().map(|(i, c)| if i == 0 { 1.0 } else { -c }).collect();
        let c = self.poly(z, &cos_c, ty, loc)?;
        let q = self.b.cast(k, ScalarKind::Sint, Some(4));
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
        Ok(match f {
            MathFn::Sin => pick(self, [s, c, ns, nc]),
            MathFn::Cos => pick(self, [c, ns, nc, s]),
            _ => {
                let (sn, cs) = (pick(self, [s, c, ns, nc]), pick(self, [c, ns, nc, s]));
                self.b.binary(B::Divide, sn, cs)
            }
        })
    }

    /// x^y as e^(y log x) (precise to a few ulp while |y log x| stays small), with the sign
    /// for negative x and integer y and the usual special values.
    fn pow64(&mut self, x: H, y: H, ty: &T, loc: Loc) -> R<H> {
        let ax = self.b.math(M::Abs, &[x]);
        let l = self.log64(ax, LogBase::E, ty, loc)?;
        let t = self.b.binary(B::Multiply, y, l);
        let r = self.exp64(t, ty, loc)?;
        // Negative base: defined for integer y, negative for odd y.
        let (zero, one, two) = (self.float_like(0.0, ty, loc)?, self.float_like(1.0, ty, loc)?, self.float_like(2.0, ty, loc)?);
        let yi = self.b.math(M::Trunc, &[y]);
        let is_int = self.b.binary(B::Equal, yi, y);
        let half = self.b.binary(B::Divide, y, two);
        let half_t = self.b.math(M::Trunc, &[half]);
        let even = self.b.binary(B::Equal, half_t, half);
        let neg_x = self.b.binary(B::Less, x, zero);
        let nr = self.b.unary(naga::UnaryOperator::Negate, r);
        let signed = self.b.select(even, r, nr);
        let nan = self.float_like(f64::NAN, ty, loc)?;
        let neg_result = self.b.select(is_int, signed, nan);
        let r = self.b.select(neg_x, neg_result, r);
        // x^0 = 1 and 1^y = 1, even for NaN.
        let y0 = self.b.binary(B::Equal, y, zero);
        let x1 = self.b.binary(B::Equal, x, one);
        let r = self.b.select(y0, one, r);
        Ok(self.b.select(x1, one, r))
    }

    fn hyperbolic64(&mut self, f: MathFn, x: H, ty: &T, loc: Loc) -> R<H> {
        let ax = self.b.math(M::Abs, &[x]);
        let e = self.exp64(ax, ty, loc)?;
        let one = self.float_like(1.0, ty, loc)?;
        let inv = self.b.binary(B::Divide, one, e);
        let half = self.float_like(0.5, ty, loc)?;
        // Small |x|: Taylor series, free of the cancellation in e^x - e^-x.
        let z = self.b.binary(B::Multiply, x, x);
        let small = self.b.binary(B::Less, ax, half);
        Ok(match f {
            MathFn::Cosh => {
                let s = self.b.binary(B::Add, e, inv);
                self.b.binary(B::Multiply, s, half)
            }
            MathFn::Sinh => {
                let d = self.b.binary(B::Subtract, e, inv);
                let big = self.b.binary(B::Multiply, d, half);
                let big = self.copysign(big, x, ty);
                let series = factorial_series(1..=format(ty).trig_degree - 1, 2, false);
                let p = self.poly(z, &series, ty, loc)?;
                let tiny = self.b.binary(B::Multiply, x, p);
                self.b.select(small, tiny, big)
            }
            _ => {
                // tanh = (1 - e^-2|x|) / (1 + e^-2|x|); sinh/cosh by series when small.
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
        // 0, infinities and NaN pass through; the sign comes back.
        let (zero, inf) = (self.float_like(0.0, ty, loc)?, self.float_like(f64::INFINITY, ty, loc)?);
        let is_zero = self.b.binary(B::Equal, abs_x, zero);
        let y = self.b.select(is_zero, abs_x, y);
        let is_inf = self.b.binary(B::Equal, abs_x, inf);
        let y = self.b.select(is_inf, abs_x, y);
        let y = self.copysign(y, x, ty);
        let nan = self.b.expr(Expression::Relational { fun: RelationalFunction::IsNan, argument: x });
        Ok(self.b.select(nan, x, y))
    }

    /// atan by two argument halvings (atan x = 2 atan(x / (1 + √(1 + x²)))) of min(|x|, 1/|x|),
    /// then the odd Taylor series.
    fn atan64(&mut self, x: H, ty: &T, loc: Loc) -> R<H> {
        let ax = self.b.math(M::Abs, &[x]);
        let one = self.float_like(1.0, ty, loc)?;
        let big = self.b.binary(B::Greater, ax, one);
        let inv = self.b.binary(B::Divide, one, ax);
        let mut t = self.b.select(big, inv, ax);
        for _ in 0..2 {
            let t2 = self.b.binary(B::Multiply, t, t);
            let s = self.b.binary(B::Add, one, t2);
            let s = self.b.math(M::Sqrt, &[s]);
            let d = self.b.binary(B::Add, one, s);
            t = self.b.binary(B::Divide, t, d);
        }
        let z = self.b.binary(B::Multiply, t, t);
        let coeffs: Vec<f64> = (0..format(ty).series_terms).map(|k| if k % 2 == 0 { 1.0 } else { -1.0 } / f64::from(2 * k + 1)).collect();
        let p = self.poly(z, &coeffs, ty, loc)?;
        let a = self.b.binary(B::Multiply, t, p);
        let a = self.mul_c(a, 4.0, ty, loc)?;
        let pio2 = self.float_like(std::f64::consts::FRAC_PI_2, ty, loc)?;
        let rest = self.b.binary(B::Subtract, pio2, a);
        let a = self.b.select(big, rest, a);
        let a = self.copysign(a, x, ty);
        let nan = self.b.expr(Expression::Relational { fun: RelationalFunction::IsNan, argument: x });
        Ok(self.b.select(nan, x, a))
    }

    /// atan2(y, x) from atan(y / x) and the quadrant.
    fn atan2_64(&mut self, y: H, x: H, ty: &T, loc: Loc) -> R<H> {
        let q = self.b.binary(B::Divide, y, x);
        let a = self.atan64(q, ty, loc)?;
        let zero = self.float_like(0.0, ty, loc)?;
        let pi = self.float_like(std::f64::consts::PI, ty, loc)?;
        let pi = self.copysign(pi, y, ty);
        let shifted = self.b.binary(B::Add, a, pi);
        let x_neg = self.b.binary(B::Less, x, zero);
        let r = self.b.select(x_neg, shifted, a);
        // x = 0: ±π/2 (or ±0 when y is 0 too).
        let pio2 = self.float_like(std::f64::consts::FRAC_PI_2, ty, loc)?;
        let pio2 = self.copysign(pio2, y, ty);
        let x_zero = self.b.binary(B::Equal, x, zero);
        let y_zero = self.b.binary(B::Equal, y, zero);
        let at_zero = self.b.select(y_zero, y, pio2);
        Ok(self.b.select(x_zero, at_zero, r))
    }
}

#[derive(Clone, Copy)]
enum LogBase {
    E,
    Two,
    Ten,
}
