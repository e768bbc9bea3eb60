#![allow(unused_variables)]
//! Entry points of optional features this driver does not report: each validates its
//! arguments as far as the spec asks without the feature, then returns the error the spec gives
//! when no device supports it.
//! Pipes, IL, sub-groups, device timers, on-device queues and program-scope destructors: their
//! capability queries report none. GL/EGL sharing
//! and native kernels are not in the extension list or the execution capabilities.

use super::entry::entry;
use crate::cl::CLResult;
use crate::cl::object::{get, get_list};
use crate::cl::types::*;
use crate::core::context::Context;
use crate::core::device::Device;
use crate::core::memory::Mem;
use crate::core::program::Program;
use crate::core::queue::Queue;
use super::util::{finish_enqueue, wait_list};
use std::sync::Arc;

type Ptr = *mut c_void;
type CPtr = *const c_void;
type Events = *const cl_event;

fn context(c: cl_context, err: cl_int) -> CLResult<cl_mem> {
    get::<Context>(c)?;
    Err(err)
}

fn queue(q: cl_command_queue, err: cl_int) -> CLResult<()> {
    get::<Queue>(q)?;
    Err(err)
}

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
