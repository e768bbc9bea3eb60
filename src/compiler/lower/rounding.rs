//! Conversions to `float` and `double` in the directed rounding modes (`convert_float_rtz`,
//! `convert_double_rtp`, ...). Vulkan converts to floating point rounding to nearest and naga
//! cannot ask for another mode, so where such a conversion can be inexact (32/64-bit integers
//! to float, 64-bit integers to double, double to float) the result is built from the integer
//! representation: the magnitude truncated to the target's precision, plus one unit in the
//! last place when bits were dropped and the mode rounds away from zero for the value's sign
//! (rtp for positive values, rtn for negative ones). Only integer operations and exact float
//! ones are used, so the result does not depend on how the device treats subnormals or rounds.

use super::{Ctx, R};
use crate::compiler::sema::model::{Rounding, Scalar as S, Type as T};
use crate::compiler::source::Loc;
use naga::{BinaryOperator as B, Expression, Handle, MathFunction as M, ScalarKind};

type H = Handle<Expression>;

fn shaped(s: S, like: &T) -> T {
    match like {
        T::Vector(_, n) => T::Vector(s, *n),
        _ => T::Scalar(s),
    }
}

/// Whether converting a value of `from` to `to` can be inexact: the source has more
/// significant bits than the target's significand holds.
fn can_round(from: S, to: S) -> bool {
    let precision = if to == S::Double { 53 } else { 24 };
    match from {
        S::Double => to != S::Double,
        S::Float | S::Half => false,
        s if s.is_integer() => s.size() * 8 - u32::from(s.is_signed()) > precision,
        _ => false,
    }
}

impl Ctx<'_> {
    /// `v` (of `from`) converted to the float or double type `to` in a directed rounding
    /// mode; `None` where the hardware's conversion is the answer (an exact conversion, or
    /// rounding to nearest).
    pub(super) fn convert_directed(&mut self, v: H, from: &T, to: &T, rounding: Rounding, loc: Loc) -> R<Option<H>> {
        let (Some(fs), Some(ts)) = (from.element(), to.element()) else { return Ok(None) };
        if !matches!(rounding, Rounding::Rtz | Rounding::Rtp | Rounding::Rtn) || !matches!(ts, S::Float | S::Double) || !can_round(fs, ts) {
            return Ok(None);
        }
        // A constant operand would reach naga's constant evaluator at specialisation, which
        // cannot narrow 64-bit vectors.
        let v = self.barrier(v, from, loc)?;
        Ok(Some(if fs == S::Double { self.double_to_float_directed(v, from, rounding, loc)? } else { self.int_to_float_directed(v, fs, from, ts, rounding, loc)? }))
    }

    /// Where a magnitude truncated toward zero must be one unit larger: it was inexact and the
    /// mode rounds away from zero for this sign.
    fn rounds_up(&mut self, inexact: H, negative: H, rounding: Rounding, like: &T, loc: Loc) -> R<H> {
        let never = self.bool_like(false, like, loc)?;
        Ok(match rounding {
            Rounding::Rtp => self.b.select(negative, never, inexact),
            Rounding::Rtn => self.b.select(negative, inexact, never),
            _ => never,
        })
    }

    fn bool_like(&mut self, b: bool, like: &T, loc: Loc) -> R<H> {
        let l = self.b.expr(Expression::Literal(naga::Literal::Bool(b)));
        self.splat_to(l, like, loc)
    }

    /// A 32/64-bit integer (scalar or vector of up to 4) to float or double.
    fn int_to_float_directed(&mut self, v: H, fs: S, from: &T, ts: S, rounding: Rounding, loc: Loc) -> R<H> {
        let wide = fs.size() == 8;
        let (ut, u32t) = (shaped(if wide { S::ULong } else { S::UInt }, from), shaped(S::UInt, from));
        let bits = self.b.cast(v, ScalarKind::Uint, None);
        let zero = self.int_like(0, &ut, loc)?;
        let negative = if fs.is_signed() {
            let szero = self.int_like(0, from, loc)?;
            self.b.binary(B::Less, v, szero)
        } else {
            self.bool_like(false, from, loc)?
        };
        // |v| as unsigned: 0 - v wraps INT_MIN to 2^31, its magnitude.
        let minus = self.b.binary(B::Subtract, zero, bits);
        let mag = self.b.select(negative, minus, bits);
        let lz = if wide { self.clz64(mag, &u32t) } else { self.b.math(M::CountLeadingZeros, &[mag]) };
        // Bits below the target's precision: (width - precision) - lz where positive.
        let spare = fs.size() * 8 - if ts == S::Double { 53 } else { 24 };
        let spare = self.u32_like(spare, &u32t);
        let dropped = self.b.binary(B::Subtract, spare, lz);
        let some = self.b.binary(B::Less, lz, spare);
        let none = self.u32_like(0, &u32t);
        let drop = self.b.select(some, dropped, none);
        let kept = self.b.binary(B::ShiftRight, mag, drop);
        let back = self.b.binary(B::ShiftLeft, kept, drop);
        let inexact = self.b.binary(B::NotEqual, back, mag);
        let up = self.rounds_up(inexact, negative, rounding, from, loc)?;
        let one = self.int_like(1, &ut, loc)?;
        let step = self.b.select(up, one, zero);
        let kept = self.b.binary(B::Add, kept, step);
        // kept ≤ 2^precision converts exactly; 2^drop is built from its exponent field.
        let tw = if ts == S::Double { 8 } else { 4 };
        let f = self.b.cast(kept, ScalarKind::Float, Some(tw));
        let tt = shaped(ts, from);
        let scale = self.power_of_two(drop, &tt, loc)?;
        let f = self.b.binary(B::Multiply, f, scale);
        let minus_f = self.b.unary(naga::UnaryOperator::Negate, f);
        Ok(self.b.select(negative, minus_f, f))
    }

    /// 2^e for a u32 `e` of at most 64, as the float or double type `ty`.
    fn power_of_two(&mut self, e: H, ty: &T, loc: Loc) -> R<H> {
        let double = ty.element() == Some(S::Double);
        let (bias, mantissa) = if double { (1023, 52) } else { (127, 23) };
        let e = if double { self.b.cast(e, ScalarKind::Uint, Some(8)) } else { e };
        let ut = shaped(if double { S::ULong } else { S::UInt }, ty);
        let bias = self.int_like(bias, &ut, loc)?;
        let field = self.b.binary(B::Add, e, bias);
        let k = self.u32_like(mantissa, &shaped(S::UInt, ty));
        let bits = self.b.binary(B::ShiftLeft, field, k);
        Ok(self.b.cast(bits, ScalarKind::Float, None))
    }

    /// A double (scalar or vector of up to 4) to float, on its bits: the float bits of the
    /// magnitude truncated, then rounded away from zero where the mode asks. NaN and the
    /// infinities are the hardware's conversion.
    fn double_to_float_directed(&mut self, d: H, from: &T, rounding: Rounding, loc: Loc) -> R<H> {
        let (u64t, u32t) = (shaped(S::ULong, from), shaped(S::UInt, from));
        let bits = self.b.cast(d, ScalarKind::Uint, None);
        let abs_mask = self.int_like((u64::MAX >> 1) as i64, &u64t, loc)?;
        let a = self.b.binary(B::And, bits, abs_mask);
        let negative = self.b.binary(B::NotEqual, a, bits);
        let k52 = self.u32_like(52, &u32t);
        let e = self.b.binary(B::ShiftRight, a, k52);
        // Float exponents from 1 up: the float bits are those of the double shifted right by
        // 29 (52 - 23) less the difference of the biases; beyond FLT_MAX they stop there.
        let k29 = self.u32_like(29, &u32t);
        let shifted = self.b.binary(B::ShiftRight, a, k29);
        let rebias = self.int_like((1023 - 127) << 23, &u64t, loc)?;
        let t_normal = self.b.binary(B::Subtract, shifted, rebias);
        let low = self.int_like((1 << 29) - 1, &u64t, loc)?;
        let low = self.b.binary(B::And, a, low);
        let zero = self.int_like(0, &u64t, loc)?;
        let inexact_normal = self.b.binary(B::NotEqual, low, zero);
        let flt_max = self.int_like(0x7f7f_ffff, &u64t, loc)?;
        let over = self.b.binary(B::Greater, t_normal, flt_max);
        let t_normal = self.b.select(over, flt_max, t_normal);
        let inexact_normal = self.b.select(over, over, inexact_normal);
        // Below: a float subnormal (or zero), the significand m 2^(e - 1075) in units of
        // 2^-149, m >> (926 - e) (e is 1 for double subnormals, whose m has no hidden bit).
        let mantissa = self.int_like((1 << 52) - 1, &u64t, loc)?;
        let m = self.b.binary(B::And, a, mantissa);
        let hidden = self.int_like(1 << 52, &u64t, loc)?;
        let normal_double = self.b.binary(B::NotEqual, e, zero);
        let with_hidden = self.b.binary(B::InclusiveOr, m, hidden);
        let m = self.b.select(normal_double, with_hidden, m);
        let one = self.int_like(1, &u64t, loc)?;
        let e1 = self.b.math(M::Max, &[e, one]);
        let k926 = self.int_like(926, &u64t, loc)?;
        let sh = self.b.binary(B::Subtract, k926, e1);
        let k63 = self.int_like(63, &u64t, loc)?;
        let sh = self.b.math(M::Min, &[sh, k63]);
        let sh = self.b.cast(sh, ScalarKind::Uint, Some(4));
        let t_sub = self.b.binary(B::ShiftRight, m, sh);
        let back = self.b.binary(B::ShiftLeft, t_sub, sh);
        let inexact_sub = self.b.binary(B::NotEqual, back, m);
        let k897 = self.int_like(897, &u64t, loc)?;
        let normal = self.b.binary(B::GreaterEqual, e, k897);
        let t = self.b.select(normal, t_normal, t_sub);
        let inexact = self.b.select(normal, inexact_normal, inexact_sub);
        let up = self.rounds_up(inexact, negative, rounding, from, loc)?;
        let step = self.b.select(up, one, zero);
        let t = self.b.binary(B::Add, t, step);
        let t = self.b.cast(t, ScalarKind::Uint, Some(4));
        let (sign, plus) = (self.u32_like(0x8000_0000, &u32t), self.u32_like(0, &u32t));
        let sign = self.b.select(negative, sign, plus);
        let t = self.b.binary(B::InclusiveOr, t, sign);
        let f = self.b.cast(t, ScalarKind::Float, None);
        let inf = self.int_like(0x7ff0_0000_0000_0000, &u64t, loc)?;
        let special = self.b.binary(B::GreaterEqual, a, inf);
        let hardware = self.b.cast(d, ScalarKind::Float, Some(4));
        Ok(self.b.select(special, hardware, f))
    }
}
