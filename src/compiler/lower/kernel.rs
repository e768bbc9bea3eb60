//! A lowered kernel: its own naga module (entry point `main`, work-group size and `__local`
//! argument lengths as overrides) plus the reflection the runtime needs. `specialize` resolves
//! the overrides and writes SPIR-V.

use super::abi::{self, Abi};
use super::arena::{self, LocalArena};
use super::LowerOptions;
use crate::compiler::sema::model::{FuncId, Program};
use crate::compiler::{spirv, ArgKind, ConstantData, ImageDim, Kernel, KernelArg, KernelAttributes, Target, Variant};
use naga::{EntryPoint, Expression, Module, ShaderStage, Span};
use std::sync::{Arc, Mutex};

#[derive(Debug)]
pub struct CompiledKernel {
    pub name: String,
    pub args: Vec<KernelArg>,
    pub attributes: KernelAttributes,
    pub constant_data: Vec<ConstantData>,
    pub push_constants_size: u32,
    pub pod_uniform: Option<(u32, u32)>,
    pub local_mem_size: u64,
    pub private_mem_size: u64,
    /// Element sizes of the `__local` arguments, in argument order.
    pub local_arg_elem_sizes: Vec<u32>,
    /// The buffer arguments the kernel compares with NULL.
    pub null_tested_args: Vec<usize>,
    /// The `__local` arguments whose memory is in the `__local` arena (see `place.rs`).
    pub local_arena: Option<LocalArena>,
    /// Where the program's buffer of `__global` variables is bound (none if unused).
    pub globals_bindings: Vec<u32>,
    pub svm: Option<crate::compiler::SvmInterface>,
    /// Where the printf buffer is bound (none if the kernel never calls printf).
    pub printf_binding: Option<u32>,
    /// How its SPIR-V is finished after naga's writer.
    pub finish: spirv::Finish,
    pub module: Module,
    pub info: naga::valid::ModuleInfo,
    /// Its variants for 2D images made from buffers (a kernel with `image2d_t` arguments).
    pub variants: Variants,
}

/// The variants of a kernel (`Kernel::variant`): lowered again from the analysed program
/// when first launched so, one per variant.
#[derive(Debug, Default)]
pub struct Variants {
    source: Option<(Arc<Program>, FuncId, Target, LowerOptions)>,
    made: Mutex<Vec<(Variant, Arc<CompiledKernel>)>>,
}

impl Variants {
    /// What kernel `id` of `program` needs to make its variants.
    pub fn of(program: &Arc<Program>, id: FuncId, target: &Target, options: LowerOptions) -> Variants {
        Variants { source: Some((program.clone(), id, target.clone(), options)), made: Mutex::default() }
    }
}

/// Makes `main` of `module` from the finished kernel body, with the work-group size taken
/// from the `local_size_*` overrides.
pub fn add_entry_point(module: &mut Module, abi: &Abi, function: naga::Function) {
    let sizes = abi.local_size.map(|o| {
        Some(module.global_expressions.append(Expression::Override(o), Span::UNDEFINED))
    });
    module.entry_points.push(EntryPoint {
        name: "main".into(),
        stage: ShaderStage::Compute,
        early_depth_test: None,
        workgroup_size: [1, 1, 1],
        workgroup_size_overrides: Some(sizes),
        function,
        mesh_info: None,
        task_payload: None,
        incoming_ray_payload: None,
    });
}

/// Decorates every buffer `Coherent`, for a kernel whose atomics order global memory:
/// without the Vulkan memory model, plain accesses to storage buffers are made available to
/// other work-groups (which an acquire in another work-group needs to see) only through
/// `Coherent` variables, GLSL's `coherent`.
pub fn make_buffers_coherent(module: &mut Module) {
    for (_, var) in module.global_variables.iter_mut() {
        if matches!(var.space, naga::AddressSpace::Storage { .. }) {
            var.memory_decorations |= naga::MemoryDecorations::COHERENT;
        }
    }
}

/// Validates the finished module of a kernel. (It is specialised at its first launch: the
/// lowering leaves naga's constant evaluator nothing to compute, see `FnBuilder::expr`, so
/// override processing cannot fail where validation passed; `tests/fuzz.rs` specialises every
/// kernel it builds to hold that. Specialising at build too cost up to 1 ms a kernel.)
pub fn validated(module: &Module, target: &Target) -> Result<naga::valid::ModuleInfo, String> {
    spirv::validate(module, target)
}

impl Kernel for CompiledKernel {
    fn name(&self) -> &str {
        &self.name
    }
    fn args(&self) -> &[KernelArg] {
        &self.args
    }
    fn attributes(&self) -> &KernelAttributes {
        &self.attributes
    }
    fn attribute_string(&self) -> String {
        let mut parts = Vec::new();
        let dims = |d: [u32; 3]| format!("({},{},{})", d[0], d[1], d[2]);
        if let Some(d) = self.attributes.reqd_work_group_size {
            parts.push(format!("reqd_work_group_size{}", dims(d)));
        }
        if let Some(d) = self.attributes.work_group_size_hint {
            parts.push(format!("work_group_size_hint{}", dims(d)));
        }
        if let Some(t) = &self.attributes.vec_type_hint {
            parts.push(format!("vec_type_hint({t})"));
        }
        parts.join(" ")
    }
    fn constant_data(&self) -> &[ConstantData] {
        &self.constant_data
    }
    fn push_constants_size(&self) -> u32 {
        self.push_constants_size
    }
    fn pod_uniform(&self) -> Option<(u32, u32)> {
        self.pod_uniform
    }
    fn local_mem_size(&self) -> u64 {
        self.local_mem_size
    }
    fn private_mem_size(&self) -> u64 {
        self.private_mem_size
    }
    fn null_tested_args(&self) -> &[usize] {
        &self.null_tested_args
    }
    fn globals_bindings(&self) -> &[u32] {
        &self.globals_bindings
    }

    fn svm(&self) -> Option<&crate::compiler::SvmInterface> {
        self.svm.as_ref()
    }
    fn printf_binding(&self) -> Option<u32> {
        self.printf_binding
    }
    fn specialize(&self, local_size: [u32; 3], local_arg_sizes: &[u32], null_args: &[usize]) -> Result<Vec<u32>, String> {
        if local_arg_sizes.len() != self.local_arg_elem_sizes.len() {
            return Err(format!(
                "kernel {} has {} __local arguments, {} sizes given",
                self.name,
                self.local_arg_elem_sizes.len(),
                local_arg_sizes.len()
            ));
        }
        let mut constants = naga::back::PipelineConstants::default();
        for (d, &n) in local_size.iter().enumerate() {
            constants.insert(abi::local_size_name(d as u32), f64::from(n.max(1)));
        }
        let in_arena = |i: usize| self.local_arena.as_ref().is_some_and(|a| a.args.contains(&i));
        for (i, (&bytes, &elem)) in local_arg_sizes.iter().zip(&self.local_arg_elem_sizes).enumerate() {
            // An argument in the arena leaves its own array unused: one element.
            let len = if in_arena(i) { 1 } else { bytes.div_ceil(elem.max(1)).max(1) };
            constants.insert(abi::local_arg_name(i), f64::from(len));
        }
        if let Some(arena) = &self.local_arena {
            let mut end = arena.static_bytes;
            for &i in &arena.args {
                constants.insert(arena::arena_arg_name(i), f64::from(end));
                let size = local_arg_sizes.get(i).copied().unwrap_or(0);
                end = end.saturating_add(size).next_multiple_of(arena::ARENA_ARG_ALIGN);
            }
            constants.insert(arena::arena_words_name(), f64::from((end / 4).max(1)));
        }
        for &n in null_args.iter().filter(|n| self.null_tested_args.contains(n)) {
            constants.insert(abi::null_arg_name(n), 1.0);
        }
        crate::compiler::stack::run(|| spirv::write(&self.module, &self.info, &constants, &self.finish)).and_then(|words| words)
    }
    fn variant(&self, variant: &Variant) -> Result<Option<Arc<dyn Kernel>>, String> {
        let is_2d = |n: &usize| matches!(self.args.get(*n).map(|a| &a.kind), Some(ArgKind::Image { dim: ImageDim::D2, .. }));
        let is_buffer = |n: usize| matches!(self.args.get(n).map(|a| &a.kind), Some(ArgKind::Buffer { .. }));
        let mut key = Variant {
            buffer_images: variant.buffer_images.iter().copied().filter(is_2d).collect(),
            shifts: variant.shifts.iter().copied().filter(|&(n, shift)| shift != 0 && is_buffer(n)).collect(),
        };
        key.buffer_images.sort_unstable();
        key.buffer_images.dedup();
        key.shifts.sort_unstable();
        key.shifts.dedup_by_key(|(n, _)| *n);
        let Some((program, id, target, options)) = self.variants.source.as_ref().filter(|_| key != Variant::default()) else { return Ok(None) };
        let mut made = self.variants.made.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, k)) = made.iter().find(|(a, _)| *a == key) {
            return Ok(Some(k.clone() as Arc<dyn Kernel>));
        }
        // Lowering recurses as deep as a build does: on a compiler thread's stack.
        let variant = crate::compiler::stack::run(|| super::lower_variant(program, *id, target, *options, &key)).and_then(|k| k)?;
        let variant = Arc::new(variant);
        made.push((key, variant.clone()));
        Ok(Some(variant as Arc<dyn Kernel>))
    }
}
