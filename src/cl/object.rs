//! Objects and their handles: every object starts with the ICD header, lives in an `Arc`, and is
//! reachable from C only while it is registered in the live-handle table.

use super::types::*;
use super::CLResult;
use std::collections::HashMap;
use std::sync::atomic::{AtomicPtr, AtomicU32, Ordering};
use std::sync::{Arc, OnceLock, RwLock};

/// What kind of object a handle names; stored in the header and in the live table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Kind {
    Platform = 0xfe01,
    Device,
    Context,
    Queue,
    Mem,
    Program,
    Kernel,
    Event,
    Sampler,
}

/// The ICD dispatch table that every new object's header points to. The table names the C entry
/// points, so the C surface owns it and installs it before it creates the first object.
static DISPATCH: AtomicPtr<c_void> = AtomicPtr::new(std::ptr::null_mut());

/// The loader's dispatch data for our platform (ICD 2), copied into every object we create.
static DISPATCH_DATA: AtomicPtr<c_void> = AtomicPtr::new(std::ptr::null_mut());

pub fn install_dispatch_table(table: *const c_void) {
    DISPATCH.store(table.cast_mut(), Ordering::Release);
}

pub fn set_loader_dispatch_data(data: *mut c_void) {
    DISPATCH_DATA.store(data, Ordering::Release);
}

/// The ICD-compatible start of every object (`cl_khr_icd`): dispatch table, the loader's
/// dispatch data (ICD 2), then our own tag and the OpenCL reference count.
#[repr(C)]
pub struct Header {
    dispatch: *const c_void,
    dispatch_data: AtomicPtr<c_void>,
    kind: Kind,
    refs: AtomicU32,
}

// SAFETY: the pointers are immutable after construction and point to static data.
unsafe impl Send for Header {}
unsafe impl Sync for Header {}

impl Header {
    pub fn new(kind: Kind) -> Self {
        let dispatch = DISPATCH.load(Ordering::Acquire);
        debug_assert!(!dispatch.is_null(), "an object was created before the ICD dispatch table was installed");
        Header { dispatch, dispatch_data: AtomicPtr::new(DISPATCH_DATA.load(Ordering::Acquire)), kind, refs: AtomicU32::new(1) }
    }

    /// ICD 2: objects made before the loader gave its dispatch data (platform, devices) get it.
    pub fn set_dispatch_data(&self, data: *mut c_void) {
        self.dispatch_data.store(data, Ordering::Release);
    }

    pub fn ref_count(&self) -> cl_uint {
        self.refs.load(Ordering::Acquire)
    }
}

/// A driver object that C code can hold a handle to.
pub trait Object: Send + Sync + Sized + 'static {
    const KIND: Kind;
    /// The error for a handle that is not a valid object of this kind.
    const INVALID: cl_int;
    fn header(&self) -> &Header;
}

fn live() -> &'static RwLock<HashMap<usize, Kind>> {
    static LIVE: OnceLock<RwLock<HashMap<usize, Kind>>> = OnceLock::new();
    LIVE.get_or_init(Default::default)
}

/// Hands an object to C: the returned handle holds one `Arc` count until its last release.
pub fn publish<T: Object>(obj: Arc<T>) -> *mut c_void {
    let ptr = Arc::into_raw(obj) as *mut c_void;
    live().write().unwrap_or_else(|e| e.into_inner()).insert(ptr as usize, T::KIND);
    ptr
}

/// Validates a handle and returns a new strong reference to its object.
pub fn get<T: Object>(handle: *mut c_void) -> CLResult<Arc<T>> {
    let table = live().read().unwrap_or_else(|e| e.into_inner());
    if table.get(&(handle as usize)) != Some(&T::KIND) {
        return Err(T::INVALID);
    }
    // SAFETY: the handle is registered, so the published `Arc` count is still held and cannot be
    // released while we hold the table's read lock.
    unsafe {
        Arc::increment_strong_count(handle as *const T);
        Ok(Arc::from_raw(handle as *const T))
    }
}

/// The handle of an object that has been published.
pub fn handle_of<T: Object>(obj: &Arc<T>) -> *mut c_void {
    Arc::as_ptr(obj) as *mut c_void
}

/// Gives the object a new handle reference (`clRetain*`), publishing it again if only the
/// driver still held it.
pub fn retain<T: Object>(handle: *mut c_void) -> CLResult<()> {
    get::<T>(handle)?.header().refs.fetch_add(1, Ordering::AcqRel);
    Ok(())
}

/// Drops one handle reference (`clRelease*`); the last one unregisters the handle and drops the
/// published `Arc` count, and `release` returns true. Commands in flight may keep the object
/// alive after that.
pub fn release<T: Object>(handle: *mut c_void) -> CLResult<bool> {
    let mut table = live().write().unwrap_or_else(|e| e.into_inner());
    if table.get(&(handle as usize)) != Some(&T::KIND) {
        return Err(T::INVALID);
    }
    // SAFETY: registered, so the object is alive.
    let obj = unsafe { &*(handle as *const T) };
    if obj.header().refs.fetch_sub(1, Ordering::AcqRel) != 1 {
        return Ok(false);
    }
    table.remove(&(handle as usize));
    drop(table);
    // SAFETY: this reclaims the count `publish` leaked.
    drop(unsafe { Arc::from_raw(handle as *const T) });
    Ok(true)
}

/// Validates a `(count, list)` pair of handles, as in wait lists and device lists.
///
/// # Safety
/// A non-null `list` points to `count` handles, as the OpenCL call that passed it promises.
pub unsafe fn get_list<T: Object>(count: cl_uint, list: *const *mut c_void, err: cl_int) -> CLResult<Vec<Arc<T>>> {
    match (count, list.is_null()) {
        (0, true) => Ok(Vec::new()),
        (0, false) | (_, true) => Err(err),
        // SAFETY: the application passes `count` handles.
        _ => unsafe { std::slice::from_raw_parts(list, count as usize) }.iter().map(|&h| get::<T>(h)).collect(),
    }
}

/// Implements [`Object`] for a type whose first field is `header: Header`.
macro_rules! object {
    ($t:ty, $kind:ident, $invalid:ident) => {
        impl $crate::cl::object::Object for $t {
            const KIND: $crate::cl::object::Kind = $crate::cl::object::Kind::$kind;
            const INVALID: $crate::cl::types::cl_int = $crate::cl::types::$invalid;
            fn header(&self) -> &$crate::cl::object::Header {
                &self.header
            }
        }
    };
}
pub(crate) use object;
