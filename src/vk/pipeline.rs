//! Compute pipelines: one per specialised kernel, with a push-descriptor set layout so binding a
//! kernel's buffers and images costs no descriptor-set allocation. A kernel with more bindings
//! than one pushed set holds (32 on NVIDIA and lavapipe; OpenCL asks for 128 read images) gets
//! a plain set layout, and each dispatch a descriptor set from a pool of its own. One with more
//! than the device's plain limits (lavapipe: 128 resources, so not 128 images and a buffer) gets
//! a layout for update-after-bind pools, whose limits are higher; nothing is updated after
//! binding, the flag only selects those limits.

use super::device::{BindLimits, Gpu};
use ash::vk;
use std::path::PathBuf;
use std::sync::Arc;

/// What one binding of a kernel holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Descriptor {
    StorageBuffer,
    UniformBuffer,
    /// A `read_only` image.
    SampledImage,
    /// A `write_only` image.
    StorageImage,
    /// A `read_only` `image1d_buffer_t`.
    UniformTexelBuffer,
    /// A `write_only` `image1d_buffer_t`.
    StorageTexelBuffer,
}

/// One binding a kernel declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Binding {
    pub binding: u32,
    pub descriptor: Descriptor,
}

impl Binding {
    /// A storage or uniform buffer binding.
    pub fn buffer(binding: u32, uniform: bool) -> Binding {
        Binding { binding, descriptor: if uniform { Descriptor::UniformBuffer } else { Descriptor::StorageBuffer } }
    }
}

pub struct Pipeline {
    gpu: Arc<Gpu>,
    pub raw: vk::Pipeline,
    pub layout: vk::PipelineLayout,
    set_layout: vk::DescriptorSetLayout,
    pub push_size: u32,
    /// How each dispatch's set is allocated, when there are too many bindings to push (see
    /// the module comment).
    pooled: Option<Pooled>,
}

/// The pool of one set of a layout that is not pushed.
struct Pooled {
    sizes: Vec<vk::DescriptorPoolSize>,
    flags: vk::DescriptorPoolCreateFlags,
}

fn descriptor_type(b: &Binding) -> vk::DescriptorType {
    match b.descriptor {
        Descriptor::StorageBuffer => vk::DescriptorType::STORAGE_BUFFER,
        Descriptor::UniformBuffer => vk::DescriptorType::UNIFORM_BUFFER,
        Descriptor::SampledImage => vk::DescriptorType::SAMPLED_IMAGE,
        Descriptor::StorageImage => vk::DescriptorType::STORAGE_IMAGE,
        Descriptor::UniformTexelBuffer => vk::DescriptorType::UNIFORM_TEXEL_BUFFER,
        Descriptor::StorageTexelBuffer => vk::DescriptorType::STORAGE_TEXEL_BUFFER,
    }
}

/// Whether one descriptor set within `limits` can hold `bindings`: a kernel may take more buffer
/// or image arguments than the device binds. Vulkan counts uniform texel buffers among sampled
/// images and storage texel buffers among storage images.
fn fits(limits: &BindLimits, bindings: &[Binding]) -> bool {
    use Descriptor as D;
    let count = |kinds: &[Descriptor]| bindings.iter().filter(|b| kinds.contains(&b.descriptor)).count() as u32;
    bindings.len() as u32 <= limits.resources
        && count(&[D::StorageBuffer]) <= limits.storage_buffers
        && count(&[D::UniformBuffer]) <= limits.uniform_buffers
        && count(&[D::SampledImage, D::UniformTexelBuffer]) <= limits.sampled_images
        && count(&[D::StorageImage, D::StorageTexelBuffer]) <= limits.storage_images
}

/// The set layout's flags for `bindings`, and how a dispatch's set is pooled where it is not
/// pushed; `ERROR_TOO_MANY_OBJECTS` where no layout binds them.
fn layout_kind(gpu: &Gpu, bindings: &[Binding]) -> Result<(vk::DescriptorSetLayoutCreateFlags, Option<Pooled>), vk::Result> {
    use vk::{DescriptorPoolCreateFlags as Pool, DescriptorSetLayoutCreateFlags as Layout};
    let pooled = |flags| Some(Pooled { sizes: pool_sizes(bindings), flags });
    if fits(&gpu.props.bind_limits, bindings) {
        if bindings.len() as u32 <= gpu.props.max_push_descriptors {
            return Ok((Layout::PUSH_DESCRIPTOR_KHR, None));
        }
        return Ok((Layout::empty(), pooled(Pool::empty())));
    }
    if fits(&gpu.props.after_bind_limits, bindings) {
        return Ok((Layout::UPDATE_AFTER_BIND_POOL, pooled(Pool::UPDATE_AFTER_BIND)));
    }
    Err(vk::Result::ERROR_TOO_MANY_OBJECTS)
}

impl Pipeline {
    /// The pipeline of a compute shader; `ERROR_TOO_MANY_OBJECTS` where the device cannot bind
    /// that many buffers or images.
    pub fn new(gpu: &Arc<Gpu>, spirv: &[u32], bindings: &[Binding], push_size: u32) -> Result<Pipeline, vk::Result> {
        let (flags, pooled) = layout_kind(gpu, bindings)?;
        let d = &gpu.device;
        let layout_bindings: Vec<_> = bindings
            .iter()
            .map(|b| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(b.binding)
                    .descriptor_type(descriptor_type(b))
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE)
            })
            .collect();
        let set_info = vk::DescriptorSetLayoutCreateInfo::default().flags(flags).bindings(&layout_bindings);
        let ranges = [vk::PushConstantRange::default().stage_flags(vk::ShaderStageFlags::COMPUTE).size(push_size)];
        // SAFETY: valid create infos; objects are destroyed in Drop (or below on failure).
        unsafe {
            let set_layout = d.create_descriptor_set_layout(&set_info, None)?;
            let layouts = [set_layout];
            let mut layout_info = vk::PipelineLayoutCreateInfo::default().set_layouts(&layouts);
            if push_size > 0 {
                layout_info = layout_info.push_constant_ranges(&ranges);
            }
            let mut pipeline = Pipeline { gpu: gpu.clone(), raw: vk::Pipeline::null(), layout: vk::PipelineLayout::null(), set_layout, push_size, pooled };
            pipeline.layout = d.create_pipeline_layout(&layout_info, None)?;
            let module = d.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(spirv), None)?;
            let stage = vk::PipelineShaderStageCreateInfo::default().stage(vk::ShaderStageFlags::COMPUTE).module(module).name(c"main");
            let flags = if gpu.pipeline_stats.is_some() { vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR } else { vk::PipelineCreateFlags::empty() };
            let info = [vk::ComputePipelineCreateInfo::default().flags(flags).stage(stage).layout(pipeline.layout)];
            // The queue's lock first, as submissions take it (see `Gpu::create_apart_from_submit`).
            let queue = gpu.create_apart_from_submit.then(|| gpu.queue.lock().unwrap_or_else(|e| e.into_inner()));
            let cache = gpu.pipeline_cache.lock().unwrap_or_else(|e| e.into_inner());
            let created = d.create_compute_pipelines(*cache, &info, None);
            drop((cache, queue));
            d.destroy_shader_module(module, None);
            pipeline.raw = created.map_err(|(_, e)| e)?[0];
            gpu.cache_dirty.store(true, std::sync::atomic::Ordering::Release);
            Ok(pipeline)
        }
    }

    /// The driver's statistics of the pipeline's code as `name value` pairs (NVIDIA: register
    /// count, local memory, ...), where `FERROCL_PIPELINE_STATS` asked for them; else empty.
    pub fn statistics(&self) -> Vec<String> {
        let Some(stats) = &self.gpu.pipeline_stats else { return Vec::new() };
        let info = vk::PipelineInfoKHR::default().pipeline(self.raw);
        // SAFETY: the pipeline was created with CAPTURE_STATISTICS.
        let count = unsafe { stats.get_pipeline_executable_properties(&info) }.map_or(0, |e| e.len() as u32);
        let mut out = Vec::new();
        for index in 0..count {
            let executable = vk::PipelineExecutableInfoKHR::default().pipeline(self.raw).executable_index(index);
            // SAFETY: as above; `index` is below the executable count.
            let values = unsafe { stats.get_pipeline_executable_statistics(&executable) }.unwrap_or_default();
            out.extend(values.iter().map(|v| format!("{} {}", v.name_as_c_str().map_or("?".into(), |n| n.to_string_lossy()), statistic(v))));
        }
        out
    }
}

/// One statistic's value as text.
fn statistic(v: &vk::PipelineExecutableStatisticKHR) -> String {
    // SAFETY: `format` says which member of the union the driver wrote.
    unsafe {
        match v.format {
            vk::PipelineExecutableStatisticFormatKHR::BOOL32 => (v.value.b32 != 0).to_string(),
            vk::PipelineExecutableStatisticFormatKHR::INT64 => v.value.i64.to_string(),
            vk::PipelineExecutableStatisticFormatKHR::UINT64 => v.value.u64.to_string(),
            _ => v.value.f64.to_string(),
        }
    }
}

impl Drop for Pipeline {
    fn drop(&mut self) {
        let d = &self.gpu.device;
        // SAFETY: batches keep pipelines alive until their commands have executed.
        self.gpu.unless_abandoned(|| unsafe {
            d.destroy_pipeline(self.raw, None);
            d.destroy_pipeline_layout(self.layout, None);
            d.destroy_descriptor_set_layout(self.set_layout, None);
        });
    }
}

/// What a dispatch binds at one binding.
pub enum Resource {
    /// A buffer range.
    Buffer { buffer: vk::Buffer, offset: u64, range: u64 },
    /// An image view (in the `GENERAL` layout).
    Image(vk::ImageView),
    /// A texel-buffer view.
    Texels(vk::BufferView),
}

/// A resource bound to one binding of a dispatch.
pub struct Bound {
    pub binding: Binding,
    pub resource: Resource,
}

impl Bound {
    pub fn buffer(binding: Binding, buffer: vk::Buffer, offset: u64, range: u64) -> Bound {
        Bound { binding, resource: Resource::Buffer { buffer, offset, range } }
    }
}

/// The infos of `bound`'s descriptors, one array per kind in the order of `bound` (a kernel of
/// buffers only allocates no image or texel entries).
type Infos = (Vec<[vk::DescriptorBufferInfo; 1]>, Vec<[vk::DescriptorImageInfo; 1]>, Vec<[vk::BufferView; 1]>);

fn infos(bound: &[Bound]) -> Infos {
    let mut infos: Infos = Default::default();
    for b in bound {
        match b.resource {
            Resource::Buffer { buffer, offset, range } => infos.0.push([vk::DescriptorBufferInfo { buffer, offset, range }]),
            Resource::Image(view) => infos.1.push([vk::DescriptorImageInfo { sampler: vk::Sampler::null(), image_view: view, image_layout: vk::ImageLayout::GENERAL }]),
            Resource::Texels(view) => infos.2.push([view]),
        }
    }
    infos
}

fn writes<'a>(bound: &[Bound], (buffers, images, texels): &'a Infos) -> Vec<vk::WriteDescriptorSet<'a>> {
    let (mut buffers, mut images, mut texels) = (buffers.iter(), images.iter(), texels.iter());
    let write = |b: &Bound| {
        let w = vk::WriteDescriptorSet::default().dst_binding(b.binding.binding).descriptor_type(descriptor_type(&b.binding));
        match b.resource {
            Resource::Buffer { .. } => buffers.next().map(|i| w.buffer_info(i)),
            Resource::Image(_) => images.next().map(|i| w.image_info(i)),
            Resource::Texels(_) => texels.next().map(|i| w.texel_buffer_view(i)),
        }
    };
    bound.iter().filter_map(write).collect()
}

/// A descriptor pool holding one set of a pipeline's bindings, kept by the batch that uses it.
struct Pool {
    gpu: Arc<Gpu>,
    raw: vk::DescriptorPool,
}

impl Drop for Pool {
    fn drop(&mut self) {
        // SAFETY: the batch that used the set has retired (batches drop what they keep then).
        self.gpu.unless_abandoned(|| unsafe { self.gpu.device.destroy_descriptor_pool(self.raw, None) });
    }
}

/// The descriptors of each type one set of `bindings` holds.
fn pool_sizes(bindings: &[Binding]) -> Vec<vk::DescriptorPoolSize> {
    let mut sizes: Vec<vk::DescriptorPoolSize> = Vec::new();
    for b in bindings {
        let ty = descriptor_type(b);
        match sizes.iter_mut().find(|s| s.ty == ty) {
            Some(s) => s.descriptor_count += 1,
            None => sizes.push(vk::DescriptorPoolSize { ty, descriptor_count: 1 }),
        }
    }
    sizes
}

/// A descriptor set of `pipeline`'s pooled layout, written with `writes`.
fn pooled_set(gpu: &Arc<Gpu>, pipeline: &Pipeline, pooled: &Pooled, writes: &mut [vk::WriteDescriptorSet]) -> Result<(Pool, vk::DescriptorSet), vk::Result> {
    let d = &gpu.device;
    // SAFETY: valid create and allocate infos; the pool outlives the set's use (kept by the batch).
    unsafe {
        let pool = Pool { gpu: gpu.clone(), raw: d.create_descriptor_pool(&vk::DescriptorPoolCreateInfo::default().flags(pooled.flags).max_sets(1).pool_sizes(&pooled.sizes), None)? };
        let layouts = [pipeline.set_layout];
        let set = d.allocate_descriptor_sets(&vk::DescriptorSetAllocateInfo::default().descriptor_pool(pool.raw).set_layouts(&layouts))?[0];
        for w in writes.iter_mut() {
            w.dst_set = set;
        }
        d.update_descriptor_sets(writes, &[]);
        Ok((pool, set))
    }
}

/// Records a dispatch: pipeline, descriptors (pushed, or a pooled set) and constants, then the
/// work-groups. `groups` is a list of (group offset written at `group_offset_at` in the push
/// constants, group counts), one per `vkCmdDispatch`.
pub fn record_dispatch(batch: &mut super::batch::Batch, pipeline: &Pipeline, bound: &[Bound], push: &[u8], group_offset_at: usize, groups: &[([u32; 3], [u32; 3])]) -> Result<(), vk::Result> {
    let gpu = batch.gpu().clone();
    let (d, cmd) = (&gpu.device, batch.cmd());
    let infos = infos(bound);
    let mut writes = writes(bound, &infos);
    // SAFETY: the batch is recording; every handle is kept alive by the batch.
    unsafe {
        d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, pipeline.raw);
        if let Some(pooled) = &pipeline.pooled {
            let (pool, set) = pooled_set(&gpu, pipeline, pooled, &mut writes)?;
            d.cmd_bind_descriptor_sets(cmd, vk::PipelineBindPoint::COMPUTE, pipeline.layout, 0, &[set], &[]);
            batch.keep(pool);
        } else if !writes.is_empty() {
            gpu.push_descriptor.cmd_push_descriptor_set(cmd, vk::PipelineBindPoint::COMPUTE, pipeline.layout, 0, &writes);
        }
    }
    // The launch's push constants hold the first dispatch's group offset, zero; the others
    // write theirs into a copy.
    let mut offset_push = Vec::new();
    for (offset, counts) in groups {
        if pipeline.push_size > 0 {
            let bytes = if *offset == [0; 3] {
                push
            } else {
                offset_push.clear();
                offset_push.extend_from_slice(push);
                for (i, o) in offset.iter().enumerate() {
                    let at = group_offset_at + 4 * i;
                    offset_push[at..at + 4].copy_from_slice(&o.to_le_bytes());
                }
                &offset_push
            };
            // SAFETY: as above.
            unsafe { d.cmd_push_constants(cmd, pipeline.layout, vk::ShaderStageFlags::COMPUTE, 0, bytes) };
        }
        batch.dispatch(*counts)?;
    }
    Ok(())
}

/// Where a device's Vulkan pipeline cache lives on disk: `FERROCL_CACHE_DIR`, else the user's
/// cache folder; the name is keyed by device and driver UUIDs (drivers check the header too).
fn cache_file(gpu_uuid: &[u8; 16], driver_uuid: &[u8; 16]) -> Option<PathBuf> {
    let dir = std::env::var_os("FERROCL_CACHE_DIR").map(PathBuf::from).or_else(|| {
        let base = std::env::var_os("XDG_CACHE_HOME").map(PathBuf::from).or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
        Some(base.join("ferrocl"))
    })?;
    let hex = |b: &[u8; 16]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    Some(dir.join(format!("pipelines-{}-{}.bin", hex(gpu_uuid), hex(driver_uuid))))
}

/// Creates the device's pipeline cache, seeded from disk when a previous run saved one.
pub fn load_cache(device: &ash::Device, gpu_uuid: &[u8; 16], driver_uuid: &[u8; 16]) -> vk::PipelineCache {
    let data = cache_file(gpu_uuid, driver_uuid).and_then(|f| std::fs::read(f).ok()).unwrap_or_default();
    let info = vk::PipelineCacheCreateInfo::default().initial_data(&data);
    // SAFETY: drivers validate the initial data's header and ignore data that does not match.
    unsafe { device.create_pipeline_cache(&info, None) }.unwrap_or_default()
}

/// Writes the pipeline cache to disk if pipelines were made since the last save (through a
/// temporary file, so readers never see half of it).
pub fn save_cache(gpu: &Gpu) {
    let Some(file) = cache_file(&gpu.props.device_uuid, &gpu.props.driver_uuid) else { return };
    let Some(data) = cache_data(gpu) else { return };
    let tmp = file.with_extension(format!("tmp{}", std::process::id()));
    let written = file.parent().is_some_and(|d| std::fs::create_dir_all(d).is_ok()) && std::fs::write(&tmp, data).is_ok();
    if !written || std::fs::rename(&tmp, &file).is_err() {
        let _ = std::fs::remove_file(tmp);
    }
}

/// The pipeline cache's contents, if pipelines were made since they were last taken (not once
/// the process is exiting: see `teardown`).
fn cache_data(gpu: &Gpu) -> Option<Vec<u8>> {
    let _held = super::teardown::hold_exit()?;
    if !gpu.cache_dirty.swap(false, std::sync::atomic::Ordering::AcqRel) {
        return None;
    }
    let cache = gpu.pipeline_cache.lock().unwrap_or_else(|e| e.into_inner());
    // SAFETY: a valid cache, used by no other thread meanwhile.
    unsafe { gpu.device.get_pipeline_cache_data(*cache) }.ok()
}
