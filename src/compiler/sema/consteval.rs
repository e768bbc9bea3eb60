//! Constant evaluation of model expressions: array sizes, case labels, enumerators, attribute
//! arguments, and the initial bytes of `__constant` variables. Also folds conversions of
//! literals so the model carries typed constants.

use super::model::{BinaryOp, CmpOp, Expr, ExprKind, LogicOp, Rounding, Scalar, Type, Types, UnaryOp};
use super::Sema;
use crate::compiler::parse::ast;

/// A scalar constant: integers (any width, exact in i128) or floats.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    I(i128),
    F(f64),
}

/// An evaluated constant of any type.
#[derive(Clone, Debug, PartialEq)]
pub enum CValue {
    Num(Num),
    /// Components of a vector, or elements/members of an aggregate.
    List(Vec<CValue>),
    Zero,
}

/// Interprets the bits of an `ExprKind::Int` of scalar type `s`.
pub fn int_value(bits: u64, s: Scalar) -> i128 {
    if s.is_signed() {
        i128::from(bits as i64)
    } else {
        i128::from(bits)
    }
}

/// Truncates an integer to the width of `s` and encodes it as model bits (sign-extended for
/// signed types, 0/1 for bool).
pub fn int_bits(v: i128, s: Scalar) -> u64 {
    let bits = s.size() * 8;
    match s {
        Scalar::Bool => u64::from(v != 0),
        _ if bits == 64 => v as u64,
        _ => {
            let mask = (1u64 << bits) - 1;
            let low = (v as u64) & mask;
            let negative = s.is_signed() && low >> (bits - 1) == 1;
            if negative {
                low | !mask
            } else {
                low
            }
        }
    }
}

/// Rounds a float to the precision of `s`.
pub fn round_float(v: f64, s: Scalar) -> f64 {
    match s {
        Scalar::Double => v,
        Scalar::Half => round_half(v, Rounding::Rte),
        _ => f64::from(v as f32),
    }
}

/// `v` rounded to half precision in `rounding` (to nearest even by default), exactly: the
/// magnitude in units of its half quantum, split into whole units and the fraction dropped.
fn round_half(v: f64, rounding: Rounding) -> f64 {
    const MAX: f64 = 65504.0;
    let a = v.abs();
    if !a.is_finite() || a == 0.0 {
        return v;
    }
    let negative = v < 0.0;
    let e = (((a.to_bits() >> 52) & 0x7ff) as i32 - 1023).max(-14);
    let quantum = 2f64.powi(e - 10);
    let units = a / quantum;
    let (whole, fraction) = (units.floor(), units - units.floor());
    let up = match rounding {
        Rounding::Rte | Rounding::Default => fraction > 0.5 || (fraction == 0.5 && whole % 2.0 == 1.0),
        Rounding::Rtz => false,
        Rounding::Rtp => fraction > 0.0 && !negative,
        Rounding::Rtn => fraction > 0.0 && negative,
    };
    let mut r = (whole + f64::from(u8::from(up))) * quantum;
    if r > MAX {
        let away = matches!((rounding, negative), (Rounding::Rte | Rounding::Default, _) | (Rounding::Rtp, false) | (Rounding::Rtn, true));
        r = if away { f64::INFINITY } else { MAX };
    }
    if negative { -r } else { r }
}

/// The constant `n` converted to scalar `s`, as an expression kind.
pub fn num_kind(n: Num, s: Scalar) -> ExprKind {
    match (n, s.is_float()) {
        (Num::I(v), false) => ExprKind::Int(int_bits(v, s)),
        (Num::F(f), false) if s == Scalar::Bool => ExprKind::Int(u64::from(f != 0.0)),
        // Float → integer truncates toward zero; `as` saturates out-of-range values.
        (Num::F(f), false) => ExprKind::Int(int_bits(f.trunc() as i128, s)),
        // Straight to the target's precision: through f64 first would round twice.
        (Num::I(v), true) if s == Scalar::Float => ExprKind::Float(f64::from(v as f32)),
        // Double: one rounding. Half: an integer that double rounds is far beyond half's range.
        (Num::I(v), true) => ExprKind::Float(round_float(v as f64, s)),
        (Num::F(f), true) => ExprKind::Float(round_float(f, s)),
    }
}

/// The numeric value of a constant expression kind of scalar type `s`.
pub fn kind_num(kind: &ExprKind, s: Scalar) -> Option<Num> {
    match kind {
        ExprKind::Int(bits) => Some(Num::I(int_value(*bits, s))),
        ExprKind::Float(f) => Some(Num::F(*f)),
        ExprKind::Zero => Some(if s.is_float() { Num::F(0.0) } else { Num::I(0) }),
        _ => None,
    }
}

fn truth(n: Num) -> bool {
    match n {
        Num::I(v) => v != 0,
        Num::F(f) => f != 0.0,
    }
}

/// Why a constant could not be evaluated.
pub enum EvalError {
    NotConstant,
    DivByZero,
}

type EResult<T> = Result<T, EvalError>;

/// Evaluates a model expression that must be constant.
pub fn eval(e: &Expr) -> EResult<CValue> {
    let scalar = e.ty.element();
    match &e.kind {
        ExprKind::Int(_) | ExprKind::Float(_) => {
            Ok(CValue::Num(kind_num(&e.kind, scalar.ok_or(EvalError::NotConstant)?).ok_or(EvalError::NotConstant)?))
        }
        ExprKind::Zero => Ok(CValue::Zero),
        ExprKind::Vector(parts) => {
            let mut out = Vec::new();
            for p in parts {
                match eval(p)? {
                    CValue::List(l) => out.extend(l),
                    CValue::Zero => out.extend((0..p.ty.width()).map(|_| zero_num(&p.ty))),
                    n => out.push(n),
                }
            }
            Ok(CValue::List(out))
        }
        ExprKind::Aggregate(items) => Ok(CValue::List(items.iter().map(eval).collect::<EResult<_>>()?)),
        ExprKind::Splat(v) => {
            let n = eval(v)?;
            Ok(CValue::List(vec![n; usize::from(e.ty.width())]))
        }
        ExprKind::Convert { value, sat, rounding } => {
            let to = scalar.ok_or(EvalError::NotConstant)?;
            map_nums(eval(value)?, value.ty.element().ok_or(EvalError::NotConstant)?, &|n| Ok(convert_num(n, to, *sat, *rounding)))
        }
        ExprKind::Unary(op, v) => {
            let s = v.ty.element().ok_or(EvalError::NotConstant)?;
            let result = scalar.ok_or(EvalError::NotConstant)?;
            let vector = v.ty.width() > 1;
            map_nums(eval(v)?, s, &|n| Ok(unary(*op, n, result, vector)))
        }
        ExprKind::Binary(op, l, r) => {
            let s = scalar.ok_or(EvalError::NotConstant)?;
            zip_nums(eval(l)?, eval(r)?, s, &|a, b| binary(*op, a, b, s))
        }
        ExprKind::Compare(op, l, r) => {
            let s = l.ty.element().ok_or(EvalError::NotConstant)?;
            let t = if e.ty.width() > 1 { -1 } else { 1 };
            zip_nums(eval(l)?, eval(r)?, s, &|a, b| Ok(Num::I(if compare(*op, a, b) { t } else { 0 })))
        }
        ExprKind::Logic(op, l, r) if e.ty.width() == 1 => {
            let a = truth(scalar_num(eval(l)?, l)?);
            let value = match op {
                LogicOp::And => a && truth(scalar_num(eval(r)?, r)?),
                LogicOp::Or => a || truth(scalar_num(eval(r)?, r)?),
            };
            Ok(CValue::Num(Num::I(i128::from(value))))
        }
        ExprKind::Cond(c, a, b) => {
            if truth(scalar_num(eval(c)?, c)?) {
                eval(a)
            } else {
                eval(b)
            }
        }
        ExprKind::Comma(_, b) => eval(b),
        _ => Err(EvalError::NotConstant),
    }
}

fn zero_num(ty: &Type) -> CValue {
    CValue::Num(if ty.element().is_some_and(Scalar::is_float) { Num::F(0.0) } else { Num::I(0) })
}

fn scalar_num(v: CValue, e: &Expr) -> EResult<Num> {
    match v {
        CValue::Num(n) => Ok(n),
        CValue::Zero => match zero_num(&e.ty) {
            CValue::Num(n) => Ok(n),
            _ => Err(EvalError::NotConstant),
        },
        CValue::List(_) => Err(EvalError::NotConstant),
    }
}

/// Applies `f` to a scalar or to each component of a vector (of element type `s`).
fn map_nums(v: CValue, s: Scalar, f: &dyn Fn(Num) -> EResult<Num>) -> EResult<CValue> {
    match v {
        CValue::Num(n) => Ok(CValue::Num(f(n)?)),
        CValue::Zero => f(if s.is_float() { Num::F(0.0) } else { Num::I(0) }).map(CValue::Num),
        CValue::List(items) => {
            Ok(CValue::List(items.into_iter().map(|i| map_nums(i, s, f)).collect::<EResult<_>>()?))
        }
    }
}

fn zip_nums(a: CValue, b: CValue, s: Scalar, f: &dyn Fn(Num, Num) -> EResult<Num>) -> EResult<CValue> {
    let zero = || if s.is_float() { Num::F(0.0) } else { Num::I(0) };
    match (a, b) {
        (CValue::List(x), CValue::List(y)) => Ok(CValue::List(
            x.into_iter().zip(y).map(|(p, q)| zip_nums(p, q, s, f)).collect::<EResult<_>>()?,
        )),
        (CValue::List(x), other) => {
            Ok(CValue::List(x.into_iter().map(|p| zip_nums(p, other.clone(), s, f)).collect::<EResult<_>>()?))
        }
        (other, CValue::List(y)) => {
            Ok(CValue::List(y.into_iter().map(|q| zip_nums(other.clone(), q, s, f)).collect::<EResult<_>>()?))
        }
        (p, q) => {
            let p = if let CValue::Num(n) = p { n } else { zero() };
            let q = if let CValue::Num(n) = q { n } else { zero() };
            Ok(CValue::Num(f(p, q)?))
        }
    }
}

/// `convert_T[_sat][_mode](n)`; implicit conversions have no `sat` and the default rounding.
fn convert_num(n: Num, to: Scalar, sat: bool, rounding: Rounding) -> Num {
    let bits = to.size() * 8;
    let (lo, hi) = match to {
        _ if to.is_signed() => (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1),
        _ => (0, (1i128 << bits) - 1),
    };
    let saturate = sat && to.is_integer() && to != Scalar::Bool;
    match (n, to.is_float()) {
        (Num::I(v), false) if saturate => Num::I(v.clamp(lo, hi)),
        (Num::F(f), false) if to != Scalar::Bool => {
            let f = match rounding {
                Rounding::Rte => f.round_ties_even(),
                Rounding::Rtp => f.ceil(),
                Rounding::Rtn => f.floor(),
                Rounding::Rtz | Rounding::Default => f.trunc(),
            };
            match saturate {
                true if f.is_nan() => Num::I(0),
                true if f <= lo as f64 => Num::I(lo),
                true if f >= hi as f64 => Num::I(hi),
                _ => Num::I(int_value(int_bits(f as i128, to), to)),
            }
        }
        // Rust's conversions round to nearest; a directed mode moves the result one step
        // where it lies on the wrong side of the exact value (compared exactly: |v| < 2^64).
        (Num::I(v), true) if to == Scalar::Half => Num::F(round_half(v as f64, rounding)),
        (Num::F(f), true) if to == Scalar::Half => Num::F(round_half(f, rounding)),
        (Num::I(v), true) => {
            let r = if to == Scalar::Double { v as f64 } else { f64::from(v as f32) };
            Num::F(directed(r, (r as i128).cmp(&v), rounding, to != Scalar::Double))
        }
        (Num::F(f), true) if to != Scalar::Double => {
            let r = f64::from(f as f32);
            Num::F(r.partial_cmp(&f).map_or(r, |c| directed(r, c, rounding, true)))
        }
        _ => match num_kind(n, to) {
            ExprKind::Int(bits) => Num::I(int_value(bits, to)),
            ExprKind::Float(f) => Num::F(f),
            _ => n,
        },
    }
}

/// `r`, the value rounded to nearest, moved to its neighbour in float (`single`) or double
/// where `rounding` wants the other side of the exact value (`order` is r against it).
fn directed(r: f64, order: std::cmp::Ordering, rounding: Rounding, single: bool) -> f64 {
    use std::cmp::Ordering::{Greater, Less};
    let up = match (rounding, order) {
        (Rounding::Rtp, Less) => true,
        (Rounding::Rtn, Greater) => false,
        (Rounding::Rtz, Greater) if r > 0.0 => false,
        (Rounding::Rtz, Less) if r < 0.0 => true,
        _ => return r,
    };
    match (single, up) {
        (true, true) => f64::from((r as f32).next_up()),
        (true, false) => f64::from((r as f32).next_down()),
        (false, true) => r.next_up(),
        (false, false) => r.next_down(),
    }
}

fn unary(op: UnaryOp, n: Num, result: Scalar, vector: bool) -> Num {
    match (op, n) {
        (UnaryOp::Neg, Num::I(v)) => Num::I(int_value(int_bits(-v, result), result)),
        (UnaryOp::Neg, Num::F(f)) => Num::F(-f),
        (UnaryOp::BitNot, Num::I(v)) => Num::I(int_value(int_bits(!v, result), result)),
        (UnaryOp::Not, n) => Num::I(match (truth(n), vector) {
            (true, _) => 0,
            (false, true) => -1,
            (false, false) => 1,
        }),
        (_, n) => n,
    }
}

fn binary(op: BinaryOp, a: Num, b: Num, s: Scalar) -> EResult<Num> {
    let wrap = |v: i128| Num::I(int_value(int_bits(v, s), s));
    Ok(match (a, b) {
        (Num::I(x), Num::I(y)) => match op {
            BinaryOp::Add => wrap(x + y),
            BinaryOp::Sub => wrap(x - y),
            BinaryOp::Mul => wrap(x.wrapping_mul(y)),
            BinaryOp::Div | BinaryOp::Rem if y == 0 => return Err(EvalError::DivByZero),
            BinaryOp::Div => wrap(x / y),
            BinaryOp::Rem => wrap(x % y),
            BinaryOp::BitAnd => wrap(x & y),
            BinaryOp::BitOr => wrap(x | y),
            BinaryOp::BitXor => wrap(x ^ y),
            BinaryOp::Shl => wrap(x << (y & 127)),
            BinaryOp::Shr => wrap(x >> (y & 127)),
        },
        (Num::F(x), Num::F(y)) => Num::F(round_float(
            match op {
                BinaryOp::Add => x + y,
                BinaryOp::Sub => x - y,
                BinaryOp::Mul => x * y,
                BinaryOp::Div => x / y,
                _ => return Err(EvalError::NotConstant),
            },
            s,
        )),
        _ => return Err(EvalError::NotConstant),
    })
}

fn compare(op: CmpOp, a: Num, b: Num) -> bool {
    let ord = match (a, b) {
        (Num::I(x), Num::I(y)) => x.partial_cmp(&y),
        (Num::F(x), Num::F(y)) => x.partial_cmp(&y),
        _ => None,
    };
    use std::cmp::Ordering::*;
    match op {
        CmpOp::Eq => ord == Some(Equal),
        CmpOp::Ne => ord != Some(Equal),
        CmpOp::Lt => ord == Some(Less),
        CmpOp::Le => matches!(ord, Some(Less | Equal)),
        CmpOp::Gt => ord == Some(Greater),
        CmpOp::Ge => matches!(ord, Some(Greater | Equal)),
    }
}

/// The bytes of a constant of type `ty` in the OpenCL C layout (little-endian).
pub fn to_bytes(v: &CValue, ty: &Type, types: &Types) -> Option<Vec<u8>> {
    let mut out = vec![0u8; usize::try_from(types.size_of(ty)).ok()?];
    write_bytes(v, ty, types, &mut out, 0)?;
    Some(out)
}

fn write_bytes(v: &CValue, ty: &Type, types: &Types, out: &mut [u8], at: usize) -> Option<()> {
    if *v == CValue::Zero {
        return Some(());
    }
    match (ty, v) {
        (Type::Scalar(s) | Type::Atomic(s), CValue::Num(n)) => write_scalar(*n, *s, out, at),
        (Type::Vector(s, _), CValue::List(items)) => {
            let step = s.size() as usize;
            items.iter().enumerate().try_for_each(|(i, item)| match item {
                CValue::Num(n) => write_scalar(*n, *s, out, at + i * step),
                _ => Some(()),
            })
        }
        (Type::Array { elem, .. }, CValue::List(items)) => {
            let step = usize::try_from(types.size_of(elem)).ok()?;
            items.iter().enumerate().try_for_each(|(i, item)| write_bytes(item, elem, types, out, at + i * step))
        }
        (Type::Record(id), CValue::List(items)) => {
            let record = types.record(*id)?;
            items.iter().zip(&record.members).try_for_each(|(item, m)| {
                write_bytes(item, &m.ty, types, out, at + m.offset as usize)
            })
        }
        _ => None,
    }
}

fn write_scalar(n: Num, s: Scalar, out: &mut [u8], at: usize) -> Option<()> {
    let size = s.size() as usize;
    let bytes: [u8; 8] = match (convert_num(n, s, false, Rounding::Default), s) {
        (Num::F(f), Scalar::Double) => f.to_le_bytes(),
        (Num::F(f), Scalar::Float) => u64::from((f as f32).to_bits()).to_le_bytes(),
        (Num::F(f), _) => u64::from(half_bits(f)).to_le_bytes(),
        (Num::I(v), _) => int_bits(v, s).to_le_bytes(),
    };
    out.get_mut(at..at + size)?.copy_from_slice(bytes.get(..size)?);
    Some(())
}

/// IEEE binary16 bits of `v`, a value half holds exactly (as `round_half` gives them).
fn half_bits(v: f64) -> u16 {
    let sign = if v.is_sign_negative() { 0x8000 } else { 0 };
    let a = v.abs();
    if a.is_nan() {
        return sign | 0x7e00;
    }
    if a.is_infinite() {
        return sign | 0x7c00;
    }
    if a < 2f64.powi(-14) {
        return sign | (a * 2f64.powi(24)) as u16;
    }
    let e = ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    sign | (((e + 15) as u16) << 10) | ((a * 2f64.powi(10 - e)) as u16 - 1024)
}

impl Sema<'_> {
    /// An integer constant expression of the source (array sizes, case labels, enumerators).
    pub(super) fn const_int(&mut self, e: &ast::Expr) -> Option<i128> {
        self.typed_const_int(e).map(|(v, _)| v)
    }

    /// An integer constant expression's value (exact, whatever its type) and its type.
    pub(super) fn typed_const_int(&mut self, e: &ast::Expr) -> Option<(i128, Scalar)> {
        let value = self.expr(e)?;
        let Some(ty) = value.ty.scalar().filter(|s| !s.is_float()) else {
            return self.err(e.loc, "expected an integer constant expression");
        };
        match self.eval_expr(&value)? {
            CValue::Num(Num::I(v)) => Some((v, ty)),
            CValue::Zero => Some((0, ty)),
            _ => self.err(e.loc, "expected an integer constant expression"),
        }
    }

    /// Evaluates a model expression that must be constant, reporting why not.
    pub(super) fn eval_expr(&mut self, e: &Expr) -> Option<CValue> {
        match eval(e) {
            Ok(v) => Some(v),
            Err(EvalError::NotConstant) => self.err(e.loc, "expression is not a compile-time constant"),
            Err(EvalError::DivByZero) => self.err(e.loc, "division by zero in a constant expression"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int_bits_truncate_and_sign_extend() {
        assert_eq!(int_bits(-1, Scalar::Int), u64::MAX);
        assert_eq!(int_bits(-1, Scalar::UInt), 0xffff_ffff);
        assert_eq!(int_bits(300, Scalar::UChar), 44);
        assert_eq!(int_bits(200, Scalar::Char), (-56i64) as u64);
        assert_eq!(int_value(int_bits(200, Scalar::Char), Scalar::Char), -56);
        assert_eq!(int_bits(5, Scalar::Bool), 1);
    }

    #[test]
    fn half_conversion() {
        let rte = |v: f64| half_bits(round_half(v, Rounding::Rte));
        assert_eq!(rte(1.0), 0x3c00);
        assert_eq!(rte(-2.0), 0xc000);
        assert_eq!(rte(65504.0), 0x7bff);
        assert_eq!(rte(65519.0), 0x7bff);
        assert_eq!(rte(65520.0), 0x7c00);
        assert_eq!(rte(1e6), 0x7c00);
        assert_eq!(rte(2f64.powi(-24)), 0x0001);
        assert_eq!(rte(2f64.powi(-25)), 0x0000);
        assert_eq!(rte(1.5 * 2f64.powi(-24)), 0x0002);
        // 0.001 lies between 0x1418 and 0x1419, nearer the second.
        assert_eq!(rte(0.001), 0x1419);
        assert_eq!(half_bits(round_half(0.001, Rounding::Rtz)), 0x1418);
        assert_eq!(half_bits(round_half(-0.001, Rounding::Rtp)), 0x9418);
        assert_eq!(half_bits(round_half(-0.001, Rounding::Rtn)), 0x9419);
        assert_eq!(half_bits(round_half(1e6, Rounding::Rtz)), 0x7bff);
        assert_eq!(half_bits(round_half(-1e6, Rounding::Rtp)), 0xfbff);
    }
}
