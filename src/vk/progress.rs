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
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, Ordering};

pub struct Progress {
    buffer: vk::Buffer,
    word: NonNull<AtomicU32>,
    /// VK_AMD_buffer_marker, where the device has it (NVIDIA's does, lavapipe's not).
    marker: Option<ash::amd::buffer_marker::Device>,
}

// SAFETY: the word is only read atomically by the host; the GPU writes it.
unsafe impl Send for Progress {}
unsafe impl Sync for Progress {}

impl Progress {
    /// Host-visible, coherent memory for the word; cached where the device offers it, so that
    /// polling reads the CPU's cache until the GPU's write lands.
    pub fn new(instance: &ash::Instance, physical: vk::PhysicalDevice, device: &ash::Device, marker: Option<ash::amd::buffer_marker::Device>) -> Result<Progress, vk::Result> {
        let info = vk::BufferCreateInfo::default().size(4).usage(vk::BufferUsageFlags::TRANSFER_DST);
        // SAFETY: valid create info; the buffer lives as long as the device (for the process).
        unsafe {
            let buffer = device.create_buffer(&info, None)?;
            let req = device.get_buffer_memory_requirements(buffer);
            let props = instance.get_physical_device_memory_properties(physical);
            let coherent = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
            let fits = |flags: vk::MemoryPropertyFlags| {
                (0..props.memory_type_count).find(|&i| req.memory_type_bits & (1 << i) != 0 && props.memory_types[i as usize].property_flags.contains(flags))
            };
            let Some(kind) = fits(coherent | vk::MemoryPropertyFlags::HOST_CACHED).or_else(|| fits(coherent)) else {
                device.destroy_buffer(buffer, None);
                return Err(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY);
            };
            let memory = device.allocate_memory(&vk::MemoryAllocateInfo::default().allocation_size(req.size).memory_type_index(kind), None)?;
            device.bind_buffer_memory(buffer, memory, 0)?;
            let ptr = device.map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())?;
            let word = NonNull::new(ptr.cast::<AtomicU32>()).ok_or(vk::Result::ERROR_MEMORY_MAP_FAILED)?;
            word.as_ref().store(0, Ordering::Release);
            Ok(Progress { buffer, word, marker })
        }
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
