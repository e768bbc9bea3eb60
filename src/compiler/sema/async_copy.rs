//! Asynchronous copies between `__global` and `__local` memory (`async_work_group_copy`,
//! `async_work_group_strided_copy`), `wait_group_events`, `async_work_group_copy_fence`,
//! `prefetch` and the `event_t` type, written with other nodes of the model.
//!
//! A copy runs when it is called: the work-items of the group share its elements, work-item
//! `get_local_linear_id()` copying elements `i`, `i + group size`, ... in a [`Builtin::Loop`].
//! So no work-item has the whole copy until all have done their part: `wait_group_events`
//! (and `async_work_group_copy_fence`) is a barrier on local and global memory, which every
//! work-item of the group reaches, as the spec requires of both. An `event_t` is a record of
//! one `size_t` that nothing reads; a copy returns the event it was given (or a zero one).

use super::model::{Builtin, Expr, ExprKind, FenceFlags, Member, Place, Record, RecordId, Scalar, Space, Type};
use super::derived::{assign, load, node, seq};
use super::Sema;
use crate::compiler::parse::ast::BinaryOp;
use crate::compiler::source::Loc;

/// The pointee and space of a pointer type, and whether the pointee is const.
fn pointer_parts(ty: &Type) -> Option<(&Type, Space, bool)> {
    match ty {
        Type::Pointer { pointee, space, quals } => Some((pointee, *space, quals.is_const)),
        _ => None,
    }
}

impl Sema<'_> {
    /// The `event_t` type: one record for the program, made at its first use.
    pub(super) fn event_type(&mut self) -> Type {
        if let Some(id) = self.event {
            return Type::Record(id);
        }
        let id = RecordId(self.types.records.len() as u32);
        let size = self.size_type();
        let bytes = self.types.pointer_size;
        // The member has no name, so a program cannot reach it.
        let member = Member { name: String::new(), ty: size, offset: 0 };
        self.types.records.push(Record { name: "event_t".into(), is_union: false, members: vec![member], size: bytes, align: bytes, packed: false });
        self.event = Some(id);
        Type::Record(id)
    }

    /// `async_work_group_copy(dst, src, n, event)` and
    /// `async_work_group_strided_copy(dst, src, n, stride, event)`: `__local` ← `const
    /// __global` or `__global` ← `const __local`, of one element type; the stride steps
    /// through the `__global` side.
    pub(super) fn async_copy_call(&mut self, name: &str, mut args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        let strided = name == "async_work_group_strided_copy";
        self.arity(name, &args, if strided { 5 } else { 4 }, loc)?;
        let event = args.pop()?;
        let event_ty = self.event_type();
        let event = self.assign_convert(event, &event_ty, &format!("the event argument of '{name}'"))?;
        let size = self.size_type();
        let stride = if strided { Some(args.pop()?) } else { None };
        let n = args.pop()?;
        let counts = self.scalar_args(name, [Some(n), stride].into_iter().flatten().collect(), &size, loc)?;
        let (src, dst) = (args.pop()?, args.pop()?);
        let to_local = self.copy_direction(name, &dst, &src, loc)?;

        let mut setup = Vec::new();
        let mut places = Vec::new();
        for e in [dst, src].into_iter().chain(counts) {
            let (first, place) = self.spill(e, name)?;
            setup.push(first);
            places.push(place);
        }
        let [dst, src, n, stride @ ..] = places.as_slice() else { return None };
        let id = self.builtin_call("get_local_linear_id", vec![], loc)?;
        let (first, i) = self.spill(id, name)?;
        setup.push(first);
        let group = self.group_size(loc)?;
        let (first, step) = self.spill(group, name)?;
        setup.push(first);

        let global_index = match stride.first() {
            Some(s) => self.binary(BinaryOp::Mul, load(&i), load(s), loc)?,
            None => load(&i),
        };
        let (dst_index, src_index) = if to_local { (load(&i), global_index) } else { (global_index, load(&i)) };
        let to = self.element(dst, dst_index, loc)?;
        let from = self.element(src, src_index, loc)?;
        let next = self.binary(BinaryOp::Add, load(&i), load(&step), loc)?;
        let body = seq(assign(to, load(&from)), assign(i.clone(), next));
        let more = self.binary(BinaryOp::Lt, load(&i), load(n), loc)?;
        let more = self.truth_value(more)?;
        setup.push(node(ExprKind::Builtin(Builtin::Loop, vec![more, body]), Type::Void, loc));
        Some(setup.into_iter().rev().fold(event, |then, first| seq(first, then)))
    }

    /// Whether a copy from `src` to `dst` goes into `__local` memory; an error unless the
    /// pointers are `__local T*` and `const __global T*` or `__global T*` and `const __local T*`.
    fn copy_direction(&mut self, name: &str, dst: &Expr, src: &Expr, loc: Loc) -> Option<bool> {
        if let (Some((to, to_space, false)), Some((from, from_space, _))) = (pointer_parts(&dst.ty), pointer_parts(&src.ty)) {
            let elem_ok = to == from && !matches!(to, Type::Void);
            match (to_space, from_space) {
                (Space::Local, Space::Global) if elem_ok => return Some(true),
                (Space::Global, Space::Local) if elem_ok => return Some(false),
                _ => {}
            }
        }
        let (d, s) = (self.type_str(&dst.ty), self.type_str(&src.ty));
        self.err(
            loc,
            format!("'{name}' copies from a 'const __global T*' to a '__local T*' or from a 'const __local T*' to a '__global T*', not from '{s}' to '{d}'"),
        )
    }

    /// `*(p + index)` for the pointer variable `p`.
    fn element(&mut self, p: &Place, index: Expr, loc: Loc) -> Option<Place> {
        let ptr = node(ExprKind::PtrAdd(Box::new(load(p)), Box::new(index)), p.ty.clone(), loc);
        self.deref(ptr, loc)
    }

    /// The number of work-items in the group, as `size_t`.
    fn group_size(&mut self, loc: Loc) -> Option<Expr> {
        let mut total: Option<Expr> = None;
        for d in 0..3 {
            let dim = node(ExprKind::Int(d), Type::Scalar(Scalar::UInt), loc);
            let size = self.builtin_call("get_local_size", vec![dim], loc)?;
            total = Some(match total {
                Some(t) => self.binary(BinaryOp::Mul, t, size, loc)?,
                None => size,
            });
        }
        total
    }

    /// `wait_group_events(num_events, event_list)`: a barrier on local and global memory
    /// (every copy is complete once the whole group has reached it). `num_events` is
    /// evaluated; the list is only checked.
    pub(super) fn wait_events_call(&mut self, name: &str, mut args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        self.arity(name, &args, 2, loc)?;
        let list = args.pop()?;
        let event = self.event_type();
        if !pointer_parts(&list.ty).is_some_and(|(t, _, _)| *t == event) {
            return self.err(loc, format!("the second argument of '{name}' must be an 'event_t *', not '{}'", self.type_str(&list.ty)));
        }
        let count = self.scalar_args(name, args, &Type::Scalar(Scalar::Int), loc)?.pop()?;
        let flags = FenceFlags { local: true, global: true };
        Some(seq(count, node(ExprKind::Builtin(Builtin::Barrier(flags), vec![]), Type::Void, loc)))
    }

    /// `prefetch(const __global T *p, size_t n)`: only checked.
    pub(super) fn prefetch_call(&mut self, name: &str, args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        self.arity(name, &args, 2, loc)?;
        if !pointer_parts(&args[0].ty).is_some_and(|(_, space, _)| space == Space::Global) {
            return self.err(loc, format!("the first argument of '{name}' must be a '__global' pointer, not '{}'", self.type_str(&args[0].ty)));
        }
        let size = self.size_type();
        self.scalar_args(name, args[1..].to_vec(), &size, loc)?;
        Some(node(ExprKind::Builtin(Builtin::Prefetch, vec![]), Type::Void, loc))
    }

    /// Arguments of scalar parameters of type `ty` (a size or a count), converted as a call's
    /// arguments are.
    pub(super) fn scalar_args(&mut self, name: &str, args: Vec<Expr>, ty: &Type, loc: Loc) -> Option<Vec<Expr>> {
        if args.iter().any(|a| !matches!(a.ty, Type::Scalar(_))) {
            return self.no_overload(name, &args, loc).map(|_| vec![]);
        }
        args.into_iter().map(|a| self.assign_convert(a, ty, &format!("an argument of '{name}'"))).collect()
    }
}
