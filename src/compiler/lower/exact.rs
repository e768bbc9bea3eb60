//! `fma`, `fmod` and `remainder` on double, exact on the integer representation (float
//! `fmod` and `remainder` come here through double too). OpenCL requires them correctly
//! rounded, and drivers give neither: GLSL `Fma` is a rounded product and a sum on lavapipe
//! (Vulkan promises no more), and x - y trunc(x / y) rounds twice. Sign, exponent and the
//! 53-bit significand are taken apart into 64-bit integers; fma forms the 106-bit product in
//! two words, fmod reduces the significand by long division 11 bits at a time. Every
//! operation is component-wise, so vectors of up to 4 doubles go through unchanged.

use super::{Ctx, LowerError, R};
use crate::compiler::sema::model::{Scalar as S, Type as T};
use crate::compiler::source::Loc;
use naga::{BinaryOperator as B, Expression, Handle, MathFunction as M, RelationalFunction, ScalarKind, Statement};

type H = Handle<Expression>;

/// A 128-bit unsigned integer as its high and low 64-bit words.
#[derive(Clone, Copy)]
struct Wide {
    hi: H,
    lo: H,
}

/// The integer types of the shape of a double argument (scalar or vector).
struct Shape {
    u64: T,
    i64: T,
    u32: T,
    i32: T,
}

fn shape(ty: &T) -> Shape {
    let of = |s: S| match ty {
        T::Vector(_, n) => T::Vector(s, *n),
        _ => T::Scalar(s),
    };
    Shape { u64: of(S::ULong), i64: of(S::Long), u32: of(S::UInt), i32: of(S::Int) }
}

/// A finite double taken apart: |x| = m 2^q with m < 2^53, and the sign bit.
struct Parts {
    m: H,
    q: H,
    negative: H,
}

const MANTISSA: u64 = (1 << 52) - 1;
/// q of a value whose exponent field is 1 (and of every subnormal).
const MIN_Q: i64 = -1074;

impl Ctx<'_> {
    /// Correctly rounded x y + z; rounded to odd instead when `odd` (the last bit set where
    /// the result is inexact), so that a later rounding to float rounds once.
    pub(super) fn exact_fma(&mut self, x: H, y: H, z: H, ty: &T, odd: bool, loc: Loc) -> R<H> {
        let [x, y, z] = self.opaque([x, y, z], ty, loc)?;
        let sh = shape(ty);
        let (a, b, c) = (self.parts(x, &sh, loc)?, self.parts(y, &sh, loc)?, self.parts(z, &sh, loc)?);
        // Both operands of the sum normalised to bit 125 (two bits of headroom for the carry).
        let product = self.mul_wide(a.m, b.m, &sh, loc)?;
        let qp = self.b.binary(B::Add, a.q, b.q);
        let (p, ep) = self.normalize_wide(product, qp, &sh, loc)?;
        let zero64 = self.int_like(0, &sh.u64, loc)?;
        let (w, ew) = self.normalize_narrow(c.m, c.q, &sh, loc)?;
        // z = 0 takes no part: its exponent goes far below.
        let z_zero = self.b.binary(B::Equal, c.m, zero64);
        let far = self.int_like(-100_000, &sh.i32, loc)?;
        let ew = self.b.select(z_zero, far, ew);
        let product_negative = self.b.binary(B::NotEqual, a.negative, b.negative);
        // The larger in magnitude first.
        let (gt, eq) = (self.b.binary(B::Greater, ep, ew), self.b.binary(B::Equal, ep, ew));
        let p_ge = self.wide_less(p, w);
        let p_ge = self.b.unary(naga::UnaryOperator::LogicalNot, p_ge);
        let eq_ge = self.and(eq, p_ge);
        let p_big = self.or(gt, eq_ge);
        let big = self.select_wide(p_big, p, w);
        let small = self.select_wide(p_big, w, p);
        let eb = self.b.select(p_big, ep, ew);
        let es = self.b.select(p_big, ew, ep);
        let sign = self.b.select(p_big, product_negative, c.negative);
        let d = self.b.binary(B::Subtract, eb, es);
        let small = self.shift_right_sticky(small, d, &sh, loc)?;
        let subtract = self.b.binary(B::NotEqual, product_negative, c.negative);
        let sum = self.add_wide(big, small, &sh, loc)?;
        let diff = self.sub_wide(big, small, &sh, loc)?;
        let r = self.select_wide(subtract, diff, sum);
        let bits = self.round_wide(r, eb, odd, &sh, loc)?;
        // An exact zero is +0 in round to nearest.
        let is_zero = self.wide_is_zero(r, &sh, loc)?;
        let bits = self.b.select(is_zero, zero64, bits);
        let sign_bit = self.int_like(i64::MIN, &sh.u64, loc)?;
        let signed = self.b.binary(B::InclusiveOr, bits, sign_bit);
        let keep_sign = self.b.unary(naga::UnaryOperator::LogicalNot, is_zero);
        let keep_sign = self.and(keep_sign, sign);
        let bits = self.b.select(keep_sign, signed, bits);
        let exact = self.b.cast(bits, ScalarKind::Float, None);
        // Zeros, infinities and NaNs: the plain expression is right (x y is exact when x or
        // y is 0; otherwise the result is ±∞ or NaN exactly when an operand is), except that
        // finite x y + ±∞ is ±∞ even where x y overflows.
        let product = self.b.binary(B::Multiply, x, y);
        let plain = self.b.binary(B::Add, product, z);
        let factors_finite = self.all_finite(&[x, y], ty, loc)?;
        let z_inf = self.b.expr(Expression::Relational { fun: RelationalFunction::IsInf, argument: z });
        let z_wins = self.and(factors_finite, z_inf);
        let plain = self.b.select(z_wins, z, plain);
        let usable = self.all_finite(&[x, y, z], ty, loc)?;
        let (xz, yz) = (self.b.binary(B::Equal, a.m, zero64), self.b.binary(B::Equal, b.m, zero64));
        let zero_factor = self.or(xz, yz);
        let nonzero = self.b.unary(naga::UnaryOperator::LogicalNot, zero_factor);
        let usable = self.and(usable, nonzero);
        Ok(self.b.select(usable, exact, plain))
    }

    /// fmod(x, y) = x - n y with n = trunc(x / y), exactly.
    pub(super) fn exact_fmod(&mut self, x: H, y: H, ty: &T, loc: Loc) -> R<H> {
        Ok(self.fmod_quotient(x, y, ty, loc)?.0)
    }

    /// fmod(x, y) and the low 7 bits of trunc(|x / y|) (as u64), from the same long division.
    fn fmod_quotient(&mut self, x: H, y: H, ty: &T, loc: Loc) -> R<(H, H)> {
        let [x, y] = self.opaque([x, y], ty, loc)?;
        let sh = shape(ty);
        let (a, b) = (self.parts(x, &sh, loc)?, self.parts(y, &sh, loc)?);
        let zero64 = self.int_like(0, &sh.u64, loc)?;
        // |x| = mx 2^qx, |y| = my 2^qy with qx >= qy whenever |x| >= |y|: the remainder of
        // mx 2^(qx - qy) by my, times 2^qy.
        let y_zero = self.b.binary(B::Equal, b.m, zero64);
        let one = self.int_like(1, &sh.u64, loc)?;
        let divisor = self.b.select(y_zero, one, b.m);
        let start = self.b.binary(B::Modulo, a.m, divisor);
        let q0 = self.b.binary(B::Divide, a.m, divisor);
        let low7 = self.int_like(127, &sh.u64, loc)?;
        let q0 = self.b.binary(B::And, q0, low7);
        let d = self.b.binary(B::Subtract, a.q, b.q);
        let izero = self.int_like(0, &sh.i32, loc)?;
        let d = self.b.math(M::Max, &[d, izero]);
        let (uty, ity) = (self.naga_ty(&sh.u64, loc)?, self.naga_ty(&sh.i32, loc)?);
        let (rv, dv, qv) = (self.b.local("fmod_r", uty), self.b.local("fmod_d", ity), self.b.local("fmod_q", uty));
        let (rp, dp, qp) = (self.b.expr(Expression::LocalVariable(rv)), self.b.expr(Expression::LocalVariable(dv)), self.b.expr(Expression::LocalVariable(qv)));
        self.b.store(rp, start);
        self.b.store(dp, d);
        self.b.store(qp, q0);
        // Each step: r = (r 2^s) mod y with s <= 11, so r 2^s < 2^64.
        self.b.open();
        let (r, d) = (self.b.load(rp), self.b.load(dp));
        let more = self.b.binary(B::Greater, d, izero);
        let more_any = self.any(more, ty);
        let done = self.b.unary(naga::UnaryOperator::LogicalNot, more_any);
        self.b.if_else(done, |b| b.stmt(Statement::Break), |_| {});
        let eleven = self.int_like(11, &sh.i32, loc)?;
        let s = self.b.math(M::Min, &[d, eleven]);
        let su = self.b.cast(s, ScalarKind::Uint, None);
        let shifted = self.b.binary(B::ShiftLeft, r, su);
        let reduced = self.b.binary(B::Modulo, shifted, divisor);
        let r = self.b.select(more, reduced, r);
        // The quotient's low bits: q 2^s + the step's quotient.
        let q = self.b.load(qp);
        let step_q = self.b.binary(B::Divide, shifted, divisor);
        let q_moved = self.b.binary(B::ShiftLeft, q, su);
        let q_next = self.b.binary(B::Add, q_moved, step_q);
        let q_next = self.b.binary(B::And, q_next, low7);
        let q = self.b.select(more, q_next, q);
        let d = self.b.binary(B::Subtract, d, s);
        self.b.store(rp, r);
        self.b.store(dp, d);
        self.b.store(qp, q);
        let body = self.b.close();
        self.b.stmt(Statement::Loop { body, continuing: naga::Block::new(), break_if: None });
        let r = self.b.load(rp);
        // r < 2^53 converts exactly; r 2^qy is a multiple of 2^qy below |y|: representable.
        let rf = self.b.cast(r, ScalarKind::Float, Some(8));
        let mag = self.ldexp(rf, b.q, ty);
        let result = self.copysign(mag, x, ty);
        // |x| < |y| (x = 0 included): x; y = ±∞ with finite x: x; y = 0, x = ±∞ or NaN: NaN.
        let (ax, ay) = (self.b.math(M::Abs, &[x]), self.b.math(M::Abs, &[y]));
        let below = self.b.binary(B::Less, ax, ay);
        let result = self.b.select(below, x, result);
        let finite = self.all_finite(&[x], ty, loc)?;
        let valid = self.b.unary(naga::UnaryOperator::LogicalNot, y_zero);
        let valid = self.and(finite, valid);
        let nan = self.float_like(f64::NAN, ty, loc)?;
        let result = self.b.select(valid, result, nan);
        let y_nan = self.b.expr(Expression::Relational { fun: RelationalFunction::IsNan, argument: y });
        let q = self.b.load(qp);
        // |x| < |y|: a quotient of 0.
        let zero64 = self.int_like(0, &sh.u64, loc)?;
        let q = self.b.select(below, zero64, q);
        Ok((self.b.select(y_nan, y, result), q))
    }

    /// IEEE remainder: x - n y with n the integer nearest x / y (ties to even), exactly. From
    /// r = fmod(x, 2y): |r| past |y| means an odd quotient so far; then one more step of |y|
    /// where |r| passes |y| / 2 (or meets it with an odd quotient). Each step is exact.
    pub(super) fn exact_remainder(&mut self, x: H, y: H, ty: &T, loc: Loc) -> R<H> {
        Ok(self.remainder_quotient(x, y, ty, loc)?.0)
    }

    /// remquo's quotient: the sign of x / y and the low 7 bits of the n of remainder (x - n y
    /// with n nearest to x / y, ties to even), exactly (x / y rounded loses them past 2^53);
    /// 0 where the remainder is NaN.
    pub(super) fn exact_remquo_quotient(&mut self, x: H, y: H, ty: &T, loc: Loc) -> R<H> {
        let (r, n) = self.remainder_quotient(x, y, ty, loc)?;
        let sh = shape(ty);
        let n = self.b.cast(n, ScalarKind::Sint, Some(4));
        let neg_n = self.b.unary(naga::UnaryOperator::Negate, n);
        let (xs, ys) = (self.sign_bit_set(x, ty), self.sign_bit_set(y, ty));
        let negative = self.b.binary(B::NotEqual, xs, ys);
        let n = self.b.select(negative, neg_n, n);
        let nan = self.b.expr(Expression::Relational { fun: RelationalFunction::IsNan, argument: r });
        let zero = self.int_like(0, &sh.i32, loc)?;
        Ok(self.b.select(nan, zero, n))
    }

    /// remainder(x, y) and the low 7 bits of |n| (u64).
    fn remainder_quotient(&mut self, x: H, y: H, ty: &T, loc: Loc) -> R<(H, H)> {
        let [x, y] = self.opaque([x, y], ty, loc)?;
        let two = self.float_like(2.0, ty, loc)?;
        let y2 = self.b.binary(B::Multiply, y, two);
        let (r, n2) = self.fmod_quotient(x, y2, ty, loc)?;
        let (a, ay) = (self.b.math(M::Abs, &[r]), self.b.math(M::Abs, &[y]));
        let odd = self.b.binary(B::GreaterEqual, a, ay);
        let less = self.b.binary(B::Subtract, a, ay);
        let a = self.b.select(odd, less, a);
        let twice = self.b.binary(B::Multiply, a, two);
        let past = self.b.binary(B::Greater, twice, ay);
        let tie = self.b.binary(B::Equal, twice, ay);
        let tie = self.and(tie, odd);
        let step = self.or(past, tie);
        let stepped = self.b.binary(B::Subtract, a, ay);
        let a = self.b.select(step, stepped, a);
        let neg = self.b.unary(naga::UnaryOperator::Negate, a);
        let x_neg = self.sign_bit_set(x, ty);
        let result = self.b.select(x_neg, neg, a);
        // n = 2 n2 + (one y more: odd) + (one more: step).
        let sh = shape(ty);
        let (one, zero) = (self.int_like(1, &sh.u64, loc)?, self.int_like(0, &sh.u64, loc)?);
        let u1 = self.u32_like(1, &sh.u32);
        let n = self.b.binary(B::ShiftLeft, n2, u1);
        let add_odd = self.b.select(odd, one, zero);
        let add_step = self.b.select(step, one, zero);
        let n = self.b.binary(B::Add, n, add_odd);
        let n = self.b.binary(B::Add, n, add_step);
        let low7 = self.int_like(127, &sh.u64, loc)?;
        let n = self.b.binary(B::And, n, low7);
        // NaN operands, y = 0 and infinite x: fmod's NaN; infinite y: x.
        let special = self.b.expr(Expression::Relational { fun: RelationalFunction::IsNan, argument: r });
        Ok((self.b.select(special, r, result), n))
    }

    /// The operands behind an opaque xor: with constant operands naga's constant evaluator
    /// (re-run at specialisation) would meet what it cannot fold: math functions on f64,
    /// narrowing conversions of 64-bit values.
    fn opaque<const N: usize>(&mut self, v: [H; N], ty: &T, loc: Loc) -> R<[H; N]> {
        let mut out = v;
        for h in &mut out {
            *h = self.barrier(*h, ty, loc)?;
        }
        Ok(out)
    }

    /// Sign, significand and exponent of a double (meaningful for finite values).
    fn parts(&mut self, x: H, sh: &Shape, loc: Loc) -> R<Parts> {
        let bits = self.b.cast(x, ScalarKind::Uint, None);
        let (mask, hidden) = (self.int_like(MANTISSA as i64, &sh.u64, loc)?, self.int_like(1 << 52, &sh.u64, loc)?);
        let frac = self.b.binary(B::And, bits, mask);
        let k52 = self.u32_like(52, &sh.u32);
        let e = self.b.binary(B::ShiftRight, bits, k52);
        let emask = self.int_like(0x7ff, &sh.u64, loc)?;
        let e = self.b.binary(B::And, e, emask);
        let e = self.b.cast(e, ScalarKind::Sint, Some(4));
        let (izero, ione) = (self.int_like(0, &sh.i32, loc)?, self.int_like(1, &sh.i32, loc)?);
        let subnormal = self.b.binary(B::Equal, e, izero);
        let with_hidden = self.b.binary(B::InclusiveOr, frac, hidden);
        let m = self.b.select(subnormal, frac, with_hidden);
        let e = self.b.math(M::Max, &[e, ione]);
        let offset = self.int_like(MIN_Q - 1, &sh.i32, loc)?;
        let q = self.b.binary(B::Add, e, offset);
        let signed = self.b.cast(x, ScalarKind::Sint, None);
        let zero = self.int_like(0, &sh.i64, loc)?;
        let negative = self.b.binary(B::Less, signed, zero);
        Ok(Parts { m, q, negative })
    }

    /// The full product of two significands below 2^53, from 32-bit halves.
    fn mul_wide(&mut self, a: H, b: H, sh: &Shape, loc: Loc) -> R<Wide> {
        let low32 = self.int_like(0xffff_ffff, &sh.u64, loc)?;
        let k32 = self.u32_like(32, &sh.u32);
        let (a0, b0) = (self.b.binary(B::And, a, low32), self.b.binary(B::And, b, low32));
        let (a1, b1) = (self.b.binary(B::ShiftRight, a, k32), self.b.binary(B::ShiftRight, b, k32));
        let lo = self.b.binary(B::Multiply, a0, b0);
        // a1, b1 < 2^21: the middle sum stays below 2^54.
        let (m1, m2) = (self.b.binary(B::Multiply, a1, b0), self.b.binary(B::Multiply, a0, b1));
        let mid = self.b.binary(B::Add, m1, m2);
        let mid_lo = self.b.binary(B::ShiftLeft, mid, k32);
        let lo2 = self.b.binary(B::Add, lo, mid_lo);
        let carry = self.b.binary(B::Less, lo2, lo);
        let (one, zero) = (self.int_like(1, &sh.u64, loc)?, self.int_like(0, &sh.u64, loc)?);
        let carry = self.b.select(carry, one, zero);
        let hi = self.b.binary(B::Multiply, a1, b1);
        let mid_hi = self.b.binary(B::ShiftRight, mid, k32);
        let hi = self.b.binary(B::Add, hi, mid_hi);
        let hi = self.b.binary(B::Add, hi, carry);
        Ok(Wide { hi, lo: lo2 })
    }

    /// `v` shifted left to put its top bit at bit 125, and the exponent adjusted to match
    /// (v 2^e unchanged). Zero stays zero.
    fn normalize_wide(&mut self, v: Wide, e: H, sh: &Shape, loc: Loc) -> R<(Wide, H)> {
        let lz = self.clz_wide(v, sh, loc)?;
        let two = self.u32_like(2, &sh.u32);
        let at_least = self.b.math(M::Max, &[lz, two]);
        let s = self.b.binary(B::Subtract, at_least, two);
        let k127 = self.u32_like(127, &sh.u32);
        let s = self.b.math(M::Min, &[s, k127]);
        let shifted = self.shift_left(v, s, sh, loc)?;
        let si = self.b.cast(s, ScalarKind::Sint, None);
        Ok((shifted, self.b.binary(B::Subtract, e, si)))
    }

    /// `normalize_wide` of a value below 2^64 (the high word is not built: a constant 0 there
    /// would reach naga's constant evaluator, which cannot narrow 64-bit vectors).
    fn normalize_narrow(&mut self, m: H, e: H, sh: &Shape, loc: Loc) -> R<(Wide, H)> {
        let lz = self.clz64(m, &sh.u32);
        let k2 = self.u32_like(2, &sh.u32);
        let at_least = self.b.math(M::Max, &[lz, k2]);
        let s = self.b.binary(B::Subtract, at_least, k2);
        let hi = self.b.binary(B::ShiftLeft, m, s);
        let si = self.b.cast(s, ScalarKind::Sint, None);
        // m 2^e = (hi 2^64) 2^(e - s - 64).
        let k64 = self.int_like(64, &sh.i32, loc)?;
        let si = self.b.binary(B::Add, si, k64);
        let lo = self.int_like(0, &sh.u64, loc)?;
        Ok((Wide { hi, lo }, self.b.binary(B::Subtract, e, si)))
    }

    /// Leading zeros of a 64-bit integer (naga's 64-bit `CountLeadingZeros` is not usable), as
    /// `u32t`, the u32 type of its shape.
    pub(super) fn clz64(&mut self, x: H, u32t: &T) -> H {
        let k32 = self.u32_like(32, u32t);
        let hi = self.b.binary(B::ShiftRight, x, k32);
        let (hi, lo) = (self.b.cast(hi, ScalarKind::Uint, Some(4)), self.b.cast(x, ScalarKind::Uint, Some(4)));
        let (ch, cl) = (self.b.math(M::CountLeadingZeros, &[hi]), self.b.math(M::CountLeadingZeros, &[lo]));
        let zero = self.u32_like(0, u32t);
        let hi_zero = self.b.binary(B::Equal, hi, zero);
        let more = self.b.binary(B::Add, cl, k32);
        self.b.select(hi_zero, more, ch)
    }

    fn clz_wide(&mut self, v: Wide, sh: &Shape, loc: Loc) -> R<H> {
        let (ch, cl) = (self.clz64(v.hi, &sh.u32), self.clz64(v.lo, &sh.u32));
        let zero = self.int_like(0, &sh.u64, loc)?;
        let hi_zero = self.b.binary(B::Equal, v.hi, zero);
        let k64 = self.u32_like(64, &sh.u32);
        let more = self.b.binary(B::Add, cl, k64);
        Ok(self.b.select(hi_zero, more, ch))
    }

    /// v << s for s in [0, 127] (u32).
    fn shift_left(&mut self, v: Wide, s: H, sh: &Shape, loc: Loc) -> R<Wide> {
        let (hi, lo) = self.shift(v.hi, v.lo, s, B::ShiftLeft, B::ShiftRight, sh, loc)?;
        Ok(Wide { hi, lo })
    }

    /// v >> d for d in [0, 127] (u32).
    fn shift_right(&mut self, v: Wide, d: H, sh: &Shape, loc: Loc) -> R<Wide> {
        let (lo, hi) = self.shift(v.lo, v.hi, d, B::ShiftRight, B::ShiftLeft, sh, loc)?;
        Ok(Wide { hi, lo })
    }

    /// A two-word shift by s in [0, 127] toward the word `near` (`op`), bits crossing from
    /// `far` by the opposite shift `back_op`; the new (near, far).
    #[allow(clippy::too_many_arguments)]
    fn shift(&mut self, near: H, far: H, s: H, op: B, back_op: B, sh: &Shape, loc: Loc) -> R<(H, H)> {
        let (k63, k64) = (self.u32_like(63, &sh.u32), self.u32_like(64, &sh.u32));
        let zero = self.int_like(0, &sh.u64, loc)?;
        let sm = self.b.binary(B::And, s, k63);
        // Below 64: the top bits of `far` cross over (none when the shift is 0, where the
        // crossing shift would be 64).
        let back = self.b.binary(B::Subtract, k64, sm);
        let back = self.b.binary(B::And, back, k63);
        let spill = self.b.binary(back_op, far, back);
        let u0 = self.u32_like(0, &sh.u32);
        let s_zero = self.b.binary(B::Equal, sm, u0);
        let spill = self.b.select(s_zero, zero, spill);
        let moved = self.b.binary(op, near, sm);
        let moved = self.b.binary(B::InclusiveOr, moved, spill);
        let far = self.b.binary(op, far, sm);
        // From 64 on, `far` lands in `near` and leaves zeros.
        let big = self.b.binary(B::GreaterEqual, s, k64);
        Ok((self.b.select(big, far, moved), self.b.select(big, zero, far)))
    }

    /// Whether any of the `d` low bits of v is set, d in [0, 127] (u32).
    fn low_bits_set(&mut self, v: Wide, d: H, sh: &Shape, loc: Loc) -> R<H> {
        let (k63, k64) = (self.u32_like(63, &sh.u32), self.u32_like(64, &sh.u32));
        let (zero, one) = (self.int_like(0, &sh.u64, loc)?, self.int_like(1, &sh.u64, loc)?);
        // (1 << (d mod 64)) - 1 masks the low word below 64, the high word from 64.
        let sm = self.b.binary(B::And, d, k63);
        let bit = self.b.binary(B::ShiftLeft, one, sm);
        let mask = self.b.binary(B::Subtract, bit, one);
        let lo_part = self.b.binary(B::And, v.lo, mask);
        let hi_part = self.b.binary(B::And, v.hi, mask);
        let big_bits = self.b.binary(B::InclusiveOr, hi_part, v.lo);
        let big = self.b.binary(B::GreaterEqual, d, k64);
        let bits = self.b.select(big, big_bits, lo_part);
        Ok(self.b.binary(B::NotEqual, bits, zero))
    }

    /// v >> d for an i32 d >= 0, with every bit shifted out or-ed into bit 0 (sticky).
    fn shift_right_sticky(&mut self, v: Wide, d: H, sh: &Shape, loc: Loc) -> R<Wide> {
        let limit = self.int_like(127, &sh.i32, loc)?;
        let clamped = self.b.math(M::Min, &[d, limit]);
        let du = self.b.cast(clamped, ScalarKind::Uint, None);
        let shifted = self.shift_right(v, du, sh, loc)?;
        let lost = self.low_bits_set(v, du, sh, loc)?;
        // Past 127 nothing is left but the sticky bit.
        let all = self.b.binary(B::Greater, d, limit);
        let zero = self.int_like(0, &sh.u64, loc)?;
        let nonzero = self.wide_is_zero(v, sh, loc)?;
        let nonzero = self.b.unary(naga::UnaryOperator::LogicalNot, nonzero);
        let lost = self.b.select(all, nonzero, lost);
        let one = self.int_like(1, &sh.u64, loc)?;
        let bit = self.b.select(lost, one, zero);
        let (hi, lo) = (self.b.select(all, zero, shifted.hi), self.b.select(all, zero, shifted.lo));
        Ok(Wide { hi, lo: self.b.binary(B::InclusiveOr, lo, bit) })
    }

    fn add_wide(&mut self, a: Wide, b: Wide, sh: &Shape, loc: Loc) -> R<Wide> {
        let lo = self.b.binary(B::Add, a.lo, b.lo);
        let carry = self.b.binary(B::Less, lo, a.lo);
        let (one, zero) = (self.int_like(1, &sh.u64, loc)?, self.int_like(0, &sh.u64, loc)?);
        let carry = self.b.select(carry, one, zero);
        let hi = self.b.binary(B::Add, a.hi, b.hi);
        Ok(Wide { hi: self.b.binary(B::Add, hi, carry), lo })
    }

    /// a - b for a >= b.
    fn sub_wide(&mut self, a: Wide, b: Wide, sh: &Shape, loc: Loc) -> R<Wide> {
        let lo = self.b.binary(B::Subtract, a.lo, b.lo);
        let borrow = self.b.binary(B::Less, a.lo, b.lo);
        let (one, zero) = (self.int_like(1, &sh.u64, loc)?, self.int_like(0, &sh.u64, loc)?);
        let borrow = self.b.select(borrow, one, zero);
        let hi = self.b.binary(B::Subtract, a.hi, b.hi);
        Ok(Wide { hi: self.b.binary(B::Subtract, hi, borrow), lo })
    }

    /// a < b as unsigned 128-bit numbers.
    fn wide_less(&mut self, a: Wide, b: Wide) -> H {
        let hl = self.b.binary(B::Less, a.hi, b.hi);
        let he = self.b.binary(B::Equal, a.hi, b.hi);
        let ll = self.b.binary(B::Less, a.lo, b.lo);
        let low = self.and(he, ll);
        self.or(hl, low)
    }

    fn wide_is_zero(&mut self, v: Wide, sh: &Shape, loc: Loc) -> R<H> {
        let any = self.b.binary(B::InclusiveOr, v.hi, v.lo);
        let zero = self.int_like(0, &sh.u64, loc)?;
        Ok(self.b.binary(B::Equal, any, zero))
    }

    fn select_wide(&mut self, c: H, a: Wide, b: Wide) -> Wide {
        Wide { hi: self.b.select(c, a.hi, b.hi), lo: self.b.select(c, a.lo, b.lo) }
    }

    /// The bits of r 2^e (r != 0, below 2^127) rounded to the nearest double, ties to even,
    /// sign bit clear; +∞ past the largest.
    fn round_wide(&mut self, r: Wide, e: H, odd_mode: bool, sh: &Shape, loc: Loc) -> R<H> {
        // Top bit t; keep 53 bits, or fewer where the result is subnormal (its last bit
        // weighs 2^-1074): drop = max(t - 52, -1074 - e) bits.
        let lz = self.clz_wide(r, sh, loc)?;
        let lz = self.b.cast(lz, ScalarKind::Sint, None);
        let k75 = self.int_like(127 - 52, &sh.i32, loc)?;
        let by_top = self.b.binary(B::Subtract, k75, lz);
        let min_q = self.int_like(MIN_Q, &sh.i32, loc)?;
        let by_range = self.b.binary(B::Subtract, min_q, e);
        let drop = self.b.math(M::Max, &[by_top, by_range]);
        let (izero, ione) = (self.int_like(0, &sh.i32, loc)?, self.int_like(1, &sh.i32, loc)?);
        let (one, zero) = (self.int_like(1, &sh.u64, loc)?, self.int_like(0, &sh.u64, loc)?);
        // drop <= 0: r has at most 53 bits (in lo), moved up exactly.
        let up = self.b.unary(naga::UnaryOperator::Negate, drop);
        let k63 = self.int_like(63, &sh.i32, loc)?;
        let up = self.b.math(M::Clamp, &[up, izero, k63]);
        let up = self.b.cast(up, ScalarKind::Uint, None);
        let exact = self.b.binary(B::ShiftLeft, r.lo, up);
        // drop in [1, 127]: the kept bits, rounded up when the half bit is set and either a
        // lower bit is or the kept value is odd.
        let k127 = self.int_like(127, &sh.i32, loc)?;
        let down = self.b.math(M::Clamp, &[drop, ione, k127]);
        let down = self.b.cast(down, ScalarKind::Uint, None);
        let kept = self.shift_right(r, down, sh, loc)?.lo;
        let u1 = self.u32_like(1, &sh.u32);
        let below = self.b.binary(B::Subtract, down, u1);
        let half = self.shift_right(r, below, sh, loc)?.lo;
        let half = self.b.binary(B::And, half, one);
        let half = self.b.binary(B::NotEqual, half, zero);
        let rest = self.low_bits_set(r, below, sh, loc)?;
        let odd = self.b.binary(B::And, kept, one);
        let odd = self.b.binary(B::NotEqual, odd, zero);
        let rounded = if odd_mode {
            let inexact = self.or(half, rest);
            let sticky = self.b.select(inexact, one, zero);
            self.b.binary(B::InclusiveOr, kept, sticky)
        } else {
            let tie_up = self.or(rest, odd);
            let round_up = self.and(half, tie_up);
            let inc = self.b.select(round_up, one, zero);
            self.b.binary(B::Add, kept, inc)
        };
        let dropping = self.b.binary(B::Greater, drop, izero);
        let m = self.b.select(dropping, rounded, exact);
        // Past 127 (t <= 126): below half the smallest subnormal, 0.
        let vanish = self.b.binary(B::Greater, drop, k127);
        let m = self.b.select(vanish, zero, m);
        // bits = ((e + drop + 1074) << 52) + m: m's 2^52 bit adds the 1 of the exponent field,
        // a carry to 2^53 moves to the next binade, subnormals have a field of 0.
        let q = self.b.binary(B::Add, e, drop);
        let bias = self.int_like(-MIN_Q, &sh.i32, loc)?;
        let field = self.b.binary(B::Add, q, bias);
        let field = self.b.math(M::Max, &[field, izero]);
        let largest = self.int_like(2046, &sh.i32, loc)?;
        let overflow = self.b.binary(B::GreaterEqual, field, largest);
        let field = self.b.cast(field, ScalarKind::Uint, Some(8));
        let k52 = self.u32_like(52, &sh.u32);
        let field = self.b.binary(B::ShiftLeft, field, k52);
        let bits = self.b.binary(B::Add, field, m);
        let inf = self.int_like(0x7ff0_0000_0000_0000, &sh.u64, loc)?;
        Ok(self.b.select(overflow, inf, bits))
    }

    /// True where every one of `values` is finite.
    fn all_finite(&mut self, values: &[H], ty: &T, loc: Loc) -> R<H> {
        let inf = self.float_like(f64::INFINITY, ty, loc)?;
        let mut acc = None;
        for &v in values {
            let a = self.b.math(M::Abs, &[v]);
            let f = self.b.binary(B::Less, a, inf);
            acc = Some(match acc {
                Some(p) => self.and(p, f),
                None => f,
            });
        }
        acc.ok_or_else(|| LowerError::new(loc, "internal: no operands"))
    }

    /// Component-wise `a && b` and `a || b` (naga's logical operators take scalars only).
    fn and(&mut self, a: H, b: H) -> H {
        self.b.select(a, b, a)
    }

    fn or(&mut self, a: H, b: H) -> H {
        self.b.select(a, a, b)
    }

    /// One boolean from a condition of the shape of `ty`: true if any component is.
    fn any(&mut self, c: H, ty: &T) -> H {
        match ty {
            T::Vector(..) => self.b.expr(Expression::Relational { fun: RelationalFunction::Any, argument: c }),
            _ => c,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::compiler::lower::tests::target;
    use crate::compiler::spirv::tests::spirv_val;
    use crate::compiler::build;

    #[test]
    fn valid_for_scalars_and_every_vector_width() {
        for ty in ["float16", "float4", "double", "double2", "double3", "double4", "double8"] {
            let mut src = format!("kernel void k(global {ty} *o) {{ o[0] = fma(o[1], o[2], o[3]); o[4] = fmod(o[5], o[6]); o[7] = remainder(o[8], o[9]);");
            // Constant operands too: naga folds them at specialisation. (Not for double8:
            // naga cannot fold any math function on f64, fabs included, and a constant
            // double8 reaches the functions as a constant.)
            if ty != "double8" {
                src += &format!("o[10] = fma(({ty})1.5, ({ty})3.0, ({ty})0.25); o[11] = fmod(({ty})7.5, ({ty})2.0); o[12] = remainder(({ty})7.5, ({ty})2.0); o[13] = remainder(o[5], ({ty})1.5);");
            }
            src += "}";
            let (_, p) = build(&src, "", &target()).unwrap_or_else(|e| panic!("{ty}: {e:?}"));
            for k in &p.kernels {
                spirv_val(&k.specialize([32, 1, 1], &[], &[]).unwrap_or_else(|e| panic!("{ty}: {e}")));
            }
        }
    }
}
