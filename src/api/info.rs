//! The `clGet*Info` protocol, done once: every query produces an [`Info`] value and [`write`]
//! handles the size query, the too-small buffer and `param_value_size_ret`.

use crate::cl::CLResult;
use crate::cl::types::*;

/// The bytes a query answers with.
pub struct Info(Vec<u8>);

/// Plain values whose bytes are their C representation.
pub trait Plain: Copy + 'static {}
macro_rules! plain { ($($t:ty),*) => { $(impl Plain for $t {})* }; }
plain!(u8, i32, u32, u64, usize, isize, cl_name_version, *mut c_void);
impl<T: Plain, const N: usize> Plain for [T; N] {}

impl Info {
    pub fn value<T: Plain>(v: T) -> Self {
        Self::slice(std::slice::from_ref(&v))
    }

    pub fn slice<T: Plain>(v: &[T]) -> Self {
        // SAFETY: `Plain` types are plain old data without padding-sensitive invariants.
        let bytes = unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(v)) };
        Info(bytes.to_vec())
    }

    /// A C string: the text and its terminating NUL.
    pub fn string(s: &str) -> Self {
        let mut bytes = s.as_bytes().to_vec();
        bytes.push(0);
        Info(bytes)
    }

    pub fn bool(b: bool) -> Self {
        Self::value(b as cl_bool)
    }

    pub fn bytes(b: Vec<u8>) -> Self {
        Info(b)
    }
}

impl From<u32> for Info {
    fn from(v: u32) -> Self {
        Info::value(v)
    }
}
impl From<u64> for Info {
    fn from(v: u64) -> Self {
        Info::value(v)
    }
}
impl From<usize> for Info {
    fn from(v: usize) -> Self {
        Info::value(v)
    }
}
impl From<&str> for Info {
    fn from(v: &str) -> Self {
        Info::string(v)
    }
}
impl From<*mut c_void> for Info {
    fn from(v: *mut c_void) -> Self {
        Info::value(v)
    }
}

/// Answers a query: `value` may be NULL (size query only); otherwise it must hold the answer.
pub unsafe fn write(info: CLResult<Info>, size: usize, value: *mut c_void, size_ret: *mut usize) -> CLResult<()> {
    let Info(bytes) = info?;
    if !value.is_null() {
        if size < bytes.len() {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: the application provides `size` writable bytes at `value`.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), value.cast::<u8>(), bytes.len()) };
    }
    if !size_ret.is_null() {
        // SAFETY: the application passes a valid `size_t*` or NULL.
        unsafe { size_ret.write(bytes.len()) };
    }
    Ok(())
}

/// A `cl_name_version` entry.
pub fn name_version(name: &str, version: cl_version) -> cl_name_version {
    let mut entry = cl_name_version { version, name: [0; CL_NAME_VERSION_MAX_NAME_SIZE] };
    let len = name.len().min(CL_NAME_VERSION_MAX_NAME_SIZE - 1);
    entry.name[..len].copy_from_slice(&name.as_bytes()[..len]);
    entry
}
