//! Turning Rust functions into OpenCL entry points: `CLResult` in, `cl_int` or `errcode_ret` out,
//! and no panic ever crossing the C boundary.

use crate::cl::types::*;
use crate::cl::CLResult;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Runs an entry point's body. A panic is a driver bug; it becomes `CL_OUT_OF_HOST_MEMORY`
/// (the one error every entry point may return) instead of unwinding into C.
pub fn guard<T>(body: impl FnOnce() -> CLResult<T>) -> CLResult<T> {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or(Err(CL_OUT_OF_HOST_MEMORY))
}

pub fn status(result: CLResult<()>) -> cl_int {
    match result {
        Ok(()) => CL_SUCCESS,
        Err(e) => e,
    }
}

/// Writes `errcode_ret` (when given) and returns the value, or the type's null on error.
pub unsafe fn with_errcode<T: Nullable>(result: CLResult<T>, errcode_ret: *mut cl_int) -> T {
    let (value, code) = match result {
        Ok(v) => (v, CL_SUCCESS),
        Err(e) => (T::null(), e),
    };
    if !errcode_ret.is_null() {
        errcode_ret.write(code);
    }
    value
}

/// Like [`with_errcode`], for an entry point that may return an object together with an error
/// code (`clLinkProgram` returns the program of a failed link, to hold its log).
pub unsafe fn with_errcode_and_value<T: Nullable>(result: CLResult<(T, cl_int)>, errcode_ret: *mut cl_int) -> T {
    let (value, code) = result.unwrap_or_else(|e| (T::null(), e));
    if !errcode_ret.is_null() {
        errcode_ret.write(code);
    }
    value
}

/// Values an entry point returns alongside `errcode_ret`: handles and mapped pointers.
pub trait Nullable {
    fn null() -> Self;
}

impl<T> Nullable for *mut T {
    fn null() -> Self {
        std::ptr::null_mut()
    }
}

/// Defines OpenCL entry points. Two forms:
/// `fn clFoo(args) -> CLResult<()> { body }` returns a `cl_int` status;
/// `fn clFoo(args; errcode_ret) -> CLResult<T> { body }` returns `T` and writes `errcode_ret`.
/// Bodies are `unsafe` contexts: they dereference the application's pointers after checking them.
macro_rules! entry {
    ($(#[$m:meta])* fn $name:ident($($a:ident: $t:ty),* $(,)?) -> CLResult<()> $body:block) => {
        $(#[$m])*
        #[allow(non_snake_case, clippy::missing_safety_doc)]
        pub unsafe extern "system" fn $name($($a: $t),*) -> cl_int {
            #[allow(unused_unsafe)]
            $crate::api::entry::status($crate::api::entry::guard(move || unsafe { $body }))
        }
    };
    ($(#[$m:meta])* fn $name:ident($($a:ident: $t:ty),* ; $err:ident) -> CLResult<$r:ty> $body:block) => {
        $(#[$m])*
        #[allow(non_snake_case, clippy::missing_safety_doc)]
        pub unsafe extern "system" fn $name($($a: $t,)* $err: *mut cl_int) -> $r {
            #[allow(unused_unsafe)]
            $crate::api::entry::with_errcode($crate::api::entry::guard(move || unsafe { $body }), $err)
        }
    };
}
pub(crate) use entry;
