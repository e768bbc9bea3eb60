//! Semantic analysis: the parsed program is checked against the OpenCL C rules (types,
//! conversions, address spaces A1–A17, built-in overloads) and turned into the typed
//! [`model::Program`] that lowering consumes.

pub mod model;
