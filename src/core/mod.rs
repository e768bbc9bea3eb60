//! The OpenCL objects, independent of the C calling convention.
pub mod builtins;
pub mod context;
pub mod device;
pub mod event;
mod frequency;
pub mod image;
pub mod kernel;
pub mod memory;
pub mod platform;
pub mod printf;
pub mod program;
pub mod queue;
pub mod sampler;
pub mod svm;
