//! Compute pipelines: one per specialised kernel, with a push-descriptor set layout so binding a
//! kernel's buffers costs no descriptor-set allocation.

use super::device::Gpu;
use ash::vk;
use std::path::PathBuf;
use std::sync::Arc;

/// One buffer binding a kernel declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Binding {
    pub binding: u32,
    pub uniform: bool,
}

pub struct Pipeline {
    gpu: Arc<Gpu>,
    pub raw: vk::Pipeline,
    pub layout: vk::PipelineLayout,
    set_layout: vk::DescriptorSetLayout,
    pub push_size: u32,
}

fn descriptor_type(b: &Binding) -> vk::DescriptorType {
    if b.uniform {
        vk::DescriptorType::UNIFORM_BUFFER
    } else {
        vk::DescriptorType::STORAGE_BUFFER
    }
}

/// Whether one pushed descriptor set can hold `bindings`: a kernel may take more buffer
/// arguments than the device binds (lavapipe pushes 32 descriptors).
fn bindable(gpu: &Gpu, bindings: &[Binding]) -> bool {
    let l = gpu.props.limits();
    let uniform = bindings.iter().filter(|b| b.uniform).count() as u32;
    let storage = bindings.len() as u32 - uniform;
    bindings.len() as u32 <= gpu.props.max_push_descriptors.min(l.max_per_stage_resources)
        && storage <= l.max_per_stage_descriptor_storage_buffers.min(l.max_descriptor_set_storage_buffers)
        && uniform <= l.max_per_stage_descriptor_uniform_buffers.min(l.max_descriptor_set_uniform_buffers)
}

impl Pipeline {
    /// The pipeline of a compute shader; `ERROR_TOO_MANY_OBJECTS` where the device cannot bind
    /// that many buffers.
    pub fn new(gpu: &Arc<Gpu>, spirv: &[u32], bindings: &[Binding], push_size: u32) -> Result<Pipeline, vk::Result> {
        if !bindable(gpu, bindings) {
            return Err(vk::Result::ERROR_TOO_MANY_OBJECTS);
        }
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
        let set_info = vk::DescriptorSetLayoutCreateInfo::default()
            .flags(vk::DescriptorSetLayoutCreateFlags::PUSH_DESCRIPTOR_KHR)
            .bindings(&layout_bindings);
        let ranges = [vk::PushConstantRange::default().stage_flags(vk::ShaderStageFlags::COMPUTE).size(push_size)];
        // SAFETY: valid create infos; objects are destroyed in Drop (or below on failure).
        unsafe {
            let set_layout = d.create_descriptor_set_layout(&set_info, None)?;
            let layouts = [set_layout];
            let mut layout_info = vk::PipelineLayoutCreateInfo::default().set_layouts(&layouts);
            if push_size > 0 {
                layout_info = layout_info.push_constant_ranges(&ranges);
            }
            let mut pipeline = Pipeline { gpu: gpu.clone(), raw: vk::Pipeline::null(), layout: vk::PipelineLayout::null(), set_layout, push_size };
            pipeline.layout = d.create_pipeline_layout(&layout_info, None)?;
            let module = d.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(spirv), None)?;
            let stage = vk::PipelineShaderStageCreateInfo::default().stage(vk::ShaderStageFlags::COMPUTE).module(module).name(c"main");
            let info = [vk::ComputePipelineCreateInfo::default().stage(stage).layout(pipeline.layout)];
            let cache = gpu.pipeline_cache.lock().unwrap_or_else(|e| e.into_inner());
            let created = d.create_compute_pipelines(*cache, &info, None);
            drop(cache);
            d.destroy_shader_module(module, None);
            pipeline.raw = created.map_err(|(_, e)| e)?[0];
            gpu.cache_dirty.store(true, std::sync::atomic::Ordering::Release);
            Ok(pipeline)
        }
    }
}

impl Drop for Pipeline {
    fn drop(&mut self) {
        if self.gpu.abandoned() {
            return;
        }
        // SAFETY: batches keep pipelines alive until their commands have executed.
        unsafe {
            let d = &self.gpu.device;
            d.destroy_pipeline(self.raw, None);
            d.destroy_pipeline_layout(self.layout, None);
            d.destroy_descriptor_set_layout(self.set_layout, None);
        }
    }
}

/// A buffer range bound to one binding of a dispatch.
pub struct BoundBuffer {
    pub binding: Binding,
    pub buffer: vk::Buffer,
    pub offset: u64,
    pub range: u64,
}

/// Records a dispatch: pipeline, pushed descriptors and constants, then the work-groups.
/// `groups` is a list of (group offset written at `group_offset_at` in the push constants,
/// group counts), one per `vkCmdDispatch`.
pub fn record_dispatch(batch: &super::batch::Batch, pipeline: &Pipeline, buffers: &[BoundBuffer], push: &mut [u8], group_offset_at: usize, groups: &[([u32; 3], [u32; 3])]) {
    let d = &batch.gpu().device;
    let cmd = batch.cmd();
    let infos: Vec<[vk::DescriptorBufferInfo; 1]> = buffers.iter().map(|b| [vk::DescriptorBufferInfo { buffer: b.buffer, offset: b.offset, range: b.range }]).collect();
    let writes: Vec<_> = buffers
        .iter()
        .zip(&infos)
        .map(|(b, info)| vk::WriteDescriptorSet::default().dst_binding(b.binding.binding).descriptor_type(descriptor_type(&b.binding)).buffer_info(info))
        .collect();
    // SAFETY: the batch is recording; every handle is kept alive by the batch.
    unsafe {
        d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, pipeline.raw);
        if !writes.is_empty() {
            batch.gpu().push_descriptor.cmd_push_descriptor_set(cmd, vk::PipelineBindPoint::COMPUTE, pipeline.layout, 0, &writes);
        }
        for (offset, counts) in groups {
            if pipeline.push_size > 0 {
                for (i, o) in offset.iter().enumerate() {
                    let at = group_offset_at + 4 * i;
                    push[at..at + 4].copy_from_slice(&o.to_le_bytes());
                }
                d.cmd_push_constants(cmd, pipeline.layout, vk::ShaderStageFlags::COMPUTE, 0, push);
            }
            d.cmd_dispatch(cmd, counts[0], counts[1], counts[2]);
        }
    }
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
    if super::teardown::exiting() || !gpu.cache_dirty.swap(false, std::sync::atomic::Ordering::AcqRel) {
        return;
    }
    let Some(file) = cache_file(&gpu.props.device_uuid, &gpu.props.driver_uuid) else { return };
    let cache = gpu.pipeline_cache.lock().unwrap_or_else(|e| e.into_inner());
    // SAFETY: a valid cache, used by no other thread meanwhile.
    let Ok(data) = (unsafe { gpu.device.get_pipeline_cache_data(*cache) }) else { return };
    drop(cache);
    let tmp = file.with_extension(format!("tmp{}", std::process::id()));
    let written = file.parent().is_some_and(|d| std::fs::create_dir_all(d).is_ok()) && std::fs::write(&tmp, data).is_ok();
    if !written || std::fs::rename(&tmp, &file).is_err() {
        let _ = std::fs::remove_file(tmp);
    }
}
