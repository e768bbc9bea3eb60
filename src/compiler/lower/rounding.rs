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

    /// A double (scalar or vector of up to 4) to float in a directed mode. NaN and the
    /// infinities are the hardware's conversion.
    fn double_to_float_directed(&mut self, d: H, from: &T, rounding: Rounding, loc: Loc) -> R<H> {
        let bits = self.b.cast(d, ScalarKind::Uint, None);
        let (f, special) = self.narrow_bits(bits, &TO_FLOAT, from, rounding, loc)?;
        let f = self.b.cast(f, ScalarKind::Float, None);
        let hardware = self.b.cast(d, ScalarKind::Float, Some(4));
        Ok(self.b.select(special, hardware, f))
    }

    /// `v` (of arithmetic type `from`, not bool) converted to `half` in `rounding`, as the
    /// floats of those half values. Integers reach half through float in the same mode: they
    /// are exact in float up to 2^24, and beyond 65520 they overflow half in every mode. A
    /// double rounds to float to odd first when the mode is to nearest, so that the one
    /// rounding to half is the correct one.
    pub(super) fn convert_to_half(&mut self, v: H, from: &T, rounding: Rounding, loc: Loc) -> R<H> {
        let Some(fs) = from.element() else { return Err(super::LowerError::new(loc, "internal: conversion of a non-arithmetic type")) };
        if fs == S::Half {
            return Ok(v);
        }
        let directed = matches!(rounding, Rounding::Rtz | Rounding::Rtp | Rounding::Rtn);
        let scalar = T::Scalar(fs);
        let mut halves = Vec::new();
        for c in self.components(v, from) {
            let h = if fs.is_integer() {
                let f = match self.convert_directed(c, &scalar, &T::Scalar(S::Float), rounding, loc)? {
                    Some(f) => f,
                    None => self.b.cast(c, ScalarKind::Float, Some(4)),
                };
                if directed { self.half_directed(f, &T::Scalar(S::Float), rounding, loc)? } else { self.quantize_half(f, &T::Scalar(S::Half), loc)? }
            } else if directed {
                self.half_directed(c, &scalar, rounding, loc)?
            } else {
                let f = if fs == S::Double { self.double_to_float_odd(c) } else { c };
                self.quantize_half(f, &T::Scalar(S::Half), loc)?
            };
            halves.push(h);
        }
        self.compose_components(halves, &shaped(S::Half, from), loc)
    }

    /// A float or double scalar rounded to half precision in a directed mode (`vstore_half_rtz`
    /// ...), as the float of that value (which the store's conversion to half keeps exactly).
    /// A double is rounded to float in the same mode first: for rounding toward zero or
    /// either infinity, rounding to float and then to half is rounding to half.
    pub(super) fn half_directed(&mut self, v: H, from: &T, rounding: Rounding, loc: Loc) -> R<H> {
        let v = self.barrier(v, from, loc)?;
        let f = if from.element() == Some(S::Double) { self.double_to_float_directed(v, from, rounding, loc)? } else { v };
        let float = shaped(S::Float, from);
        let bits = self.b.cast(f, ScalarKind::Uint, None);
        let (h, special) = self.narrow_bits(bits, &TO_HALF, &float, rounding, loc)?;
        let unpacked = self.b.math(M::Unpack2x16float, &[h]);
        let half = self.b.member(unpacked, 0);
        Ok(self.b.select(special, f, half))
    }

    /// The bits of a float value (`bits`, of shape `like`) narrowed to a smaller format in a
    /// directed mode: the magnitude truncated to the narrow format (its largest finite value
    /// where it is beyond), then one unit more where that was inexact and the mode rounds away
    /// from zero for the sign, and the sign put back. Also where the input is infinite or NaN
    /// (the result is meaningless there).
    fn narrow_bits(&mut self, bits: H, n: &Narrowing, like: &T, rounding: Rounding, loc: Loc) -> R<(H, H)> {
        let wide = n.from_mantissa == 52;
        let (ut, u32t) = (shaped(if wide { S::ULong } else { S::UInt }, like), shaped(S::UInt, like));
        let k = |cx: &mut Self, v: u64| cx.int_like(v as i64, &ut, loc);
        let width = if wide { 64 } else { 32 };
        let abs_mask = k(self, (1u64 << (width - 1)) - 1)?;
        let a = self.b.binary(B::And, bits, abs_mask);
        let negative = self.b.binary(B::NotEqual, a, bits);
        let m_bits = self.u32_like(n.from_mantissa, &u32t);
        let e = self.b.binary(B::ShiftRight, a, m_bits);
        // Normal in the narrow format: the bits shifted right by the difference of the
        // mantissa widths, less the difference of the biases; beyond the largest finite
        // value they stop there (and are inexact).
        let drop = n.from_mantissa - n.to_mantissa;
        let k_drop = self.u32_like(drop, &u32t);
        let shifted = self.b.binary(B::ShiftRight, a, k_drop);
        let rebias = k(self, (n.from_bias - n.to_bias) << n.to_mantissa)?;
        let t_normal = self.b.binary(B::Subtract, shifted, rebias);
        let low = k(self, (1 << drop) - 1)?;
        let low = self.b.binary(B::And, a, low);
        let zero = k(self, 0)?;
        let inexact_normal = self.b.binary(B::NotEqual, low, zero);
        let max = k(self, n.to_max)?;
        let over = self.b.binary(B::Greater, t_normal, max);
        let t_normal = self.b.select(over, max, t_normal);
        let inexact_normal = self.b.select(over, over, inexact_normal);
        // Subnormal (or zero) in the narrow format: the significand m 2^(e - bias -
        // mantissa) in units of the narrow format's least subnormal (e is 1 for the wide
        // format's subnormals, whose m has no hidden bit).
        let mantissa = k(self, (1 << n.from_mantissa) - 1)?;
        let m = self.b.binary(B::And, a, mantissa);
        let hidden = k(self, 1 << n.from_mantissa)?;
        let normal_wide = self.b.binary(B::NotEqual, e, zero);
        let with_hidden = self.b.binary(B::InclusiveOr, m, hidden);
        let m = self.b.select(normal_wide, with_hidden, m);
        let one = k(self, 1)?;
        let e1 = self.b.math(M::Max, &[e, one]);
        let base = k(self, n.from_bias + u64::from(n.from_mantissa) + 1 - n.to_bias - u64::from(n.to_mantissa))?;
        let sh = self.b.binary(B::Subtract, base, e1);
        let last = k(self, width - 1)?;
        let sh = self.b.math(M::Min, &[sh, last]);
        let sh = if wide { self.b.cast(sh, ScalarKind::Uint, Some(4)) } else { sh };
        let t_sub = self.b.binary(B::ShiftRight, m, sh);
        let back = self.b.binary(B::ShiftLeft, t_sub, sh);
        let inexact_sub = self.b.binary(B::NotEqual, back, m);
        let min_normal = k(self, n.from_bias - n.to_bias + 1)?;
        let normal = self.b.binary(B::GreaterEqual, e, min_normal);
        let t = self.b.select(normal, t_normal, t_sub);
        let inexact = self.b.select(normal, inexact_normal, inexact_sub);
        let up = self.rounds_up(inexact, negative, rounding, like, loc)?;
        let step = self.b.select(up, one, zero);
        let t = self.b.binary(B::Add, t, step);
        let t = if wide { self.b.cast(t, ScalarKind::Uint, Some(4)) } else { t };
        let (sign, plus) = (self.u32_like(n.to_sign, &u32t), self.u32_like(0, &u32t));
        let sign = self.b.select(negative, sign, plus);
        let t = self.b.binary(B::InclusiveOr, t, sign);
        let inf = k(self, ((1u64 << (width - 1 - u64::from(n.from_mantissa))) - 1) << n.from_mantissa)?;
        Ok((t, self.b.binary(B::GreaterEqual, a, inf)))
    }
}

/// A narrowing between binary formats: the wide one's mantissa bits and bias, the narrow
/// one's, its largest finite value's bits and its sign bit.
struct Narrowing {
    from_mantissa: u32,
    from_bias: u64,
    to_mantissa: u32,
    to_bias: u64,
    to_max: u64,
    to_sign: u32,
}

const TO_FLOAT: Narrowing = Narrowing { from_mantissa: 52, from_bias: 1023, to_mantissa: 23, to_bias: 127, to_max: 0x7f7f_ffff, to_sign: 0x8000_0000 };
const TO_HALF: Narrowing = Narrowing { from_mantissa: 23, from_bias: 127, to_mantissa: 10, to_bias: 15, to_max: 0x7bff, to_sign: 0x8000 };
