//! ferrocl: an OpenCL 3.0 installable client driver running on Vulkan compute.
//!
//! `api` is the C surface, `core` the OpenCL objects, `vk` the Vulkan layer and `compiler` the
//! OpenCL C compiler. See docs/design.md.
pub mod api;
mod clock;
pub mod compiler;
pub mod core;
pub mod vk;
