//! The driver without the loader: `libferrocl.so` opened with `dlopen` and reached through the
//! ICD symbols, as an ICD 2 loader does. Tests that pass released or foreign handles use it: the
//! loader would dereference such a handle's dispatch table before the driver could check it.

use super::{cl_context, cl_device_id, cl_int, cl_platform_id, cl_uint, driver_path, CL_DEVICE_TYPE_ALL, CL_SUCCESS};
use std::ffi::{c_char, c_void, CStr};
use std::ptr::{null, null_mut};

pub type GetAddress = unsafe extern "system" fn(*const c_char) -> *mut c_void;
type GetAddressForPlatform = unsafe extern "system" fn(cl_platform_id, *const c_char) -> *mut c_void;
type GetPlatformIds = unsafe extern "system" fn(cl_uint, *mut cl_platform_id, *mut cl_uint) -> cl_int;
type GetDeviceIds = unsafe extern "system" fn(cl_platform_id, u64, cl_uint, *mut cl_device_id, *mut cl_uint) -> cl_int;
type CreateContext = unsafe extern "system" fn(*const isize, cl_uint, *const cl_device_id, *const c_void, *mut c_void, *mut cl_int) -> cl_context;

/// The driver, loaded by a test.
pub struct Driver {
    pub lib: libloading::Library,
    pub platform: cl_platform_id,
    by_name: GetAddressForPlatform,
}

impl Driver {
    /// Loads the driver built for this test run, with Vulkan validation on, and finds its one
    /// platform through `clIcdGetPlatformIDsKHR`.
    pub fn open() -> Driver {
        static VALIDATION: std::sync::Once = std::sync::Once::new();
        VALIDATION.call_once(|| std::env::set_var("FERROCL_VALIDATION", "1"));
        // SAFETY: loading the driver built for this test run; its initialisers are sound.
        let lib = unsafe { libloading::Library::new(driver_path()) }.expect("dlopen libferrocl.so");
        let get: GetAddress = unsafe { *lib.get::<GetAddress>(b"clGetExtensionFunctionAddress\0").expect("symbol") };
        let ext = |name: &CStr| unsafe { get(name.as_ptr()) };
        let ids = ext(c"clIcdGetPlatformIDsKHR");
        assert!(!ids.is_null());
        let ids: GetPlatformIds = unsafe { std::mem::transmute(ids) };
        let mut n = 0;
        assert_eq!(unsafe { ids(0, null_mut(), &mut n) }, CL_SUCCESS);
        assert_eq!(n, 1);
        let mut platform = null_mut();
        assert_eq!(unsafe { ids(1, &mut platform, null_mut()) }, CL_SUCCESS);
        let by_name = ext(c"clIcdGetFunctionAddressForPlatformKHR");
        assert!(!by_name.is_null());
        Driver { lib, platform, by_name: unsafe { std::mem::transmute::<*mut c_void, GetAddressForPlatform>(by_name) } }
    }

    /// An entry point by name, as an ICD 2 loader looks them up.
    pub fn func<F: Copy>(&self, name: &CStr) -> F {
        let f = unsafe { (self.by_name)(self.platform, name.as_ptr()) };
        assert!(!f.is_null(), "{name:?}");
        assert_eq!(std::mem::size_of::<F>(), std::mem::size_of::<*mut c_void>());
        // SAFETY: the caller names the function's true type.
        unsafe { std::mem::transmute_copy(&f) }
    }

    pub fn device(&self) -> cl_device_id {
        let get: GetDeviceIds = self.func(c"clGetDeviceIDs");
        let mut d = null_mut();
        assert_eq!(unsafe { get(self.platform, CL_DEVICE_TYPE_ALL, 1, &mut d, null_mut()) }, CL_SUCCESS);
        d
    }

    pub fn context(&self) -> cl_context {
        let create: CreateContext = self.func(c"clCreateContext");
        let d = self.device();
        let mut err = 1;
        let c = unsafe { create(null(), 1, &d, null(), null_mut(), &mut err) };
        assert_eq!(err, CL_SUCCESS);
        c
    }
}
