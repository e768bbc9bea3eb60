//! Built-in functions: the signature families of OpenCL C and overload resolution. A call's
//! arguments come back converted to the chosen overload's parameter types, and the call
//! expression has the overload's result type.

use super::consteval::{eval, CValue, Num};
use super::model::{
    AtomicOp, Builtin, Expr, ExprKind, FenceFlags, Group, FenceKind, IntFn, MathFn, Precision,
    Rounding, Scalar, Space, Type, WorkItemFn, CLK_GLOBAL_MEM_FENCE, CLK_LOCAL_MEM_FENCE,
};
use super::collective::{collective, sub_group_item};
use super::conv::to_unsigned;
use super::overload::{form, Elems, Form, Widths, P};
use super::Sema;
use crate::compiler::parse::ast::BinaryOp;
use crate::compiler::parse::is_builtin_type_name;
use crate::compiler::source::Loc;

fn work_item(name: &str) -> Option<WorkItemFn> {
    use WorkItemFn::*;
    Some(match name {
        "get_global_id" => GlobalId,
        "get_local_id" => LocalId,
        "get_group_id" => GroupId,
        "get_global_size" => GlobalSize,
        "get_local_size" => LocalSize,
        "get_num_groups" => NumGroups,
        "get_work_dim" => WorkDim,
        "get_global_offset" => GlobalOffset,
        "get_enqueued_local_size" => EnqueuedLocalSize,
        "get_global_linear_id" => GlobalLinearId,
        "get_local_linear_id" => LocalLinearId,
        _ => return None,
    })
}

/// Float math functions by name, with their argument count.
fn math(name: &str) -> Option<(MathFn, usize)> {
    use MathFn::*;
    Some(match name {
        "sqrt" => (Sqrt, 1),
        "rsqrt" => (Rsqrt, 1),
        "fabs" => (Fabs, 1),
        "floor" => (Floor, 1),
        "ceil" => (Ceil, 1),
        "trunc" => (Trunc, 1),
        "round" => (Round, 1),
        "rint" => (Rint, 1),
        "exp" => (Exp, 1),
        "exp2" => (Exp2, 1),
        "exp10" => (Exp10, 1),
        "log" => (Log, 1),
        "log2" => (Log2, 1),
        "log10" => (Log10, 1),
        "sin" => (Sin, 1),
        "cos" => (Cos, 1),
        "tan" => (Tan, 1),
        "asin" => (Asin, 1),
        "acos" => (Acos, 1),
        "atan" => (Atan, 1),
        "sinh" => (Sinh, 1),
        "cosh" => (Cosh, 1),
        "tanh" => (Tanh, 1),
        "sign" => (Sign, 1),
        "radians" => (Radians, 1),
        "degrees" => (Degrees, 1),
        "cbrt" => (Cbrt, 1),
        "recip" => (Recip, 1),
        "fmin" => (Fmin, 2),
        "fmax" => (Fmax, 2),
        "pow" => (Pow, 2),
        "powr" => (Powr, 2),
        "atan2" => (Atan2, 2),
        "remainder" => (Remainder, 2),
        "asinh" => (Asinh, 1),
        "acosh" => (Acosh, 1),
        "atanh" => (Atanh, 1),
        "asinpi" => (Asinpi, 1),
        "acospi" => (Acospi, 1),
        "atanpi" => (Atanpi, 1),
        "atan2pi" => (Atan2pi, 2),
        "sinpi" => (Sinpi, 1),
        "cospi" => (Cospi, 1),
        "tanpi" => (Tanpi, 1),
        "erf" => (Erf, 1),
        "erfc" => (Erfc, 1),
        "expm1" => (Expm1, 1),
        "log1p" => (Log1p, 1),
        "logb" => (Logb, 1),
        "fdim" => (Fdim, 2),
        "maxmag" => (Maxmag, 2),
        "minmag" => (Minmag, 2),
        "nextafter" => (Nextafter, 2),
        "tgamma" => (Tgamma, 1),
        "lgamma" => (Lgamma, 1),
        "fmod" => (Fmod, 2),
        "hypot" => (Hypot, 2),
        "copysign" => (Copysign, 2),
        "step" => (Step, 2),
        "divide" => (Divide, 2),
        "fma" => (Fma, 3),
        "mad" => (Mad, 3),
        "smoothstep" => (Smoothstep, 3),
        "mix" => (Mix, 3),
        _ => return None,
    })
}

/// Integer functions by name, with their argument count.
fn integer(name: &str) -> Option<(IntFn, usize)> {
    use IntFn::*;
    Some(match name {
        "abs" => (Abs, 1),
        "clz" => (Clz, 1),
        "ctz" => (Ctz, 1),
        "popcount" => (Popcount, 1),
        "abs_diff" => (AbsDiff, 2),
        "add_sat" => (AddSat, 2),
        "sub_sat" => (SubSat, 2),
        "hadd" => (Hadd, 2),
        "rhadd" => (Rhadd, 2),
        "mul24" => (Mul24, 2),
        "mul_hi" => (MulHi, 2),
        "rotate" => (Rotate, 2),
        "upsample" => (Upsample, 2),
        "mad24" => (Mad24, 3),
        "mad_hi" => (MadHi, 3),
        "mad_sat" => (MadSat, 3),
        _ => return None,
    })
}

fn atomic(name: &str) -> Option<(AtomicOp, usize, bool)> {
    use AtomicOp::*;
    let (rest, is_atom) = match name.strip_prefix("atomic_") {
        Some(r) => (r, false),
        None => (name.strip_prefix("atom_")?, true),
    };
    let (op, args) = match rest {
        "add" => (Add, 2),
        "sub" => (Sub, 2),
        "xchg" => (Xchg, 2),
        "min" => (Min, 2),
        "max" => (Max, 2),
        "and" => (And, 2),
        "or" => (Or, 2),
        "xor" => (Xor, 2),
        "inc" => (Inc, 1),
        "dec" => (Dec, 1),
        "cmpxchg" => (CmpXchg, 3),
        _ => return None,
    };
    Some((op, args, is_atom))
}

/// Built-in functions of OpenCL C that this compiler does not provide, by family.
fn unsupported(name: &str) -> Option<&'static str> {
    Some(match name {
        _ if name.starts_with("work_group_") => "work-group collective functions need OpenCL C 2.0 or later (-cl-std=CL3.0) and a device with sub-groups",
        _ if name.starts_with("sub_group_") || name.contains("_sub_group") => "sub-group functions need a device with sub-groups",
        _ => return None,
    })
}

fn rounding(name: &str) -> Option<Rounding> {
    Some(match name {
        "rte" => Rounding::Rte,
        "rtz" => Rounding::Rtz,
        "rtp" => Rounding::Rtp,
        "rtn" => Rounding::Rtn,
        _ => return None,
    })
}

/// `vload4` → 4 (the widths OpenCL C has).
fn vector_suffix(rest: &str) -> Option<u8> {
    let n: u8 = if rest.is_empty() { 1 } else { rest.parse().ok()? };
    matches!(n, 1 | 2 | 3 | 4 | 8 | 16).then_some(n)
}

pub(super) const G1: &[P] = &[P::G];
pub(super) const G2: &[P] = &[P::G, P::G];
pub(super) const G3: &[P] = &[P::G, P::G, P::G];

/// `n` parameters of the generic type.
fn same(n: usize) -> &'static [P] {
    [G1, G2, G3][n - 1]
}

/// The signatures of a float function of `n` arguments: all of the generic type, and for
/// some a scalar operand with vectors (`fmin(v, s)`, `mix(x, y, s)`, `step(s, v)`,
/// `smoothstep(s, s, v)`).
fn math_forms(f: MathFn, n: usize, elems: Elems) -> Vec<Form> {
    let scalar_form: &'static [P] = match f {
        MathFn::Fmin | MathFn::Fmax => &[P::G, P::Elem],
        MathFn::Mix => &[P::G, P::G, P::Elem],
        MathFn::Step => &[P::Elem, P::G],
        MathFn::Smoothstep => &[P::Elem, P::Elem, P::G],
        _ => return vec![form(elems, Widths::All, same(n))],
    };
    vec![form(elems, Widths::All, same(n)), form(elems, Widths::Vectors, scalar_form)]
}

fn call(b: Builtin, args: Vec<Expr>, ty: Type, loc: Loc) -> Expr {
    Expr { kind: ExprKind::Builtin(b, args), ty, loc }
}

fn with_element(ty: &Type, s: Scalar) -> Type {
    match ty {
        Type::Vector(_, n) => Type::Vector(s, *n),
        _ => Type::Scalar(s),
    }
}

impl Sema<'_> {
    /// A call of a built-in function `name`, or the error that no such function exists.
    pub(super) fn builtin_call(&mut self, name: &str, args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        if let Some(f) = work_item(name) {
            return self.work_item_call(f, name, args, loc);
        }
        if let Some(m) = math(name) {
            return self.math_call(m, Precision::Full, name, args, loc);
        }
        for (prefix, precision) in [("native_", Precision::Native), ("half_", Precision::Half)] {
            if let Some(m) = name.strip_prefix(prefix).and_then(math) {
                return self.math_call(m, precision, name, args, loc);
            }
        }
        if let Some(i) = integer(name) {
            return self.int_call(i, name, args, loc);
        }
        if super::image::is_image_builtin(name) {
            return self.image_call(name, args, loc);
        }
        if let Some(f) = sub_group_item(name).filter(|_| self.has_collectives(Group::SubGroup)) {
            return self.sub_group_item_call(f, name, args, loc);
        }
        if let Some(c) = collective(name).filter(|(g, _)| self.has_collectives(*g)) {
            return self.collective_call(c, name, args, loc);
        }
        if self.is_c11_atomic(name) {
            return self.c11_atomic_call(name, args, loc);
        }
        if let Some(a) = atomic(name) {
            return self.atomic_call(a, name, args, loc);
        }
        match name {
            "__builtin_inff" | "__builtin_nanf" | "__builtin_inf" => self.special_float(name, args, loc),
            "fract" | "sincos" | "modf" | "frexp" | "remquo" | "lgamma_r" => self.pointer_out_call(name, args, loc),
            "ilogb" | "ldexp" | "pown" | "rootn" => self.int_math_call(name, args, loc),
            "nan" => self.nan_call(args, loc),
            "isnormal" => self.isnormal_call(args, loc),
            "isordered" | "isunordered" | "islessgreater" => self.ordering_call(name, args, loc),
            "shuffle" | "shuffle2" => self.shuffle_call(name, args, loc),
            "async_work_group_copy" | "async_work_group_strided_copy" => self.async_copy_call(name, args, loc),
            "wait_group_events" => self.wait_events_call(name, args, loc),
            "async_work_group_copy_fence" => self.fence_call(Builtin::Barrier, name, args, loc),
            "prefetch" => self.prefetch_call(name, args, loc),
            "printf" => self.printf_call(args, loc),
            "barrier" | "work_group_barrier" => self.fence_call(Builtin::Barrier, name, args, loc),
            "sub_group_barrier" if self.has_collectives(Group::SubGroup) => self.fence_call(Builtin::SubGroupBarrier, name, args, loc),
            "mem_fence" => self.fence_call(|f| Builtin::Fence(FenceKind::Full, f), name, args, loc),
            "read_mem_fence" => self.fence_call(|f| Builtin::Fence(FenceKind::Read, f), name, args, loc),
            "write_mem_fence" => self.fence_call(|f| Builtin::Fence(FenceKind::Write, f), name, args, loc),
            "min" | "max" | "clamp" => self.min_max_call(name, args, loc),
            "to_global" | "to_local" | "to_private" | "get_fence" => self.generic_call(name, args, loc),
            "dot" | "length" | "distance" | "normalize" | "cross" => self.geometric_call(name, Elems::Float, args, loc),
            "fast_length" | "fast_distance" | "fast_normalize" => self.geometric_call(&name[5..], Elems::FloatOnly, args, loc),
            "isnan" | "isinf" | "isfinite" | "signbit" => self.relational_call(name, args, loc),
            "select" | "bitselect" => self.select_call(name, args, loc),
            "any" | "all" => self.any_all_call(name, args, loc),
            "isequal" | "isnotequal" | "isgreater" | "isgreaterequal" | "isless" | "islessequal" => {
                self.relational_compare(name, args, loc)
            }
            _ => self.prefixed_call(name, args, loc),
        }
    }

    /// `convert_T...`, `as_T`, `vloadN`, `vstoreN`, `vload_half...`, `vstore_half...`.
    fn prefixed_call(&mut self, name: &str, args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        if let Some(rest) = name.strip_prefix("convert_") {
            return self.convert_call(rest, name, args, loc);
        }
        if let Some(rest) = name.strip_prefix("as_") {
            return self.as_call(rest, name, args, loc);
        }
        if let Some(rest) = name.strip_prefix("vload_half") {
            if let Some(n) = vector_suffix(rest) {
                return self.vload_call(n, true, name, args, loc);
            }
        }
        if let Some(n) = name.strip_prefix("vloada_half").and_then(vector_suffix) {
            let args = self.aligned_half_args(n, args, 0, name)?;
            return self.vload_call(n, true, name, args, loc);
        }
        if let Some(rest) = name.strip_prefix("vstorea_half") {
            let (width, mode) = rest.split_once('_').unwrap_or((rest, ""));
            if let (Some(n), Some(r)) = (vector_suffix(width), if mode.is_empty() { Some(Rounding::Default) } else { rounding(mode) }) {
                let args = self.aligned_half_args(n, args, 1, name)?;
                return self.vstore_call(n, Some(r), name, args, loc);
            }
        }
        if let Some(rest) = name.strip_prefix("vstore_half") {
            let (width, mode) = rest.split_once('_').unwrap_or((rest, ""));
            if let (Some(n), Some(r)) = (vector_suffix(width), if mode.is_empty() { Some(Rounding::Default) } else { rounding(mode) }) {
                return self.vstore_call(n, Some(r), name, args, loc);
            }
        }
        if let Some(n) = name.strip_prefix("vload").and_then(vector_suffix).filter(|n| *n > 1) {
            return self.vload_call(n, false, name, args, loc);
        }
        if let Some(n) = name.strip_prefix("vstore").and_then(vector_suffix).filter(|n| *n > 1) {
            return self.vstore_call(n, None, name, args, loc);
        }
        match unsupported(name) {
            Some(what) => self.err(loc, format!("'{name}' is not available: {what}")),
            None => self.err(loc, format!("call to undeclared function '{name}' (implicit declarations are not allowed in OpenCL C)")),
        }
    }

    pub(super) fn arity(&mut self, name: &str, args: &[Expr], n: usize, loc: Loc) -> Option<()> {
        if args.len() != n {
            return self.err(loc, format!("'{name}' takes {n} argument(s), but {} were given", args.len()));
        }
        Some(())
    }

    pub(super) fn no_overload(&mut self, name: &str, args: &[Expr], loc: Loc) -> Option<Expr> {
        let types: Vec<String> = args.iter().map(|a| format!("'{}'", self.type_str(&a.ty))).collect();
        self.err(loc, format!("no overload of '{name}' takes ({})", types.join(", ")))
    }

    fn work_item_call(&mut self, f: WorkItemFn, name: &str, args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        if f == WorkItemFn::WorkDim {
            self.arity(name, &args, 0, loc)?;
            return Some(call(Builtin::WorkItem(f), args, Type::Scalar(Scalar::UInt), loc));
        }
        if matches!(f, WorkItemFn::GlobalLinearId | WorkItemFn::LocalLinearId) {
            self.arity(name, &args, 0, loc)?;
            return Some(call(Builtin::WorkItem(f), args, self.size_type(), loc));
        }
        self.arity(name, &args, 1, loc)?;
        let (_, args) = self.resolve(name, args, &[form(Elems::UInt, Widths::Scalar, G1)], loc)?;
        Some(call(Builtin::WorkItem(f), args, self.size_type(), loc))
    }

    fn math_call(&mut self, (f, n): (MathFn, usize), p: Precision, name: &str, args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        self.arity(name, &args, n, loc)?;
        let elems = if p == Precision::Full { Elems::Float } else { Elems::FloatOnly };
        let (ty, args) = self.resolve(name, args, &math_forms(f, n, elems), loc)?;
        Some(call(Builtin::Math(f, p), args, ty, loc))
    }

    fn int_call(&mut self, (f, n): (IntFn, usize), name: &str, args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        self.arity(name, &args, n, loc)?;
        if f == IntFn::Upsample {
            return self.upsample_call(name, args, loc);
        }
        let elems = if matches!(f, IntFn::Mul24 | IntFn::Mad24) { Elems::Int32 } else { Elems::Int };
        let (ty, args) = self.resolve(name, args, &[form(elems, Widths::All, same(n))], loc)?;
        let elem = ty.element()?;
        let result = match f {
            IntFn::Abs | IntFn::AbsDiff => with_element(&ty, to_unsigned(elem)),
            _ => ty,
        };
        Some(call(Builtin::Int(f), args, result, loc))
    }

    /// `upsample(hi, lo)`: `lo` unsigned, both of one width; the result twice as wide, with
    /// `hi`'s signedness.
    fn upsample_call(&mut self, name: &str, args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        let (hi, args) = self.resolve(name, args, &[form(Elems::Narrow, Widths::All, &[P::G, P::UnsignedN])], loc)?;
        let wide = match hi.element()? {
            Scalar::Char => Scalar::Short,
            Scalar::UChar => Scalar::UShort,
            Scalar::Short => Scalar::Int,
            Scalar::UShort => Scalar::UInt,
            Scalar::Int => Scalar::Long,
            _ => Scalar::ULong,
        };
        Some(call(Builtin::Int(IntFn::Upsample), args, with_element(&hi, wide), loc))
    }

    /// `min`/`max`/`clamp`: integer and float overloads, with a scalar bound for vectors
    /// (`clamp(v, s, s)`, `min(v, s)`).
    fn min_max_call(&mut self, name: &str, args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        let clamp = name == "clamp";
        self.arity(name, &args, if clamp { 3 } else { 2 }, loc)?;
        let forms = if clamp {
            [form(Elems::All, Widths::All, G3), form(Elems::All, Widths::Vectors, &[P::G, P::Elem, P::Elem])]
        } else {
            [form(Elems::All, Widths::All, G2), form(Elems::All, Widths::Vectors, &[P::G, P::Elem])]
        };
        let (ty, args) = self.resolve(name, args, &forms, loc)?;
        let float = ty.element()?.is_float();
        let b = match (float, name) {
            (true, "min") => Builtin::Math(MathFn::Min, Precision::Full),
            (true, "max") => Builtin::Math(MathFn::Max, Precision::Full),
            (true, _) => Builtin::Math(MathFn::Clamp, Precision::Full),
            (false, "min") => Builtin::Int(IntFn::Min),
            (false, "max") => Builtin::Int(IntFn::Max),
            (false, _) => Builtin::Int(IntFn::Clamp),
        };
        Some(call(b, args, ty, loc))
    }

    /// `ilogb(x)` → `intn`; `ldexp(x, k)`, `pown(x, n)`, `rootn(x, n)` with an `int`/`intn`
    /// second argument (a scalar `k` may go with a vector `x` for `ldexp`).
    fn int_math_call(&mut self, name: &str, args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        let f = match name {
            "ilogb" => MathFn::Ilogb,
            "ldexp" => MathFn::Ldexp,
            "pown" => MathFn::Pown,
            _ => MathFn::Rootn,
        };
        let n = if f == MathFn::Ilogb { 1 } else { 2 };
        self.arity(name, &args, n, loc)?;
        let forms = match f {
            MathFn::Ilogb => vec![form(Elems::Float, Widths::All, G1)],
            MathFn::Ldexp => vec![form(Elems::Float, Widths::All, &[P::G, P::IntN]), form(Elems::Float, Widths::Vectors, &[P::G, P::Int])],
            _ => vec![form(Elems::Float, Widths::All, &[P::G, P::IntN])],
        };
        let (ty, args) = self.resolve(name, args, &forms, loc)?;
        let result = if f == MathFn::Ilogb { with_element(&ty, Scalar::Int) } else { ty };
        Some(call(Builtin::Math(f, Precision::Full), args, result, loc))
    }

    /// `nan(code)`: `uint`/`uintn` → `float`/`floatn` (`ulong` → `double`).
    fn nan_call(&mut self, args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        self.arity("nan", &args, 1, loc)?;
        let (ty, args) = self.resolve("nan", args, &[form(Elems::Float, Widths::All, &[P::UnsignedN])], loc)?;
        Some(call(Builtin::Math(MathFn::Nan, Precision::Full), args, ty, loc))
    }

    fn geometric_call(&mut self, name: &str, elems: Elems, args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        let (f, n) = match name {
            "dot" => (MathFn::Dot, 2),
            "length" => (MathFn::Length, 1),
            "distance" => (MathFn::Distance, 2),
            "normalize" => (MathFn::Normalize, 1),
            _ => (MathFn::Cross, 2),
        };
        self.arity(name, &args, n, loc)?;
        let widths = if f == MathFn::Cross { Widths::Cross } else { Widths::UpTo4 };
        let (ty, args) = self.resolve(name, args, &[form(elems, widths, same(n))], loc)?;
        let result = match f {
            MathFn::Normalize | MathFn::Cross => ty,
            _ => Type::Scalar(ty.element()?),
        };
        Some(call(Builtin::Math(f, Precision::Full), args, result, loc))
    }

    /// `isnan` & co.: `int` for a scalar, a signed vector of the element width for vectors.
    fn relational_call(&mut self, name: &str, args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        self.arity(name, &args, 1, loc)?;
        let (ty, args) = self.resolve(name, args, &[form(Elems::Float, Widths::All, G1)], loc)?;
        let f = match name {
            "isnan" => MathFn::IsNan,
            "isinf" => MathFn::IsInf,
            "isfinite" => MathFn::IsFinite,
            _ => MathFn::Signbit,
        };
        let result = match &ty {
            Type::Vector(s, n) => Type::Vector(s.signed_int_of_width(), *n),
            _ => Type::Scalar(Scalar::Int),
        };
        Some(call(Builtin::Math(f, Precision::Full), args, result, loc))
    }

    fn any_all_call(&mut self, name: &str, args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        self.arity(name, &args, 1, loc)?;
        let (_, args) = self.resolve(name, args, &[form(Elems::SignedInt, Widths::All, G1)], loc)?;
        let b = if name == "any" { Builtin::Any } else { Builtin::All };
        Some(call(b, args, Type::Scalar(Scalar::Int), loc))
    }

    /// `isequal(x, y)` & co. are the comparison operators on floats (unordered: `isnotequal`
    /// is true for NaN, the others false, as with `!=` and `==`, `<`...).
    fn relational_compare(&mut self, name: &str, args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        self.arity(name, &args, 2, loc)?;
        let (_, args) = self.resolve(name, args, &[form(Elems::Float, Widths::All, G2)], loc)?;
        let mut args = args.into_iter();
        let (l, r) = (args.next()?, args.next()?);
        let op = match name {
            "isequal" => BinaryOp::Eq,
            "isnotequal" => BinaryOp::Ne,
            "isgreater" => BinaryOp::Gt,
            "isgreaterequal" => BinaryOp::Ge,
            "isless" => BinaryOp::Lt,
            _ => BinaryOp::Le,
        };
        self.binary(op, l, r, loc)
    }

    /// `select(a, b, c)`: `c` is a signed or unsigned integer of `a`'s element size and
    /// width; `bitselect(a, b, c)`: all three of one type.
    fn select_call(&mut self, name: &str, args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        self.arity(name, &args, 3, loc)?;
        if name == "bitselect" {
            let (ty, args) = self.resolve(name, args, &[form(Elems::All, Widths::All, G3)], loc)?;
            return Some(call(Builtin::Bitselect, args, ty, loc));
        }
        let forms = [form(Elems::All, Widths::All, &[P::G, P::G, P::SignedN]), form(Elems::All, Widths::All, &[P::G, P::G, P::UnsignedN])];
        let (ty, args) = self.resolve(name, args, &forms, loc)?;
        Some(call(Builtin::Select, args, ty, loc))
    }

    /// The infinity and quiet NaN constants behind `INFINITY`, `HUGE_VALF`, `HUGE_VAL` and
    /// `NAN` (see `preprocess/standard.rs`).
    fn special_float(&mut self, name: &str, args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        self.arity(name, &args, 0, loc)?;
        let (value, s) = match name {
            "__builtin_nanf" => (f64::NAN, Scalar::Float),
            "__builtin_inff" => (f64::INFINITY, Scalar::Float),
            _ if self.target.fp64 => (f64::INFINITY, Scalar::Double),
            _ => return self.err(loc, format!("'{name}' is a double, which needs the cl_khr_fp64 extension")),
        };
        Some(Expr { kind: ExprKind::Float(value), ty: Type::Scalar(s), loc })
    }

    /// `barrier(flags)` and the fences: the flags must be a constant. The barriers of OpenCL
    /// C 2.0 (`work_group_barrier`, `sub_group_barrier`) may name a memory scope too, a
    /// constant; the barrier's own scope serves every scope they may name.
    fn fence_call(&mut self, make: fn(FenceFlags) -> Builtin, name: &str, args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        let scoped = name.ends_with("group_barrier") && args.len() == 2;
        self.arity(name, &args, if scoped { 2 } else { 1 }, loc)?;
        let bits = match eval(&args[0]) {
            Ok(CValue::Num(Num::I(v))) => v,
            _ => return self.err(args[0].loc, format!("the flags of '{name}' must be a constant (CLK_LOCAL_MEM_FENCE, CLK_GLOBAL_MEM_FENCE)")),
        };
        if scoped && !matches!(eval(&args[1]), Ok(CValue::Num(Num::I(_)))) {
            return self.err(args[1].loc, format!("the memory scope of '{name}' must be a constant (memory_scope_work_group, ...)"));
        }
        let flags = FenceFlags {
            local: bits & i128::from(CLK_LOCAL_MEM_FENCE as u8) != 0,
            global: bits & i128::from(CLK_GLOBAL_MEM_FENCE as u8) != 0,
        };
        let b = make(flags);
        Some(call(b, vec![], Type::Void, loc))
    }

    /// `convert_T[_sat][_rte|_rtz|_rtp|_rtn]`.
    fn convert_call(&mut self, rest: &str, name: &str, args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        let mut parts = rest.split('_');
        let tname = parts.next().unwrap_or_default();
        let mut sat = false;
        let mut mode = Rounding::Default;
        for p in parts {
            match (p, rounding(p)) {
                ("sat", _) if !sat && mode == Rounding::Default => sat = true,
                (_, Some(r)) if mode == Rounding::Default => mode = r,
                _ => return self.err(loc, format!("call to undeclared function '{name}'")),
            }
        }
        if !is_builtin_type_name(tname) && !matches!(tname, "char" | "short" | "int" | "long" | "float" | "double" | "half") {
            return self.err(loc, format!("call to undeclared function '{name}'"));
        }
        let ty = self.builtin_type(tname, loc)?;
        self.arity(name, &args, 1, loc)?;
        let value = args.into_iter().next()?;
        if !ty.is_arithmetic() || !value.ty.is_arithmetic() || ty.width() != value.ty.width() {
            return self.err(loc, format!("'{name}' cannot convert '{}': the number of components differs", self.type_str(&value.ty)));
        }
        if sat && ty.element().is_some_and(Scalar::is_float) {
            return self.err(loc, format!("'{name}': _sat applies only to integer destination types"));
        }
        Some(Expr { kind: ExprKind::Convert { value: Box::new(value), sat, rounding: mode }, ty, loc })
    }

    /// `as_T(x)`: reinterprets bits; both types have the same size.
    fn as_call(&mut self, tname: &str, name: &str, args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        if !is_builtin_type_name(tname) && !matches!(tname, "char" | "short" | "int" | "long" | "float" | "double" | "half") {
            return self.err(loc, format!("call to undeclared function '{name}'"));
        }
        let ty = self.builtin_type(tname, loc)?;
        self.arity(name, &args, 1, loc)?;
        let value = args.into_iter().next()?;
        if !ty.is_arithmetic() || !value.ty.is_arithmetic() || self.size_of(&ty) != self.size_of(&value.ty) {
            return self.err(
                loc,
                format!("'{name}' needs an operand of the same size as '{tname}', not '{}'", self.type_str(&value.ty)),
            );
        }
        Some(Expr { kind: ExprKind::Bitcast(Box::new(value)), ty, loc })
    }

    /// The element type a vload/vstore pointer points to.
    fn vector_io_pointer(&mut self, name: &str, p: &Expr, write: bool, loc: Loc) -> Option<Scalar> {
        let Type::Pointer { pointee, space, quals } = &p.ty else {
            return self.err(loc, format!("the last argument of '{name}' must be a pointer"));
        };
        if write && (quals.is_const || *space == Space::Constant) {
            return self.err(loc, format!("'{name}' cannot write through a pointer to const or __constant data"));
        }
        match **pointee {
            Type::Scalar(s) if s != Scalar::Bool => Some(s),
            _ => self.err(loc, format!("'{name}' needs a pointer to a scalar type, not '{}'", self.type_str(&p.ty))),
        }
    }

    /// `vloadN(offset, p)` and `vload_halfN(offset, p)`.
    fn vload_call(&mut self, n: u8, half: bool, name: &str, mut args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        self.arity(name, &args, 2, loc)?;
        let p = args.pop()?;
        let offset = args.pop()?;
        let elem = self.vector_io_pointer(name, &p, false, loc)?;
        let offset = self.assign_convert(offset, &self.size_type(), &format!("the offset of '{name}'"))?;
        let (b, ty) = if half {
            if elem != Scalar::Half {
                return self.err(loc, format!("'{name}' needs a pointer to half"));
            }
            (Builtin::VloadHalf(n), if n == 1 { Type::Scalar(Scalar::Float) } else { Type::Vector(Scalar::Float, n) })
        } else {
            (Builtin::Vload(n), Type::Vector(elem, n))
        };
        self.check_half_value(&ty, loc)?;
        Some(call(b, vec![offset, p], ty, loc))
    }

    /// The arguments of `vloada_halfN`/`vstorea_halfN` as those of the unaligned form: they
    /// differ only for N = 3, whose elements are 4 halves apart (`(offset, p)` becomes
    /// `(0, p + 4 offset)`). `at`: the offset's position.
    fn aligned_half_args(&mut self, n: u8, mut args: Vec<Expr>, at: usize, name: &str) -> Option<Vec<Expr>> {
        if n != 3 || args.len() != at + 2 {
            return Some(args);
        }
        let p = args.pop()?;
        let offset = args.pop()?;
        let size = self.size_type();
        let offset = self.assign_convert(offset, &size, &format!("the offset of '{name}'"))?;
        let loc = offset.loc;
        let four = Expr { kind: ExprKind::Int(4), ty: size.clone(), loc };
        let scaled = Expr { kind: ExprKind::Binary(super::model::BinaryOp::Mul, Box::new(offset), Box::new(four)), ty: size.clone(), loc };
        let ty = p.ty.clone();
        args.push(Expr { kind: ExprKind::Int(0), ty: size, loc });
        args.push(Expr { kind: ExprKind::PtrAdd(Box::new(p), Box::new(scaled)), ty, loc });
        Some(args)
    }

    /// `vstoreN(data, offset, p)` and `vstore_halfN[_mode](data, offset, p)`.
    fn vstore_call(&mut self, n: u8, half: Option<Rounding>, name: &str, mut args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        self.arity(name, &args, 3, loc)?;
        let p = args.pop()?;
        let offset = args.pop()?;
        let data = args.pop()?;
        let elem = self.vector_io_pointer(name, &p, true, loc)?;
        let offset = self.assign_convert(offset, &self.size_type(), &format!("the offset of '{name}'"))?;
        let (b, data) = match half {
            Some(_) if elem != Scalar::Half => return self.err(loc, format!("'{name}' needs a pointer to half")),
            // The float and (with cl_khr_fp64) double overloads.
            Some(r) => {
                let (_, data) = self.resolve(name, vec![data], &[form(Elems::FloatDouble, Widths::Only(n), G1)], loc)?;
                (Builtin::VstoreHalf(n, r), data.into_iter().next()?)
            }
            None => {
                let data_ty = if n == 1 { Type::Scalar(elem) } else { Type::Vector(elem, n) };
                (Builtin::Vstore(n), self.assign_convert(data, &data_ty, &format!("the data of '{name}'"))?)
            }
        };
        Some(call(b, vec![data, offset, p], Type::Void, loc))
    }

    /// Atomics: a pointer to a 32-bit integer (64-bit for the `atom_` forms with 64-bit
    /// integers, float for `atomic_xchg`) in `__global` or `__local` memory.
    fn atomic_call(&mut self, (op, n, is_atom): (AtomicOp, usize, bool), name: &str, mut args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        self.arity(name, &args, n, loc)?;
        let p = args.remove(0);
        let Type::Pointer { pointee, space, quals } = &p.ty else {
            return self.err(loc, format!("the first argument of '{name}' must be a pointer"));
        };
        if !matches!(space, Space::Global | Space::Local) || quals.is_const {
            return self.err(
                loc,
                format!("'{name}' needs a pointer to non-const __global or __local memory, not '{}'", self.type_str(&p.ty)),
            );
        }
        let elem = match **pointee {
            Type::Scalar(s @ (Scalar::Int | Scalar::UInt)) => s,
            Type::Scalar(s @ (Scalar::Long | Scalar::ULong)) if is_atom && self.target.int64_atomics => s,
            Type::Scalar(Scalar::Float) if op == AtomicOp::Xchg && !is_atom => Scalar::Float,
            _ => return self.err(loc, format!("no overload of '{name}' takes '{}'", self.type_str(&p.ty))),
        };
        let ty = Type::Scalar(elem);
        let mut converted = vec![p];
        for (i, a) in args.into_iter().enumerate() {
            converted.push(self.assign_convert(a, &ty, &format!("argument {} of '{name}'", i + 2))?);
        }
        Some(call(Builtin::Atomic(op), converted, ty, loc))
    }
}
