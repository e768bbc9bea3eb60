//! Names OpenCL C predefines as constants: `true`/`false`, `NULL`, memory-fence flags, math constants (`M_PI_F`...),
//! float and integer limits (`FLT_MAX`, `INT_MAX`...). The preprocessor may define them as
//! macros; when it does not, an identifier with one of these names means the constant.

use super::model::{Expr, ExprKind, Scalar, Space, Type, CLK_GLOBAL_MEM_FENCE, CLK_LOCAL_MEM_FENCE};
use crate::compiler::source::Loc;
use std::f64::consts as c;

/// The value and type of a predefined constant name.
pub fn predefined_constant(name: &str, loc: Loc) -> Option<Expr> {
    let float = |v: f64| (ExprKind::Float(f64::from(v as f32)), Scalar::Float);
    let double = |v: f64| (ExprKind::Float(v), Scalar::Double);
    let (kind, s) = match name {
        "CLK_LOCAL_MEM_FENCE" => (ExprKind::Int(CLK_LOCAL_MEM_FENCE), Scalar::UInt),
        "CLK_GLOBAL_MEM_FENCE" => (ExprKind::Int(CLK_GLOBAL_MEM_FENCE), Scalar::UInt),
        "true" => (ExprKind::Int(1), Scalar::Bool),
        "false" => (ExprKind::Int(0), Scalar::Bool),
        "NULL" => return Some(Expr { kind: ExprKind::Zero, ty: Type::ptr(Type::Void, Space::Private), loc }),
        "FLT_MAX" | "MAXFLOAT" => float(f64::from(f32::MAX)),
        "FLT_MIN" => float(f64::from(f32::MIN_POSITIVE)),
        "FLT_EPSILON" => float(f64::from(f32::EPSILON)),
        "HUGE_VALF" | "INFINITY" => float(f64::INFINITY),
        "NAN" => float(f64::NAN),
        "M_E_F" => float(c::E),
        "M_LOG2E_F" => float(c::LOG2_E),
        "M_LOG10E_F" => float(c::LOG10_E),
        "M_LN2_F" => float(c::LN_2),
        "M_LN10_F" => float(c::LN_10),
        "M_PI_F" => float(c::PI),
        "M_PI_2_F" => float(c::FRAC_PI_2),
        "M_PI_4_F" => float(c::FRAC_PI_4),
        "M_1_PI_F" => float(c::FRAC_1_PI),
        "M_2_PI_F" => float(c::FRAC_2_PI),
        "M_2_SQRTPI_F" => float(c::FRAC_2_SQRT_PI),
        "M_SQRT2_F" => float(c::SQRT_2),
        "M_SQRT1_2_F" => float(c::FRAC_1_SQRT_2),
        "DBL_MAX" => double(f64::MAX),
        "DBL_MIN" => double(f64::MIN_POSITIVE),
        "DBL_EPSILON" => double(f64::EPSILON),
        "HUGE_VAL" => double(f64::INFINITY),
        "M_E" => double(c::E),
        "M_PI" => double(c::PI),
        "M_PI_2" => double(c::FRAC_PI_2),
        "M_PI_4" => double(c::FRAC_PI_4),
        "M_1_PI" => double(c::FRAC_1_PI),
        "M_SQRT2" => double(c::SQRT_2),
        "M_LN2" => double(c::LN_2),
        _ => return integer_limit(name, loc),
    };
    Some(Expr { kind, ty: Type::Scalar(s), loc })
}

fn integer_limit(name: &str, loc: Loc) -> Option<Expr> {
    let (value, s): (i128, Scalar) = match name {
        "CHAR_BIT" => (8, Scalar::Int),
        "CHAR_MAX" | "SCHAR_MAX" => (127, Scalar::Int),
        "CHAR_MIN" | "SCHAR_MIN" => (-128, Scalar::Int),
        "UCHAR_MAX" => (255, Scalar::Int),
        "SHRT_MAX" => (32767, Scalar::Int),
        "SHRT_MIN" => (-32768, Scalar::Int),
        "USHRT_MAX" => (65535, Scalar::Int),
        "INT_MAX" => (i128::from(i32::MAX), Scalar::Int),
        "INT_MIN" => (i128::from(i32::MIN), Scalar::Int),
        "UINT_MAX" => (i128::from(u32::MAX), Scalar::UInt),
        "LONG_MAX" => (i128::from(i64::MAX), Scalar::Long),
        "LONG_MIN" => (i128::from(i64::MIN), Scalar::Long),
        "ULONG_MAX" => (i128::from(u64::MAX), Scalar::ULong),
        _ => return None,
    };
    let kind = ExprKind::Int(super::consteval::int_bits(value, s));
    Some(Expr { kind, ty: Type::Scalar(s), loc })
}
