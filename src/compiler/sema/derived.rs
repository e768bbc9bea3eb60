//! Built-ins that semantic analysis writes with other nodes of the model, so that lowering
//! needs nothing new for them: the math functions with a pointer output (`fract`, `sincos`,
//! `modf`, `frexp`, `remquo`, `lgamma_r`: the result, plus a store through the pointer),
//! `shuffle` and `shuffle2`, `isnormal` and the ordered/unordered relational functions. Operands used more than once
//! are evaluated once into private temporaries.

use super::model::{Builtin, Expr, ExprKind, MathFn, Place, PlaceKind, Precision, Scalar, Space, Type};
use super::builtins::{G1, G2};
use super::overload::{form, Elems, Widths, P};
use super::Sema;
use crate::compiler::parse::ast::BinaryOp;
use crate::compiler::source::Loc;

pub(super) fn node(kind: ExprKind, ty: Type, loc: Loc) -> Expr {
    Expr { kind, ty, loc }
}

pub(super) fn load(place: &Place) -> Expr {
    node(ExprKind::Load(Box::new(place.clone())), place.ty.clone(), place.loc)
}

/// `first, then`.
pub(super) fn seq(first: Expr, then: Expr) -> Expr {
    let (ty, loc) = (then.ty.clone(), then.loc);
    node(ExprKind::Comma(Box::new(first), Box::new(then)), ty, loc)
}

fn math(f: MathFn, args: Vec<Expr>, ty: Type, loc: Loc) -> Expr {
    node(ExprKind::Builtin(Builtin::Math(f, Precision::Full), args), ty, loc)
}

pub(super) fn assign(place: Place, value: Expr) -> Expr {
    let (ty, loc) = (place.ty.clone(), value.loc);
    node(ExprKind::Assign { place: Box::new(place), value: Box::new(value), yields_old: false }, ty, loc)
}

/// The `int` type of `ty`'s shape (`int` or `intn`), as `frexp` and `remquo` store.
fn int_shape(ty: &Type) -> Type {
    match ty {
        Type::Vector(_, n) => Type::Vector(Scalar::Int, *n),
        _ => Type::Scalar(Scalar::Int),
    }
}

impl Sema<'_> {
    /// A private temporary holding `e`: the assignment to run first, and the place to read.
    pub(super) fn spill(&mut self, e: Expr, name: &str) -> Option<(Expr, Place)> {
        let (ty, loc) = (e.ty.clone(), e.loc);
        if self.cur.is_none() {
            return self.err(loc, format!("'{name}' can only be called inside a function"));
        }
        let id = self.add_local(&format!("{name}.tmp"), ty.clone(), loc)?;
        let place = Place { kind: PlaceKind::Local(id), ty, space: Space::Private, is_const: false, loc };
        Some((assign(place.clone(), e), place))
    }

    /// The place a math function's output pointer designates: a writable `pointee` outside
    /// `__constant`.
    fn out_place(&mut self, name: &str, p: Expr, pointee: &Type, loc: Loc) -> Option<Place> {
        let fits = matches!(&p.ty, Type::Pointer { pointee: t, space, quals }
            if **t == *pointee && *space != Space::Constant && !quals.is_const);
        if !fits {
            let want = self.type_str(pointee);
            return self.err(
                loc,
                format!("the last argument of '{name}' must be a pointer to non-const '{want}' outside __constant, not '{}'", self.type_str(&p.ty)),
            );
        }
        self.deref(p, loc)
    }

    /// `fract`, `sincos`, `modf`, `frexp`, `lgamma_r` (two arguments) and `remquo` (three):
    /// float operands of one type and a pointer for the second result.
    pub(super) fn pointer_out_call(&mut self, name: &str, args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        let inputs = if name == "remquo" { 2 } else { 1 };
        self.arity(name, &args, inputs + 1, loc)?;
        let out_param: &'static [P] = match name {
            "fract" | "sincos" | "modf" => &[P::G, P::PtrG],
            "remquo" => &[P::G, P::G, P::PtrIntN],
            _ => &[P::G, P::PtrIntN],
        };
        let (ty, mut operands) = self.resolve(name, args, &[form(Elems::Float, Widths::All, out_param)], loc)?;
        let p = operands.pop()?;
        let out_ty = if matches!(name, "frexp" | "remquo" | "lgamma_r") { int_shape(&ty) } else { ty.clone() };
        let out = self.out_place(name, p, &out_ty, loc)?;
        let mut setup = Vec::new();
        let mut reads = Vec::new();
        for e in operands {
            let (first, place) = self.spill(e, name)?;
            setup.push(first);
            reads.push(place);
        }
        let [first, rest @ ..] = reads.as_slice() else { return None };
        let x = || load(first);
        let (stored, result) = match name {
            "fract" => (math(MathFn::Floor, vec![x()], ty.clone(), loc), math(MathFn::Fract, vec![x()], ty.clone(), loc)),
            "sincos" => (math(MathFn::SincosCos, vec![x()], ty.clone(), loc), math(MathFn::SincosSin, vec![x()], ty.clone(), loc)),
            "modf" => (math(MathFn::Trunc, vec![x()], ty.clone(), loc), self.modf_fraction(x(), &ty, loc)?),
            "frexp" => (math(MathFn::FrexpExponent, vec![x()], out_ty.clone(), loc), math(MathFn::Frexp, vec![x()], ty.clone(), loc)),
            "lgamma_r" => (math(MathFn::LgammaSign, vec![x()], out_ty.clone(), loc), math(MathFn::Lgamma, vec![x()], ty.clone(), loc)),
            _ => {
                let second = rest.first()?;
                let both = || vec![load(first), load(second)];
                (math(MathFn::RemquoQuotient, both(), out_ty.clone(), loc), math(MathFn::Remainder, both(), ty.clone(), loc))
            }
        };
        setup.push(assign(out, stored));
        Some(setup.into_iter().rev().fold(result, |then, first| seq(first, then)))
    }

    /// `modf`'s fraction: `x - trunc(x)` with the sign of `x`, and ±0 for infinities.
    fn modf_fraction(&mut self, x: Expr, ty: &Type, loc: Loc) -> Option<Expr> {
        let whole = math(MathFn::Trunc, vec![x.clone()], ty.clone(), loc);
        let diff = self.binary(BinaryOp::Sub, x.clone(), whole, loc)?;
        let is_inf_ty = match ty {
            Type::Vector(s, n) => Type::Vector(s.signed_int_of_width(), *n),
            _ => Type::Scalar(Scalar::Int),
        };
        let is_inf = math(MathFn::IsInf, vec![x.clone()], is_inf_ty, loc);
        let zero = node(ExprKind::Zero, ty.clone(), loc);
        let finite = node(ExprKind::Builtin(Builtin::Select, vec![diff, zero, is_inf]), ty.clone(), loc);
        Some(math(MathFn::Copysign, vec![finite, x], ty.clone(), loc))
    }

    /// `isnormal(x)`: `isfinite(x) & (fabs(x) >= the smallest normal)`, 0/1 or -1/0.
    pub(super) fn isnormal_call(&mut self, args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        self.arity("isnormal", &args, 1, loc)?;
        let (ty, args) = self.resolve("isnormal", args, &[form(Elems::Float, Widths::All, G1)], loc)?;
        let x = args.into_iter().next()?;
        let s = ty.element()?;
        let smallest = match s {
            Scalar::Double => f64::MIN_POSITIVE,
            Scalar::Half => 6.103_515_625e-5,
            _ => f64::from(f32::MIN_POSITIVE),
        };
        let (set_x, px) = self.spill(x, "isnormal")?;
        let finite = self.builtin_call("isfinite", vec![load(&px)], loc)?;
        let magnitude = math(MathFn::Fabs, vec![load(&px)], ty.clone(), loc);
        let bound = node(ExprKind::Float(smallest), Type::Scalar(s), loc);
        let normal = self.binary(BinaryOp::Ge, magnitude, bound, loc)?;
        let both = self.binary(BinaryOp::BitAnd, finite, normal, loc)?;
        Some(seq(set_x, both))
    }

    /// `isordered(x, y)`: `x == x & y == y`; `isunordered(x, y)`: `isnan(x) | isnan(y)`;
    /// `islessgreater(x, y)`: `x < y || x > y` (all false when an operand is NaN, except
    /// `isunordered`). The result is `int` 0/1, or -1/0 per component for vectors.
    pub(super) fn ordering_call(&mut self, name: &str, args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        self.arity(name, &args, 2, loc)?;
        let (ty, operands) = self.resolve(name, args, &[form(Elems::Float, Widths::All, G2)], loc)?;
        let mut operands = operands.into_iter();
        let (x, y) = (operands.next()?, operands.next()?);
        let (set_x, px) = self.spill(x, name)?;
        let (set_y, py) = self.spill(y, name)?;
        let body = match name {
            "isordered" => {
                let a = self.binary(BinaryOp::Eq, load(&px), load(&px), loc)?;
                let b = self.binary(BinaryOp::Eq, load(&py), load(&py), loc)?;
                self.binary(BinaryOp::BitAnd, a, b, loc)?
            }
            "isunordered" => {
                let a = self.builtin_call("isnan", vec![load(&px)], loc)?;
                let b = self.builtin_call("isnan", vec![load(&py)], loc)?;
                self.binary(BinaryOp::BitOr, a, b, loc)?
            }
            _ => {
                let a = self.binary(BinaryOp::Lt, load(&px), load(&py), loc)?;
                let b = self.binary(BinaryOp::Gt, load(&px), load(&py), loc)?;
                let or = if ty.width() > 1 { BinaryOp::BitOr } else { BinaryOp::LogOr };
                self.binary(or, a, b, loc)?
            }
        };
        Some(seq(set_x, seq(set_y, body)))
    }

    /// `shuffle(x, mask)` and `shuffle2(x, y, mask)`: component `i` of the result is the
    /// component of `x` (then `y`) that the low bits of `mask[i]` select. The mask is an
    /// unsigned vector of `x`'s element width; the result has the mask's width.
    pub(super) fn shuffle_call(&mut self, name: &str, mut args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        let two = name == "shuffle2";
        self.arity(name, &args, if two { 3 } else { 2 }, loc)?;
        let mask = args.pop()?;
        let (Type::Vector(elem, n), Type::Vector(m_elem, m)) = (args[0].ty.clone(), mask.ty.clone()) else {
            return self.no_overload(name, &[args, vec![mask]].concat(), loc);
        };
        let same_inputs = args.iter().all(|a| a.ty == args[0].ty);
        if !same_inputs || m_elem.is_signed() || !m_elem.is_integer() || m_elem.size() != elem.size() || n == 3 || m == 3 {
            return self.no_overload(name, &[args, vec![mask]].concat(), loc);
        }
        let mut setup = Vec::new();
        let mut inputs = Vec::new();
        for e in args.into_iter().chain([mask]) {
            let (first, place) = self.spill(e, name)?;
            setup.push(first);
            inputs.push(place);
        }
        let mask = inputs.pop()?;
        let mut parts = Vec::new();
        for i in 0..m {
            let index = node(ExprKind::Swizzle(Box::new(load(&mask)), vec![i]), Type::Scalar(m_elem), loc);
            parts.push(self.shuffle_component(&inputs, index, elem, n, loc)?);
        }
        let result = node(ExprKind::Vector(parts), Type::Vector(elem, m), loc);
        Some(setup.into_iter().rev().fold(result, |then, first| seq(first, then)))
    }

    /// Component `index & (n - 1)` of the first input, or with bit `n` set of the second.
    fn shuffle_component(&mut self, inputs: &[Place], index: Expr, elem: Scalar, n: u8, loc: Loc) -> Option<Expr> {
        let index_ty = index.ty.clone();
        let bits = |v: u8| node(ExprKind::Int(u64::from(v)), index_ty.clone(), loc);
        let low = self.binary(BinaryOp::BitAnd, index.clone(), bits(n - 1), loc)?;
        let pick = |input: &Place| node(ExprKind::Extract(Box::new(load(input)), Box::new(low.clone())), Type::Scalar(elem), loc);
        let [x, y] = inputs else {
            return Some(pick(inputs.first()?));
        };
        let high = self.binary(BinaryOp::BitAnd, index, bits(n), loc)?;
        let cond = self.truth_value(high)?;
        Some(node(ExprKind::Cond(Box::new(cond), Box::new(pick(y)), Box::new(pick(x))), Type::Scalar(elem), loc))
    }
}
