//! Vulkan buffers with their memory from gpu-allocator.

use super::device::Gpu;
use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};
use gpu_allocator::MemoryLocation;
use std::ptr::NonNull;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Where a buffer's memory lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// Device-local; mapped too where the device can map all of its VRAM.
    Device,
    /// Host memory the GPU writes and the host reads (read-back staging).
    Readback,
    /// Host memory the host writes and the GPU reads (upload staging).
    Upload,
}

pub struct Buffer {
    gpu: Arc<Gpu>,
    pub raw: vk::Buffer,
    pub size: u64,
    allocation: Option<Allocation>,
}

// SAFETY: the mapped pointer inside `Allocation` is only handed out through `mapped()`; Vulkan
// handles are plain integers.
unsafe impl Send for Buffer {}
unsafe impl Sync for Buffer {}

impl Buffer {
    pub fn new(gpu: &Arc<Gpu>, size: u64, placement: Placement) -> Result<Buffer, vk::Result> {
        let usage = vk::BufferUsageFlags::STORAGE_BUFFER
            | vk::BufferUsageFlags::UNIFORM_BUFFER
            | vk::BufferUsageFlags::TRANSFER_SRC
            | vk::BufferUsageFlags::TRANSFER_DST
            | vk::BufferUsageFlags::UNIFORM_TEXEL_BUFFER
            | vk::BufferUsageFlags::STORAGE_TEXEL_BUFFER
            | vk::BufferUsageFlags::INDIRECT_BUFFER;
        // The copy engines' queue reads buffers too: share them with its family.
        let families = [gpu.queue_family, gpu.copy_engine.as_ref().map_or(gpu.queue_family, |e| e.family)];
        let info = vk::BufferCreateInfo::default().size(size).usage(usage);
        let info = if families[0] == families[1] {
            info.sharing_mode(vk::SharingMode::EXCLUSIVE)
        } else {
            info.sharing_mode(vk::SharingMode::CONCURRENT).queue_family_indices(&families)
        };
        // SAFETY: valid create info.
        let raw = unsafe { gpu.device.create_buffer(&info, None) }?;
        let mut buffer = Buffer { gpu: gpu.clone(), raw, size, allocation: None };
        // SAFETY: `raw` is a live buffer of this device.
        let requirements = unsafe { gpu.device.get_buffer_memory_requirements(raw) };
        let location = match placement {
            Placement::Device if gpu.props.mappable_vram() => MemoryLocation::CpuToGpu,
            Placement::Device => MemoryLocation::GpuOnly,
            Placement::Readback => MemoryLocation::GpuToCpu,
            Placement::Upload => MemoryLocation::CpuToGpu,
        };
        let desc = AllocationCreateDesc {
            name: "ferrocl",
            requirements,
            location,
            linear: true,
            allocation_scheme: AllocationScheme::GpuAllocatorManaged,
        };
        let allocation = gpu.allocator.lock().unwrap_or_else(|e| e.into_inner()).allocate(&desc).map_err(|_| vk::Result::ERROR_OUT_OF_DEVICE_MEMORY)?;
        // SAFETY: the allocation satisfies the buffer's requirements.
        unsafe { gpu.device.bind_buffer_memory(raw, allocation.memory(), allocation.offset()) }?;
        buffer.allocation = Some(allocation);
        Ok(buffer)
    }

    /// Host reads of the mapping are fast (cached memory), so read-backs need no staging copy.
    pub fn host_cached(&self) -> bool {
        self.allocation.as_ref().is_some_and(|a| a.memory_properties().contains(vk::MemoryPropertyFlags::HOST_CACHED))
    }

    /// The host address of the buffer's first byte, if its memory is mapped.
    pub fn mapped(&self) -> Option<NonNull<u8>> {
        self.allocation.as_ref()?.mapped_ptr().map(NonNull::cast)
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        let gpu = self.gpu.clone();
        gpu.unless_abandoned(|| {
            // SAFETY: no command using the buffer is pending: owners keep it alive until completion.
            unsafe { gpu.device.destroy_buffer(self.raw, None) };
            if let Some(a) = self.allocation.take() {
                let _ = gpu.allocator.lock().unwrap_or_else(|e| e.into_inner()).free(a);
            }
        });
    }
}

/// Staging buffers kept for reuse: allocating (and mapping) hundreds of MiB for every transfer
/// costs more than the copy itself (pinning 1 GiB of host memory takes about 250 ms).
#[derive(Default)]
pub struct StagingPool {
    /// Free buffers, each with the time it was returned.
    free: Mutex<Vec<(Placement, Buffer, Instant)>>,
}

/// Smallest staging allocation; sizes round up to powers of two so buffers fit later requests.
const MIN_STAGING: u64 = 1 << 16;

/// How long buffers past the pool's share of memory are kept: an application that maps or
/// reads a large buffer again and again (a frame loop, a benchmark) reuses its staging.
const KEEP_PAST_LIMIT: Duration = Duration::from_secs(2);

impl StagingPool {
    /// A staging buffer of at least `size` bytes.
    pub fn get(gpu: &Arc<Gpu>, size: u64, placement: Placement) -> Result<Staging, vk::Result> {
        let class = size.max(MIN_STAGING).next_power_of_two();
        let reused = {
            let mut free = gpu.staging.free.lock().unwrap_or_else(|e| e.into_inner());
            free.iter().position(|(p, b, _)| *p == placement && b.size == class).map(|i| free.swap_remove(i).1)
        };
        let buffer = match reused {
            Some(b) => b,
            None => Buffer::new(gpu, class, placement)?,
        };
        Ok(Staging { buffer: Some(buffer), placement })
    }

    /// Keeps `buffer` for reuse; past the pool's share of device memory, buffers are freed once
    /// unused for [`KEEP_PAST_LIMIT`].
    fn put(&self, gpu: &Gpu, placement: Placement, buffer: Buffer) {
        let limit = (gpu.props.device_local_heap() / 8).min(512 << 20);
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        free.push((placement, buffer, Instant::now()));
        // Newest first: the oldest buffers go once the rest fill the share.
        free.sort_by_key(|(_, _, at)| std::cmp::Reverse(*at));
        let mut held = 0;
        free.retain(|(_, b, at)| {
            held += b.size;
            held <= limit || at.elapsed() < KEEP_PAST_LIMIT
        });
    }
}

/// A staging buffer borrowed from the device's pool, returned to it when dropped.
pub struct Staging {
    buffer: Option<Buffer>,
    placement: Placement,
}

impl std::ops::Deref for Staging {
    type Target = Buffer;
    fn deref(&self) -> &Buffer {
        self.buffer.as_ref().expect("present until dropped")
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if let Some(b) = self.buffer.take() {
            let gpu = b.gpu.clone();
            gpu.staging.put(&gpu, self.placement, b);
        }
    }
}
