//! Payne–Hanek reduction of large arguments for sin, cos and tan, inside an `if` so that
//! smaller arguments pay nothing for it: Cody–Waite's split π/2 is exact only while |x| < 2^20
//! π/2 for doubles (2^12 π/2 for floats). For doubles, x 2/π mod 4 from a 192-bit window of 2/π
//! chosen by the exponent of x, multiplied exactly by the 53-bit significand in 32-bit limbs
//! (floats: `payne_hanek_scalar`, 96 bits).

use super::{Ctx, H, R, T, TWO_OVER_PI};
use crate::compiler::sema::model::Scalar as S;
use crate::compiler::source::Loc;
use naga::{BinaryOperator as B, Expression, Literal, MathFunction as M, RelationalFunction, ScalarKind, UnaryOperator as U};

/// Double arguments from here on are reduced by Payne–Hanek.
const LIMIT: f64 = 1048576.0;
/// Float arguments from here on are reduced by Payne–Hanek.
const FLOAT_LIMIT: f64 = 6000.0;

impl Ctx<'_> {
    /// (q, r) of the Cody–Waite reduction replaced by Payne–Hanek's past the format's limit;
    /// r is NaN at ±∞.
    pub(super) fn reduce_large(&mut self, x: H, q: H, r: H, ty: &T, loc: Loc) -> R<(H, H)> {
        let ity = match ty {
            T::Vector(_, n) => T::Vector(S::Int, *n),
            _ => T::Scalar(S::Int),
        };
        let (qt, rt) = (self.naga_ty(&ity, loc)?, self.naga_ty(ty, loc)?);
        let (qv, rv) = (self.b.local("quadrant", qt), self.b.local("reduced", rt));
        let (qp, rp) = (self.b.expr(Expression::LocalVariable(qv)), self.b.expr(Expression::LocalVariable(rv)));
        self.b.store(qp, q);
        self.b.store(rp, r);
        let ax = self.b.math(M::Abs, &[x]);
        let float = super::format(ty).bytes == 4;
        let limit = self.float_like(if float { FLOAT_LIMIT } else { LIMIT }, ty, loc)?;
        let big = self.b.binary(B::Greater, ax, limit);
        let any = match ty {
            T::Vector(..) => self.b.expr(Expression::Relational { fun: RelationalFunction::Any, argument: big }),
            _ => big,
        };
        self.if_stmt(
            any,
            |cx| {
                let table = cx.two_over_pi_table();
                let comps = cx.components(x, ty);
                let (mut qs, mut rs) = (Vec::new(), Vec::new());
                for c in comps {
                    let (q, r) = if float { cx.payne_hanek_scalar(c, table) } else { cx.payne_hanek64(c, table) };
                    qs.push(q);
                    rs.push(r);
                }
                let (qb, rb) = (cx.compose_components(qs, &ity, loc)?, cx.compose_components(rs, ty, loc)?);
                let rb = cx.nan_at_infinity(rb, x, ty, loc)?;
                let (qp, rp) = (cx.b.expr(Expression::LocalVariable(qv)), cx.b.expr(Expression::LocalVariable(rv)));
                let (q0, r0) = (cx.b.load(qp), cx.b.load(rp));
                let (q1, r1) = (cx.b.select(big, qb, q0), cx.b.select(big, rb, r0));
                cx.b.store(qp, q1);
                cx.b.store(rp, r1);
                Ok(())
            },
            |_| Ok(()),
        )?;
        let (qp, rp) = (self.b.expr(Expression::LocalVariable(qv)), self.b.expr(Expression::LocalVariable(rv)));
        Ok((self.b.load(qp), self.b.load(rp)))
    }

    /// One double x (|x| > 2^20, finite): x = (4n + q) π/2 + r with |r| ≤ π/4.
    fn payne_hanek64(&mut self, x: H, table: naga::Handle<naga::GlobalVariable>) -> (H, H) {
        let u = |cx: &mut Self, v: u32| cx.b.u32(v);
        let w = |cx: &mut Self, v: u64| cx.b.lit(Literal::U64(v));
        let ax = self.b.math(M::Abs, &[x]);
        let bits = self.b.cast(ax, ScalarKind::Uint, None);
        let k52 = u(self, 52);
        let e = self.b.binary(B::ShiftRight, bits, k52);
        let e = self.b.cast(e, ScalarKind::Uint, Some(4));
        let mant = w(self, (1 << 52) - 1);
        let m = self.b.binary(B::And, bits, mant);
        let hidden = w(self, 1 << 52);
        let m = self.b.binary(B::InclusiveOr, m, hidden);
        // |x| = m 2^s, s = e - 1075. Bits b_i of 2/π with i ≤ s - 2 add multiples of 4: the
        // window starts at i = s - 1, at table position i + 63 (after the two zero words).
        let base = u(self, 1075 + 1 - 63);
        let start = self.b.binary(B::Subtract, e, base);
        let (lo, hi) = (u(self, 0), u(self, 32 * (TWO_OVER_PI.len() as u32 - 6) - 1));
        let start = self.b.math(M::Clamp, &[start, lo, hi]);
        let win: [H; 6] = self.two_over_pi_windows(table, start);
        let (k32, low32) = (u(self, 32), w(self, 0xffff_ffff));
        let ml = self.b.binary(B::And, m, low32);
        let mh = self.b.binary(B::ShiftRight, m, k32);
        // P = m W mod 2^192 in limbs L0 (bits 0-31) .. L5: limb j gathers the low halves of
        // the products at 32j and the high halves of those at 32(j - 1).
        let mut products: Vec<(usize, H)> = Vec::new();
        for k in 0..6 {
            products.push((k, self.b.binary(B::Multiply, ml, win[5 - k])));
            if k < 5 {
                products.push((k + 1, self.b.binary(B::Multiply, mh, win[5 - k])));
            }
        }
        let mut limbs = Vec::new();
        let mut carry = w(self, 0);
        for j in 0..6 {
            let mut acc = carry;
            for &(pos, p) in &products {
                if pos == j {
                    let l = self.b.binary(B::And, p, low32);
                    acc = self.b.binary(B::Add, acc, l);
                }
                if pos + 1 == j {
                    let h = self.b.binary(B::ShiftRight, p, k32);
                    acc = self.b.binary(B::Add, acc, h);
                }
            }
            limbs.push(self.b.binary(B::And, acc, low32));
            carry = self.b.binary(B::ShiftRight, acc, k32);
        }
        // x 2/π mod 4 = P 2^-190: quadrant = bits 191-190, fraction = bits 189 down, as two
        // 64-bit words.
        let k30 = u(self, 30);
        let q = self.b.binary(B::ShiftRight, limbs[5], k30);
        let low30 = w(self, 0x3fff_ffff);
        let (k34, k2) = (u(self, 34), u(self, 2));
        let join = |cx: &mut Self, a: H, b: H, c: H| {
            let a = cx.b.binary(B::And, a, low30);
            let a = cx.b.binary(B::ShiftLeft, a, k34);
            let b = cx.b.binary(B::ShiftLeft, b, k2);
            let c = cx.b.binary(B::ShiftRight, c, k30);
            let ab = cx.b.binary(B::InclusiveOr, a, b);
            cx.b.binary(B::InclusiveOr, ab, c)
        };
        let f_hi = join(self, limbs[5], limbs[4], limbs[3]);
        let f_lo = join(self, limbs[3], limbs[2], limbs[1]);
        // A fraction of one half or more belongs to the next quadrant; it is then the
        // negative (two's complement) distance to it.
        let k63 = u(self, 63);
        let round_up = self.b.binary(B::ShiftRight, f_hi, k63);
        let q = self.b.binary(B::Add, q, round_up);
        let three = w(self, 3);
        let q = self.b.binary(B::And, q, three);
        let q = self.b.cast(q, ScalarKind::Sint, Some(4));
        let zero64 = w(self, 0);
        let negative = self.b.binary(B::NotEqual, round_up, zero64);
        let (n_hi, n_lo) = (self.b.unary(U::BitwiseNot, f_hi), self.b.binary(B::Subtract, zero64, f_lo));
        let lo_zero = self.b.binary(B::Equal, f_lo, zero64);
        let one64 = w(self, 1);
        let borrow = self.b.select(lo_zero, one64, zero64);
        let n_hi = self.b.binary(B::Add, n_hi, borrow);
        let (hi_m, lo_m) = (self.b.select(negative, n_hi, f_hi), self.b.select(negative, n_lo, f_lo));
        // The magnitude's top 64 bits: shifted up by its leading zeros (at most 127).
        let u32t = T::Scalar(S::UInt);
        let (lz_hi, lz_lo) = (self.clz64(hi_m, &u32t), self.clz64(lo_m, &u32t));
        let hi_zero = self.b.binary(B::Equal, hi_m, zero64);
        let k64 = u(self, 64);
        let lz_more = self.b.binary(B::Add, lz_lo, k64);
        let lz = self.b.select(hi_zero, lz_more, lz_hi);
        let k63u = u(self, 63);
        let s1 = self.b.math(M::Min, &[lz, k63u]);
        let top = self.b.binary(B::ShiftLeft, hi_m, s1);
        let rest = self.b.binary(B::Subtract, k64, s1);
        let rest = self.b.math(M::Min, &[rest, k63u]);
        let from_lo = self.b.binary(B::ShiftRight, lo_m, rest);
        let s_zero = self.b.binary(B::Equal, s1, lo);
        let from_lo = self.b.select(s_zero, zero64, from_lo);
        let top = self.b.binary(B::InclusiveOr, top, from_lo);
        let lz64 = self.b.binary(B::Subtract, lz, k64);
        let lz64 = self.b.math(M::Min, &[lz64, k63u]);
        let low_top = self.b.binary(B::ShiftLeft, lo_m, lz64);
        let top = self.b.select(hi_zero, low_top, top);
        // r = top 2^-(64 + lz) π/2, 2^-(64 + lz) from its exponent field.
        let f = self.b.cast(top, ScalarKind::Float, Some(8));
        let field = u(self, 1023 - 64);
        let field = self.b.binary(B::Subtract, field, lz);
        let field = self.b.cast(field, ScalarKind::Uint, Some(8));
        let field = self.b.binary(B::ShiftLeft, field, k52);
        let scale = self.b.cast(field, ScalarKind::Float, None);
        let r = self.b.binary(B::Multiply, f, scale);
        let pio2 = self.b.lit(Literal::F64(std::f64::consts::FRAC_PI_2));
        let r = self.b.binary(B::Multiply, r, pio2);
        let nr = self.b.unary(U::Negate, r);
        let r = self.b.select(negative, nr, r);
        // Negative x: x = -(q π/2 + r) = (-q) π/2 - r.
        let zero = self.b.lit(Literal::F64(0.0));
        let neg = self.b.binary(B::Less, x, zero);
        let (four, mask3) = (self.b.i32(4), self.b.i32(3));
        let nq = self.b.binary(B::Subtract, four, q);
        let nq = self.b.binary(B::And, nq, mask3);
        let q = self.b.select(neg, nq, q);
        let nr = self.b.unary(U::Negate, r);
        (q, self.b.select(neg, nr, r))
    }
}
