//! Vulkan buffers with their memory from gpu-allocator.

use super::device::Gpu;
use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};
use gpu_allocator::MemoryLocation;
use std::ptr::NonNull;
use std::sync::Arc;

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
            | vk::BufferUsageFlags::TRANSFER_DST;
        let info = vk::BufferCreateInfo::default().size(size).usage(usage).sharing_mode(vk::SharingMode::EXCLUSIVE);
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
        // SAFETY: no command using the buffer is pending: owners keep it alive until completion.
        unsafe { self.gpu.device.destroy_buffer(self.raw, None) };
        if let Some(a) = self.allocation.take() {
            let _ = self.gpu.allocator.lock().unwrap_or_else(|e| e.into_inner()).free(a);
        }
    }
}
