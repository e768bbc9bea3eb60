//! The C surface: entry points, argument checks, handle validation and the info protocol.
#![allow(non_snake_case)]
// Every entry point's safety contract is the OpenCL specification: valid handles or ones the
// driver checks, and pointers to as many bytes as the call's sizes say.
#![allow(clippy::missing_safety_doc)]
//! Each file holds the entry points of one object family.
pub mod context;
pub mod device;
pub mod entry;
pub mod event;
pub mod icd;
pub mod image;
pub mod info;
pub mod kernel;
pub mod memory;
pub mod platform;
pub mod program;
pub mod queue;
pub mod sampler;
pub mod svm;
pub mod unsupported;
pub mod util;
