//! Statements, function frames and inlining. A user function is inlined at each call (large
//! ones may be called instead, `outline.rs`): its locals become fresh locals of the caller,
//! its body runs inside a one-iteration loop, and `return` stores the value, sets a flag and
//! breaks (re-breaking after every nested loop/switch while the flag is set).

use super::abi::Param as AbiParam;
use super::expr::Val;
use super::place::{Ptr, Step};
use super::region::Region;
use super::points_to::Object;
use super::unroll;
use super::{Ctx, Exit, Frame, LowerError, Slot, MAX_INLINE_DEPTH, MAX_KERNEL_EXPRESSIONS, R};
use crate::compiler::sema::model::{self, Expr, FuncId, LocalId, Stmt, Type as T};
use crate::compiler::source::Loc;
use naga::{Block, Expression, Handle, Span, Statement, SwitchCase, SwitchValue};

impl<'p> Ctx<'p> {
    /// Lowers the kernel `id` as the body of `main`.
    pub(super) fn kernel_body(&mut self, id: FuncId) -> R<()> {
        let func = self.function(id)?;
        let locals = self.fresh_locals(id, func)?;
        self.frames.push(Frame::new(id, locals, Exit::Return));
        for (n, p) in func.params.iter().enumerate() {
            self.bind_kernel_param(n, p.local, func.loc)?;
        }
        let body = self.block(&func.body);
        self.frames.pop();
        body
    }

    pub(super) fn function(&self, id: FuncId) -> R<&'p model::Function> {
        let program = self.program;
        program.function(id).ok_or_else(|| LowerError::new(Loc::default(), "internal: unknown function"))
    }

    /// Fresh naga locals for every local of function `id` (pointer locals get an index
    /// variable, addressed variables room in the private arena).
    pub(super) fn fresh_locals(&mut self, id: FuncId, func: &model::Function) -> R<Vec<Slot>> {
        let u32_ty = super::builder::scalar_ty(&mut self.module, naga::Scalar::U32);
        (0u32..)
            .zip(&func.locals)
            .map(|(n, l)| {
                Ok(if let model::Type::Image(..) = l.ty {
                    Slot::Image(None)
                } else if l.ty.is_pointer() {
                    Slot::Ptr(None, self.b.local(&format!("{}_index", l.name), u32_ty))
                } else if self.points_to.is_addressed(Object::Private(id.0, n)) {
                    Slot::Arena(self.arena_alloc(Region::PrivateArena, &l.ty, l.loc)?)
                } else {
                    let ty = self.naga_ty(&l.ty, l.loc)?;
                    Slot::Var(self.b.local(&l.name, ty))
                })
            })
            .collect()
    }

    /// Stores `v` into non-pointer local `id` of the function instance being lowered.
    fn store_local(&mut self, id: LocalId, v: Handle<Expression>, loc: Loc) -> R<()> {
        match self.slot(id, loc)? {
            Slot::Var(var) => {
                let p = self.b.expr(Expression::LocalVariable(var));
                self.b.store(p, v);
                // A 64-bit integer scalar may keep a 32-bit copy (`FnBuilder::shadow`).
                if matches!(self.local_ty(id, loc)?, T::Scalar(model::Scalar::Long | model::Scalar::ULong)) {
                    let u32_ty = super::builder::scalar_ty(&mut self.module, naga::Scalar::U32);
                    self.b.shadow(var, v, u32_ty);
                }
                Ok(())
            }
            Slot::Arena(byte) => {
                let ty = self.local_ty(id, loc)?;
                let ptr = self.arena_ptr(Region::PrivateArena, byte, &ty, model::Space::Private);
                let access = self.ptr_access(&ptr, loc)?;
                self.store_access(&access, v, &ty, loc)
            }
            Slot::Ptr(..) | Slot::Image(_) => Err(LowerError::new(loc, "internal: a value stored into a pointer or image variable")),
        }
    }

    pub(super) fn slot(&self, id: LocalId, loc: Loc) -> R<Slot> {
        self.frames
            .last()
            .and_then(|f| f.locals.get(id.0 as usize))
            .cloned()
            .ok_or_else(|| LowerError::new(loc, "internal: unknown local"))
    }

    /// Gives kernel parameter `n` (local `id`) its value from the launch interface.
    fn bind_kernel_param(&mut self, n: usize, id: LocalId, loc: Loc) -> R<()> {
        let ty = self.local_ty(id, loc)?;
        let root = match self.abi.params.get(n) {
            Some(AbiParam::Buffer { .. }) => super::place::Root::Buffer(n),
            Some(AbiParam::Local { ordinal, .. }) if self.points_to.is_addressed(Object::KernelArg(id.0)) => {
                let (ordinal, ty) = (*ordinal, self.local_ty(id, loc)?);
                let T::Pointer { pointee, .. } = ty else { return Err(LowerError::new(loc, "internal: pointer parameter expected")) };
                let ptr = self.arena_arg(ordinal, &pointee, loc)?;
                return self.assign_ptr_var(self.here(id), ptr, loc);
            }
            Some(AbiParam::Local { var, .. }) => super::place::Root::Global(*var),
            Some(AbiParam::Image { .. }) => return self.bind_image(id, n, loc),
            Some(AbiParam::Sampler { .. }) => {
                let src = self.abi.pod_pointer(&mut self.b, n).ok_or_else(|| LowerError::new(loc, "internal: sampler"))?;
                let v = self.b.load(src);
                return self.store_local(id, v, loc);
            }
            Some(AbiParam::Pod { words, .. }) => {
                let words = *words;
                let src = self.abi.pod_pointer(&mut self.b, n).ok_or_else(|| LowerError::new(loc, "internal: pod"))?;
                let v = self.b.load(src);
                let v = if words { self.pod_from_words(v, &ty, loc)? } else { v };
                return self.store_local(id, v, loc);
            }
            None => return Err(LowerError::new(loc, "internal: parameter without ABI")),
        };
        let T::Pointer { pointee, space, .. } = ty else {
            return Err(LowerError::new(loc, "internal: pointer parameter expected"));
        };
        let view = matches!(root, super::place::Root::Buffer(_)).then(|| (*pointee).clone());
        let zero = self.b.u32(0);
        let ptr = Ptr { root, view, steps: vec![Step::Index(zero)], space, seen_as: None };
        self.assign_ptr_var(self.here(id), ptr, loc)
    }

    /// A value argument from the words it is passed in (see `abi::pod_words_type`): the words
    /// go to a private word array read back as `ty`.
    fn pod_from_words(&mut self, v: Handle<Expression>, ty: &T, loc: Loc) -> R<Handle<Expression>> {
        let size = self.program.types.size_of(ty) as u32;
        let words: Vec<Handle<Expression>> = (0..size.div_ceil(4))
            .map(|k| match size {
                0..=4 => v,
                5..=16 => self.b.member(v, k),
                _ => {
                    let quad = self.b.member(v, k / 4);
                    self.b.member(quad, k % 4)
                }
            })
            .collect();
        self.reinterpret_words(words, ty, loc)
    }

    fn local_ty(&self, id: LocalId, loc: Loc) -> R<T> {
        let f = self.frames.last().map(|f| f.func).ok_or_else(|| LowerError::new(loc, "internal: no frame"))?;
        self.function(f)?
            .locals
            .get(id.0 as usize)
            .map(|l| l.ty.clone())
            .ok_or_else(|| LowerError::new(loc, "internal: unknown local"))
    }

    pub(super) fn block(&mut self, stmts: &[Stmt]) -> R<()> {
        for s in stmts {
            if self.b.terminated() {
                break; // unreachable code after a jump: naga forbids it
            }
            self.stmt(s)?;
        }
        Ok(())
    }

    fn stmt(&mut self, s: &Stmt) -> R<()> {
        match s {
            Stmt::Block(b) => self.block(b),
            Stmt::Decl { local, init } => match init {
                Some(e) if e.ty.is_pointer() => {
                    let p = self.eval_ptr(e)?;
                    self.assign_ptr_var(self.here(*local), p, e.loc)
                }
                Some(e) => {
                    let v = self.eval_value(e)?;
                    self.store_local(*local, v, e.loc)
                }
                None => Ok(()),
            },
            Stmt::Expr(e) => self.eval(e).map(|_| ()),
            Stmt::If { cond, then, otherwise } => {
                let c = self.eval_value(cond)?;
                self.if_stmt(c, |cx| cx.stmt(then), |cx| otherwise.as_ref().map_or(Ok(()), |o| cx.stmt(o)))
            }
            Stmt::While { cond, body } => self.lower_loop(None, Some(cond), None, body, false),
            Stmt::DoWhile { body, cond } => self.lower_loop(None, Some(cond), None, body, true),
            Stmt::For { init, cond, step, body, unroll } => match unroll::plan(*unroll, init, cond.as_ref(), step.as_ref(), body) {
                unroll::Plan::Full(counted) => self.unrolled(counted, body),
                unroll::Plan::Partial(n) => {
                    let copies = unroll::repeated(body, cond.as_ref(), step.as_ref(), n);
                    self.lower_loop(Some(init), cond.as_ref(), step.as_ref(), &copies, false)
                }
                unroll::Plan::Keep => self.lower_loop(Some(init), cond.as_ref(), step.as_ref(), body, false),
            },
            Stmt::Switch { selector, cases } => self.switch(selector, cases),
            Stmt::Break => {
                self.b.stmt(Statement::Break);
                Ok(())
            }
            Stmt::Continue => {
                self.b.stmt(Statement::Continue);
                Ok(())
            }
            Stmt::Return(value) => self.ret(value.as_ref()),
            Stmt::Label(_) | Stmt::Goto(..) => Err(LowerError::new(Loc::default(), "internal: goto left by sema")),
        }
    }

    /// A counted loop as one copy of its body per iteration, in which the counter is a
    /// constant.
    fn unrolled(&mut self, counted: unroll::Counted, body: &Stmt) -> R<()> {
        for v in counted.values {
            let value = self.eval_value(&Expr { kind: model::ExprKind::Int(v as u64), ty: counted.ty.clone(), loc: counted.loc })?;
            self.with_counter(counted.local, value, |cx| cx.stmt(body))?;
            if let Some(also) = &counted.also {
                self.stmt(&model::Stmt::Expr(also.clone()))?;
            }
        }
        Ok(())
    }

    fn with_counter(&mut self, id: LocalId, value: Handle<Expression>, f: impl FnOnce(&mut Self) -> R<()>) -> R<()> {
        if let Some(frame) = self.frames.last_mut() {
            frame.counters.push((id, value));
        }
        let r = f(self);
        if let Some(frame) = self.frames.last_mut() {
            frame.counters.pop();
        }
        r
    }

    /// The value of an unrolled loop's counter that `place` is.
    pub(super) fn counter(&self, place: &model::Place) -> Option<Handle<Expression>> {
        let model::PlaceKind::Local(id) = place.kind else { return None };
        let frame = self.frames.last()?;
        frame.counters.iter().rev().find(|(l, _)| *l == id).map(|(_, v)| *v)
    }

    /// `init; loop { if !cond break; body } continuing { step }`; a do-while tests its
    /// condition in the continuing block.
    pub(super) fn lower_loop(&mut self, init: Option<&Vec<Stmt>>, cond: Option<&Expr>, step: Option<&Expr>, body: &Stmt, test_after: bool) -> R<()> {
        if let Some(init) = init {
            self.block(init)?;
        }
        self.b.open();
        let r = (|| -> R<()> {
            if let (Some(c), false) = (cond, test_after) {
                let c = self.eval_value(c)?;
                let stop = self.b.unary(naga::UnaryOperator::LogicalNot, c);
                self.b.if_else(stop, |b| b.stmt(Statement::Break), |_| {});
            }
            let endless = cond.is_none_or(|c| matches!(c.kind, model::ExprKind::Int(v) if v != 0));
            if endless && self.target.guard_endless_loops {
                // The global size is never 0 (see `Target::guard_endless_loops`).
                let dim = self.b.u32(0);
                let size = self.workitem.call(&self.abi, &mut self.b, model::WorkItemFn::GlobalSize, dim);
                let zero = self.b.u32(0);
                let stop = self.b.binary(naga::BinaryOperator::Equal, size, zero);
                self.b.if_else(stop, |b| b.stmt(Statement::Break), |_| {});
            }
            self.stmt(body)
        })();
        let body_block = self.b.close();
        r?;
        self.b.open();
        let r = (|| -> R<Option<Handle<Expression>>> {
            if let Some(s) = step {
                self.eval(s)?;
            }
            match (cond, test_after) {
                (Some(c), true) => {
                    let c = self.eval_value(c)?;
                    Ok(Some(self.b.unary(naga::UnaryOperator::LogicalNot, c)))
                }
                _ => Ok(None),
            }
        })();
        let continuing = self.b.close();
        let break_if = r?;
        self.b.stmt(Statement::Loop { body: body_block, continuing, break_if });
        self.propagate_return();
        Ok(())
    }

    fn switch(&mut self, selector: &Expr, cases: &[model::SwitchCase]) -> R<()> {
        let sel = self.eval_value(selector)?;
        let signed = selector.ty.element().is_some_and(|s| s.is_signed());
        let sel = match selector.ty.element() {
            Some(model::Scalar::Long | model::Scalar::ULong) => {
                if cases.iter().flat_map(|c| &c.values).any(|&v| if signed { v as i64 != v as i32 as i64 } else { v > u64::from(u32::MAX) }) {
                    return Err(LowerError::new(selector.loc, "switch on a 64-bit value with case labels outside 32 bits is not supported"));
                }
                let kind = if signed { naga::ScalarKind::Sint } else { naga::ScalarKind::Uint };
                self.b.cast(sel, kind, Some(4))
            }
            _ => sel,
        };
        let value = |v: u64| if signed { SwitchValue::I32(v as i32) } else { SwitchValue::U32(v as u32) };
        let mut out = Vec::new();
        let mut result = Ok(());
        for (i, case) in cases.iter().enumerate() {
            let mut labels: Vec<SwitchValue> = case.values.iter().map(|&v| value(v)).collect();
            if case.is_default {
                labels.push(SwitchValue::Default);
            }
            self.b.open();
            let r = self.block(&case.body);
            let body = self.b.close();
            if r.is_err() {
                result = r;
                break;
            }
            let last = labels.len().saturating_sub(1);
            let is_last_case = i + 1 == cases.len();
            for (k, label) in labels.into_iter().enumerate() {
                let (mut body, fall_through) = if k == last {
                    (body.clone(), case.falls_through && !is_last_case)
                } else {
                    (Block::new(), true)
                };
                if body.is_empty() && fall_through {
                    // naga 30 spv-out merges an empty fall-through case into the next one
                    // but then points the next one's fall-through at itself; an empty
                    // nested block keeps the case apart.
                    body.push(Statement::Block(Block::new()), Span::UNDEFINED);
                }
                out.push(SwitchCase { value: label, body, fall_through });
            }
        }
        result?;
        if !out.iter().any(|c| c.value == SwitchValue::Default) {
            out.push(SwitchCase { value: SwitchValue::Default, body: Block::new(), fall_through: false });
        }
        if let Some(last) = out.last_mut() {
            last.fall_through = false;
        }
        self.b.stmt(Statement::Switch { selector: sel, cases: out });
        self.propagate_return();
        Ok(())
    }

    /// In an inlined callee, after a nested loop/switch: leave the enclosing one too if the
    /// callee has returned.
    fn propagate_return(&mut self) {
        let Some(Frame { exit: Exit::Break { flag, .. }, .. }) = self.frames.last() else { return };
        let flag = *flag;
        let p = self.b.expr(Expression::LocalVariable(flag));
        let done = self.b.load(p);
        self.b.if_else(done, |b| b.stmt(Statement::Break), |_| {});
    }

    fn ret(&mut self, value: Option<&Expr>) -> R<()> {
        match self.frames.last().map(|f| &f.exit) {
            Some(Exit::Break { slot, flag }) => {
                let (slot, flag) = (slot.clone(), *flag);
                self.ret_by_break(value, slot, flag)
            }
            Some(Exit::Tail(_)) => {
                let result = match value {
                    Some(e) if e.ty.is_pointer() => Some(Val::P(self.eval_ptr(e)?)),
                    Some(e) => self.returned_value(e, e.ty != T::Void)?.map(Val::V),
                    None => None,
                };
                if let Some(f) = self.frames.last_mut() {
                    f.exit = Exit::Tail(result);
                }
                Ok(())
            }
            Some(Exit::Return) | None => {
                // The kernel, or a helper lowered as a function of its own (`outline.rs`).
                let value = match value {
                    Some(e) => self.returned_value(e, self.b.func.result.is_some())?,
                    None => None,
                };
                self.b.stmt(Statement::Return { value });
                Ok(())
            }
        }
    }

    /// A `return`ed expression: its value where the function has one, else evaluated for
    /// its effects only.
    fn returned_value(&mut self, e: &Expr, has_value: bool) -> R<Option<Handle<naga::Expression>>> {
        if has_value {
            return self.eval_value(e).map(Some);
        }
        self.eval(e)?;
        Ok(None)
    }

    fn ret_by_break(&mut self, value: Option<&Expr>, slot: Option<Slot>, flag: Handle<naga::LocalVariable>) -> R<()> {
        match (value, slot) {
            (Some(e), Some(Slot::Var(var))) => {
                let v = self.eval_value(e)?;
                let p = self.b.expr(Expression::LocalVariable(var));
                self.b.store(p, v);
            }
            (Some(e), Some(slot @ Slot::Ptr(..))) => {
                let p = self.eval_ptr(e)?;
                let ret = super::points_to::Holder::Ret(self.frames.last().map_or(0, |f| f.func.0));
                let p = self.as_held_by(p, ret, e.loc)?;
                let slot = self.store_ptr_slot(slot, p, e.loc)?;
                if let Some(f) = self.frames.last_mut() {
                    f.exit = Exit::Break { slot: Some(slot), flag };
                }
            }
            (Some(e), None) => {
                self.eval(e)?;
            }
            (Some(e), Some(Slot::Arena(_) | Slot::Image(_))) => return Err(LowerError::new(e.loc, "internal: a result in the arena")),
            (None, _) => {}
        }
        let t = self.b.lit(naga::Literal::Bool(true));
        let p = self.b.expr(Expression::LocalVariable(flag));
        self.b.store(p, t);
        self.b.stmt(Statement::Break);
        Ok(())
    }

    /// Inlines a call of user function `id`.
    pub(super) fn inline_call(&mut self, id: FuncId, args: &[Expr], loc: Loc) -> R<Val> {
        if self.frames.len() > MAX_INLINE_DEPTH {
            return Err(LowerError::new(loc, "function calls nested too deeply"));
        }
        if self.b.func.expressions.len() > MAX_KERNEL_EXPRESSIONS {
            return Err(LowerError::new(loc, "the kernel is too large once its function calls are inlined"));
        }
        let callee = self.function(id)?;
        // Arguments are evaluated in the caller's frame.
        let vals = args.iter().map(|a| self.eval(a)).collect::<R<Vec<_>>>()?;
        if let Some(result) = self.call_outlined(id, callee, &vals, loc)? {
            return Ok(result);
        }
        let samplers: Vec<(LocalId, u32)> = callee.params.iter().zip(args).filter_map(|(p, a)| Some((p.local, self.constant_sampler(a)?))).collect();
        let locals = self.fresh_locals(id, callee)?;
        let exit = if returns_only_at_end(&callee.body) { Exit::Tail(None) } else { self.break_exit(callee, loc)? };
        let tail = matches!(exit, Exit::Tail(_));
        let mut frame = Frame::new(id, locals, exit);
        frame.samplers = samplers;
        self.frames.push(frame);
        let r = if tail { self.bind_params(callee, vals).and_then(|()| self.block(&callee.body)) } else { self.inline_body(callee, vals) };
        let frame = self.frames.pop();
        r?;
        Ok(match frame.map(|f| f.exit) {
            Some(Exit::Tail(Some(result))) => result,
            // Falling off the end of a non-void function gives an undefined value.
            Some(Exit::Tail(None)) if callee.ret != T::Void && !callee.ret.is_pointer() => {
                let ty = self.naga_ty(&callee.ret, loc)?;
                Val::V(self.b.expr(Expression::ZeroValue(ty)))
            }
            Some(Exit::Break { slot: Some(Slot::Var(var)), .. }) => {
                let p = self.b.expr(Expression::LocalVariable(var));
                Val::V(self.b.load(p))
            }
            Some(Exit::Break { slot: Some(slot @ Slot::Ptr(..)), .. }) => Val::P(self.load_ptr_slot(&slot, loc)?),
            Some(Exit::Break { slot: Some(Slot::Arena(_) | Slot::Image(_)), .. }) => return Err(LowerError::new(loc, "internal: a result in the arena")),
            _ => Val::Void,
        })
    }

    /// The exit of an inlined callee that may return early: a result slot for its value and
    /// a flag, cleared here, that its `return` sets before breaking out.
    fn break_exit(&mut self, callee: &model::Function, loc: Loc) -> R<Exit> {
        let bool_ty = super::builder::scalar_ty(&mut self.module, naga::Scalar::BOOL);
        let flag = self.b.local(&format!("{}_returned", callee.name), bool_ty);
        let slot = match &callee.ret {
            T::Void => None,
            ty if ty.is_pointer() => {
                let u32_ty = super::builder::scalar_ty(&mut self.module, naga::Scalar::U32);
                Some(Slot::Ptr(None, self.b.local(&format!("{}_result_index", callee.name), u32_ty)))
            }
            ty => {
                let nty = self.naga_ty(ty, loc)?;
                Some(Slot::Var(self.b.local(&format!("{}_result", callee.name), nty)))
            }
        };
        let f = self.b.lit(naga::Literal::Bool(false));
        let p = self.b.expr(Expression::LocalVariable(flag));
        self.b.store(p, f);
        Ok(Exit::Break { slot, flag })
    }

    fn inline_body(&mut self, callee: &model::Function, vals: Vec<Val>) -> R<()> {
        self.bind_params(callee, vals)?;
        self.b.open();
        let r = self.block(&callee.body);
        if !self.b.terminated() {
            self.b.stmt(Statement::Break);
        }
        let body = self.b.close();
        r?;
        self.b.stmt(Statement::Loop { body, continuing: Block::new(), break_if: None });
        Ok(())
    }

    /// Gives the parameters of the callee's frame (the innermost) their arguments.
    pub(super) fn bind_params(&mut self, callee: &model::Function, vals: Vec<Val>) -> R<()> {
        for (p, v) in callee.params.iter().zip(vals) {
            match v {
                Val::P(ptr) => self.assign_ptr_var(self.here(p.local), ptr, callee.loc)?,
                Val::Image(arg) => self.bind_image(p.local, arg, callee.loc)?,
                Val::V(v) => self.store_local(p.local, v, callee.loc)?,
                Val::Void => return Err(LowerError::new(callee.loc, "internal: void argument")),
            }
        }
        Ok(())
    }

    /// The workgroup global of `__local` variable `id` (created on first use).
    pub(super) fn workgroup_var(&mut self, id: model::WorkgroupId, loc: Loc) -> R<Handle<naga::GlobalVariable>> {
        if let Some(&g) = self.workgroup.get(&id.0) {
            return Ok(g);
        }
        let program = self.program;
        let var = program.workgroup_vars.get(id.0 as usize).ok_or_else(|| LowerError::new(loc, "internal: unknown __local variable"))?;
        let atomic = self.local_atomics.var(id.0, self.target.int64_atomics);
        let ty = self.types.naga_workgroup(&mut self.module, &program.types, &var.ty, atomic, loc)?;
        let g = self.module.global_variables.append(
            naga::GlobalVariable {
                name: Some(var.name.clone()),
                space: naga::AddressSpace::WorkGroup,
                binding: None,
                ty,
                init: None,
                memory_decorations: naga::MemoryDecorations::empty(),
            },
            Span::UNDEFINED,
        );
        self.workgroup.insert(id.0, g);
        Ok(g)
    }
}

/// Whether `body` returns only in its last top-level statement, if at all: inlined, it needs
/// no loop to leave early (most small helpers are `{ ...; return e; }`).
fn returns_only_at_end(body: &[Stmt]) -> bool {
    match body.split_last() {
        Some((Stmt::Return(_), rest)) => !rest.iter().any(contains_return),
        _ => !body.iter().any(contains_return),
    }
}

fn contains_return(s: &Stmt) -> bool {
    match s {
        Stmt::Return(_) => true,
        Stmt::Block(b) => b.iter().any(contains_return),
        Stmt::If { then, otherwise, .. } => contains_return(then) || otherwise.as_deref().is_some_and(contains_return),
        Stmt::While { body, .. } | Stmt::DoWhile { body, .. } | Stmt::For { body, .. } => contains_return(body),
        Stmt::Switch { cases, .. } => cases.iter().any(|c| c.body.iter().any(contains_return)),
        Stmt::Decl { .. } | Stmt::Expr(_) | Stmt::Break | Stmt::Continue | Stmt::Label(_) | Stmt::Goto(..) => false,
    }
}
