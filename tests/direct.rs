//! The driver without the loader: opened with `dlopen`, reached through the three ICD symbols
//! and the dispatch table, as an ICD loader does. Also checks what the library links and exports,
//! and that released or foreign handles are refused (the loader would dereference those before
//! the driver could check them, so they are tested here).
mod common;

use common::driver::{Driver, GetAddress};
use common::{cl_context, cl_device_id, cl_int, cl_mem, cl_platform_id, cl_uint, driver_path};
use common::{CL_CONTEXT_REFERENCE_COUNT, CL_DEVICE_PLATFORM, CL_DEVICE_TYPE_ALL, CL_INVALID_CONTEXT, CL_INVALID_MEM_OBJECT, CL_MEM_READ_WRITE, CL_MEM_SIZE, CL_PLATFORM_EXTENSIONS, CL_PLATFORM_NAME, CL_SUCCESS};
use std::ffi::{c_void, CStr};
use std::process::Command;
use std::ptr::{null, null_mut};

type Info = unsafe extern "system" fn(*mut c_void, cl_uint, usize, *mut c_void, *mut usize) -> cl_int;
type GetDeviceIds = unsafe extern "system" fn(cl_platform_id, u64, cl_uint, *mut cl_device_id, *mut cl_uint) -> cl_int;
type CreateBuffer = unsafe extern "system" fn(cl_context, u64, usize, *mut c_void, *mut cl_int) -> cl_mem;
type Release = unsafe extern "system" fn(*mut c_void) -> cl_int;

const CL_PLATFORM_ICD_SUFFIX_KHR: cl_uint = 0x0920;

fn string(f: Info, handle: *mut c_void, param: cl_uint) -> String {
    let mut size = 0;
    assert_eq!(unsafe { f(handle, param, 0, null_mut(), &mut size) }, CL_SUCCESS);
    let mut bytes = vec![0u8; size];
    assert_eq!(unsafe { f(handle, param, size, bytes.as_mut_ptr().cast(), null_mut()) }, CL_SUCCESS);
    CStr::from_bytes_with_nul(&bytes).expect("NUL-terminated").to_string_lossy().into_owned()
}

/// The dispatch table an ICD object starts with.
fn dispatch_of(handle: *mut c_void) -> *const *const c_void {
    // SAFETY: every ICD object's first word is its dispatch table pointer.
    unsafe { *(handle as *const *const *const c_void) }
}

fn slot<F: Copy>(table: *const *const c_void, index: usize) -> F {
    // SAFETY: the table has 149 slots; the caller names the slot's type.
    let f = unsafe { *table.add(index) };
    assert!(!f.is_null(), "slot {index}");
    unsafe { std::mem::transmute_copy(&f) }
}

#[test]
fn icd_extension_and_suffix() {
    let drv = Driver::open();
    let info: Info = drv.func(c"clGetPlatformInfo");
    let exts = string(info, drv.platform, CL_PLATFORM_EXTENSIONS);
    assert!(exts.split_whitespace().any(|e| e == "cl_khr_icd"), "{exts}");
    let suffix = string(info, drv.platform, CL_PLATFORM_ICD_SUFFIX_KHR);
    assert!(!suffix.is_empty() && suffix.chars().all(|c| c.is_ascii_alphanumeric()), "{suffix}");
    // The exported clGetPlatformInfo is the same function.
    let get: GetAddress = unsafe { *drv.lib.get::<GetAddress>(b"clGetExtensionFunctionAddress\0").unwrap() };
    assert_eq!(unsafe { get(c"clGetPlatformInfo".as_ptr()) }, info as *mut c_void);
    assert!(unsafe { get(c"clNoSuchFunction".as_ptr()) }.is_null());
    assert!(unsafe { get(null()) }.is_null());
}

#[test]
fn dispatch_table_calls_back_into_the_driver() {
    let drv = Driver::open();
    let table = dispatch_of(drv.platform);
    let by_name: Info = drv.func(c"clGetPlatformInfo");
    let via_table: Info = slot(table, 1);
    assert_eq!(string(via_table, drv.platform, CL_PLATFORM_NAME), string(by_name, drv.platform, CL_PLATFORM_NAME));
    let get_devices: GetDeviceIds = slot(table, 2);
    let mut d = null_mut();
    assert_eq!(unsafe { get_devices(drv.platform, CL_DEVICE_TYPE_ALL, 1, &mut d, null_mut()) }, CL_SUCCESS);
    assert_eq!(dispatch_of(d), table, "devices share the platform's table");
    let device_info: Info = slot(table, 3);
    let mut p: cl_platform_id = null_mut();
    assert_eq!(unsafe { device_info(d, CL_DEVICE_PLATFORM, 8, (&mut p as *mut cl_platform_id).cast(), null_mut()) }, CL_SUCCESS);
    assert_eq!(p, drv.platform);
    // The lookup by name and the table agree slot by slot.
    for (index, name) in [(4, c"clCreateContext"), (8, c"clGetContextInfo"), (14, c"clCreateBuffer"), (59, c"clEnqueueNDRangeKernel"), (123, c"clCreateCommandQueueWithProperties")] {
        assert_eq!(slot::<*const c_void>(table, index), drv.func::<*const c_void>(name), "{name:?}");
    }
    let context = drv.context();
    assert_eq!(dispatch_of(context), table);
}

#[test]
fn released_and_foreign_handles_are_refused() {
    let drv = Driver::open();
    let context = drv.context();
    let context_info: Info = drv.func(c"clGetContextInfo");
    let release_context: Release = drv.func(c"clReleaseContext");
    let create_buffer: CreateBuffer = drv.func(c"clCreateBuffer");
    let mem_info: Info = drv.func(c"clGetMemObjectInfo");
    let release_mem: Release = drv.func(c"clReleaseMemObject");
    let mut err = 1;
    let mem = unsafe { create_buffer(context, CL_MEM_READ_WRITE, 64, null_mut(), &mut err) };
    assert_eq!(err, CL_SUCCESS);
    let mut size = 0usize;
    assert_eq!(unsafe { mem_info(mem, CL_MEM_SIZE, 8, (&mut size as *mut usize).cast(), null_mut()) }, CL_SUCCESS);
    assert_eq!(size, 64);
    // Wrong type: a buffer is not a context, a context is not a buffer.
    assert_eq!(unsafe { context_info(mem, CL_CONTEXT_REFERENCE_COUNT, 0, null_mut(), &mut size) }, CL_INVALID_CONTEXT);
    assert_eq!(unsafe { mem_info(context, CL_MEM_SIZE, 0, null_mut(), &mut size) }, CL_INVALID_MEM_OBJECT);
    // Not an object at all.
    let mut junk = [0u64; 8];
    let junk = junk.as_mut_ptr().cast::<c_void>();
    assert_eq!(unsafe { context_info(junk, CL_CONTEXT_REFERENCE_COUNT, 0, null_mut(), &mut size) }, CL_INVALID_CONTEXT);
    assert_eq!(unsafe { release_mem(junk) }, CL_INVALID_MEM_OBJECT);
    // Released handles.
    assert_eq!(unsafe { release_mem(mem) }, CL_SUCCESS);
    assert_eq!(unsafe { mem_info(mem, CL_MEM_SIZE, 0, null_mut(), &mut size) }, CL_INVALID_MEM_OBJECT);
    assert_eq!(unsafe { release_mem(mem) }, CL_INVALID_MEM_OBJECT);
    assert_eq!(unsafe { release_context(context) }, CL_SUCCESS);
    assert_eq!(unsafe { context_info(context, CL_CONTEXT_REFERENCE_COUNT, 0, null_mut(), &mut size) }, CL_INVALID_CONTEXT);
    assert_eq!(unsafe { release_context(context) }, CL_INVALID_CONTEXT);
    assert_eq!(unsafe { release_context(null_mut()) }, CL_INVALID_CONTEXT);
}

fn tool_output(tool: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(tool).args(args).arg(driver_path()).output().ok()?;
    assert!(out.status.success(), "{tool} failed: {}", String::from_utf8_lossy(&out.stderr));
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn does_not_link_the_loader() {
    let Some(dynamic) = tool_output("readelf", &["-d", "-W"]) else { return };
    let needed: Vec<&str> = dynamic.lines().filter(|l| l.contains("(NEEDED)")).collect();
    assert!(!needed.is_empty(), "{dynamic}");
    assert!(needed.iter().all(|l| !l.contains("libOpenCL")), "{needed:?}");
}

#[test]
fn exports_only_the_icd_symbols() {
    let Some(symbols) = tool_output("nm", &["-D", "--defined-only"]) else { return };
    let mut functions: Vec<&str> = symbols
        .lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let (_, kind, name) = (f.next()?, f.next()?, f.next()?);
            (kind == "T" || kind == "W" || kind == "i").then_some(name)
        })
        .collect();
    functions.sort_unstable();
    assert_eq!(functions, ["clGetExtensionFunctionAddress", "clGetPlatformInfo", "clIcdGetPlatformIDsKHR"]);
}
