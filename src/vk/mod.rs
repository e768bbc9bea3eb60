//! The Vulkan layer: instance and devices (ash), memory (gpu-allocator), command batches,
//! the device clock.
pub mod batch;
pub mod clock;
pub mod device;
pub mod instance;
pub mod memory;
pub mod pipeline;
pub mod transfer;

pub use ash::vk;
