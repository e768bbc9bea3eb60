//! The kernel interface as the runtime sees it (contract in `compiler/mod.rs`): buffer views in
//! descriptor set 0, the push-constant block (launch block then value arguments), the POD
//! uniform for value arguments that do not fit, `__local` argument arrays sized by
//! overrides at specialisation, and images (a binding, made at first use, plus their format
//! words beside the value arguments) and samplers (a value word).

use super::builder::{intern, scalar_ty, FnBuilder};
use crate::compiler::{ArgKind, DescriptorKind, ImageAccess, ImageDim, SvmInterface, DESCRIPTOR_SET, IMAGE_INFO_WORDS, LAUNCH_BLOCK_SIZE, SVM_HEAPS};
use naga::{
    AddressSpace, ArraySize, Block, Expression, Function, GlobalVariable, Handle, MemoryDecorations, Module,
    Override, ResourceBinding, Scalar, Span, Statement, StorageAccess, StructMember, Type, TypeInner,
};

/// Launch block fields (u32 indices into its array), see [`LAUNCH_BLOCK_SIZE`].
pub const GLOBAL_OFFSET: u32 = 0;
pub const WORK_DIM: u32 = 3;
pub const GLOBAL_SIZE: u32 = 4;
pub const GROUP_OFFSET: u32 = 7;
const LAUNCH_WORDS: u32 = LAUNCH_BLOCK_SIZE / 4;

/// Adds to `out` the global variables that `block` of `func` stores to (plain or atomic).
fn stored_globals(func: &Function, block: &Block, out: &mut Vec<Handle<GlobalVariable>>) {
    for stmt in block.iter() {
        match stmt {
            Statement::Store { pointer, .. } | Statement::Atomic { pointer, .. } => out.extend(pointer_root(func, *pointer)),
            Statement::Block(b) => stored_globals(func, b, out),
            Statement::If { accept, reject, .. } => {
                stored_globals(func, accept, out);
                stored_globals(func, reject, out);
            }
            Statement::Switch { cases, .. } => cases.iter().for_each(|c| stored_globals(func, &c.body, out)),
            Statement::Loop { body, continuing, .. } => {
                stored_globals(func, body, out);
                stored_globals(func, continuing, out);
            }
            _ => {}
        }
    }
}

/// The global variable a pointer expression points into, through its accesses.
fn pointer_root(func: &Function, mut pointer: Handle<Expression>) -> Option<Handle<GlobalVariable>> {
    loop {
        match func.expressions[pointer] {
            Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => pointer = base,
            Expression::GlobalVariable(var) => return Some(var),
            _ => return None,
        }
    }
}

/// Name of the override holding the work-group size in dimension `d`.
pub fn local_size_name(d: u32) -> String {
    format!("local_size_{d}")
}

/// Name of the override holding the element count of the `n`-th `__local` argument.
pub fn local_arg_name(n: usize) -> String {
    format!("local_arg_{n}")
}

/// Name of the override that is true when buffer argument `n` is NULL.
pub fn null_arg_name(n: usize) -> String {
    format!("null_arg_{n}")
}

/// A value argument placed in the push constants or the POD uniform.
#[derive(Clone)]
pub struct PodField {
    pub ty: Handle<Type>,
    /// Bytes the runtime copies (the OpenCL C size).
    pub size: u32,
    pub align: u32,
    /// Bytes the member occupies in the block (at least `size`).
    pub slot: u32,
    /// Carried as u32 words (see [`pod_words_type`]), decoded in the prologue.
    pub words: bool,
}

/// What the lowering decided for one kernel argument.
pub enum Param {
    /// `__global`/`__constant` pointer: its views, created on first use per element type.
    Buffer { read_only: bool, views: Vec<(Handle<Type>, Handle<GlobalVariable>)>, bindings: Vec<u32> },
    /// `__local` pointer: one workgroup array sized by override `local_arg_{n}`.
    Local { var: Handle<GlobalVariable>, elem_size: u32, ordinal: usize },
    /// Value argument: member `member` of the push-constant or POD-uniform struct, carried as
    /// u32 words when `words`.
    Pod { member: u32, offset: u32, size: u32, uniform: bool, words: bool },
    /// A `sampler_t`: a `u32` value argument.
    Sampler { member: u32, offset: u32, uniform: bool },
    /// An image: its binding, and its variable with the channel kind its reads or writes
    /// fixed (made at first use, see `lower/image.rs`; a kernel that only queries the image
    /// has none); and the member holding its `IMAGE_INFO_WORDS` (as u32 words in the uniform:
    /// `words`); `texels`: bound as a texel buffer (see `ArgKind::Image`).
    Image { dim: ImageDim, access: ImageAccess, texels: bool, var: Option<(Handle<GlobalVariable>, naga::ScalarKind)>, binding: Option<u32>, member: u32, offset: u32, uniform: bool, words: bool },
}

/// Places value arguments in the push constants, and past `max_push` bytes in the POD
/// uniform.
struct PodBlocks {
    push_members: Vec<StructMember>,
    uniform_members: Vec<StructMember>,
    push_end: u32,
    uniform_end: u32,
    max_push: u32,
}

impl PodBlocks {
    /// Adds `f`; its member index, byte offset, whether it is in the uniform and whether it
    /// travels as words.
    fn place(&mut self, module: &mut Module, f: &PodField) -> (u32, u32, bool, bool) {
        let offset = align_up(self.push_end, f.align);
        let in_push = offset.saturating_add(f.size) <= self.max_push;
        // The uniform block has std140-like rules naga enforces: anything but words may break
        // them there, so arguments in the uniform always travel as words.
        let f = if in_push || f.words { f.clone() } else { pod_words_type(module, f.size) };
        let (members, end) = if in_push {
            (&mut self.push_members, &mut self.push_end)
        } else {
            (&mut self.uniform_members, &mut self.uniform_end)
        };
        // Uniform layout: members start on 16 bytes when they are structs/arrays.
        let offset = align_up(*end, f.align);
        let member = members.len() as u32;
        members.push(StructMember { name: None, ty: f.ty, binding: None, offset });
        *end = offset.saturating_add(f.slot.max(f.size));
        (member, offset, !in_push, f.words)
    }
}

/// The kernel interface under construction.
pub struct Abi {
    /// The kernel arguments, then the program-scope `__constant` blocks the kernel reads.
    pub params: Vec<Param>,
    num_args: usize,
    next_binding: u32,
    pub push: Handle<GlobalVariable>,
    pub pod_uniform: Option<(Handle<GlobalVariable>, u32, u32)>,
    pub push_size: u32,
    pub local_size: [Handle<Override>; 3],
    /// The buffer arguments the kernel compares with NULL, each with its `null_arg_{n}`
    /// override.
    pub null_args: Vec<(usize, Handle<Override>)>,
    /// How the kernel reaches shared virtual memory, once it does.
    svm: Option<Svm>,
}

/// Shared virtual memory in a kernel (see [`SvmInterface`]): the uniform block of heap ranges
/// and argument addresses, its binding, and the params of the heaps.
struct Svm {
    block: Handle<GlobalVariable>,
    binding: u32,
    heaps: [usize; SVM_HEAPS],
}

fn align_up(v: u32, a: u32) -> u32 {
    v.div_ceil(a.max(1)).saturating_mul(a.max(1))
}

impl Abi {
    /// Declares the interface: `pods[i]` is `Some` for value arguments, `locals[i]` for
    /// `__local` arguments (element type and size), `buffers[i]` for buffers (read-only).
    pub fn new(module: &mut Module, args: &[ParamDecl], max_push: u32) -> Abi {
        let u32_ty = scalar_ty(module, Scalar::U32);
        let local_size = [0, 1, 2].map(|d| {
            let one = module.global_expressions.append(
                Expression::Literal(naga::Literal::U32(1)),
                Span::UNDEFINED,
            );
            let o = Override { name: Some(local_size_name(d)), id: None, ty: u32_ty, init: Some(one) };
            module.overrides.append(o, Span::UNDEFINED)
        });
        let launch_ty = intern(
            module,
            TypeInner::Array {
                base: u32_ty,
                size: ArraySize::Constant(std::num::NonZeroU32::MIN.saturating_add(LAUNCH_WORDS - 1)),
                stride: 4,
            },
        );
        let mut blocks = PodBlocks {
            push_members: vec![StructMember { name: Some("launch".into()), ty: launch_ty, binding: None, offset: 0 }],
            uniform_members: Vec::new(),
            push_end: LAUNCH_BLOCK_SIZE,
            uniform_end: 0,
            max_push,
        };
        let mut params = Vec::new();
        let mut locals = 0;
        for arg in args {
            params.push(match arg {
                ParamDecl::Buffer { read_only } => {
                    Param::Buffer { read_only: *read_only, views: Vec::new(), bindings: Vec::new() }
                }
                ParamDecl::Local { elem_ty, elem_size, name } => {
                    let var = local_arg_array(module, *elem_ty, locals, name);
                    locals += 1;
                    Param::Local { var, elem_size: *elem_size, ordinal: locals - 1 }
                }
                ParamDecl::Pod(f) => {
                    let (member, offset, uniform, words) = blocks.place(module, f);
                    Param::Pod { member, offset, size: f.size, uniform, words }
                }
                ParamDecl::Sampler => {
                    let word = PodField { ty: u32_ty, size: 4, align: 4, slot: 4, words: true };
                    let (member, offset, uniform, _) = blocks.place(module, &word);
                    Param::Sampler { member, offset, uniform }
                }
                ParamDecl::Image { dim, access, texels } => {
                    let size = IMAGE_INFO_WORDS * 4;
                    let count = std::num::NonZeroU32::MIN.saturating_add(IMAGE_INFO_WORDS - 1);
                    let ty = intern(module, TypeInner::Array { base: u32_ty, size: ArraySize::Constant(count), stride: 4 });
                    let info = PodField { ty, size, align: 4, slot: size, words: false };
                    let (member, offset, uniform, words) = blocks.place(module, &info);
                    Param::Image { dim: *dim, access: *access, texels: *texels, var: None, binding: None, member, offset, uniform, words }
                }
            });
        }
        let PodBlocks { push_members, uniform_members, push_end, uniform_end, .. } = blocks;
        let push_size = align_up(push_end, 4);
        let push_ty = intern(module, TypeInner::Struct { members: push_members, span: push_size });
        let push = module.global_variables.append(
            GlobalVariable {
                name: Some("launch_args".into()),
                space: AddressSpace::Immediate,
                binding: None,
                ty: push_ty,
                init: None,
                memory_decorations: MemoryDecorations::empty(),
            },
            Span::UNDEFINED,
        );
        let num_args = params.len();
        let mut abi = Abi { params, num_args, next_binding: 0, push, pod_uniform: None, push_size, local_size, null_args: Vec::new(), svm: None };
        if !uniform_members.is_empty() {
            let size = align_up(uniform_end, 16);
            let ty = intern(module, TypeInner::Struct { members: uniform_members, span: size });
            let binding = abi.take_binding();
            let var = resource(module, "pod_args", AddressSpace::Uniform, binding, ty);
            abi.pod_uniform = Some((var, binding, size));
        }
        abi
    }

    fn take_binding(&mut self) -> u32 {
        self.next_binding += 1;
        self.next_binding - 1
    }

    /// The view of buffer argument `arg` as a runtime array of `elem` (created on first use).
    pub fn buffer_view(&mut self, module: &mut Module, arg: usize, elem: Handle<Type>, stride: u32) -> Option<Handle<GlobalVariable>> {
        let binding = self.next_binding;
        let Some(Param::Buffer { read_only, views, bindings }) = self.params.get_mut(arg) else {
            return None;
        };
        if let Some(&(_, v)) = views.iter().find(|(t, _)| *t == elem) {
            return Some(v);
        }
        let access = if *read_only { StorageAccess::LOAD } else { StorageAccess::LOAD | StorageAccess::STORE };
        let array = intern(module, TypeInner::Array { base: elem, size: ArraySize::Dynamic, stride });
        let name = format!("arg{arg}_view{}", views.len());
        let var = resource(module, &name, AddressSpace::Storage { access }, binding, array);
        views.push((elem, var));
        bindings.push(binding);
        self.next_binding += 1;
        Some(var)
    }

    /// The variable of image argument `arg`, declared at first use with channels of `kind`.
    /// `None` if `arg` is no image, or was declared with another kind. A `read_only` image is
    /// a sampled image; a `write_only` one a storage image whose stand-in format the SPIR-V
    /// post-pass replaces by `Unknown` (`spirv::unknown_image_formats`).
    pub fn image_var(&mut self, module: &mut Module, arg: usize, kind: naga::ScalarKind) -> Option<Handle<GlobalVariable>> {
        let binding = self.image_binding(arg)?;
        let Some(Param::Image { dim, access, texels, var, .. }) = self.params.get_mut(arg) else { return None };
        match *var {
            Some((v, k)) => (k == kind).then_some(v),
            None => {
                // A texel buffer is declared as a 1D image (see `texel_buffer_bindings`).
                let dim = if *texels { ImageDim::D1Buffer } else { *dim };
                let ty = image_type(module, dim, *access, kind);
                let v = resource(module, &format!("image{arg}"), AddressSpace::Handle, binding, ty);
                *var = Some((v, kind));
                Some(v)
            }
        }
    }

    /// Image argument `arg` is a 2D image bound as a texel buffer (made from a buffer).
    pub fn image_from_buffer(&self, arg: usize) -> bool {
        matches!(self.params.get(arg), Some(Param::Image { dim: ImageDim::D2, texels: true, .. }))
    }

    /// The binding of image argument `arg`, taken at first use.
    fn image_binding(&mut self, arg: usize) -> Option<u32> {
        let next = self.next_binding;
        let Some(Param::Image { binding, .. }) = self.params.get_mut(arg) else { return None };
        if binding.is_none() {
            *binding = Some(next);
            self.next_binding += 1;
        }
        *binding
    }

    /// Gives a binding to the image arguments the kernel did not read or write (the runtime
    /// binds every image; the shader declares none there).
    pub fn bind_unused_images(&mut self) {
        for arg in 0..self.num_args {
            self.image_binding(arg);
        }
    }

    /// The kernel declares a `write_only` image (a storage image whose format
    /// `spirv::unknown_image_formats` replaces).
    pub fn writes_images(&self) -> bool {
        self.params.iter().any(|p| matches!(p, Param::Image { access: ImageAccess::Write, var: Some(_), .. }))
    }

    /// The bindings of the texel-buffer image arguments the kernel reads or writes (declared as
    /// 1D images, made texel buffers by `spirv::texel_buffers`).
    pub fn texel_buffer_bindings(&self) -> Vec<u32> {
        let bindings = self.params.iter().filter_map(|p| match p {
            Param::Image { texels: true, var: Some(_), binding, .. } => *binding,
            _ => None,
        });
        bindings.collect()
    }

    /// Word `k` of image argument `arg`'s `IMAGE_INFO_WORDS`.
    pub fn image_info_word(&self, b: &mut FnBuilder, arg: usize, k: u32) -> Option<Handle<Expression>> {
        let Some(&Param::Image { words, .. }) = self.params.get(arg) else { return None };
        let info = self.pod_pointer(b, arg)?;
        // In the uniform the words travel as `array<vec4<u32>, 2>` (see `pod_words_type`).
        let p = if words {
            let quad = b.member(info, k / 4);
            b.member(quad, k % 4)
        } else {
            b.member(info, k)
        };
        Some(b.load(p))
    }

    /// Makes writable the read-only views that the entry point stores to: a `const __global`
    /// argument is viewed read-only, but OpenCL C may cast the `const` away and write the
    /// buffer (the CTS's async copy fence tests do).
    pub fn allow_stores(&self, module: &mut Module) {
        let mut written = Vec::new();
        for f in module.entry_points.iter().map(|ep| &ep.function).chain(module.functions.iter().map(|(_, f)| f)) {
            stored_globals(f, &f.body, &mut written);
        }
        for param in &self.params {
            let Param::Buffer { read_only: true, views, .. } = param else { continue };
            for &(_, var) in views.iter().filter(|(_, v)| written.contains(v)) {
                module.global_variables[var].space = AddressSpace::Storage { access: StorageAccess::LOAD | StorageAccess::STORE };
            }
        }
    }

    /// The override that says whether buffer argument `arg` is NULL, made on first use; `None`
    /// for what cannot be NULL (a `__constant` data block).
    pub fn arg_is_null(&mut self, module: &mut Module, arg: usize) -> Option<Handle<Override>> {
        if arg >= self.num_args || !matches!(self.params.get(arg), Some(Param::Buffer { .. })) {
            return None;
        }
        if let Some(&(_, o)) = self.null_args.iter().find(|(a, _)| *a == arg) {
            return Some(o);
        }
        // A u32 (1: NULL), as all the lowering's overrides: the builder hides constants from
        // naga's evaluator through bitcasts, which a bool cannot take.
        let u32_ty = scalar_ty(module, Scalar::U32);
        let no = module.global_expressions.append(Expression::Literal(naga::Literal::U32(0)), Span::UNDEFINED);
        let o = module.overrides.append(Override { name: Some(null_arg_name(arg)), id: None, ty: u32_ty, init: Some(no) }, Span::UNDEFINED);
        self.null_args.push((arg, o));
        Some(o)
    }

    /// Adds a read-only buffer for `__constant` data uploaded by the runtime; returns its
    /// index among the params.
    pub fn add_constant_block(&mut self) -> usize {
        self.add_buffer(true)
    }

    /// Declares the program's buffer of program-scope `__global` variables; its param index.
    pub fn add_globals_block(&mut self) -> usize {
        self.add_buffer(false)
    }

    /// A buffer of the kernel's own beside its arguments; its param index.
    fn add_buffer(&mut self, read_only: bool) -> usize {
        self.params.push(Param::Buffer { read_only, views: Vec::new(), bindings: Vec::new() });
        self.params.len() - 1
    }

    /// The params of the shared virtual memory heaps, declared with the block of their
    /// ranges on first use.
    pub fn heaps(&mut self, module: &mut Module) -> [usize; SVM_HEAPS] {
        self.svm(module).heaps
    }

    /// The heap that param `index` is, if one.
    pub fn heap_of(&self, index: usize) -> Option<u32> {
        self.svm.as_ref()?.heaps.iter().position(|&h| h == index).map(|h| h as u32)
    }

    /// Whether buffer param `index` may be shared virtual memory: a buffer argument, or a heap.
    pub fn may_be_svm(&self, index: usize) -> bool {
        (index < self.num_args && matches!(self.params.get(index), Some(Param::Buffer { .. }))) || self.heap_of(index).is_some()
    }

    /// The u64 host address where the bytes of buffer param `index` start when it is shared
    /// virtual memory (0 for an argument that is not; see [`Abi::may_be_svm`]), and the end of
    /// a heap's (none for an argument).
    pub fn svm_range(&mut self, module: &mut Module, b: &mut FnBuilder, index: usize) -> (Handle<Expression>, Option<Handle<Expression>>) {
        let heap = self.heap_of(index);
        let block = self.svm(module).block;
        let pair = heap.unwrap_or(SVM_HEAPS as u32 + index as u32);
        let block = b.expr(Expression::GlobalVariable(block));
        let k = b.u32(pair);
        let pair = b.index(block, k);
        let pair = b.load(pair);
        let word = |b: &mut FnBuilder, i| b.expr(Expression::AccessIndex { base: pair, index: i });
        (word(b, 0), heap.map(|_| word(b, 1)))
    }

    fn svm(&mut self, module: &mut Module) -> &Svm {
        if self.svm.is_none() {
            let pair = intern(module, TypeInner::Vector { size: naga::VectorSize::Bi, scalar: Scalar::U64 });
            let count = std::num::NonZeroU32::MIN.saturating_add((SVM_HEAPS + self.num_args) as u32 - 1);
            let ty = intern(module, TypeInner::Array { base: pair, size: ArraySize::Constant(count), stride: 16 });
            let binding = self.take_binding();
            let block = resource(module, "svm", AddressSpace::Uniform, binding, ty);
            let heaps = [(); SVM_HEAPS].map(|_| self.add_buffer(false));
            self.svm = Some(Svm { block, binding, heaps });
        }
        self.svm.as_ref().expect("made above")
    }

    /// The shared virtual memory interface for the runtime, for a kernel that has one.
    pub fn svm_interface(&self) -> Option<SvmInterface> {
        let svm = self.svm.as_ref()?;
        Some(SvmInterface { block: svm.binding, heaps: svm.heaps.iter().map(|&h| self.bindings(h).to_vec()).collect() })
    }

    /// Declares the printf buffer (`array<atomic<u32>>`, see `compiler/printf.rs`); the
    /// variable and its binding.
    pub fn add_printf_buffer(&mut self, module: &mut Module) -> (Handle<GlobalVariable>, u32) {
        let word = intern(module, TypeInner::Atomic(Scalar::U32));
        let array = intern(module, TypeInner::Array { base: word, size: ArraySize::Dynamic, stride: 4 });
        let binding = self.take_binding();
        let access = StorageAccess::LOAD | StorageAccess::STORE;
        (resource(module, "printf_buffer", AddressSpace::Storage { access }, binding, array), binding)
    }

    /// The bindings of the views of param `index`.
    pub fn bindings(&self, index: usize) -> &[u32] {
        match self.params.get(index) {
            Some(Param::Buffer { bindings, .. }) => bindings,
            _ => &[],
        }
    }

    /// True when one buffer argument is seen through several views, or a heap's view may
    /// see an argument's bytes (needs `Aliased`).
    pub fn has_aliased_views(&self) -> bool {
        let heaps = self.svm.as_ref().is_some_and(|s| s.heaps.iter().any(|&h| !self.bindings(h).is_empty()));
        heaps || self.params.iter().any(|p| matches!(p, Param::Buffer { views, .. } if views.len() > 1))
    }

    /// The bindings of the buffer arguments `is_restrict` says were declared `restrict`, where
    /// the kernel reaches their memory through that one binding alone (no other view of theirs
    /// or of a heap that may hold them).
    pub fn restrict_bindings(&self, is_restrict: impl Fn(usize) -> bool) -> Vec<u32> {
        if self.has_aliased_views() {
            return Vec::new();
        }
        let args = self.params[..self.num_args].iter().enumerate();
        args.filter_map(|(i, p)| match p {
            Param::Buffer { bindings, .. } if is_restrict(i) => bindings.first().copied(),
            _ => None,
        })
        .collect()
    }

    /// Reflection: how the runtime passes each argument.
    pub fn arg_kinds(&self) -> Vec<ArgKind> {
        self.params[..self.num_args]
            .iter()
            .map(|p| match p {
                Param::Buffer { bindings, .. } => {
                    ArgKind::Buffer { bindings: bindings.clone(), descriptor: DescriptorKind::Storage }
                }
                Param::Local { elem_size, .. } => ArgKind::Local { elem_size: *elem_size },
                Param::Pod { offset, size, uniform, .. } => {
                    ArgKind::Pod { offset: *offset, size: *size, uniform: *uniform }
                }
                Param::Sampler { offset, uniform, .. } => ArgKind::Sampler { offset: *offset, uniform: *uniform },
                Param::Image { dim, access, texels, binding, offset, uniform, .. } => ArgKind::Image {
                    binding: binding.unwrap_or(u32::MAX),
                    dim: *dim,
                    access: *access,
                    info: *offset,
                    uniform: *uniform,
                    texels: *texels,
                },
            })
            .collect()
    }

    /// `launch[word]` as a u32 value.
    pub fn launch_word(&self, b: &mut FnBuilder, word: Handle<Expression>) -> Handle<Expression> {
        let push = b.expr(Expression::GlobalVariable(self.push));
        let launch = b.member(push, 0);
        let p = b.index(launch, word);
        b.load(p)
    }

    /// Pointer to the value argument `arg` (push constants or POD uniform): a value, a
    /// sampler, or the format words of an image.
    pub fn pod_pointer(&self, b: &mut FnBuilder, arg: usize) -> Option<Handle<Expression>> {
        let (member, uniform) = match self.params.get(arg)? {
            Param::Pod { member, uniform, .. } | Param::Sampler { member, uniform, .. } | Param::Image { member, uniform, .. } => (member, uniform),
            _ => return None,
        };
        let var = if *uniform { self.pod_uniform?.0 } else { self.push };
        let base = b.expr(Expression::GlobalVariable(var));
        Some(b.member(base, *member))
    }
}

/// The type carrying a value argument with 8/16-bit parts, of `size` bytes, as u32 words:
/// `u32`, `vec2<u32>`, `vec4<u32>` or `array<vec4<u32>, n>` (valid in push constants and
/// uniforms).
pub fn pod_words_type(module: &mut Module, size: u32) -> PodField {
    let vec = |module: &mut Module, size| intern(module, TypeInner::Vector { size, scalar: Scalar::U32 });
    let (ty, align, slot) = match size {
        0..=4 => (scalar_ty(module, Scalar::U32), 4, 4),
        5..=8 => (vec(module, naga::VectorSize::Bi), 8, 8),
        9..=16 => (vec(module, naga::VectorSize::Quad), 16, 16),
        _ => {
            let base = vec(module, naga::VectorSize::Quad);
            let n = std::num::NonZeroU32::MIN.saturating_add(size.div_ceil(16) - 1);
            (intern(module, TypeInner::Array { base, size: ArraySize::Constant(n), stride: 16 }), 16, 16 * n.get())
        }
    };
    PodField { ty, size, align, slot, words: true }
}

/// How the front end describes one kernel argument to [`Abi::new`].
pub enum ParamDecl {
    Buffer { read_only: bool },
    Local { elem_ty: Handle<Type>, elem_size: u32, name: String },
    Pod(PodField),
    Sampler,
    /// `texels`: a texel buffer (`image1d_buffer_t`, or an `image2d_t` made from a buffer).
    Image { dim: ImageDim, access: ImageAccess, texels: bool },
}

/// The naga type of an image of shape `dim` with channels of `kind`.
fn image_type(module: &mut Module, dim: ImageDim, access: ImageAccess, kind: naga::ScalarKind) -> Handle<Type> {
    let (dim, arrayed) = match dim {
        ImageDim::D1 | ImageDim::D1Buffer => (naga::ImageDimension::D1, false),
        ImageDim::D1Array => (naga::ImageDimension::D1, true),
        ImageDim::D2 => (naga::ImageDimension::D2, false),
        ImageDim::D2Array => (naga::ImageDimension::D2, true),
        ImageDim::D3 => (naga::ImageDimension::D3, false),
    };
    let class = match access {
        ImageAccess::Read => naga::ImageClass::Sampled { kind, multi: false },
        ImageAccess::Write => {
            let format = match kind {
                naga::ScalarKind::Sint => naga::StorageFormat::Rgba32Sint,
                naga::ScalarKind::Uint => naga::StorageFormat::Rgba32Uint,
                _ => naga::StorageFormat::Rgba32Float,
            };
            naga::ImageClass::Storage { format, access: StorageAccess::STORE }
        }
    };
    intern(module, TypeInner::Image { dim, arrayed, class })
}

fn resource(module: &mut Module, name: &str, space: AddressSpace, binding: u32, ty: Handle<Type>) -> Handle<GlobalVariable> {
    module.global_variables.append(
        GlobalVariable {
            name: Some(name.into()),
            space,
            binding: Some(ResourceBinding { group: DESCRIPTOR_SET, binding }),
            ty,
            init: None,
            memory_decorations: MemoryDecorations::empty(),
        },
        Span::UNDEFINED,
    )
}

/// `var<workgroup> name: array<elem, local_arg_n>`; the length is set at specialisation. The
/// stride is the size of `elem` as stored (8- and 16-bit data live in 32-bit words), not the
/// OpenCL element's: NVIDIA's driver honours a workgroup array's stride, and a short one made
/// neighbouring elements overlap.
fn local_arg_array(module: &mut Module, elem: Handle<Type>, n: usize, name: &str) -> Handle<GlobalVariable> {
    let elem_size = module.types[elem].inner.size(module.to_ctx());
    let u32_ty = scalar_ty(module, Scalar::U32);
    let one = module.global_expressions.append(Expression::Literal(naga::Literal::U32(1)), Span::UNDEFINED);
    let len = Override { name: Some(local_arg_name(n)), id: None, ty: u32_ty, init: Some(one) };
    let len = module.overrides.append(len, Span::UNDEFINED);
    let array = intern(module, TypeInner::Array { base: elem, size: ArraySize::Pending(len), stride: elem_size });
    module.global_variables.append(
        GlobalVariable {
            name: Some(name.into()),
            space: AddressSpace::WorkGroup,
            binding: None,
            ty: array,
            init: None,
            memory_decorations: MemoryDecorations::empty(),
        },
        Span::UNDEFINED,
    )
}
