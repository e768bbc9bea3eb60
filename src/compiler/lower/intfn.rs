//! Integer built-ins. 8/16-bit values sit sign- or zero-extended in 32-bit registers, so most
//! of their functions are computed exactly in 32 bits and brought back into range; 64-bit
//! bit counts are split into 32-bit halves (naga's 64-bit clz/popcount are broken) and 64-bit
//! `mul_hi` is built from 32-bit partial products.

use super::types::reg_scalar;
use super::{Ctx, LowerError, R};
use crate::compiler::sema::model::{IntFn, Scalar as S, Type as T};
use crate::compiler::source::Loc;
use naga::{BinaryOperator as B, Expression, Handle, MathFunction as M, ScalarKind};

type H = Handle<Expression>;

/// Width facts of an integer element type.
#[derive(Clone, Copy)]
struct Int {
    s: S,
    bits: u32,
    signed: bool,
}

impl Int {
    fn of(ty: &T) -> Int {
        let s = ty.element().unwrap_or(S::Int);
        Int { s, bits: s.size() * 8, signed: s.is_signed() }
    }
    fn narrow(self) -> bool {
        self.bits < 32
    }
    fn min(self) -> i64 {
        if self.signed { i64::MIN >> (64 - self.bits) } else { 0 }
    }
    fn max(self) -> i64 {
        if self.signed { i64::MAX >> (64 - self.bits) } else { (u64::MAX >> (64 - self.bits)) as i64 }
    }
}

impl Ctx<'_> {
    pub(super) fn int_fn(&mut self, f: IntFn, v: &[H], arg_ty: &T, ty: &T, loc: Loc) -> R<H> {
        let it = Int::of(arg_ty);
        let arg = |k: usize| v.get(k).copied().ok_or_else(|| LowerError::new(loc, "internal: missing argument"));
        Ok(match f {
            IntFn::Min => self.b.math(M::Min, v),
            IntFn::Max => self.b.math(M::Max, v),
            IntFn::Clamp => self.b.math(M::Clamp, v),
            IntFn::Abs => {
                let a = if it.signed { self.b.math(M::Abs, v) } else { arg(0)? };
                self.bitcast_to(a, ty)
            }
            IntFn::AbsDiff => {
                let (mx, mn) = (self.b.math(M::Max, v), self.b.math(M::Min, v));
                let d = self.b.binary(B::Subtract, mx, mn);
                let d = self.bitcast_to(d, ty);
                self.normalize(d, ty)
            }
            IntFn::AddSat => self.add_sub_sat(arg(0)?, arg(1)?, true, it, arg_ty, loc)?,
            IntFn::SubSat => self.add_sub_sat(arg(0)?, arg(1)?, false, it, arg_ty, loc)?,
            IntFn::MadSat => self.mad_sat(arg(0)?, arg(1)?, arg(2)?, it, arg_ty, loc)?,
            IntFn::MulHi => self.mul_hi(arg(0)?, arg(1)?, it, arg_ty, loc)?,
            IntFn::MadHi => {
                let h = self.mul_hi(arg(0)?, arg(1)?, it, arg_ty, loc)?;
                let r = self.b.binary(B::Add, h, arg(2)?);
                self.normalize(r, arg_ty)
            }
            IntFn::Mul24 => self.b.binary(B::Multiply, arg(0)?, arg(1)?),
            IntFn::Mad24 => {
                let m = self.b.binary(B::Multiply, arg(0)?, arg(1)?);
                self.b.binary(B::Add, m, arg(2)?)
            }
            IntFn::Hadd | IntFn::Rhadd => {
                // (x >> 1) + (y >> 1) + ((x & y) or (x | y)) & 1: no overflow.
                let one = self.int_like(1, arg_ty, loc)?;
                let sh = self.u32_like(1, arg_ty);
                let (x, y) = (arg(0)?, arg(1)?);
                let (hx, hy) = (self.b.binary(B::ShiftRight, x, sh), self.b.binary(B::ShiftRight, y, sh));
                let both = self.b.binary(if f == IntFn::Hadd { B::And } else { B::InclusiveOr }, x, y);
                let low = self.b.binary(B::And, both, one);
                let s = self.b.binary(B::Add, hx, hy);
                self.b.binary(B::Add, s, low)
            }
            IntFn::Rotate => self.rotate(arg(0)?, arg(1)?, it, arg_ty)?,
            IntFn::Clz | IntFn::Ctz | IntFn::Popcount => self.bit_count(f, arg(0)?, it, arg_ty, loc)?,
            IntFn::Upsample => {
                let to = ty.element().map_or(naga::Scalar::I32, reg_scalar);
                let hi = self.b.cast(arg(0)?, to.kind, Some(to.width));
                let lo = self.b.cast(arg(1)?, to.kind, Some(to.width));
                let mask = self.int_like((u64::MAX >> (64 - it.bits)) as i64, ty, loc)?;
                let lo = self.b.binary(B::And, lo, mask);
                let sh = self.u32_like(it.bits, ty);
                let up = self.b.binary(B::ShiftLeft, hi, sh);
                let r = self.b.binary(B::InclusiveOr, up, lo);
                self.normalize(r, ty)
            }
        })
    }

    /// A u32 constant (vector-splatted like `like`): naga shift counts are u32.
    pub(super) fn u32_like(&mut self, v: u32, like: &T) -> H {
        let k = self.b.u32(v);
        self.match_width(k, like)
    }

    /// Reinterprets integer register bits as the register type of `to`'s element.
    fn bitcast_to(&mut self, v: H, to: &T) -> H {
        self.b.cast(v, to.element().map_or(ScalarKind::Uint, |s| reg_scalar(s).kind), None)
    }

    fn add_sub_sat(&mut self, a: H, b: H, add: bool, it: Int, ty: &T, loc: Loc) -> R<H> {
        let op = if add { B::Add } else { B::Subtract };
        let r = self.b.binary(op, a, b);
        if it.narrow() && it.signed {
            // Exact in 32 bits: clamp into range.
            let (lo, hi) = (self.int_like(it.min(), ty, loc)?, self.int_like(it.max(), ty, loc)?);
            return Ok(self.b.math(M::Clamp, &[r, lo, hi]));
        }
        if !it.signed {
            return Ok(if add {
                if it.narrow() {
                    let hi = self.int_like(it.max(), ty, loc)?;
                    self.b.math(M::Min, &[r, hi])
                } else {
                    let wrapped = self.b.binary(B::Less, r, a);
                    let hi = self.int_like(it.max(), ty, loc)?;
                    self.b.select(wrapped, hi, r)
                }
            } else {
                let under = self.b.binary(B::Less, a, b);
                let zero = self.int_like(0, ty, loc)?;
                self.b.select(under, zero, r)
            });
        }
        // Signed 32/64: overflow when the result's sign disagrees with the operands'.
        let (x1, x2) = if add {
            (self.b.binary(B::ExclusiveOr, a, r), self.b.binary(B::ExclusiveOr, b, r))
        } else {
            (self.b.binary(B::ExclusiveOr, a, b), self.b.binary(B::ExclusiveOr, a, r))
        };
        let both = self.b.binary(B::And, x1, x2);
        let zero = self.int_like(0, ty, loc)?;
        let overflow = self.b.binary(B::Less, both, zero);
        let neg = self.b.binary(B::Less, a, zero);
        let (lo, hi) = (self.int_like(it.min(), ty, loc)?, self.int_like(it.max(), ty, loc)?);
        let sat = self.b.select(neg, lo, hi);
        Ok(self.b.select(overflow, sat, r))
    }

    fn mad_sat(&mut self, a: H, b: H, c: H, it: Int, ty: &T, loc: Loc) -> R<H> {
        let (lo, hi) = (it.min(), it.max());
        if it.narrow() {
            // Exact in 32 bits (even 65535 * 65535 + 65535 fits in u32).
            let m = self.b.binary(B::Multiply, a, b);
            let r = self.b.binary(B::Add, m, c);
            let (lo, hi) = (self.int_like(lo, ty, loc)?, self.int_like(hi, ty, loc)?);
            return Ok(self.b.math(M::Clamp, &[r, lo, hi]));
        }
        if !self.target.int64 {
            return Err(LowerError::new(loc, "mad_sat needs 64-bit integer support on this device"));
        }
        if it.bits == 64 {
            return self.mad_sat64(a, b, c, it, ty, loc);
        }
        let kind = if it.signed { ScalarKind::Sint } else { ScalarKind::Uint };
        let wide = |cx: &mut Self, x: H| cx.b.cast(x, kind, Some(8));
        let (wa, wb, wc) = (wide(self, a), wide(self, b), wide(self, c));
        let m = self.b.binary(B::Multiply, wa, wb);
        let r = self.b.binary(B::Add, m, wc);
        let wide_ty = T::Scalar(if it.signed { S::Long } else { S::ULong });
        let wide_ty = match ty {
            T::Vector(_, n) => T::Vector(wide_ty.element().unwrap_or(S::Long), *n),
            _ => wide_ty,
        };
        let (lo, hi) = (self.int_like(lo, &wide_ty, loc)?, self.int_like(hi, &wide_ty, loc)?);
        let r = self.b.math(M::Clamp, &[r, lo, hi]);
        Ok(self.b.cast(r, kind, Some(4)))
    }

    /// 64-bit mad_sat: the 128-bit sum (mul_hi, a b) + c, saturated when its high word is more
    /// than the low word's sign (signed) or not 0 (unsigned).
    fn mad_sat64(&mut self, a: H, b: H, c: H, it: Int, ty: &T, loc: Loc) -> R<H> {
        let uty = unsigned_like(ty);
        let hi = self.mul_hi(a, b, it, ty, loc)?;
        let lo = self.b.binary(B::Multiply, a, b);
        let sum = self.b.binary(B::Add, lo, c);
        let (ulo, usum) = (self.b.cast(lo, ScalarKind::Uint, None), self.b.cast(sum, ScalarKind::Uint, None));
        let carried = self.b.binary(B::Less, usum, ulo);
        let (one, zero) = (self.int_like(1, ty, loc)?, self.int_like(0, ty, loc)?);
        let carry = self.b.select(carried, one, zero);
        let hi = self.b.binary(B::Add, hi, carry);
        let max = self.int_like(it.max(), ty, loc)?;
        if !it.signed {
            let uzero = self.int_like(0, &uty, loc)?;
            let over = self.b.binary(B::NotEqual, hi, uzero);
            return Ok(self.b.select(over, max, sum));
        }
        // c's sign extension joins the high word.
        let c_neg = self.b.binary(B::Less, c, zero);
        let minus_one = self.int_like(-1, ty, loc)?;
        let c_hi = self.b.select(c_neg, minus_one, zero);
        let hi = self.b.binary(B::Add, hi, c_hi);
        let sh = self.u32_like(63, ty);
        let sign = self.b.binary(B::ShiftRight, sum, sh);
        let fits = self.b.binary(B::Equal, hi, sign);
        let min = self.int_like(it.min(), ty, loc)?;
        let neg = self.b.binary(B::Less, hi, zero);
        let saturated = self.b.select(neg, min, max);
        Ok(self.b.select(fits, sum, saturated))
    }

    fn mul_hi(&mut self, a: H, b: H, it: Int, ty: &T, loc: Loc) -> R<H> {
        if it.narrow() {
            // The full product fits in 32 bits.
            let m = self.b.binary(B::Multiply, a, b);
            let sh = self.u32_like(it.bits, ty);
            let h = self.b.binary(B::ShiftRight, m, sh);
            return Ok(self.normalize(h, ty));
        }
        if !self.target.int64 {
            return Err(LowerError::new(loc, "mul_hi needs 64-bit integer support on this device"));
        }
        let kind = if it.signed { ScalarKind::Sint } else { ScalarKind::Uint };
        if it.bits == 32 {
            let (wa, wb) = (self.b.cast(a, kind, Some(8)), self.b.cast(b, kind, Some(8)));
            let p = self.b.binary(B::Multiply, wa, wb);
            let sh = self.u32_like(32, ty);
            let h = self.b.binary(B::ShiftRight, p, sh);
            return Ok(self.b.cast(h, kind, Some(4)));
        }
        // 64 bits: unsigned high word from four 32×32 partial products.
        let (ua, ub) = (self.b.cast(a, ScalarKind::Uint, None), self.b.cast(b, ScalarKind::Uint, None));
        let sh = self.u32_like(32, ty);
        let lo_mask = self.int_like(0xffff_ffff, &unsigned_like(ty), loc)?;
        let (al, bl) = (self.b.binary(B::And, ua, lo_mask), self.b.binary(B::And, ub, lo_mask));
        let (ah, bh) = (self.b.binary(B::ShiftRight, ua, sh), self.b.binary(B::ShiftRight, ub, sh));
        let ll = self.b.binary(B::Multiply, al, bl);
        let lh = self.b.binary(B::Multiply, al, bh);
        let hl = self.b.binary(B::Multiply, ah, bl);
        let hh = self.b.binary(B::Multiply, ah, bh);
        let ll_hi = self.b.binary(B::ShiftRight, ll, sh);
        let lh_lo = self.b.binary(B::And, lh, lo_mask);
        let hl_lo = self.b.binary(B::And, hl, lo_mask);
        let mid = self.b.binary(B::Add, ll_hi, lh_lo);
        let mid = self.b.binary(B::Add, mid, hl_lo);
        let (lh_hi, hl_hi, mid_hi) = (
            self.b.binary(B::ShiftRight, lh, sh),
            self.b.binary(B::ShiftRight, hl, sh),
            self.b.binary(B::ShiftRight, mid, sh),
        );
        let h = self.b.binary(B::Add, hh, lh_hi);
        let h = self.b.binary(B::Add, h, hl_hi);
        let h = self.b.binary(B::Add, h, mid_hi);
        if !it.signed {
            return Ok(h);
        }
        // Signed: subtract b when a < 0 and a when b < 0 (two's complement correction).
        let zero = self.int_like(0, ty, loc)?;
        let uzero = self.int_like(0, &unsigned_like(ty), loc)?;
        let (an, bn) = (self.b.binary(B::Less, a, zero), self.b.binary(B::Less, b, zero));
        let fix_a = self.b.select(an, ub, uzero);
        let fix_b = self.b.select(bn, ua, uzero);
        let h = self.b.binary(B::Subtract, h, fix_a);
        let h = self.b.binary(B::Subtract, h, fix_b);
        Ok(self.b.cast(h, ScalarKind::Sint, None))
    }

    fn rotate(&mut self, x: H, n: H, it: Int, ty: &T) -> R<H> {
        let uty = unsigned_like(ty);
        let ux = self.b.cast(x, ScalarKind::Uint, None);
        let full = self.int_like((u64::MAX >> (64 - it.bits)) as i64, &uty, Loc::default())?;
        let ux = if it.narrow() { self.b.binary(B::And, ux, full) } else { ux };
        // Shift counts are u32 in naga, whatever the operand width.
        let un = self.b.cast(n, ScalarKind::Uint, Some(4));
        let m = self.u32_like(it.bits - 1, ty);
        let un = self.b.binary(B::And, un, m);
        let w = self.u32_like(it.bits, ty);
        let back = self.b.binary(B::Subtract, w, un);
        let back = self.b.binary(B::And, back, m);
        let l = self.b.binary(B::ShiftLeft, ux, un);
        let r = self.b.binary(B::ShiftRight, ux, back);
        let rot = self.b.binary(B::InclusiveOr, l, r);
        let rot = if it.narrow() { self.b.binary(B::And, rot, full) } else { rot };
        let rot = self.bitcast_to(rot, ty);
        Ok(self.normalize(rot, ty))
    }

    fn bit_count(&mut self, f: IntFn, x: H, it: Int, ty: &T, loc: Loc) -> R<H> {
        let fun = match f {
            IntFn::Clz => M::CountLeadingZeros,
            IntFn::Ctz => M::CountTrailingZeros,
            _ => M::CountOneBits,
        };
        if it.bits == 64 {
            // Split into 32-bit halves.
            let sh = self.u32_like(32, ty);
            let ux = self.b.cast(x, ScalarKind::Uint, None);
            let hi_bits = self.b.binary(B::ShiftRight, ux, sh);
            let (hi, lo) = (self.b.cast(hi_bits, ScalarKind::Uint, Some(4)), self.b.cast(ux, ScalarKind::Uint, Some(4)));
            let (ch, cl) = (self.b.math(fun, &[hi]), self.b.math(fun, &[lo]));
            let k32 = self.u32_like(32, ty);
            let r = match f {
                IntFn::Popcount => self.b.binary(B::Add, ch, cl),
                IntFn::Clz => {
                    let zero = self.u32_like(0, ty);
                    let hi_zero = self.b.binary(B::Equal, hi, zero);
                    let more = self.b.binary(B::Add, k32, cl);
                    self.b.select(hi_zero, more, ch)
                }
                _ => {
                    let zero = self.u32_like(0, ty);
                    let lo_zero = self.b.binary(B::Equal, lo, zero);
                    let more = self.b.binary(B::Add, k32, ch);
                    self.b.select(lo_zero, more, cl)
                }
            };
            let kind = reg_scalar(it.s).kind;
            return Ok(self.b.cast(r, kind, Some(8)));
        }
        if !it.narrow() {
            return Ok(self.b.math(fun, &[x]));
        }
        // 8/16-bit: count over the low bits only.
        let mask = self.int_like((u64::MAX >> (64 - it.bits)) as i64, ty, loc)?;
        let low = self.b.binary(B::And, x, mask);
        Ok(match f {
            IntFn::Clz => {
                let c = self.b.math(M::CountLeadingZeros, &[low]);
                let extra = self.int_like(i64::from(32 - it.bits), ty, loc)?;
                self.b.binary(B::Subtract, c, extra)
            }
            IntFn::Ctz => {
                let c = self.b.math(M::CountTrailingZeros, &[low]);
                let bits = self.int_like(i64::from(it.bits), ty, loc)?;
                self.b.math(M::Min, &[c, bits])
            }
            _ => self.b.math(M::CountOneBits, &[low]),
        })
    }
}

/// The unsigned integer type of the same shape as `ty`.
pub(super) fn unsigned_like(ty: &T) -> T {
    let u = match ty.element().map(|s| s.size()) {
        Some(1) => S::UChar,
        Some(2) => S::UShort,
        Some(8) => S::ULong,
        _ => S::UInt,
    };
    match ty {
        T::Vector(_, n) => T::Vector(u, *n),
        _ => T::Scalar(u),
    }
}
