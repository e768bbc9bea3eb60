//! `half` (cl_khr_fp16). Halves live in f32 registers; every operation computes in float and
//! rounds its result to half once (`round_to_half`), which is correct for +, -, *, / and sqrt
//! (float's 24 bits are at least 2 * 11 + 2), and within half's bounds for the other functions,
//! computed to float's accuracy. `fma` and `nextafter` work on half's own grid. In memory a half
//! is its 16 bits (`half_from_bits`, `half_to_bits`), NaN payloads included.

use super::{Ctx, R};
use crate::compiler::sema::model::{MathFn, Precision, Scalar as S, Type as T};
use crate::compiler::source::Loc;
use naga::{BinaryOperator as B, Expression, Handle, MathFunction as M};

impl Ctx<'_> {
    /// `f` on halves: the float function (to float's accuracy, so within half's bounds
    /// after one rounding), its result rounded to half. Halves live in f32 registers, so the
    /// arguments need no conversion.
    pub(super) fn half_math(&mut self, f: MathFn, precision: Precision, v: &[Handle<Expression>], arg_ty: &T, ty: &T, loc: Loc) -> R<Handle<Expression>> {
        let as_float = |t: &T| match t {
            T::Scalar(S::Half) => T::Scalar(S::Float),
            T::Vector(S::Half, n) => T::Vector(S::Float, *n),
            t => t.clone(),
        };
        match (f, v) {
            (MathFn::Fma, [x, y, z]) => return self.half_fma([*x, *y, *z], ty, loc),
            (MathFn::Nextafter, [x, y]) => return self.half_nextafter(*x, *y, ty, loc),
            _ => {}
        }
        let r = self.math_fn(f, precision, v, &as_float(arg_ty), &as_float(ty), loc)?;
        if ty.element() != Some(S::Half) {
            return Ok(r);
        }
        let r = self.quantize_half(r, ty, loc)?;
        if f != MathFn::Fract {
            return Ok(r);
        }
        // fract is below 1: a float fraction within half an ulp of 1 rounds up to it.
        let below_one = self.float_like(f64::from(1.0f32 - 2f32.powi(-11)), ty, loc)?;
        let over = self.b.binary(B::Greater, r, below_one);
        Ok(self.b.select(over, below_one, r))
    }

    /// `nextafter` on halves: the neighbour in half, by stepping the 16 bits (as a position
    /// on a line where both zeros are 0 and neighbours differ by one).
    fn half_nextafter(&mut self, x: Handle<Expression>, y: Handle<Expression>, ty: &T, loc: Loc) -> R<Handle<Expression>> {
        let [xs, ys] = [x, y].map(|v| self.components(v, ty));
        let mut out = Vec::new();
        for (x, y) in xs.into_iter().zip(ys) {
            let line = |cx: &mut Self, v: Handle<Expression>| {
                let bits = cx.bits_of(v, S::Half);
                let bits = cx.b.cast(bits, naga::ScalarKind::Sint, None);
                let (mag_mask, sign_bit, zero) = (cx.b.i32(0x7fff), cx.b.i32(0x8000), cx.b.i32(0));
                let mag = cx.b.binary(B::And, bits, mag_mask);
                let sign = cx.b.binary(B::And, bits, sign_bit);
                let negative = cx.b.binary(B::NotEqual, sign, zero);
                let minus = cx.b.unary(naga::UnaryOperator::Negate, mag);
                (cx.b.select(negative, minus, mag), sign)
            };
            let ((lx, sign_x), (ly, _)) = (line(self, x), line(self, y));
            let (one, minus_one, zero) = (self.b.i32(1), self.b.i32(-1), self.b.i32(0));
            let up = self.b.binary(B::Greater, ly, lx);
            let step = self.b.select(up, one, minus_one);
            let lr = self.b.binary(B::Add, lx, step);
            let negative = self.b.binary(B::Less, lr, zero);
            let mag = self.b.math(M::Abs, &[lr]);
            let sign_bit = self.b.i32(0x8000);
            let sign = self.b.select(negative, sign_bit, zero);
            let bits = self.b.binary(B::InclusiveOr, mag, sign);
            // Stepping onto zero keeps the sign of x, as C's nextafter does.
            let at_zero = self.b.binary(B::Equal, lr, zero);
            let bits = self.b.select(at_zero, sign_x, bits);
            let bits = self.b.cast(bits, naga::ScalarKind::Uint, None);
            let r = self.value_of_bits(bits, S::Half);
            let same = self.b.binary(B::Equal, lx, ly);
            let r = self.b.select(same, y, r);
            let (nx, ny) = (self.is_nan(x), self.is_nan(y));
            let r = self.b.select(ny, y, r);
            out.push(self.b.select(nx, x, r));
        }
        self.compose_components(out, ty, loc)
    }

    /// `fma` on halves, correctly rounded: the product of two halves is exact in float, and
    /// the float sum is made round-to-odd (one unit toward the exact sum where it was inexact
    /// and its last bit is even) from its error, so that rounding it to half rounds once.
    fn half_fma(&mut self, [x, y, z]: [Handle<Expression>; 3], ty: &T, loc: Loc) -> R<Handle<Expression>> {
        let [x, y, z] = [x, y, z].map(|v| self.components(v, ty));
        let mut sums = Vec::new();
        for ((x, y), z) in x.into_iter().zip(y).zip(z) {
            let p = self.b.binary(B::Multiply, x, y);
            let s = self.b.binary(B::Add, p, z);
            // Knuth's two-sum: the exact error of s (NaN where s is not finite).
            let bb = self.b.binary(B::Subtract, s, p);
            let pb = self.b.binary(B::Subtract, s, bb);
            let ep = self.b.binary(B::Subtract, p, pb);
            let ez = self.b.binary(B::Subtract, z, bb);
            let err = self.b.binary(B::Add, ep, ez);
            let zero = self.b.lit(naga::Literal::F32(0.0));
            let inexact = self.b.binary(B::NotEqual, err, zero);
            let bits = self.b.cast(s, naga::ScalarKind::Uint, None);
            let one = self.b.u32(1);
            let last = self.b.binary(B::And, bits, one);
            let even = self.b.binary(B::NotEqual, last, one);
            let nudge = self.b.binary(B::LogicalAnd, inexact, even);
            // Toward the exact sum: up in magnitude where the error has the sum's sign.
            let err_negative = self.b.binary(B::Less, err, zero);
            let s_negative = self.b.binary(B::Less, s, zero);
            let away = self.b.binary(B::Equal, err_negative, s_negative);
            let (up, down) = (self.b.binary(B::Add, bits, one), self.b.binary(B::Subtract, bits, one));
            let step = self.b.select(away, up, down);
            let odd = self.b.select(nudge, step, bits);
            let odd = self.b.cast(odd, naga::ScalarKind::Float, None);
            sums.push(self.quantize_half(odd, &T::Scalar(S::Half), loc)?);
        }
        self.compose_components(sums, ty, loc)
    }

    /// The register value (an f32) of the half whose bits are the low 16 of u32 `bits`. A NaN
    /// keeps its payload, signalling ones too (the hardware's conversion would quiet them):
    /// copying halves through registers must keep their bits.
    pub(super) fn half_from_bits(&mut self, bits: Handle<Expression>) -> Handle<Expression> {
        let h = self.masked(bits, 0xffff);
        let converted = self.b.math(M::Unpack2x16float, &[h]);
        let converted = self.b.member(converted, 0);
        let (exponent, mantissa, sign) = (self.masked(h, 0x7c00), self.masked(h, 0x3ff), self.masked(h, 0x8000));
        let all_ones = self.b.u32(0x7c00);
        let special = self.b.binary(B::Equal, exponent, all_ones);
        let zero = self.b.u32(0);
        let has_payload = self.b.binary(B::NotEqual, mantissa, zero);
        let nan = self.b.binary(B::LogicalAnd, special, has_payload);
        let (sixteen, thirteen) = (self.b.u32(16), self.b.u32(13));
        let sign = self.b.binary(B::ShiftLeft, sign, sixteen);
        let payload = self.b.binary(B::ShiftLeft, mantissa, thirteen);
        let f32_nan = self.b.u32(0x7f80_0000);
        let nan_bits = self.b.binary(B::InclusiveOr, sign, f32_nan);
        let nan_bits = self.b.binary(B::InclusiveOr, nan_bits, payload);
        let nan_value = self.b.cast(nan_bits, naga::ScalarKind::Float, None);
        let value = self.b.select(nan, nan_value, converted);
        self.b.half_bits.insert(value, h);
        value
    }

    /// The half bits (in a u32) of register value `v`: rounded to nearest even, a NaN with
    /// the top of its payload (a payload that would vanish keeps a quiet bit); for a value
    /// that `half_from_bits` made, the bits it was made from.
    pub(super) fn half_to_bits(&mut self, v: Handle<Expression>) -> Handle<Expression> {
        // A value read from bits converts back to exactly them.
        if let Some(&bits) = self.b.half_bits.get(&v) {
            return bits;
        }
        let zero_f = self.b.lit(naga::Literal::F32(0.0));
        let ty = super::builder::intern(&mut self.module, naga::TypeInner::Vector { size: naga::VectorSize::Bi, scalar: naga::Scalar::F32 });
        let pair = self.b.compose(ty, vec![v, zero_f]);
        let packed = self.b.math(M::Pack2x16float, &[pair]);
        let packed = self.masked(packed, 0xffff);
        let bits = self.b.cast(v, naga::ScalarKind::Uint, None);
        let magnitude = self.masked(bits, 0x7fff_ffff);
        let inf = self.b.u32(0x7f80_0000);
        let nan = self.b.binary(B::Greater, magnitude, inf);
        let (sixteen, thirteen) = (self.b.u32(16), self.b.u32(13));
        let high = self.b.binary(B::ShiftRight, bits, sixteen);
        let sign = self.masked(high, 0x8000);
        let top = self.b.binary(B::ShiftRight, bits, thirteen);
        let payload = self.masked(top, 0x3ff);
        let zero = self.b.u32(0);
        let lost = self.b.binary(B::Equal, payload, zero);
        let quiet = self.b.u32(0x200);
        let payload = self.b.select(lost, quiet, payload);
        let exponent = self.b.u32(0x7c00);
        let nan_bits = self.b.binary(B::InclusiveOr, sign, exponent);
        let nan_bits = self.b.binary(B::InclusiveOr, nan_bits, payload);
        self.b.select(nan, nan_bits, packed)
    }

    /// An f32 rounded to the nearest half, ties to even, as an f32. The obvious
    /// `unpack(pack(x))` is no rounding on NVIDIA: its compiler folds the pair away (measured on
    /// the H200: `x * y + x` on half4 skipped the product's rounding). Instead float addition
    /// rounds for us: with `c` = 3 * 2^(e + 12) for x in [2^e, 2^(e + 1)), `x + c` stays in c's
    /// binade, whose unit 2^(e - 10) is half's unit at x, so it rounds x there to nearest even
    /// (c is an even number of units), and `- c` is exact. Below half's least normal 2^-14 the
    /// unit stays 2^-24 (c = 0.75). Every float operation is `NoContraction`
    /// (`spirv::decorate`), so no compiler may fold the pair away.
    pub(super) fn round_to_half(&mut self, x: Handle<Expression>) -> Handle<Expression> {
        let bits = self.b.cast(x, naga::ScalarKind::Uint, None);
        let a = self.masked(bits, 0x7fff_ffff);
        let binade = self.masked(bits, 0x7f80_0000);
        let least_normal = self.b.u32(0x3880_0000);
        let binade = self.b.math(M::Max, &[binade, least_normal]);
        let binade = self.b.cast(binade, naga::ScalarKind::Float, None);
        let scale = self.b.float(12288.0, false);
        let c = self.b.binary(B::Multiply, binade, scale);
        let sum = self.b.binary(B::Add, x, c);
        let r = self.b.binary(B::Subtract, sum, c);
        // A result of zero keeps x's sign (x - c + c would give +0).
        let r = self.b.cast(r, naga::ScalarKind::Uint, None);
        let sign = self.masked(bits, 0x8000_0000);
        let r = self.b.binary(B::InclusiveOr, r, sign);
        // 65520 and beyond round to infinity; infinities and NaNs stay as they are.
        let (overflow, infinity) = (self.b.u32(0x477f_f000), self.b.u32(0x7f80_0000));
        let too_big = self.b.binary(B::GreaterEqual, a, overflow);
        let signed_infinity = self.b.binary(B::InclusiveOr, sign, infinity);
        let r = self.b.select(too_big, signed_infinity, r);
        let special = self.b.binary(B::GreaterEqual, a, infinity);
        let r = self.b.select(special, bits, r);
        self.b.cast(r, naga::ScalarKind::Float, None)
    }

    fn masked(&mut self, v: Handle<Expression>, mask: u32) -> Handle<Expression> {
        let m = self.b.u32(mask);
        self.b.binary(B::And, v, m)
    }
}
