//! Lowering of the OpenCL C semantic model to naga IR, one module per kernel with entry point
//! `main`. User functions are inlined into their callers, large ones lowered as naga functions
//! per shape of their pointer arguments (`outline.rs`): naga cannot pass pointers into storage
//! or workgroup memory to functions, and a pointer in this lowering is a compile-time base
//! plus run-time indices, or a region and a byte offset (see `place.rs`, `region.rs`).
//! See `docs/compiler.md`.

pub mod abi;
mod arena;
pub mod builder;
mod builtins;
mod c11;
mod constant;
mod exact;
mod expr;
mod floatbits;
mod fmath;
mod fold;
mod generic;
mod image;
mod geometric;
mod half;
mod intfn;
pub mod kernel;
mod local_atomics;
mod memory;
mod outline;
mod place;
mod points_to;
mod printf;
mod region;
mod rounding;
mod stmt;
pub mod types;
mod unroll;
mod wide;
pub mod workitem;
mod collective;

use crate::compiler::sema::model::{self, FuncId, Program};
use crate::compiler::source::Loc;
use crate::compiler::{AddressQualifier, KernelArg, Target, Variant};
use abi::{Abi, ParamDecl, PodField};
use builder::FnBuilder;
use kernel::CompiledKernel;
use local_atomics::LocalAtomics;
use naga::{GlobalVariable, Handle, LocalVariable, Module};
use place::PtrVar;
use points_to::PointsTo;
use std::collections::HashMap;
use std::sync::Arc;
use types::TypeMap;
use workitem::WorkItem;

/// Inlining deeper than this is reported (OpenCL C has no recursion; this bounds pathological
/// call chains).
const MAX_INLINE_DEPTH: usize = 64;

/// Largest value argument (it travels through push constants or a uniform buffer).
const MAX_VALUE_ARGUMENT: u64 = 64 * 1024;

/// Expressions one kernel may grow to: inlining every call can multiply code size, and a
/// pathological program must end in a diagnostic, not exhaust memory.
const MAX_KERNEL_EXPRESSIONS: usize = 2_000_000;

/// A construct the lowering cannot express, reported as a build error at `loc`.
#[derive(Clone, Debug, PartialEq)]
pub struct LowerError {
    pub loc: Loc,
    pub message: String,
}

impl LowerError {
    pub fn new(loc: Loc, message: impl Into<String>) -> Self {
        LowerError { loc, message: message.into() }
    }
}

type R<T> = Result<T, LowerError>;

/// Build options that change the lowering.
#[derive(Clone, Copy, Debug, Default)]
pub struct LowerOptions {
    /// `-cl-fast-relaxed-math` / `-cl-unsafe-math-optimizations`: float math may use the
    /// hardware's (less precise) functions.
    pub fast_math: bool,
    /// `#pragma OPENCL FP_CONTRACT` (on unless turned off): `a * b + c` may be fused.
    pub contract: bool,
}

/// Lowers every kernel of `program`.
pub fn lower_program(program: &Arc<Program>, target: &Target, options: LowerOptions) -> Result<Vec<CompiledKernel>, LowerError> {
    program
        .kernels()
        .map(|(id, _)| {
            let mut k = lower_kernel(program, id, target, options, &Variant::default())?;
            k.variants = kernel::Variants::of(program, id, target, options);
            Ok(k)
        })
        .collect()
}

/// Lowers kernel `id` again for `variant` (see `Kernel::variant`).
pub(crate) fn lower_variant(program: &Program, id: FuncId, target: &Target, options: LowerOptions, variant: &Variant) -> Result<CompiledKernel, String> {
    lower_kernel(program, id, target, options, variant).map_err(|e| format!("internal compiler error: {}", e.message))
}

/// A local of the function instance being lowered.
#[derive(Clone)]
enum Slot {
    Var(Handle<LocalVariable>),
    /// A pointer-typed local: its base is fixed by its first assignment.
    Ptr(Option<PtrVar>, Handle<LocalVariable>),
    /// An addressed private variable: at this byte offset of the private arena.
    Arena(u32),
    /// An image parameter: the kernel's image argument it stands for, once bound.
    Image(Option<usize>),
}

/// How `return` leaves a function instance.
enum Exit {
    /// naga's `Return`: the kernel, or a helper lowered as a function of its own.
    Return,
    /// An inlined callee whose only `return` ends its body: the value, once returned, is the
    /// call's. Its body needs no loop to leave.
    Tail(Option<expr::Val>),
    /// An inlined callee returning early: `return` leaves the value in `slot` (a pointer slot
    /// for functions returning pointers), sets `flag` and breaks out of the one-iteration
    /// loop around the body.
    Break { slot: Option<Slot>, flag: Handle<LocalVariable> },
}

/// One inlined function instance.
struct Frame {
    func: FuncId,
    locals: Vec<Slot>,
    /// How `return` leaves this instance.
    exit: Exit,
    /// Values of `ExprKind::Current` of the enclosing assignments, innermost last.
    current: Vec<Handle<naga::Expression>>,
    /// The same for assignments to pointer variables.
    current_ptr: Vec<place::Ptr>,
    /// Counters of the loops being unrolled, with their value in the copy being lowered.
    counters: Vec<(model::LocalId, Handle<naga::Expression>)>,
    /// The `sampler_t` parameters given a constant sampler (which sema lets nothing modify):
    /// image reads through them fold their mode (`image.rs`).
    samplers: Vec<(model::LocalId, u32)>,
}

impl Frame {
    fn new(func: FuncId, locals: Vec<Slot>, exit: Exit) -> Self {
        Frame { func, locals, exit, current: Vec::new(), current_ptr: Vec::new(), counters: Vec::new(), samplers: Vec::new() }
    }
}

/// State of lowering one kernel.
struct Ctx<'p> {
    program: &'p Program,
    target: &'p Target,
    options: LowerOptions,
    module: Module,
    types: TypeMap,
    abi: Abi,
    workitem: WorkItem,
    b: FnBuilder,
    frames: Vec<Frame>,
    workgroup: HashMap<u32, Handle<GlobalVariable>>,
    /// The table of 2/π bits for Payne–Hanek reduction, once used.
    two_over_pi: Option<Handle<GlobalVariable>>,
    /// Sines computed by a `sincos`'s cosine for its result (`MathFn::SincosCos`), in order.
    sincos_sines: std::collections::VecDeque<Handle<naga::Expression>>,
    /// `__constant` variable → index of its block among the ABI params.
    constants: HashMap<u32, usize>,
    /// Where the kernel packs its `__constant` variables into one block.
    packed_constants: Option<constant::Packed>,
    /// The `__local` data declared atomic.
    local_atomics: LocalAtomics,
    /// Where the kernel's pointers may point.
    points_to: PointsTo,
    /// The arenas of addressed private and `__local` objects, once used.
    arenas: arena::Arenas,
    /// The pointer last converted to an integer (see `Ctx::int_to_ptr`).
    converted: Option<place::Ptr>,
    /// The ABI param of the program's buffer of `__global` variables, once used.
    globals_block: Option<usize>,
    /// An atomic orders global memory (acquire/release/seq_cst): the buffers are `Coherent`.
    orders_global: bool,
    /// The workgroup word fences touch where read-modify-writes keep orders, once used.
    fence_word: Option<Handle<GlobalVariable>>,
    /// The `__local` arrays of work-group collectives, one per value type, once used.
    collective_scratch: HashMap<Handle<naga::Type>, Handle<GlobalVariable>>,
    /// The printf buffer and its binding, once a printf call is lowered.
    printf_buffer: Option<(Handle<GlobalVariable>, u32)>,
    /// The helpers lowered as functions of their own, per shape of call (`outline.rs`).
    outlined: Vec<(outline::Shape, Handle<naga::Function>)>,
    /// Buffer arguments whose byte 0 lies past their binding's start (`Variant::shifts`).
    shifts: Vec<(usize, u32)>,
}

fn lower_kernel(program: &Program, id: FuncId, target: &Target, options: LowerOptions, variant: &Variant) -> R<CompiledKernel> {
    let func = program.function(id).ok_or_else(|| LowerError::new(Loc::default(), "internal: no kernel"))?;
    let mut module = Module::default();
    let mut types = TypeMap::default();
    let points_to = PointsTo::of_kernel(program, id);
    let local_atomics = LocalAtomics::of(&points_to);
    let decls = param_decls(program, func, &mut module, &mut types, local_atomics.args(target.int64_atomics), &variant.buffer_images)?;
    let abi = Abi::new(&mut module, &decls, target.max_push_constants_size);
    let workitem = WorkItem::new(&mut module);
    let mut b = FnBuilder::new("main");
    workitem.prologue(&mut module, &abi, &mut b);
    let mut cx = Ctx {
        program,
        target,
        options,
        module,
        types,
        abi,
        workitem,
        b,
        frames: Vec::new(),
        workgroup: HashMap::new(),
        two_over_pi: None,
        sincos_sines: Default::default(),
        constants: HashMap::new(),
        packed_constants: func.packs_constants.then(Default::default),
        local_atomics,
        points_to,
        arenas: Default::default(),
        converted: None,
        globals_block: None,
        orders_global: false,
        fence_word: None,
        printf_buffer: None,
        collective_scratch: HashMap::new(),
        outlined: Vec::new(),
        shifts: variant.shifts.clone(),
    };
    cx.kernel_body(id)?;
    cx.abi.bind_unused_images();
    let local_arena = cx.size_arenas();
    let args = reflect_args(func, &cx.abi);
    let constant_data = cx.constant_data();
    let globals_bindings = cx.globals_block.map_or_else(Vec::new, |b| cx.abi.bindings(b).to_vec());
    let printf_binding = cx.printf_buffer.map(|(_, b)| b);
    let local_arg_elem_sizes = decls
        .iter()
        .filter_map(|d| match d {
            ParamDecl::Local { elem_size, .. } => Some(*elem_size),
            _ => None,
        })
        .collect();
    let local_mem_size = func
        .workgroup_vars
        .iter()
        .filter_map(|w| program.workgroup_vars.get(w.0 as usize))
        .map(|w| program.types.size_of(&w.ty))
        .sum();
    let private_mem_size = func.locals.iter().map(|l| program.types.size_of(&l.ty)).sum();
    let Ctx { mut module, abi, b, orders_global, workitem, .. } = cx;
    let mut main = b.finish();
    workitem.finish(&mut module, &mut main);
    kernel::add_entry_point(&mut module, &abi, main);
    abi.allow_stores(&mut module);
    if orders_global {
        kernel::make_buffers_coherent(&mut module);
    }
    let info = kernel::validated(&module, target).map_err(|e| LowerError::new(func.loc, e))?;
    let attributes = match &func.kind {
        model::FunctionKind::Kernel(a) => a.clone(),
        model::FunctionKind::Helper => Default::default(),
    };
    Ok(CompiledKernel {
        name: func.name.clone(),
        args,
        attributes,
        constant_data,
        push_constants_size: abi.push_size,
        pod_uniform: abi.pod_uniform.map(|(_, b, s)| (b, s)),
        local_mem_size,
        private_mem_size,
        local_arg_elem_sizes,
        null_tested_args: abi.null_args.iter().map(|(n, _)| *n).collect(),
        local_arena,
        globals_bindings,
        svm: abi.svm_interface(),
        printf_binding,
        variants: kernel::Variants::default(),
        finish: crate::compiler::spirv::Finish {
            aliased: abi.has_aliased_views(),
            restrict: abi.restrict_bindings(|i| func.params.get(i).is_some_and(|p| p.is_restrict)),
            clamp_array_indices: target.clamp_array_indices,
            preserve_signed_zeros: target.preserve_signed_zeros,
            no_signed_wrap: target.no_signed_wrap,
            texel_buffers: abi.texel_buffer_bindings(),
            storage_images: abi.writes_images(),
        },
        module,
        info,
    })
}

/// How each kernel parameter is passed (see `abi.rs`); `atomic`: which scalars the `__local`
/// pointer arguments point to are atomic; `buffer_images`: the `image2d_t` arguments bound as
/// texel buffers.
fn param_decls(program: &Program, func: &model::Function, module: &mut Module, types: &mut TypeMap, atomic: types::LocalAtomic, buffer_images: &[usize]) -> R<Vec<ParamDecl>> {
    func.params
        .iter()
        .enumerate()
        .map(|(n, p)| {
            let local = func.locals.get(p.local.0 as usize).ok_or_else(|| LowerError::new(func.loc, "internal: bad parameter"))?;
            Ok(match &local.ty {
                model::Type::Pointer { pointee, space: AddressQualifier::Local, .. } => {
                    // `local void*` cannot be dereferenced without a cast: its memory is words.
                    let words = model::Type::Scalar(model::Scalar::UInt);
                    let pointee = if **pointee == model::Type::Void { &words } else { &**pointee };
                    let elem_ty = types.naga_workgroup(module, &program.types, pointee, atomic, local.loc)?;
                    let elem_size = program.types.size_of(pointee).max(1) as u32;
                    ParamDecl::Local { elem_ty, elem_size, name: local.name.clone() }
                }
                model::Type::Pointer { quals, space, .. } => {
                    ParamDecl::Buffer { read_only: quals.is_const || *space == AddressQualifier::Constant }
                }
                model::Type::Image(dim, access) => {
                    let texels = *dim == crate::compiler::ImageDim::D1Buffer || (*dim == crate::compiler::ImageDim::D2 && buffer_images.contains(&n));
                    ParamDecl::Image { dim: *dim, access: *access, texels }
                }
                model::Type::Sampler => ParamDecl::Sampler,
                ty if program.types.size_of(ty) > MAX_VALUE_ARGUMENT => {
                    return Err(LowerError::new(local.loc, "a value argument of more than 64 KiB is not supported"));
                }
                ty if types::has_narrow(&program.types, ty) => {
                    ParamDecl::Pod(abi::pod_words_type(module, program.types.size_of(ty) as u32))
                }
                ty => {
                    let naga_ty = types.naga(module, &program.types, ty, local.loc)?;
                    let size = program.types.size_of(ty) as u32;
                    ParamDecl::Pod(PodField { ty: naga_ty, size, align: program.types.align_of(ty), slot: size, words: false })
                }
            })
        })
        .collect()
}

/// `clGetKernelArgInfo` data for each parameter.
fn reflect_args(func: &model::Function, abi: &Abi) -> Vec<KernelArg> {
    func.params
        .iter()
        .zip(abi.arg_kinds())
        .map(|(p, kind)| {
            let local = func.locals.get(p.local.0 as usize);
            let (address, quals) = match local.map(|l| &l.ty) {
                Some(model::Type::Pointer { space, quals, .. }) => (*space, *quals),
                // clGetKernelArgInfo: images are in the global address space.
                Some(model::Type::Image(..)) => (AddressQualifier::Global, model::Quals::default()),
                _ => (AddressQualifier::Private, model::Quals::default()),
            };
            let mut bits = 0u64;
            if quals.is_const || address == AddressQualifier::Constant {
                bits |= 1; // CL_KERNEL_ARG_TYPE_CONST
            }
            if p.is_restrict {
                bits |= 2; // CL_KERNEL_ARG_TYPE_RESTRICT
            }
            if quals.is_volatile {
                bits |= 4; // CL_KERNEL_ARG_TYPE_VOLATILE
            }
            KernelArg {
                name: local.map(|l| l.name.clone()).unwrap_or_default(),
                type_name: p.type_name.clone(),
                address,
                type_qualifiers: bits,
                kind,
            }
        })
        .collect()
}

#[cfg(test)]
pub mod tests;
