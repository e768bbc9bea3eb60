//! Work-item functions (`get_global_id` and friends) from the built-in IDs, the work-group size
//! overrides and the launch block. The IDs are copied into private globals at the start of
//! `main` so helper functions can read them too.

use super::abi::{self, Abi};
use super::builder::{intern, FnBuilder};
use crate::compiler::sema::model::WorkItemFn;
use naga::{
    AddressSpace, BinaryOperator as B, Binding, Block, BuiltIn, Expression, Function, FunctionArgument,
    GlobalVariable, Handle, MemoryDecorations, Module, Scalar, Span, Statement, TypeInner, VectorSize,
};

/// The private copies of the built-in IDs.
pub struct WorkItem {
    local_id: Handle<GlobalVariable>,
    group_id: Handle<GlobalVariable>,
    /// The work-group size. Code reads it from this variable, not from the overrides: naga
    /// constant-folds expressions of overrides at specialisation and cannot fold every cast.
    local_size: Handle<GlobalVariable>,
    /// Private copies of Vulkan's subgroup built-ins, made when a kernel first uses one (the
    /// SPIR-V of other kernels stays free of subgroup capabilities).
    subgroup: Vec<(BuiltIn, Handle<GlobalVariable>)>,
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
        WorkItem { local_id: private("local_id"), group_id: private("group_id"), local_size: private("local_size"), subgroup: Vec::new() }
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

    /// Copies the subgroup built-ins the kernel used into their private variables, first
    /// thing in `main`.
    pub fn finish(&self, module: &mut Module, main: &mut Function) {
        let u32_ty = intern(module, TypeInner::Scalar(Scalar::U32));
        let mut copies = Block::new();
        for &(builtin, var) in &self.subgroup {
            let arg = main.arguments.len() as u32;
            main.arguments.push(FunctionArgument { name: None, ty: u32_ty, binding: Some(Binding::BuiltIn(builtin)) });
            // Arguments and globals are never emitted: the stores need no `Emit`.
            let value = main.expressions.append(Expression::FunctionArgument(arg), Span::UNDEFINED);
            let pointer = main.expressions.append(Expression::GlobalVariable(var), Span::UNDEFINED);
            copies.push(Statement::Store { pointer, value }, Span::UNDEFINED);
        }
        main.body.splice(0..0, copies);
    }

    /// The value of Vulkan's subgroup built-in `builtin` (u32).
    fn subgroup_value(&mut self, module: &mut Module, b: &mut FnBuilder, builtin: BuiltIn) -> Handle<Expression> {
        let var = match self.subgroup.iter().find(|(bi, _)| *bi == builtin) {
            Some(&(_, var)) => var,
            None => {
                let ty = intern(module, TypeInner::Scalar(Scalar::U32));
                let var = GlobalVariable { name: None, space: AddressSpace::Private, binding: None, ty, init: None, memory_decorations: MemoryDecorations::empty() };
                let var = module.global_variables.append(var, Span::UNDEFINED);
                self.subgroup.push((builtin, var));
                var
            }
        };
        let p = b.expr(Expression::GlobalVariable(var));
        b.load(p)
    }

    /// The sub-group functions (u32). A Vulkan subgroup is an OpenCL sub-group: both number
    /// a work-group's work-items in order of local linear id (the drivers ferrocl runs on do;
    /// every sub-group but the last is full).
    pub fn sub_group(&mut self, module: &mut Module, abi: &Abi, b: &mut FnBuilder, f: WorkItemFn) -> Handle<Expression> {
        match f {
            WorkItemFn::SubGroupId => self.subgroup_value(module, b, BuiltIn::SubgroupId),
            WorkItemFn::SubGroupLocalId => self.subgroup_value(module, b, BuiltIn::SubgroupInvocationId),
            WorkItemFn::NumSubGroups | WorkItemFn::EnqueuedNumSubGroups => {
                // ⌈items / size⌉: lavapipe's NumSubgroups leaves out a partial last one.
                let size = self.subgroup_value(module, b, BuiltIn::SubgroupSize);
                let items = self.group_items(abi, b);
                let one = b.u32(1);
                let rounded = b.binary(B::Add, items, size);
                let rounded = b.binary(B::Subtract, rounded, one);
                b.binary(B::Divide, rounded, size)
            }
            WorkItemFn::MaxSubGroupSize => {
                let size = self.subgroup_value(module, b, BuiltIn::SubgroupSize);
                let items = self.group_items(abi, b);
                b.math(naga::MathFunction::Min, &[size, items])
            }
            _ => {
                // min(size, items - id · size): the last sub-group holds what is left.
                let size = self.subgroup_value(module, b, BuiltIn::SubgroupSize);
                let id = self.subgroup_value(module, b, BuiltIn::SubgroupId);
                let items = self.group_items(abi, b);
                let before = b.binary(B::Multiply, id, size);
                let left = b.binary(B::Subtract, items, before);
                b.math(naga::MathFunction::Min, &[size, left])
            }
        }
    }

    /// The work-items of the work-group.
    pub fn group_items(&self, abi: &Abi, b: &mut FnBuilder) -> Handle<Expression> {
        let mut n = b.u32(1);
        for d in 0..3 {
            let d = b.u32(d);
            let s = self.per_dim(abi, b, WorkItemFn::LocalSize, d);
            n = b.binary(B::Multiply, n, s);
        }
        n
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
