//! Lowering of the OpenCL C semantic model to naga IR, one module per kernel. See
//! `docs/compiler.md` for the design and the hard cases.

pub mod abi;
pub mod builder;
pub mod kernel;
pub mod workitem;
