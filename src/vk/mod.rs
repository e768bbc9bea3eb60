//! The Vulkan layer: instance and devices (ash), memory (gpu-allocator), command batches.
pub mod batch;
pub mod device;
pub mod instance;
pub mod memory;
pub mod pipeline;
pub mod transfer;

pub use ash::vk;
