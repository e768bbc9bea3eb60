//! Expressions: values in registers (see `types.rs`), pointers as [`Ptr`].

use super::place::{Access, Ptr, Root};
use super::types::{reg_scalar, vector_size};
use super::{Ctx, LowerError, R};
use crate::compiler::sema::model::{self, BinaryOp, CmpOp, Expr, ExprKind, LogicOp, Scalar as S, Type as T, UnaryOp};
use crate::compiler::source::Loc;
use naga::{BinaryOperator as B, Expression, Handle, Literal, ScalarKind, UnaryOperator as U};

/// The result of an expression.
pub enum Val {
    V(Handle<Expression>),
    P(Ptr),
    /// An image: the kernel argument it is.
    Image(usize),
    Void,
}

impl Ctx<'_> {
    pub(super) fn eval(&mut self, e: &Expr) -> R<Val> {
        if e.ty.is_pointer() {
            return self.eval_ptr(e).map(Val::P);
        }
        if let T::Image(..) = e.ty {
            return self.image_arg(e).map(Val::Image);
        }
        Ok(match &e.kind {
            ExprKind::Call(f, args) => return self.inline_call(*f, args, e.loc),
            ExprKind::Builtin(bi, args) => return self.builtin(*bi, args, &e.ty, e.loc),
            ExprKind::Assign { place, value, yields_old } => return self.assign(place, value, *yields_old, e.loc),
            ExprKind::Comma(a, b) => {
                self.eval(a)?;
                return self.eval(b);
            }
            ExprKind::Cond(c, a, b) if a.ty == T::Void => {
                let c = self.eval_value(c)?;
                self.if_stmt(c, |cx| cx.eval(a).map(|_| ()), |cx| cx.eval(b).map(|_| ()))?;
                return Ok(Val::Void);
            }
            _ => Val::V(self.eval_value(e)?),
        })
    }

    /// An expression that yields a (non-pointer) value.
    pub(super) fn eval_value(&mut self, e: &Expr) -> R<Handle<Expression>> {
        let loc = e.loc;
        if e.ty.is_pointer() {
            // A pointer as a value (a member of an aggregate being built): its integer.
            let p = self.eval_ptr(e)?;
            return self.encode_ptr(p, loc);
        }
        Ok(match &e.kind {
            ExprKind::Int(v) => self.int_literal(*v, &e.ty, loc)?,
            ExprKind::Float(v) => {
                let l = self.b.float(*v, e.ty.element() == Some(S::Double));
                self.splat_to(l, &e.ty, loc)?
            }
            ExprKind::Zero => {
                let ty = self.naga_ty(&e.ty, loc)?;
                self.b.expr(Expression::ZeroValue(ty))
            }
            ExprKind::Vector(parts) => self.vector(parts, &e.ty, loc)?,
            ExprKind::Aggregate(parts) if self.is_union_type(&e.ty) => {
                // A union value from its initialized member (every member is at offset 0): the
                // member's bytes written into zeroed words.
                let nty = self.naga_ty(&e.ty, loc)?;
                let tmp = self.b.local("union", nty);
                let ptr = self.b.expr(Expression::LocalVariable(tmp));
                let zero = self.b.expr(Expression::ZeroValue(nty));
                self.b.store(ptr, zero);
                if let Some(part) = parts.iter().find(|p| p.kind != ExprKind::Zero) {
                    let v = self.eval_value(part)?;
                    let start = self.b.u32(0);
                    self.store_bytes(super::memory::Words::Var { ptr, shared: false }, start, &part.ty, v, loc)?;
                }
                self.b.load(ptr)
            }
            ExprKind::Aggregate(parts) => {
                let ty = self.naga_ty(&e.ty, loc)?;
                let parts = parts.iter().map(|p| self.eval_value(p)).collect::<R<Vec<_>>>()?;
                self.b.compose(ty, parts)
            }
            ExprKind::Load(place) => match self.counter(place) {
                Some(v) => v,
                None => self.load_place(place)?,
            },
            ExprKind::Convert { value, sat, rounding } => {
                let v = self.eval_value(value)?;
                self.per_part(&[(v, value.ty.clone())], &e.ty, loc, |cx, v, t, r| {
                    if r.element() == Some(S::Half) && t[0].element() != Some(S::Bool) {
                        return cx.convert_to_half(v[0], &t[0], *rounding, loc);
                    }
                    if let Some(f) = cx.convert_directed(v[0], &t[0], r, *rounding, loc)? {
                        return Ok(f);
                    }
                    let v = cx.round_for_int(v[0], &t[0], r, *rounding, loc)?;
                    cx.convert(v, &t[0], r, *sat, loc)
                })?
            }
            ExprKind::Splat(v) => {
                let v = self.eval_value(v)?;
                self.splat_to(v, &e.ty, loc)?
            }
            ExprKind::PtrToInt(p) => {
                let ptr = self.eval_ptr(p)?;
                let v = self.ptr_to_int(ptr, loc)?;
                let held = self.held_ty();
                self.convert(v, &held, &e.ty, false, loc)?
            }
            ExprKind::Bitcast(v) if e.ty.width() != v.ty.width() || self.program.types.size_of(&e.ty) != self.program.types.size_of(&v.ty) => {
                // Different shapes (as_uint(char4), as_double(int2)...): through memory words.
                let x = self.eval_value(v)?;
                self.reinterpret(x, &v.ty, &e.ty, loc)?
            }
            ExprKind::Bitcast(v) if [&e.ty, &v.ty].iter().any(|t| t.element().is_some_and(super::types::is_narrow)) => {
                // 8/16-bit registers do not hold their bits (a short is sign-extended, a half
                // is a float): through the bits of each component.
                let x = self.eval_value(v)?;
                let (from, to) = (v.ty.element().unwrap_or(S::Short), e.ty.element().unwrap_or(S::Short));
                let comps = self.components(x, &v.ty).into_iter().map(|c| {
                    let bits = self.bits_of(c, from);
                    self.value_of_bits(bits, to)
                });
                let comps = comps.collect();
                self.compose_components(comps, &e.ty, loc)?
            }
            ExprKind::Bitcast(v) => {
                let x = self.eval_value(v)?;
                let to = reg_scalar(e.ty.element().unwrap_or(S::Int));
                self.per_part(&[(x, v.ty.clone())], &e.ty, loc, |cx, v, _, _| Ok(cx.b.cast(v[0], to.kind, None)))?
            }
            ExprKind::Unary(op, a) => {
                let x = self.eval_value(a)?;
                self.per_part(&[(x, a.ty.clone())], &e.ty, loc, |cx, v, t, r| cx.unary(*op, v[0], &t[0], r, loc))?
            }
            ExprKind::Binary(op, a, b) => match self.fused(*op, a, b, &e.ty, loc)? {
                Some(fma) => fma,
                None => {
                    let (x, y) = (self.eval_value(a)?, self.eval_value(b)?);
                    let args = [(x, a.ty.clone()), (y, b.ty.clone())];
                    self.per_part(&args, &e.ty, loc, |cx, v, _, r| cx.binary(*op, v[0], v[1], r, loc))?
                }
            },
            ExprKind::Compare(op, a, b) => self.compare(*op, a, b, &e.ty, loc)?,
            ExprKind::Logic(op, a, b) => self.logic(*op, a, b, &e.ty, loc)?,
            ExprKind::PtrDiff(a, b) => {
                let (pa, pb) = (self.eval_ptr(a)?, self.eval_ptr(b)?);
                let (ia, ib) = (self.ptr_index(&pa), self.ptr_index(&pb));
                let d = self.b.binary(B::Subtract, ia, ib);
                let d = self.b.cast(d, ScalarKind::Sint, None);
                self.convert(d, &T::Scalar(S::Int), &e.ty, false, loc)?
            }
            ExprKind::Cond(c, a, b) => self.cond_value(c, a, b, &e.ty, loc)?,
            ExprKind::Swizzle(v, comps) => {
                let x = self.eval_value(v)?;
                self.swizzle(x, &v.ty, comps, loc)?
            }
            ExprKind::Member(v, _) if self.is_union_type(&v.ty) => {
                // A union value is its words (`f().real`): every member starts at byte 0.
                let x = self.eval_value(v)?;
                self.reinterpret(x, &v.ty, &e.ty, loc)?
            }
            ExprKind::Member(v, i) => {
                let x = self.eval_value(v)?;
                self.b.member(x, *i)
            }
            ExprKind::Extract(v, i) => {
                let x = self.eval_value(v)?;
                let index = self.eval_value(i)?;
                let index = self.index_u32(index, &i.ty);
                let index = match v.ty {
                    T::Vector(_, n) => self.in_bounds(index, n.into()),
                    _ => index,
                };
                if super::wide::is_wide(&v.ty) {
                    let (four, three) = (self.b.u32(4), self.b.u32(3));
                    let (part, k) = (self.b.binary(B::Divide, index, four), self.b.binary(B::And, index, three));
                    let part = self.b.index(x, part);
                    self.b.index(part, k)
                } else {
                    self.b.index(x, index)
                }
            }
            ExprKind::Current => {
                let cur = self.frames.last().and_then(|f| f.current.last().copied());
                cur.ok_or_else(|| LowerError::new(loc, "internal: no current value"))?
            }
            _ => match self.eval(e)? {
                Val::V(v) => v,
                _ => return Err(LowerError::new(loc, "expression has no value")),
            },
        })
    }

    /// An expression of pointer type.
    pub(super) fn eval_ptr(&mut self, e: &Expr) -> R<Ptr> {
        let loc = e.loc;
        match &e.kind {
            ExprKind::Load(place) => {
                let home = self.ptr_home(place)?;
                self.load_home(&home, &pointee(&e.ty), loc)
            }
            ExprKind::AddrOf(place) => self.place_ptr(place),
            ExprKind::Decay(place) => {
                let p = self.place_ptr(place)?;
                let zero = self.b.u32(0);
                self.push_step(p, super::place::Step::Index(zero), loc)
            }
            ExprKind::PtrCast(v) => {
                let p = self.eval_ptr(v)?;
                let from = match &v.ty {
                    T::Pointer { pointee, .. } => (**pointee).clone(),
                    _ => T::Void,
                };
                self.ptr_cast(p, &from, &e.ty, loc)
            }
            ExprKind::PtrAdd(p, n) => {
                let p = self.eval_ptr(p)?;
                let n_val = self.eval_value(n)?;
                let n = self.index_u32(n_val, &n.ty);
                self.ptr_add(p, n, loc)
            }
            ExprKind::Comma(a, b) => {
                self.eval(a)?;
                self.eval_ptr(b)
            }
            ExprKind::IntToPtr(i) => self.int_to_ptr(i, &e.ty, loc),
            ExprKind::Builtin(model::Builtin::ToSpace(space), args) => self.to_space(*space, args, loc),
            ExprKind::Cond(c, a, b) => {
                // Both sides are evaluated (pointer operands rarely have side effects); they
                // must point into the same object so the choice is one of indices.
                let c = self.eval_value(c)?;
                let (pa, pb) = (self.eval_ptr(a)?, self.eval_ptr(b)?);
                self.ptr_select(c, pa, pb, loc)
            }
            ExprKind::Assign { place, value, yields_old } => {
                let home = self.ptr_home(place)?;
                let pointee = pointee(&e.ty);
                let old = if *yields_old || contains_current(value) { Some(self.load_home(&home, &pointee, loc)?) } else { None };
                if let (Some(o), Some(f)) = (&old, self.frames.last_mut()) {
                    f.current_ptr.push(o.clone());
                }
                let p = self.eval_ptr(value);
                if old.is_some() {
                    if let Some(f) = self.frames.last_mut() {
                        f.current_ptr.pop();
                    }
                }
                self.store_home(&home, p?, loc)?;
                match old {
                    Some(o) if *yields_old => Ok(o),
                    _ => self.load_home(&home, &pointee, loc),
                }
            }
            // `NULL`, or 0 as a pointer.
            ExprKind::Zero => match &e.ty {
                T::Pointer { space, .. } => Ok(Ptr { root: Root::Null, view: None, steps: Vec::new(), space: *space, seen_as: None }),
                _ => Err(LowerError::new(loc, "internal: a null pointer of a non-pointer type")),
            },
            ExprKind::Current => {
                let cur = self.frames.last().and_then(|f| f.current_ptr.last().cloned());
                cur.ok_or_else(|| LowerError::new(loc, "internal: no current pointer"))
            }
            ExprKind::Call(f, args) => match self.inline_call(*f, args, loc)? {
                Val::P(p) => Ok(p),
                _ => Err(LowerError::new(loc, "internal: call did not yield a pointer")),
            },
            _ => Err(LowerError::new(loc, "this pointer expression is not supported")),
        }
    }

    fn is_union_type(&self, ty: &T) -> bool {
        matches!(ty, T::Record(id) if self.program.types.record(*id).is_some_and(|r| r.is_union))
    }

    pub(super) fn naga_ty(&mut self, ty: &T, loc: Loc) -> R<Handle<naga::Type>> {
        self.types.naga(&mut self.module, &self.program.types, ty, loc)
    }

    fn int_literal(&mut self, v: u64, ty: &T, loc: Loc) -> R<Handle<Expression>> {
        if *ty == T::Sampler {
            return Ok(self.b.u32(v as u32));
        }
        let lit = match ty.element() {
            Some(S::Bool) => Literal::Bool(v != 0),
            Some(S::Char | S::Short | S::Int) => Literal::I32(v as i64 as i32),
            Some(S::UChar | S::UShort | S::UInt) => Literal::U32(v as u32),
            Some(S::Long) => Literal::I64(v as i64),
            Some(S::ULong) => Literal::U64(v),
            Some(S::Float | S::Half) => Literal::F32(v as i64 as f32),
            Some(S::Double) => Literal::F64(v as i64 as f64),
            None => return Err(LowerError::new(loc, "internal: integer constant of a non-arithmetic type")),
        };
        let l = self.b.lit(lit);
        self.splat_to(l, ty, loc)
    }

    /// A u32 index from an integer value of model type `ty` (folding literals).
    pub(super) fn index_u32(&mut self, v: Handle<Expression>, ty: &T) -> Handle<Expression> {
        if let Expression::Literal(l) = self.b.func.expressions[v] {
            let folded = match l {
                Literal::I32(x) => Some(x as u32),
                Literal::U32(x) => Some(x),
                Literal::I64(x) => Some(x as u32),
                Literal::U64(x) => Some(x as u32),
                _ => None,
            };
            if let Some(x) = folded {
                return self.b.u32(x);
            }
        }
        match ty.element() {
            Some(S::UInt | S::UChar | S::UShort) => v,
            Some(S::Long | S::ULong) => self.b.cast(v, ScalarKind::Uint, Some(4)),
            _ => self.b.cast(v, ScalarKind::Uint, None),
        }
    }

    fn vector(&mut self, parts: &[Expr], ty: &T, loc: Loc) -> R<Handle<Expression>> {
        let mut comps = Vec::new();
        for p in parts {
            let v = self.eval_value(p)?;
            comps.extend(self.components(v, &p.ty));
        }
        self.compose_components(comps, ty, loc)
    }

    /// Components `comps` of vector `v` of type `src`. Index 3 of a 3-vector (`.hi`, `.odd`) is
    /// an undefined component: it reads component 0.
    pub(super) fn swizzle(&mut self, v: Handle<Expression>, src: &T, comps: &[u8], loc: Loc) -> R<Handle<Expression>> {
        let defined: Vec<u8> = comps.iter().map(|&c| if c < src.width() { c } else { 0 }).collect();
        let comps = &defined[..];
        if super::wide::is_wide(src) || comps.len() > 4 {
            let all = self.components(v, src);
            let picked = comps.iter().map(|&c| all.get(usize::from(c)).copied()).collect::<Option<Vec<_>>>();
            let picked = picked.ok_or_else(|| LowerError::new(loc, "internal: swizzle component out of range"))?;
            let s = src.element().unwrap_or(S::Int);
            let ty = if comps.len() == 1 { T::Scalar(s) } else { T::Vector(s, comps.len() as u8) };
            return self.compose_components(picked, &ty, loc);
        }
        if let [c] = comps {
            return Ok(self.b.member(v, u32::from(*c)));
        }
        let size = vector_size(comps.len() as u8).ok_or_else(|| unsupported_width(loc))?;
        let mut pattern = [naga::SwizzleComponent::X; 4];
        for (slot, &c) in pattern.iter_mut().zip(comps) {
            *slot = match c {
                0 => naga::SwizzleComponent::X,
                1 => naga::SwizzleComponent::Y,
                2 => naga::SwizzleComponent::Z,
                3 => naga::SwizzleComponent::W,
                _ => return Err(unsupported_width(loc)),
            };
        }
        Ok(self.b.expr(Expression::Swizzle { size, vector: v, pattern }))
    }

    pub(super) fn load_place(&mut self, place: &model::Place) -> R<Handle<Expression>> {
        let access = self.place_access(place)?;
        self.load_access(&access, place.loc)
    }

    pub(super) fn load_access(&mut self, access: &Access, loc: Loc) -> R<Handle<Expression>> {
        match access {
            Access::Ptr(p) => Ok(self.b.load(*p)),
            Access::Ptr16 { ptr, ty } if ty.element() == Some(S::Half) => {
                let v = self.b.load(*ptr);
                let bits = self.b.cast(v, ScalarKind::Uint, Some(4));
                let halves = self.components(bits, ty).into_iter().map(|b| self.half_from_bits(b)).collect();
                self.compose_components(halves, ty, loc)
            }
            Access::Ptr16 { ptr, ty } => {
                let v = self.b.load(*ptr);
                let reg = reg_scalar(ty.element().unwrap_or(S::Short));
                Ok(self.b.cast(v, reg.kind, Some(reg.width)))
            }
            Access::Swizzle { base, comps, vty } => {
                let v = self.load_access(base, loc)?;
                self.swizzle(v, vty, comps, loc)
            }
            Access::Bytes { base, byte, ty } => self.load_bytes(*base, *byte, ty, loc),
            Access::Dispatch { slot, cases, ty } => {
                let nty = self.naga_ty(ty, loc)?;
                let var = self.b.local("chosen", nty);
                self.dispatch(*slot, cases, loc, |cx, access| {
                    let v = cx.load_access(access, loc)?;
                    let p = cx.b.expr(Expression::LocalVariable(var));
                    cx.b.store(p, v);
                    Ok(())
                })?;
                let p = self.b.expr(Expression::LocalVariable(var));
                Ok(self.b.load(p))
            }
            Access::Seen { ptr, stored, seen } => {
                let v = self.b.load(*ptr);
                let bits = self.bits_of(v, *stored);
                Ok(self.value_of_bits(bits, *seen))
            }
        }
    }

    pub(super) fn store_access(&mut self, access: &Access, value: Handle<Expression>, ty: &T, loc: Loc) -> R<()> {
        match access {
            Access::Ptr(p) => self.b.store(*p, value),
            Access::Ptr16 { ptr, ty: elem } if elem.element() == Some(S::Half) => {
                let bits = self.components(value, elem).into_iter().map(|v| self.half_to_bits(v)).collect();
                let uint = match elem {
                    T::Vector(_, n) => T::Vector(S::UInt, *n),
                    _ => T::Scalar(S::UInt),
                };
                let words = self.compose_components(bits, &uint, loc)?;
                let narrow = self.b.cast(words, ScalarKind::Uint, Some(2));
                self.b.store(*ptr, narrow);
            }
            Access::Ptr16 { ptr, ty: elem } => {
                let kind = reg_scalar(elem.element().unwrap_or(S::Short)).kind;
                let narrow = self.b.cast(value, kind, Some(2));
                self.b.store(*ptr, narrow);
            }
            Access::Bytes { base, byte, ty: elem } => self.store_bytes(*base, *byte, elem, value, loc)?,
            Access::Dispatch { slot, cases, .. } => self.dispatch(*slot, cases, loc, |cx, access| cx.store_access(access, value, ty, loc))?,
            Access::Seen { ptr, stored, seen } => {
                let bits = self.bits_of(value, *seen);
                let v = self.value_of_bits(bits, *stored);
                self.b.store(*ptr, v);
            }
            Access::Swizzle { base, comps, vty } => {
                // Read the vector, replace the written components, write it back.
                let old = self.load_access(base, loc)?;
                let mut parts = self.components(old, vty);
                let written = self.components(value, ty);
                for (&c, comp) in comps.iter().zip(written) {
                    if let Some(slot) = parts.get_mut(usize::from(c)) {
                        *slot = comp;
                    }
                }
                let new = self.compose_components(parts, vty, loc)?;
                self.store_access(base, new, vty, loc)?;
            }
        }
        Ok(())
    }

    /// A `switch` on the buffer argument number `slot`: `each` lowers the access of a case.
    fn dispatch(&mut self, slot: Handle<Expression>, cases: &[(u32, Access)], loc: Loc, mut each: impl FnMut(&mut Self, &Access) -> R<()>) -> R<()> {
        let mut out = Vec::with_capacity(cases.len() + 1);
        for (n, access) in cases {
            self.b.open();
            let r = each(self, access);
            let body = self.b.close();
            r?;
            out.push(naga::SwitchCase { value: naga::SwitchValue::U32(*n), body, fall_through: false });
        }
        out.push(naga::SwitchCase { value: naga::SwitchValue::Default, body: naga::Block::new(), fall_through: false });
        if out.len() == 1 {
            return Err(LowerError::new(loc, "internal: a choice of no buffer"));
        }
        self.b.stmt(naga::Statement::Switch { selector: slot, cases: out });
        Ok(())
    }

    fn assign(&mut self, place: &model::Place, value: &Expr, yields_old: bool, loc: Loc) -> R<Val> {
        if place.ty.is_pointer() {
            return self.eval_ptr(&Expr { kind: ExprKind::Assign { place: Box::new(place.clone()), value: Box::new(value.clone()), yields_old }, ty: place.ty.clone(), loc }).map(Val::P);
        }
        let access = self.place_access(place)?;
        let needs_old = yields_old || contains_current(value);
        let old = if needs_old { Some(self.load_access(&access, loc)?) } else { None };
        if let (Some(o), Some(f)) = (old, self.frames.last_mut()) {
            f.current.push(o);
        }
        let new = self.eval_value(value);
        if old.is_some() {
            if let Some(f) = self.frames.last_mut() {
                f.current.pop();
            }
        }
        let new = new?;
        self.store_access(&access, new, &place.ty, loc)?;
        Ok(Val::V(if yields_old { old.unwrap_or(new) } else { new }))
    }

    fn unary(&mut self, op: UnaryOp, x: Handle<Expression>, a_ty: &T, ty: &T, loc: Loc) -> R<Handle<Expression>> {
        Ok(match op {
            UnaryOp::Neg => {
                // naga negates only signed and float values: unsigned -x is 0 - x.
                let r = if a_ty.element().is_some_and(|s| s.is_integer() && !s.is_signed()) {
                    let zero = self.zero_of(a_ty, loc)?;
                    self.b.binary(B::Subtract, zero, x)
                } else {
                    self.b.unary(U::Negate, x)
                };
                self.normalize(r, ty)
            }
            UnaryOp::BitNot => {
                let r = self.b.unary(U::BitwiseNot, x);
                self.normalize(r, ty)
            }
            UnaryOp::Not => {
                let zero = self.zero_of(a_ty, loc)?;
                let is_zero = match a_ty.element() {
                    Some(S::Bool) => self.b.unary(U::LogicalNot, x),
                    _ => self.b.binary(B::Equal, x, zero),
                };
                self.bool_to_int(is_zero, ty, loc)?
            }
        })
    }

    /// `x * y + z`, `z + x * y`, `x * y - z` and `z - x * y` on floats as one fused multiply-add
    /// where FP_CONTRACT is on, as clang's `-ffp-contract=on` does: the SPIR-V marks every other
    /// float operation NoContraction (`spirv::decorate`), so only source expressions fuse.
    fn fused(&mut self, op: BinaryOp, a: &Expr, b: &Expr, ty: &T, loc: Loc) -> R<Option<Handle<Expression>>> {
        let floats = matches!(ty.element(), Some(S::Float | S::Double));
        if !self.options.contract || !floats || !matches!(op, BinaryOp::Add | BinaryOp::Sub) {
            return Ok(None);
        }
        let sub = op == BinaryOp::Sub;
        // (factors, addend, negate the product, negate the addend)
        let (x, y, z, negate_product, negate_addend) = match (product(a, ty), product(b, ty)) {
            (Some((x, y)), _) if b.ty == *ty => (x, y, b, false, sub),
            (None, Some((x, y))) if a.ty == *ty => (x, y, a, sub, false),
            _ => return Ok(None),
        };
        let args = [(self.eval_value(x)?, ty.clone()), (self.eval_value(y)?, ty.clone()), (self.eval_value(z)?, ty.clone())];
        let fma = self.per_part(&args, ty, loc, |cx, v, _, _| {
            let x = if negate_product { cx.b.unary(U::Negate, v[0]) } else { v[0] };
            let z = if negate_addend { cx.b.unary(U::Negate, v[2]) } else { v[2] };
            Ok(cx.b.math(naga::MathFunction::Fma, &[x, v[1], z]))
        })?;
        Ok(Some(fma))
    }

    pub(super) fn binary(&mut self, op: BinaryOp, x: Handle<Expression>, y: Handle<Expression>, ty: &T, loc: Loc) -> R<Handle<Expression>> {
        let op = match op {
            BinaryOp::Add => B::Add,
            BinaryOp::Sub => B::Subtract,
            BinaryOp::Mul => B::Multiply,
            BinaryOp::Div => B::Divide,
            BinaryOp::Rem => B::Modulo,
            BinaryOp::BitAnd => B::And,
            BinaryOp::BitOr => B::InclusiveOr,
            BinaryOp::BitXor => B::ExclusiveOr,
            BinaryOp::Shl => B::ShiftLeft,
            BinaryOp::Shr => B::ShiftRight,
        };
        let y = if matches!(op, B::ShiftLeft | B::ShiftRight) { self.shift_count(y, ty, loc)? } else { y };
        if op == B::Divide && ty.element() == Some(S::Float) {
            return self.float_divide(x, y, ty, loc);
        }
        let r = self.b.binary(op, x, y);
        if ty.element() == Some(S::Half) {
            // Computed in float, whose 24 bits are enough for one rounding to half to be the
            // correctly rounded result of +, -, * and / on halves.
            return self.quantize_half(r, ty, loc);
        }
        Ok(self.normalize(r, ty))
    }

    /// `x / y` on floats, both scaled by 1/4 where `y`'s reciprocal would be subnormal
    /// (|y| > 2^126): a driver that divides by multiplying with the reciprocal and flushes
    /// subnormals gives 0 there (NVIDIA: 2^44 / 2^127 was 0, CTS bruteforce divide). The
    /// scaling is exact but where `x / 4` is subnormal, and then so is the quotient.
    pub(super) fn float_divide(&mut self, x: Handle<Expression>, y: Handle<Expression>, ty: &T, loc: Loc) -> R<Handle<Expression>> {
        let ay = self.b.math(naga::MathFunction::Abs, &[y]);
        let limit = self.float_like(2f64.powi(126), ty, loc)?;
        let huge = self.b.binary(B::Greater, ay, limit);
        let quarter = self.float_like(0.25, ty, loc)?;
        let (xq, yq) = (self.b.binary(B::Multiply, x, quarter), self.b.binary(B::Multiply, y, quarter));
        let (x, y) = (self.b.select(huge, xq, x), self.b.select(huge, yq, y));
        Ok(self.b.binary(B::Divide, x, y))
    }

    /// naga wants u32 shift counts of the same component count.
    fn shift_count(&mut self, y: Handle<Expression>, ty: &T, _loc: Loc) -> R<Handle<Expression>> {
        Ok(match ty.element() {
            Some(S::Long | S::ULong) => self.b.cast(y, ScalarKind::Uint, Some(4)),
            Some(S::UInt | S::UChar | S::UShort) => y,
            _ => self.b.cast(y, ScalarKind::Uint, None),
        })
    }

    /// Brings an 8/16-bit result held in 32 bits back into range (wrap, sign-extend).
    pub(super) fn normalize(&mut self, v: Handle<Expression>, ty: &T) -> Handle<Expression> {
        let bits = match ty.element() {
            Some(S::Char | S::UChar) => 8,
            Some(S::Short | S::UShort) => 16,
            _ => return v,
        };
        let signed = ty.element().is_some_and(|s| s.is_signed());
        let shift = self.b.u32(32 - bits);
        let shift = match ty {
            T::Vector(_, n) => match vector_size(*n) {
                Some(size) => self.b.splat(size, shift),
                None => shift,
            },
            _ => shift,
        };
        if signed {
            let up = self.b.binary(B::ShiftLeft, v, shift);
            self.b.binary(B::ShiftRight, up, shift)
        } else {
            let mask = self.b.u32((1u32 << bits) - 1);
            let mask = match ty {
                T::Vector(_, n) => match vector_size(*n) {
                    Some(size) => self.b.splat(size, mask),
                    None => mask,
                },
                _ => mask,
            };
            self.b.binary(B::And, v, mask)
        }
    }

    pub(super) fn zero_of(&mut self, ty: &T, loc: Loc) -> R<Handle<Expression>> {
        let nty = self.naga_ty(ty, loc)?;
        Ok(self.b.expr(Expression::ZeroValue(nty)))
    }

    /// A naga bool (vector) as the C result type: int 0/1, or -1/0 per vector component.
    pub(super) fn bool_to_int(&mut self, c: Handle<Expression>, ty: &T, loc: Loc) -> R<Handle<Expression>> {
        let (t, f) = match ty {
            T::Vector(..) => (u64::MAX, 0),
            _ => (1, 0),
        };
        let tv = self.int_literal(t, ty, loc)?;
        let fv = self.int_literal(f, ty, loc)?;
        Ok(self.b.select(c, tv, fv))
    }

    fn compare(&mut self, op: CmpOp, a: &Expr, b: &Expr, ty: &T, loc: Loc) -> R<Handle<Expression>> {
        let op = match op {
            CmpOp::Eq => B::Equal,
            CmpOp::Ne => B::NotEqual,
            CmpOp::Lt => B::Less,
            CmpOp::Le => B::LessEqual,
            CmpOp::Gt => B::Greater,
            CmpOp::Ge => B::GreaterEqual,
        };
        if a.ty.is_pointer() {
            let (pa, pb) = (self.eval_ptr(a)?, self.eval_ptr(b)?);
            let c = self.ptr_compare(pa, pb, op, loc)?;
            return self.bool_to_int(c, ty, loc);
        }
        let (x, y) = (self.eval_value(a)?, self.eval_value(b)?);
        // Float `!=` is unordered (true for NaN); naga writes OpFOrdNotEqual, so it is `!(==)`.
        let unordered_ne = op == B::NotEqual && a.ty.element().is_some_and(|s| s.is_float());
        self.per_part(&[(x, a.ty.clone()), (y, b.ty.clone())], ty, loc, |cx, v, _, r| {
            let c = if unordered_ne {
                let eq = cx.b.binary(B::Equal, v[0], v[1]);
                cx.b.unary(naga::UnaryOperator::LogicalNot, eq)
            } else {
                cx.b.binary(op, v[0], v[1])
            };
            cx.bool_to_int(c, r, loc)
        })
    }

    fn logic(&mut self, op: LogicOp, a: &Expr, b: &Expr, ty: &T, loc: Loc) -> R<Handle<Expression>> {
        if let T::Vector(..) = a.ty {
            let (x, y) = (self.eval_value(a)?, self.eval_value(b)?);
            return self.per_part(&[(x, a.ty.clone()), (y, b.ty.clone())], ty, loc, |cx, v, t, r| {
                // naga has no logical operators on bool vectors: choose per component instead.
                let (bx, by) = (cx.nonzero(v[0], &t[0], loc)?, cx.nonzero(v[1], &t[1], loc)?);
                let iy = cx.bool_to_int(by, r, loc)?;
                let (t, f) = (cx.int_literal(u64::MAX, r, loc)?, cx.zero_of(r, loc)?);
                Ok(if op == LogicOp::And { cx.b.select(bx, iy, f) } else { cx.b.select(bx, t, iy) })
            });
        }
        // Short circuit: the right side is evaluated only when it decides.
        let bool_ty = self.naga_ty(&T::Scalar(S::Bool), loc)?;
        let tmp = self.b.local("logic", bool_ty);
        let x = self.eval_value(a)?;
        let p = self.b.expr(Expression::LocalVariable(tmp));
        self.b.store(p, x);
        let decide = if op == LogicOp::And { x } else { self.b.unary(U::LogicalNot, x) };
        self.if_stmt(
            decide,
            |cx| {
                let y = cx.eval_value(b)?;
                let p = cx.b.expr(Expression::LocalVariable(tmp));
                cx.b.store(p, y);
                Ok(())
            },
            |_| Ok(()),
        )?;
        let p = self.b.expr(Expression::LocalVariable(tmp));
        let r = self.b.load(p);
        self.bool_to_int(r, ty, loc)
    }

    fn cond_value(&mut self, c: &Expr, a: &Expr, b: &Expr, ty: &T, loc: Loc) -> R<Handle<Expression>> {
        let nty = self.naga_ty(ty, loc)?;
        let tmp = self.b.local("cond", nty);
        let c = self.eval_value(c)?;
        let store = |cx: &mut Self, e: &Expr| -> R<()> {
            let v = cx.eval_value(e)?;
            let p = cx.b.expr(Expression::LocalVariable(tmp));
            cx.b.store(p, v);
            Ok(())
        };
        self.if_stmt(c, |cx| store(cx, a), |cx| store(cx, b))?;
        let p = self.b.expr(Expression::LocalVariable(tmp));
        Ok(self.b.load(p))
    }

    /// `if cond { accept } else { reject }` with fallible arms.
    pub(super) fn if_stmt(
        &mut self,
        condition: Handle<Expression>,
        accept: impl FnOnce(&mut Self) -> R<()>,
        reject: impl FnOnce(&mut Self) -> R<()>,
    ) -> R<()> {
        self.b.open();
        let r = accept(self);
        let accept_block = self.b.close();
        r?;
        self.b.open();
        let r = reject(self);
        let reject_block = self.b.close();
        r?;
        self.b.stmt(naga::Statement::If { condition, accept: accept_block, reject: reject_block });
        Ok(())
    }

    /// Applies an explicit rounding mode before a float → integer conversion (which truncates).
    /// Conversions to floating point in a directed mode are `convert_directed`'s.
    fn round_for_int(&mut self, v: Handle<Expression>, from: &T, to: &T, rounding: model::Rounding, loc: Loc) -> R<Handle<Expression>> {
        let float_to_int = from.element().is_some_and(S::is_float) && to.element().is_some_and(S::is_integer);
        if !float_to_int {
            return Ok(v);
        }
        let fun = match rounding {
            model::Rounding::Rte if from.element() == Some(S::Double) => return self.round_half_even(v, from, loc),
            model::Rounding::Rte => naga::MathFunction::Round,
            model::Rounding::Rtp => naga::MathFunction::Ceil,
            model::Rounding::Rtn => naga::MathFunction::Floor,
            model::Rounding::Rtz | model::Rounding::Default => return Ok(v),
        };
        Ok(self.b.math(fun, &[v]))
    }

    /// Rounds f32 values to half precision, to nearest even (`half` computes in f32
    /// registers; see `Ctx::round_to_half`).
    pub(super) fn quantize_half(&mut self, v: Handle<Expression>, ty: &T, loc: Loc) -> R<Handle<Expression>> {
        let rounded = self.components(v, ty).into_iter().map(|c| self.round_to_half(c)).collect();
        self.compose_components(rounded, ty, loc)
    }

    /// `v != 0` as C means it (a float NaN is nonzero: naga writes `!=` as the ordered
    /// comparison, false for NaN, so floats test `!(v == 0)`).
    pub(super) fn nonzero(&mut self, v: Handle<Expression>, ty: &T, loc: Loc) -> R<Handle<Expression>> {
        let zero = self.zero_of(ty, loc)?;
        if ty.element().is_some_and(S::is_float) {
            let eq = self.b.binary(B::Equal, v, zero);
            return Ok(self.b.unary(U::LogicalNot, eq));
        }
        Ok(self.b.binary(B::NotEqual, v, zero))
    }

    /// C conversion of `v` from `from` to `to` (same component count).
    pub(super) fn convert(&mut self, v: Handle<Expression>, from: &T, to: &T, sat: bool, loc: Loc) -> R<Handle<Expression>> {
        let (Some(fs), Some(ts)) = (from.element(), to.element()) else {
            return Err(LowerError::new(loc, "internal: conversion of a non-arithmetic type"));
        };
        if ts == S::Bool {
            return self.nonzero(v, from, loc);
        }
        if fs == S::Bool {
            let one = self.int_literal(1, to, loc)?;
            let zero = self.zero_of(to, loc)?;
            return Ok(self.b.select(v, one, zero));
        }
        if ts == S::Half {
            return self.convert_to_half(v, from, model::Rounding::Default, loc);
        }
        let target = reg_scalar(ts);
        let input = v;
        let v = if sat && ts.is_integer() { self.saturate_input(v, fs, ts, from, loc)? } else { v };
        let source = reg_scalar(fs);
        let mut r = if source == target {
            v
        } else if fs.is_integer() && ts.is_integer() && source.width == 4 && target.width == 8 {
            self.b.widen(v, source.kind, target.kind)
        } else if fs.is_integer() && ts.is_integer() && source.kind != target.kind && source.width != target.width {
            // Resize in the source's signedness (sign- or zero-extension as C says), then
            // reinterpret: a one-step conversion extends by the target's signedness.
            let resized = self.b.cast(v, source.kind, Some(target.width));
            self.b.cast(resized, target.kind, None)
        } else {
            self.b.cast(v, target.kind, Some(target.width))
        };
        if sat && fs.is_float() && ts.size() >= 4 {
            // The largest 32/64-bit integer is not a float: naga's conversion clamps to the
            // largest float below it, so inputs at or above 2^bits give the maximum here.
            let bits = ts.size() * 8 - u32::from(ts.is_signed());
            let limit = self.float_like(2f64.powi(bits as i32), from, loc)?;
            let over = self.b.binary(B::GreaterEqual, input, limit);
            let max = if ts.is_signed() { u64::MAX >> (65 - ts.size() * 8) } else { u64::MAX >> (64 - ts.size() * 8) };
            let max = self.int_literal(max, to, loc)?;
            r = self.b.select(over, max, r);
        }
        Ok(if reg_scalar(fs).width == 4 && target.width == 4 && !fs.is_float() && fs.size() <= ts.size() && fs.is_signed() == ts.is_signed() {
            r
        } else {
            self.normalize(r, to)
        })
    }

    /// Clamps `v` to the range of integer type `ts` before a saturating conversion (NaN → 0).
    fn saturate_input(&mut self, v: Handle<Expression>, fs: S, ts: S, from: &T, loc: Loc) -> R<Handle<Expression>> {
        let bits = ts.size() * 8;
        let (lo, hi): (i128, i128) = if ts.is_signed() {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        };
        if fs.is_float() {
            let lo_v = self.float_like(lo as f64, from, loc)?;
            let hi_v = self.float_like(hi as f64, from, loc)?;
            let c = self.b.math(naga::MathFunction::Clamp, &[v, lo_v, hi_v]);
            let nan = self.b.expr(Expression::Relational { fun: naga::RelationalFunction::IsNan, argument: v });
            let zero = self.zero_of(from, loc)?;
            return Ok(self.b.select(nan, zero, c));
        }
        // Integer source: clamp in the source type where the bound is representable.
        let (fbits, fsigned) = (fs.size() * 8, fs.is_signed());
        let (flo, fhi): (i128, i128) = if fsigned { (-(1i128 << (fbits - 1)), (1i128 << (fbits - 1)) - 1) } else { (0, (1i128 << fbits) - 1) };
        let (lo, hi) = (lo.max(flo), hi.min(fhi));
        let lo_v = self.int_literal(lo as u64, from, loc)?;
        let hi_v = self.int_literal(hi as u64, from, loc)?;
        Ok(self.b.math(naga::MathFunction::Clamp, &[v, lo_v, hi_v]))
    }

    pub(super) fn float_like(&mut self, x: f64, ty: &T, loc: Loc) -> R<Handle<Expression>> {
        let l = self.b.float(x, ty.element() == Some(S::Double));
        self.splat_to(l, ty, loc)
    }
}

pub(super) fn unsupported_width(loc: Loc) -> LowerError {
    LowerError::new(loc, "vectors of 8 and 16 components are not supported yet")
}

/// True when `e` reads the enclosing assignment's old value.
/// What pointer type `ty` points to.
fn pointee(ty: &T) -> T {
    match ty {
        T::Pointer { pointee, .. } => (**pointee).clone(),
        _ => T::Void,
    }
}

fn contains_current(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Current => true,
        ExprKind::Convert { value: a, .. } | ExprKind::Splat(a) | ExprKind::Bitcast(a) | ExprKind::Unary(_, a) | ExprKind::Swizzle(a, _) | ExprKind::Member(a, _) | ExprKind::PtrCast(a) | ExprKind::PtrToInt(a) | ExprKind::IntToPtr(a) => contains_current(a),
        ExprKind::Binary(_, a, b) | ExprKind::Compare(_, a, b) | ExprKind::Logic(_, a, b) | ExprKind::PtrAdd(a, b) | ExprKind::PtrDiff(a, b) | ExprKind::Comma(a, b) | ExprKind::Extract(a, b) => contains_current(a) || contains_current(b),
        ExprKind::Cond(a, b, c) => contains_current(a) || contains_current(b) || contains_current(c),
        ExprKind::Vector(v) | ExprKind::Aggregate(v) | ExprKind::Call(_, v) | ExprKind::Builtin(_, v) => v.iter().any(contains_current),
        _ => false,
    }
}

/// The factors of `e` when it is a product of two values of type `ty`.
fn product<'e>(e: &'e Expr, ty: &T) -> Option<(&'e Expr, &'e Expr)> {
    match &e.kind {
        ExprKind::Binary(BinaryOp::Mul, x, y) if e.ty == *ty && x.ty == *ty && y.ty == *ty => Some((x, y)),
        _ => None,
    }
}
