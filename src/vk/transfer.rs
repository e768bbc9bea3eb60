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

/// The engine's queue with the two command buffers it reuses: one copy runs while the host
/// consumes the other's result.
struct Slot {
    queue: vk::Queue,
    lanes: [Lane; 2],
}

struct Lane {
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

/// Host memory a pipelined read goes through: two staging buffers of `chunk` bytes each, with
/// their mappings.
pub struct Bounce {
    pub buffers: [(vk::Buffer, *const u8); 2],
    pub chunk: u64,
}

impl Lane {
    /// # Safety
    /// `device` is the engine's device, and the lane is idle.
    unsafe fn new(device: &ash::Device, family: u32) -> Result<Lane, vk::Result> {
        let pool = device.create_command_pool(&vk::CommandPoolCreateInfo::default().queue_family_index(family), None)?;
        let alloc = vk::CommandBufferAllocateInfo::default().command_pool(pool).command_buffer_count(1);
        let cmd = device.allocate_command_buffers(&alloc)?[0];
        let fence = device.create_fence(&vk::FenceCreateInfo::default(), None)?;
        Ok(Lane { pool, cmd, fence })
    }

    /// Records and submits a copy that follows timeline value `after` and makes its writes
    /// visible to the host; its fence signals when done.
    ///
    /// # Safety
    /// The lane is idle (its last copy waited for) and the caller holds the slot.
    unsafe fn submit(&self, gpu: &Gpu, queue: vk::Queue, (src, dst): (vk::Buffer, vk::Buffer), regions: &[vk::BufferCopy], after: u64) -> Result<(), vk::Result> {
        let Some(_held) = super::teardown::hold_exit() else { return Err(vk::Result::ERROR_DEVICE_LOST) };
        let d = &gpu.device;
        let to_host = [vk::MemoryBarrier2::default()
            .src_stage_mask(vk::PipelineStageFlags2::ALL_TRANSFER)
            .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
            .dst_stage_mask(vk::PipelineStageFlags2::HOST)
            .dst_access_mask(vk::AccessFlags2::HOST_READ)];
        let cmds = [vk::CommandBufferSubmitInfo::default().command_buffer(self.cmd)];
        let wait = [vk::SemaphoreSubmitInfo::default().semaphore(gpu.timeline).value(after).stage_mask(vk::PipelineStageFlags2::ALL_TRANSFER)];
        let submit = [vk::SubmitInfo2::default().command_buffer_infos(&cmds).wait_semaphore_infos(&wait)];
        d.reset_command_pool(self.pool, vk::CommandPoolResetFlags::empty())?;
        d.begin_command_buffer(self.cmd, &vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT))?;
        d.cmd_copy_buffer(self.cmd, src, dst, regions);
        d.cmd_pipeline_barrier2(self.cmd, &vk::DependencyInfo::default().memory_barriers(&to_host));
        d.end_command_buffer(self.cmd)?;
        d.queue_submit2(queue, &submit, self.fence)
    }

    /// # Safety
    /// The lane's copy was submitted.
    unsafe fn wait(&self, gpu: &Gpu) -> Result<(), vk::Result> {
        loop {
            if gpu.is_lost() {
                // The copy may never run: the fence stays as it is, like the lane.
                return Err(vk::Result::ERROR_DEVICE_LOST);
            }
            // Each slice holds the exit off (another thread may be exiting the process).
            let Some(_held) = super::teardown::hold_exit() else { return Err(vk::Result::ERROR_DEVICE_LOST) };
            match gpu.device.wait_for_fences(&[self.fence], true, super::batch::WAIT_SLICE_NS) {
                Err(vk::Result::TIMEOUT) => {}
                Err(e) => {
                    super::batch::lost_if(gpu, e);
                    return Err(e);
                }
                Ok(()) => return gpu.device.reset_fences(&[self.fence]),
            }
        }
    }
}

impl CopyEngine {
    pub fn new(device: &ash::Device, family: u32, host: Option<(ash::ext::external_memory_host::Device, u64)>) -> Result<CopyEngine, vk::Result> {
        // SAFETY: the family was requested at device creation; objects live as long as the device.
        let slot = unsafe { Slot { queue: device.get_device_queue(family, 0), lanes: [Lane::new(device, family)?, Lane::new(device, family)?] } };
        let (host, import_align) = match host {
            Some((h, align)) => (Some(h), align.max(1)),
            None => (None, 1),
        };
        Ok(CopyEngine { family, slot: Mutex::new(slot), host, import_align })
    }

    /// Copies `regions` from `src` to `dst` and waits until the host can read the result. The
    /// copy follows everything up to `after` on the device's compute timeline.
    pub fn copy_and_wait(&self, gpu: &Gpu, src: vk::Buffer, dst: vk::Buffer, regions: &[vk::BufferCopy], after: u64) -> Result<(), vk::Result> {
        let slot = self.slot.lock().unwrap_or_else(|e| e.into_inner());
        let lane = &slot.lanes[0];
        // SAFETY: the slot is ours while locked; its last use was waited for.
        unsafe {
            lane.submit(gpu, slot.queue, (src, dst), regions, after)?;
            lane.wait(gpu)
        }
    }

    /// Copies `len` bytes from `src` at `offset` to host memory at `dst` through `bounce`: the
    /// engine fills one staging buffer while host threads copy the other out. Pageable memory
    /// is read this way about twice as fast as the engine writes it when imported. The copy
    /// follows everything up to `after` on the device's compute timeline.
    ///
    /// # Safety
    /// `dst` has room for `len` bytes; `bounce` holds two mapped buffers of `chunk` bytes.
    pub unsafe fn read_through(&self, gpu: &Gpu, (src, offset): (vk::Buffer, u64), dst: *mut u8, len: u64, bounce: &Bounce, after: u64) -> Result<(), vk::Result> {
        let slot = self.slot.lock().unwrap_or_else(|e| e.into_inner());
        let chunks: Vec<(u64, u64)> = (0..len).step_by(bounce.chunk as usize).map(|at| (at, bounce.chunk.min(len - at))).collect();
        let submit = |i: usize| {
            let (at, size) = chunks[i];
            let region = [vk::BufferCopy { src_offset: offset + at, dst_offset: 0, size }];
            slot.lanes[i % 2].submit(gpu, slot.queue, (src, bounce.buffers[i % 2].0), &region, after)
        };
        if !chunks.is_empty() {
            submit(0)?;
        }
        for (i, &(at, size)) in chunks.iter().enumerate() {
            let next = if i + 1 < chunks.len() { submit(i + 1) } else { Ok(()) };
            let done = slot.lanes[i % 2].wait(gpu);
            if next.is_err() || done.is_err() {
                // Leave no copy running into staging that is about to be reused.
                if next.is_ok() && i + 1 < chunks.len() {
                    let _ = slot.lanes[(i + 1) % 2].wait(gpu);
                }
                return next.and(done);
            }
            parallel_copy(bounce.buffers[i % 2].1, dst.add(at as usize), size as usize);
        }
        Ok(())
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
        let Some(_held) = super::teardown::hold_exit() else { return };
        // SAFETY: the copy that used it has completed.
        unsafe {
            self.device.destroy_buffer(self.buffer, None);
            self.device.free_memory(self.memory, None);
        }
    }
}

/// Copies `len` bytes with several host threads: one thread does not saturate host memory.
///
/// # Safety
/// Both ranges are valid for `len` bytes and do not overlap.
pub unsafe fn parallel_copy(src: *const u8, dst: *mut u8, len: usize) {
    const PIECE: usize = 2 << 20;
    // Asked once: the standard library reads the cgroup's CPU quota each time.
    static CPUS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    let cpus = *CPUS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let threads = cpus.min(8).min(len.div_ceil(PIECE)).max(1);
    let part = len.div_ceil(threads);
    let (src, dst) = (src as usize, dst as usize);
    std::thread::scope(|scope| {
        for t in 1..threads {
            let (at, n) = (t * part, part.min(len.saturating_sub(t * part)));
            // SAFETY: the parts are disjoint pieces of both ranges.
            scope.spawn(move || unsafe { std::ptr::copy_nonoverlapping((src + at) as *const u8, (dst + at) as *mut u8, n) });
        }
        // SAFETY: as above, the first part.
        unsafe { std::ptr::copy_nonoverlapping(src as *const u8, dst as *mut u8, part.min(len)) };
    });
}

#[cfg(test)]
mod tests {
    use super::parallel_copy;

    #[test]
    fn parallel_copy_moves_every_byte() {
        for len in [0, 1, 4095, (2 << 20) + 3, (9 << 20) + 17] {
            let src: Vec<u8> = (0..len).map(|i| (i * 7 + i / 251) as u8).collect();
            let mut dst = vec![0u8; len + 1];
            // SAFETY: both vectors hold `len` bytes, and they are distinct.
            unsafe { parallel_copy(src.as_ptr(), dst.as_mut_ptr(), len) };
            assert_eq!(&dst[..len], &src[..], "len {len}");
            assert_eq!(dst[len], 0, "nothing past the end");
        }
    }
}
