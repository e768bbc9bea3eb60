//! Conversions: integer promotion, the usual arithmetic conversions (with OpenCL's scalar →
//! vector widening), conversion on assignment with its checks (A5 among them), and the
//! explicit nodes that carry them.

use super::consteval::{kind_num, num_kind};
use super::model::{CmpOp, Expr, ExprKind, Rounding, Scalar, Space, Type};
use super::{pointee_space, space_name, Sema};
use crate::compiler::source::Loc;

/// The rank order of C's usual arithmetic conversions for integers.
fn int_rank(s: Scalar) -> u8 {
    match s {
        Scalar::Bool => 0,
        Scalar::Char | Scalar::UChar => 1,
        Scalar::Short | Scalar::UShort => 2,
        Scalar::Int | Scalar::UInt => 3,
        _ => 4,
    }
}

/// The unsigned integer type of the same width.
pub fn to_unsigned(s: Scalar) -> Scalar {
    match s {
        Scalar::Char => Scalar::UChar,
        Scalar::Short => Scalar::UShort,
        Scalar::Int => Scalar::UInt,
        Scalar::Long => Scalar::ULong,
        s => s,
    }
}

/// Integer promotion of a scalar type: everything narrower than `int` becomes `int`.
pub fn promoted(s: Scalar) -> Scalar {
    if s.is_integer() && int_rank(s) < 3 || s == Scalar::Bool {
        Scalar::Int
    } else {
        s
    }
}

/// The common type of two scalars (C99 6.3.1.8).
pub fn common_scalar(a: Scalar, b: Scalar) -> Scalar {
    for f in [Scalar::Double, Scalar::Float, Scalar::Half] {
        if a == f || b == f {
            return f;
        }
    }
    let (a, b) = (promoted(a), promoted(b));
    if a == b {
        return a;
    }
    if a.is_signed() == b.is_signed() {
        return if int_rank(a) >= int_rank(b) { a } else { b };
    }
    let (s, u) = if a.is_signed() { (a, b) } else { (b, a) };
    if int_rank(u) >= int_rank(s) {
        u
    } else if s.size() > u.size() {
        s
    } else {
        to_unsigned(s)
    }
}

/// `e` is a null pointer constant: an integer constant 0, or `NULL` / `(void*)0` (a zero of a
/// pointer type, which converts to a pointer into any space).
fn is_null_constant(e: &Expr) -> bool {
    match e.kind {
        ExprKind::Int(0) => e.ty.scalar().is_some_and(|s| s.is_integer()),
        ExprKind::Zero => e.ty.is_pointer(),
        _ => false,
    }
}

impl Sema<'_> {
    /// Numeric conversion of a scalar or vector to `ty`: `Convert`, and `Splat` for a scalar
    /// to a vector. Constants are folded. No checks: callers decide what is allowed.
    pub(super) fn convert(&self, e: Expr, ty: &Type) -> Expr {
        if e.ty == *ty {
            return e;
        }
        let loc = e.loc;
        match (ty, e.ty.width()) {
            (Type::Vector(s, _), 1) => {
                let scalar = self.convert(e, &Type::Scalar(*s));
                Expr { kind: ExprKind::Splat(Box::new(scalar)), ty: ty.clone(), loc }
            }
            (Type::Scalar(to), 1) => {
                let folded = e.ty.scalar().and_then(|from| kind_num(&e.kind, from));
                match folded {
                    Some(n) => Expr { kind: num_kind(n, *to), ty: ty.clone(), loc },
                    None => Self::convert_node(e, ty),
                }
            }
            _ => Self::convert_node(e, ty),
        }
    }

    fn convert_node(e: Expr, ty: &Type) -> Expr {
        let loc = e.loc;
        Expr {
            kind: ExprKind::Convert { value: Box::new(e), sat: false, rounding: Rounding::Default },
            ty: ty.clone(),
            loc,
        }
    }

    /// Integer promotion of a scalar operand (vectors are not promoted).
    pub(super) fn promote(&self, e: Expr) -> Expr {
        match e.ty.scalar() {
            Some(s) if promoted(s) != s => self.convert(e, &Type::Scalar(promoted(s))),
            _ => e,
        }
    }

    /// The type both operands of an arithmetic operator convert to: the usual arithmetic
    /// conversions for scalars; a vector with a scalar gives the vector (the scalar converts
    /// to its element type); two vectors must have the same type.
    pub(super) fn common_type(&mut self, a: &Type, b: &Type, loc: Loc) -> Option<Type> {
        match (a, b) {
            (Type::Scalar(x), Type::Scalar(y)) => Some(Type::Scalar(common_scalar(*x, *y))),
            (Type::Vector(..), Type::Scalar(_)) => Some(a.clone()),
            (Type::Scalar(_), Type::Vector(..)) => Some(b.clone()),
            (Type::Vector(..), Type::Vector(..)) if a == b => Some(a.clone()),
            _ => self.err(
                loc,
                format!("invalid operands: '{}' and '{}'", self.type_str(a), self.type_str(b)),
            ),
        }
    }

    /// A scalar condition (`if`, loops, `?:`, `&&`, `!`) as `bool`: numbers compare with 0,
    /// pointers with null.
    pub(super) fn truth_value(&mut self, e: Expr) -> Option<Expr> {
        let loc = e.loc;
        match &e.ty {
            Type::Scalar(_) => Some(self.convert(e, &Type::Scalar(Scalar::Bool))),
            Type::Pointer { .. } => {
                let null = Expr { kind: ExprKind::Zero, ty: e.ty.clone(), loc };
                let ne = Expr {
                    kind: ExprKind::Compare(CmpOp::Ne, Box::new(e), Box::new(null)),
                    ty: Type::Scalar(Scalar::Int),
                    loc,
                };
                Some(self.convert(ne, &Type::Scalar(Scalar::Bool)))
            }
            t => self.err(loc, format!("'{}' cannot be used as a condition; a scalar is required", self.type_str(t))),
        }
    }

    /// Conversion as if by assignment to a `ty` (initializers, arguments, `return`), with
    /// OpenCL's rules: arithmetic scalars convert freely, a scalar widens to a vector, vectors
    /// never convert implicitly, pointers keep their address space (A5) and pointee type.
    pub(super) fn assign_convert(&mut self, e: Expr, ty: &Type, what: &str) -> Option<Expr> {
        if e.ty == *ty {
            return Some(e);
        }
        let loc = e.loc;
        match (&e.ty, ty) {
            (Type::Scalar(_), Type::Scalar(_) | Type::Vector(..)) => Some(self.convert(e, ty)),
            (Type::Scalar(s), Type::Sampler) if s.is_integer() => self.int_to_sampler(e, what),
            (Type::Vector(..), Type::Vector(..)) => self.err(
                loc,
                format!(
                    "cannot convert '{}' to '{}' implicitly in {what}; use convert_{}()",
                    self.type_str(&e.ty),
                    self.type_str(ty),
                    self.type_str(ty)
                ),
            ),
            (Type::Scalar(_) | Type::Pointer { .. }, Type::Pointer { .. }) if is_null_constant(&e) => {
                Some(Expr { kind: ExprKind::Zero, ty: ty.clone(), loc })
            }
            (Type::Pointer { pointee: from, space: fs, quals: fq }, Type::Pointer { pointee: to, space: ts, quals: tq }) => {
                if fs != ts && !to_generic(*fs, *ts) {
                    return self.err(
                        loc,
                        format!(
                            "{what} changes the address space of a pointer: '{}' to '{}' (pointers to {} and {} are not compatible)",
                            self.type_str(&e.ty),
                            self.type_str(ty),
                            space_name(*fs),
                            space_name(*ts)
                        ),
                    );
                }
                let void = matches!(**from, Type::Void) || matches!(**to, Type::Void);
                // A warning as in C compilers (piglit's generated tests rely on it); the
                // conversion is the cast it would be if written.
                if from != to && !void {
                    let message = format!("incompatible pointer types in {what}: '{}' to '{}'", self.type_str(&e.ty), self.type_str(ty));
                    self.diags.warning(loc, message);
                }
                // __constant data is read-only whether or not it says const.
                if fq.is_const && !tq.is_const && *fs != Space::Constant {
                    self.diags.warning(loc, format!("{what} discards the 'const' qualifier of the pointee"));
                }
                let ty = ty.clone();
                Some(if from == to && fs == ts { Expr { ty, ..e } } else { Expr { kind: ExprKind::PtrCast(Box::new(e)), ty, loc } })
            }
            (Type::Record(a), Type::Record(b)) if a == b => Some(e),
            // `event_t` is a pointer in clang's OpenCL C: the null constant `0` is an event.
            (Type::Scalar(_), Type::Record(id)) if self.event == Some(*id) && is_null_constant(&e) => {
                Some(Expr { kind: ExprKind::Zero, ty: ty.clone(), loc })
            }
            _ => self.err(
                loc,
                format!("cannot convert '{}' to '{}' in {what}", self.type_str(&e.ty), self.type_str(ty)),
            ),
        }
    }

    /// An explicit cast `(ty)e`.
    pub(super) fn cast(&mut self, e: Expr, ty: &Type, loc: Loc) -> Option<Expr> {
        if e.ty == *ty || matches!(ty, Type::Void) {
            return Some(e);
        }
        match (&e.ty, ty) {
            (Type::Scalar(_), Type::Scalar(_) | Type::Vector(..)) => Some(self.convert(e, ty)),
            (Type::Vector(..), Type::Vector(..) | Type::Scalar(_)) => self.err(
                loc,
                format!(
                    "cannot cast '{}' to '{}': use convert_{}() or as_{}()",
                    self.type_str(&e.ty),
                    self.type_str(ty),
                    self.type_str(ty),
                    self.type_str(ty)
                ),
            ),
            (Type::Scalar(_) | Type::Pointer { .. }, Type::Pointer { .. }) if is_null_constant(&e) => {
                Some(Expr { kind: ExprKind::Zero, ty: ty.clone(), loc })
            }
            (Type::Pointer { .. }, Type::Pointer { .. }) => {
                let (from, to) = (pointee_space(&e.ty), pointee_space(ty));
                let generic = matches!((from, to), (Some(a), Some(b)) if to_generic(a, b) || to_generic(b, a));
                if from != to && !generic {
                    return self.err(
                        loc,
                        format!(
                            "casting '{}' to '{}' converts between address spaces, which is not allowed",
                            self.type_str(&e.ty),
                            self.type_str(ty)
                        ),
                    );
                }
                Some(Expr { kind: ExprKind::PtrCast(Box::new(e)), ty: ty.clone(), loc })
            }
            (Type::Scalar(s), Type::Pointer { .. }) if s.is_integer() => {
                Some(Expr { kind: ExprKind::IntToPtr(Box::new(e)), ty: ty.clone(), loc })
            }
            (Type::Pointer { .. }, Type::Scalar(s)) if s.is_integer() => {
                Some(Expr { kind: ExprKind::PtrToInt(Box::new(e)), ty: ty.clone(), loc })
            }
            _ => self.err(loc, format!("cannot cast '{}' to '{}'", self.type_str(&e.ty), self.type_str(ty))),
        }
    }
}

/// A pointer into `from` converts to a generic pointer (implicitly; back only by a cast).
fn to_generic(from: Space, to: Space) -> bool {
    to == Space::Generic && matches!(from, Space::Global | Space::Local | Space::Private)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usual_arithmetic_conversions() {
        use Scalar::*;
        assert_eq!(common_scalar(Char, UChar), Int);
        assert_eq!(common_scalar(Int, UInt), UInt);
        assert_eq!(common_scalar(Long, UInt), Long);
        assert_eq!(common_scalar(Int, ULong), ULong);
        assert_eq!(common_scalar(Long, ULong), ULong);
        assert_eq!(common_scalar(ULong, Float), Float);
        assert_eq!(common_scalar(Float, Double), Double);
        assert_eq!(common_scalar(Short, Bool), Int);
    }
}
