//! The ICD surface: the dispatch table, the name lookup and the three exported symbols.
//!
//! `dispatch!` takes the OpenCL 3.0 `cl_icd_dispatch` slots in header order and generates both
//! the table the loader calls through and the name → function lookup, so they cannot drift.

use crate::cl::types::*;
use super::{context, device, event, image, kernel, memory, platform, program, queue, sampler, svm, unsupported};

/// Number of slots in `cl_icd_dispatch` through OpenCL 3.0.
pub const DISPATCH_SLOTS: usize = 149;

#[repr(C)]
pub struct Dispatch([*const c_void; DISPATCH_SLOTS]);

// SAFETY: the table is immutable and holds function addresses only.
unsafe impl Sync for Dispatch {}

macro_rules! dispatch {
    ($($name:ident: $value:tt,)*) => {
        pub static DISPATCH: Dispatch = Dispatch([$(dispatch!(@slot $value),)*]);

        /// Every function of the table by its OpenCL name (ICD 2 builds its own table from this).
        fn table_function(name: &str) -> *mut c_void {
            match name {
                $(stringify!($name) => dispatch!(@slot $value) as *mut c_void,)*
                _ => std::ptr::null_mut(),
            }
        }
    };
    (@slot TAG) => { CL_ICD2_TAG_KHR as *const c_void };
    (@slot NONE) => { std::ptr::null::<c_void>() };
    (@slot ($path:path)) => { $path as *const c_void };
}

dispatch! {
    clGetPlatformIDs: TAG,
    clGetPlatformInfo: (platform::clGetPlatformInfo),
    clGetDeviceIDs: (device::clGetDeviceIDs),
    clGetDeviceInfo: (device::clGetDeviceInfo),
    clCreateContext: (context::clCreateContext),
    clCreateContextFromType: (context::clCreateContextFromType),
    clRetainContext: (context::clRetainContext),
    clReleaseContext: (context::clReleaseContext),
    clGetContextInfo: (context::clGetContextInfo),
    clCreateCommandQueue: (queue::clCreateCommandQueue),
    clRetainCommandQueue: (queue::clRetainCommandQueue),
    clReleaseCommandQueue: (queue::clReleaseCommandQueue),
    clGetCommandQueueInfo: (queue::clGetCommandQueueInfo),
    clSetCommandQueueProperty: (queue::clSetCommandQueueProperty),
    clCreateBuffer: (memory::clCreateBuffer),
    clCreateImage2D: (image::clCreateImage2D),
    clCreateImage3D: (image::clCreateImage3D),
    clRetainMemObject: (memory::clRetainMemObject),
    clReleaseMemObject: (memory::clReleaseMemObject),
    clGetSupportedImageFormats: (image::clGetSupportedImageFormats),
    clGetMemObjectInfo: (memory::clGetMemObjectInfo),
    clGetImageInfo: (image::clGetImageInfo),
    clCreateSampler: (sampler::clCreateSampler),
    clRetainSampler: (sampler::clRetainSampler),
    clReleaseSampler: (sampler::clReleaseSampler),
    clGetSamplerInfo: (sampler::clGetSamplerInfo),
    clCreateProgramWithSource: (program::clCreateProgramWithSource),
    clCreateProgramWithBinary: (program::clCreateProgramWithBinary),
    clRetainProgram: (program::clRetainProgram),
    clReleaseProgram: (program::clReleaseProgram),
    clBuildProgram: (program::clBuildProgram),
    clUnloadCompiler: TAG,
    clGetProgramInfo: (program::clGetProgramInfo),
    clGetProgramBuildInfo: (program::clGetProgramBuildInfo),
    clCreateKernel: (kernel::clCreateKernel),
    clCreateKernelsInProgram: (kernel::clCreateKernelsInProgram),
    clRetainKernel: (kernel::clRetainKernel),
    clReleaseKernel: (kernel::clReleaseKernel),
    clSetKernelArg: (kernel::clSetKernelArg),
    clGetKernelInfo: (kernel::clGetKernelInfo),
    clGetKernelWorkGroupInfo: (kernel::clGetKernelWorkGroupInfo),
    clWaitForEvents: (event::clWaitForEvents),
    clGetEventInfo: (event::clGetEventInfo),
    clRetainEvent: (event::clRetainEvent),
    clReleaseEvent: (event::clReleaseEvent),
    clGetEventProfilingInfo: (event::clGetEventProfilingInfo),
    clFlush: (queue::clFlush),
    clFinish: (queue::clFinish),
    clEnqueueReadBuffer: (memory::clEnqueueReadBuffer),
    clEnqueueWriteBuffer: (memory::clEnqueueWriteBuffer),
    clEnqueueCopyBuffer: (memory::clEnqueueCopyBuffer),
    clEnqueueReadImage: (image::clEnqueueReadImage),
    clEnqueueWriteImage: (image::clEnqueueWriteImage),
    clEnqueueCopyImage: (image::clEnqueueCopyImage),
    clEnqueueCopyImageToBuffer: (image::clEnqueueCopyImageToBuffer),
    clEnqueueCopyBufferToImage: (image::clEnqueueCopyBufferToImage),
    clEnqueueMapBuffer: (memory::clEnqueueMapBuffer),
    clEnqueueMapImage: (image::clEnqueueMapImage),
    clEnqueueUnmapMemObject: (memory::clEnqueueUnmapMemObject),
    clEnqueueNDRangeKernel: (kernel::clEnqueueNDRangeKernel),
    clEnqueueTask: (kernel::clEnqueueTask),
    clEnqueueNativeKernel: (unsupported::clEnqueueNativeKernel),
    clEnqueueMarker: (event::clEnqueueMarker),
    clEnqueueWaitForEvents: (event::clEnqueueWaitForEvents),
    clEnqueueBarrier: (event::clEnqueueBarrier),
    clGetExtensionFunctionAddress: (clGetExtensionFunctionAddress),
    clCreateFromGLBuffer: (unsupported::clCreateFromGLBuffer),
    clCreateFromGLTexture2D: (unsupported::clCreateFromGLTexture2D),
    clCreateFromGLTexture3D: (unsupported::clCreateFromGLTexture3D),
    clCreateFromGLRenderbuffer: (unsupported::clCreateFromGLRenderbuffer),
    clGetGLObjectInfo: (unsupported::clGetGLObjectInfo),
    clGetGLTextureInfo: (unsupported::clGetGLTextureInfo),
    clEnqueueAcquireGLObjects: (unsupported::clEnqueueAcquireGLObjects),
    clEnqueueReleaseGLObjects: (unsupported::clEnqueueReleaseGLObjects),
    clGetGLContextInfoKHR: (unsupported::clGetGLContextInfoKHR),
    clGetDeviceIDsFromD3D10KHR: NONE,
    clCreateFromD3D10BufferKHR: NONE,
    clCreateFromD3D10Texture2DKHR: NONE,
    clCreateFromD3D10Texture3DKHR: NONE,
    clEnqueueAcquireD3D10ObjectsKHR: NONE,
    clEnqueueReleaseD3D10ObjectsKHR: NONE,
    clSetEventCallback: (event::clSetEventCallback),
    clCreateSubBuffer: (memory::clCreateSubBuffer),
    clSetMemObjectDestructorCallback: (memory::clSetMemObjectDestructorCallback),
    clCreateUserEvent: (event::clCreateUserEvent),
    clSetUserEventStatus: (event::clSetUserEventStatus),
    clEnqueueReadBufferRect: (memory::clEnqueueReadBufferRect),
    clEnqueueWriteBufferRect: (memory::clEnqueueWriteBufferRect),
    clEnqueueCopyBufferRect: (memory::clEnqueueCopyBufferRect),
    clCreateSubDevicesEXT: (device::clCreateSubDevices),
    clRetainDeviceEXT: (device::clRetainDevice),
    clReleaseDeviceEXT: (device::clReleaseDevice),
    clCreateEventFromGLsyncKHR: (unsupported::clCreateEventFromGLsyncKHR),
    clCreateSubDevices: (device::clCreateSubDevices),
    clRetainDevice: (device::clRetainDevice),
    clReleaseDevice: (device::clReleaseDevice),
    clCreateImage: (image::clCreateImage),
    clCreateProgramWithBuiltInKernels: (program::clCreateProgramWithBuiltInKernels),
    clCompileProgram: (program::clCompileProgram),
    clLinkProgram: (program::clLinkProgram),
    clUnloadPlatformCompiler: (platform::clUnloadPlatformCompiler),
    clGetKernelArgInfo: (kernel::clGetKernelArgInfo),
    clEnqueueFillBuffer: (memory::clEnqueueFillBuffer),
    clEnqueueFillImage: (image::clEnqueueFillImage),
    clEnqueueMigrateMemObjects: (memory::clEnqueueMigrateMemObjects),
    clEnqueueMarkerWithWaitList: (event::clEnqueueMarkerWithWaitList),
    clEnqueueBarrierWithWaitList: (event::clEnqueueBarrierWithWaitList),
    clGetExtensionFunctionAddressForPlatform: (clGetExtensionFunctionAddressForPlatform),
    clCreateFromGLTexture: (unsupported::clCreateFromGLTexture),
    clGetDeviceIDsFromD3D11KHR: NONE,
    clCreateFromD3D11BufferKHR: NONE,
    clCreateFromD3D11Texture2DKHR: NONE,
    clCreateFromD3D11Texture3DKHR: NONE,
    clCreateFromDX9MediaSurfaceKHR: NONE,
    clEnqueueAcquireD3D11ObjectsKHR: NONE,
    clEnqueueReleaseD3D11ObjectsKHR: NONE,
    clGetDeviceIDsFromDX9MediaAdapterKHR: NONE,
    clEnqueueAcquireDX9MediaSurfacesKHR: NONE,
    clEnqueueReleaseDX9MediaSurfacesKHR: NONE,
    clCreateFromEGLImageKHR: (unsupported::clCreateFromEGLImageKHR),
    clEnqueueAcquireEGLObjectsKHR: (unsupported::clEnqueueAcquireEGLObjectsKHR),
    clEnqueueReleaseEGLObjectsKHR: (unsupported::clEnqueueReleaseEGLObjectsKHR),
    clCreateEventFromEGLSyncKHR: (unsupported::clCreateEventFromEGLSyncKHR),
    clCreateCommandQueueWithProperties: (queue::clCreateCommandQueueWithProperties),
    clCreatePipe: (unsupported::clCreatePipe),
    clGetPipeInfo: (unsupported::clGetPipeInfo),
    clSVMAlloc: (svm::clSVMAlloc),
    clSVMFree: (svm::clSVMFree),
    clEnqueueSVMFree: (svm::clEnqueueSVMFree),
    clEnqueueSVMMemcpy: (svm::clEnqueueSVMMemcpy),
    clEnqueueSVMMemFill: (svm::clEnqueueSVMMemFill),
    clEnqueueSVMMap: (svm::clEnqueueSVMMap),
    clEnqueueSVMUnmap: (svm::clEnqueueSVMUnmap),
    clCreateSamplerWithProperties: (sampler::clCreateSamplerWithProperties),
    clSetKernelArgSVMPointer: (svm::clSetKernelArgSVMPointer),
    clSetKernelExecInfo: (svm::clSetKernelExecInfo),
    clGetKernelSubGroupInfoKHR: (kernel::clGetKernelSubGroupInfo),
    clCloneKernel: (kernel::clCloneKernel),
    clCreateProgramWithIL: (unsupported::clCreateProgramWithIL),
    clEnqueueSVMMigrateMem: (svm::clEnqueueSVMMigrateMem),
    clGetDeviceAndHostTimer: (unsupported::clGetDeviceAndHostTimer),
    clGetHostTimer: (unsupported::clGetHostTimer),
    clGetKernelSubGroupInfo: (kernel::clGetKernelSubGroupInfo),
    clSetDefaultDeviceCommandQueue: (unsupported::clSetDefaultDeviceCommandQueue),
    clSetProgramReleaseCallback: (unsupported::clSetProgramReleaseCallback),
    clSetProgramSpecializationConstant: (unsupported::clSetProgramSpecializationConstant),
    clCreateBufferWithProperties: (memory::clCreateBufferWithProperties),
    clCreateImageWithProperties: (image::clCreateImageWithProperties),
    clSetContextDestructorCallback: (context::clSetContextDestructorCallback),
}

const _: () = assert!(std::mem::size_of::<Dispatch>() == DISPATCH_SLOTS * std::mem::size_of::<usize>());

/// Makes every object created from now on dispatch through our table.
pub fn install() {
    crate::cl::object::install_dispatch_table(&DISPATCH as *const Dispatch as *const c_void);
}

/// Extension functions reachable through `clGetExtensionFunctionAddress*`.
fn extension_function(name: &str) -> *mut c_void {
    match name {
        "clIcdGetPlatformIDsKHR" => clIcdGetPlatformIDsKHR as *mut c_void,
        "clIcdGetFunctionAddressForPlatformKHR" => clIcdGetFunctionAddressForPlatformKHR as *mut c_void,
        "clIcdSetPlatformDispatchDataKHR" => clIcdSetPlatformDispatchDataKHR as *mut c_void,
        "clGetPlatformInfo" => platform::clGetPlatformInfo as *mut c_void,
        _ => std::ptr::null_mut(),
    }
}

unsafe fn name_of<'a>(name: *const std::ffi::c_char) -> Option<&'a str> {
    if name.is_null() {
        return None;
    }
    std::ffi::CStr::from_ptr(name).to_str().ok()
}

#[no_mangle]
pub unsafe extern "system" fn clGetExtensionFunctionAddress(name: *const std::ffi::c_char) -> *mut c_void {
    name_of(name).map_or(std::ptr::null_mut(), extension_function)
}

pub unsafe extern "system" fn clGetExtensionFunctionAddressForPlatform(
    platform: cl_platform_id,
    name: *const std::ffi::c_char,
) -> *mut c_void {
    if platform.is_null() || platform::check(platform).is_err() {
        return std::ptr::null_mut();
    }
    clGetExtensionFunctionAddress(name)
}

#[no_mangle]
pub unsafe extern "system" fn clIcdGetPlatformIDsKHR(
    num_entries: cl_uint,
    platforms: *mut cl_platform_id,
    num_platforms: *mut cl_uint,
) -> cl_int {
    platform::get_platform_ids(num_entries, platforms, num_platforms)
}

pub unsafe extern "system" fn clIcdGetFunctionAddressForPlatformKHR(
    platform: cl_platform_id,
    name: *const std::ffi::c_char,
) -> *mut c_void {
    if platform::check(platform).is_err() {
        return std::ptr::null_mut();
    }
    let Some(name) = name_of(name) else { return std::ptr::null_mut() };
    let f = table_function(name);
    if f.is_null() || f as isize == CL_ICD2_TAG_KHR {
        extension_function(name)
    } else {
        f
    }
}

pub unsafe extern "system" fn clIcdSetPlatformDispatchDataKHR(platform: cl_platform_id, data: *mut c_void) -> cl_int {
    match platform::check(platform) {
        Ok(()) => {
            platform::set_dispatch_data(data);
            CL_SUCCESS
        }
        Err(e) => e,
    }
}
