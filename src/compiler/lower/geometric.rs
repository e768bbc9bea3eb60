//! `length`, `distance` and `normalize` without overflow or underflow of the sum of squares,
//! and the geometric functions of scalars.
//!
//! GLSL.std.450's `Length` squares the components as they are: a float component of 2^64
//! made the length infinite, and tiny doubles made it 0 (CTS `test_geometrics`). So the
//! vector is first scaled by a power of two (exact) when its largest component is outside a
//! range in which the squares neither overflow nor lose precision, and the result is scaled
//! back.

use super::{Ctx, LowerError, R};
use crate::compiler::sema::model::{MathFn, Scalar as S, Type as T};
use crate::compiler::source::Loc;
use naga::{BinaryOperator as B, Expression, Handle, MathFunction as M, RelationalFunction as Rel, VectorSize};

type H = Handle<Expression>;

/// For a float type: above `2^big` the vector is scaled by `2^-down`, below `2^-big` by
/// `2^up`. The squares of scaled components, summed over at most 4, stay normal and finite
/// (float: 2^-50 ≤ m < 2^50 as it is, or a subnormal up to 2^-49 scaled by 2^100, or up to
/// 2^128 scaled to 2^48; double likewise with its range).
struct Scaling {
    big: i32,
    down: i32,
    up: i32,
}

fn scaling(ty: &T) -> Scaling {
    match ty.element() {
        Some(S::Double) => Scaling { big: 450, down: 600, up: 600 },
        _ => Scaling { big: 50, down: 80, up: 100 },
    }
}

impl Ctx<'_> {
    /// `dot` of scalars and `length`, `distance`, `normalize` of scalars and vectors; `v` are
    /// the arguments, `ty` their type.
    pub(super) fn geometric(&mut self, f: MathFn, v: &[H], ty: &T, loc: Loc) -> R<H> {
        if let T::Scalar(_) = ty {
            return self.scalar_geometric(f, v, ty, loc);
        }
        match (f, v) {
            (MathFn::Length, [x]) => {
                let (xs, _, unscale) = self.scaled(*x, ty, loc)?;
                let len = self.plain_length(xs);
                Ok(self.b.binary(B::Multiply, len, unscale))
            }
            (MathFn::Distance, [a, b]) => {
                let d = self.b.binary(B::Subtract, *a, *b);
                self.geometric(MathFn::Length, &[d], ty, loc)
            }
            (MathFn::Normalize, [x]) => self.unit_vector(*x, ty, loc),
            _ => Err(LowerError::new(loc, "internal: geometric function arguments")),
        }
    }

    /// `sqrt(dot(x, x))`.
    fn plain_length(&mut self, x: H) -> H {
        let sum = self.b.math(M::Dot, &[x, x]);
        self.b.math(M::Sqrt, &[sum])
    }

    /// `x` scaled so that its squares are safe (see [`Scaling`]): the scaled vector, the
    /// scalar factor applied, and the one that undoes it for a length.
    fn scaled(&mut self, x: H, ty: &T, loc: Loc) -> R<(H, H, H)> {
        let elem = T::Scalar(ty.element().unwrap_or(S::Float));
        let abs = self.b.math(M::Abs, &[x]);
        let parts = self.components(abs, ty);
        let largest = parts.iter().copied().reduce(|m, p| self.b.math(M::Max, &[m, p])).unwrap_or(abs);
        let s = scaling(ty);
        let (above, below) = (self.float_like(2f64.powi(s.big), &elem, loc)?, self.float_like(2f64.powi(-s.big), &elem, loc)?);
        let (big, small) = (self.b.binary(B::GreaterEqual, largest, above), self.b.binary(B::Less, largest, below));
        let one = self.float_like(1.0, &elem, loc)?;
        let factor = |cx: &mut Self, down: f64, up: f64| -> R<H> {
            let (d, u) = (cx.float_like(down, &elem, loc)?, cx.float_like(up, &elem, loc)?);
            let small_or_one = cx.b.select(small, u, one);
            Ok(cx.b.select(big, d, small_or_one))
        };
        let scale = factor(self, 2f64.powi(-s.down), 2f64.powi(s.up))?;
        let unscale = factor(self, 2f64.powi(s.down), 2f64.powi(-s.up))?;
        Ok((self.b.binary(B::Multiply, x, scale), scale, unscale))
    }

    /// `normalize(x)` (OpenCL C 6.15.6): `x` where it is all zeros; with infinite components,
    /// the direction of the infinities alone (the others count as zero); NaN stays NaN.
    fn unit_vector(&mut self, x: H, ty: &T, loc: Loc) -> R<H> {
        let size = match ty.width() {
            2 => VectorSize::Bi,
            3 => VectorSize::Tri,
            _ => VectorSize::Quad,
        };
        let elem = T::Scalar(ty.element().unwrap_or(S::Float));
        let (xs, scale, _) = self.scaled(x, ty, loc)?;
        let inf = self.b.expr(Expression::Relational { fun: Rel::IsInf, argument: x });
        let any_inf = self.b.expr(Expression::Relational { fun: Rel::Any, argument: inf });
        let (one, zero) = (self.float_like(1.0, ty, loc)?, self.float_like(0.0, ty, loc)?);
        let unit = self.copysign(one, x, ty);
        let signed_zero = self.b.binary(B::Multiply, zero, x);
        let infinities = self.b.select(inf, unit, signed_zero);
        let dir = self.b.select(any_inf, infinities, xs);
        let len = self.plain_length(dir);
        let lens = self.b.splat(size, len);
        let quotient = self.b.binary(B::Divide, dir, lens);
        // A nonzero component that scaling down (or the input) left subnormal or zero has lost
        // bits: it is divided 2^k larger (exact) and the quotient scaled by `scale` 2^-k.
        let k = if ty.element() == Some(S::Double) { 300 } else { 40 };
        let raised = self.float_like(2f64.powi(k), ty, loc)?;
        let numerator = self.b.binary(B::Multiply, x, raised);
        let lowered = self.float_like(2f64.powi(-k), &elem, loc)?;
        let back = self.b.binary(B::Multiply, scale, lowered);
        let backs = self.b.splat(size, back);
        let wide = self.b.binary(B::Divide, numerator, lens);
        let exact = self.b.binary(B::Multiply, wide, backs);
        let min_normal = self.float_like(if ty.element() == Some(S::Double) { f64::MIN_POSITIVE } else { f64::from(f32::MIN_POSITIVE) }, ty, loc)?;
        let magnitude = self.b.math(M::Abs, &[xs]);
        let below = self.b.binary(B::Less, magnitude, min_normal);
        let nonzero = self.b.binary(B::NotEqual, x, zero);
        let no = self.b.binary(B::NotEqual, zero, zero);
        let finite_lost = self.b.select(below, nonzero, no);
        let lost = self.b.select(any_inf, no, finite_lost);
        let unit_vec = self.b.select(lost, exact, quotient);
        let elem_zero = self.float_like(0.0, &elem, loc)?;
        let all_zero = self.b.binary(B::Equal, len, elem_zero);
        Ok(self.b.select(all_zero, x, unit_vec))
    }

    /// The geometric functions of scalars, which OpenCL C has (a scalar is a vector of one
    /// component) and GLSL.std.450 has not: dot(a, b) = a b, length(x) = |x|, distance(a, b) =
    /// |a - b|, and normalize(x) = ±1 by the sign of x (of an infinity too), or x itself where
    /// it is zero or NaN (OpenCL C 6.15.6).
    fn scalar_geometric(&mut self, f: MathFn, v: &[H], ty: &T, loc: Loc) -> R<H> {
        Ok(match (f, v) {
            (MathFn::Dot, [a, b]) => self.b.binary(B::Multiply, *a, *b),
            (MathFn::Length, [x]) => self.b.math(M::Abs, &[*x]),
            (MathFn::Distance, [a, b]) => {
                let d = self.b.binary(B::Subtract, *a, *b);
                self.b.math(M::Abs, &[d])
            }
            (MathFn::Normalize, [x]) => {
                let (one, zero) = (self.float_like(1.0, ty, loc)?, self.float_like(0.0, ty, loc)?);
                let unit = self.copysign(one, *x, ty);
                let magnitude = self.b.math(M::Abs, &[*x]);
                // False for zeros and NaN.
                let nonzero = self.b.binary(B::Greater, magnitude, zero);
                self.b.select(nonzero, unit, *x)
            }
            _ => return Err(LowerError::new(loc, "internal: geometric function arguments")),
        })
    }
}
