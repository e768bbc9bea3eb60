//! Context entry points.

use super::entry::entry;
use crate::cl::CLResult;
use crate::cl::object::{get, get_list, handle_of, publish, release, retain, Object};
use super::info::{self, Info};
use super::platform::{check, devices_of_type};
use crate::cl::types::*;
use super::util::properties;
use crate::core::context::{Callback, Context};
use crate::core::device::Device;
use std::sync::Arc;

/// Validates context properties: only `CL_CONTEXT_PLATFORM` (ours) and
/// `CL_CONTEXT_INTEROP_USER_SYNC` (a `cl_bool`), each at most once.
unsafe fn context_properties(ptr: *const cl_context_properties) -> CLResult<Vec<cl_context_properties>> {
    const PLATFORM: cl_context_properties = CL_CONTEXT_PLATFORM as cl_context_properties;
    const USER_SYNC: cl_context_properties = CL_CONTEXT_INTEROP_USER_SYNC as cl_context_properties;
    let (pairs, raw) = properties(ptr);
    let mut seen = Vec::new();
    for (name, value) in pairs {
        if seen.contains(&name) {
            return Err(CL_INVALID_PROPERTY);
        }
        seen.push(name);
        // Names compare whole: an unknown name may match a known one in its low 32 bits.
        match name {
            // NULL may stand for our platform elsewhere, but not as an explicit property value.
            PLATFORM if value == 0 => return Err(CL_INVALID_PLATFORM),
            PLATFORM => check(value as cl_platform_id).map_err(|_| CL_INVALID_PLATFORM)?,
            USER_SYNC if value != CL_TRUE as cl_context_properties && value != CL_FALSE as cl_context_properties => {
                return Err(CL_INVALID_PROPERTY)
            }
            USER_SYNC => {}
            _ => return Err(CL_INVALID_PROPERTY),
        }
    }
    Ok(raw)
}

fn notify(func: ContextCallback, user_data: *mut c_void) -> CLResult<Option<Callback<ContextCallback>>> {
    match (func, user_data.is_null()) {
        (None, false) => Err(CL_INVALID_VALUE),
        (None, true) => Ok(None),
        (Some(_), _) => Ok(Some(Callback { func, user_data })),
    }
}

entry! {
    fn clCreateContext(props: *const cl_context_properties, num_devices: cl_uint, devices: *const cl_device_id, pfn_notify: ContextCallback, user_data: *mut c_void; errcode_ret) -> CLResult<cl_context> {
        let properties = context_properties(props)?;
        if num_devices == 0 || devices.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let mut list = get_list::<Device>(num_devices, devices, CL_INVALID_VALUE)?;
        list.dedup_by(|a, b| Arc::ptr_eq(a, b));
        let cb = notify(pfn_notify, user_data)?;
        Ok(publish(Context::new(list, properties, cb)))
    }
}

entry! {
    fn clCreateContextFromType(props: *const cl_context_properties, device_type: cl_device_type, pfn_notify: ContextCallback, user_data: *mut c_void; errcode_ret) -> CLResult<cl_context> {
        let properties = context_properties(props)?;
        let cb = notify(pfn_notify, user_data)?;
        let devices = devices_of_type(device_type)?;
        Ok(publish(Context::new(devices, properties, cb)))
    }
}

entry! {
    fn clRetainContext(context: cl_context) -> CLResult<()> {
        retain::<Context>(context)
    }
}

entry! {
    fn clReleaseContext(context: cl_context) -> CLResult<()> {
        release::<Context>(context).map(drop)
    }
}

entry! {
    fn clGetContextInfo(context: cl_context, param: cl_context_info, size: usize, value: *mut c_void, size_ret: *mut usize) -> CLResult<()> {
        let c = get::<Context>(context)?;
        let devices: Vec<*mut c_void> = c.devices.iter().map(handle_of).collect();
        let answer = match param {
            CL_CONTEXT_REFERENCE_COUNT => Ok(c.header().ref_count().into()),
            CL_CONTEXT_NUM_DEVICES => Ok((devices.len() as cl_uint).into()),
            CL_CONTEXT_DEVICES => Ok(Info::slice(&devices)),
            CL_CONTEXT_PROPERTIES => Ok(Info::slice(&c.properties)),
            _ => Err(CL_INVALID_VALUE),
        };
        info::write(answer, size, value, size_ret)
    }
}

entry! {
    fn clSetContextDestructorCallback(context: cl_context, func: ObjectCallback<cl_context>, user_data: *mut c_void) -> CLResult<()> {
        let c = get::<Context>(context)?;
        if func.is_none() {
            return Err(CL_INVALID_VALUE);
        }
        c.add_destructor(Callback { func, user_data });
        Ok(())
    }
}
