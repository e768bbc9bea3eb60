//! Large helpers as naga functions of their own (`docs/compiler.md`, "Functions"). Inlining
//! every call makes a kernel grow with its call tree; a helper whose inlined size passes
//! [`OUTLINE_SIZE`] is lowered once per *shape* of its arguments and called instead.
//!
//! A pointer argument's root is fixed at compile time, so it becomes part of the shape: the
//! function lowered for it reaches a buffer, a `__local` or private global or an arena
//! directly (they are module globals), takes a private variable as a naga `ptr<function>` to
//! the whole variable (the one pointer argument naga's spv writer can pass), and takes the
//! element indices of the pointer's path (and the slot of a region chosen at run time) as u32
//! arguments; two pointers into one private variable share its argument. Calls whose
//! arguments have no such shape are inlined.

use super::expr::Val;
use super::place::{Ptr, Root, Step};
use super::region::{Region, Regions};
use super::{builder, Ctx, Exit, Frame, LowerError, R};
use crate::compiler::sema::model::{self, FuncId, Scalar as S, Space, Type as T};
use crate::compiler::source::Loc;
use naga::{Expression, FunctionArgument, FunctionResult, Handle, Span, Statement, TypeInner};

/// A callee larger than this once inlined (statements and expressions, see
/// `Function::inlined_size`) is called rather than inlined. Small helpers stay inlined: their
/// constant arguments fold, and there is nothing to save.
const OUTLINE_SIZE: u64 = 1000;

/// What a call fixes in the function lowered for it.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Shape {
    func: FuncId,
    params: Vec<ParamShape>,
}

#[derive(Clone, Debug, PartialEq)]
enum ParamShape {
    Value,
    Pointer { root: RootShape, steps: Vec<Option<u32>>, view: Option<T>, space: Space, seen_as: Option<(S, S)> },
}

#[derive(Clone, Debug, PartialEq)]
enum RootShape {
    /// A private variable of the caller, of this naga type, passed by pointer.
    Private(Handle<naga::Type>),
    /// A module global, a buffer argument or an arena: the same in every function.
    Fixed(Root),
    /// A byte pointer into one of `among`, chosen by a slot passed as u32.
    Chosen(Regions),
    /// The private variable of parameter `.0` again (`f(buf, buf)`): one argument passes it.
    Same(usize),
}

impl Ctx<'_> {
    /// Lowers a call of helper `id` as a naga call when the helper is large and its arguments
    /// have a shape (see the module comment); `None` leaves the call to be inlined.
    pub(super) fn call_outlined(&mut self, id: FuncId, callee: &model::Function, vals: &[Val], loc: Loc) -> R<Option<Val>> {
        let Some(shape) = self.shape_of(id, callee, vals) else { return Ok(None) };
        let function = match self.outlined.iter().find(|(s, _)| *s == shape) {
            Some(&(_, f)) => f,
            None => self.outline(callee, &shape, loc)?,
        };
        let mut arguments = Vec::new();
        for (v, param) in vals.iter().zip(&shape.params) {
            match (v, param) {
                (Val::V(h), _) => arguments.push(*h),
                (Val::P(ptr), ParamShape::Pointer { root, .. }) => self.pointer_arguments(ptr, matches!(root, RootShape::Same(_)), &mut arguments),
                _ => return Err(LowerError::new(loc, "internal: an argument without a shape")),
            }
        }
        let result = (callee.ret != T::Void).then(|| self.b.expr(Expression::CallResult(function)));
        self.b.stmt(Statement::Call { function, arguments, result });
        Ok(Some(result.map_or(Val::Void, Val::V)))
    }

    fn shape_of(&self, id: FuncId, callee: &model::Function, vals: &[Val]) -> Option<Shape> {
        if callee.is_kernel() || callee.inlined_size < OUTLINE_SIZE || callee.ret.is_pointer() {
            return None;
        }
        let mut private_roots: Vec<(Root, usize)> = Vec::new();
        let params = vals
            .iter()
            .enumerate()
            .map(|(n, v)| match v {
                Val::V(_) => Some(ParamShape::Value),
                Val::P(ptr) => {
                    let root = match ptr.root {
                        Root::Local(_) | Root::Arg(_) => match private_roots.iter().find(|(r, _)| *r == ptr.root) {
                            // Two parameters pointing into one variable share its argument.
                            Some(&(_, first)) => RootShape::Same(first),
                            None => {
                                private_roots.push((ptr.root, n));
                                RootShape::Private(self.private_root_type(ptr.root)?)
                            }
                        },
                        Root::Global(_) | Root::Buffer(_) => RootShape::Fixed(ptr.root),
                        Root::Bytes(Region::Chosen { among, .. }) => RootShape::Chosen(among),
                        Root::Bytes(_) => RootShape::Fixed(ptr.root),
                        Root::PtrVar(_) | Root::Null => return None,
                    };
                    let steps = ptr.steps.iter().map(|s| match s {
                        Step::Member(m) => Some(*m),
                        Step::Index(_) => None,
                    });
                    Some(ParamShape::Pointer { root, steps: steps.collect(), view: ptr.view.clone(), space: ptr.space, seen_as: ptr.seen_as })
                }
                Val::Image(_) | Val::Void => None,
            })
            .collect::<Option<Vec<_>>>()?;
        let samplers = callee.params.iter().any(|p| callee.locals.get(p.local.0 as usize).is_none_or(|l| l.ty == T::Sampler));
        (!samplers).then_some(Shape { func: id, params })
    }

    /// The naga type of the private variable a pointer root names in the function being built.
    fn private_root_type(&self, root: Root) -> Option<Handle<naga::Type>> {
        match root {
            Root::Local(v) => Some(self.b.func.local_variables[v].ty),
            Root::Arg(k) => match self.module.types[self.b.func.arguments.get(k as usize)?.ty].inner {
                TypeInner::Pointer { base, .. } => Some(base),
                _ => None,
            },
            _ => None,
        }
    }

    /// The arguments that pass `ptr`: its private variable (unless an earlier parameter
    /// passed it: `again`), its slot, its path's indices.
    fn pointer_arguments(&mut self, ptr: &Ptr, again: bool, out: &mut Vec<Handle<Expression>>) {
        match ptr.root {
            Root::Local(v) if !again => out.push(self.b.expr(Expression::LocalVariable(v))),
            Root::Arg(k) if !again => out.push(self.b.expr(Expression::FunctionArgument(k))),
            Root::Bytes(Region::Chosen { slot, .. }) => out.push(slot),
            _ => {}
        }
        out.extend(ptr.steps.iter().filter_map(|s| match s {
            Step::Index(i) => Some(*i),
            Step::Member(_) => None,
        }));
    }

    /// Lowers `callee` as a naga function for calls of `shape`.
    fn outline(&mut self, callee: &model::Function, shape: &Shape, loc: Loc) -> R<Handle<naga::Function>> {
        let caller = std::mem::replace(&mut self.b, builder::FnBuilder::new(&callee.name));
        let body = self.outlined_body(callee, shape, loc);
        let b = std::mem::replace(&mut self.b, caller);
        body?;
        let function = self.module.functions.append(b.finish(), Span::UNDEFINED);
        self.outlined.push((shape.clone(), function));
        Ok(function)
    }

    fn outlined_body(&mut self, callee: &model::Function, shape: &Shape, loc: Loc) -> R<()> {
        let mut vals: Vec<Val> = Vec::new();
        for (p, param) in callee.params.iter().zip(&shape.params) {
            let ty = callee.locals.get(p.local.0 as usize).map(|l| l.ty.clone()).ok_or_else(|| LowerError::new(loc, "internal: bad parameter"))?;
            vals.push(match param {
                ParamShape::Value => {
                    let ty = self.naga_ty(&ty, loc)?;
                    Val::V(self.argument(ty))
                }
                ParamShape::Pointer { root, steps, view, space, seen_as } => {
                    let root = match root {
                        RootShape::Private(ty) => {
                            let ptr_ty = builder::intern(&mut self.module, TypeInner::Pointer { base: *ty, space: naga::AddressSpace::Function });
                            let k = self.b.func.arguments.len() as u32;
                            self.argument(ptr_ty);
                            Root::Arg(k)
                        }
                        RootShape::Fixed(root) => *root,
                        RootShape::Chosen(among) => Root::Bytes(Region::Chosen { slot: self.u32_argument(), among: *among }),
                        RootShape::Same(first) => match vals.get(*first) {
                            Some(Val::P(ptr)) => ptr.root,
                            _ => return Err(LowerError::new(loc, "internal: a shared pointer argument")),
                        },
                    };
                    let steps = steps.iter().map(|s| s.map_or_else(|| Step::Index(self.u32_argument()), Step::Member)).collect();
                    Val::P(Ptr { root, view: view.clone(), steps, space: *space, seen_as: *seen_as })
                }
            });
        }
        if callee.ret != T::Void {
            let ty = self.naga_ty(&callee.ret, loc)?;
            self.b.func.result = Some(FunctionResult { ty, binding: None });
        }
        let locals = self.fresh_locals(shape.func, callee)?;
        self.frames.push(Frame::new(shape.func, locals, Exit::Return));
        let body = self.bind_params(callee, vals).and_then(|()| self.block(&callee.body));
        self.frames.pop();
        body?;
        if !self.b.terminated() {
            // Falling off the end of a non-void function returns an undefined value.
            let value = self.b.func.result.as_ref().map(|r| r.ty).map(|ty| self.b.expr(Expression::ZeroValue(ty)));
            self.b.stmt(Statement::Return { value });
        }
        Ok(())
    }

    /// A new argument of the function being built, as an expression.
    fn argument(&mut self, ty: Handle<naga::Type>) -> Handle<Expression> {
        let k = self.b.func.arguments.len() as u32;
        self.b.func.arguments.push(FunctionArgument { name: None, ty, binding: None });
        self.b.expr(Expression::FunctionArgument(k))
    }

    fn u32_argument(&mut self) -> Handle<Expression> {
        let ty = builder::scalar_ty(&mut self.module, naga::Scalar::U32);
        self.argument(ty)
    }
}
