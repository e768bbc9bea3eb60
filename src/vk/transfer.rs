//! The copy engines: a transfer-only queue for copies from device memory to host memory. On
//! NVIDIA they move data across PCIe several times faster than shaders or `vkCmdCopyBuffer` on
//! the compute queue, and with `VK_EXT_external_memory_host` they write straight into the
//! application's memory.

use super::device::Gpu;
use ash::vk;
use std::sync::Mutex;

pub struct CopyEngine {
    pub family: u32,
    slot: Mutex<Slot>,
    host: Option<ash::ext::external_memory_host::Device>,
    /// `minImportedHostPointerAlignment`: imported host memory starts and ends on it.
    import_align: u64,
}

/// The engine's queue with the one command buffer and fence it reuses.
struct Slot {
    queue: vk::Queue,
    pool: vk::CommandPool,
    cmd: vk::CommandBuffer,
    fence: vk::Fence,
}

/// A transfer-only queue family (copy engines), if the device has one.
pub fn transfer_family(families: &[vk::QueueFamilyProperties]) -> Option<u32> {
    let only_transfer = |f: &vk::QueueFamilyProperties| {
        f.queue_flags.contains(vk::QueueFlags::TRANSFER) && !f.queue_flags.intersects(vk::QueueFlags::COMPUTE | vk::QueueFlags::GRAPHICS)
    };
    families.iter().position(only_transfer).map(|i| i as u32)
}

impl CopyEngine {
    pub fn new(device: &ash::Device, family: u32, host: Option<(ash::ext::external_memory_host::Device, u64)>) -> Result<CopyEngine, vk::Result> {
        // SAFETY: the family was requested at device creation; objects live as long as the device.
        unsafe {
            let queue = device.get_device_queue(family, 0);
            let pool = device.create_command_pool(&vk::CommandPoolCreateInfo::default().queue_family_index(family), None)?;
            let alloc = vk::CommandBufferAllocateInfo::default().command_pool(pool).command_buffer_count(1);
            let cmd = device.allocate_command_buffers(&alloc)?[0];
            let fence = device.create_fence(&vk::FenceCreateInfo::default(), None)?;
            let (host, import_align) = match host {
                Some((h, align)) => (Some(h), align.max(1)),
                None => (None, 1),
            };
            Ok(CopyEngine { family, slot: Mutex::new(Slot { queue, pool, cmd, fence }), host, import_align })
        }
    }

    /// Copies `regions` from `src` to `dst` and waits until the host can read the result. The
    /// copy follows everything up to `after` on the device's compute timeline.
    pub fn copy_and_wait(&self, gpu: &Gpu, src: vk::Buffer, dst: vk::Buffer, regions: &[vk::BufferCopy], after: u64) -> Result<(), vk::Result> {
        let slot = self.slot.lock().unwrap_or_else(|e| e.into_inner());
        let d = &gpu.device;
        let to_host = [vk::MemoryBarrier2::default()
            .src_stage_mask(vk::PipelineStageFlags2::ALL_TRANSFER)
            .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
            .dst_stage_mask(vk::PipelineStageFlags2::HOST)
            .dst_access_mask(vk::AccessFlags2::HOST_READ)];
        let cmds = [vk::CommandBufferSubmitInfo::default().command_buffer(slot.cmd)];
        let wait = [vk::SemaphoreSubmitInfo::default().semaphore(gpu.timeline).value(after).stage_mask(vk::PipelineStageFlags2::ALL_TRANSFER)];
        let submit = [vk::SubmitInfo2::default().command_buffer_infos(&cmds).wait_semaphore_infos(&wait)];
        // SAFETY: the slot is ours while locked; its last use was waited for.
        unsafe {
            d.reset_command_pool(slot.pool, vk::CommandPoolResetFlags::empty())?;
            d.begin_command_buffer(slot.cmd, &vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT))?;
            d.cmd_copy_buffer(slot.cmd, src, dst, regions);
            d.cmd_pipeline_barrier2(slot.cmd, &vk::DependencyInfo::default().memory_barriers(&to_host));
            d.end_command_buffer(slot.cmd)?;
            d.queue_submit2(slot.queue, &submit, slot.fence)?;
            let waited = d.wait_for_fences(&[slot.fence], true, u64::MAX);
            d.reset_fences(&[slot.fence])?;
            waited
        }
    }

    /// The application's memory `ptr..ptr + len` as a buffer the engine can write, and the offset
    /// of `ptr` in it; `None` where the driver cannot import it (then staging serves).
    pub fn import(&self, gpu: &Gpu, ptr: *mut u8, len: usize) -> Option<(HostBuffer, u64)> {
        let host = self.host.as_ref()?;
        let start = ptr as u64 / self.import_align * self.import_align;
        let size = (ptr as u64 + len as u64).next_multiple_of(self.import_align) - start;
        let handle = vk::ExternalMemoryHandleTypeFlags::HOST_ALLOCATION_EXT;
        let mut props = vk::MemoryHostPointerPropertiesEXT::default();
        let d = &gpu.device;
        // SAFETY: the pages from `start` to `start + size` hold the application's buffer (they
        // are mapped); the buffer and memory are destroyed before the call returns to it.
        unsafe {
            let found = (host.fp().get_memory_host_pointer_properties_ext)(d.handle(), handle, start as *const _, &mut props);
            let type_index = (found == vk::Result::SUCCESS).then_some(props.memory_type_bits.trailing_zeros()).filter(|&t| t < 32)?;
            let mut external = vk::ExternalMemoryBufferCreateInfo::default().handle_types(handle);
            let info = vk::BufferCreateInfo::default().size(size).usage(vk::BufferUsageFlags::TRANSFER_DST).push_next(&mut external);
            let buffer = d.create_buffer(&info, None).ok()?;
            let mut import = vk::ImportMemoryHostPointerInfoEXT::default().handle_type(handle).host_pointer(start as *mut _);
            let alloc = vk::MemoryAllocateInfo::default().allocation_size(size).memory_type_index(type_index).push_next(&mut import);
            let Ok(memory) = d.allocate_memory(&alloc, None) else {
                d.destroy_buffer(buffer, None);
                return None;
            };
            let imported = HostBuffer { device: d.clone(), buffer, memory };
            d.bind_buffer_memory(buffer, memory, 0).ok()?;
            Some((imported, ptr as u64 - start))
        }
    }
}

/// Host memory imported for one copy.
pub struct HostBuffer {
    device: ash::Device,
    pub buffer: vk::Buffer,
    memory: vk::DeviceMemory,
}

impl Drop for HostBuffer {
    fn drop(&mut self) {
        // SAFETY: the copy that used it has completed.
        unsafe {
            self.device.destroy_buffer(self.buffer, None);
            self.device.free_memory(self.memory, None);
        }
    }
}
