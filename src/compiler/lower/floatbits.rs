//! Float functions that work on the representation rather than approximate anything:
//! `ldexp`, `frexp`, `logb`/`ilogb`, `nextafter`, `nan`, `fdim`, `maxmag`/`minmag`,
//! `remainder`/`remquo`.

use super::{Ctx, LowerError, R};
use crate::compiler::sema::model::{MathFn, Precision, Scalar as S, Type as T};
use crate::compiler::source::Loc;
use naga::{BinaryOperator as B, Expression, Handle, MathFunction as M, ScalarKind};

type H = Handle<Expression>;

/// The functions implemented here.
pub fn handles(f: MathFn) -> bool {
    use MathFn::*;
    matches!(f, Ldexp | Frexp | FrexpExponent | Logb | Ilogb | Nextafter | Nan | Fdim | Maxmag | Minmag | Remainder | RemquoQuotient)
}

/// Width facts of a float type: bytes, mantissa bits, exponent bias, matching int types.
fn layout(ty: &T) -> (u8, u32, i64, S, S) {
    if ty.element() == Some(S::Double) {
        (8, 52, 1023, S::Long, S::ULong)
    } else {
        (4, 23, 127, S::Int, S::UInt)
    }
}

fn shaped(s: S, like: &T) -> T {
    match like {
        T::Vector(_, n) => T::Vector(s, *n),
        _ => T::Scalar(s),
    }
}

impl Ctx<'_> {
    /// `f(v)`; `arg_ty` is the type of the first argument, `ty` the result's.
    pub(super) fn float_bits_fn(&mut self, f: MathFn, v: &[H], arg_ty: &T, ty: &T, loc: Loc) -> R<H> {
        let x = *v.first().ok_or_else(|| LowerError::new(loc, "internal: missing argument"))?;
        let y = || v.get(1).copied().ok_or_else(|| LowerError::new(loc, "internal: missing argument"));
        Ok(match f {
            MathFn::Ldexp => self.ldexp_exact(x, y()?, arg_ty, loc)?,
            MathFn::Frexp | MathFn::FrexpExponent | MathFn::Logb | MathFn::Ilogb => self.exponent_fn(f, x, arg_ty, ty, loc)?,
            MathFn::Nextafter => self.nextafter(x, y()?, arg_ty, loc)?,
            MathFn::Nan => {
                // A quiet NaN carrying the code in its mantissa.
                let (bytes, mant, ..) = layout(ty);
                let quiet = if bytes == 8 { 0x7ff8_0000_0000_0000u64 } else { 0x7fc0_0000 };
                let mask = (1u64 << (mant - 1)) - 1;
                let uty = shaped(if bytes == 8 { S::ULong } else { S::UInt }, ty);
                let (mask, quiet) = (self.int_like(mask as i64, &uty, loc)?, self.int_like(quiet as i64, &uty, loc)?);
                let code = self.b.binary(B::And, x, mask);
                let bits = self.b.binary(B::InclusiveOr, code, quiet);
                self.b.cast(bits, ScalarKind::Float, None)
            }
            MathFn::Fdim => {
                let y = y()?;
                let d = self.b.binary(B::Subtract, x, y);
                let zero = self.float_like(0.0, arg_ty, loc)?;
                let gt = self.b.binary(B::Greater, x, y);
                let r = self.b.select(gt, d, zero);
                let (nx, ny) = (self.is_nan(x), self.is_nan(y));
                let r = self.b.select(ny, y, r);
                self.b.select(nx, x, r)
            }
            MathFn::Maxmag | MathFn::Minmag => {
                let y = y()?;
                let (ax, ay) = (self.b.math(M::Abs, &[x]), self.b.math(M::Abs, &[y]));
                let (first, second) = if f == MathFn::Maxmag { (ax, ay) } else { (ay, ax) };
                let x_wins = self.b.binary(B::Greater, first, second);
                let y_wins = self.b.binary(B::Greater, second, first);
                let tie = if f == MathFn::Maxmag { MathFn::Fmax } else { MathFn::Fmin };
                let t = self.math_fn(tie, Precision::Full, &[x, y], arg_ty, arg_ty, loc)?;
                let r = self.b.select(y_wins, y, t);
                self.b.select(x_wins, x, r)
            }
            MathFn::Remainder | MathFn::RemquoQuotient => {
                // n = rint(x / y); remainder = x - n y (one rounding, through fma).
                let y = y()?;
                let q = self.b.binary(B::Divide, x, y);
                let n = self.b.math(M::Round, &[q]);
                if f == MathFn::Remainder {
                    let nn = self.b.unary(naga::UnaryOperator::Negate, n);
                    let r = self.b.math(M::Fma, &[nn, y, x]);
                    // Finite x, infinite y: x (0 ∞ would make NaN).
                    let inf = self.float_like(f64::INFINITY, arg_ty, loc)?;
                    let ay = self.b.math(M::Abs, &[y]);
                    let y_inf = self.b.binary(B::Equal, ay, inf);
                    let ax = self.b.math(M::Abs, &[x]);
                    let x_finite = self.b.binary(B::Less, ax, inf);
                    let keep = self.b.select(y_inf, x_finite, y_inf);
                    self.b.select(keep, x, r)
                } else {
                    // The sign of x / y and the 7 low bits of |n|.
                    let an = self.b.math(M::Abs, &[n]);
                    let scaled = self.mul_c_bits(an, 1.0 / 128.0, arg_ty, loc)?;
                    let fl = self.b.math(M::Floor, &[scaled]);
                    let back = self.mul_c_bits(fl, 128.0, arg_ty, loc)?;
                    let low = self.b.binary(B::Subtract, an, back);
                    // y = 0 or infinite x: no quotient (0 rather than a NaN's conversion).
                    let zero = self.float_like(0.0, arg_ty, loc)?;
                    let undefined = self.is_nan(low);
                    let low = self.b.select(undefined, zero, low);
                    let low = self.b.cast(low, ScalarKind::Sint, Some(4));
                    let neg_low = self.b.unary(naga::UnaryOperator::Negate, low);
                    let neg = self.b.binary(B::Less, q, zero);
                    self.b.select(neg, neg_low, low)
                }
            }
            _ => return Err(LowerError::new(loc, "internal: not a float-bits function")),
        })
    }

    fn mul_c_bits(&mut self, x: H, c: f64, ty: &T, loc: Loc) -> R<H> {
        let c = self.float_like(c, ty, loc)?;
        Ok(self.b.binary(B::Multiply, x, c))
    }

    /// x 2^k in two steps so that neither exponent leaves `ldexp`'s defined range.
    pub(super) fn ldexp(&mut self, x: H, k: H, ty: &T) -> H {
        let (lo, hi) = (self.b.i32(-2400), self.b.i32(2400));
        let (lo, hi) = (self.match_width(lo, ty), self.match_width(hi, ty));
        let k = self.b.math(M::Clamp, &[k, lo, hi]);
        let one = self.b.u32(1);
        let one = self.match_width(one, ty);
        let k1 = self.b.binary(B::ShiftRight, k, one);
        let k2 = self.b.binary(B::Subtract, k, k1);
        let p = self.b.math(M::Ldexp, &[x, k1]);
        self.b.math(M::Ldexp, &[p, k2])
    }

    /// `ldexp(x, k)` as OpenCL C wants it: zeros, infinities and NaN unchanged (lavapipe's
    /// GLSL `Ldexp` made NaN of -∞), and a float result rounded once where it is subnormal
    /// (computed exactly in double, then converted).
    fn ldexp_exact(&mut self, x: H, k: H, ty: &T, loc: Loc) -> R<H> {
        let r = if ty.element() == Some(S::Float) && self.target.fp64 {
            let xd = self.b.cast(x, ScalarKind::Float, Some(8));
            let wide = shaped(S::Double, ty);
            let r = self.ldexp(xd, k, &wide);
            self.b.cast(r, ScalarKind::Float, Some(4))
        } else if ty.element() == Some(S::Double) {
            let r = self.ldexp(x, k, ty);
            self.ldexp_subnormal(x, k, r, ty, loc)?
        } else {
            self.ldexp(x, k, ty)
        };
        let zero = self.float_like(0.0, ty, loc)?;
        let is_zero = self.b.binary(B::Equal, x, zero);
        let a = self.b.math(M::Abs, &[x]);
        let inf = self.float_like(f64::INFINITY, ty, loc)?;
        let finite = self.b.binary(B::Less, a, inf);
        let keep = self.b.unary(naga::UnaryOperator::LogicalNot, finite);
        let keep = self.b.select(is_zero, is_zero, keep);
        // A zero stays the zero of its sign; so does a subnormal that a device flushing them
        // compares equal to 0 (itself would be a wrong result there).
        let signed_zero = self.copysign(zero, x, ty);
        let x = self.b.select(is_zero, signed_zero, x);
        Ok(self.b.select(keep, x, r))
    }

    /// `r` = ldexp(x, k) for doubles, with the results below 2^-1022 rounded to nearest even
    /// on the bits (lavapipe's arithmetic flushed them): x = m 2^q, m < 2^53, and the result's
    /// significand is m shifted right by -1074 - (q + k).
    fn ldexp_subnormal(&mut self, x: H, k: H, r: H, ty: &T, loc: Loc) -> R<H> {
        let (u64t, u32t, i32t) = (shaped(S::ULong, ty), shaped(S::UInt, ty), shaped(S::Int, ty));
        let bits = self.b.cast(x, ScalarKind::Uint, None);
        let abs_mask = self.int_like(i64::MAX, &u64t, loc)?;
        let a = self.b.binary(B::And, bits, abs_mask);
        let sign = self.b.binary(B::Subtract, bits, a);
        let k52 = self.u32_like(52, &u32t);
        let field = self.b.binary(B::ShiftRight, a, k52);
        let field = self.b.cast(field, ScalarKind::Sint, Some(4));
        let frac_mask = self.int_like((1 << 52) - 1, &u64t, loc)?;
        let frac = self.b.binary(B::And, a, frac_mask);
        let hidden = self.int_like(1 << 52, &u64t, loc)?;
        let izero = self.int_like(0, &i32t, loc)?;
        let normal = self.b.binary(B::NotEqual, field, izero);
        let with_hidden = self.b.binary(B::InclusiveOr, frac, hidden);
        let m = self.b.select(normal, with_hidden, frac);
        let ione = self.int_like(1, &i32t, loc)?;
        let field = self.b.math(M::Max, &[field, ione]);
        // q + k = field - 1075 + k (k clamped: beyond ±2400 the answer is 0 or ∞ anyway).
        let (lo, hi) = (self.int_like(-2400, &i32t, loc)?, self.int_like(2400, &i32t, loc)?);
        let k = self.b.math(M::Clamp, &[k, lo, hi]);
        let qk = self.b.binary(B::Add, field, k);
        let base = self.int_like(1075 - 1074, &i32t, loc)?;
        let shift = self.b.binary(B::Subtract, base, qk);
        // shift > 0 where the result is below 2^-1074 · m's scale; past 55 it is 0.
        let k63 = self.int_like(63, &i32t, loc)?;
        let sh = self.b.math(M::Clamp, &[shift, ione, k63]);
        let sh = self.b.cast(sh, ScalarKind::Uint, None);
        let kept = self.b.binary(B::ShiftRight, m, sh);
        let u1 = self.u32_like(1, &u32t);
        let below = self.b.binary(B::Subtract, sh, u1);
        let half_bit = self.b.binary(B::ShiftRight, m, below);
        let one64 = self.int_like(1, &u64t, loc)?;
        let half_bit = self.b.binary(B::And, half_bit, one64);
        let zero64 = self.int_like(0, &u64t, loc)?;
        let half = self.b.binary(B::NotEqual, half_bit, zero64);
        let low_mask = self.b.binary(B::ShiftLeft, one64, below);
        let low_mask = self.b.binary(B::Subtract, low_mask, one64);
        let rest = self.b.binary(B::And, m, low_mask);
        let rest = self.b.binary(B::NotEqual, rest, zero64);
        let odd = self.b.binary(B::And, kept, one64);
        let odd = self.b.binary(B::NotEqual, odd, zero64);
        let tie_up = self.b.select(rest, rest, odd);
        let up = self.b.select(half, tie_up, half);
        let step = self.b.select(up, one64, zero64);
        let kept = self.b.binary(B::Add, kept, step);
        let far = self.int_like(64, &i32t, loc)?;
        let gone = self.b.binary(B::GreaterEqual, shift, far);
        let kept = self.b.select(gone, zero64, kept);
        let bits = self.b.binary(B::InclusiveOr, kept, sign);
        let sub = self.b.cast(bits, ScalarKind::Float, None);
        // shift > 0: the result is below 2^-1022 (m < 2^53 units of 2^-1074, halved at least).
        let subnormal = self.b.binary(B::GreaterEqual, shift, ione);
        let r = self.b.select(subnormal, sub, r);
        // shift ≤ 0 with a subnormal x: exact, subnormal while m 2^-shift < 2^52.
        let left = self.b.unary(naga::UnaryOperator::Negate, shift);
        let k52i = self.int_like(52, &i32t, loc)?;
        let left_c = self.b.math(M::Clamp, &[left, izero, k52i]);
        let left_c = self.b.cast(left_c, ScalarKind::Uint, None);
        let moved = self.b.binary(B::ShiftLeft, m, left_c);
        let small = self.b.binary(B::Less, moved, hidden);
        let in_range = self.b.binary(B::LessEqual, left, k52i);
        let not_right = self.b.binary(B::LessEqual, shift, izero);
        let exact_sub = self.b.select(in_range, small, in_range);
        let exact_sub = self.b.select(not_right, exact_sub, not_right);
        // Only a subnormal x (m < 2^52) can stay subnormal without moving right.
        let subnormal_x = self.b.unary(naga::UnaryOperator::LogicalNot, normal);
        let exact_sub = self.b.select(exact_sub, subnormal_x, exact_sub);
        let moved = self.b.binary(B::InclusiveOr, moved, sign);
        let moved = self.b.cast(moved, ScalarKind::Float, None);
        Ok(self.b.select(exact_sub, moved, r))
    }

    /// frexp's mantissa or exponent, logb or ilogb of `x`.
    fn exponent_fn(&mut self, f: MathFn, x: H, arg_ty: &T, ty: &T, loc: Loc) -> R<H> {
        let (bytes, mant, bias, _, uint) = layout(arg_ty);
        let uty = shaped(uint, arg_ty);
        let ity = shaped(S::Int, arg_ty);
        // Subnormals: scale by 2^(mant + 2) first.
        let scale = mant as i32 + 2;
        let ax = self.b.math(M::Abs, &[x]);
        let min_normal = if bytes == 8 { f64::MIN_POSITIVE } else { f64::from(f32::MIN_POSITIVE) };
        let tiny_limit = self.float_like(min_normal, arg_ty, loc)?;
        let tiny = self.b.binary(B::Less, ax, tiny_limit);
        let factor = self.float_like(2f64.powi(scale), arg_ty, loc)?;
        let scaled = self.b.binary(B::Multiply, x, factor);
        let xs = self.b.select(tiny, scaled, x);
        let bits = self.b.cast(xs, ScalarKind::Uint, None);
        let shift = self.b.u32(mant);
        let shift = self.match_width(shift, arg_ty);
        let e_bits = self.b.binary(B::ShiftRight, bits, shift);
        let e_mask = self.int_like(if bytes == 8 { 0x7ff } else { 0xff }, &uty, loc)?;
        let e_bits = self.b.binary(B::And, e_bits, e_mask);
        let e = self.b.cast(e_bits, ScalarKind::Sint, Some(4));
        let (adj, none) = (self.int_like(i64::from(scale), &ity, loc)?, self.int_like(0, &ity, loc)?);
        let adj = self.b.select(tiny, adj, none);
        let bias_v = self.int_like(bias, &ity, loc)?;
        // Unbiased exponent with the mantissa in [1, 2).
        let e = self.b.binary(B::Subtract, e, bias_v);
        let e = self.b.binary(B::Subtract, e, adj);
        let zero = self.float_like(0.0, arg_ty, loc)?;
        let inf = self.float_like(f64::INFINITY, arg_ty, loc)?;
        let is_zero = self.b.binary(B::Equal, ax, zero);
        let is_inf = self.b.binary(B::Equal, ax, inf);
        let is_nan = self.is_nan(x);
        Ok(match f {
            MathFn::Frexp => {
                // Exponent field set to bias - 1: |m| in [0.5, 1).
                let keep = self.int_like(!(((1u64 << (bytes as u32 * 8 - 1 - mant)) - 1) << mant) as i64, &uty, loc)?;
                let half = self.int_like(((bias - 1) as u64 as i64) << mant, &uty, loc)?;
                let m = self.b.binary(B::And, bits, keep);
                let m = self.b.binary(B::InclusiveOr, m, half);
                let m = self.b.cast(m, ScalarKind::Float, None);
                let special = self.b.select(is_zero, is_zero, is_inf);
                let special = self.b.select(is_nan, is_nan, special);
                // (A subnormal that a flushing device compares equal to 0 gives 0.)
                let signed_zero = self.copysign(zero, x, arg_ty);
                let x = self.b.select(is_zero, signed_zero, x);
                self.b.select(special, x, m)
            }
            MathFn::FrexpExponent => {
                let one = self.int_like(1, &ity, loc)?;
                let e1 = self.b.binary(B::Add, e, one);
                let special = self.b.select(is_zero, is_zero, is_inf);
                let special = self.b.select(is_nan, is_nan, special);
                self.b.select(special, none, e1)
            }
            MathFn::Logb => {
                let ef = self.b.cast(e, ScalarKind::Float, Some(bytes));
                let ninf = self.float_like(f64::NEG_INFINITY, arg_ty, loc)?;
                let r = self.b.select(is_zero, ninf, ef);
                let r = self.b.select(is_inf, inf, r);
                self.b.select(is_nan, x, r)
            }
            _ => {
                // ilogb: FP_ILOGB0 = INT_MIN for 0, FP_ILOGBNAN = INT_MAX for NaN, INT_MAX for ∞.
                let (min, max) = (self.int_like(i64::from(i32::MIN), ty, loc)?, self.int_like(i64::from(i32::MAX), ty, loc)?);
                let r = self.b.select(is_zero, min, e);
                let r = self.b.select(is_inf, max, r);
                self.b.select(is_nan, max, r)
            }
        })
    }

    /// The representable neighbour of `x` toward `y`, by stepping the bits. Every comparison
    /// is on integers: a device that flushes float subnormals (NVIDIA) compares them equal to
    /// 0, which made a subnormal `x` step from zero and a subnormal `y` look equal to `x`.
    fn nextafter(&mut self, x: H, y: H, ty: &T, loc: Loc) -> R<H> {
        let (bytes, _, _, int, _) = layout(ty);
        let ity = shaped(int, ty);
        let min = self.int_like(if bytes == 8 { i64::MIN } else { i64::from(i32::MIN) }, &ity, loc)?;
        let zero = self.int_like(0, &ity, loc)?;
        // Sign-magnitude bits as a position on a line where neighbours differ by one (both
        // zeros at 0); the mapping is its own inverse.
        let line = |cx: &mut Self, v: H| {
            let neg = cx.b.binary(B::Less, v, zero);
            let flipped = cx.b.binary(B::Subtract, min, v);
            cx.b.select(neg, flipped, v)
        };
        let (ix, iy) = (self.b.cast(x, ScalarKind::Sint, None), self.b.cast(y, ScalarKind::Sint, None));
        let (lx, ly) = (line(self, ix), line(self, iy));
        let (one, minus_one) = (self.int_like(1, &ity, loc)?, self.int_like(-1, &ity, loc)?);
        let up = self.b.binary(B::Greater, ly, lx);
        let step = self.b.select(up, one, minus_one);
        let lr = self.b.binary(B::Add, lx, step);
        let bits = line(self, lr);
        // Stepping onto zero keeps the sign of x (-2^-149 toward 1 gives -0, as C's does).
        let sign = self.b.binary(B::And, ix, min);
        let at_zero = self.b.binary(B::Equal, lr, zero);
        let bits = self.b.select(at_zero, sign, bits);
        let r = self.b.cast(bits, ScalarKind::Float, None);
        let same = self.b.binary(B::Equal, lx, ly);
        let r = self.b.select(same, y, r);
        let (nx, ny) = (self.is_nan(x), self.is_nan(y));
        let r = self.b.select(ny, y, r);
        Ok(self.b.select(nx, x, r))
    }
}
