//! The C11 atomic functions (`sema/atomics.rs`). naga's atomics are relaxed, so an ordered
//! atomic is marked by a barrier before it (release) and after it (acquire), which the
//! post-pass `compiler::atomic_order` turns into the atomic's own memory semantics.
//!
//! The object may be anywhere a pointer can point: a buffer (through an atomic view of its
//! words), `__local` data (declared atomic), the `__local` arena (atomic u32 words), one of
//! several regions chosen at run time (a `switch` on the slot, each case the atomic for its
//! region), or private memory, which no other work-item sees (a plain read-modify-write).

use crate::compiler::atomic_order::{ACQUIRE_MARK, RELEASE_MARK};
use super::expr::Val;
use super::place::{Ptr, Root, Step};
use super::region::{Region, Regions};
use super::types::reg_scalar;
use super::{Ctx, LowerError, R};
use crate::compiler::sema::model::{AtomicOp, C11Op, Expr, FenceFlags, MemOrder, Scalar as S, Space, Type as T};
use crate::compiler::source::Loc;
use naga::{AtomicFunction, BinaryOperator as B, Expression, Handle, MathFunction, Statement};

type H = Handle<Expression>;

/// What an atomic does to its object; values are in the registers of the object's type.
#[derive(Clone, Copy)]
enum Act {
    Load,
    Store(H),
    Rmw(AtomicOp, H),
    /// Compare with `expected`, store `desired` if equal.
    Cas { expected: H, desired: H },
}

/// What an atomic gives back: the value it read, and for a compare-exchange whether it
/// stored (bool).
#[derive(Clone, Copy)]
struct Done {
    old: Option<H>,
    stored: Option<H>,
}

/// The scalar an atomic of type `s` is in memory: floats are their bits.
fn memory_scalar(s: S) -> naga::Scalar {
    match s {
        S::Float => naga::Scalar::U32,
        S::Double => naga::Scalar::U64,
        _ => reg_scalar(s),
    }
}

fn rmw_function(op: AtomicOp) -> AtomicFunction {
    match op {
        AtomicOp::Add | AtomicOp::Inc => AtomicFunction::Add,
        AtomicOp::Sub | AtomicOp::Dec => AtomicFunction::Subtract,
        AtomicOp::Min => AtomicFunction::Min,
        AtomicOp::Max => AtomicFunction::Max,
        AtomicOp::And => AtomicFunction::And,
        AtomicOp::Or => AtomicFunction::InclusiveOr,
        AtomicOp::Xor => AtomicFunction::ExclusiveOr,
        AtomicOp::Xchg => AtomicFunction::Exchange { compare: None },
        AtomicOp::CmpXchg => AtomicFunction::Exchange { compare: None },
    }
}

/// The type a plain access to atomic data uses (private memory, where no other work-item
/// looks).
fn plain(ty: &T) -> T {
    match ty {
        T::Atomic(s) => T::Scalar(*s),
        t => t.clone(),
    }
}

impl Ctx<'_> {
    /// A C11 atomic function: its operands and the operation with `order` (`flags`: the
    /// memory the order applies to; ordering `__global` memory makes the buffers `Coherent`).
    pub(super) fn c11_atomic(&mut self, op: C11Op, order: MemOrder, flags: FenceFlags, args: &[Expr], loc: Loc) -> R<Val> {
        let internal = || LowerError::new(loc, "internal: atomic arguments");
        let (object, rest) = args.split_first().ok_or_else(internal)?;
        let T::Pointer { pointee, .. } = &object.ty else { return Err(internal()) };
        let T::Atomic(s) = **pointee else { return Err(internal()) };
        let ptr = self.eval_ptr(object)?;
        let mut expected_at = None;
        let act = match (op, rest) {
            (C11Op::Init | C11Op::Store, [v]) => Act::Store(self.eval_value(v)?),
            (C11Op::Load, []) => Act::Load,
            (C11Op::Rmw(op), [v]) => Act::Rmw(op, self.eval_value(v)?),
            (C11Op::CompareExchange, [e, d]) => {
                let at = self.eval_ptr(e)?;
                let at = self.ptr_access(&at, loc)?;
                let expected = self.load_access(&at, loc)?;
                expected_at = Some(at);
                Act::Cas { expected, desired: self.eval_value(d)? }
            }
            (C11Op::TestAndSet, []) => Act::Rmw(AtomicOp::Xchg, self.b.i32(1)),
            (C11Op::Clear, []) => Act::Store(self.b.i32(0)),
            _ => return Err(internal()),
        };
        let done = self.atomic_at(ptr, s, act, order, loc)?;
        self.orders_global |= order != MemOrder::Relaxed && flags.global;
        let old = || done.old.ok_or_else(|| LowerError::new(loc, "internal: an atomic without a result"));
        Ok(match op {
            C11Op::Init | C11Op::Store | C11Op::Clear => Val::Void,
            C11Op::Load | C11Op::Rmw(_) => Val::V(old()?),
            C11Op::TestAndSet => {
                let zero = self.b.i32(0);
                Val::V(self.b.binary(B::NotEqual, old()?, zero))
            }
            C11Op::CompareExchange => {
                let (Some(at), Some(stored)) = (expected_at, done.stored) else { return Err(internal()) };
                // `*expected` gets the value found when the exchange fails.
                let found = old()?;
                self.b.open();
                let r = self.store_access(&at, found, &T::Scalar(s), loc);
                let reject = self.b.close();
                r?;
                self.b.stmt(Statement::If { condition: stored, accept: naga::Block::new(), reject });
                Val::V(stored)
            }
        })
    }

    /// An OpenCL 1.x atomic (`atomic_add`, `atom_cmpxchg`, ...; relaxed): the old value.
    pub(super) fn atomic(&mut self, op: AtomicOp, args: &[Expr], ty: &T, loc: Loc) -> R<H> {
        let internal = || LowerError::new(loc, "internal: atomic arguments");
        let (object, rest) = args.split_first().ok_or_else(internal)?;
        let s = ty.scalar().ok_or_else(internal)?;
        let ptr = self.eval_ptr(object)?;
        let vals = rest.iter().map(|a| self.eval_value(a)).collect::<R<Vec<_>>>()?;
        let act = match (op, vals.as_slice()) {
            (AtomicOp::Inc | AtomicOp::Dec, []) => {
                let one = self.int_like(1, ty, loc)?;
                Act::Rmw(if op == AtomicOp::Inc { AtomicOp::Add } else { AtomicOp::Sub }, one)
            }
            (AtomicOp::CmpXchg, &[expected, desired]) => Act::Cas { expected, desired },
            (_, &[v]) => Act::Rmw(op, v),
            _ => return Err(internal()),
        };
        let done = self.atomic_at(ptr, s, act, MemOrder::Relaxed, loc)?;
        done.old.ok_or_else(internal)
    }

    /// `act` with `order` on the atomic object of type `s` that `ptr` points to.
    fn atomic_at(&mut self, ptr: Ptr, s: S, act: Act, order: MemOrder, loc: Loc) -> R<Done> {
        let mem = memory_scalar(ptr.seen_as.map_or(s, |(stored, _)| stored));
        match ptr.root {
            Root::Bytes(Region::Chosen { slot, among }) => self.atomic_chosen(ptr, slot, among, s, act, order, loc),
            Root::Bytes(Region::Buffer(n)) => {
                let byte = Self::byte_offset(&ptr, loc)?;
                let width = self.b.u32(u32::from(mem.width));
                let index = self.b.binary(B::Divide, byte, width);
                let p = self.atomic_view(n, mem, index, loc)?;
                self.atomic_on(p, mem, s, act, order, loc)
            }
            Root::Bytes(Region::LocalArena) if mem.width == 4 => {
                let byte = Self::byte_offset(&ptr, loc)?;
                let super::memory::Words::Var { ptr: words, .. } = self.arena_words(Region::LocalArena, loc)? else {
                    return Err(LowerError::new(loc, "internal: the __local arena"));
                };
                let two = self.b.u32(2);
                let index = self.b.binary(B::ShiftRight, byte, two);
                let p = self.b.index(words, index);
                self.atomic_on(p, naga::Scalar::U32, s, act, order, loc)
            }
            Root::Bytes(Region::LocalArena) => Err(LowerError::new(
                loc,
                "64-bit atomics on __local data reached through pointers chosen at run time are not supported (its memory is 32-bit words)",
            )),
            Root::Bytes(Region::PrivateArena) | Root::Local(_) | Root::Arg(_) => self.private_atomic(ptr, s, act, loc),
            Root::Global(_) if ptr.space == Space::Private => self.private_atomic(ptr, s, act, loc),
            Root::Global(_) => {
                if ptr.steps.iter().any(|st| matches!(st, Step::Member(_))) {
                    return Err(LowerError::new(loc, "atomics on members of __local structs are not supported yet"));
                }
                let p = self.materialize(&ptr, loc)?;
                self.atomic_on(p, mem, s, act, order, loc)
            }
            Root::Buffer(arg) => {
                let view = ptr.view.clone().ok_or_else(|| LowerError::new(loc, "internal: buffer pointer without a view"))?;
                let index = match ptr.steps.as_slice() {
                    [Step::Index(i)] if self.program.types.size_of(&view) == u64::from(mem.width) => *i,
                    // A struct member or a pointer cast: the element at its byte offset.
                    _ => {
                        let (byte, _) = self.buffer_byte(&ptr, view, loc)?;
                        let w = self.b.u32(u32::from(mem.width));
                        self.b.binary(B::Divide, byte, w)
                    }
                };
                let p = self.atomic_view(arg, mem, index, loc)?;
                self.atomic_on(p, mem, s, act, order, loc)
            }
            Root::Null | Root::PtrVar(_) => Err(LowerError::new(loc, "an atomic function needs a pointer to an atomic object")),
        }
    }

    /// Element `index` of buffer argument `arg` seen as atomics of `mem`.
    fn atomic_view(&mut self, arg: usize, mem: naga::Scalar, index: H, loc: Loc) -> R<H> {
        let aty = super::builder::intern(&mut self.module, naga::TypeInner::Atomic(mem));
        let view = self
            .abi
            .buffer_view(&mut self.module, arg, aty, u32::from(mem.width))
            .ok_or_else(|| LowerError::new(loc, "internal: not a buffer argument"))?;
        let g = self.b.expr(Expression::GlobalVariable(view));
        Ok(self.b.index(g, index))
    }

    /// `act` with `order` through `p`, a naga pointer to an atomic of `mem` holding a value of
    /// type `s`.
    fn atomic_on(&mut self, p: H, mem: naga::Scalar, s: S, act: Act, order: MemOrder, loc: Loc) -> R<Done> {
        let reg = reg_scalar(s);
        if reg.width != mem.width {
            return Err(LowerError::new(loc, "internal: an atomic of another width"));
        }
        // Signed extrema on unsigned words (the `__local` arena), and float arithmetic
        // (cl_ext_float_atomics: Vulkan's float atomics are optional) are compare-exchange
        // loops.
        if let Act::Rmw(op, v) = act {
            let float = reg.kind == naga::ScalarKind::Float && op != AtomicOp::Xchg;
            if float || (matches!(op, AtomicOp::Min | AtomicOp::Max) && reg.kind != mem.kind) {
                return Ok(self.rmw_loop(p, op, mem, reg, v, order));
            }
        }
        if self.target.ordering_by_rmw && order != MemOrder::Relaxed {
            return Ok(self.rmw_ordered(p, mem, reg, act));
        }
        if order.releases() {
            self.b.stmt(Statement::MemoryBarrier(RELEASE_MARK));
        }
        let done = self.atomic_instruction(p, mem, reg, act);
        if order.acquires() {
            self.b.stmt(Statement::MemoryBarrier(ACQUIRE_MARK));
        }
        Ok(done)
    }

    /// An ordered atomic where read-modify-writes keep the order ([`Target::ordering_by_rmw`]):
    /// a load is a fetch-or of 0, a store an exchange.
    ///
    /// [`Target::ordering_by_rmw`]: crate::compiler::Target::ordering_by_rmw
    fn rmw_ordered(&mut self, p: H, mem: naga::Scalar, reg: naga::Scalar, act: Act) -> Done {
        match act {
            Act::Load => {
                let zero = self.b.lit(super::builder::literal(reg, 0));
                self.atomic_instruction(p, mem, reg, Act::Rmw(AtomicOp::Or, zero))
            }
            Act::Store(v) => {
                self.atomic_instruction(p, mem, reg, Act::Rmw(AtomicOp::Xchg, v));
                Done { old: None, stored: None }
            }
            _ => self.atomic_instruction(p, mem, reg, act),
        }
    }

    /// A memory fence where read-modify-writes keep the order ([`Target::ordering_by_rmw`]): an
    /// atomic add of 0 to a word of workgroup memory that nothing else uses.
    ///
    /// [`Target::ordering_by_rmw`]: crate::compiler::Target::ordering_by_rmw
    pub(super) fn rmw_fence(&mut self) {
        let ty = super::builder::intern(&mut self.module, naga::TypeInner::Atomic(naga::Scalar::U32));
        let word = *self.fence_word.get_or_insert_with(|| {
            let g = naga::GlobalVariable {
                name: Some("fence_word".into()),
                space: naga::AddressSpace::WorkGroup,
                binding: None,
                ty,
                init: None,
                memory_decorations: naga::MemoryDecorations::empty(),
            };
            self.module.global_variables.append(g, naga::Span::UNDEFINED)
        });
        let p = self.b.expr(Expression::GlobalVariable(word));
        let zero = self.b.u32(0);
        self.atomic_instruction(p, naga::Scalar::U32, naga::Scalar::U32, Act::Rmw(AtomicOp::Add, zero));
    }

    /// The one atomic instruction of `act` through `p`.
    fn atomic_instruction(&mut self, p: H, mem: naga::Scalar, reg: naga::Scalar, act: Act) -> Done {
        match act {
            Act::Load => {
                let v = self.b.load(p);
                Done { old: Some(self.from_memory(v, mem, reg)), stored: None }
            }
            Act::Store(v) => {
                let v = self.to_memory(v, reg, mem);
                self.b.store(p, v);
                Done { old: None, stored: None }
            }
            Act::Rmw(op, v) => {
                let value = self.to_memory(v, reg, mem);
                let ty = super::builder::scalar_ty(&mut self.module, mem);
                let result = self.b.expr(Expression::AtomicResult { ty, comparison: false });
                self.b.stmt(Statement::Atomic { pointer: p, fun: rmw_function(op), value, result: Some(result) });
                Done { old: Some(self.from_memory(result, mem, reg)), stored: None }
            }
            Act::Cas { expected, desired } => {
                let (old, stored) = self.compare_exchange(p, mem, expected, desired, reg);
                Done { old: Some(old), stored: Some(stored) }
            }
        }
    }

    /// One compare-exchange through `p`: the value found and whether it stored.
    fn compare_exchange(&mut self, p: H, mem: naga::Scalar, expected: H, desired: H, reg: naga::Scalar) -> (H, H) {
        let compare = self.to_memory(expected, reg, mem);
        let value = self.to_memory(desired, reg, mem);
        let ty = self.module.generate_predeclared_type(naga::PredeclaredType::AtomicCompareExchangeWeakResult(mem));
        let result = self.b.expr(Expression::AtomicResult { ty, comparison: true });
        self.b.stmt(Statement::Atomic { pointer: p, fun: AtomicFunction::Exchange { compare: Some(compare) }, value, result: Some(result) });
        let old = self.b.member(result, 0);
        let stored = self.b.member(result, 1);
        (self.from_memory(old, mem, reg), stored)
    }

    /// A read-modify-write by a compare-exchange loop, whose exchange has the order: the
    /// signed extrema on unsigned words, and every float operation (compared as bits, so a
    /// NaN found ends the loop too).
    fn rmw_loop(&mut self, p: H, op: AtomicOp, mem: naga::Scalar, reg: naga::Scalar, v: H, order: MemOrder) -> Done {
        let reg_ty = super::builder::scalar_ty(&mut self.module, reg);
        let found = self.b.local("atomic_found", reg_ty);
        self.b.open();
        let current = self.b.load(p);
        let current = self.from_memory(current, mem, reg);
        let new = if reg.kind == naga::ScalarKind::Float { self.float_rmw(op, current, v) } else { self.plain_rmw(op, current, v) };
        let marked = !self.target.ordering_by_rmw;
        if marked && order.releases() {
            self.b.stmt(Statement::MemoryBarrier(RELEASE_MARK));
        }
        let (_, stored) = self.compare_exchange(p, mem, current, new, reg);
        if marked && order.acquires() {
            self.b.stmt(Statement::MemoryBarrier(ACQUIRE_MARK));
        }
        let at = self.b.expr(Expression::LocalVariable(found));
        self.b.store(at, current);
        // Left by the loop's own test: lavapipe lost the stores of the work-items that left
        // by a `break` in the body before the last one did (also in OpenCL C written so).
        let body = self.b.close();
        self.b.stmt(Statement::Loop { body, continuing: naga::Block::new(), break_if: Some(stored) });
        let at = self.b.expr(Expression::LocalVariable(found));
        Done { old: Some(self.b.load(at)), stored: None }
    }

    /// Register value `v` as the bits an atomic of `mem` holds.
    fn to_memory(&mut self, v: H, reg: naga::Scalar, mem: naga::Scalar) -> H {
        if reg == mem { v } else { self.b.cast(v, mem.kind, None) }
    }

    fn from_memory(&mut self, v: H, mem: naga::Scalar, reg: naga::Scalar) -> H {
        if reg == mem { v } else { self.b.cast(v, reg.kind, None) }
    }

    /// `act` on an object in one of the regions `among`, numbered by `slot` at run time.
    fn atomic_chosen(&mut self, ptr: Ptr, slot: H, among: Regions, s: S, act: Act, order: MemOrder, loc: Loc) -> R<Done> {
        let reg_ty = super::builder::scalar_ty(&mut self.module, reg_scalar(s));
        let bool_ty = super::builder::scalar_ty(&mut self.module, naga::Scalar::BOOL);
        let (old, stored) = (self.b.local("atomic_old", reg_ty), self.b.local("atomic_stored", bool_ty));
        let mut cases = Vec::new();
        let mut shape = Done { old: None, stored: None };
        for (n, region) in self.chosen_cases(among) {
            self.b.open();
            let one = Ptr { root: Root::Bytes(region), ..ptr.clone() };
            let r = self.atomic_at(one, s, act, order, loc);
            if let Ok(done) = r {
                for (value, var) in [(done.old, old), (done.stored, stored)] {
                    if let Some(v) = value {
                        let at = self.b.expr(Expression::LocalVariable(var));
                        self.b.store(at, v);
                    }
                }
                shape = done;
            }
            let body = self.b.close();
            r?;
            cases.push(naga::SwitchCase { value: naga::SwitchValue::U32(n), body, fall_through: false });
        }
        cases.push(naga::SwitchCase { value: naga::SwitchValue::Default, body: naga::Block::new(), fall_through: false });
        self.b.stmt(Statement::Switch { selector: slot, cases });
        let read = |cx: &mut Self, var, present: Option<H>| {
            present.map(|_| {
                let at = cx.b.expr(Expression::LocalVariable(var));
                cx.b.load(at)
            })
        };
        Ok(Done { old: read(self, old, shape.old), stored: read(self, stored, shape.stored) })
    }

    /// `act` on private data, which only this work-item reaches: a plain read-modify-write.
    fn private_atomic(&mut self, mut ptr: Ptr, s: S, act: Act, loc: Loc) -> R<Done> {
        ptr.view = ptr.view.as_ref().map(plain);
        let ty = T::Scalar(s);
        let access = self.ptr_access(&ptr, loc)?;
        if let Act::Store(v) = act {
            self.store_access(&access, v, &ty, loc)?;
            return Ok(Done { old: None, stored: None });
        }
        let old = self.load_access(&access, loc)?;
        let (new, stored) = match act {
            Act::Load | Act::Store(_) => return Ok(Done { old: Some(old), stored: None }),
            Act::Rmw(op, v) if s.is_float() => (self.float_rmw(op, old, v), None),
            Act::Rmw(op, v) => (self.plain_rmw(op, old, v), None),
            Act::Cas { expected, desired } => {
                // Compared as bits, as the atomic compare-exchange of floats is.
                let (a, b) = if s.is_float() { (self.bits_of(old, s), self.bits_of(expected, s)) } else { (old, expected) };
                let equal = self.b.binary(B::Equal, a, b);
                (self.b.select(equal, desired, old), Some(equal))
            }
        };
        self.store_access(&access, new, &ty, loc)?;
        Ok(Done { old: Some(old), stored })
    }

    /// The value float `op` leaves where `old` was, given operand `v`: min and max take the
    /// number where one operand is NaN (cl_ext_float_atomics: as `fmin`/`fmax`).
    fn float_rmw(&mut self, op: AtomicOp, old: H, v: H) -> H {
        let less = match op {
            AtomicOp::Min => B::Less,
            AtomicOp::Max => B::Greater,
            _ => return self.plain_rmw(op, old, v),
        };
        let keep = self.b.binary(less, old, v);
        let pick = self.b.select(keep, old, v);
        let old_nan = self.b.expr(Expression::Relational { fun: naga::RelationalFunction::IsNan, argument: old });
        let pick = self.b.select(old_nan, v, pick);
        let v_nan = self.b.expr(Expression::Relational { fun: naga::RelationalFunction::IsNan, argument: v });
        self.b.select(v_nan, old, pick)
    }

    /// The value `op` leaves where `old` was, given operand `v`.
    fn plain_rmw(&mut self, op: AtomicOp, old: H, v: H) -> H {
        let binary = match op {
            AtomicOp::Add | AtomicOp::Inc => B::Add,
            AtomicOp::Sub | AtomicOp::Dec => B::Subtract,
            AtomicOp::And => B::And,
            AtomicOp::Or => B::InclusiveOr,
            AtomicOp::Xor => B::ExclusiveOr,
            AtomicOp::Min => return self.b.math(MathFunction::Min, &[old, v]),
            AtomicOp::Max => return self.b.math(MathFunction::Max, &[old, v]),
            AtomicOp::Xchg | AtomicOp::CmpXchg => return v,
        };
        self.b.binary(binary, old, v)
    }
}
