//! The Vulkan layer: instance and devices (ash), memory (gpu-allocator), command batches (armed
//! ones too),
//! the device clock, the progress word, process exit.
pub mod armed;
pub mod batch;
pub mod clock;
pub mod completion;
pub mod device;
pub mod image;
pub mod instance;
pub mod memory;
pub mod pipeline;
pub mod progress;
pub mod teardown;
pub mod transfer;

pub use ash::vk;
