//! ferrocl: an OpenCL 3.0 installable client driver running on Vulkan compute.
pub mod compiler;
