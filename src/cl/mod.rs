//! What every layer shares: the OpenCL types and constants, the error type, and the object
//! header with the handle ↔ object conversion, and the host clock. It depends on nothing else in
//! the driver.
pub mod clock;
pub mod object;
pub mod types;

/// The error of every fallible operation in the driver: an OpenCL error code.
pub type CLResult<T> = Result<T, types::cl_int>;
