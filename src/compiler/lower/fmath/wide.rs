//! Extended precision (a value as the unevaluated sum hi + lo of two floats or doubles) for
//! pow (double pow, and float pow and tgamma on a device without double): pow is e^(y log x),
//! whose error is log's error magnified by |y log x| (up to 104 for float, 745 for double),
//! so y log x is formed to about 2^-35 absolute in float, 2^-64 in double; tgamma is
//! e^(Stirling's series), whose exponent reaches 88.
//!
//! The textbook error-free transformations (two-sum, Veltkamp's split) are algebraic
//! identities that drivers fold away (`(a + b) - a` → `b`), and a driver may reassociate sums
//! (lavapipe does: `(a - ga) + (f - gf)` became `(a + f) - (ga + gf)`), as SPIR-V allows for
//! operations without `NoContraction`, which naga cannot write. Here every split is one an
//! optimiser cannot see through (the upper mantissa bits by an integer mask, a fixed grid by
//! `round`; products of such halves and sums on the grid are exact in float), and each exact
//! remainder passes a bit-level barrier (xor with a run-time 0) before it joins a sum.

use super::{format, Ctx, H, R, T};
use crate::compiler::sema::model::WorkItemFn;
use crate::compiler::source::Loc;
use naga::{BinaryOperator as B, MathFunction as M, ScalarKind};

/// The grid of the exact part of log x: multiples of 2^-12 below 2^12 sum exactly in float,
/// multiples of 2^-40 below 2^11 in double.
fn grid(ty: &T) -> f64 {
    if format(ty).bytes == 8 { 2f64.powi(40) } else { 4096.0 }
}

/// Whether `hi` is finite.
fn finite_hi(cx: &mut Ctx<'_>, hi: H, ty: &T, loc: Loc) -> R<H> {
    let a = cx.b.math(M::Abs, &[hi]);
    let inf = cx.float_like(f64::INFINITY, ty, loc)?;
    Ok(cx.b.binary(B::Less, a, inf))
}

/// The mask of a value's upper half: 12 of float's 24 significant bits, 26 of double's 53,
/// so that the product of two upper halves is exact.
fn upper_half_mask(ty: &T) -> i64 {
    if format(ty).bytes == 8 { !((1i64 << 27) - 1) } else { 0xffff_f000 }
}

impl Ctx<'_> {
    /// `x` (of any arithmetic type) unchanged, behind an xor of its bits with a 0 the
    /// optimiser cannot see (`get_work_dim() >> 2`, work_dim being 1 to 3).
    pub(in crate::compiler::lower) fn barrier(&mut self, x: H, ty: &T, loc: Loc) -> R<H> {
        let dim = self.b.u32(0);
        let w = self.workitem.call(&self.abi, &mut self.b, WorkItemFn::WorkDim, dim);
        let two = self.b.u32(2);
        let zero = self.b.binary(B::ShiftRight, w, two);
        let element = ty.element().unwrap_or(crate::compiler::sema::model::Scalar::Float);
        let zero = if element.size() == 8 { self.b.cast(zero, ScalarKind::Uint, Some(8)) } else { zero };
        let zero = self.splat_to(zero, &crate::compiler::lower::intfn::unsigned_like(ty), loc)?;
        let bits = self.b.cast(x, ScalarKind::Uint, None);
        let bits = self.b.binary(B::ExclusiveOr, bits, zero);
        Ok(self.b.cast(bits, crate::compiler::lower::types::reg_scalar(element).kind, None))
    }

    /// `x - part` (exact by construction), behind a barrier.
    fn exact_rest(&mut self, x: H, part: H, ty: &T, loc: Loc) -> R<H> {
        let r = self.b.binary(B::Subtract, x, part);
        self.barrier(r, ty, loc)
    }

    /// x with the low half of its mantissa bits cleared (12 significant bits of float's, 26
    /// of double's), so that the product of two such values is exact, and x - hi_bits(x) is
    /// exact too.
    fn hi_bits(&mut self, x: H, ty: &T, loc: Loc) -> R<H> {
        let bits = self.b.cast(x, ScalarKind::Uint, None);
        let mask = self.int_like(upper_half_mask(ty), &crate::compiler::lower::intfn::unsigned_like(ty), loc)?;
        let h = self.b.binary(B::And, bits, mask);
        Ok(self.b.cast(h, ScalarKind::Float, None))
    }

    /// x rounded to the grid, and the (exact) rest.
    fn on_grid(&mut self, x: H, ty: &T, loc: Loc) -> R<(H, H)> {
        let scaled = self.mul_c(x, grid(ty), ty, loc)?;
        let r = self.b.math(M::Round, &[scaled]);
        let g = self.mul_c(r, 1.0 / grid(ty), ty, loc)?;
        Ok((g, self.exact_rest(x, g, ty, loc)?))
    }

    /// log x as hi + lo for positive finite x, hi on the grid: with x = 2^e (1 + f) (f exact),
    /// log x = e ln 2 + 2 atanh s = e ln 2 + 2s + s R, s = f / (2 + f), R = z (2/3 + 2/5 z +
    /// ...), z = s². s is carried as s_h + s_l: s_l from the remainder f - s_h (2 + f), formed
    /// from exact partial products; then only s R (under 1 % of log x) carries rounding
    /// errors, which pow magnifies by |y log x| (up to 745 in double).
    fn log_wide(&mut self, x: H, ty: &T, loc: Loc) -> R<(H, H)> {
        let (e, m) = self.split_exponent(x, ty, loc)?;
        let (one, two) = (self.float_like(1.0, ty, loc)?, self.float_like(2.0, ty, loc)?);
        let f = self.b.binary(B::Subtract, m, one);
        // d = 2 + f as d_h + d_l (d_l the exact rounding error; d_h behind a barrier so that
        // (2 - d_h) + f is not folded to 0).
        let d = self.b.binary(B::Add, two, f);
        let dh = self.barrier(d, ty, loc)?;
        let two_minus = self.b.binary(B::Subtract, two, dh);
        let dl = self.b.binary(B::Add, two_minus, f);
        let sh = self.b.binary(B::Divide, f, dh);
        let (a1, b1) = (self.hi_bits(sh, ty, loc)?, self.hi_bits(dh, ty, loc)?);
        let (a2, b2) = (self.exact_rest(sh, a1, ty, loc)?, self.exact_rest(dh, b1, ty, loc)?);
        let mut rem = f;
        for (p, q) in [(a1, b1), (a1, b2), (a2, b1), (a2, b2), (sh, dl)] {
            let pq = self.b.binary(B::Multiply, p, q);
            rem = self.b.binary(B::Subtract, rem, pq);
        }
        let sl = self.b.binary(B::Divide, rem, dh);
        let z = self.b.binary(B::Multiply, sh, sh);
        let coeffs: Vec<f64> = (1..format(ty).series_terms).map(|k| 2.0 / f64::from(2 * k + 1)).collect();
        let q = self.poly(z, &coeffs, ty, loc)?;
        let r = self.b.binary(B::Multiply, z, q);
        let c = self.b.binary(B::Multiply, sh, r);
        let two_sh = self.mul_c(sh, 2.0, ty, loc)?;
        let two_sl = self.mul_c(sl, 2.0, ty, loc)?;
        let [l2h, l2l] = format(ty).ln2;
        let (a, b) = (self.mul_c(e, l2h, ty, loc)?, self.mul_c(e, l2l, ty, loc)?);
        let ((ga, ra), (gs, rs)) = (self.on_grid(a, ty, loc)?, self.on_grid(two_sh, ty, loc)?);
        let hi = self.b.binary(B::Add, ga, gs);
        let lo = self.b.binary(B::Add, ra, rs);
        let tail = self.b.binary(B::Add, two_sl, c);
        let tail = self.b.binary(B::Add, tail, b);
        Ok((hi, self.b.binary(B::Add, lo, tail)))
    }

    /// e^(hi + lo): exp's reduction of hi (exact: k ln2's upper part has 16 bits in float,
    /// 33 in double), with lo added to the reduced argument. k comes from hi + lo: lo may
    /// be far from small (y times log's series part, 2 for pow(1.5, 300)).
    fn exp_wide(&mut self, hi: H, lo: H, ty: &T, loc: Loc) -> R<H> {
        let sum = self.b.binary(B::Add, hi, lo);
        let k = self.mul_c(sum, std::f64::consts::LOG2_E, ty, loc)?;
        let k = self.b.math(M::Round, &[k]);
        let [l2h, l2l] = format(ty).ln2;
        let kh = self.mul_c(k, l2h, ty, loc)?;
        let r = self.exact_rest(hi, kh, ty, loc)?;
        let kl = self.mul_c(k, l2l, ty, loc)?;
        let r = self.b.binary(B::Subtract, r, kl);
        let r = self.b.binary(B::Add, r, lo);
        let p = self.exp_poly(r, ty, loc)?;
        let e = self.scale(p, k, ty);
        // hi alone decides infinities and NaN (lo is 0 there).
        let finite = finite_hi(self, hi, ty, loc)?;
        let sum = self.b.select(finite, sum, hi);
        self.exp_limits(e, sum, format(ty).exp_limits, ty, loc)
    }

    /// 1/n for an integer n (i32, `nf` the same as a float or double) as y + y_lo, y_lo the
    /// rounding error of y: rootn's exponent 1/n must not lose its last bits, which log x
    /// magnifies. 1 - y n is formed from exact partial products (y's halves times n's upper
    /// and lower 16 bits).
    pub(super) fn reciprocal_wide(&mut self, n: H, nf: H, ty: &T, loc: Loc) -> R<(H, H)> {
        let one = self.float_like(1.0, ty, loc)?;
        let y = self.b.binary(B::Divide, one, nf);
        let a = self.hi_bits(y, ty, loc)?;
        let b = self.exact_rest(y, a, ty, loc)?;
        let ity = match ty {
            T::Vector(_, k) => T::Vector(crate::compiler::sema::model::Scalar::Int, *k),
            _ => T::Scalar(crate::compiler::sema::model::Scalar::Int),
        };
        let mask = self.int_like(!0xffff, &ity, loc)?;
        let n1 = self.b.binary(B::And, n, mask);
        let n2 = self.b.binary(B::Subtract, n, n1);
        let bytes = format(ty).bytes;
        let (n1, n2) = (self.b.cast(n1, ScalarKind::Float, Some(bytes)), self.b.cast(n2, ScalarKind::Float, Some(bytes)));
        let mut rem = one;
        for (p, q) in [(a, n1), (a, n2), (b, n1), (b, n2)] {
            let pq = self.b.binary(B::Multiply, p, q);
            rem = self.b.binary(B::Subtract, rem, pq);
        }
        Ok((y, self.b.binary(B::Divide, rem, nf)))
    }

    /// e^(y log ax) for ax ≥ 0 (or NaN); log ax = ±∞ or NaN where ax is 0, ∞ or NaN. `y_lo`
    /// extends y where it is a rounded value (rootn's 1/n).
    pub(super) fn exp_y_log_wide(&mut self, ax: H, y: H, y_lo: Option<H>, ty: &T, loc: Loc) -> R<H> {
        let (hi, lo) = self.log_wide(ax, ty, loc)?;
        let (zero, inf, ninf) = (self.float_like(0.0, ty, loc)?, self.float_like(f64::INFINITY, ty, loc)?, self.float_like(f64::NEG_INFINITY, ty, loc)?);
        let (pos, finite) = (self.b.binary(B::Greater, ax, zero), self.b.binary(B::Less, ax, inf));
        let regular = self.b.select(pos, finite, pos);
        let is_zero = self.b.binary(B::Equal, ax, zero);
        let special = self.b.select(is_zero, ninf, ax);
        let (hi, lo) = (self.b.select(regular, hi, special), self.b.select(regular, lo, zero));
        let extra = match y_lo {
            Some(yl) => {
                let e = self.b.binary(B::Multiply, yl, hi);
                self.b.select(regular, e, zero)
            }
            None => zero,
        };
        let r = self.exp_product(y, hi, lo, extra, ty, loc)?;
        // y = ±∞: ∞ or 0 by whether |x| > 1 (log x may be all in lo, and 0 ∞ is NaN); NaN
        // in, NaN out (the split of a NaN's bits may leave an infinity).
        let one = self.float_like(1.0, ty, loc)?;
        let (above, y_pos) = (self.b.binary(B::Greater, ax, one), self.b.binary(B::Greater, y, zero));
        let grows = self.b.binary(B::Equal, above, y_pos);
        let at_inf = self.b.select(grows, inf, zero);
        // Also for x = 0 or ∞, where a y flushed to 0 would make 0 ∞.
        let y_inf = self.is_inf(y);
        let x_inf = self.is_inf(ax);
        let y_inf = self.b.select(y_inf, y_inf, x_inf);
        let y_inf = self.b.select(is_zero, is_zero, y_inf);
        let r = self.b.select(y_inf, at_inf, r);
        let (xn, yn) = (self.is_nan(ax), self.is_nan(y));
        let any_nan = self.b.select(xn, xn, yn);
        let sum = self.b.binary(B::Add, ax, y);
        Ok(self.b.select(any_nan, sum, r))
    }

    /// e^(y (hi + lo) + extra) (extra small): the exact product of the upper halves of y and
    /// hi, plus the other (exact) partial products.
    fn exp_product(&mut self, y: H, hi: H, lo: H, extra: H, ty: &T, loc: Loc) -> R<H> {
        let (zero, inf) = (self.float_like(0.0, ty, loc)?, self.float_like(f64::INFINITY, ty, loc)?);
        let (yh, hh) = (self.hi_bits(y, ty, loc)?, self.hi_bits(hi, ty, loc)?);
        let (yl, hl) = (self.exact_rest(y, yh, ty, loc)?, self.exact_rest(hi, hh, ty, loc)?);
        let th = self.b.binary(B::Multiply, yh, hh);
        let mut tl = extra;
        for (a, b) in [(yh, hl), (yl, hh), (yl, hl), (y, lo)] {
            let p = self.b.binary(B::Multiply, a, b);
            tl = self.b.binary(B::Add, tl, p);
        }
        // An infinite or NaN exponent has no low part (∞ - ∞ would turn it into NaN).
        let ath = self.b.math(M::Abs, &[th]);
        let th_finite = self.b.binary(B::Less, ath, inf);
        let tl = self.b.select(th_finite, tl, zero);
        self.exp_wide(th, tl, ty, loc)
    }

    /// Γ(a) for a > 0 (∞ past 35.04): Stirling's formula at y = a + 10 below 10 (else y = a),
    /// e^((y - ½)(log y - 1) + ½ log 2π - ½ + S(y)) in extended precision, divided by
    /// a (a + 1) ... (a + 9); y's rounding yl comes back as the factor 1 + ψ(y) yl.
    pub(super) fn gamma_wide(&mut self, a: H, ty: &T, loc: Loc) -> R<H> {
        let (zero, one, ten) = (self.float_like(0.0, ty, loc)?, self.float_like(1.0, ty, loc)?, self.float_like(10.0, ty, loc)?);
        let small = self.b.binary(B::Less, a, ten);
        let shifted = self.b.binary(B::Add, a, ten);
        let y = self.b.select(small, shifted, a);
        let yl = self.exact_rest(y, ten, ty, loc)?;
        let yl = self.b.binary(B::Subtract, a, yl);
        let yl = self.b.select(small, yl, zero);
        let (hi, lo) = self.log_wide(y, ty, loc)?;
        let hi1 = self.b.binary(B::Subtract, hi, one);
        let u = self.float_like(0.5, ty, loc)?;
        let u = self.b.binary(B::Subtract, y, u);
        let c = self.float_like(0.5 * (2.0 * std::f64::consts::PI).ln() - 0.5, ty, loc)?;
        let series = self.stirling_series(y, ty, loc)?;
        let extra = self.b.binary(B::Add, c, series);
        let g = self.exp_product(u, hi1, lo, extra, ty, loc)?;
        // ψ(y) ≈ log y - 1/(2y).
        let half_inv = self.float_like(0.5, ty, loc)?;
        let half_inv = self.b.binary(B::Divide, half_inv, y);
        let psi = self.b.binary(B::Subtract, hi, half_inv);
        let dy = self.b.binary(B::Multiply, psi, yl);
        let corr = self.b.binary(B::Add, one, dy);
        let g = self.b.binary(B::Multiply, g, corr);
        let product = self.rising_product(a, ty, loc)?;
        let back = self.b.binary(B::Divide, g, product);
        Ok(self.b.select(small, back, g))
    }
}
