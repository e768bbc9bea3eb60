//! A Vulkan physical device opened for compute: its properties, the features ferrocl enables,
//! one queue, the memory allocator and the timeline semaphore that tracks completion.

use super::instance::Instance;
use ash::vk;
use gpu_allocator::vulkan::{Allocator, AllocatorCreateDesc};
use std::ffi::CStr;
use super::batch::Recycled;
use super::completion::Tracker;
use super::clock::{calibrateable, Clock};
use super::progress::Progress;
use super::transfer::{transfer_family, CopyEngine};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;
use std::sync::{Arc, Mutex, OnceLock};

/// The optional device features ferrocl uses, as found on the device (and then enabled).
#[derive(Clone, Copy, Debug, Default)]
pub struct Features {
    pub int64: bool,
    pub int16: bool,
    pub int8: bool,
    pub fp64: bool,
    pub storage_8bit: bool,
    pub storage_16bit: bool,
    pub int64_atomics: bool,
    pub buffer_device_address: bool,
    /// Query pools can be reset from the host (no reset command in each batch).
    pub host_query_reset: bool,
    /// Out-of-bounds buffer accesses stay inside the buffer (a faulty kernel cannot reach
    /// other memory).
    pub robust_buffer_access: bool,
    /// Subgroup operations on 8/16/64-bit integers and 16-bit floats.
    pub subgroup_extended_types: bool,
    /// Kernels write storage images and texel buffers declared without a format
    /// (`shaderStorageImageWriteWithoutFormat`): how `write_only` images are bound.
    pub image_write_without_format: bool,
}

/// How many descriptors one compute stage may bind, by kind (the per-stage and per-set limits
/// together).
#[derive(Clone, Copy, Debug, Default)]
pub struct BindLimits {
    pub resources: u32,
    pub storage_buffers: u32,
    pub uniform_buffers: u32,
    /// Sampled images and uniform texel buffers.
    pub sampled_images: u32,
    /// Storage images and storage texel buffers.
    pub storage_images: u32,
}

/// What a set of a plain (or pushed) layout may bind.
fn plain_limits(l: &vk::PhysicalDeviceLimits) -> BindLimits {
    BindLimits {
        resources: l.max_per_stage_resources,
        storage_buffers: l.max_per_stage_descriptor_storage_buffers.min(l.max_descriptor_set_storage_buffers),
        uniform_buffers: l.max_per_stage_descriptor_uniform_buffers.min(l.max_descriptor_set_uniform_buffers),
        sampled_images: l.max_per_stage_descriptor_sampled_images.min(l.max_descriptor_set_sampled_images),
        storage_images: l.max_per_stage_descriptor_storage_images.min(l.max_descriptor_set_storage_images),
    }
}

/// What a set of a layout for update-after-bind pools may bind, taking from Vulkan 1.2's
/// descriptor-indexing limits only the images OpenCL asks for beyond the plain limits (128
/// read, 64 write): lavapipe reports 65536 of every kind there, but its shaders address 32
/// storage buffers, 128 sampled and 64 storage images (a kernel with 40 buffers crashed it).
fn after_bind_limits(plain: BindLimits, v12: &vk::PhysicalDeviceVulkan12Properties) -> BindLimits {
    BindLimits {
        resources: v12.max_per_stage_update_after_bind_resources,
        sampled_images: v12.max_per_stage_descriptor_update_after_bind_sampled_images.min(v12.max_descriptor_set_update_after_bind_sampled_images).min(128),
        storage_images: v12.max_per_stage_descriptor_update_after_bind_storage_images.min(v12.max_descriptor_set_update_after_bind_storage_images).min(64),
        ..plain
    }
}

/// Properties read once from the physical device.
pub struct Properties {
    pub base: vk::PhysicalDeviceProperties,
    pub subgroup_size: u32,
    /// Compute shaders have the subgroup operations OpenCL's sub-groups and work-group
    /// collectives are made of (basic, vote, arithmetic, ballot, shuffle).
    pub subgroup_ops: bool,
    pub device_uuid: [u8; 16],
    pub driver_uuid: [u8; 16],
    pub driver_name: String,
    pub driver_id: vk::DriverId,
    /// Shaders may ask that signed zeros, infinities and NaNs be kept (SPIR-V
    /// `SignedZeroInfNanPreserve`) for 32- and 64-bit floats.
    pub signed_zero_preserve: bool,
    pub driver_info: String,
    pub max_memory_allocation_size: u64,
    pub max_buffer_size: u64,
    pub memory: vk::PhysicalDeviceMemoryProperties,
    pub timestamp_valid_bits: u32,
    pub pci_bus: Option<vk::PhysicalDevicePCIBusInfoPropertiesEXT<'static>>,
    /// Streaming multiprocessors, where the driver tells (VK_NV_shader_sm_builtins).
    pub sm_count: Option<u32>,
    /// `minImportedHostPointerAlignment` (VK_EXT_external_memory_host), 0 where unknown.
    pub import_alignment: u64,
    /// Descriptors one pushed set may hold (VK_KHR_push_descriptor).
    pub max_push_descriptors: u32,
    /// What a set of a plain (or pushed) layout may bind.
    pub bind_limits: BindLimits,
    /// What a set of a layout made for update-after-bind pools may bind (see
    /// `after_bind_limits`): more resources in all than the plain limits on some devices
    /// (lavapipe binds 128 plainly, so not 128 read images and a buffer).
    pub after_bind_limits: BindLimits,
}

impl Properties {
    pub fn limits(&self) -> &vk::PhysicalDeviceLimits {
        &self.base.limits
    }

    pub fn name(&self) -> String {
        self.base.device_name_as_c_str().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
    }

    /// Size of the largest device-local heap: the device's global memory.
    pub fn device_local_heap(&self) -> u64 {
        self.heaps().filter(|h| h.flags.contains(vk::MemoryHeapFlags::DEVICE_LOCAL)).map(|h| h.size).max().unwrap_or(0)
    }

    fn heaps(&self) -> impl Iterator<Item = &vk::MemoryHeap> {
        self.memory.memory_heaps[..self.memory.memory_heap_count as usize].iter()
    }

    /// True where device-local memory can be mapped for its whole size (resizable BAR, unified
    /// memory, lavapipe): buffers then live there, persistently mapped.
    pub fn mappable_vram(&self) -> bool {
        let wanted = vk::MemoryPropertyFlags::DEVICE_LOCAL | vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        let types = &self.memory.memory_types[..self.memory.memory_type_count as usize];
        types.iter().any(|t| {
            t.property_flags.contains(wanted) && self.memory.memory_heaps[t.heap_index as usize].size * 2 >= self.device_local_heap()
        })
    }
}

pub struct Gpu {
    /// The instance's functions, for physical-device queries after opening (image formats).
    pub instance: ash::Instance,
    pub physical: vk::PhysicalDevice,
    pub props: Properties,
    pub features: Features,
    pub device: ash::Device,
    pub push_descriptor: ash::khr::push_descriptor::Device,
    /// Pipeline statistics, asked for by `FERROCL_PIPELINE_STATS` where the device reports them
    /// (VK_KHR_pipeline_executable_properties: NVIDIA's registers, spills, ...).
    pub pipeline_stats: Option<ash::khr::pipeline_executable_properties::Device>,
    pub queue_family: u32,
    pub queue: Mutex<vk::Queue>,
    /// The copy engines, where the device has a transfer-only queue family.
    pub copy_engine: Option<CopyEngine>,
    pub allocator: Mutex<Allocator>,
    pub timeline: vk::Semaphore,
    /// Locked around every pipeline creation, not only cache use: when several threads created
    /// pipelines at once, NVIDIA's driver (580) built some that hung the GPU (the test corpus
    /// hung on an H200 in 6 runs of 6 with cold caches, in none of 6 with creation serialised).
    pub pipeline_cache: Mutex<vk::PipelineCache>,
    /// Pipelines are created under the queue's lock, never while another thread submits:
    /// NVIDIA's driver (580) otherwise sometimes ran another pipeline's code in a dispatch of
    /// the submission (docs/design.md, "Another pipeline's code in a dispatch").
    pub create_apart_from_submit: bool,
    /// Pipelines were created since the cache was last written to disk.
    pub cache_dirty: AtomicBool,
    /// Where each batch writes its timeline value once executed.
    pub progress: Progress,
    /// The last timeline value submitted; the last one submitted with a signal of the timeline
    /// semaphore (not every batch signals, see `completion::RETIRE_EVERY`); the last one the
    /// semaphore was seen to reach, through which batches are retired.
    pub submitted: AtomicU64,
    pub signalled: AtomicU64,
    pub completed: AtomicU64,
    pub tracker: Tracker,
    /// The batch armed for a queue's next launch (`armed`); locked under `queue`, and a leaf
    /// lock: nothing else is locked while it is held.
    pub armed: Mutex<Option<super::armed::Armed>>,
    /// Reading query results waits for the device to go idle (lavapipe's driver does), which
    /// an armed batch never is: it is cancelled first.
    pub queries_wait_idle: bool,
    pub recycled: Mutex<Recycled>,
    pub staging: super::memory::StagingPool,
    clock: OnceLock<Clock>,
    /// The device is lost ([`Gpu::lose`]).
    lost: AtomicBool,
    /// The longest a submission may run before the device is given up as lost.
    pub timeout: Option<Duration>,
}

/// Picks the queue family for compute: a compute family without graphics if there is one (a
/// dedicated compute engine), else any with compute.
fn compute_family(instance: &ash::Instance, physical: vk::PhysicalDevice) -> Option<u32> {
    // SAFETY: plain query.
    let families = unsafe { instance.get_physical_device_queue_family_properties(physical) };
    let compute = |f: &vk::QueueFamilyProperties| f.queue_flags.contains(vk::QueueFlags::COMPUTE) && f.timestamp_valid_bits > 0;
    let dedicated = families.iter().position(|f| compute(f) && !f.queue_flags.contains(vk::QueueFlags::GRAPHICS));
    dedicated.or_else(|| families.iter().position(compute)).map(|i| i as u32)
}

fn has_extension(instance: &ash::Instance, physical: vk::PhysicalDevice, name: &CStr) -> bool {
    // SAFETY: plain query.
    let exts = unsafe { instance.enumerate_device_extension_properties(physical) }.unwrap_or_default();
    exts.iter().any(|e| e.extension_name_as_c_str() == Ok(name))
}

/// The subgroup operations OpenCL's sub-group functions need.
const SUBGROUP_OPS: vk::SubgroupFeatureFlags = vk::SubgroupFeatureFlags::from_raw(
    vk::SubgroupFeatureFlags::BASIC.as_raw()
        | vk::SubgroupFeatureFlags::VOTE.as_raw()
        | vk::SubgroupFeatureFlags::ARITHMETIC.as_raw()
        | vk::SubgroupFeatureFlags::BALLOT.as_raw()
        | vk::SubgroupFeatureFlags::SHUFFLE.as_raw(),
);

fn read_properties(instance: &ash::Instance, physical: vk::PhysicalDevice, family: u32, [pci, sm, import]: [bool; 3]) -> Properties {
    let mut v11 = vk::PhysicalDeviceVulkan11Properties::default();
    let mut v12 = vk::PhysicalDeviceVulkan12Properties::default();
    let mut v13 = vk::PhysicalDeviceVulkan13Properties::default();
    let mut pci_bus = vk::PhysicalDevicePCIBusInfoPropertiesEXT::default();
    let mut push = vk::PhysicalDevicePushDescriptorPropertiesKHR::default();
    let mut props2 = vk::PhysicalDeviceProperties2::default().push_next(&mut v11).push_next(&mut v12).push_next(&mut v13).push_next(&mut push);
    let mut sm_builtins = vk::PhysicalDeviceShaderSMBuiltinsPropertiesNV::default();
    let mut host_import = vk::PhysicalDeviceExternalMemoryHostPropertiesEXT::default();
    if pci {
        props2 = props2.push_next(&mut pci_bus);
    }
    if sm {
        props2 = props2.push_next(&mut sm_builtins);
    }
    if import {
        props2 = props2.push_next(&mut host_import);
    }
    // SAFETY: the chain lives on this stack frame.
    unsafe { instance.get_physical_device_properties2(physical, &mut props2) };
    let base = props2.properties;
    // SAFETY: plain queries.
    let memory = unsafe { instance.get_physical_device_memory_properties(physical) };
    let families = unsafe { instance.get_physical_device_queue_family_properties(physical) };
    let text = |s: Result<&CStr, _>| s.map(|s: &CStr| s.to_string_lossy().into_owned()).unwrap_or_default();
    let plain = plain_limits(&base.limits);
    Properties {
        base,
        subgroup_size: v11.subgroup_size.max(1),
        subgroup_ops: v11.subgroup_supported_stages.contains(vk::ShaderStageFlags::COMPUTE) && v11.subgroup_supported_operations.contains(SUBGROUP_OPS),
        device_uuid: v11.device_uuid,
        driver_uuid: v11.driver_uuid,
        driver_name: text(v12.driver_name_as_c_str()),
        driver_id: v12.driver_id,
        signed_zero_preserve: v12.shader_signed_zero_inf_nan_preserve_float32 != 0 && v12.shader_signed_zero_inf_nan_preserve_float64 != 0,
        driver_info: text(v12.driver_info_as_c_str()),
        max_memory_allocation_size: v11.max_memory_allocation_size,
        max_buffer_size: v13.max_buffer_size,
        memory,
        timestamp_valid_bits: families[family as usize].timestamp_valid_bits,
        pci_bus: pci.then(|| vk::PhysicalDevicePCIBusInfoPropertiesEXT {
            pci_domain: pci_bus.pci_domain,
            pci_bus: pci_bus.pci_bus,
            pci_device: pci_bus.pci_device,
            pci_function: pci_bus.pci_function,
            ..Default::default()
        }),
        sm_count: sm.then_some(sm_builtins.shader_sm_count),
        import_alignment: host_import.min_imported_host_pointer_alignment,
        max_push_descriptors: push.max_push_descriptors,
        bind_limits: plain,
        after_bind_limits: after_bind_limits(plain, &v12),
    }
}

impl Gpu {
    /// Opens `physical` for compute, or says why it cannot serve as an OpenCL device.
    pub fn open(instance: &Instance, physical: vk::PhysicalDevice) -> Result<Arc<Gpu>, String> {
        let inst = &instance.raw;
        // SAFETY: plain query.
        let api = unsafe { inst.get_physical_device_properties(physical) }.api_version;
        if api < vk::API_VERSION_1_3 {
            return Err("Vulkan 1.3 is required".into());
        }
        let family = compute_family(inst, physical).ok_or("no compute queue with timestamps")?;
        if !has_extension(inst, physical, ash::khr::push_descriptor::NAME) {
            return Err("VK_KHR_push_descriptor is required".into());
        }
        let pci = has_extension(inst, physical, ash::ext::pci_bus_info::NAME);
        let host_import = has_extension(inst, physical, ash::ext::external_memory_host::NAME);
        let calibrated = has_extension(inst, physical, ash::ext::calibrated_timestamps::NAME) && calibrateable(instance, physical);
        // SAFETY: plain query.
        let copy_family = transfer_family(&unsafe { inst.get_physical_device_queue_family_properties(physical) });
        let sm = has_extension(inst, physical, ash::nv::shader_sm_builtins::NAME);
        let props = read_properties(inst, physical, family, [pci, sm, host_import]);

        let mut f11 = vk::PhysicalDeviceVulkan11Features::default();
        let mut f12 = vk::PhysicalDeviceVulkan12Features::default();
        let mut f13 = vk::PhysicalDeviceVulkan13Features::default();
        let mut r2 = vk::PhysicalDeviceRobustness2FeaturesEXT::default();
        let has_robustness2 = has_extension(inst, physical, ash::ext::robustness2::NAME);
        let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut f11).push_next(&mut f12).push_next(&mut f13);
        if has_robustness2 {
            f2 = f2.push_next(&mut r2);
        }
        // SAFETY: the chain lives on this stack frame.
        unsafe { inst.get_physical_device_features2(physical, &mut f2) };
        let core = f2.features;
        let robustness2 = core.robust_buffer_access != 0 && r2.robust_buffer_access2 != 0;
        if f12.timeline_semaphore == 0 || f13.synchronization2 == 0 {
            return Err("timeline semaphores and synchronization2 are required".into());
        }
        let features = Features {
            int64: core.shader_int64 != 0,
            int16: core.shader_int16 != 0,
            int8: f12.shader_int8 != 0,
            fp64: core.shader_float64 != 0,
            storage_8bit: f12.storage_buffer8_bit_access != 0,
            // NVIDIA's compiler (driver 580) mistranslates some 16-bit buffer accesses: a
            // `ushort` read through a NonWritable view, `ushort2` stores (piglit `bswap`, wrong
            // elements on the H200). Without the feature, 16-bit data goes through 32-bit words,
            // as 8-bit data does, and every variant passes (2026-11-26).
            storage_16bit: f11.storage_buffer16_bit_access != 0 && props.driver_id != vk::DriverId::NVIDIA_PROPRIETARY,
            int64_atomics: f12.shader_buffer_int64_atomics != 0 && f12.shader_shared_int64_atomics != 0,
            buffer_device_address: f12.buffer_device_address != 0,
            host_query_reset: f12.host_query_reset != 0,
            robust_buffer_access: core.robust_buffer_access != 0,
            subgroup_extended_types: f12.shader_subgroup_extended_types != 0,
            image_write_without_format: core.shader_storage_image_write_without_format != 0,
        };
        let stats = std::env::var_os("FERROCL_PIPELINE_STATS").is_some() && has_extension(inst, physical, ash::khr::pipeline_executable_properties::NAME);
        let marker = has_extension(inst, physical, ash::amd::buffer_marker::NAME);
        let extensions = Extensions { pci, host_import, calibrated, copy_family, robustness2, stats, marker };
        let device = create_device(inst, physical, family, &features, (&f11, &f12, &f13), &extensions)?;
        let gpu = Arc::new(finish_open(instance, physical, props, features, device, family, &extensions)?);
        let timer = calibrated.then(|| ash::ext::calibrated_timestamps::Device::new(inst, &gpu.device));
        let clock = Clock::new(&gpu, timer).map_err(|e| format!("timestamp calibration: {e}"))?;
        let _ = gpu.clock.set(clock);
        // Only the first batches' speed depends on it: a device that cannot grow them still works.
        let _ = Recycled::grow(&gpu);
        Ok(gpu)
    }

    /// Gives the device up: Vulkan lost it (`VK_ERROR_DEVICE_LOST`), or a submission ran past
    /// [`Gpu::timeout`] (a kernel that never ends). Its pending commands fail, nothing more is
    /// submitted, and its Vulkan objects are left as they are, since the GPU may still use them.
    pub fn lose(&self) {
        if !self.lost.swap(true, Ordering::AcqRel) {
            eprintln!("ferrocl: the device is lost (a submission failed or ran past FERROCL_KERNEL_TIMEOUT); its commands fail from now on");
        }
    }

    pub fn is_lost(&self) -> bool {
        self.lost.load(Ordering::Acquire)
    }

    /// Runs `calls` (Vulkan calls on this device, such as destroying an object) unless the
    /// device is lost (the GPU may still use its objects) or the process is exiting (Vulkan may
    /// be gone), holding off the exit meanwhile: a thread that runs on
    /// while the process exits (the completion thread, dropping what finished batches kept)
    /// is then never inside the driver when the drivers' teardown begins.
    pub fn unless_abandoned<R>(&self, calls: impl FnOnce() -> R) -> Option<R> {
        let _held = super::teardown::hold_exit()?;
        (!self.is_lost()).then(calls)
    }

    /// The device clock; only batches submitted after `open` read it.
    pub fn clock(&self) -> &Clock {
        self.clock.get().expect("the clock is set when the device is opened")
    }

}

/// How long one submission may run: `FERROCL_KERNEL_TIMEOUT` seconds, by default 60 on a GPU
/// (as the hang detection of Linux GPU drivers gives compute work) and 600 on a CPU device,
/// where lavapipe compiles a kernel inside its first submission (minutes for the largest CTS
/// kernels on a loaded machine); none when 0.
fn submission_timeout(cpu: bool) -> Option<Duration> {
    let default = if cpu { 600.0 } else { 60.0 };
    let seconds = std::env::var("FERROCL_KERNEL_TIMEOUT").ok().and_then(|v| v.trim().parse::<f64>().ok()).unwrap_or(default);
    (seconds > 0.0 && seconds.is_finite()).then(|| Duration::from_secs_f64(seconds))
}

fn create_device(
    inst: &ash::Instance,
    physical: vk::PhysicalDevice,
    family: u32,
    f: &Features,
    (s11, s12, s13): (&vk::PhysicalDeviceVulkan11Features, &vk::PhysicalDeviceVulkan12Features, &vk::PhysicalDeviceVulkan13Features),
    ext: &Extensions,
) -> Result<ash::Device, String> {
    // Only what kernels can use, and robustBufferAccess (robustBufferAccess2 where the device
    // has it, see `Extensions`): a driver must contain a faulty kernel, and on GPUs the hardware
    // checks cost next to nothing (measured on the H200 bench).
    let core = vk::PhysicalDeviceFeatures::default()
        .robust_buffer_access(f.robust_buffer_access)
        .shader_int64(f.int64)
        .shader_int16(f.int16)
        .shader_float64(f.fp64)
        .shader_storage_image_write_without_format(f.image_write_without_format);
    let mut f11 = vk::PhysicalDeviceVulkan11Features::default()
        .storage_buffer16_bit_access(f.storage_16bit)
        .uniform_and_storage_buffer16_bit_access(f.storage_16bit && s11.uniform_and_storage_buffer16_bit_access != 0)
        .storage_push_constant16(s11.storage_push_constant16 != 0);
    let mut f12 = vk::PhysicalDeviceVulkan12Features::default()
        .timeline_semaphore(true)
        .host_query_reset(f.host_query_reset)
        .shader_int8(f.int8)
        .storage_buffer8_bit_access(f.storage_8bit)
        .uniform_and_storage_buffer8_bit_access(s12.uniform_and_storage_buffer8_bit_access != 0)
        .storage_push_constant8(s12.storage_push_constant8 != 0)
        .shader_buffer_int64_atomics(f.int64_atomics)
        .shader_shared_int64_atomics(f.int64_atomics)
        .shader_subgroup_extended_types(f.subgroup_extended_types)
        .uniform_buffer_standard_layout(s12.uniform_buffer_standard_layout != 0)
        .scalar_block_layout(s12.scalar_block_layout != 0)
        .vulkan_memory_model(s12.vulkan_memory_model != 0)
        .vulkan_memory_model_device_scope(s12.vulkan_memory_model_device_scope != 0)
        .buffer_device_address(f.buffer_device_address);
    let mut f13 = vk::PhysicalDeviceVulkan13Features::default()
        .synchronization2(true)
        .maintenance4(s13.maintenance4 != 0)
        .subgroup_size_control(s13.subgroup_size_control != 0)
        .compute_full_subgroups(s13.compute_full_subgroups != 0);
    let priorities = [1.0f32];
    let mut queues = vec![vk::DeviceQueueCreateInfo::default().queue_family_index(family).queue_priorities(&priorities)];
    queues.extend(ext.copy_family.map(|f| vk::DeviceQueueCreateInfo::default().queue_family_index(f).queue_priorities(&priorities)));
    let mut extensions = vec![ash::khr::push_descriptor::NAME.as_ptr()];
    if ext.pci {
        extensions.push(ash::ext::pci_bus_info::NAME.as_ptr());
    }
    if ext.host_import && ext.copy_family.is_some() {
        extensions.push(ash::ext::external_memory_host::NAME.as_ptr());
    }
    if ext.calibrated {
        extensions.push(ash::ext::calibrated_timestamps::NAME.as_ptr());
    }
    if ext.stats {
        extensions.push(ash::khr::pipeline_executable_properties::NAME.as_ptr());
    }
    if ext.marker {
        extensions.push(ash::amd::buffer_marker::NAME.as_ptr());
    }
    let mut r2 = vk::PhysicalDeviceRobustness2FeaturesEXT::default().robust_buffer_access2(true);
    if ext.robustness2 {
        extensions.push(ash::ext::robustness2::NAME.as_ptr());
    }
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&extensions)
        .enabled_features(&core)
        .push_next(&mut f11)
        .push_next(&mut f12)
        .push_next(&mut f13);
    let info = if ext.robustness2 { info.push_next(&mut r2) } else { info };
    let mut stats = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default().pipeline_executable_info(true);
    let info = if ext.stats { info.push_next(&mut stats) } else { info };
    // SAFETY: every enabled feature was reported supported.
    unsafe { inst.create_device(physical, &info, None) }.map_err(|e| format!("vkCreateDevice: {e}"))
}

/// Optional device extensions and queues, as found.
struct Extensions {
    pci: bool,
    host_import: bool,
    calibrated: bool,
    copy_family: Option<u32>,
    /// `robustBufferAccess2` (VK_EXT_robustness2): out-of-bounds writes are dropped and reads
    /// give zero, where `robustBufferAccess` lets them land anywhere in the buffer, over the
    /// elements a correct work-item wrote.
    robustness2: bool,
    /// VK_KHR_pipeline_executable_properties with `pipelineExecutableInfo`, for
    /// `FERROCL_PIPELINE_STATS`.
    stats: bool,
    /// VK_AMD_buffer_marker: the progress word is written by a pipelined marker write.
    marker: bool,
}

fn finish_open(instance: &Instance, physical: vk::PhysicalDevice, props: Properties, features: Features, device: ash::Device, family: u32, ext: &Extensions) -> Result<Gpu, String> {
    let inst = &instance.raw;
    let mut allocator = Allocator::new(&AllocatorCreateDesc {
        instance: inst.clone(),
        device: device.clone(),
        physical_device: physical,
        debug_settings: Default::default(),
        buffer_device_address: false,
        allocation_sizes: Default::default(),
    })
    .map_err(|e| format!("gpu-allocator: {e}"))?;
    let mut timeline_info = vk::SemaphoreTypeCreateInfo::default().semaphore_type(vk::SemaphoreType::TIMELINE).initial_value(0);
    let sem_info = vk::SemaphoreCreateInfo::default().push_next(&mut timeline_info);
    // SAFETY: valid device and create info.
    let timeline = unsafe { device.create_semaphore(&sem_info, None) }.map_err(|e| format!("vkCreateSemaphore: {e}"))?;
    // SAFETY: the family and index were requested at device creation.
    let queue = unsafe { device.get_device_queue(family, 0) };
    let marker = ext.marker.then(|| ash::amd::buffer_marker::Device::new(inst, &device));
    let progress = Progress::new(&device, &mut allocator, marker).map_err(|e| format!("progress word: {e}"))?;
    let pipeline_cache = super::pipeline::load_cache(&device, &props.device_uuid, &props.driver_uuid);
    let host_import = ext.host_import.then(|| (ash::ext::external_memory_host::Device::new(inst, &device), props.import_alignment));
    let copy_engine = match ext.copy_family {
        Some(f) => Some(CopyEngine::new(&device, f, host_import).map_err(|e| format!("copy engine: {e}"))?),
        None => None,
    };
    let cpu = props.base.device_type == vk::PhysicalDeviceType::CPU;
    let nvidia = props.driver_id == vk::DriverId::NVIDIA_PROPRIETARY;
    let lavapipe = props.driver_id == vk::DriverId::MESA_LLVMPIPE;
    Ok(Gpu {
        instance: inst.clone(),
        physical,
        push_descriptor: ash::khr::push_descriptor::Device::new(inst, &device),
        pipeline_stats: ext.stats.then(|| ash::khr::pipeline_executable_properties::Device::new(inst, &device)),
        props,
        features,
        device,
        queue_family: family,
        queue: Mutex::new(queue),
        copy_engine,
        allocator: Mutex::new(allocator),
        timeline,
        pipeline_cache: Mutex::new(pipeline_cache),
        create_apart_from_submit: nvidia,
        cache_dirty: AtomicBool::new(false),
        progress,
        submitted: AtomicU64::new(0),
        signalled: AtomicU64::new(0),
        completed: AtomicU64::new(0),
        tracker: Tracker::default(),
        armed: Mutex::default(),
        queries_wait_idle: lavapipe,
        recycled: Mutex::default(),
        staging: Default::default(),
        clock: OnceLock::new(),
        lost: AtomicBool::new(false),
        timeout: submission_timeout(cpu),
    })
}
