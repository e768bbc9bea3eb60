//! The OpenCL C compiler: source → preprocessor → parser → semantic model → naga IR →
//! SPIR-V. This file is the contract with the runtime: what a build needs from the device
//! ([`Target`]), what it produces ([`Program`], [`Kernel`]) and the kernel ABI the runtime binds
//! against. See `docs/compiler.md` for the design.

pub mod atomic_order;
pub mod diag;
mod driver;
pub mod lex;
pub mod lower;
pub mod options;
pub mod parse;
pub mod preprocess;
pub mod printf;
pub mod sema;
pub mod source;
pub mod spirv;
mod stack;
pub mod token;

pub use driver::{build, compile, link};

/// The run-time number of the buffer of a program's `__global` variables among the regions a
/// pointer may point into (see `lower/region.rs`).
pub const GLOBALS_SLOT: u32 = 0xe2;

/// The run-time number of shared virtual memory heap `h` (`core::svm`) among the regions a
/// pointer may point into: `HEAP_SLOT + h`.
pub const HEAP_SLOT: u32 = 0xd0;

/// The heaps of shared virtual memory a context may have; a kernel that reads pointers from
/// memory reaches each through bindings of its own ([`SvmInterface`]).
pub const SVM_HEAPS: usize = 4;

/// The integer a pointer to byte `offset` of the program's `__global` variables is, in
/// memory and as `uintptr_t`, on a device with pointers of `pointer_size` bytes: its region's
/// number + 1 in the top byte, then the offset (see `lower/region.rs`).
pub fn global_variable_address(offset: u32, pointer_size: u32) -> u64 {
    region_tag(GLOBALS_SLOT, pointer_size).wrapping_add(u64::from(offset))
}

/// The integer a pointer to byte 0 of the region numbered `slot` is: `slot + 1` in the top
/// byte of a pointer of `pointer_size` bytes. No host address reaches it (x86-64 user
/// addresses lie below 2^47), so pointers into shared virtual memory, which are host
/// addresses, are told from the others by a top byte of 0.
pub fn region_tag(slot: u32, pointer_size: u32) -> u64 {
    u64::from(slot + 1) << (8 * pointer_size - 8)
}

/// `CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE`: the largest program-scope `__global` variable (the
/// minimum OpenCL 3.0 asks of a device with the feature).
pub const MAX_GLOBAL_VARIABLE_SIZE: u64 = 65536;

/// What the compiler may use on the device it compiles for (filled from Vulkan features/limits).
#[derive(Clone, Debug)]
pub struct Target {
    /// `CL_DEVICE_ADDRESS_BITS`: the width of `size_t`, `ptrdiff_t` and `__global` pointers.
    pub address_bits: u32,
    pub int64: bool,
    /// 64-bit integer atomics on buffers and `__local` memory (`shaderBufferInt64Atomics` and
    /// `shaderSharedInt64Atomics`): `cl_khr_int64_base_atomics` / `_extended_atomics`.
    pub int64_atomics: bool,
    pub int16: bool,
    pub fp64: bool,
    pub fp16: bool,
    /// 8/16-bit access to storage buffers (`storageBuffer8BitAccess` / `storageBuffer16BitAccess`).
    pub storage_8bit: bool,
    pub storage_16bit: bool,
    pub max_push_constants_size: u32,
    pub max_constant_args: u32,
    pub max_constant_buffer_size: u64,
    pub max_uniform_buffer_range: u64,
    pub max_work_group_size: u32,
    pub max_work_item_sizes: [u32; 3],
    pub local_mem_size: u64,
    pub subgroup_size: u32,
    /// Sub-groups (`cl_khr_subgroups`) and the work-group collective functions built on them:
    /// compute shaders have Vulkan's subgroup operations, on every type OpenCL C's collectives
    /// take (`shaderSubgroupExtendedTypes`).
    pub subgroups: bool,
    /// Images and samplers (`__IMAGE_SUPPORT__`, `__opencl_c_images`,
    /// `__opencl_c_3d_image_writes`): `write_only` images are storage images without a format
    /// (`shaderStorageImageWriteWithoutFormat`).
    pub images: bool,
    /// `__OPENCL_C_VERSION__` of the highest OpenCL C the device reports, e.g. 300.
    pub opencl_c_version: u32,
    /// Clamp indices into `__local` and private arrays to the array. Needed where the device runs
    /// kernels inside the host process (a CPU device such as lavapipe), where an out-of-bounds
    /// access corrupts the host's memory; a GPU's hardware confines such an access to the
    /// device (a fault ends the command with an error), and the clamps cost 2 % of SGEMM there.
    pub clamp_array_indices: bool,
    /// The driver turns memory barriers, and the barriers ordered atomics imply, into
    /// work-group barriers, which break in divergent control flow (a compare-exchange loop, a
    /// lock), while its read-modify-writes are sequentially consistent: lavapipe (Mesa 22.3's
    /// llvmpipe). Orders and fences are then kept by read-modify-writes instead
    /// (`lower/c11.rs`).
    pub ordering_by_rmw: bool,
    /// Kernels ask the driver to keep signed zeros, infinities and NaNs of 32- and 64-bit floats
    /// (SPIR-V `SignedZeroInfNanPreserve`): without it Vulkan lets the compiler drop the sign
    /// of a zero, and NVIDIA's did (sinpi(1) was -0, CTS math_edge_cases).
    pub preserve_signed_zeros: bool,
    /// GLSL's `Fma` rounds once on this device. Vulkan lets it round the product first, and
    /// lavapipe's does; NVIDIA's is one fused multiply-add (mad(1 + 2^-12, 1 + 2^-12,
    /// -(1 + 2^-11)) = 2^-24 on the H200). Float sin and cos then reduce their argument in
    /// three multiply-adds instead of four exact products and subtractions.
    pub fused_fma: bool,
    /// Endless loops (`while (1)`, `for (;;)`) get a test the driver cannot fold away: lavapipe
    /// (Mesa 22.3) loses what work-items that leave such a loop early by `break` stored to a
    /// variable, when the loop does atomics (a compare-exchange loop returned 0 as the old
    /// value of 7 of every 8 work-items); with a loop condition it is right.
    pub guard_endless_loops: bool,
    /// Kernels are SPIR-V 1.4, with their signed counters marked `NoSignedWrap`
    /// (`spirv::decorate`): NVIDIA's compiler reads wide vectors in such loops
    /// four times faster. Other devices keep 1.3 without marks, which lavapipe has no use for.
    /// (lavapipe's minutes on CTS `vector_creation` were once blamed on 1.4, against 6 s as
    /// 1.3; but those 6 s came from Mesa's shader cache: compiled afresh as 1.3, its kernels
    /// take 942 s in LLVM's coroutine splitting too, 2026-11-27.)
    pub no_signed_wrap: bool,
}

/// The device the compiler's unit tests compile for: 64-bit addresses, 8/16/64-bit integers and
/// storage, no `double` or `half` (tests that need them override the field).
#[cfg(test)]
pub(crate) fn test_target() -> Target {
    Target {
        address_bits: 64,
        int64: true,
        int64_atomics: true,
        int16: true,
        fp64: false,
        fp16: false,
        storage_8bit: true,
        storage_16bit: true,
        max_push_constants_size: 256,
        max_constant_args: 8,
        max_constant_buffer_size: 65536,
        max_uniform_buffer_range: 65536,
        max_work_group_size: 1024,
        max_work_item_sizes: [1024, 1024, 64],
        local_mem_size: 49152,
        subgroup_size: 32,
        subgroups: true,
        images: true,
        opencl_c_version: 300,
        clamp_array_indices: true,
        ordering_by_rmw: false,
        preserve_signed_zeros: true,
        fused_fma: false,
        guard_endless_loops: false,
        no_signed_wrap: true,
    }
}

/// Bytes of the launch block at the start of every kernel's push constants, written by the
/// runtime at each dispatch (all `u32`):
/// `global_offset[3], work_dim, global_size[3], group_offset[3]`.
/// `group_offset` is the first work-group of this dispatch when the runtime splits a grid
/// larger than `maxComputeWorkGroupCount` into several dispatches.
pub const LAUNCH_BLOCK_SIZE: u32 = 40;

/// Descriptor set holding every buffer binding of a kernel.
pub const DESCRIPTOR_SET: u32 = 0;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddressQualifier {
    Global,
    Local,
    Constant,
    Private,
    /// OpenCL C 2.0/3.0's generic address space: a pointer into `__global`, `__local` or
    /// private memory, which one known when the program runs.
    Generic,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DescriptorKind {
    Storage,
    Uniform,
}

/// How the runtime passes one kernel argument.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgKind {
    /// A `__global` or `__constant` pointer: the buffer (from its offset, to its end) is bound to
    /// every binding listed, each a view of a different element type (all aliasing one VkBuffer).
    Buffer { bindings: Vec<u32>, descriptor: DescriptorKind },
    /// A `__local` pointer: its size comes from `clSetKernelArg(k, i, size, NULL)` and is given
    /// to [`Kernel::specialize`], in the order of the kernel's local arguments.
    Local { elem_size: u32 },
    /// A value argument, copied at `offset` (bytes) into the push constants (`uniform: false`) or
    /// into the POD uniform buffer (`uniform: true`, see [`Kernel::pod_uniform`]).
    Pod { offset: u32, size: u32, uniform: bool },
    /// An image (`image1d_t` … `image3d_t`), bound at `binding` as [`ImageAccess`] says. Its
    /// format and extent are copied as [`IMAGE_INFO_WORDS`] `u32`s at `info` (bytes) into the
    /// push constants (`uniform: false`) or the POD uniform buffer: `image_channel_order`,
    /// `image_channel_data_type` (the host's `CL_*` values), then the image's width, height,
    /// depth and array size (as `clCreateImage` made it; the width in texels for
    /// `image1d_buffer_t`; the kernel reads only those its image type has). The queries
    /// (`get_image_*`) return them, and the shader's sampling reads them (the extent to
    /// address texels, the order for the border colour of `CL_ADDRESS_CLAMP`): a kernel that
    /// only queries an image does not touch the image itself, so its view's format need not
    /// match a channel type the kernel never declares.
    /// `texels`: the binding is a texel buffer (uniform to read, storage to write): always
    /// for `image1d_buffer_t`, and for an `image2d_t` in the variant of a kernel made for 2D
    /// images created from buffers ([`Variant::buffer_images`]), which reads texel
    /// `(x, y)` at index `y · pitch + x`, the row pitch in texels given as info word 4.
    Image { binding: u32, dim: ImageDim, access: ImageAccess, info: u32, uniform: bool, texels: bool },
    /// A `sampler_t`: its [`sampler_bits`] as one `u32` at `offset` in the push constants or
    /// the POD uniform buffer.
    Sampler { offset: u32, uniform: bool },
}

/// The `u32` words of an image argument's format and extent, see [`ArgKind::Image`].
pub const IMAGE_INFO_WORDS: u32 = 6;

/// The shape of an image argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageDim {
    D1,
    /// `image1d_buffer_t`: a texel buffer view of a buffer.
    D1Buffer,
    D1Array,
    D2,
    D2Array,
    D3,
}

/// How a kernel accesses an image argument, which fixes its descriptor type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageAccess {
    /// `read_only`: a sampled image (`VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE`, a uniform texel buffer
    /// for `image1d_buffer_t`) read texel by texel (`OpImageFetch`). OpenCL's sampling
    /// (normalized coordinates, addressing, filtering) is computed in the shader, exactly as
    /// the specification defines it, so no Vulkan sampler is bound. The view may swizzle (the
    /// runtime emulates channel orders Vulkan lacks that way).
    Read,
    /// `write_only`: a storage image (`VK_DESCRIPTOR_TYPE_STORAGE_IMAGE`, a storage texel buffer
    /// for `image1d_buffer_t`) declared with the `Unknown` format
    /// (`shaderStorageImageWriteWithoutFormat`); its view never swizzles.
    Write,
}

/// A sampler as kernels see it (the values of OpenCL C's `CLK_*` sampler macros, combined with
/// `|`): bit 0 normalized coordinates, bits 1–3 the addressing mode (`CL_ADDRESS_NONE` … 
/// `CL_ADDRESS_MIRRORED_REPEAT` counted from 0), bit 4 linear filtering.
pub fn sampler_bits(normalized: bool, addressing: u32, filter: u32) -> u32 {
    const ADDRESS_NONE: u32 = 0x1130;
    const FILTER_NEAREST: u32 = 0x1140;
    u32::from(normalized) | (addressing.wrapping_sub(ADDRESS_NONE) & 7) << 1 | (filter.wrapping_sub(FILTER_NEAREST) & 1) << 4
}

/// A kernel argument with the reflection data `clGetKernelArgInfo` reports.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelArg {
    pub name: String,
    pub type_name: String,
    pub address: AddressQualifier,
    /// `CL_KERNEL_ARG_TYPE_CONST/RESTRICT/VOLATILE` bits.
    pub type_qualifiers: u64,
    pub kind: ArgKind,
}

/// Program-scope `__constant` data a kernel reads: the runtime uploads `bytes` once per device
/// and binds it at `binding`.
#[derive(Clone, Debug, PartialEq)]
pub struct ConstantData {
    pub binding: u32,
    pub descriptor: DescriptorKind,
    pub bytes: Vec<u8>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct KernelAttributes {
    pub reqd_work_group_size: Option<[u32; 3]>,
    pub work_group_size_hint: Option<[u32; 3]>,
    pub vec_type_hint: Option<String>,
}

/// One compiled kernel: reflection plus what is needed to specialise it into SPIR-V.
pub trait Kernel: Send + Sync + std::fmt::Debug {
    fn name(&self) -> &str;
    fn args(&self) -> &[KernelArg];
    fn attributes(&self) -> &KernelAttributes;
    /// The attribute string `CL_KERNEL_ATTRIBUTES` reports.
    fn attribute_string(&self) -> String;
    fn constant_data(&self) -> &[ConstantData];
    /// Size of the push-constant block, launch block included.
    fn push_constants_size(&self) -> u32;
    /// `(binding, size)` of the uniform buffer holding value arguments that did not fit in push
    /// constants.
    fn pod_uniform(&self) -> Option<(u32, u32)>;
    /// Bytes of `__local` memory the kernel declares itself (`CL_KERNEL_LOCAL_MEM_SIZE` adds the
    /// `__local` arguments).
    fn local_mem_size(&self) -> u64;
    fn private_mem_size(&self) -> u64;
    /// The buffer arguments the kernel compares with NULL: whether they are NULL is fixed at
    /// specialisation.
    fn null_tested_args(&self) -> &[usize];
    /// Where the program's buffer of `__global` variables is bound (empty: not used).
    fn globals_bindings(&self) -> &[u32];
    /// Where the printf buffer is bound, for a kernel that calls `printf` (see `printf.rs`).
    fn printf_binding(&self) -> Option<u32>;
    /// How the kernel reaches shared virtual memory, for a kernel that reads pointers from
    /// `__global` memory or turns pointers into `__global` arguments into integers.
    fn svm(&self) -> Option<&SvmInterface>;
    /// SPIR-V for one work-group size, the sizes (bytes) of the `__local` pointer arguments and
    /// the buffer arguments that are NULL (those not in [`Kernel::null_tested_args`] change
    /// nothing). Entry point `main`. Errors are internal-compiler-error messages.
    fn specialize(&self, local_size: [u32; 3], local_arg_sizes: &[u32], null_args: &[usize]) -> Result<Vec<u32>, String>;
    /// The kernel lowered again for a launch that binds some arguments differently
    /// ([`Variant`]), made once per variant; `None` where the kernel itself serves (none of
    /// `variant` applies to it).
    fn variant(&self, variant: &Variant) -> Result<Option<std::sync::Arc<dyn Kernel>>, String>;
}

/// Shared virtual memory as a kernel sees it. In shared virtual memory a pointer is the host
/// address of its byte, in kernels too: the runtime tells a kernel where its SVM arguments
/// and the context's heaps lie, in a uniform block of `SVM_HEAPS + arguments` pairs of u64 at
/// binding `block`:
/// - pair `h < SVM_HEAPS`: the host address range `[start, end)` of heap `h` (0, 0 where the
///   context has no such heap);
/// - pair `SVM_HEAPS + n`: for buffer argument `n` set to SVM (`clSetKernelArgSVMPointer`, or
///   a buffer made on SVM), the host address of its byte 0, else 0; the second word unused.
///
/// The whole of heap `h` is bound at each of `heaps[h]` (none where the kernel never reads a
/// pointer that may point into shared virtual memory).
#[derive(Clone, Debug, PartialEq)]
pub struct SvmInterface {
    pub block: u32,
    pub heaps: Vec<Vec<u32>>,
}

/// How a launch binds arguments that a kernel must be lowered again for
/// ([`Kernel::variant`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Variant {
    /// `image2d_t` arguments that are 2D images made from buffers (`cl_khr_image2d_from_buffer`),
    /// bound as texel buffers (see [`ArgKind::Image`]).
    pub buffer_images: Vec<usize>,
    /// Buffer arguments whose byte 0 lies `shift` bytes past where their binding starts (an SVM
    /// pointer anywhere in an allocation, where bindings must start at multiples of the
    /// device's offset alignment), as `(argument, shift)`.
    pub shifts: Vec<(usize, u32)>,
}

/// A built program: its kernels and its build log (warnings, or nothing).
#[derive(Debug)]
pub struct Program {
    pub kernels: Vec<std::sync::Arc<dyn Kernel>>,
    pub log: String,
    /// The initial bytes of the program's buffer of program-scope `__global` variables (empty
    /// when it has none). Each program object needs its own buffer of them, bound at
    /// [`Kernel::globals_bindings`].
    pub globals: Vec<u8>,
    /// The program's `printf` calls, indexed by the first word of their records.
    pub printf: Vec<printf::Format>,
}

/// A compiled but unlinked object (`clCompileProgram`), or a library (`-create-library`).
#[derive(Clone, Debug)]
pub struct Object {
    /// Self-contained, already preprocessed text plus the options it was compiled with; linking
    /// compiles the objects together. This is also what program binaries store.
    pub preprocessed: String,
    pub options: String,
    pub log: String,
}

/// A failed build: the rendered diagnostics, and whether the options themselves were bad
/// (`CL_INVALID_BUILD_OPTIONS` / `CL_INVALID_COMPILER_OPTIONS` / `CL_INVALID_LINKER_OPTIONS`).
#[derive(Clone, Debug)]
pub enum BuildError {
    InvalidOptions(String),
    Failed(String),
}
