//! Work-item functions (`get_global_id` and friends) from the built-in IDs, the work-group size
//! overrides and the launch block. The IDs are copied into private globals at the start of
//! `main` so helper functions can read them too.

use super::abi::{self, Abi};
use super::builder::{intern, FnBuilder};
use crate::compiler::sema::model::WorkItemFn;
use naga::{
    AddressSpace, BinaryOperator as B, Binding, BuiltIn, Expression, FunctionArgument,
    GlobalVariable, Handle, MemoryDecorations, Module, Scalar, Span, TypeInner, VectorSize,
};

/// The private copies of the built-in IDs.
pub struct WorkItem {
    local_id: Handle<GlobalVariable>,
    group_id: Handle<GlobalVariable>,
    /// The work-group size. Code reads it from this variable, not from the overrides: naga
    /// constant-folds expressions of overrides at specialisation and cannot fold every cast.
    local_size: Handle<GlobalVariable>,
}

impl WorkItem {
    pub fn new(module: &mut Module) -> Self {
        let uvec3 = intern(module, TypeInner::Vector { size: VectorSize::Tri, scalar: Scalar::U32 });
        let mut private = |name: &str| {
            let var = GlobalVariable {
                name: Some(name.into()),
                space: AddressSpace::Private,
                binding: None,
                ty: uvec3,
                init: None,
                memory_decorations: MemoryDecorations::empty(),
            };
            module.global_variables.append(var, Span::UNDEFINED)
        };
        WorkItem { local_id: private("local_id"), group_id: private("group_id"), local_size: private("local_size") }
    }

    /// Adds the built-in arguments to `main` and stores them and the work-group size into the
    /// private copies.
    pub fn prologue(&self, module: &mut Module, abi: &Abi, b: &mut FnBuilder) {
        let uvec3 = intern(module, TypeInner::Vector { size: VectorSize::Tri, scalar: Scalar::U32 });
        for (i, (builtin, var)) in
            [(BuiltIn::LocalInvocationId, self.local_id), (BuiltIn::WorkGroupId, self.group_id)]
                .into_iter()
                .enumerate()
        {
            b.func.arguments.push(FunctionArgument {
                name: None,
                ty: uvec3,
                binding: Some(Binding::BuiltIn(builtin)),
            });
            let value = b.expr(Expression::FunctionArgument(i as u32));
            let ptr = b.expr(Expression::GlobalVariable(var));
            b.store(ptr, value);
        }
        let sizes = abi.local_size.map(|o| b.expr(Expression::Override(o))).to_vec();
        let size = b.compose(uvec3, sizes);
        let ptr = b.expr(Expression::GlobalVariable(self.local_size));
        b.store(ptr, size);
    }

    /// The value (u32) of `f(dim)`; `dim` is a u32 expression. Out-of-range dimensions give
    /// the spec's defaults (0 for IDs and offsets, 1 for sizes).
    pub fn call(&self, abi: &Abi, b: &mut FnBuilder, f: WorkItemFn, dim: Handle<Expression>) -> Handle<Expression> {
        if f == WorkItemFn::WorkDim {
            let w = b.u32(abi::WORK_DIM);
            return abi.launch_word(b, w);
        }
        if let Some((id, size)) = linear_parts(f) {
            return self.linear(abi, b, id, size);
        }
        let three = b.u32(3);
        let in_range = b.binary(B::Less, dim, three);
        let zero = b.u32(0);
        // Clamp so the vector/array access stays in bounds; select the default after.
        let d = b.select(in_range, dim, zero);
        let v = self.per_dim(abi, b, f, d);
        let sizes = [WorkItemFn::GlobalSize, WorkItemFn::LocalSize, WorkItemFn::EnqueuedLocalSize, WorkItemFn::NumGroups];
        let fallback = if sizes.contains(&f) { b.u32(1) } else { zero };
        b.select(in_range, v, fallback)
    }

    fn per_dim(&self, abi: &Abi, b: &mut FnBuilder, f: WorkItemFn, d: Handle<Expression>) -> Handle<Expression> {
        match f {
            WorkItemFn::LocalId => self.id(b, self.local_id, d),
            WorkItemFn::GroupId => {
                let wg = self.id(b, self.group_id, d);
                let off = self.launch_at(abi, b, abi::GROUP_OFFSET, d);
                b.binary(B::Add, wg, off)
            }
            WorkItemFn::LocalSize | WorkItemFn::EnqueuedLocalSize => self.id(b, self.local_size, d),
            WorkItemFn::GlobalSize => self.launch_at(abi, b, abi::GLOBAL_SIZE, d),
            WorkItemFn::GlobalOffset => self.launch_at(abi, b, abi::GLOBAL_OFFSET, d),
            WorkItemFn::NumGroups => {
                let g = self.launch_at(abi, b, abi::GLOBAL_SIZE, d);
                let l = self.id(b, self.local_size, d);
                b.binary(B::Divide, g, l)
            }
            _ => {
                // get_global_id = (group_offset + group_id) * local_size + local_id + offset
                let group = self.per_dim(abi, b, WorkItemFn::GroupId, d);
                let l = self.id(b, self.local_size, d);
                let scaled = b.binary(B::Multiply, group, l);
                let lid = self.id(b, self.local_id, d);
                let off = self.launch_at(abi, b, abi::GLOBAL_OFFSET, d);
                let sum = b.binary(B::Add, scaled, lid);
                b.binary(B::Add, sum, off)
            }
        }
    }

    /// `((id(2) * size(1)) + id(1)) * size(0) + id(0)`. Unused dimensions have id 0 and size
    /// 1, so one formula serves every work dimension.
    fn linear(&self, abi: &Abi, b: &mut FnBuilder, id: WorkItemFn, size: WorkItemFn) -> Handle<Expression> {
        let mut acc = b.u32(0);
        for d in (0..3).rev() {
            let d = b.u32(d);
            let s = self.per_dim(abi, b, size, d);
            let scaled = b.binary(B::Multiply, acc, s);
            let i = self.per_dim(abi, b, id, d);
            let i = if id == WorkItemFn::GlobalId {
                let off = self.launch_at(abi, b, abi::GLOBAL_OFFSET, d);
                b.binary(B::Subtract, i, off)
            } else {
                i
            };
            acc = b.binary(B::Add, scaled, i);
        }
        acc
    }

    fn id(&self, b: &mut FnBuilder, var: Handle<GlobalVariable>, d: Handle<Expression>) -> Handle<Expression> {
        let p = b.expr(Expression::GlobalVariable(var));
        let v = b.load(p);
        b.index(v, d)
    }

    fn launch_at(&self, abi: &Abi, b: &mut FnBuilder, base: u32, d: Handle<Expression>) -> Handle<Expression> {
        let base = b.u32(base);
        let word = b.binary(B::Add, base, d);
        abi.launch_word(b, word)
    }
}

/// The per-dimension id and size a linear id is made of.
fn linear_parts(f: WorkItemFn) -> Option<(WorkItemFn, WorkItemFn)> {
    match f {
        WorkItemFn::GlobalLinearId => Some((WorkItemFn::GlobalId, WorkItemFn::GlobalSize)),
        WorkItemFn::LocalLinearId => Some((WorkItemFn::LocalId, WorkItemFn::LocalSize)),
        _ => None,
    }
}
