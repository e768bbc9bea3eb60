//! The progress word: host memory into which every batch, as its last command, writes its
//! timeline value. Polling it tells the host that a batch has executed without the GPU raising
//! an interrupt, which a semaphore or fence signal does on NVIDIA's driver (580): up to one per
//! signalled submission. On a virtual machine each such interrupt took about 30 µs of the CPU
//! that received it, and a thread waiting for its launch there waited 62 µs instead of 21 (the
//! launch rows of `ferrocl-bench`, docs/design.md "Completion without interrupts").
//!
//! The word says *executed*; resources stay held until the timeline semaphore says *retired*
//! (`completion`), which only a signal tells Vulkan.

use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme, Allocator};
use gpu_allocator::MemoryLocation;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, Ordering};

pub struct Progress {
    buffer: vk::Buffer,
    word: NonNull<AtomicU32>,
    /// The word's memory, held for the process (as the device is).
    _memory: Allocation,
    /// VK_AMD_buffer_marker, where the device has it (NVIDIA's does, lavapipe's not).
    marker: Option<ash::amd::buffer_marker::Device>,
}

// SAFETY: the word is only read atomically by the host; the GPU writes it.
unsafe impl Send for Progress {}
unsafe impl Sync for Progress {}

impl Progress {
    /// The word in read-back memory, as staging for reads has: host-visible, cached where the
    /// device offers it, so that polling reads the CPU's cache until the GPU's write lands.
    pub fn new(device: &ash::Device, allocator: &mut Allocator, marker: Option<ash::amd::buffer_marker::Device>) -> Result<Progress, vk::Result> {
        let info = vk::BufferCreateInfo::default().size(4).usage(vk::BufferUsageFlags::TRANSFER_DST);
        // SAFETY: valid create info; the buffer lives as long as the device (for the process).
        let buffer = unsafe { device.create_buffer(&info, None) }?;
        // SAFETY: `buffer` is a live buffer of this device.
        let requirements = unsafe { device.get_buffer_memory_requirements(buffer) };
        let desc = AllocationCreateDesc { name: "ferrocl progress word", requirements, location: MemoryLocation::GpuToCpu, linear: true, allocation_scheme: AllocationScheme::GpuAllocatorManaged };
        let placed = allocator.allocate(&desc).map_err(|_| vk::Result::ERROR_OUT_OF_DEVICE_MEMORY).and_then(|memory| {
            // SAFETY: the allocation satisfies the buffer's requirements.
            unsafe { device.bind_buffer_memory(buffer, memory.memory(), memory.offset()) }?;
            let word = memory.mapped_ptr().ok_or(vk::Result::ERROR_MEMORY_MAP_FAILED)?.cast::<AtomicU32>();
            Ok((memory, word))
        });
        let (memory, word) = match placed {
            Ok(placed) => placed,
            Err(e) => {
                // SAFETY: the buffer was never used.
                unsafe { device.destroy_buffer(buffer, None) };
                return Err(e);
            }
        };
        // SAFETY: mapped, 4-byte aligned memory of the allocation.
        unsafe { word.as_ref() }.store(0, Ordering::Release);
        Ok(Progress { buffer, word, _memory: memory, marker })
    }

    /// Records the write of `value` (its low 32 bits) into the word, after every earlier command
    /// of the queue has executed.
    ///
    /// A buffer marker orders itself so. A fill needs a barrier in front, which costs NVIDIA
    /// more: with it the bench's FFT kernel ran 2.8–2.9 % slower in two calls, and an empty
    /// kernel's launch up to 2.9 µs slower, than with a semaphore signal (H200, 2026-11-27).
    pub fn record(&self, device: &ash::Device, cmd: vk::CommandBuffer, value: u64) {
        // SAFETY: the command buffer is recording; the buffer is 4 bytes of transfer memory.
        unsafe {
            match &self.marker {
                Some(m) => m.cmd_write_buffer_marker(cmd, vk::PipelineStageFlags::BOTTOM_OF_PIPE, self.buffer, 0, value as u32),
                None => {
                    let after_all = [vk::MemoryBarrier2::default()
                        .src_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
                        .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
                        .dst_stage_mask(vk::PipelineStageFlags2::ALL_TRANSFER)
                        .dst_access_mask(vk::AccessFlags2::TRANSFER_WRITE)];
                    device.cmd_pipeline_barrier2(cmd, &vk::DependencyInfo::default().memory_barriers(&after_all));
                    device.cmd_fill_buffer(cmd, self.buffer, 0, 4, value as u32);
                }
            }
        }
    }

    /// Whether the batch that writes `value` has executed. Values are compared in 32-bit
    /// sequence arithmetic: fewer than 2³¹ batches are ever in flight.
    pub fn reached(&self, value: u64) -> bool {
        // SAFETY: the mapping lives for the process; the caller holds the exit off
        // (`teardown::hold_exit`), so the driver has not unmapped it.
        let word = unsafe { self.word.as_ref() }.load(Ordering::Acquire);
        word.wrapping_sub(value as u32) as i32 >= 0
    }
}
