//! ferrocl: an OpenCL 3.0 installable client driver running on Vulkan compute.
//!
//! `api` is the C surface, `core` the OpenCL objects, `vk` the Vulkan layer and `compiler` the
//! OpenCL C compiler; `cl` holds what they share (types, errors, the object header). Dependencies
//! point one way: `api` → `core` → `vk`, `compiler`, and all of them → `cl`. See docs/design.md.
pub mod api;
pub mod cl;
pub mod compiler;
pub mod core;
pub mod vk;
