#![allow(unused_variables)]
//! Entry points of optional features this driver does not report: each validates its
//! arguments as far as the spec asks without the feature, then returns the error the spec gives
//! when no device supports it.
//! Images: CL_DEVICE_IMAGE_SUPPORT is false. SVM, pipes, IL, sub-groups, device timers, on-device
//! queues and program-scope destructors: their capability queries report none. GL/EGL sharing
//! and native kernels are not in the extension list or the execution capabilities.

use super::entry::entry;
use crate::cl::CLResult;
use crate::cl::object::{get, get_list};
use crate::cl::types::*;
use crate::core::context::Context;
use crate::core::device::Device;
use crate::core::kernel::Kernel;
use crate::core::memory::Mem;
use crate::core::program::Program;
use crate::core::queue::Queue;
use super::util::{finish_enqueue, wait_list};
use std::sync::Arc;

type Ptr = *mut c_void;
type CPtr = *const c_void;
type Sizes = *const usize;
type Events = *const cl_event;

fn context(c: cl_context, err: cl_int) -> CLResult<cl_mem> {
    get::<Context>(c)?;
    Err(err)
}

fn queue(q: cl_command_queue, err: cl_int) -> CLResult<()> {
    get::<Queue>(q)?;
    Err(err)
}

entry! { fn clCreateImage2D(c: cl_context, f: cl_mem_flags, fmt: CPtr, w: usize, h: usize, p: usize, host: Ptr; errcode_ret) -> CLResult<cl_mem> { context(c, CL_INVALID_OPERATION) } }
entry! { fn clCreateImage3D(c: cl_context, f: cl_mem_flags, fmt: CPtr, w: usize, h: usize, d: usize, rp: usize, sp: usize, host: Ptr; errcode_ret) -> CLResult<cl_mem> { context(c, CL_INVALID_OPERATION) } }
entry! { fn clCreateImage(c: cl_context, f: cl_mem_flags, fmt: CPtr, desc: CPtr, host: Ptr; errcode_ret) -> CLResult<cl_mem> { context(c, CL_INVALID_OPERATION) } }
entry! { fn clCreateImageWithProperties(c: cl_context, props: CPtr, f: cl_mem_flags, fmt: CPtr, desc: CPtr, host: Ptr; errcode_ret) -> CLResult<cl_mem> { context(c, CL_INVALID_OPERATION) } }

const IMAGE_TYPES: [cl_mem_object_type; 6] = [
    CL_MEM_OBJECT_IMAGE1D,
    CL_MEM_OBJECT_IMAGE1D_BUFFER,
    CL_MEM_OBJECT_IMAGE1D_ARRAY,
    CL_MEM_OBJECT_IMAGE2D,
    CL_MEM_OBJECT_IMAGE2D_ARRAY,
    CL_MEM_OBJECT_IMAGE3D,
];

entry! {
    fn clGetSupportedImageFormats(c: cl_context, f: cl_mem_flags, ty: cl_mem_object_type, n: cl_uint, formats: Ptr, count: *mut cl_uint) -> CLResult<()> {
        get::<Context>(c)?;
        // The arguments are checked as they would be with image support; the list is empty.
        super::memory::check_flags(f)?;
        if !IMAGE_TYPES.contains(&ty) || (n == 0 && !formats.is_null()) {
            return Err(CL_INVALID_VALUE);
        }
        super::util::write_opt(count, 0);
        Ok(())
    }
}

// No image object can exist, so every image handle is invalid.
entry! { fn clGetImageInfo(m: cl_mem, p: cl_image_info, s: usize, v: Ptr, r: *mut usize) -> CLResult<()> { Err(CL_INVALID_MEM_OBJECT) } }
entry! { fn clEnqueueReadImage(q: cl_command_queue, m: cl_mem, b: cl_bool, o: Sizes, r: Sizes, rp: usize, sp: usize, p: Ptr, n: cl_uint, l: Events, e: *mut cl_event) -> CLResult<()> { queue(q, CL_INVALID_MEM_OBJECT) } }
entry! { fn clEnqueueWriteImage(q: cl_command_queue, m: cl_mem, b: cl_bool, o: Sizes, r: Sizes, rp: usize, sp: usize, p: CPtr, n: cl_uint, l: Events, e: *mut cl_event) -> CLResult<()> { queue(q, CL_INVALID_MEM_OBJECT) } }
entry! { fn clEnqueueCopyImage(q: cl_command_queue, s: cl_mem, d: cl_mem, so: Sizes, d_o: Sizes, r: Sizes, n: cl_uint, l: Events, e: *mut cl_event) -> CLResult<()> { queue(q, CL_INVALID_MEM_OBJECT) } }
entry! { fn clEnqueueCopyImageToBuffer(q: cl_command_queue, s: cl_mem, d: cl_mem, so: Sizes, r: Sizes, off: usize, n: cl_uint, l: Events, e: *mut cl_event) -> CLResult<()> { queue(q, CL_INVALID_MEM_OBJECT) } }
entry! { fn clEnqueueCopyBufferToImage(q: cl_command_queue, s: cl_mem, d: cl_mem, off: usize, d_o: Sizes, r: Sizes, n: cl_uint, l: Events, e: *mut cl_event) -> CLResult<()> { queue(q, CL_INVALID_MEM_OBJECT) } }
entry! { fn clEnqueueFillImage(q: cl_command_queue, m: cl_mem, c: CPtr, o: Sizes, r: Sizes, n: cl_uint, l: Events, e: *mut cl_event) -> CLResult<()> { queue(q, CL_INVALID_MEM_OBJECT) } }
entry! {
    fn clEnqueueMapImage(q: cl_command_queue, m: cl_mem, b: cl_bool, f: cl_map_flags, o: Sizes, r: Sizes, rp: *mut usize, sp: *mut usize, n: cl_uint, l: Events, e: *mut cl_event; errcode_ret) -> CLResult<Ptr> {
        queue(q, CL_INVALID_MEM_OBJECT).map(|()| std::ptr::null_mut())
    }
}

entry! { fn clCreateSampler(c: cl_context, norm: cl_bool, a: cl_addressing_mode, f: cl_filter_mode; errcode_ret) -> CLResult<cl_sampler> { context(c, CL_INVALID_OPERATION) } }
entry! { fn clCreateSamplerWithProperties(c: cl_context, p: CPtr; errcode_ret) -> CLResult<cl_sampler> { context(c, CL_INVALID_OPERATION) } }
entry! { fn clRetainSampler(s: cl_sampler) -> CLResult<()> { Err(CL_INVALID_SAMPLER) } }
entry! { fn clReleaseSampler(s: cl_sampler) -> CLResult<()> { Err(CL_INVALID_SAMPLER) } }
entry! { fn clGetSamplerInfo(s: cl_sampler, p: cl_sampler_info, z: usize, v: Ptr, r: *mut usize) -> CLResult<()> { Err(CL_INVALID_SAMPLER) } }

entry! {
    fn clEnqueueNativeKernel(q: cl_command_queue, f: CPtr, args: Ptr, cb: usize, nm: cl_uint, ml: *const cl_mem, loc: *const CPtr, n: cl_uint, l: Events, e: *mut cl_event) -> CLResult<()> {
        queue(q, CL_INVALID_OPERATION)
    }
}

// cl_khr_gl_sharing, cl_khr_gl_event, cl_khr_egl_*: no context is ever created from a GL or
// EGL context, and no memory object or event from a GL or EGL object.
entry! { fn clCreateFromGLBuffer(c: cl_context, f: cl_mem_flags, b: cl_uint; errcode_ret) -> CLResult<cl_mem> { context(c, CL_INVALID_CONTEXT) } }
entry! { fn clCreateFromGLTexture(c: cl_context, f: cl_mem_flags, t: cl_uint, m: cl_int, tex: cl_uint; errcode_ret) -> CLResult<cl_mem> { context(c, CL_INVALID_CONTEXT) } }
entry! { fn clCreateFromGLTexture2D(c: cl_context, f: cl_mem_flags, t: cl_uint, m: cl_int, tex: cl_uint; errcode_ret) -> CLResult<cl_mem> { context(c, CL_INVALID_CONTEXT) } }
entry! { fn clCreateFromGLTexture3D(c: cl_context, f: cl_mem_flags, t: cl_uint, m: cl_int, tex: cl_uint; errcode_ret) -> CLResult<cl_mem> { context(c, CL_INVALID_CONTEXT) } }
entry! { fn clCreateFromGLRenderbuffer(c: cl_context, f: cl_mem_flags, rb: cl_uint; errcode_ret) -> CLResult<cl_mem> { context(c, CL_INVALID_CONTEXT) } }
// No memory object has a GL object behind it.
entry! { fn clGetGLObjectInfo(m: cl_mem, t: *mut cl_uint, name: *mut cl_uint) -> CLResult<()> { get::<Mem>(m)?; Err(CL_INVALID_GL_OBJECT) } }
entry! { fn clGetGLTextureInfo(m: cl_mem, p: cl_uint, s: usize, v: Ptr, r: *mut usize) -> CLResult<()> { get::<Mem>(m)?; Err(CL_INVALID_GL_OBJECT) } }
entry! { fn clEnqueueAcquireGLObjects(q: cl_command_queue, c: cl_uint, o: *const cl_mem, n: cl_uint, l: Events, e: *mut cl_event) -> CLResult<()> { queue(q, CL_INVALID_CONTEXT) } }
entry! { fn clEnqueueReleaseGLObjects(q: cl_command_queue, c: cl_uint, o: *const cl_mem, n: cl_uint, l: Events, e: *mut cl_event) -> CLResult<()> { queue(q, CL_INVALID_CONTEXT) } }
/// The context properties cl_khr_gl_sharing defines, and the platform.
const GL_PROPERTIES: [cl_context_properties; 6] =
    [CL_CONTEXT_PLATFORM as cl_context_properties, CL_GL_CONTEXT_KHR, CL_EGL_DISPLAY_KHR, CL_GLX_DISPLAY_KHR, CL_WGL_HDC_KHR, CL_CGL_SHAREGROUP_KHR];

entry! {
    fn clGetGLContextInfoKHR(p: *const cl_context_properties, n: cl_gl_context_info, s: usize, v: Ptr, r: *mut usize) -> CLResult<()> {
        let (pairs, _) = super::util::properties(p);
        let known_param = [CL_CURRENT_DEVICE_FOR_GL_CONTEXT_KHR, CL_DEVICES_FOR_GL_CONTEXT_KHR].contains(&n);
        if !known_param || pairs.iter().any(|(name, _)| !GL_PROPERTIES.contains(name)) {
            return Err(CL_INVALID_VALUE);
        }
        // No window-system binding API is supported.
        Err(CL_INVALID_OPERATION)
    }
}
entry! { fn clCreateEventFromGLsyncKHR(c: cl_context, sync: Ptr; errcode_ret) -> CLResult<cl_event> { context(c, CL_INVALID_CONTEXT) } }
entry! { fn clCreateFromEGLImageKHR(c: cl_context, d: Ptr, i: Ptr, f: cl_mem_flags, p: CPtr; errcode_ret) -> CLResult<cl_mem> { context(c, CL_INVALID_OPERATION) } }
entry! { fn clEnqueueAcquireEGLObjectsKHR(q: cl_command_queue, c: cl_uint, o: *const cl_mem, n: cl_uint, l: Events, e: *mut cl_event) -> CLResult<()> { egl_objects(q, (c, o), (n, l), e, CL_COMMAND_ACQUIRE_EGL_OBJECTS_KHR) } }
entry! { fn clEnqueueReleaseEGLObjectsKHR(q: cl_command_queue, c: cl_uint, o: *const cl_mem, n: cl_uint, l: Events, e: *mut cl_event) -> CLResult<()> { egl_objects(q, (c, o), (n, l), e, CL_COMMAND_RELEASE_EGL_OBJECTS_KHR) } }
entry! { fn clCreateEventFromEGLSyncKHR(c: cl_context, s: Ptr, d: Ptr; errcode_ret) -> CLResult<cl_event> { context(c, CL_INVALID_CONTEXT) } }

/// Acquiring or releasing EGL objects: no memory object is made from an EGL resource, so any
/// valid one named is CL_INVALID_EGL_OBJECT_KHR; an empty list does nothing, as a command that
/// completes in its turn (the application may ask for its event).
unsafe fn egl_objects(q: cl_command_queue, (count, objects): (cl_uint, *const cl_mem), (n, list): (cl_uint, Events), event: *mut cl_event, ty: cl_command_type) -> CLResult<()> {
    let q = get::<Queue>(q)?;
    let mems = get_list::<Mem>(count, objects, CL_INVALID_VALUE)?;
    if mems.iter().any(|m| !Arc::ptr_eq(&m.context, &q.context)) {
        return Err(CL_INVALID_MEM_OBJECT);
    }
    let deps = wait_list(&q, n, list)?;
    if !mems.is_empty() {
        return Err(CL_INVALID_EGL_OBJECT_KHR);
    }
    finish_enqueue(&q, q.enqueue_sync_point(ty, deps, false), false, event)
}

entry! { fn clCreatePipe(c: cl_context, f: cl_mem_flags, size: cl_uint, max: cl_uint, p: CPtr; errcode_ret) -> CLResult<cl_mem> { context(c, CL_INVALID_OPERATION) } }
entry! { fn clGetPipeInfo(m: cl_mem, p: cl_uint, s: usize, v: Ptr, r: *mut usize) -> CLResult<()> { Err(CL_INVALID_MEM_OBJECT) } }

/// `clSVMAlloc` has no error code: NULL means failure.
pub unsafe extern "system" fn clSVMAlloc(_c: cl_context, _f: cl_bitfield, _size: usize, _align: cl_uint) -> Ptr {
    std::ptr::null_mut()
}
/// Nothing can have been allocated by `clSVMAlloc`.
pub unsafe extern "system" fn clSVMFree(_c: cl_context, _p: Ptr) {}
entry! { fn clEnqueueSVMFree(q: cl_command_queue, c: cl_uint, p: *const Ptr, f: CPtr, u: Ptr, n: cl_uint, l: Events, e: *mut cl_event) -> CLResult<()> { queue(q, CL_INVALID_OPERATION) } }
entry! { fn clEnqueueSVMMemcpy(q: cl_command_queue, b: cl_bool, d: Ptr, s: CPtr, z: usize, n: cl_uint, l: Events, e: *mut cl_event) -> CLResult<()> { queue(q, CL_INVALID_OPERATION) } }
entry! { fn clEnqueueSVMMemFill(q: cl_command_queue, p: Ptr, pat: CPtr, ps: usize, z: usize, n: cl_uint, l: Events, e: *mut cl_event) -> CLResult<()> { queue(q, CL_INVALID_OPERATION) } }
entry! { fn clEnqueueSVMMap(q: cl_command_queue, b: cl_bool, f: cl_map_flags, p: Ptr, z: usize, n: cl_uint, l: Events, e: *mut cl_event) -> CLResult<()> { queue(q, CL_INVALID_OPERATION) } }
entry! { fn clEnqueueSVMUnmap(q: cl_command_queue, p: Ptr, n: cl_uint, l: Events, e: *mut cl_event) -> CLResult<()> { queue(q, CL_INVALID_OPERATION) } }
entry! { fn clEnqueueSVMMigrateMem(q: cl_command_queue, c: cl_uint, p: *const CPtr, s: Sizes, f: cl_mem_migration_flags, n: cl_uint, l: Events, e: *mut cl_event) -> CLResult<()> { queue(q, CL_INVALID_OPERATION) } }
entry! { fn clSetKernelArgSVMPointer(k: cl_kernel, i: cl_uint, p: CPtr) -> CLResult<()> { get::<Kernel>(k)?; Err(CL_INVALID_OPERATION) } }
entry! {
    fn clSetKernelExecInfo(k: cl_kernel, p: cl_uint, s: usize, v: CPtr) -> CLResult<()> {
        get::<Kernel>(k)?;
        // Without SVM no pointer can be passed and fine-grain system SVM cannot be turned on;
        // turning it off is allowed. The names and sizes are checked first.
        const BOOL: usize = std::mem::size_of::<cl_bool>();
        match p {
            CL_KERNEL_EXEC_INFO_SVM_PTRS if !s.is_multiple_of(std::mem::size_of::<CPtr>()) || (v.is_null() && s > 0) => Err(CL_INVALID_VALUE),
            CL_KERNEL_EXEC_INFO_SVM_PTRS => Err(CL_INVALID_OPERATION),
            CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM if s != BOOL || v.is_null() => Err(CL_INVALID_VALUE),
            CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM if (v as *const cl_bool).read_unaligned() != CL_FALSE => Err(CL_INVALID_OPERATION),
            CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM => Ok(()),
            _ => Err(CL_INVALID_VALUE),
        }
    }
}

entry! { fn clCreateProgramWithIL(c: cl_context, il: CPtr, len: usize; errcode_ret) -> CLResult<cl_program> { context(c, CL_INVALID_OPERATION) } }
entry! { fn clGetDeviceAndHostTimer(d: cl_device_id, dt: *mut cl_ulong, ht: *mut cl_ulong) -> CLResult<()> { get::<Device>(d)?; Err(CL_INVALID_OPERATION) } }
entry! { fn clGetHostTimer(d: cl_device_id, ht: *mut cl_ulong) -> CLResult<()> { get::<Device>(d)?; Err(CL_INVALID_OPERATION) } }
entry! {
    fn clSetDefaultDeviceCommandQueue(c: cl_context, d: cl_device_id, _queue: cl_command_queue) -> CLResult<()> {
        let context = get::<Context>(c)?;
        if !context.has_device(&get::<Device>(d)?) {
            return Err(CL_INVALID_DEVICE);
        }
        // No device has on-device queues: there is no default one to replace, whatever the
        // queue (CTS consistency_device_enqueue passes none and wants CL_INVALID_OPERATION).
        Err(CL_INVALID_OPERATION)
    }
}
entry! { fn clSetProgramReleaseCallback(p: cl_program, f: CPtr, u: Ptr) -> CLResult<()> { get::<Program>(p)?; Err(CL_INVALID_OPERATION) } }
entry! { fn clSetProgramSpecializationConstant(p: cl_program, id: cl_uint, s: usize, v: CPtr) -> CLResult<()> { get::<Program>(p)?; Err(CL_INVALID_OPERATION) } }
