//! The special values of C99 Annex F and OpenCL C §7.5 that the approximations do not give by
//! themselves (infinite arguments of the trigonometric functions, exact multiples of ½ in the
//! `…pi` forms, signed zeros and infinities of atan2, powr's domain, rootn of zeros), and
//! asin/acos by their own series.

use super::{format, factorial_free_asin_series, Ctx, H, R, T};
use crate::compiler::source::Loc;
use naga::{BinaryOperator as B, Expression, MathFunction as M, RelationalFunction, UnaryOperator as U};

impl Ctx<'_> {
    pub(in crate::compiler::lower) fn is_nan(&mut self, x: H) -> H {
        self.b.expr(Expression::Relational { fun: RelationalFunction::IsNan, argument: x })
    }

    pub(in crate::compiler::lower) fn is_inf(&mut self, x: H) -> H {
        self.b.expr(Expression::Relational { fun: RelationalFunction::IsInf, argument: x })
    }

    /// Component-wise a && b, a || b (naga's logical operators take scalars only).
    pub(super) fn both(&mut self, a: H, b: H) -> H {
        self.b.select(a, b, a)
    }

    pub(super) fn either(&mut self, a: H, b: H) -> H {
        self.b.select(a, a, b)
    }

    /// `r`, or NaN where `x` is infinite (sin, cos and tan of ±∞).
    pub(super) fn nan_at_infinity(&mut self, r: H, x: H, ty: &T, loc: Loc) -> R<H> {
        let inf = self.is_inf(x);
        let nan = self.float_like(f64::NAN, ty, loc)?;
        Ok(self.b.select(inf, nan, r))
    }

    /// sinpi, cospi or tanpi of the sum `x = k/2 + t` (`k` whole, |t| ≤ ¼): the values at
    /// multiples of ½ (where t = 0) are given exactly with the signs of OpenCL C §7.5.1, and
    /// every |x| ≥ 2^(p+1) (an even integer) is treated as ±0.
    pub(super) fn trig_pi(&mut self, f: crate::compiler::sema::model::MathFn, x: H, ty: &T, loc: Loc) -> R<H> {
        use crate::compiler::sema::model::MathFn;
        let ax = self.b.math(M::Abs, &[x]);
        let even_only = self.float_like(2f64.powi(format(ty).mantissa_bits as i32 + 1), ty, loc)?;
        let huge = self.b.binary(B::GreaterEqual, ax, even_only);
        let zero = self.float_like(0.0, ty, loc)?;
        let signed_zero = self.copysign(zero, x, ty);
        let xx = self.b.select(huge, signed_zero, x);
        let two_x = self.mul_c(xx, 2.0, ty, loc)?;
        let k = self.b.math(M::Round, &[two_x]);
        let half_k = self.mul_c(k, 0.5, ty, loc)?;
        let t = self.b.binary(B::Subtract, xx, half_k);
        let r = self.mul_c(t, std::f64::consts::PI, ty, loc)?;
        // k mod 4, exact in floating point even for huge k.
        let quarter = self.mul_c(k, 0.25, ty, loc)?;
        let fl = self.b.math(M::Floor, &[quarter]);
        let four_fl = self.mul_c(fl, 4.0, ty, loc)?;
        let k4 = self.b.binary(B::Subtract, k, four_fl);
        let q = self.b.cast(k4, naga::ScalarKind::Sint, Some(4));
        let base = match f {
            MathFn::Sinpi => MathFn::Sin,
            MathFn::Cospi => MathFn::Cos,
            _ => MathFn::Tan,
        };
        let v = self.trig_eval(base, q, r, format(ty).trig, ty, loc)?;
        let exact = self.b.binary(B::Equal, t, zero);
        let at = |cx: &mut Self, n: f64| -> R<H> {
            let c = cx.float_like(n, ty, loc)?;
            Ok(cx.b.binary(B::Equal, k4, c))
        };
        let (k0, k1, k2, k3) = (at(self, 0.0)?, at(self, 1.0)?, at(self, 2.0)?, at(self, 3.0)?);
        let v = match f {
            // sinpi(n) = ±0 with the sign of n; cospi(n + ½) = +0.
            MathFn::Sinpi => {
                let even = self.either(k0, k2);
                let at_int = self.both(exact, even);
                self.b.select(at_int, signed_zero, v)
            }
            MathFn::Cospi => {
                let odd = self.either(k1, k3);
                let at_half = self.both(exact, odd);
                self.b.select(at_half, zero, v)
            }
            // tanpi(n) = ±0 with the sign of n for even n, of -n for odd n; tanpi(n + ½) = +∞
            // for even n, -∞ for odd n.
            _ => {
                let minus_zero = self.b.unary(U::Negate, signed_zero);
                let inf = self.float_like(f64::INFINITY, ty, loc)?;
                let ninf = self.float_like(f64::NEG_INFINITY, ty, loc)?;
                let exact_value = self.b.select(k0, signed_zero, minus_zero);
                let exact_value = self.b.select(k1, inf, exact_value);
                let exact_value = self.b.select(k3, ninf, exact_value);
                let _ = k2;
                self.b.select(exact, exact_value, v)
            }
        };
        self.nan_at_infinity(v, x, ty, loc)
    }

    /// atan2(y, x) in units where a half turn is `half_turn` (π for atan2, 1 for atan2pi),
    /// from atan(y / x) and the quadrant, with the signed zeros and infinities of Annex F.
    pub(super) fn atan2_turns(&mut self, y: H, x: H, half_turn: f64, ty: &T, loc: Loc) -> R<H> {
        let q = self.b.binary(B::Divide, y, x);
        let a = self.atan64(q, ty, loc)?;
        let a = if half_turn == 1.0 { self.mul_c(a, std::f64::consts::FRAC_1_PI, ty, loc)? } else { a };
        let turn = |cx: &mut Self, v: f64| -> R<H> {
            let c = cx.float_like(v * half_turn, ty, loc)?;
            Ok(cx.copysign(c, y, ty))
        };
        let zero = self.float_like(0.0, ty, loc)?;
        let pi = turn(self, 1.0)?;
        let shifted = self.b.binary(B::Add, a, pi);
        let x_neg = self.b.binary(B::Less, x, zero);
        let r = self.b.select(x_neg, shifted, a);
        // x = ±0: ±π/2, or for y = ±0 too: ±0 (x = +0) or ±π (x = -0).
        let pio2 = turn(self, 0.5)?;
        let x_zero = self.b.binary(B::Equal, x, zero);
        let y_zero = self.b.binary(B::Equal, y, zero);
        let x_minus = self.sign_bit_set(x, ty);
        let zeros = self.b.select(x_minus, pi, y);
        let at_zero = self.b.select(y_zero, zeros, pio2);
        let r = self.b.select(x_zero, at_zero, r);
        // Both infinite: ±π/4 (x = +∞) or ±3π/4 (x = -∞).
        let (quarter, three_quarters) = (turn(self, 0.25)?, turn(self, 0.75)?);
        let corner = self.b.select(x_neg, three_quarters, quarter);
        let (xi, yi) = (self.is_inf(x), self.is_inf(y));
        let both_inf = self.both(xi, yi);
        let r = self.b.select(both_inf, corner, r);
        let (xn, yn) = (self.is_nan(x), self.is_nan(y));
        let any_nan = self.either(xn, yn);
        let sum = self.b.binary(B::Add, x, y);
        Ok(self.b.select(any_nan, sum, r))
    }

    /// powr(x, y) = e^(y log x) for x ≥ 0: NaN for x < 0, powr(±0, ±0), powr(+∞, ±0) and
    /// powr(1, ±∞); ±0 and +∞ as bases follow from pow's values otherwise.
    pub(in crate::compiler::lower) fn powr_domain(&mut self, r: H, x: H, y: H, ty: &T, loc: Loc) -> R<H> {
        let (zero, one) = (self.float_like(0.0, ty, loc)?, self.float_like(1.0, ty, loc)?);
        let nan = self.float_like(f64::NAN, ty, loc)?;
        let negative = self.b.binary(B::Less, x, zero);
        let x_zero = self.b.binary(B::Equal, x, zero);
        let y_zero = self.b.binary(B::Equal, y, zero);
        let x_inf = self.is_inf(x);
        let y_inf = self.is_inf(y);
        let x_one = self.b.binary(B::Equal, x, one);
        let zero_or_inf = self.either(x_zero, x_inf);
        let a = self.both(zero_or_inf, y_zero);
        let b = self.both(x_one, y_inf);
        let bad = self.either(negative, a);
        let bad = self.either(bad, b);
        let r = self.b.select(bad, nan, r);
        // ±0 as a base gives +∞ for y < 0, +0 for y > 0; +∞ the reverse (stated here: pow
        // signs them for -0 and odd y, and a hardware pow may not know them).
        let inf = self.float_like(f64::INFINITY, ty, loc)?;
        let y_neg = self.b.binary(B::Less, y, zero);
        let y_pos = self.b.binary(B::Greater, y, zero);
        let y_nonzero = self.either(y_neg, y_pos);
        let at_zero = self.b.select(y_neg, inf, zero);
        let base_zero = self.both(x_zero, y_nonzero);
        let r = self.b.select(base_zero, at_zero, r);
        let at_inf = self.b.select(y_neg, zero, inf);
        let x_pos_inf = self.b.binary(B::Equal, x, inf);
        let base_inf = self.both(x_pos_inf, y_nonzero);
        let r = self.b.select(base_inf, at_inf, r);
        // NaN in, NaN out (pow gives 1 for 1^NaN and NaN^0).
        let (xn, yn) = (self.is_nan(x), self.is_nan(y));
        let any_nan = self.either(xn, yn);
        let sum = self.b.binary(B::Add, x, y);
        Ok(self.b.select(any_nan, sum, r))
    }

    /// rootn at ±0 (OpenCL C §7.5.1): ±∞ for odd n < 0, +∞ for even n < 0, ±0 for odd n > 0,
    /// +0 for even n > 0 (n = 0 stays NaN).
    pub(super) fn rootn_at_zero(&mut self, r: H, x: H, n: H, even: H, ty: &T, loc: Loc) -> R<H> {
        let zero = self.float_like(0.0, ty, loc)?;
        let inf = self.float_like(f64::INFINITY, ty, loc)?;
        let izero = self.b.i32(0);
        let izero = self.match_width(izero, ty);
        let n_neg = self.b.binary(B::Less, n, izero);
        let magnitude = self.b.select(n_neg, inf, zero);
        let signed = self.copysign(magnitude, x, ty);
        let value = self.b.select(even, magnitude, signed);
        let x_zero = self.b.binary(B::Equal, x, zero);
        let n_nonzero = self.b.binary(B::NotEqual, n, izero);
        let at_zero = self.both(x_zero, n_nonzero);
        Ok(self.b.select(at_zero, value, r))
    }

    /// asin (or acos) by the series of asin, which converges geometrically for |x| ≤ ½:
    /// asin x = x + x z P(z), z = x²; beyond, asin |x| = π/2 - 2 asin s and acos x = 2 asin s
    /// (x > 0) or π - 2 asin s (x < 0), s = √((1 - |x|)/2) ≤ ½, with 1 - |x| exact there.
    pub(super) fn asin_acos(&mut self, acos: bool, x: H, ty: &T, loc: Loc) -> R<H> {
        let coeffs = factorial_free_asin_series(format(ty).asin_terms);
        let series = |cx: &mut Self, v: H| -> R<H> {
            let z = cx.b.binary(B::Multiply, v, v);
            let p = cx.poly(z, &coeffs, ty, loc)?;
            let zp = cx.b.binary(B::Multiply, z, p);
            let vzp = cx.b.binary(B::Multiply, v, zp);
            Ok(cx.b.binary(B::Add, v, vzp))
        };
        let ax = self.b.math(M::Abs, &[x]);
        let (half, one) = (self.float_like(0.5, ty, loc)?, self.float_like(1.0, ty, loc)?);
        let d = self.b.binary(B::Subtract, one, ax);
        let h = self.b.binary(B::Multiply, d, half);
        let s = self.b.math(M::Sqrt, &[h]);
        let big = self.b.binary(B::Greater, ax, half);
        let arg = self.b.select(big, s, x);
        let a = series(self, arg)?;
        let two_a = self.mul_c(a, 2.0, ty, loc)?;
        // π/2 and π as hi + lo, so that the difference keeps its last bits.
        let pio2 = std::f64::consts::FRAC_PI_2;
        let (hi, lo) = if format(ty).bytes == 8 { (pio2, 6.123233995736766e-17) } else { (f64::from(pio2 as f32), pio2 - f64::from(pio2 as f32)) };
        let minus = |cx: &mut Self, scale: f64, v: H| -> R<H> {
            let h = cx.float_like(hi * scale, ty, loc)?;
            let l = cx.float_like(lo * scale, ty, loc)?;
            let d = cx.b.binary(B::Subtract, h, v);
            Ok(cx.b.binary(B::Add, d, l))
        };
        let r = if acos {
            let small = minus(self, 1.0, a)?;
            let from_pi = minus(self, 2.0, two_a)?;
            let zero = self.float_like(0.0, ty, loc)?;
            let neg = self.b.binary(B::Less, x, zero);
            let far = self.b.select(neg, from_pi, two_a);
            self.b.select(big, far, small)
        } else {
            let far = minus(self, 1.0, two_a)?;
            let far = self.copysign(far, x, ty);
            self.b.select(big, far, a)
        };
        // |x| > 1 is NaN (the square root gives it for the far branch only).
        let outside = self.b.binary(B::Greater, ax, one);
        let nan = self.float_like(f64::NAN, ty, loc)?;
        let r = self.b.select(outside, nan, r);
        let xn = self.is_nan(x);
        Ok(self.b.select(xn, x, r))
    }
}
