//! Arithmetic on naga literals, with the results the SPIR-V operations would give, so that
//! the builder can compute operations on constants itself (see `FnBuilder::expr`). Every
//! function returns `None` where the operation has no defined result (a division by zero, a
//! shift by the width or more, a float result that is not finite: naga cannot hold it as a
//! literal) or where it is not handled here.

use naga::{BinaryOperator as B, Literal, MathFunction as M, ScalarKind as K, UnaryOperator as U};

/// An integer literal as a value wide enough for every operation, with its signedness and
/// width in bits.
fn int(l: Literal) -> Option<(i128, bool, u32)> {
    Some(match l {
        Literal::I32(v) => (v.into(), true, 32),
        Literal::U32(v) => (v.into(), false, 32),
        Literal::I64(v) => (v.into(), true, 64),
        Literal::U64(v) => (v.into(), false, 64),
        _ => return None,
    })
}

/// `v` wrapped to the integer type of `like` (two's complement).
fn int_like(like: Literal, v: i128) -> Option<Literal> {
    Some(match like {
        Literal::I32(_) => Literal::I32(v as i32),
        Literal::U32(_) => Literal::U32(v as u32),
        Literal::I64(_) => Literal::I64(v as i64),
        Literal::U64(_) => Literal::U64(v as u64),
        _ => return None,
    })
}

/// `a op b`.
pub fn binary(op: B, a: Literal, b: Literal) -> Option<Literal> {
    if let (Some((x, signed, bits)), Some((y, _, _))) = (int(a), int(b)) {
        return int_binary(op, a, x, y, signed, bits);
    }
    match (a, b) {
        (Literal::F32(x), Literal::F32(y)) => float_binary(op, x.into(), y.into(), true),
        (Literal::F64(x), Literal::F64(y)) => float_binary(op, x, y, false),
        (Literal::Bool(x), Literal::Bool(y)) => Some(Literal::Bool(match op {
            B::Equal => x == y,
            B::NotEqual => x != y,
            B::LogicalAnd | B::And => x && y,
            B::LogicalOr | B::InclusiveOr => x || y,
            _ => return None,
        })),
        _ => None,
    }
}

/// `x op y` for the comparison operators, of integers or floats (NaN compares unequal).
fn comparison<T: PartialOrd>(op: B, x: T, y: T) -> Option<Literal> {
    let c = match op {
        B::Equal => x == y,
        B::NotEqual => x != y,
        B::Less => x < y,
        B::LessEqual => x <= y,
        B::Greater => x > y,
        B::GreaterEqual => x >= y,
        _ => return None,
    };
    Some(Literal::Bool(c))
}

/// Integer `x op y` of the type of `a` (shift counts are u32 whatever the type of `a`).
fn int_binary(op: B, a: Literal, x: i128, y: i128, signed: bool, bits: u32) -> Option<Literal> {
    if let Some(c) = comparison(op, x, y) {
        return Some(c);
    }
    let min = if signed { -(1i128 << (bits - 1)) } else { 0 };
    let v = match op {
        B::Add => x.wrapping_add(y),
        B::Subtract => x.wrapping_sub(y),
        B::Multiply => x.wrapping_mul(y),
        // Undefined for a zero divisor, and for the smallest value divided by -1.
        B::Divide | B::Modulo if y == 0 || (x == min && y == -1 && signed) => return None,
        B::Divide => x / y,
        B::Modulo => x % y,
        B::And => x & y,
        B::InclusiveOr => x | y,
        B::ExclusiveOr => x ^ y,
        B::ShiftLeft | B::ShiftRight if !(0..i128::from(bits)).contains(&y) => return None,
        B::ShiftLeft => x << y,
        // x holds the value itself: an arithmetic shift for signed types, a logical one otherwise.
        B::ShiftRight => x >> y,
        _ => return None,
    };
    int_like(a, v)
}

/// Float `x op y` (`single`: of f32 operands; for those, the f64 result of +, -, * and / rounded
/// to f32 is the correctly rounded one: f64 has over twice the bits).
fn float_binary(op: B, x: f64, y: f64, single: bool) -> Option<Literal> {
    if let Some(c) = comparison(op, x, y) {
        return Some(c);
    }
    let r = match op {
        B::Add => x + y,
        B::Subtract => x - y,
        B::Multiply => x * y,
        B::Divide => x / y,
        // The remainder of truncated division is exact in either width.
        B::Modulo => x % y,
        _ => return None,
    };
    float_like(r, single)
}

fn float_like(r: f64, single: bool) -> Option<Literal> {
    match single {
        true => Some(Literal::F32(r as f32)).filter(|_| (r as f32).is_finite()),
        false => Some(Literal::F64(r)).filter(|_| r.is_finite()),
    }
}

/// `op a`.
pub fn unary(op: U, a: Literal) -> Option<Literal> {
    match (op, a) {
        (U::LogicalNot, Literal::Bool(x)) => Some(Literal::Bool(!x)),
        (U::Negate, Literal::F32(x)) => Some(Literal::F32(-x)),
        (U::Negate, Literal::F64(x)) => Some(Literal::F64(-x)),
        (U::Negate, _) => int_like(a, int(a)?.0.wrapping_neg()),
        (U::BitwiseNot, _) => int_like(a, !int(a)?.0),
        _ => None,
    }
}

/// `fun(a)` for the functions exact in either float width.
pub fn math(fun: M, a: Literal) -> Option<Literal> {
    let f: fn(f64) -> f64 = match fun {
        M::Abs => f64::abs,
        M::Trunc => f64::trunc,
        M::Floor => f64::floor,
        M::Ceil => f64::ceil,
        M::Round => f64::round_ties_even,
        _ => return None,
    };
    match a {
        Literal::F32(v) => Some(Literal::F32(f(f64::from(v)) as f32)),
        Literal::F64(v) => Some(Literal::F64(f(v))),
        _ => None,
    }
}

/// A literal converted (`convert: Some(width)`) or reinterpreted (`None`) as `kind`; `None`
/// when not foldable here (bool, or a non-finite result naga cannot hold).
pub fn cast(l: Literal, kind: K, convert: Option<u8>) -> Option<Literal> {
    enum V {
        I(i128),
        F(f64),
    }
    let (value, bits, width) = match l {
        Literal::I16(v) => (V::I(v.into()), u64::from(v as u16), 2),
        Literal::U16(v) => (V::I(v.into()), u64::from(v), 2),
        Literal::I32(v) => (V::I(v.into()), u64::from(v as u32), 4),
        Literal::U32(v) => (V::I(v.into()), u64::from(v), 4),
        Literal::I64(v) => (V::I(v.into()), v as u64, 8),
        Literal::U64(v) => (V::I(v.into()), v, 8),
        Literal::F32(v) => (V::F(v.into()), u64::from(v.to_bits()), 4),
        Literal::F64(v) => (V::F(v), v.to_bits(), 8),
        _ => return None,
    };
    let out = match (kind, convert.unwrap_or(width)) {
        (K::Sint | K::Uint, w) => {
            let n: i128 = match (convert, value) {
                (None, _) => bits.into(),
                (Some(_), V::I(i)) => i,
                (Some(_), V::F(f)) => f as i128,
            };
            match (kind, w) {
                (K::Sint, 2) => Literal::I16(n as i16),
                (K::Uint, 2) => Literal::U16(n as u16),
                (K::Sint, 4) => Literal::I32(n as i32),
                (K::Uint, 4) => Literal::U32(n as u32),
                (K::Sint, 8) => Literal::I64(n as i64),
                (K::Uint, 8) => Literal::U64(n as u64),
                _ => return None,
            }
        }
        (K::Float, w) => {
            let f = match (convert, value) {
                (None, _) if w == 4 => f64::from(f32::from_bits(bits as u32)),
                (None, _) => f64::from_bits(bits),
                (Some(_), V::I(i)) => i as f64,
                (Some(_), V::F(f)) => f,
            };
            match w {
                // (A finite double may round to an infinite float.)
                4 if (f as f32).is_finite() => Literal::F32(f as f32),
                8 if f.is_finite() => Literal::F64(f),
                // f16 literals need the `half` crate: leave those to naga.
                _ => return None,
            }
        }
        _ => return None,
    };
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_operations_wrap_and_undefined_ones_are_not_folded() {
        assert_eq!(binary(B::Add, Literal::I32(i32::MAX), Literal::I32(1)), Some(Literal::I32(i32::MIN)));
        assert_eq!(binary(B::Multiply, Literal::U64(u64::MAX), Literal::U64(3)), Some(Literal::U64(u64::MAX - 2)));
        assert_eq!(binary(B::Divide, Literal::I32(-7), Literal::I32(2)), Some(Literal::I32(-3)));
        assert_eq!(binary(B::Modulo, Literal::I32(-7), Literal::I32(2)), Some(Literal::I32(-1)));
        assert_eq!(binary(B::Divide, Literal::I32(1), Literal::I32(0)), None);
        assert_eq!(binary(B::Modulo, Literal::U32(1), Literal::U32(0)), None);
        assert_eq!(binary(B::Divide, Literal::I64(i64::MIN), Literal::I64(-1)), None);
        assert_eq!(binary(B::Divide, Literal::U32(u32::MAX), Literal::U32(u32::MAX)), Some(Literal::U32(1)));
        // 1 << 31 and a char's (200 << 24) >> 24 (naga's evaluator calls both an overflow).
        assert_eq!(binary(B::ShiftLeft, Literal::I32(1), Literal::U32(31)), Some(Literal::I32(i32::MIN)));
        let up = binary(B::ShiftLeft, Literal::I32(200), Literal::U32(24));
        assert_eq!(up.and_then(|u| binary(B::ShiftRight, u, Literal::U32(24))), Some(Literal::I32(-56)));
        assert_eq!(binary(B::ShiftRight, Literal::U32(0x8000_0000), Literal::U32(31)), Some(Literal::U32(1)));
        assert_eq!(binary(B::ShiftLeft, Literal::I64(1), Literal::U32(64)), None);
        assert_eq!(binary(B::Less, Literal::I32(-1), Literal::I32(0)), Some(Literal::Bool(true)));
        assert_eq!(binary(B::Less, Literal::U32(u32::MAX), Literal::U32(0)), Some(Literal::Bool(false)));
        assert_eq!(unary(U::Negate, Literal::I32(i32::MIN)), Some(Literal::I32(i32::MIN)));
        assert_eq!(unary(U::BitwiseNot, Literal::U32(0)), Some(Literal::U32(u32::MAX)));
    }

    #[test]
    fn float_operations_fold_only_to_finite_values() {
        assert_eq!(binary(B::Divide, Literal::F32(1.0), Literal::F32(3.0)), Some(Literal::F32(1.0 / 3.0)));
        assert_eq!(binary(B::Divide, Literal::F32(1.0), Literal::F32(0.0)), None);
        assert_eq!(binary(B::Multiply, Literal::F32(3e38), Literal::F32(10.0)), None);
        assert_eq!(binary(B::Modulo, Literal::F64(-7.5), Literal::F64(2.0)), Some(Literal::F64(-1.5)));
        assert_eq!(binary(B::Modulo, Literal::F64(1.0), Literal::F64(0.0)), None);
        assert_eq!(binary(B::GreaterEqual, Literal::F64(2.0), Literal::F64(2.0)), Some(Literal::Bool(true)));
        assert_eq!(cast(Literal::F64(1e300), K::Float, Some(4)), None);
        assert_eq!(math(M::Floor, Literal::F32(-1.5)), Some(Literal::F32(-2.0)));
    }
}
