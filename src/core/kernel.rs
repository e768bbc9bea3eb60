//! Kernels: argument values, pipelines specialised per work-group size and `__local` sizes,
//! and the NDRange command.

use super::device::Device;
use super::memory::{Mem, GRANULE};
use super::program::{Build, ConstantBuffers, Executable, PipelineKey, Program};
use super::queue::{HostStep, Relaunch, Work};
use crate::cl::CLResult;
use crate::cl::object::{object, Header, Kind};
use crate::cl::types::*;
use crate::compiler::{self, ArgKind, DescriptorKind, ImageAccess, ImageDim, LAUNCH_BLOCK_SIZE};
use crate::vk::batch::Batch;
use crate::vk::memory::{Buffer, Placement};
use crate::vk::pipeline::{self, record_dispatch, Binding, Descriptor, Pipeline, Resource};
use crate::vk::vk;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard, Weak};

/// The value set for one argument. A kernel does not retain its memory arguments (OpenCL leaves
/// their lifetime to the application: releasing a buffer set as an argument deletes it); a
/// launch takes them with the arguments, and its command keeps them until it completes.
#[derive(Clone)]
pub enum ArgValue {
    Buffer(Option<Weak<Mem>>),
    /// An SVM pointer: a buffer object over its allocation's bytes from it on (the kernel
    /// keeps it: an SVM argument is no memory object the application releases).
    Svm(Arc<Mem>),
    Image(Weak<Mem>),
    Local(u32),
    Pod(Vec<u8>),
    /// A sampler's word (`compiler::sampler_bits`).
    Sampler(u32),
}

#[repr(C)]
pub struct Kernel {
    header: Header,
    pub program: Arc<Program>,
    pub name: String,
    /// For each device of the program (same order), if built there: its executable and the
    /// kernel's index in it.
    pub compiled: Vec<Option<(Arc<Executable>, usize)>>,
    /// For each device: the program object's buffer of `__global` variables, if it has one.
    globals: Vec<Option<Arc<Buffer>>>,
    args: Mutex<Vec<Option<ArgValue>>>,
}
object!(Kernel, Kernel, CL_INVALID_KERNEL);

/// Everything an NDRange needs, validated by the API layer.
#[derive(Clone, PartialEq)]
pub struct NdRange {
    pub work_dim: u32,
    pub offset: [usize; 3],
    pub global: [usize; 3],
    pub local: [usize; 3],
}

impl Kernel {
    pub fn new(program: Arc<Program>, name: &str) -> CLResult<Arc<Kernel>> {
        let (compiled, globals): (Vec<_>, Vec<_>) = program.with_builds(|builds| {
            let compiled = |b: &Build| {
                let exe = b.program.clone()?;
                let index = exe.program.kernels.iter().position(|k| k.name() == name)?;
                Some((exe, index))
            };
            builds.iter().map(|b| (compiled(b), b.globals.clone())).unzip()
        });
        let (exe, index) = compiled.iter().flatten().next().ok_or(CL_INVALID_KERNEL_NAME)?;
        let args = vec![None; exe.program.kernels[*index].args().len()];
        program.kernels.fetch_add(1, Ordering::AcqRel);
        let kernel = Kernel { header: Header::new(Kind::Kernel), program, name: name.into(), compiled, globals, args: Mutex::new(args) };
        kernel.prepare_pipelines();
        Ok(Arc::new(kernel))
    }

    /// Creates now the pipelines that launches will use, where they are known before the
    /// first launch: the kernel requires a work-group size and takes no `__local` pointer (whose
    /// sizes choose the pipeline). NVIDIA's OpenCL compiles in `clBuildProgram`; applications
    /// that time a kernel's first runs would otherwise time the device's compiler (clFFT's
    /// client: 1024² single precision 1104 GFLOP/s on a first run, 1597 with this). A failure is
    /// left to the launch to report.
    fn prepare_pipelines(&self) {
        for (device, built) in self.program.devices.iter().zip(&self.compiled) {
            let Some((exe, k)) = built else { continue };
            let compiled = &exe.program.kernels[*k];
            let Some(local) = compiled.attributes().reqd_work_group_size else { continue };
            if compiled.args().iter().any(|a| matches!(a.kind, ArgKind::Local { .. })) {
                continue;
            }
            let _ = pipeline(device, exe, compiled, (*k, local, Vec::new(), Vec::new(), compiler::Variant::default()));
        }
    }

    /// `clCloneKernel`: same program, a copy of the argument values.
    pub fn duplicate(&self) -> Arc<Kernel> {
        self.program.kernels.fetch_add(1, Ordering::AcqRel);
        Arc::new(Kernel {
            header: Header::new(Kind::Kernel),
            program: self.program.clone(),
            name: self.name.clone(),
            compiled: self.compiled.clone(),
            globals: self.globals.clone(),
            args: Mutex::new(self.args().clone()),
        })
    }

    /// The reflection of the kernel (identical on every device).
    pub fn info(&self) -> &Arc<dyn compiler::Kernel> {
        let (exe, index) = self.compiled.iter().flatten().next().expect("a kernel exists on some device");
        &exe.program.kernels[*index]
    }

    fn args(&self) -> MutexGuard<'_, Vec<Option<ArgValue>>> {
        self.args.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn set_arg(&self, index: usize, value: ArgValue) {
        if let Some(slot) = self.args().get_mut(index) {
            *slot = Some(value);
        }
    }

    /// The device's index in the program, its executable and the kernel's index there.
    pub fn compiled_for(&self, device: &Arc<Device>) -> CLResult<(usize, Arc<Executable>, usize)> {
        let i = self.program.devices.iter().position(|d| Arc::ptr_eq(d, device)).ok_or(CL_INVALID_PROGRAM_EXECUTABLE)?;
        let (exe, k) = self.compiled[i].clone().ok_or(CL_INVALID_PROGRAM_EXECUTABLE)?;
        Ok((i, exe, k))
    }

    /// `__local` memory the kernel uses with the current argument sizes.
    pub fn local_mem_size(&self) -> u64 {
        let args: u64 = self.args().iter().map(|a| if let Some(ArgValue::Local(n)) = a { *n as u64 } else { 0 }).sum();
        self.info().local_mem_size() + args
    }

    /// What identifies a launch over `range` with the arguments as they are now, when it may
    /// be armed (`Relaunch`): not with images, shared virtual memory, or a buffer the
    /// application has released.
    pub fn launch_key(self: &Arc<Self>, range: &NdRange) -> Option<LaunchKey> {
        if self.info().svm().is_some() || self.info().printf_binding().is_some() {
            return None;
        }
        let arg = |v: &Option<ArgValue>| match v.as_ref()? {
            ArgValue::Buffer(Some(weak)) => live_mem(weak).ok().map(|m| ArgKey::Memory(Arc::as_ptr(&m) as usize)),
            ArgValue::Buffer(None) => Some(ArgKey::Null),
            ArgValue::Local(n) | ArgValue::Sampler(n) => Some(ArgKey::Word(*n)),
            ArgValue::Pod(bytes) => Some(ArgKey::Bytes(bytes.clone())),
            ArgValue::Svm(_) | ArgValue::Image(_) => None,
        };
        let args = self.args().iter().map(arg).collect::<Option<Vec<_>>>()?;
        Some(LaunchKey { kernel: Arc::as_ptr(self) as usize, args, range: range.clone() })
    }

    /// Builds the NDRange command with the arguments as they are now; with `key` (its
    /// `launch_key`), also the launch to record again where it can be armed.
    pub fn launch(self: &Arc<Self>, device: &Arc<Device>, range: &NdRange, key: Option<LaunchKey>) -> CLResult<(Work, Option<Relaunch>)> {
        let (i, exe, k) = self.compiled_for(device)?;
        if self.local_mem_size() > device.target.local_mem_size {
            return Err(CL_OUT_OF_RESOURCES);
        }
        let values = self.args().clone();
        // The buffers and images as they are now, kept by the command until it completes:
        // later clSetKernelArg or clReleaseMemObject calls must not free them early.
        let mut keep: Vec<Arc<Mem>> = Vec::new();
        let mut bind = |m: Arc<Mem>| {
            let b = m.buf()?;
            // A sub-buffer's binding stays inside it; a buffer's may take its padding, and
            // one in shared virtual memory all the rest of its heap, as one address space
            // allows (the CTS reaches past a sub-buffer of SVM into its parent).
            let capacity = if m.parent.is_some() && !m.svm { m.base + m.size as u64 } else { b.size };
            let size = if m.svm { capacity - m.base } else { m.size as u64 };
            let bound = Bound::Buffer { raw: b.raw, capacity, offset: m.base, size };
            keep.push(m);
            Ok(bound)
        };
        let mut images: Vec<Arc<Mem>> = Vec::new();
        let mut bind_image = |weak: &Weak<Mem>, kind: &ArgKind| {
            let m = live_mem(weak)?;
            let ArgKind::Image { dim, access, .. } = kind else { return Err(CL_INVALID_KERNEL_ARGS) };
            let resource = m.image_resource(device, *dim, *access)?;
            let image = m.img()?;
            let (f, d) = (&image.format, &image.desc);
            // A 2D image made from a buffer has no depth: word 4 is its row pitch in texels.
            let depth = if image.from_buffer_2d() { d.row_pitch / f.element } else { d.depth };
            let extent = [d.width, d.height, depth, d.array_size].map(|n| u32::try_from(n).unwrap_or(u32::MAX));
            let bound = Bound::Image { resource, info: [f.order, f.data_type, extent[0], extent[1], extent[2], extent[3]] };
            images.push(m);
            Ok(bound)
        };
        let kinds = self.info().args().iter().map(|a| &a.kind);
        let args = values.iter().zip(kinds).map(|(v, kind)| match v.as_ref().ok_or(CL_INVALID_KERNEL_ARGS)? {
            ArgValue::Buffer(Some(weak)) => bind(live_mem(weak)?),
            ArgValue::Svm(m) => bind(m.clone()),
            ArgValue::Buffer(None) => Ok(Bound::Null),
            ArgValue::Image(weak) => bind_image(weak, kind),
            ArgValue::Local(n) => Ok(Bound::Local(*n)),
            ArgValue::Pod(bytes) => Ok(Bound::Pod(bytes.clone())),
            ArgValue::Sampler(bits) => Ok(Bound::Pod(bits.to_le_bytes().to_vec())),
        });
        let args = args.collect::<CLResult<Vec<_>>>()?;
        // An empty grid (OpenCL 2.1+) runs nothing; its event completes when its turn comes.
        if range.global.contains(&0) {
            return Ok((Box::new(|_| Ok(None)), None));
        }
        let mut memory = LaunchMemory { globals: self.globals.get(i).cloned().flatten(), ..LaunchMemory::default() };
        if self.info().svm().is_some() {
            memory.heaps = self.program.context.svm.lock().unwrap_or_else(|e| e.into_inner()).heaps();
            let svm_arg = |v: &Option<ArgValue>| match v {
                Some(ArgValue::Svm(m)) => m.svm_address(),
                Some(ArgValue::Buffer(Some(weak))) => weak.upgrade().map_or(0, |m| m.svm_address()),
                _ => 0,
            };
            memory.svm_args = values.iter().map(svm_arg).collect();
        }
        let (launch, printf) = plan_launch(device, &exe, k, range, args, memory)?;
        // The launch to record again holds the kernel and its buffers weakly, like the kernel's
        // arguments: the application may release them after the launch.
        let relaunch = key.filter(|_| printf.is_none() && launch.groups.len() == 1).map(|key| {
            let (launch, kernel) = (launch.clone(), Arc::downgrade(self));
            let mems: Vec<Weak<Mem>> = keep.iter().map(Arc::downgrade).collect();
            let record = move |batch: &mut Batch| {
                let kernel = kernel.upgrade().ok_or(CL_INVALID_KERNEL)?;
                let mems = mems.iter().map(live_mem).collect::<CLResult<Vec<_>>>()?;
                launch.clone().record_and_keep(batch)?;
                batch.keep((kernel, mems));
                Ok(())
            };
            Relaunch { key, record: Box::new(record) }
        });
        let held = (self.clone(), keep, images);
        let work: Work = Box::new(move |batch| {
            batch.keep(held);
            record_with_printf(batch, launch, printf)
        });
        Ok((work, relaunch))
    }
}

/// What identifies a launch: the kernel object, its argument values (memory objects by
/// identity) and the NDRange. An armed batch keeps the objects, so no other object can take an
/// address it holds.
#[derive(Clone, PartialEq)]
pub struct LaunchKey {
    kernel: usize,
    args: Vec<ArgKey>,
    range: NdRange,
}

#[derive(Clone, PartialEq)]
enum ArgKey {
    Memory(usize),
    Null,
    /// A `__local` size or a sampler's word (an argument's kind is fixed by the kernel).
    Word(u32),
    Bytes(Vec<u8>),
}

/// A buffer argument whose handle the application still holds; one it has released is no
/// valid argument any more.
fn live_mem(weak: &Weak<Mem>) -> CLResult<Arc<Mem>> {
    use crate::cl::object::Object;
    weak.upgrade().filter(|m| m.header().ref_count() > 0).ok_or(CL_INVALID_KERNEL_ARGS)
}

/// What a launch binds besides its arguments (see `compiler::Kernel`): the program object's
/// buffer of `__global` variables, if it has one, and shared virtual memory: the context's
/// heaps with their host addresses, and the host address of each argument that is SVM (0 for
/// the others).
#[derive(Default)]
pub struct LaunchMemory {
    pub globals: Option<Arc<Buffer>>,
    pub heaps: Vec<(Arc<Buffer>, usize)>,
    pub svm_args: Vec<u64>,
}

/// A kernel argument resolved for one launch. The caller keeps bound buffers and images alive
/// until the command has executed.
pub enum Bound {
    /// `size` bytes at `offset` of a Vulkan buffer of `capacity` bytes.
    Buffer { raw: vk::Buffer, capacity: u64, offset: u64, size: u64 },
    /// A NULL buffer: the kernel sees NULL, and a small buffer fills its bindings.
    Null,
    /// An image's view, and its info words (`compiler::IMAGE_INFO_WORDS`: channel order and
    /// data type, width, height, depth, array size).
    Image { resource: Resource, info: [u32; compiler::IMAGE_INFO_WORDS as usize] },
    Local(u32),
    /// Value bytes (a sampler's too: one word).
    Pod(Vec<u8>),
}

/// The descriptor of an image argument (`texels`: bound as a texel buffer).
pub fn image_descriptor(texels: bool, access: ImageAccess) -> Descriptor {
    match (texels, access) {
        (true, ImageAccess::Read) => Descriptor::UniformTexelBuffer,
        (true, ImageAccess::Write) => Descriptor::StorageTexelBuffer,
        (false, ImageAccess::Read) => Descriptor::SampledImage,
        (false, ImageAccess::Write) => Descriptor::StorageImage,
    }
}

/// Copies value bytes to `offset` of the push constants, or of the POD uniform buffer.
fn put(push: &mut [u8], pod_uniform: &mut Option<(u32, Vec<u8>)>, uniform: bool, offset: u32, bytes: &[u8]) {
    let dst = if uniform { pod_uniform.as_mut().map(|(_, v)| v.as_mut_slice()) } else { Some(push) };
    let o = offset as usize;
    if let Some(slot) = dst.and_then(|d| d.get_mut(o..o + bytes.len())) {
        slot.copy_from_slice(bytes);
    }
}

/// The dispatch of kernel `k` of `exe` over `range` with `args` and `memory`: pipeline,
/// descriptors and push constants resolved now, recorded when the command's turn comes.
pub fn plan(device: &Device, exe: &Arc<Executable>, k: usize, range: &NdRange, args: Vec<Bound>, memory: LaunchMemory) -> CLResult<Work> {
    let (launch, printf) = plan_launch(device, exe, k, range, args, memory)?;
    Ok(Box::new(move |batch| record_with_printf(batch, launch, printf)))
}

/// A dispatch resolved for recording (`plan`), once or, armed, twice.
pub struct Launch {
    pipeline: Arc<Pipeline>,
    descriptors: Vec<pipeline::Bound>,
    push: Vec<u8>,
    groups: Vec<([u32; 3], [u32; 3])>,
    /// Buffers the launch made (NULL fillers, uniform data, constants), kept while it runs.
    keep: Vec<Arc<Buffer>>,
}

impl Launch {
    fn record(&self, batch: &mut Batch) -> CLResult<()> {
        record_dispatch(batch, &self.pipeline, &self.descriptors, &self.push, GROUP_OFFSET_AT, &self.groups).map_err(|_| CL_OUT_OF_RESOURCES)
    }

    /// Records the launch and keeps what the device uses until the batch retires. The rest is
    /// freed here, on the thread that made it, unless an armed copy may still record it.
    fn record_and_keep(self: Arc<Self>, batch: &mut Batch) -> CLResult<()> {
        self.record(batch)?;
        match Arc::try_unwrap(self) {
            Ok(Launch { pipeline, keep, .. }) => batch.keep((pipeline, keep)),
            Err(shared) => batch.keep(shared),
        }
        Ok(())
    }
}

/// A launch's printf buffer, and the executable whose formats it prints.
type LaunchPrintf = (super::printf::LaunchBuffer, Arc<Executable>);

fn record_with_printf(batch: &mut Batch, launch: Arc<Launch>, printf: Option<LaunchPrintf>) -> CLResult<Option<HostStep>> {
    if let Some((p, _)) = &printf {
        p.record_reset(batch);
    }
    launch.record_and_keep(batch)?;
    Ok(printf.map(|(p, exe)| p.finish(batch, exe)))
}

fn plan_launch(device: &Device, exe: &Arc<Executable>, k: usize, range: &NdRange, args: Vec<Bound>, memory: LaunchMemory) -> CLResult<(Arc<Launch>, Option<LaunchPrintf>)> {
    let base = exe.program.kernels[k].clone();
    // 2D images made from buffers are texel buffers: a variant of the kernel binds them so.
    let from_buffer = |i: &usize| matches!(args[*i], Bound::Image { resource: Resource::Texels(_), .. }) && matches!(base.args()[*i].kind, ArgKind::Image { dim: ImageDim::D2, .. });
    let buffer_images: Vec<usize> = (0..args.len()).filter(from_buffer).collect();
    // A buffer (an SVM pointer) whose start is not aligned as bindings must be is bound from
    // the aligned byte below it: a variant of the kernel adds the difference.
    let shift = |(n, a): (usize, &Bound)| match (a, &base.args()[n].kind) {
        (Bound::Buffer { offset, .. }, ArgKind::Buffer { descriptor, .. }) => Some((n, (offset % binding_alignment(device, *descriptor)) as u32)).filter(|(_, s)| *s != 0),
        _ => None,
    };
    let shifts: Vec<(usize, u32)> = args.iter().enumerate().filter_map(shift).collect();
    let variant = compiler::Variant { buffer_images, shifts };
    let compiled = base.variant(&variant).map_err(|_| CL_OUT_OF_RESOURCES)?.unwrap_or(base);
    let local_sizes: Vec<u32> = args.iter().filter_map(|a| if let Bound::Local(n) = a { Some(*n) } else { None }).collect();
    // Only the NULL arguments the kernel compares with NULL need a pipeline of their own.
    let null_args: Vec<usize> = (0..args.len()).filter(|i| matches!(args[*i], Bound::Null) && compiled.null_tested_args().contains(i)).collect();
    let key = (k, range.local.map(|l| l as u32), local_sizes, null_args, variant);
    let pipeline = pipeline(device, exe, &compiled, key)?;
    let mut descriptors = Vec::new();
    let mut keep: Vec<Arc<Buffer>> = Vec::new();
    let mut push = vec![0u8; compiled.push_constants_size() as usize];
    let mut pod_uniform = compiled.pod_uniform().map(|(b, size)| (b, vec![0u8; size as usize]));
    write_launch_block(&mut push, range);
    for (arg, value) in compiled.args().iter().zip(args) {
        let value = match value {
            Bound::Null => {
                let filler = upload(device, &[0u8; 16])?;
                let bound = Bound::Buffer { raw: filler.raw, capacity: filler.size, offset: 0, size: 16 };
                keep.push(filler);
                bound
            }
            v => v,
        };
        match (&arg.kind, value) {
            (ArgKind::Buffer { bindings, descriptor }, Bound::Buffer { raw, capacity, offset, size }) => {
                let uniform = *descriptor == DescriptorKind::Uniform;
                let shift = offset % binding_alignment(device, *descriptor);
                let (offset, size) = (offset - shift, size + shift);
                let range = bound_range(device, capacity - offset, size, uniform)?;
                descriptors.extend(bindings.iter().map(|&b| pipeline::Bound::buffer(Binding::buffer(b, uniform), raw, offset, range)));
            }
            (ArgKind::Pod { offset, size, uniform }, Bound::Pod(bytes)) => {
                put(&mut push, &mut pod_uniform, *uniform, *offset, &bytes[..(*size as usize).min(bytes.len())]);
            }
            (ArgKind::Image { binding, access, info, uniform, texels, .. }, Bound::Image { resource, info: words }) => {
                descriptors.push(pipeline::Bound { binding: Binding { binding: *binding, descriptor: image_descriptor(*texels, *access) }, resource });
                let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
                put(&mut push, &mut pod_uniform, *uniform, *info, &bytes);
            }
            (ArgKind::Sampler { offset, uniform }, Bound::Pod(bytes)) => put(&mut push, &mut pod_uniform, *uniform, *offset, &bytes),
            (ArgKind::Local { .. }, Bound::Local(_)) => {}
            _ => return Err(CL_INVALID_KERNEL_ARGS),
        }
    }
    for (binding, uniform, buffer) in constants(device, exe, k)?.iter() {
        descriptors.push(pipeline::Bound::buffer(Binding::buffer(*binding, *uniform), buffer.raw, 0, buffer.size));
        keep.push(buffer.clone());
    }
    if let Some(svm) = compiled.svm() {
        bind_svm(device, svm, &memory, &mut descriptors, &mut keep)?;
    }
    if let Some(g) = memory.globals.filter(|_| !compiled.globals_bindings().is_empty()) {
        for &binding in compiled.globals_bindings() {
            descriptors.push(pipeline::Bound::buffer(Binding::buffer(binding, false), g.raw, 0, g.size));
        }
        keep.push(g);
    }
    if let Some((binding, bytes)) = pod_uniform {
        let ubo = upload(device, &bytes)?;
        descriptors.push(pipeline::Bound::buffer(Binding::buffer(binding, true), ubo.raw, 0, ubo.size));
        keep.push(ubo);
    }
    let printf = match compiled.printf_binding() {
        Some(binding) => {
            let p = super::printf::LaunchBuffer::new(device)?;
            let range = u64::from(compiler::printf::BUFFER_SIZE);
            descriptors.push(pipeline::Bound::buffer(Binding::buffer(binding, false), p.raw(), 0, range));
            Some((p, exe.clone()))
        }
        None => None,
    };
    let groups = split_groups(device, range);
    Ok((Arc::new(Launch { pipeline, descriptors, push, groups, keep }), printf))
}

/// Binds shared virtual memory as `svm` says: the block of heap ranges and argument
/// addresses, and each heap whole (a small buffer where the context has no such heap).
fn bind_svm(device: &Device, svm: &compiler::SvmInterface, memory: &LaunchMemory, descriptors: &mut Vec<pipeline::Bound>, keep: &mut Vec<Arc<Buffer>>) -> CLResult<()> {
    let heaps = memory.heaps.iter().map(|(b, base)| [*base as u64, *base as u64 + b.size]);
    let pairs = heaps.chain(std::iter::repeat([0, 0])).take(compiler::SVM_HEAPS).chain(memory.svm_args.iter().map(|&a| [a, 0]));
    let block: Vec<u8> = pairs.flatten().flat_map(u64::to_le_bytes).collect();
    let block = upload(device, &block)?;
    descriptors.push(pipeline::Bound::buffer(Binding::buffer(svm.block, true), block.raw, 0, block.size));
    keep.push(block);
    for (h, bindings) in svm.heaps.iter().enumerate().filter(|(_, b)| !b.is_empty()) {
        let heap = match memory.heaps.get(h) {
            Some((b, _)) => b.clone(),
            None => upload(device, &[0u8; 16])?,
        };
        descriptors.extend(bindings.iter().map(|&b| pipeline::Bound::buffer(Binding::buffer(b, false), heap.raw, 0, heap.size)));
        keep.push(heap);
    }
    Ok(())
}

/// Program-scope `__constant` data of kernel `k`, uploaded once per executable.
fn constants(device: &Device, exe: &Executable, k: usize) -> CLResult<Arc<ConstantBuffers>> {
    let mut cache = exe.constants.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(c) = cache.get(&k) {
        return Ok(c.clone());
    }
    let uploaded: Vec<_> = exe.program.kernels[k]
        .constant_data()
        .iter()
        .map(|c| Ok((c.binding, c.descriptor == DescriptorKind::Uniform, upload(device, &c.bytes)?)))
        .collect::<CLResult<_>>()?;
    let uploaded = Arc::new(uploaded);
    cache.insert(k, uploaded.clone());
    Ok(uploaded)
}

impl Kernel {
    /// The application released its last handle to the kernel.
    pub fn detach(&self) {
        self.program.kernels.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The pipeline of `compiled` (kernel `key.0` of `exe`, or its variant for the 2D images
/// made from buffers `key.4`) for one work-group size, `__local` sizes and NULL arguments,
/// made once.
fn pipeline(device: &Device, exe: &Executable, compiled: &Arc<dyn compiler::Kernel>, key: PipelineKey) -> CLResult<Arc<Pipeline>> {
    let mut pipelines = exe.pipelines.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(p) = pipelines.get(&key) {
        return Ok(p.clone());
    }
    let spirv = compiled.specialize(key.1, &key.2, &key.3).map_err(|_| CL_OUT_OF_RESOURCES)?;
    dump_spirv(compiled.name(), &key, &spirv);
    let bindings = bindings_of(compiled.as_ref());
    let pipeline = Pipeline::new(&device.gpu, &spirv, &bindings, compiled.push_constants_size()).map_err(|_| CL_OUT_OF_RESOURCES)?;
    let stats = pipeline.statistics();
    if !stats.is_empty() {
        eprintln!("ferrocl: pipeline {} {:?}: {}", compiled.name(), key.1, stats.join(", "));
    }
    let pipeline = Arc::new(pipeline);
    pipelines.insert(key, pipeline.clone());
    Ok(pipeline)
}

/// `FERROCL_DUMP_SPIRV=DIR` writes every specialised kernel there, for `spirv-dis`/`spirv-val`;
/// a hash of the code in the name keeps kernels of the same name apart.
fn dump_spirv(name: &str, (_, local, sizes, ..): &PipelineKey, spirv: &[u32]) {
    use std::hash::{Hash, Hasher};
    let Some(dir) = std::env::var_os("FERROCL_DUMP_SPIRV") else { return };
    let sizes: Vec<String> = sizes.iter().map(u32::to_string).collect();
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    spirv.hash(&mut hasher);
    let code = hasher.finish() as u32;
    let file = std::path::Path::new(&dir).join(format!("{name}-{code:08x}-{}x{}x{}-local{}.spv", local[0], local[1], local[2], sizes.join("_")));
    let bytes: Vec<u8> = spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
    if let Err(e) = std::fs::write(&file, bytes) {
        eprintln!("ferrocl: cannot write {}: {e}", file.display());
    }
}

/// Byte offset of `group_offset[3]` in the launch block.
const GROUP_OFFSET_AT: usize = 28;

/// The launch block at the start of the push constants (see `compiler::LAUNCH_BLOCK_SIZE`).
fn write_launch_block(push: &mut [u8], r: &NdRange) {
    let words = [r.offset[0], r.offset[1], r.offset[2], r.work_dim as usize, r.global[0], r.global[1], r.global[2], 0, 0, 0];
    for (i, w) in words.iter().enumerate().take(LAUNCH_BLOCK_SIZE as usize / 4) {
        if let Some(slot) = push.get_mut(4 * i..4 * i + 4) {
            slot.copy_from_slice(&(*w as u32).to_le_bytes());
        }
    }
}

/// The alignment a binding's offset must have.
fn binding_alignment(device: &Device, descriptor: DescriptorKind) -> u64 {
    let l = device.limits();
    let align = if descriptor == DescriptorKind::Uniform { l.min_uniform_buffer_offset_alignment } else { l.min_storage_buffer_offset_alignment };
    align.max(1)
}

/// Descriptor ranges are bounded by the device's limits; a larger buffer is bound up to them.
/// Binds whole words (a kernel reads a 2-byte buffer as one word). A storage buffer larger than
/// the device's descriptor range cannot be bound whole: the launch fails rather than let the
/// kernel see a truncated buffer. A `__constant` argument binds its first
/// `CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE` bytes, all a kernel may read through it.
fn bound_range(device: &Device, room: u64, size: u64, uniform: bool) -> CLResult<u64> {
    let l = device.limits();
    let range = size.next_multiple_of(GRANULE).min(room);
    if uniform {
        return Ok(range.min(l.max_uniform_buffer_range as u64));
    }
    if size > l.max_storage_buffer_range as u64 {
        return Err(CL_OUT_OF_RESOURCES);
    }
    Ok(range.min(l.max_storage_buffer_range as u64))
}

fn bindings_of(k: &dyn compiler::Kernel) -> Vec<Binding> {
    let mut out: Vec<Binding> = k
        .args()
        .iter()
        .filter_map(|a| match &a.kind {
            ArgKind::Buffer { bindings, descriptor } => Some(bindings.iter().map(|&b| Binding::buffer(b, *descriptor == DescriptorKind::Uniform)).collect::<Vec<_>>()),
            ArgKind::Image { binding, access, texels, .. } => Some(vec![Binding { binding: *binding, descriptor: image_descriptor(*texels, *access) }]),
            _ => None,
        })
        .flatten()
        .collect();
    out.extend(k.constant_data().iter().map(|c| Binding::buffer(c.binding, c.descriptor == DescriptorKind::Uniform)));
    out.extend(k.globals_bindings().iter().map(|&binding| Binding::buffer(binding, false)));
    out.extend(k.pod_uniform().map(|(b, _)| Binding::buffer(b, true)));
    out.extend(k.printf_binding().map(|binding| Binding::buffer(binding, false)));
    if let Some(svm) = k.svm() {
        out.push(Binding::buffer(svm.block, true));
        out.extend(svm.heaps.iter().flatten().map(|&binding| Binding::buffer(binding, false)));
    }
    out
}

/// A buffer holding `bytes`, for uniform data.
pub(super) fn upload(device: &Device, bytes: &[u8]) -> CLResult<Arc<Buffer>> {
    let b = Buffer::new(&device.gpu, bytes.len().max(16) as u64, Placement::Upload).map_err(|_| CL_OUT_OF_RESOURCES)?;
    let p = b.mapped().ok_or(CL_OUT_OF_RESOURCES)?;
    // SAFETY: the new buffer is mapped and at least `bytes.len()` long.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), p.as_ptr(), bytes.len()) };
    Ok(Arc::new(b))
}

/// Splits the grid into dispatches no larger than `maxComputeWorkGroupCount`.
fn split_groups(device: &Device, r: &NdRange) -> Vec<([u32; 3], [u32; 3])> {
    let max = device.limits().max_compute_work_group_count;
    let counts: [u64; 3] = std::array::from_fn(|i| (r.global[i] / r.local[i].max(1)) as u64);
    if counts.contains(&0) {
        return Vec::new();
    }
    let steps = |i: usize| (0..counts[i]).step_by(max[i] as usize).map(move |o| (o as u32, (counts[i] - o).min(max[i] as u64) as u32));
    let mut out = Vec::new();
    for (oz, cz) in steps(2) {
        for (oy, cy) in steps(1) {
            for (ox, cx) in steps(0) {
                out.push(([ox, oy, oz], [cx, cy, cz]));
            }
        }
    }
    out
}
