//! Platform entry points.

use super::entry::entry;
use crate::cl::CLResult;
use crate::cl::object::{get, handle_of};
use super::info::{self, name_version, Info};
use crate::cl::types::*;
use crate::core::platform::{self as core, Platform};
use std::sync::Arc;

/// The platform, with our dispatch table installed before its objects are made (every object
/// the driver creates descends from the platform and its devices).
pub fn platform() -> &'static Arc<Platform> {
    super::icd::install();
    Platform::get()
}

/// Validates a platform handle (NULL means ours, as the spec lets implementations decide).
pub fn check(platform: cl_platform_id) -> CLResult<()> {
    let ours = self::platform();
    if platform.is_null() || platform == handle_of(ours) {
        return Ok(());
    }
    get::<Platform>(platform).map(drop)
}

/// ICD 2: the loader's data goes into every object, those made already too.
pub fn set_dispatch_data(data: *mut c_void) {
    crate::cl::object::set_loader_dispatch_data(data);
    let p = platform();
    use crate::cl::object::Object;
    p.header().set_dispatch_data(data);
    p.devices.iter().for_each(|d| d.header().set_dispatch_data(data));
}

pub unsafe fn get_platform_ids(num_entries: cl_uint, platforms: *mut cl_platform_id, num_platforms: *mut cl_uint) -> cl_int {
    if (num_entries == 0 && !platforms.is_null()) || (platforms.is_null() && num_platforms.is_null()) {
        return CL_INVALID_VALUE;
    }
    let p = platform();
    if !platforms.is_null() {
        platforms.write(handle_of(p));
    }
    super::util::write_opt(num_platforms, 1);
    CL_SUCCESS
}

fn platform_extensions() -> Vec<(&'static str, cl_version)> {
    vec![("cl_khr_icd", cl_make_version(2, 0, 0)), ("cl_khr_extended_versioning", cl_make_version(1, 0, 0))]
}

fn query(param: cl_platform_info) -> CLResult<Info> {
    let exts = platform_extensions();
    Ok(match param {
        CL_PLATFORM_PROFILE => "FULL_PROFILE".into(),
        CL_PLATFORM_VERSION => core::VERSION.into(),
        CL_PLATFORM_NAME => core::NAME.into(),
        CL_PLATFORM_VENDOR => core::VENDOR.into(),
        CL_PLATFORM_EXTENSIONS => exts.iter().map(|e| e.0).collect::<Vec<_>>().join(" ").as_str().into(),
        CL_PLATFORM_ICD_SUFFIX_KHR => core::ICD_SUFFIX.into(),
        CL_PLATFORM_HOST_TIMER_RESOLUTION => Info::value(0u64),
        CL_PLATFORM_NUMERIC_VERSION => cl_make_version(3, 0, 0).into(),
        CL_PLATFORM_EXTENSIONS_WITH_VERSION => Info::slice(&exts.iter().map(|(n, v)| name_version(n, *v)).collect::<Vec<_>>()),
        _ => return Err(CL_INVALID_VALUE),
    })
}

entry! {
    #[no_mangle]
    fn clGetPlatformInfo(platform: cl_platform_id, param: cl_platform_info, size: usize, value: *mut c_void, size_ret: *mut usize) -> CLResult<()> {
        check(platform)?;
        info::write(query(param), size, value, size_ret)
    }
}

entry! {
    fn clUnloadPlatformCompiler(platform: cl_platform_id) -> CLResult<()> {
        // The compiler is part of the driver and holds no resources to free.
        check(platform)
    }
}

/// The platform's devices that match `device_type`.
pub fn devices_of_type(device_type: cl_device_type) -> CLResult<Vec<Arc<crate::core::device::Device>>> {
    let all = CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_DEFAULT | CL_DEVICE_TYPE_CUSTOM;
    if device_type != CL_DEVICE_TYPE_ALL && (device_type & !all != 0 || device_type == 0) {
        return Err(CL_INVALID_DEVICE_TYPE);
    }
    let devices = &platform().devices;
    let found: Vec<_> = if device_type == CL_DEVICE_TYPE_DEFAULT {
        devices.iter().take(1).cloned().collect()
    } else {
        devices.iter().filter(|d| device_type == CL_DEVICE_TYPE_ALL || d.device_type & device_type != 0).cloned().collect()
    };
    if found.is_empty() {
        return Err(CL_DEVICE_NOT_FOUND);
    }
    Ok(found)
}
