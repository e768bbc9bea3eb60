//! Overload resolution of built-in functions, as clang resolves the overloaded declarations of
//! OpenCL C's built-ins (`opencl-c.h`): every signature of the function is a candidate; each
//! argument's implicit conversion to the parameter's type is ranked (exact match, integer or
//! `float` → `double` promotion, any other arithmetic conversion, and last a scalar widened
//! to a vector); the best candidate is at least as good for every argument and better for
//! one. A call no candidate accepts, or that two candidates fit equally well, is an error:
//! never does the first argument's type decide (`mul24(uchar, int)` is the `int` overload,
//! `max(int, uint)` is ambiguous, as in clang).

use super::conv::{promoted, to_unsigned};
use super::model::{Expr, Scalar, Space, Type};
use super::Sema;
use crate::compiler::source::Loc;

/// The element types a signature's generic type `G` ranges over.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Elems {
    /// `float`, and `double`/`half` where the device has them.
    Float,
    /// `float` only: the `native_`, `half_` and `fast_` functions.
    FloatOnly,
    /// `float`, and `double` where the device has it (the data of `vstore_half`).
    FloatDouble,
    /// Every integer type.
    Int,
    /// The signed integer types (`any`, `all`).
    SignedInt,
    /// `int` and `uint` (`mul24`, `mad24`).
    Int32,
    /// The integers with a type twice as wide on the device (`upsample`'s high part).
    Narrow,
    /// Every integer and floating type.
    All,
    /// `uint` alone (the work-item functions).
    UInt,
    /// `int`, `uint`, `long`, `ulong` and the floating types (the collective functions).
    Collective,
}

/// The shapes `G` ranges over.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Widths {
    /// Scalars and vectors of 2, 3, 4, 8 and 16.
    All,
    /// Vectors only: the forms with a scalar (`sgentype`) parameter.
    Vectors,
    /// Scalars and vectors up to 4 (the geometric functions).
    UpTo4,
    /// Vectors of 3 and 4 (`cross`).
    Cross,
    Scalar,
    /// One width (`vstore_halfN`).
    Only(u8),
}

/// A parameter's type in terms of `G`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum P {
    G,
    /// `G`'s element type (`sgentype`).
    Elem,
    /// `int`, or `intn` of `G`'s width.
    IntN,
    /// `int` whatever `G`'s width (`ldexp(floatn, int)`).
    Int,
    /// The signed / unsigned integer of `G`'s element size and width (`select`'s mask, `nan`).
    SignedN,
    UnsignedN,
    /// A pointer to `G` / to `intn` (the second result of `fract`, `frexp`...), in any space.
    PtrG,
    PtrIntN,
}

/// A family of signatures: `params` for every `G` of `elems` × `widths`.
pub(super) struct Form {
    pub elems: Elems,
    pub widths: Widths,
    pub params: &'static [P],
}

pub(super) const fn form(elems: Elems, widths: Widths, params: &'static [P]) -> Form {
    Form { elems, widths, params }
}

/// How well an argument fits a parameter (clang's conversion ranks; lower is better).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub(super) enum Rank {
    Exact,
    Promotion,
    Conversion,
    /// A scalar converted to a vector parameter: worse than any conversion between scalars.
    Widening,
}

struct Candidate {
    gen: Type,
    kinds: &'static [P],
    params: Vec<Type>,
    ranks: Vec<Rank>,
}

impl Candidate {
    /// Better for some argument and worse for none.
    fn better_than(&self, other: &Candidate) -> bool {
        let pairs = || self.ranks.iter().zip(&other.ranks);
        pairs().all(|(a, b)| a <= b) && pairs().any(|(a, b)| a < b)
    }
}

fn shape(s: Scalar, n: u8) -> Type {
    if n == 1 {
        Type::Scalar(s)
    } else {
        Type::Vector(s, n)
    }
}

fn widths(w: Widths) -> &'static [u8] {
    const ALL: [u8; 6] = [1, 2, 3, 4, 8, 16];
    match w {
        Widths::All => &ALL,
        Widths::Only(n) => ALL.iter().position(|&m| m == n).map_or(&[], |i| &ALL[i..=i]),
        Widths::Vectors => &[2, 3, 4, 8, 16],
        Widths::UpTo4 => &[1, 2, 3, 4],
        Widths::Cross => &[3, 4],
        Widths::Scalar => &[1],
    }
}

/// The type of parameter `p` for the generic type of element `s` and width `n`.
fn param(p: P, s: Scalar, n: u8) -> Type {
    match p {
        P::G => shape(s, n),
        P::Elem => Type::Scalar(s),
        P::IntN => shape(Scalar::Int, n),
        P::Int => Type::Scalar(Scalar::Int),
        P::SignedN => shape(s.signed_int_of_width(), n),
        P::UnsignedN => shape(to_unsigned(s.signed_int_of_width()), n),
        P::PtrG => Type::ptr(shape(s, n), Space::Private),
        P::PtrIntN => Type::ptr(shape(Scalar::Int, n), Space::Private),
    }
}

/// The rank of passing a value of type `arg` for a parameter of type `param`, or `None` when
/// no implicit conversion exists (vectors convert to nothing but themselves; a pointer fits a
/// pointer to the same type, in whatever address space).
pub(super) fn rank(arg: &Type, param: &Type) -> Option<Rank> {
    if arg == param {
        return Some(Rank::Exact);
    }
    match (arg, param) {
        (Type::Scalar(a), Type::Scalar(p)) => {
            // `promoted` changes only `bool` and the integers narrower than `int`.
            let promotes = promoted(*a) == *p || (*a == Scalar::Float && *p == Scalar::Double);
            Some(if promotes { Rank::Promotion } else { Rank::Conversion })
        }
        (Type::Scalar(_), Type::Vector(..)) => Some(Rank::Widening),
        (Type::Pointer { pointee: a, .. }, Type::Pointer { pointee: p, .. }) if a == p => Some(Rank::Exact),
        _ => None,
    }
}

fn signature(name: &str, params: &[Type], sema: &Sema) -> String {
    let types: Vec<String> = params.iter().map(|t| sema.type_str(t)).collect();
    format!("'{name}({})'", types.join(", "))
}

impl Sema<'_> {
    /// The scalar types of `e` on this device (`double` with fp64, `half` with fp16, 64-bit
    /// integers with int64).
    fn elem_types(&self, e: Elems) -> Vec<Scalar> {
        use Scalar::*;
        let mut floats = vec![Float];
        floats.extend(self.target.fp64.then_some(Double));
        floats.extend(self.target.fp16.then_some(Half));
        let mut ints = vec![Char, UChar, Short, UShort, Int, UInt];
        ints.extend(if self.target.int64 { &[Long, ULong][..] } else { &[] });
        match e {
            Elems::Float => floats,
            Elems::FloatOnly => vec![Float],
            Elems::FloatDouble => floats.into_iter().filter(|&s| s != Half).collect(),
            Elems::Int => ints,
            Elems::SignedInt => ints.into_iter().filter(|s| s.is_signed()).collect(),
            Elems::Int32 => vec![Int, UInt],
            Elems::Narrow => ints.into_iter().filter(|s| s.size() < 4 || s.size() == 4 && self.target.int64).collect(),
            Elems::All => [ints, floats].concat(),
            Elems::UInt => vec![UInt],
            Elems::Collective => [ints.into_iter().filter(|s| s.size() >= 4).collect(), floats].concat(),
        }
    }

    /// Resolves a call of the built-in `name` among the signatures of `forms`. Returns the
    /// chosen generic type and the arguments converted to its parameters (pointer arguments
    /// unchanged; the scalar operand of a vector form, `clamp(v, s, s)`, converted and then
    /// widened to the vector's width, which is what it means), or reports that no overload
    /// fits or that the call is ambiguous.
    pub(super) fn resolve(&mut self, name: &str, args: Vec<Expr>, forms: &[Form], loc: Loc) -> Option<(Type, Vec<Expr>)> {
        let mut viable = Vec::new();
        for f in forms.iter().filter(|f| f.params.len() == args.len()) {
            for s in self.elem_types(f.elems) {
                for &n in widths(f.widths) {
                    let params: Vec<Type> = f.params.iter().map(|&p| param(p, s, n)).collect();
                    let ranks: Option<Vec<Rank>> = args.iter().zip(&params).map(|(a, p)| rank(&a.ty, p)).collect();
                    if let Some(ranks) = ranks {
                        viable.push(Candidate { gen: shape(s, n), kinds: f.params, params, ranks });
                    }
                }
            }
        }
        let best = viable.iter().reduce(|best, c| if c.better_than(best) { c } else { best });
        let Some(best) = best else {
            return self.no_overload(name, &args, loc).map(|e| (e.ty, vec![]));
        };
        if let Some(rival) = viable.iter().find(|c| !std::ptr::eq(*c, best) && !best.better_than(c)) {
            let types: Vec<String> = args.iter().map(|a| format!("'{}'", self.type_str(&a.ty))).collect();
            let (a, b) = (signature(name, &best.params, self), signature(name, &rival.params, self));
            return self.err(loc, format!("call to '{name}' is ambiguous: ({}) fits {a} and {b} equally well", types.join(", ")));
        }
        let n = best.gen.width();
        let converted = args.into_iter().zip(best.kinds.iter().zip(&best.params)).map(|(a, (&kind, ty))| match kind {
            P::PtrG | P::PtrIntN => a,
            P::Elem | P::Int if n > 1 => {
                let scalar = self.convert(a, ty);
                self.convert(scalar, &shape(ty.element().unwrap_or(Scalar::Int), n))
            }
            _ => self.convert(a, ty),
        });
        Some((best.gen.clone(), converted.collect()))
    }
}
