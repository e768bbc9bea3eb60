//! The object-like macros of the OpenCL C standard library headers (OpenCL C 3.0 §6.15): fence
//! flags, `true`/`false`/`NULL`, the `<float.h>`/`<limits.h>` limits and the math constants.
//! Values are literals the parser reads exactly (hex floats for the float limits), or built-ins
//! that semantic analysis folds to constants (`__builtin_inff()`, `__builtin_nanf()`).

use crate::compiler::sema::model::{CLK_GLOBAL_MEM_FENCE, CLK_LOCAL_MEM_FENCE};
use crate::compiler::Target;

/// Macros every program has.
const COMMON: &[(&str, &str)] = &[
    ("true", "1"),
    ("false", "0"),
    ("NULL", "((void*)0)"),
    ("CHAR_BIT", "8"),
    ("SCHAR_MAX", "127"),
    ("SCHAR_MIN", "(-127-1)"),
    ("CHAR_MAX", "SCHAR_MAX"),
    ("CHAR_MIN", "SCHAR_MIN"),
    ("UCHAR_MAX", "255"),
    ("SHRT_MAX", "32767"),
    ("SHRT_MIN", "(-32767-1)"),
    ("USHRT_MAX", "65535"),
    ("INT_MAX", "2147483647"),
    ("INT_MIN", "(-2147483647-1)"),
    ("UINT_MAX", "0xffffffffU"),
    // ilogb's results for 0 and NaN, as clang's opencl-c-base.h defines them.
    ("FP_ILOGB0", "(-2147483647-1)"),
    ("FP_ILOGBNAN", "2147483647"),
    ("FLT_DIG", "6"),
    ("FLT_MANT_DIG", "24"),
    ("FLT_MAX_10_EXP", "+38"),
    ("FLT_MAX_EXP", "+128"),
    ("FLT_MIN_10_EXP", "-37"),
    ("FLT_MIN_EXP", "-125"),
    ("FLT_RADIX", "2"),
    ("FLT_MAX", "0x1.fffffep127f"),
    ("FLT_MIN", "0x1.0p-126f"),
    ("FLT_EPSILON", "0x1.0p-23f"),
    ("MAXFLOAT", "0x1.fffffep127f"),
    ("HUGE_VALF", "__builtin_inff()"),
    ("INFINITY", "__builtin_inff()"),
    ("NAN", "__builtin_nanf()"),
    ("M_E_F", "2.71828182845904523536f"),
    ("M_LOG2E_F", "1.44269504088896340736f"),
    ("M_LOG10E_F", "0.434294481903251827651f"),
    ("M_LN2_F", "0.693147180559945309417f"),
    ("M_LN10_F", "2.30258509299404568402f"),
    ("M_PI_F", "3.14159265358979323846f"),
    ("M_PI_2_F", "1.57079632679489661923f"),
    ("M_PI_4_F", "0.785398163397448309616f"),
    ("M_1_PI_F", "0.318309886183790671538f"),
    ("M_2_PI_F", "0.636619772367581343076f"),
    ("M_2_SQRTPI_F", "1.12837916709551257390f"),
    ("M_SQRT2_F", "1.41421356237309504880f"),
    ("M_SQRT1_2_F", "0.707106781186547524401f"),
];

/// `long` limits, with 64-bit integers.
const INT64: &[(&str, &str)] = &[
    ("LONG_MAX", "0x7fffffffffffffffL"),
    ("LONG_MIN", "(-0x7fffffffffffffffL-1)"),
    ("ULONG_MAX", "0xffffffffffffffffUL"),
];

/// `double` limits and constants, with `cl_khr_fp64`.
const FP64: &[(&str, &str)] = &[
    ("DBL_DIG", "15"),
    ("DBL_MANT_DIG", "53"),
    ("DBL_MAX_10_EXP", "+308"),
    ("DBL_MAX_EXP", "+1024"),
    ("DBL_MIN_10_EXP", "-307"),
    ("DBL_MIN_EXP", "-1021"),
    ("DBL_RADIX", "2"),
    ("DBL_MAX", "0x1.fffffffffffffp1023"),
    ("DBL_MIN", "0x1.0p-1022"),
    ("DBL_EPSILON", "0x1.0p-52"),
    ("HUGE_VAL", "__builtin_inf()"),
    ("M_E", "2.71828182845904523536"),
    ("M_LOG2E", "1.44269504088896340736"),
    ("M_LOG10E", "0.434294481903251827651"),
    ("M_LN2", "0.693147180559945309417"),
    ("M_LN10", "2.30258509299404568402"),
    ("M_PI", "3.14159265358979323846"),
    ("M_PI_2", "1.57079632679489661923"),
    ("M_PI_4", "0.785398163397448309616"),
    ("M_1_PI", "0.318309886183790671538"),
    ("M_2_PI", "0.636619772367581343076"),
    ("M_2_SQRTPI", "1.12837916709551257390"),
    ("M_SQRT2", "1.41421356237309504880"),
    ("M_SQRT1_2", "0.707106781186547524401"),
];

/// `half` limits and constants, with `cl_khr_fp16` (OpenCL C has no `half` literal suffix
/// before 3.0's optional one, so they are float literals converted to `half`).
const FP16: &[(&str, &str)] = &[
    ("HALF_DIG", "3"),
    ("HALF_MANT_DIG", "11"),
    ("HALF_MAX_10_EXP", "+4"),
    ("HALF_MAX_EXP", "+16"),
    ("HALF_MIN_10_EXP", "-4"),
    ("HALF_MIN_EXP", "-13"),
    ("HALF_RADIX", "2"),
    ("HALF_MAX", "((half)0x1.ffcp15f)"),
    ("HALF_MIN", "((half)0x1.0p-14f)"),
    ("HALF_EPSILON", "((half)0x1.0p-10f)"),
    ("M_E_H", "((half)2.71828182845904523536f)"),
    ("M_LOG2E_H", "((half)1.44269504088896340736f)"),
    ("M_LOG10E_H", "((half)0.434294481903251827651f)"),
    ("M_LN2_H", "((half)0.693147180559945309417f)"),
    ("M_LN10_H", "((half)2.30258509299404568402f)"),
    ("M_PI_H", "((half)3.14159265358979323846f)"),
    ("M_PI_2_H", "((half)1.57079632679489661923f)"),
    ("M_PI_4_H", "((half)0.785398163397448309616f)"),
    ("M_1_PI_H", "((half)0.318309886183790671538f)"),
    ("M_2_PI_H", "((half)0.636619772367581343076f)"),
    ("M_2_SQRTPI_H", "((half)1.12837916709551257390f)"),
    ("M_SQRT2_H", "((half)1.41421356237309504880f)"),
    ("M_SQRT1_2_H", "((half)0.707106781186547524401f)"),
];

/// The sampler flags (their `|` is `compiler::sampler_bits`), and the channel orders and data
/// types `get_image_channel_order`/`_data_type` return (the host's `CL_*` values).
const IMAGES: &[(&str, &str)] = &[
    ("CLK_NORMALIZED_COORDS_FALSE", "0"),
    ("CLK_NORMALIZED_COORDS_TRUE", "1"),
    ("CLK_ADDRESS_NONE", "0"),
    ("CLK_ADDRESS_CLAMP_TO_EDGE", "2"),
    ("CLK_ADDRESS_CLAMP", "4"),
    ("CLK_ADDRESS_REPEAT", "6"),
    ("CLK_ADDRESS_MIRRORED_REPEAT", "8"),
    ("CLK_FILTER_NEAREST", "0"),
    ("CLK_FILTER_LINEAR", "0x10"),
    ("CLK_R", "0x10b0"),
    ("CLK_A", "0x10b1"),
    ("CLK_RG", "0x10b2"),
    ("CLK_RA", "0x10b3"),
    ("CLK_RGB", "0x10b4"),
    ("CLK_RGBA", "0x10b5"),
    ("CLK_BGRA", "0x10b6"),
    ("CLK_ARGB", "0x10b7"),
    ("CLK_INTENSITY", "0x10b8"),
    ("CLK_LUMINANCE", "0x10b9"),
    ("CLK_Rx", "0x10ba"),
    ("CLK_RGx", "0x10bb"),
    ("CLK_RGBx", "0x10bc"),
    ("CLK_DEPTH", "0x10bd"),
    ("CLK_DEPTH_STENCIL", "0x10be"),
    ("CLK_sRGB", "0x10bf"),
    ("CLK_sRGBx", "0x10c0"),
    ("CLK_sRGBA", "0x10c1"),
    ("CLK_sBGRA", "0x10c2"),
    ("CLK_ABGR", "0x10c3"),
    ("CLK_SNORM_INT8", "0x10d0"),
    ("CLK_SNORM_INT16", "0x10d1"),
    ("CLK_UNORM_INT8", "0x10d2"),
    ("CLK_UNORM_INT16", "0x10d3"),
    ("CLK_UNORM_SHORT_565", "0x10d4"),
    ("CLK_UNORM_SHORT_555", "0x10d5"),
    ("CLK_UNORM_INT_101010", "0x10d6"),
    ("CLK_SIGNED_INT8", "0x10d7"),
    ("CLK_SIGNED_INT16", "0x10d8"),
    ("CLK_SIGNED_INT32", "0x10d9"),
    ("CLK_UNSIGNED_INT8", "0x10da"),
    ("CLK_UNSIGNED_INT16", "0x10db"),
    ("CLK_UNSIGNED_INT32", "0x10dc"),
    ("CLK_HALF_FLOAT", "0x10dd"),
    ("CLK_FLOAT", "0x10de"),
    ("CLK_UNORM_INT24", "0x10df"),
    ("CLK_UNORM_INT_101010_2", "0x10e0"),
];

/// The standard macros for `target`, as `(name, replacement)`.
pub fn standard_macros(target: &Target) -> Vec<(String, String)> {
    let fences = [
        ("CLK_LOCAL_MEM_FENCE", CLK_LOCAL_MEM_FENCE),
        ("CLK_GLOBAL_MEM_FENCE", CLK_GLOBAL_MEM_FENCE),
    ]
    .map(|(name, bit)| (name.to_string(), format!("{bit:#x}")));
    let optional = [(target.int64, INT64), (target.fp64, FP64), (target.fp16, FP16)];
    let tables = [COMMON, IMAGES].into_iter().chain(optional.iter().filter(|(on, _)| *on).map(|(_, t)| *t));
    fences
        .into_iter()
        .chain(tables.flatten().map(|(name, value)| (name.to_string(), value.to_string())))
        .collect()
}
