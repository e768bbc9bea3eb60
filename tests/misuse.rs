//! API misuse, entry point by entry point. Every slot of the ICD dispatch table (src/api/icd.rs,
//! TAG and NONE slots aside) is called with NULL, released and wrong-type handles, out-of-range
//! sizes and offsets, bad flags, bad wait lists and bad info queries, and must answer with the
//! error the OpenCL 3.0 specification lists for the case: never crash, hang or panic (a panic in
//! the driver comes back as CL_OUT_OF_HOST_MEMORY, which no case accepts). Each case has exactly
//! one thing wrong, so the spec leaves a single answer unless a comment says otherwise.
//!
//! The driver is called directly (tests/common/driver.rs), not through the ICD loader: the loader
//! reads a handle's dispatch table before the driver can check the handle.
//!
//! Released handles stay backed by live memory until the end (another object, or a command held
//! behind a user event, keeps each alive inside the driver): the allocator cannot give their
//! address to an object made later, which would make a "released" handle valid again. The
//! platform and root devices cannot be released, and no sampler can be made (no image support):
//! those kinds have no released handle, and samplers no valid one either.
//!
//! Where the spec leaves a choice (two errors apply, or an unsupported optional feature), a case
//! accepts each allowed answer and says why. The run ends with `misuse: N entry points, M cases`.
mod common;

use common::driver::Driver;
use common::*;
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::ffi::{c_char, c_void, CString};
use std::io::Write;
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// Any OpenCL handle: the driver must tell their kinds apart itself.
type H = *mut c_void;
type Ptr = *mut c_void;
type CPtr = *const c_void;
type Sizes = *const usize;
type List = *const H;
type Out = *mut H;
type Err = *mut cl_int;
/// Callbacks are passed as plain pointers (the entry points take them as C function pointers).
type Func = *const c_void;

const CL_INVALID_EGL_OBJECT_KHR: cl_int = -1093;

/// Declares every entry point: a field holding the driver's function, and a method that records
/// which entry point runs (for the coverage check and the failure messages) and calls it.
macro_rules! api {
    ($($name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)?;)*) => {
        #[allow(non_snake_case)]
        struct Api { $($name: unsafe extern "system" fn($($ty),*) $(-> $ret)?,)* }

        #[allow(non_snake_case, clippy::too_many_arguments)]
        impl Api {
            fn load(drv: &Driver) -> Api {
                Api { $($name: drv.func(&CString::new(stringify!($name)).expect("name")),)* }
            }
            $(
                unsafe fn $name(&self, $($arg: $ty),*) $(-> $ret)? {
                    entered(stringify!($name));
                    (self.$name)($($arg),*)
                }
            )*
        }
    };
}

api! {
    clGetPlatformInfo(p: H, param: cl_uint, size: usize, value: Ptr, ret: *mut usize) -> cl_int;
    clGetDeviceIDs(p: H, ty: cl_ulong, n: cl_uint, out: Out, n_ret: *mut cl_uint) -> cl_int;
    clGetDeviceInfo(d: H, param: cl_uint, size: usize, value: Ptr, ret: *mut usize) -> cl_int;
    clCreateContext(props: *const isize, n: cl_uint, devices: List, notify: Func, user: Ptr, err: Err) -> H;
    clCreateContextFromType(props: *const isize, ty: cl_ulong, notify: Func, user: Ptr, err: Err) -> H;
    clRetainContext(c: H) -> cl_int;
    clReleaseContext(c: H) -> cl_int;
    clGetContextInfo(c: H, param: cl_uint, size: usize, value: Ptr, ret: *mut usize) -> cl_int;
    clCreateCommandQueue(c: H, d: H, props: cl_ulong, err: Err) -> H;
    clRetainCommandQueue(q: H) -> cl_int;
    clReleaseCommandQueue(q: H) -> cl_int;
    clGetCommandQueueInfo(q: H, param: cl_uint, size: usize, value: Ptr, ret: *mut usize) -> cl_int;
    clSetCommandQueueProperty(q: H, props: cl_ulong, enable: cl_uint, old: *mut cl_ulong) -> cl_int;
    clCreateBuffer(c: H, flags: cl_ulong, size: usize, host: Ptr, err: Err) -> H;
    clCreateImage2D(c: H, flags: cl_ulong, fmt: CPtr, w: usize, h: usize, pitch: usize, host: Ptr, err: Err) -> H;
    clCreateImage3D(c: H, flags: cl_ulong, fmt: CPtr, w: usize, h: usize, d: usize, rp: usize, sp: usize, host: Ptr, err: Err) -> H;
    clRetainMemObject(m: H) -> cl_int;
    clReleaseMemObject(m: H) -> cl_int;
    clGetSupportedImageFormats(c: H, flags: cl_ulong, ty: cl_uint, n: cl_uint, formats: Ptr, n_ret: *mut cl_uint) -> cl_int;
    clGetMemObjectInfo(m: H, param: cl_uint, size: usize, value: Ptr, ret: *mut usize) -> cl_int;
    clGetImageInfo(m: H, param: cl_uint, size: usize, value: Ptr, ret: *mut usize) -> cl_int;
    clCreateSampler(c: H, normalized: cl_uint, addressing: cl_uint, filter: cl_uint, err: Err) -> H;
    clRetainSampler(s: H) -> cl_int;
    clReleaseSampler(s: H) -> cl_int;
    clGetSamplerInfo(s: H, param: cl_uint, size: usize, value: Ptr, ret: *mut usize) -> cl_int;
    clCreateProgramWithSource(c: H, n: cl_uint, strings: *const *const c_char, lengths: Sizes, err: Err) -> H;
    clCreateProgramWithBinary(c: H, n: cl_uint, devices: List, lengths: Sizes, binaries: *const *const u8, status: Err, err: Err) -> H;
    clRetainProgram(p: H) -> cl_int;
    clReleaseProgram(p: H) -> cl_int;
    clBuildProgram(p: H, n: cl_uint, devices: List, options: *const c_char, notify: Func, user: Ptr) -> cl_int;
    clGetProgramInfo(p: H, param: cl_uint, size: usize, value: Ptr, ret: *mut usize) -> cl_int;
    clGetProgramBuildInfo(p: H, d: H, param: cl_uint, size: usize, value: Ptr, ret: *mut usize) -> cl_int;
    clCreateKernel(p: H, name: *const c_char, err: Err) -> H;
    clCreateKernelsInProgram(p: H, n: cl_uint, kernels: Out, n_ret: *mut cl_uint) -> cl_int;
    clRetainKernel(k: H) -> cl_int;
    clReleaseKernel(k: H) -> cl_int;
    clSetKernelArg(k: H, index: cl_uint, size: usize, value: CPtr) -> cl_int;
    clGetKernelInfo(k: H, param: cl_uint, size: usize, value: Ptr, ret: *mut usize) -> cl_int;
    clGetKernelWorkGroupInfo(k: H, d: H, param: cl_uint, size: usize, value: Ptr, ret: *mut usize) -> cl_int;
    clWaitForEvents(n: cl_uint, list: List) -> cl_int;
    clGetEventInfo(e: H, param: cl_uint, size: usize, value: Ptr, ret: *mut usize) -> cl_int;
    clRetainEvent(e: H) -> cl_int;
    clReleaseEvent(e: H) -> cl_int;
    clGetEventProfilingInfo(e: H, param: cl_uint, size: usize, value: Ptr, ret: *mut usize) -> cl_int;
    clFlush(q: H) -> cl_int;
    clFinish(q: H) -> cl_int;
    clEnqueueReadBuffer(q: H, m: H, blocking: cl_uint, offset: usize, size: usize, ptr: Ptr, n: cl_uint, list: List, event: Out) -> cl_int;
    clEnqueueWriteBuffer(q: H, m: H, blocking: cl_uint, offset: usize, size: usize, ptr: CPtr, n: cl_uint, list: List, event: Out) -> cl_int;
    clEnqueueCopyBuffer(q: H, src: H, dst: H, src_offset: usize, dst_offset: usize, size: usize, n: cl_uint, list: List, event: Out) -> cl_int;
    clEnqueueReadImage(q: H, m: H, blocking: cl_uint, origin: Sizes, region: Sizes, rp: usize, sp: usize, ptr: Ptr, n: cl_uint, list: List, event: Out) -> cl_int;
    clEnqueueWriteImage(q: H, m: H, blocking: cl_uint, origin: Sizes, region: Sizes, rp: usize, sp: usize, ptr: CPtr, n: cl_uint, list: List, event: Out) -> cl_int;
    clEnqueueCopyImage(q: H, src: H, dst: H, src_origin: Sizes, dst_origin: Sizes, region: Sizes, n: cl_uint, list: List, event: Out) -> cl_int;
    clEnqueueCopyImageToBuffer(q: H, src: H, dst: H, origin: Sizes, region: Sizes, offset: usize, n: cl_uint, list: List, event: Out) -> cl_int;
    clEnqueueCopyBufferToImage(q: H, src: H, dst: H, offset: usize, origin: Sizes, region: Sizes, n: cl_uint, list: List, event: Out) -> cl_int;
    clEnqueueMapBuffer(q: H, m: H, blocking: cl_uint, flags: cl_ulong, offset: usize, size: usize, n: cl_uint, list: List, event: Out, err: Err) -> Ptr;
    clEnqueueMapImage(q: H, m: H, blocking: cl_uint, flags: cl_ulong, origin: Sizes, region: Sizes, rp: *mut usize, sp: *mut usize, n: cl_uint, list: List, event: Out, err: Err) -> Ptr;
    clEnqueueUnmapMemObject(q: H, m: H, ptr: Ptr, n: cl_uint, list: List, event: Out) -> cl_int;
    clEnqueueNDRangeKernel(q: H, k: H, dim: cl_uint, offset: Sizes, global: Sizes, local: Sizes, n: cl_uint, list: List, event: Out) -> cl_int;
    clEnqueueTask(q: H, k: H, n: cl_uint, list: List, event: Out) -> cl_int;
    clEnqueueNativeKernel(q: H, f: Func, args: Ptr, cb: usize, n_mem: cl_uint, mems: List, locs: *const CPtr, n: cl_uint, list: List, event: Out) -> cl_int;
    clEnqueueMarker(q: H, event: Out) -> cl_int;
    clEnqueueWaitForEvents(q: H, n: cl_uint, list: List) -> cl_int;
    clEnqueueBarrier(q: H) -> cl_int;
    clGetExtensionFunctionAddress(name: *const c_char) -> Ptr;
    clCreateFromGLBuffer(c: H, flags: cl_ulong, buffer: cl_uint, err: Err) -> H;
    clCreateFromGLTexture2D(c: H, flags: cl_ulong, target: cl_uint, level: cl_int, texture: cl_uint, err: Err) -> H;
    clCreateFromGLTexture3D(c: H, flags: cl_ulong, target: cl_uint, level: cl_int, texture: cl_uint, err: Err) -> H;
    clCreateFromGLRenderbuffer(c: H, flags: cl_ulong, renderbuffer: cl_uint, err: Err) -> H;
    clGetGLObjectInfo(m: H, ty: *mut cl_uint, name: *mut cl_uint) -> cl_int;
    clGetGLTextureInfo(m: H, param: cl_uint, size: usize, value: Ptr, ret: *mut usize) -> cl_int;
    clEnqueueAcquireGLObjects(q: H, n_mem: cl_uint, mems: List, n: cl_uint, list: List, event: Out) -> cl_int;
    clEnqueueReleaseGLObjects(q: H, n_mem: cl_uint, mems: List, n: cl_uint, list: List, event: Out) -> cl_int;
    clGetGLContextInfoKHR(props: *const isize, param: cl_uint, size: usize, value: Ptr, ret: *mut usize) -> cl_int;
    clSetEventCallback(e: H, on: cl_int, f: Func, user: Ptr) -> cl_int;
    clCreateSubBuffer(m: H, flags: cl_ulong, ty: cl_uint, info: CPtr, err: Err) -> H;
    clSetMemObjectDestructorCallback(m: H, f: Func, user: Ptr) -> cl_int;
    clCreateUserEvent(c: H, err: Err) -> H;
    clSetUserEventStatus(e: H, status: cl_int) -> cl_int;
    clEnqueueReadBufferRect(q: H, m: H, blocking: cl_uint, buffer_origin: Sizes, host_origin: Sizes, region: Sizes, brp: usize, bsp: usize, hrp: usize, hsp: usize, ptr: Ptr, n: cl_uint, list: List, event: Out) -> cl_int;
    clEnqueueWriteBufferRect(q: H, m: H, blocking: cl_uint, buffer_origin: Sizes, host_origin: Sizes, region: Sizes, brp: usize, bsp: usize, hrp: usize, hsp: usize, ptr: CPtr, n: cl_uint, list: List, event: Out) -> cl_int;
    clEnqueueCopyBufferRect(q: H, src: H, dst: H, src_origin: Sizes, dst_origin: Sizes, region: Sizes, srp: usize, ssp: usize, drp: usize, dsp: usize, n: cl_uint, list: List, event: Out) -> cl_int;
    clCreateSubDevicesEXT(d: H, props: *const cl_ulong, n: cl_uint, out: Out, n_ret: *mut cl_uint) -> cl_int;
    clRetainDeviceEXT(d: H) -> cl_int;
    clReleaseDeviceEXT(d: H) -> cl_int;
    clCreateEventFromGLsyncKHR(c: H, sync: Ptr, err: Err) -> H;
    clCreateSubDevices(d: H, props: *const isize, n: cl_uint, out: Out, n_ret: *mut cl_uint) -> cl_int;
    clRetainDevice(d: H) -> cl_int;
    clReleaseDevice(d: H) -> cl_int;
    clCreateImage(c: H, flags: cl_ulong, fmt: CPtr, desc: CPtr, host: Ptr, err: Err) -> H;
    clCreateProgramWithBuiltInKernels(c: H, n: cl_uint, devices: List, names: *const c_char, err: Err) -> H;
    clCompileProgram(p: H, n: cl_uint, devices: List, options: *const c_char, n_headers: cl_uint, headers: List, names: *const *const c_char, notify: Func, user: Ptr) -> cl_int;
    clLinkProgram(c: H, n: cl_uint, devices: List, options: *const c_char, n_inputs: cl_uint, inputs: List, notify: Func, user: Ptr, err: Err) -> H;
    clUnloadPlatformCompiler(p: H) -> cl_int;
    clGetKernelArgInfo(k: H, index: cl_uint, param: cl_uint, size: usize, value: Ptr, ret: *mut usize) -> cl_int;
    clEnqueueFillBuffer(q: H, m: H, pattern: CPtr, pattern_size: usize, offset: usize, size: usize, n: cl_uint, list: List, event: Out) -> cl_int;
    clEnqueueFillImage(q: H, m: H, color: CPtr, origin: Sizes, region: Sizes, n: cl_uint, list: List, event: Out) -> cl_int;
    clEnqueueMigrateMemObjects(q: H, n_mem: cl_uint, mems: List, flags: cl_ulong, n: cl_uint, list: List, event: Out) -> cl_int;
    clEnqueueMarkerWithWaitList(q: H, n: cl_uint, list: List, event: Out) -> cl_int;
    clEnqueueBarrierWithWaitList(q: H, n: cl_uint, list: List, event: Out) -> cl_int;
    clGetExtensionFunctionAddressForPlatform(p: H, name: *const c_char) -> Ptr;
    clCreateFromGLTexture(c: H, flags: cl_ulong, target: cl_uint, level: cl_int, texture: cl_uint, err: Err) -> H;
    clCreateFromEGLImageKHR(c: H, display: Ptr, image: Ptr, flags: cl_ulong, props: *const isize, err: Err) -> H;
    clEnqueueAcquireEGLObjectsKHR(q: H, n_mem: cl_uint, mems: List, n: cl_uint, list: List, event: Out) -> cl_int;
    clEnqueueReleaseEGLObjectsKHR(q: H, n_mem: cl_uint, mems: List, n: cl_uint, list: List, event: Out) -> cl_int;
    clCreateEventFromEGLSyncKHR(c: H, sync: Ptr, display: Ptr, err: Err) -> H;
    clCreateCommandQueueWithProperties(c: H, d: H, props: *const cl_ulong, err: Err) -> H;
    clCreatePipe(c: H, flags: cl_ulong, packet_size: cl_uint, max_packets: cl_uint, props: *const isize, err: Err) -> H;
    clGetPipeInfo(m: H, param: cl_uint, size: usize, value: Ptr, ret: *mut usize) -> cl_int;
    clSVMAlloc(c: H, flags: cl_ulong, size: usize, alignment: cl_uint) -> Ptr;
    clSVMFree(c: H, ptr: Ptr);
    clEnqueueSVMFree(q: H, n_ptrs: cl_uint, ptrs: *const Ptr, f: Func, user: Ptr, n: cl_uint, list: List, event: Out) -> cl_int;
    clEnqueueSVMMemcpy(q: H, blocking: cl_uint, dst: Ptr, src: CPtr, size: usize, n: cl_uint, list: List, event: Out) -> cl_int;
    clEnqueueSVMMemFill(q: H, ptr: Ptr, pattern: CPtr, pattern_size: usize, size: usize, n: cl_uint, list: List, event: Out) -> cl_int;
    clEnqueueSVMMap(q: H, blocking: cl_uint, flags: cl_ulong, ptr: Ptr, size: usize, n: cl_uint, list: List, event: Out) -> cl_int;
    clEnqueueSVMUnmap(q: H, ptr: Ptr, n: cl_uint, list: List, event: Out) -> cl_int;
    clCreateSamplerWithProperties(c: H, props: *const cl_ulong, err: Err) -> H;
    clSetKernelArgSVMPointer(k: H, index: cl_uint, ptr: CPtr) -> cl_int;
    clSetKernelExecInfo(k: H, param: cl_uint, size: usize, value: CPtr) -> cl_int;
    clGetKernelSubGroupInfoKHR(k: H, d: H, param: cl_uint, in_size: usize, input: CPtr, size: usize, value: Ptr, ret: *mut usize) -> cl_int;
    clCloneKernel(k: H, err: Err) -> H;
    clCreateProgramWithIL(c: H, il: CPtr, length: usize, err: Err) -> H;
    clEnqueueSVMMigrateMem(q: H, n_ptrs: cl_uint, ptrs: *const CPtr, sizes: Sizes, flags: cl_ulong, n: cl_uint, list: List, event: Out) -> cl_int;
    clGetDeviceAndHostTimer(d: H, device_time: *mut cl_ulong, host_time: *mut cl_ulong) -> cl_int;
    clGetHostTimer(d: H, host_time: *mut cl_ulong) -> cl_int;
    clGetKernelSubGroupInfo(k: H, d: H, param: cl_uint, in_size: usize, input: CPtr, size: usize, value: Ptr, ret: *mut usize) -> cl_int;
    clSetDefaultDeviceCommandQueue(c: H, d: H, q: H) -> cl_int;
    clSetProgramReleaseCallback(p: H, f: Func, user: Ptr) -> cl_int;
    clSetProgramSpecializationConstant(p: H, id: cl_uint, size: usize, value: CPtr) -> cl_int;
    clCreateBufferWithProperties(c: H, props: *const cl_ulong, flags: cl_ulong, size: usize, host: Ptr, err: Err) -> H;
    clCreateImageWithProperties(c: H, props: *const cl_ulong, flags: cl_ulong, fmt: CPtr, desc: CPtr, host: Ptr, err: Err) -> H;
    clSetContextDestructorCallback(c: H, f: Func, user: Ptr) -> cl_int;
}

// ---------------------------------------------------------------------------------------------
// Progress, coverage and the tally of cases.

/// Entry points called so far, and the one running now (named in failures and by the watchdog).
static CALLED: Mutex<BTreeSet<&str>> = Mutex::new(BTreeSet::new());
static CURRENT: Mutex<&str> = Mutex::new("");
static PROGRESS: AtomicUsize = AtomicUsize::new(0);

fn entered(name: &'static str) {
    CALLED.lock().unwrap_or_else(|e| e.into_inner()).insert(name);
    *CURRENT.lock().unwrap_or_else(|e| e.into_inner()) = name;
    PROGRESS.fetch_add(1, Ordering::Relaxed);
}

fn current() -> &'static str {
    *CURRENT.lock().unwrap_or_else(|e| e.into_inner())
}

/// Aborts the run, naming the entry point, when no call returns for two minutes: a hang is a
/// failure, and a test that never ends reports nothing.
fn watchdog() {
    std::thread::spawn(|| {
        let mut last = usize::MAX;
        loop {
            std::thread::sleep(Duration::from_secs(120));
            let now = PROGRESS.load(Ordering::Relaxed);
            if now == last {
                let _ = writeln!(std::io::stderr(), "misuse: {} has not returned for 120 s", current());
                std::process::abort();
            }
            last = now;
        }
    });
}

/// `errcode_ret` left as it was: the driver did not write it.
const UNWRITTEN: cl_int = 1;
/// A call that reported an error but returned an object or pointer anyway.
const NOT_NULL: cl_int = 2;

fn code_name(code: cl_int) -> String {
    match code {
        UNWRITTEN => "errcode_ret not written".into(),
        NOT_NULL => "a non-NULL result with an error".into(),
        CL_INVALID_EGL_OBJECT_KHR => format!("CL_INVALID_EGL_OBJECT_KHR ({code})"),
        _ => format!("{} ({code})", error_name(code)),
    }
}

/// The error code of a call that returns an object or a pointer and writes `errcode_ret`.
fn err<R>(call: impl FnOnce(Err) -> *mut R) -> cl_int {
    let mut code = UNWRITTEN;
    let result = call(&mut code);
    if !result.is_null() && code != CL_SUCCESS {
        return NOT_NULL;
    }
    code
}

/// Cases run, and the failures among them.
#[derive(Default)]
struct Tally {
    cases: usize,
    failures: Vec<String>,
}

// ---------------------------------------------------------------------------------------------
// The objects the cases use: valid ones, released ones, and a second context.

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Platform,
    Device,
    Context,
    Queue,
    Mem,
    Program,
    Kernel,
    Event,
    Sampler,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Platform => "platform",
            Kind::Device => "device",
            Kind::Context => "context",
            Kind::Queue => "queue",
            Kind::Mem => "buffer",
            Kind::Program => "program",
            Kind::Kernel => "kernel",
            Kind::Event => "event",
            Kind::Sampler => "sampler",
        }
    }
}

const SOURCE: &str = "kernel void k(global int *p, int v, local int *l) { l[0] = v; p[get_global_id(0)] = l[0]; }\n\
                      kernel void nop(int x) { }\n";
const SIZE: usize = 1024;

/// An object the cases need; setup failing is a failure of the whole test.
fn made<R>(what: &str, call: impl FnOnce(Err) -> *mut R) -> *mut R {
    let mut code = UNWRITTEN;
    let result = call(&mut code);
    assert!(code == CL_SUCCESS && !result.is_null(), "setup: {what}: {}", code_name(code));
    result
}

unsafe fn release(a: &Api, kind: Kind, h: H) -> cl_int {
    match kind {
        Kind::Platform => CL_SUCCESS,
        Kind::Device => a.clReleaseDevice(h),
        Kind::Context => a.clReleaseContext(h),
        Kind::Queue => a.clReleaseCommandQueue(h),
        Kind::Mem => a.clReleaseMemObject(h),
        Kind::Program => a.clReleaseProgram(h),
        Kind::Kernel => a.clReleaseKernel(h),
        Kind::Event => a.clReleaseEvent(h),
        Kind::Sampler => a.clReleaseSampler(h),
    }
}

unsafe fn new_context(a: &Api, device: H) -> H {
    made("context", |e| a.clCreateContext(null(), 1, &device, null(), null_mut(), e))
}

unsafe fn new_queue(a: &Api, context: H, device: H, props: cl_ulong) -> H {
    made("queue", |e| a.clCreateCommandQueue(context, device, props, e))
}

unsafe fn new_buffer(a: &Api, context: H, flags: cl_ulong, size: usize) -> H {
    made("buffer", |e| a.clCreateBuffer(context, flags, size, null_mut(), e))
}

unsafe fn source_program(a: &Api, context: H, source: &str) -> H {
    let text = CString::new(source).expect("source");
    made("program", |e| a.clCreateProgramWithSource(context, 1, &text.as_ptr(), null(), e))
}

unsafe fn built(a: &Api, context: H, source: &str) -> H {
    let p = source_program(a, context, source);
    ok(a.clBuildProgram(p, 0, null(), c"-cl-kernel-arg-info".as_ptr(), null(), null_mut()));
    p
}

unsafe fn new_kernel(a: &Api, program: H, name: &std::ffi::CStr) -> H {
    made("kernel", |e| a.clCreateKernel(program, name.as_ptr(), e))
}

/// `k`'s arguments: the buffer, an int and 4 bytes of `__local` memory.
unsafe fn set_k_args(a: &Api, k: H, mem: H) {
    let v = 7i32;
    ok(a.clSetKernelArg(k, 0, size_of::<H>(), (&mem as *const H).cast()));
    ok(a.clSetKernelArg(k, 1, 4, (&v as *const i32).cast()));
    ok(a.clSetKernelArg(k, 2, 4, null()));
}

/// A user event, already complete: waiting for it never blocks.
unsafe fn done_event(a: &Api, context: H) -> H {
    let e = made("user event", |e| a.clCreateUserEvent(context, e));
    ok(a.clSetUserEventStatus(e, CL_COMPLETE as cl_int));
    e
}

/// The binary of a built program for its one device.
unsafe fn binary_of(a: &Api, program: H) -> Vec<u8> {
    let mut size = 0usize;
    ok(a.clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, size_of::<usize>(), (&mut size as *mut usize).cast(), null_mut()));
    let mut bytes = vec![0u8; size];
    let mut slot = bytes.as_mut_ptr();
    ok(a.clGetProgramInfo(program, CL_PROGRAM_BINARIES, size_of::<*mut u8>(), (&mut slot as *mut *mut u8).cast(), null_mut()));
    bytes
}

struct Objects {
    platform: H,
    device: H,
    context: H,
    queue: H,
    /// A 1 KiB read-write buffer.
    mem: H,
    /// Built from `SOURCE` with `-cl-kernel-arg-info`; `kernel` and `unset` are attached to it.
    program: H,
    /// `k` of `program`, every argument set.
    kernel: H,
    /// `nop` of `program`, its argument never set.
    unset: H,
    /// `program`'s binary, and a program built from it (no argument information).
    binary_bytes: Vec<u8>,
    binary: H,
    /// Made from `SOURCE`, never built.
    source: H,
    /// Made from `SOURCE` and compiled, not linked.
    compiled: H,
    /// A user event of `context`, complete.
    done: H,
    profiling_queue: H,
    /// A marker of `profiling_queue`, complete.
    profiled: H,
    read_only: H,
    host_no_access: H,
    host_read_only: H,
    host_write_only: H,
    /// `mem` mapped for reading (unmapped at the end).
    mapped: Ptr,
    /// A second context with a complete user event, a buffer, a program and a kernel.
    other_context: H,
    other_event: H,
    other_mem: H,
    other_program: H,
    other_kernel: H,
    /// Released handles, and the live objects that keep them in memory.
    dead: Vec<(Kind, H)>,
    keepers: Vec<(Kind, H)>,
    /// A queue whose commands wait for `gate`; commands held there keep a released kernel and
    /// a released event in memory.
    park: H,
    gate: H,
    /// Not an object at all.
    junk: Box<[u64; 8]>,
}

impl Objects {
    unsafe fn new(a: &Api, drv: &Driver) -> Objects {
        let (platform, device) = (drv.platform, drv.device());
        let context = new_context(a, device);
        let queue = new_queue(a, context, device, 0);
        let mem = new_buffer(a, context, CL_MEM_READ_WRITE, SIZE);
        let program = built(a, context, SOURCE);
        let kernel = new_kernel(a, program, c"k");
        set_k_args(a, kernel, mem);
        let binary_bytes = binary_of(a, program);
        let binary = made("program from binary", |e| {
            a.clCreateProgramWithBinary(context, 1, &device, &binary_bytes.len(), &binary_bytes.as_ptr(), null_mut(), e)
        });
        ok(a.clBuildProgram(binary, 0, null(), null(), null(), null_mut()));
        let compiled = source_program(a, context, SOURCE);
        ok(a.clCompileProgram(compiled, 0, null(), null(), 0, null(), null(), null(), null_mut()));
        let profiling_queue = new_queue(a, context, device, CL_QUEUE_PROFILING_ENABLE);
        let mut profiled = null_mut();
        ok(a.clEnqueueMarkerWithWaitList(profiling_queue, 0, null(), &mut profiled));
        ok(a.clFinish(profiling_queue));
        let mut code = UNWRITTEN;
        let mapped = a.clEnqueueMapBuffer(queue, mem, CL_TRUE, CL_MAP_READ, 0, SIZE, 0, null(), null_mut(), &mut code);
        ok(code);
        let other_context = new_context(a, device);
        let other_mem = new_buffer(a, other_context, CL_MEM_READ_WRITE, SIZE);
        let other_program = built(a, other_context, SOURCE);
        let other_kernel = new_kernel(a, other_program, c"k");
        set_k_args(a, other_kernel, other_mem);
        let park = new_queue(a, context, device, 0);
        let mut o = Objects {
            platform,
            device,
            context,
            queue,
            mem,
            program,
            kernel,
            unset: new_kernel(a, program, c"nop"),
            binary_bytes,
            binary,
            source: source_program(a, context, SOURCE),
            compiled,
            done: done_event(a, context),
            profiling_queue,
            profiled,
            read_only: new_buffer(a, context, CL_MEM_READ_ONLY, SIZE),
            host_no_access: new_buffer(a, context, CL_MEM_HOST_NO_ACCESS, SIZE),
            host_read_only: new_buffer(a, context, CL_MEM_HOST_READ_ONLY, SIZE),
            host_write_only: new_buffer(a, context, CL_MEM_HOST_WRITE_ONLY, SIZE),
            mapped,
            other_context,
            other_event: done_event(a, other_context),
            other_mem,
            other_program,
            other_kernel,
            dead: Vec::new(),
            keepers: Vec::new(),
            park,
            gate: made("gate", |e| a.clCreateUserEvent(context, e)),
            junk: Box::new([0; 8]),
        };
        o.bury(a);
        o
    }

    /// Releases one object of every kind that can be released (root devices and the platform
    /// cannot; no sampler can be made), each still held inside the driver by another object.
    unsafe fn bury(&mut self, a: &Api) {
        let (c, d) = (self.context, self.device);
        // A context, held by a buffer made in it.
        let context = new_context(a, d);
        self.keepers.push((Kind::Mem, new_buffer(a, context, CL_MEM_READ_WRITE, 64)));
        // A queue, held by the event of a command it ran.
        let queue = new_queue(a, c, d, 0);
        let mut marker = null_mut();
        ok(a.clEnqueueMarkerWithWaitList(queue, 0, null(), &mut marker));
        ok(a.clFinish(queue));
        self.keepers.push((Kind::Event, marker));
        // A buffer, held by a sub-buffer.
        let mem = new_buffer(a, c, CL_MEM_READ_WRITE, 256);
        let region = cl_buffer_region { origin: 0, size: 64 };
        let info = (&region as *const cl_buffer_region).cast();
        self.keepers.push((Kind::Mem, made("sub-buffer", |e| a.clCreateSubBuffer(mem, 0, CL_BUFFER_CREATE_TYPE_REGION, info, e))));
        // A program, held by its kernel; the kernel and an event, held by commands that wait in
        // `park` for `gate`.
        let program = built(a, c, "kernel void nop(int x) { }");
        let kernel = new_kernel(a, program, c"nop");
        let (x, one) = (1i32, 1usize);
        ok(a.clSetKernelArg(kernel, 0, 4, (&x as *const i32).cast()));
        ok(a.clEnqueueMarkerWithWaitList(self.park, 1, &self.gate, null_mut()));
        ok(a.clEnqueueNDRangeKernel(self.park, kernel, 1, null(), &one, null(), 0, null(), null_mut()));
        let mut event = null_mut();
        ok(a.clEnqueueMarkerWithWaitList(self.park, 0, null(), &mut event));
        let dead = [(Kind::Context, context), (Kind::Queue, queue), (Kind::Mem, mem), (Kind::Program, program), (Kind::Kernel, kernel), (Kind::Event, event)];
        for (kind, h) in dead {
            ok(release(a, kind, h));
            self.dead.push((kind, h));
        }
    }

    /// One valid object of each kind there is one of.
    fn live(&self) -> [(Kind, H); 8] {
        [
            (Kind::Platform, self.platform),
            (Kind::Device, self.device),
            (Kind::Context, self.context),
            (Kind::Queue, self.queue),
            (Kind::Mem, self.mem),
            (Kind::Program, self.program),
            (Kind::Kernel, self.kernel),
            (Kind::Event, self.done),
        ]
    }

    /// Handles that are not a valid `kind`: NULL, a released one, each other kind, and memory
    /// that is no object.
    fn bad(&self, kind: Kind) -> Vec<(String, H)> {
        let name = kind.name();
        let mut all = vec![(format!("NULL {name}"), null_mut())];
        all.extend(self.dead.iter().filter(|d| d.0 == kind).map(|d| (format!("released {name}"), d.1)));
        all.extend(self.live().iter().filter(|l| l.0 != kind).map(|l| (format!("{} as {name}", l.0.name()), l.1)));
        all.push((format!("host memory as {name}"), self.junk.as_ptr() as H));
        all
    }

    /// Lets the held commands run, then releases everything (the released handles' memory goes
    /// with the objects holding it).
    unsafe fn release_all(self, a: &Api) {
        ok(a.clSetUserEventStatus(self.gate, CL_COMPLETE as cl_int));
        ok(a.clFinish(self.park));
        ok(a.clEnqueueUnmapMemObject(self.queue, self.mem, self.mapped, 0, null(), null_mut()));
        ok(a.clFinish(self.queue));
        let objects = [
            (Kind::Queue, self.park),
            (Kind::Event, self.gate),
            (Kind::Event, self.done),
            (Kind::Event, self.profiled),
            (Kind::Event, self.other_event),
            (Kind::Kernel, self.kernel),
            (Kind::Kernel, self.unset),
            (Kind::Kernel, self.other_kernel),
            (Kind::Program, self.program),
            (Kind::Program, self.binary),
            (Kind::Program, self.source),
            (Kind::Program, self.compiled),
            (Kind::Program, self.other_program),
            (Kind::Mem, self.mem),
            (Kind::Mem, self.read_only),
            (Kind::Mem, self.host_no_access),
            (Kind::Mem, self.host_read_only),
            (Kind::Mem, self.host_write_only),
            (Kind::Mem, self.other_mem),
            (Kind::Queue, self.queue),
            (Kind::Queue, self.profiling_queue),
        ];
        for (kind, h) in self.keepers.iter().copied().chain(objects) {
            ok(release(a, kind, h));
        }
        ok(a.clReleaseContext(self.other_context));
        ok(a.clReleaseContext(self.context));
    }
}

// ---------------------------------------------------------------------------------------------
// The cases' checks.

/// What every case needs: the entry points, the objects and the tally of cases.
struct T<'a> {
    a: &'a Api,
    o: &'a Objects,
    tally: RefCell<Tally>,
}

impl T<'_> {
    /// One case of the entry point last called: it must have answered one of `allowed`.
    fn check(&self, case: &str, got: cl_int, allowed: &[cl_int]) {
        let mut tally = self.tally.borrow_mut();
        tally.cases += 1;
        if !allowed.contains(&got) {
            let want: Vec<String> = allowed.iter().map(|&c| code_name(c)).collect();
            tally.failures.push(format!("{}({case}): {}, expected {}", current(), code_name(got), want.join(" or ")));
        }
    }

    fn is(&self, case: &str, got: cl_int, want: cl_int) {
        self.check(case, got, &[want]);
    }

    /// `call` with every bad handle in place of a `kind` handle.
    fn handles(&self, kind: Kind, allowed: &[cl_int], call: impl FnMut(H) -> cl_int) {
        self.each(self.o.bad(kind), kind, allowed, call);
    }

    fn handle(&self, kind: Kind, want: cl_int, call: impl FnMut(H) -> cl_int) {
        self.handles(kind, &[want], call);
    }

    /// The same where NULL is a valid value (a NULL buffer argument, the one device).
    fn non_null_handles(&self, kind: Kind, want: cl_int, call: impl FnMut(H) -> cl_int) {
        self.each(self.o.bad(kind).into_iter().filter(|b| !b.1.is_null()).collect(), kind, &[want], call);
    }

    fn each(&self, handles: Vec<(String, H)>, kind: Kind, allowed: &[cl_int], mut call: impl FnMut(H) -> cl_int) {
        for (case, h) in handles {
            let got = call(h);
            if kind == Kind::Platform && h.is_null() {
                // A NULL platform selects an implementation-defined platform: ours, or none.
                self.check(&case, got, &[allowed, &[CL_SUCCESS]].concat());
            } else {
                self.check(&case, got, allowed);
            }
        }
    }

    /// Bad wait lists for an enqueue whose other arguments are valid: `call(n, list)`.
    fn wait_lists(&self, call: impl FnMut(cl_uint, List) -> cl_int) {
        self.wait_lists_but(Some(CL_INVALID_CONTEXT), call);
    }

    /// The same, with the error for an event of another context, if the spec lists one.
    fn wait_lists_but(&self, other_context: Option<cl_int>, mut call: impl FnMut(cl_uint, List) -> cl_int) {
        let o = self.o;
        self.is("1 event in a NULL wait list", call(1, null()), CL_INVALID_EVENT_WAIT_LIST);
        self.is("0 events in a wait list", call(0, &o.done), CL_INVALID_EVENT_WAIT_LIST);
        for (case, h) in o.bad(Kind::Event) {
            let list = [o.done, h];
            self.is(&format!("{case} in the wait list"), call(2, list.as_ptr()), CL_INVALID_EVENT_WAIT_LIST);
        }
        if let Some(want) = other_context {
            self.is("an event of another context in the wait list", call(1, &o.other_event), want);
        }
    }

    /// Bad `clGet*Info` queries: each of `valid`'s answers into a buffer one byte short, and
    /// unknown names. `call(param, size, value, size_ret)`.
    fn info(&self, valid: &[cl_uint], mut call: impl FnMut(cl_uint, usize, Ptr, *mut usize) -> cl_int) {
        let mut value = vec![0u8; 64];
        for &param in valid {
            let mut size = 0;
            self.is(&format!("size of {param:#x}"), call(param, 0, null_mut(), &mut size), CL_SUCCESS);
            value.resize(value.len().max(size), 0);
            if size > 0 {
                let case = format!("{param:#x} into {} bytes", size - 1);
                self.is(&case, call(param, size - 1, value.as_mut_ptr().cast(), null_mut()), CL_INVALID_VALUE);
            }
        }
        let mut size = 0;
        for bogus in [0, 0x7fff_ffff] {
            self.is(&format!("param_name {bogus:#x}"), call(bogus, value.len(), value.as_mut_ptr().cast(), &mut size), CL_INVALID_VALUE);
        }
    }
}

/// A call that reports failure by a NULL result alone: NULL stands for `missing` here.
fn null_means<R>(missing: cl_int, result: *mut R) -> cl_int {
    if result.is_null() { missing } else { CL_SUCCESS }
}

fn ptr<T>(v: &T) -> CPtr {
    (v as *const T).cast()
}

fn out<T>(v: &mut T) -> Ptr {
    (v as *mut T).cast()
}

extern "system" fn on_object(_: H, _: Ptr) {}
extern "system" fn on_event(_: H, _: cl_int, _: Ptr) {}
extern "system" fn on_context(_: *const c_char, _: CPtr, _: usize, _: Ptr) {}
extern "system" fn native_fn(_: Ptr) {}

/// Some user data, for the calls that refuse it without a callback.
const USER: Ptr = 0x1 as Ptr;

// ---------------------------------------------------------------------------------------------
// The cases, by object family.

unsafe fn platforms(t: &T) {
    let (a, o) = (t.a, t.o);
    let mut value = [0u8; 256];
    let v = value.as_mut_ptr().cast();
    t.handle(Kind::Platform, CL_INVALID_PLATFORM, |p| a.clGetPlatformInfo(p, CL_PLATFORM_NAME, 256, v, null_mut()));
    t.info(&[CL_PLATFORM_EXTENSIONS, CL_PLATFORM_NUMERIC_VERSION, CL_PLATFORM_EXTENSIONS_WITH_VERSION], |param, s, v, r| a.clGetPlatformInfo(o.platform, param, s, v, r));
    let (mut d, mut n) = (null_mut(), 0);
    t.handle(Kind::Platform, CL_INVALID_PLATFORM, |p| a.clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &mut d, null_mut()));
    let p = o.platform;
    t.is("num_entries 0 with a device array", a.clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, &mut d, null_mut()), CL_INVALID_VALUE);
    t.is("neither devices nor num_devices", a.clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, null_mut(), null_mut()), CL_INVALID_VALUE);
    t.is("unknown device type bit", a.clGetDeviceIDs(p, 1 << 40, 1, &mut d, &mut n), CL_INVALID_DEVICE_TYPE);
    t.is("device type 0", a.clGetDeviceIDs(p, 0, 1, &mut d, &mut n), CL_INVALID_DEVICE_TYPE);
    t.is("no custom device", a.clGetDeviceIDs(p, CL_DEVICE_TYPE_CUSTOM, 1, &mut d, &mut n), CL_DEVICE_NOT_FOUND);
    t.handle(Kind::Platform, CL_INVALID_PLATFORM, |p| a.clUnloadPlatformCompiler(p));
    // The lookups answer NULL for what they cannot give.
    let lookup = |p: H, name: *const c_char| null_means(CL_INVALID_PLATFORM, a.clGetExtensionFunctionAddressForPlatform(p, name));
    t.handle(Kind::Platform, CL_INVALID_PLATFORM, |p| lookup(p, c"clIcdGetPlatformIDsKHR".as_ptr()));
    t.is("NULL name", lookup(p, null()), CL_INVALID_PLATFORM);
    t.is("unknown name", lookup(p, c"clNoSuchFunction".as_ptr()), CL_INVALID_PLATFORM);
    t.is("NULL name", null_means(CL_INVALID_VALUE, a.clGetExtensionFunctionAddress(null())), CL_INVALID_VALUE);
    t.is("unknown name", null_means(CL_INVALID_VALUE, a.clGetExtensionFunctionAddress(c"clNoSuchFunction".as_ptr())), CL_INVALID_VALUE);
}

unsafe fn devices(t: &T) {
    let (a, o) = (t.a, t.o);
    let mut value = [0u8; 256];
    let v = value.as_mut_ptr().cast();
    t.handle(Kind::Device, CL_INVALID_DEVICE, |d| a.clGetDeviceInfo(d, CL_DEVICE_NAME, 256, v, null_mut()));
    t.info(&[CL_DEVICE_EXTENSIONS, CL_DEVICE_TYPE, CL_DEVICE_MAX_WORK_ITEM_SIZES, CL_DEVICE_MAX_WORK_GROUP_SIZE, CL_DEVICE_PLATFORM], |param, s, v, r| a.clGetDeviceInfo(o.device, param, s, v, r));
    // Root devices are never released (retain and release do nothing): no released device.
    t.handle(Kind::Device, CL_INVALID_DEVICE, |d| a.clRetainDevice(d));
    t.handle(Kind::Device, CL_INVALID_DEVICE, |d| a.clReleaseDevice(d));
    t.handle(Kind::Device, CL_INVALID_DEVICE, |d| a.clRetainDeviceEXT(d));
    t.handle(Kind::Device, CL_INVALID_DEVICE, |d| a.clReleaseDeviceEXT(d));
    // CL_DEVICE_PARTITION_PROPERTIES lists none: a valid but unsupported partition is
    // CL_INVALID_VALUE, as are NULL and unknown properties.
    let (mut out, mut n) = ([null_mut(); 4], 0);
    let equally = [CL_DEVICE_PARTITION_EQUALLY as isize, 1, 0];
    let split = |d: H, props: *const isize, out: &mut [H; 4], n: &mut cl_uint| a.clCreateSubDevices(d, props, 4, out.as_mut_ptr(), n);
    t.handle(Kind::Device, CL_INVALID_DEVICE, |d| split(d, equally.as_ptr(), &mut out, &mut n));
    t.is("partition equally, unsupported", split(o.device, equally.as_ptr(), &mut out, &mut n), CL_INVALID_VALUE);
    t.is("NULL properties", split(o.device, null(), &mut out, &mut n), CL_INVALID_VALUE);
    t.is("unknown partition", split(o.device, [0x7777, 1, 0].as_ptr(), &mut out, &mut n), CL_INVALID_VALUE);
    // cl_ext_device_fission (not reported): CL_DEVICE_PARTITION_EQUALLY_EXT, list end 0.
    let equally_ext = [0x4050u64, 1, 0];
    t.handle(Kind::Device, CL_INVALID_DEVICE, |d| a.clCreateSubDevicesEXT(d, equally_ext.as_ptr(), 4, out.as_mut_ptr(), &mut n));
    t.is("partition equally, unsupported", a.clCreateSubDevicesEXT(o.device, equally_ext.as_ptr(), 4, out.as_mut_ptr(), &mut n), CL_INVALID_VALUE);
    // CL_PLATFORM_HOST_TIMER_RESOLUTION is 0: the timers are unsupported. Where a timestamp
    // pointer is NULL too, both errors apply.
    let (mut dt, mut ht) = (0u64, 0u64);
    t.handle(Kind::Device, CL_INVALID_DEVICE, |d| a.clGetDeviceAndHostTimer(d, &mut dt, &mut ht));
    t.is("unsupported", a.clGetDeviceAndHostTimer(o.device, &mut dt, &mut ht), CL_INVALID_OPERATION);
    t.check("NULL host_timestamp", a.clGetDeviceAndHostTimer(o.device, &mut dt, null_mut()), &[CL_INVALID_VALUE, CL_INVALID_OPERATION]);
    t.handle(Kind::Device, CL_INVALID_DEVICE, |d| a.clGetHostTimer(d, &mut ht));
    t.is("unsupported", a.clGetHostTimer(o.device, &mut ht), CL_INVALID_OPERATION);
    t.check("NULL host_timestamp", a.clGetHostTimer(o.device, null_mut()), &[CL_INVALID_VALUE, CL_INVALID_OPERATION]);
}

/// Context property lists with one thing wrong each, and the error for it.
fn bad_context_properties(platform: H) -> Vec<(&'static str, Vec<isize>, cl_int)> {
    const PLATFORM: isize = CL_CONTEXT_PLATFORM as isize;
    const USER_SYNC: isize = CL_CONTEXT_INTEROP_USER_SYNC as isize;
    let p = platform as isize;
    vec![
        ("unknown property", vec![0x7777, 0, 0], CL_INVALID_PROPERTY),
        ("CL_CONTEXT_PLATFORM twice", vec![PLATFORM, p, PLATFORM, p, 0], CL_INVALID_PROPERTY),
        ("CL_CONTEXT_INTEROP_USER_SYNC not a cl_bool", vec![USER_SYNC, 7, 0], CL_INVALID_PROPERTY),
        ("NULL CL_CONTEXT_PLATFORM", vec![PLATFORM, 0, 0], CL_INVALID_PLATFORM),
    ]
}

unsafe fn contexts(t: &T) {
    let (a, o) = (t.a, t.o);
    let d = o.device;
    let notify = on_context as Func;
    let create = |props: *const isize, n: cl_uint, devices: List, f: Func, user: Ptr| err(|e| a.clCreateContext(props, n, devices, f, user, e));
    t.handle(Kind::Device, CL_INVALID_DEVICE, |d| create(null(), 1, &d, notify, null_mut()));
    t.is("no devices", create(null(), 0, &d, notify, null_mut()), CL_INVALID_VALUE);
    t.is("NULL device list", create(null(), 1, null(), notify, null_mut()), CL_INVALID_VALUE);
    t.is("user_data without pfn_notify", create(null(), 1, &d, null(), USER), CL_INVALID_VALUE);
    let from_type = |props: *const isize, ty: cl_ulong, f: Func, user: Ptr| err(|e| a.clCreateContextFromType(props, ty, f, user, e));
    t.is("unknown device type bit", from_type(null(), 1 << 40, notify, null_mut()), CL_INVALID_DEVICE_TYPE);
    t.is("no custom device", from_type(null(), CL_DEVICE_TYPE_CUSTOM, notify, null_mut()), CL_DEVICE_NOT_FOUND);
    t.is("user_data without pfn_notify", from_type(null(), CL_DEVICE_TYPE_ALL, null(), USER), CL_INVALID_VALUE);
    for (case, props, want) in bad_context_properties(o.platform) {
        t.is(case, create(props.as_ptr(), 1, &d, notify, null_mut()), want);
        t.is(case, from_type(props.as_ptr(), CL_DEVICE_TYPE_ALL, notify, null_mut()), want);
    }
    let with_platform = |p: H| [CL_CONTEXT_PLATFORM as isize, p as isize, 0];
    t.handle(Kind::Platform, CL_INVALID_PLATFORM, |p| create(with_platform(p).as_ptr(), 1, &d, notify, null_mut()));
    t.handle(Kind::Platform, CL_INVALID_PLATFORM, |p| from_type(with_platform(p).as_ptr(), CL_DEVICE_TYPE_ALL, notify, null_mut()));
    t.handle(Kind::Context, CL_INVALID_CONTEXT, |c| a.clRetainContext(c));
    t.handle(Kind::Context, CL_INVALID_CONTEXT, |c| a.clReleaseContext(c));
    let mut n = 0u32;
    t.handle(Kind::Context, CL_INVALID_CONTEXT, |c| a.clGetContextInfo(c, CL_CONTEXT_NUM_DEVICES, 4, out(&mut n), null_mut()));
    t.info(&[CL_CONTEXT_DEVICES, CL_CONTEXT_NUM_DEVICES], |param, s, v, r| a.clGetContextInfo(o.context, param, s, v, r));
    t.handle(Kind::Context, CL_INVALID_CONTEXT, |c| a.clSetContextDestructorCallback(c, on_object as Func, null_mut()));
    t.is("NULL pfn_notify", a.clSetContextDestructorCallback(o.context, null(), null_mut()), CL_INVALID_VALUE);
}

unsafe fn queues(t: &T) {
    let (a, o) = (t.a, t.o);
    let (c, d, q) = (o.context, o.device, o.queue);
    let create = |c: H, d: H, props: cl_ulong| err(|e| a.clCreateCommandQueue(c, d, props, e));
    t.handle(Kind::Context, CL_INVALID_CONTEXT, |c| create(c, d, 0));
    t.handle(Kind::Device, CL_INVALID_DEVICE, |d| create(c, d, 0));
    t.is("unknown property bit", create(c, d, 1 << 20), CL_INVALID_VALUE);
    // The legacy call's property table has no on-device bit: not valid there, or valid but
    // unsupported (CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES is 0).
    let on_device = CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE;
    t.check("CL_QUEUE_ON_DEVICE", create(c, d, on_device), &[CL_INVALID_VALUE, CL_INVALID_QUEUE_PROPERTIES]);
    let with_props = |c: H, d: H, props: &[cl_ulong]| err(|e| a.clCreateCommandQueueWithProperties(c, d, props.as_ptr(), e));
    t.handle(Kind::Context, CL_INVALID_CONTEXT, |c| with_props(c, d, &[0]));
    t.handle(Kind::Device, CL_INVALID_DEVICE, |d| with_props(c, d, &[0]));
    t.is("unknown property", with_props(c, d, &[0x7777, 0, 0]), CL_INVALID_VALUE);
    t.is("unknown CL_QUEUE_PROPERTIES bit", with_props(c, d, &[CL_QUEUE_PROPERTIES as u64, 1 << 20, 0]), CL_INVALID_VALUE);
    t.is("on-device queue, unsupported", with_props(c, d, &[CL_QUEUE_PROPERTIES as u64, on_device, 0]), CL_INVALID_QUEUE_PROPERTIES);
    t.handle(Kind::Queue, CL_INVALID_COMMAND_QUEUE, |q| a.clRetainCommandQueue(q));
    t.handle(Kind::Queue, CL_INVALID_COMMAND_QUEUE, |q| a.clReleaseCommandQueue(q));
    let mut n = 0u32;
    t.handle(Kind::Queue, CL_INVALID_COMMAND_QUEUE, |q| a.clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, 4, out(&mut n), null_mut()));
    t.info(&[CL_QUEUE_CONTEXT, CL_QUEUE_PROPERTIES], |param, s, v, r| a.clGetCommandQueueInfo(q, param, s, v, r));
    t.is("CL_QUEUE_SIZE of a host queue", a.clGetCommandQueueInfo(q, CL_QUEUE_SIZE, 4, out(&mut n), null_mut()), CL_INVALID_COMMAND_QUEUE);
    // Changing properties is required of OpenCL 1.0 devices only: CL_INVALID_OPERATION may
    // answer every call.
    t.handle(Kind::Queue, CL_INVALID_COMMAND_QUEUE, |q| a.clSetCommandQueueProperty(q, CL_QUEUE_PROFILING_ENABLE, CL_TRUE, null_mut()));
    t.check("unknown property bit", a.clSetCommandQueueProperty(q, 1 << 20, CL_TRUE, null_mut()), &[CL_INVALID_VALUE, CL_INVALID_OPERATION]);
    t.handle(Kind::Queue, CL_INVALID_COMMAND_QUEUE, |q| a.clFlush(q));
    t.handle(Kind::Queue, CL_INVALID_COMMAND_QUEUE, |q| a.clFinish(q));
}

/// Buffer flags with one thing wrong each: (case, flags, host_ptr wanted, error).
const BAD_FLAGS: [(&str, cl_ulong, bool, cl_int); 10] = [
    ("unknown flag bit", 1 << 40, false, CL_INVALID_VALUE),
    ("READ_ONLY | WRITE_ONLY", CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, false, CL_INVALID_VALUE),
    ("READ_WRITE | READ_ONLY", CL_MEM_READ_WRITE | CL_MEM_READ_ONLY, false, CL_INVALID_VALUE),
    ("HOST_READ_ONLY | HOST_WRITE_ONLY", CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY, false, CL_INVALID_VALUE),
    ("HOST_NO_ACCESS | HOST_READ_ONLY", CL_MEM_HOST_NO_ACCESS | CL_MEM_HOST_READ_ONLY, false, CL_INVALID_VALUE),
    ("USE_HOST_PTR | COPY_HOST_PTR", CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR, true, CL_INVALID_VALUE),
    ("USE_HOST_PTR | ALLOC_HOST_PTR", CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR, true, CL_INVALID_VALUE),
    ("USE_HOST_PTR with a NULL host_ptr", CL_MEM_USE_HOST_PTR, false, CL_INVALID_HOST_PTR),
    ("COPY_HOST_PTR with a NULL host_ptr", CL_MEM_COPY_HOST_PTR, false, CL_INVALID_HOST_PTR),
    ("a host_ptr without USE or COPY_HOST_PTR", CL_MEM_READ_WRITE, true, CL_INVALID_HOST_PTR),
];

/// Ranges of a `SIZE`-byte buffer that are out of bounds: (case, offset, size).
const OUT_OF_RANGE: [(&str, usize, usize); 5] = [
    ("offset + size past the end", SIZE - 32, 64),
    ("offset at the end", SIZE, 4),
    ("size past the end", 0, SIZE + 4),
    ("offset past the end, size 0", SIZE + 4, 0),
    ("offset + size overflows", usize::MAX - 3, 8),
];

unsafe fn buffers(t: &T) {
    let (a, o) = (t.a, t.o);
    let c = o.context;
    let mut host = [0u8; 64];
    let h: Ptr = host.as_mut_ptr().cast();
    let create = |c: H, flags: cl_ulong, size: usize, host: Ptr| err(|e| a.clCreateBuffer(c, flags, size, host, e));
    let with_props = |props: &[cl_ulong], flags: cl_ulong, size: usize, host: Ptr| err(|e| a.clCreateBufferWithProperties(c, props.as_ptr(), flags, size, host, e));
    t.handle(Kind::Context, CL_INVALID_CONTEXT, |c| create(c, CL_MEM_READ_WRITE, 64, null_mut()));
    t.handle(Kind::Context, CL_INVALID_CONTEXT, |c| err(|e| a.clCreateBufferWithProperties(c, null(), CL_MEM_READ_WRITE, 64, null_mut(), e)));
    for (case, flags, wants_ptr, want) in BAD_FLAGS {
        let host = if wants_ptr { h } else { null_mut() };
        t.is(case, create(c, flags, 64, host), want);
        t.is(case, with_props(&[0], flags, 64, host), want);
    }
    for (case, size) in [("size 0", 0), ("size past CL_DEVICE_MAX_MEM_ALLOC_SIZE", usize::MAX)] {
        t.is(case, create(c, CL_MEM_READ_WRITE, size, null_mut()), CL_INVALID_BUFFER_SIZE);
        t.is(case, with_props(&[0], CL_MEM_READ_WRITE, size, null_mut()), CL_INVALID_BUFFER_SIZE);
    }
    // No buffer property is defined for this device.
    t.is("unknown property", with_props(&[0x7777, 0, 0], CL_MEM_READ_WRITE, 64, null_mut()), CL_INVALID_PROPERTY);
    t.handle(Kind::Mem, CL_INVALID_MEM_OBJECT, |m| a.clRetainMemObject(m));
    t.handle(Kind::Mem, CL_INVALID_MEM_OBJECT, |m| a.clReleaseMemObject(m));
    let mut size = 0usize;
    t.handle(Kind::Mem, CL_INVALID_MEM_OBJECT, |m| a.clGetMemObjectInfo(m, CL_MEM_SIZE, 8, out(&mut size), null_mut()));
    t.info(&[CL_MEM_SIZE, CL_MEM_FLAGS, CL_MEM_CONTEXT], |param, s, v, r| a.clGetMemObjectInfo(o.mem, param, s, v, r));
    t.handle(Kind::Mem, CL_INVALID_MEM_OBJECT, |m| a.clSetMemObjectDestructorCallback(m, on_object as Func, null_mut()));
    t.is("NULL pfn_notify", a.clSetMemObjectDestructorCallback(o.mem, null(), null_mut()), CL_INVALID_VALUE);
    sub_buffers(t);
}

unsafe fn sub_buffers(t: &T) {
    let (a, o) = (t.a, t.o);
    let region = |origin: usize, size: usize| (origin, size);
    // `r`: the region's origin and size, or a NULL buffer_create_info.
    let sub = |m: H, flags: cl_ulong, ty: cl_uint, r: Option<(usize, usize)>| {
        let info = r.map(|(origin, size)| cl_buffer_region { origin, size });
        err(|e| a.clCreateSubBuffer(m, flags, ty, info.as_ref().map_or(null(), ptr), e))
    };
    let valid = Some(region(0, 64));
    const REGION: cl_uint = CL_BUFFER_CREATE_TYPE_REGION;
    t.handle(Kind::Mem, CL_INVALID_MEM_OBJECT, |m| sub(m, 0, REGION, valid));
    let child = made("sub-buffer", |e| a.clCreateSubBuffer(o.mem, 0, REGION, ptr(&cl_buffer_region { origin: 0, size: 64 }), e));
    t.is("a sub-buffer's sub-buffer", sub(child, 0, REGION, valid), CL_INVALID_MEM_OBJECT);
    ok(a.clReleaseMemObject(child));
    for (case, offset, size) in OUT_OF_RANGE.into_iter().filter(|r| r.2 > 0) {
        t.is(case, sub(o.mem, 0, REGION, Some(region(offset, size))), CL_INVALID_VALUE);
    }
    t.is("size 0", sub(o.mem, 0, REGION, Some(region(0, 0))), CL_INVALID_BUFFER_SIZE);
    let mut align_bits = 0u32;
    ok(a.clGetDeviceInfo(o.device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, 4, out(&mut align_bits), null_mut()));
    if align_bits > 8 {
        t.is("origin not aligned to CL_DEVICE_MEM_BASE_ADDR_ALIGN", sub(o.mem, 0, REGION, Some(region(1, 64))), CL_MISALIGNED_SUB_BUFFER_OFFSET);
    }
    t.is("NULL buffer_create_info", sub(o.mem, 0, REGION, None), CL_INVALID_VALUE);
    t.is("unknown buffer_create_type", sub(o.mem, 0, 0x7777, valid), CL_INVALID_VALUE);
    for (case, flags, wants_ptr, want) in BAD_FLAGS {
        // Host-pointer flags are refused in a sub-buffer whatever else is right.
        if !wants_ptr && want == CL_INVALID_VALUE {
            t.is(case, sub(o.mem, flags, REGION, valid), CL_INVALID_VALUE);
        }
    }
    t.is("USE_HOST_PTR", sub(o.mem, CL_MEM_USE_HOST_PTR, REGION, valid), CL_INVALID_VALUE);
    t.is("ALLOC_HOST_PTR", sub(o.mem, CL_MEM_ALLOC_HOST_PTR, REGION, valid), CL_INVALID_VALUE);
    // A sub-buffer cannot widen its parent's access.
    for (case, parent, flags) in [
        ("READ_WRITE of a READ_ONLY buffer", o.read_only, CL_MEM_READ_WRITE),
        ("WRITE_ONLY of a READ_ONLY buffer", o.read_only, CL_MEM_WRITE_ONLY),
        ("HOST_READ_ONLY of a HOST_NO_ACCESS buffer", o.host_no_access, CL_MEM_HOST_READ_ONLY),
        ("HOST_WRITE_ONLY of a HOST_READ_ONLY buffer", o.host_read_only, CL_MEM_HOST_WRITE_ONLY),
        ("HOST_READ_ONLY of a HOST_WRITE_ONLY buffer", o.host_write_only, CL_MEM_HOST_READ_ONLY),
    ] {
        t.is(case, sub(parent, flags, REGION, valid), CL_INVALID_VALUE);
    }
}

/// Read, write, copy, fill, map, unmap and migrate of whole ranges.
unsafe fn transfers(t: &T) {
    let (a, o) = (t.a, t.o);
    let (q, m) = (o.queue, o.mem);
    let mut host = vec![0u8; 2 * SIZE];
    let h: Ptr = host.as_mut_ptr().cast();
    // Non-blocking throughout: a command accepted by mistake cannot hang the test.
    let read = |q: H, m: H, offset: usize, size: usize, p: Ptr| a.clEnqueueReadBuffer(q, m, CL_FALSE, offset, size, p, 0, null(), null_mut());
    t.handle(Kind::Queue, CL_INVALID_COMMAND_QUEUE, |q| read(q, m, 0, 64, h));
    t.handle(Kind::Mem, CL_INVALID_MEM_OBJECT, |m| read(q, m, 0, 64, h));
    t.is("a buffer of another context", read(q, o.other_mem, 0, 64, h), CL_INVALID_CONTEXT);
    for (case, offset, size) in OUT_OF_RANGE {
        t.is(case, read(q, m, offset, size, h), CL_INVALID_VALUE);
    }
    t.is("NULL ptr", read(q, m, 0, 64, null_mut()), CL_INVALID_VALUE);
    t.is("HOST_NO_ACCESS buffer", read(q, o.host_no_access, 0, 64, h), CL_INVALID_OPERATION);
    t.is("HOST_WRITE_ONLY buffer", read(q, o.host_write_only, 0, 64, h), CL_INVALID_OPERATION);
    t.wait_lists(|n, l| a.clEnqueueReadBuffer(q, m, CL_FALSE, 0, 64, h, n, l, null_mut()));

    let write = |q: H, m: H, offset: usize, size: usize, p: CPtr| a.clEnqueueWriteBuffer(q, m, CL_FALSE, offset, size, p, 0, null(), null_mut());
    t.handle(Kind::Queue, CL_INVALID_COMMAND_QUEUE, |q| write(q, m, 0, 64, h));
    t.handle(Kind::Mem, CL_INVALID_MEM_OBJECT, |m| write(q, m, 0, 64, h));
    t.is("a buffer of another context", write(q, o.other_mem, 0, 64, h), CL_INVALID_CONTEXT);
    for (case, offset, size) in OUT_OF_RANGE {
        t.is(case, write(q, m, offset, size, h), CL_INVALID_VALUE);
    }
    t.is("NULL ptr", write(q, m, 0, 64, null()), CL_INVALID_VALUE);
    t.is("HOST_NO_ACCESS buffer", write(q, o.host_no_access, 0, 64, h), CL_INVALID_OPERATION);
    t.is("HOST_READ_ONLY buffer", write(q, o.host_read_only, 0, 64, h), CL_INVALID_OPERATION);
    t.wait_lists(|n, l| a.clEnqueueWriteBuffer(q, m, CL_FALSE, 0, 64, h, n, l, null_mut()));

    let dst = o.read_only;
    let copy = |q: H, s: H, d: H, so: usize, d_o: usize, size: usize| a.clEnqueueCopyBuffer(q, s, d, so, d_o, size, 0, null(), null_mut());
    t.handle(Kind::Queue, CL_INVALID_COMMAND_QUEUE, |q| copy(q, m, dst, 0, 0, 64));
    t.handle(Kind::Mem, CL_INVALID_MEM_OBJECT, |s| copy(q, s, dst, 0, 0, 64));
    t.handle(Kind::Mem, CL_INVALID_MEM_OBJECT, |d| copy(q, m, d, 0, 0, 64));
    t.is("a source of another context", copy(q, o.other_mem, dst, 0, 0, 64), CL_INVALID_CONTEXT);
    t.is("a destination of another context", copy(q, m, o.other_mem, 0, 0, 64), CL_INVALID_CONTEXT);
    for (case, offset, size) in OUT_OF_RANGE {
        t.is(&format!("source {case}"), copy(q, m, dst, offset, 0, size), CL_INVALID_VALUE);
        t.is(&format!("destination {case}"), copy(q, m, dst, 0, offset, size), CL_INVALID_VALUE);
    }
    t.is("overlapping ranges of one buffer", copy(q, m, m, 0, 32, 64), CL_MEM_COPY_OVERLAP);
    t.wait_lists(|n, l| a.clEnqueueCopyBuffer(q, m, dst, 0, 0, 64, n, l, null_mut()));

    fills(t);
    maps(t, h);

    let mems = [m];
    let migrate = |q: H, n: cl_uint, list: List, flags: cl_ulong| a.clEnqueueMigrateMemObjects(q, n, list, flags, 0, null(), null_mut());
    t.handle(Kind::Queue, CL_INVALID_COMMAND_QUEUE, |q| migrate(q, 1, mems.as_ptr(), 0));
    t.is("no memory objects", migrate(q, 0, mems.as_ptr(), 0), CL_INVALID_VALUE);
    t.is("NULL mem_objects", migrate(q, 1, null(), 0), CL_INVALID_VALUE);
    t.handle(Kind::Mem, CL_INVALID_MEM_OBJECT, |bad| migrate(q, 2, [m, bad].as_ptr(), 0));
    t.is("unknown flag bit", migrate(q, 1, mems.as_ptr(), 1 << 5), CL_INVALID_VALUE);
    t.is("a buffer of another context", migrate(q, 1, &o.other_mem, 0), CL_INVALID_CONTEXT);
    t.wait_lists(|n, l| a.clEnqueueMigrateMemObjects(q, 1, mems.as_ptr(), 0, n, l, null_mut()));
}

unsafe fn fills(t: &T) {
    let (a, o) = (t.a, t.o);
    let (q, m) = (o.queue, o.mem);
    let pattern = [0u8; 256];
    let p: CPtr = pattern.as_ptr().cast();
    let fill = |q: H, m: H, p: CPtr, pattern_size: usize, offset: usize, size: usize| a.clEnqueueFillBuffer(q, m, p, pattern_size, offset, size, 0, null(), null_mut());
    t.handle(Kind::Queue, CL_INVALID_COMMAND_QUEUE, |q| fill(q, m, p, 4, 0, 64));
    t.handle(Kind::Mem, CL_INVALID_MEM_OBJECT, |m| fill(q, m, p, 4, 0, 64));
    t.is("a buffer of another context", fill(q, o.other_mem, p, 4, 0, 64), CL_INVALID_CONTEXT);
    t.is("NULL pattern", fill(q, m, null(), 4, 0, 64), CL_INVALID_VALUE);
    for size in [0, 3, 256] {
        t.is(&format!("pattern_size {size}"), fill(q, m, p, size, 0, 64), CL_INVALID_VALUE);
    }
    t.is("offset not a multiple of pattern_size", fill(q, m, p, 4, 2, 64), CL_INVALID_VALUE);
    t.is("size not a multiple of pattern_size", fill(q, m, p, 4, 0, 62), CL_INVALID_VALUE);
    for (case, offset, size) in OUT_OF_RANGE.into_iter().filter(|r| r.1 % 4 == 0 && r.2 % 4 == 0) {
        t.is(case, fill(q, m, p, 4, offset, size), CL_INVALID_VALUE);
    }
    t.wait_lists(|n, l| a.clEnqueueFillBuffer(q, m, p, 4, 0, 64, n, l, null_mut()));
}

unsafe fn maps(t: &T, host: Ptr) {
    let (a, o) = (t.a, t.o);
    let (q, m) = (o.queue, o.mem);
    let map = |q: H, m: H, flags: cl_ulong, offset: usize, size: usize| err(|e| a.clEnqueueMapBuffer(q, m, CL_FALSE, flags, offset, size, 0, null(), null_mut(), e));
    t.handle(Kind::Queue, CL_INVALID_COMMAND_QUEUE, |q| map(q, m, CL_MAP_READ, 0, 64));
    t.handle(Kind::Mem, CL_INVALID_MEM_OBJECT, |m| map(q, m, CL_MAP_READ, 0, 64));
    t.is("a buffer of another context", map(q, o.other_mem, CL_MAP_READ, 0, 64), CL_INVALID_CONTEXT);
    t.is("unknown map flag bit", map(q, m, 1 << 10, 0, 64), CL_INVALID_VALUE);
    t.is("WRITE_INVALIDATE_REGION | READ", map(q, m, CL_MAP_WRITE_INVALIDATE_REGION | CL_MAP_READ, 0, 64), CL_INVALID_VALUE);
    t.is("size 0", map(q, m, CL_MAP_READ, 0, 0), CL_INVALID_VALUE);
    for (case, offset, size) in OUT_OF_RANGE.into_iter().filter(|r| r.2 > 0) {
        t.is(case, map(q, m, CL_MAP_READ, offset, size), CL_INVALID_VALUE);
    }
    t.is("reading a HOST_NO_ACCESS buffer", map(q, o.host_no_access, CL_MAP_READ, 0, 64), CL_INVALID_OPERATION);
    t.is("reading a HOST_WRITE_ONLY buffer", map(q, o.host_write_only, CL_MAP_READ, 0, 64), CL_INVALID_OPERATION);
    t.is("writing a HOST_READ_ONLY buffer", map(q, o.host_read_only, CL_MAP_WRITE, 0, 64), CL_INVALID_OPERATION);
    t.wait_lists(|n, l| err(|e| a.clEnqueueMapBuffer(q, m, CL_FALSE, CL_MAP_READ, 0, 64, n, l, null_mut(), e)));

    let unmap = |q: H, m: H, p: Ptr| a.clEnqueueUnmapMemObject(q, m, p, 0, null(), null_mut());
    t.handle(Kind::Queue, CL_INVALID_COMMAND_QUEUE, |q| unmap(q, m, o.mapped));
    t.handle(Kind::Mem, CL_INVALID_MEM_OBJECT, |m| unmap(q, m, o.mapped));
    // The pointer is no mapping of the other context's buffer either: both errors apply.
    t.check("a buffer of another context", unmap(q, o.other_mem, o.mapped), &[CL_INVALID_CONTEXT, CL_INVALID_VALUE]);
    t.is("a pointer that was never mapped", unmap(q, m, host), CL_INVALID_VALUE);
    t.is("NULL mapped_ptr", unmap(q, m, null_mut()), CL_INVALID_VALUE);
    t.is("another buffer's mapping", unmap(q, o.read_only, o.mapped), CL_INVALID_VALUE);
    t.wait_lists(|n, l| a.clEnqueueUnmapMemObject(q, m, o.mapped, n, l, null_mut()));
}

/// A rectangle transfer with one thing wrong: the two origins (buffer and host, or source and
/// destination), the region and the pitches `[row, slice]` of each side (0: the default).
struct RectCase {
    what: String,
    origins: [Option<[usize; 3]>; 2],
    region: Option<[usize; 3]>,
    pitches: [usize; 4],
    /// Out of bounds on the second side: only a buffer there has bounds.
    second_bounds: bool,
}

impl RectCase {
    fn pointers(&self) -> (Sizes, Sizes, Sizes) {
        let p = |o: &Option<[usize; 3]>| o.as_ref().map_or(null(), |o| o.as_ptr());
        (p(&self.origins[0]), p(&self.origins[1]), p(&self.region))
    }
}

/// The bad rectangles of an 8 × 8 × 1 transfer in a `SIZE`-byte buffer; `sides` names the two.
fn rect_cases(sides: [&str; 2]) -> Vec<RectCase> {
    let zero = Some([0; 3]);
    let region = Some([8, 8, 1]);
    let case = |what: String, origins, region, pitches, second_bounds| RectCase { what, origins, region, pitches, second_bounds };
    let [first, second] = sides;
    let mut cases = vec![
        case(format!("NULL {first} origin"), [None, zero], region, [0; 4], false),
        case(format!("NULL {second} origin"), [zero, None], region, [0; 4], false),
        case("NULL region".into(), [zero, zero], None, [0; 4], false),
        case("region with a 0 width".into(), [zero, zero], Some([0, 8, 1]), [0; 4], false),
        case("region with a 0 height".into(), [zero, zero], Some([8, 0, 1]), [0; 4], false),
        case("region with a 0 depth".into(), [zero, zero], Some([8, 8, 0]), [0; 4], false),
        case("region past the end".into(), [zero, zero], Some([8, 200, 1]), [0; 4], false),
        case(format!("{first} origin past the end"), [Some([0, 0, 100]), zero], region, [0; 4], false),
        case(format!("{first} origin overflows"), [Some([usize::MAX, 0, 0]), zero], region, [0; 4], false),
        case(format!("{second} origin past the end"), [zero, Some([0, 0, 100])], region, [0; 4], true),
    ];
    for (side, name) in [(0, first), (2, second)] {
        let pitches = |row: usize, slice: usize| {
            let mut p = [0; 4];
            p[side] = row;
            p[side + 1] = slice;
            p
        };
        cases.push(case(format!("{name} row pitch below region[0]"), [zero, zero], region, pitches(4, 0), false));
        cases.push(case(format!("{name} slice pitch below region[1] × row pitch"), [zero, zero], region, pitches(8, 32), false));
        cases.push(case(format!("{name} slice pitch not a multiple of the row pitch"), [zero, zero], region, pitches(8, 68), false));
    }
    cases
}

unsafe fn rects(t: &T) {
    let (a, o) = (t.a, t.o);
    let (q, m) = (o.queue, o.mem);
    let mut host = vec![0u8; 2 * SIZE];
    let h: Ptr = host.as_mut_ptr().cast();
    let (zero, region) = ([0usize; 3], [8usize, 8, 1]);
    let (z, r) = (zero.as_ptr(), region.as_ptr());
    let read = |q: H, m: H, [bo, ho, reg]: [Sizes; 3], p: [usize; 4], host: Ptr| {
        a.clEnqueueReadBufferRect(q, m, CL_FALSE, bo, ho, reg, p[0], p[1], p[2], p[3], host, 0, null(), null_mut())
    };
    t.handle(Kind::Queue, CL_INVALID_COMMAND_QUEUE, |q| read(q, m, [z, z, r], [0; 4], h));
    t.handle(Kind::Mem, CL_INVALID_MEM_OBJECT, |m| read(q, m, [z, z, r], [0; 4], h));
    t.is("a buffer of another context", read(q, o.other_mem, [z, z, r], [0; 4], h), CL_INVALID_CONTEXT);
    for c in rect_cases(["buffer", "host"]).iter().filter(|c| !c.second_bounds) {
        let (bo, ho, reg) = c.pointers();
        t.is(&c.what, read(q, m, [bo, ho, reg], c.pitches, h), CL_INVALID_VALUE);
    }
    t.is("NULL ptr", read(q, m, [z, z, r], [0; 4], null_mut()), CL_INVALID_VALUE);
    t.is("HOST_NO_ACCESS buffer", read(q, o.host_no_access, [z, z, r], [0; 4], h), CL_INVALID_OPERATION);
    t.is("HOST_WRITE_ONLY buffer", read(q, o.host_write_only, [z, z, r], [0; 4], h), CL_INVALID_OPERATION);
    t.wait_lists(|n, l| a.clEnqueueReadBufferRect(q, m, CL_FALSE, z, z, r, 0, 0, 0, 0, h, n, l, null_mut()));

    let write = |q: H, m: H, [bo, ho, reg]: [Sizes; 3], p: [usize; 4], host: CPtr| {
        a.clEnqueueWriteBufferRect(q, m, CL_FALSE, bo, ho, reg, p[0], p[1], p[2], p[3], host, 0, null(), null_mut())
    };
    t.handle(Kind::Queue, CL_INVALID_COMMAND_QUEUE, |q| write(q, m, [z, z, r], [0; 4], h));
    t.handle(Kind::Mem, CL_INVALID_MEM_OBJECT, |m| write(q, m, [z, z, r], [0; 4], h));
    t.is("a buffer of another context", write(q, o.other_mem, [z, z, r], [0; 4], h), CL_INVALID_CONTEXT);
    for c in rect_cases(["buffer", "host"]).iter().filter(|c| !c.second_bounds) {
        let (bo, ho, reg) = c.pointers();
        t.is(&c.what, write(q, m, [bo, ho, reg], c.pitches, h), CL_INVALID_VALUE);
    }
    t.is("NULL ptr", write(q, m, [z, z, r], [0; 4], null()), CL_INVALID_VALUE);
    t.is("HOST_NO_ACCESS buffer", write(q, o.host_no_access, [z, z, r], [0; 4], h), CL_INVALID_OPERATION);
    t.is("HOST_READ_ONLY buffer", write(q, o.host_read_only, [z, z, r], [0; 4], h), CL_INVALID_OPERATION);
    t.wait_lists(|n, l| a.clEnqueueWriteBufferRect(q, m, CL_FALSE, z, z, r, 0, 0, 0, 0, h, n, l, null_mut()));

    let dst = o.read_only;
    let copy = |q: H, s: H, d: H, [so, d_o, reg]: [Sizes; 3], p: [usize; 4]| {
        a.clEnqueueCopyBufferRect(q, s, d, so, d_o, reg, p[0], p[1], p[2], p[3], 0, null(), null_mut())
    };
    t.handle(Kind::Queue, CL_INVALID_COMMAND_QUEUE, |q| copy(q, m, dst, [z, z, r], [0; 4]));
    t.handle(Kind::Mem, CL_INVALID_MEM_OBJECT, |s| copy(q, s, dst, [z, z, r], [0; 4]));
    t.handle(Kind::Mem, CL_INVALID_MEM_OBJECT, |d| copy(q, m, d, [z, z, r], [0; 4]));
    t.is("a source of another context", copy(q, o.other_mem, dst, [z, z, r], [0; 4]), CL_INVALID_CONTEXT);
    t.is("a destination of another context", copy(q, m, o.other_mem, [z, z, r], [0; 4]), CL_INVALID_CONTEXT);
    for c in rect_cases(["source", "destination"]) {
        let (so, d_o, reg) = c.pointers();
        t.is(&c.what, copy(q, m, dst, [so, d_o, reg], c.pitches), CL_INVALID_VALUE);
    }
    t.is("overlapping rectangles of one buffer", copy(q, m, m, [z, z, r], [0; 4]), CL_MEM_COPY_OVERLAP);
    let apart = [0usize, 0, 2];
    t.is("one buffer, different row and slice pitches", copy(q, m, m, [z, apart.as_ptr(), r], [8, 64, 16, 256]), CL_INVALID_VALUE);
    t.wait_lists(|n, l| a.clEnqueueCopyBufferRect(q, m, dst, z, z, r, 0, 0, 0, 0, n, l, null_mut()));
}

/// Images and samplers: bad contexts, and buffers where images belong (images themselves are
/// tested in images.rs). The host side of images works while CL_DEVICE_IMAGE_SUPPORT is still
/// false (CL_INVALID_OPERATION would apply to the same calls on a device without images).
unsafe fn images(t: &T) {
    let (a, o) = (t.a, t.o);
    let (c, q, m) = (o.context, o.queue, o.mem);
    let format = cl_image_format { image_channel_order: CL_RGBA, image_channel_data_type: CL_UNORM_INT8 };
    let f = ptr(&format);
    // cl_image_desc: a 4 × 4 2D image, every other field 0.
    let mut desc = [0usize; 10];
    desc[0] = CL_MEM_OBJECT_IMAGE2D as usize;
    desc[1] = 4;
    desc[2] = 4;
    let d = desc.as_ptr().cast();
    let rw = CL_MEM_READ_WRITE;
    // The code, releasing what was made.
    let made = |h: H, code: cl_int| {
        if !h.is_null() {
            ok(a.clReleaseMemObject(h));
        }
        code
    };
    let image2d = |c: H| {
        let mut e = UNWRITTEN;
        made(a.clCreateImage2D(c, rw, f, 4, 4, 0, null_mut(), &mut e), e)
    };
    let image3d = |c: H| {
        let mut e = UNWRITTEN;
        made(a.clCreateImage3D(c, rw, f, 4, 4, 4, 0, 0, null_mut(), &mut e), e)
    };
    let image = |c: H| {
        let mut e = UNWRITTEN;
        made(a.clCreateImage(c, rw, f, d, null_mut(), &mut e), e)
    };
    let with_props = |c: H| {
        let mut e = UNWRITTEN;
        made(a.clCreateImageWithProperties(c, null(), rw, f, d, null_mut(), &mut e), e)
    };
    for create in [&image2d as &dyn Fn(H) -> cl_int, &image3d, &image, &with_props] {
        t.handle(Kind::Context, CL_INVALID_CONTEXT, create);
        t.is("a 4 × 4 RGBA image", create(c), CL_SUCCESS);
    }
    let formats = |c: H, flags: cl_ulong, ty: cl_uint, n: cl_uint, out: Ptr, count: *mut cl_uint| a.clGetSupportedImageFormats(c, flags, ty, n, out, count);
    let (mut list, mut count) = ([0u64; 4], 0u32);
    let (l, n) = (list.as_mut_ptr().cast(), &mut count as *mut cl_uint);
    t.handle(Kind::Context, CL_INVALID_CONTEXT, |c| formats(c, rw, CL_MEM_OBJECT_IMAGE2D, 4, l, n));
    t.is("unknown flag bit", formats(c, 1 << 40, CL_MEM_OBJECT_IMAGE2D, 4, l, n), CL_INVALID_VALUE);
    t.is("READ_ONLY | WRITE_ONLY", formats(c, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, CL_MEM_OBJECT_IMAGE2D, 4, l, n), CL_INVALID_VALUE);
    t.is("a buffer is no image type", formats(c, rw, CL_MEM_OBJECT_BUFFER, 4, l, n), CL_INVALID_VALUE);
    t.is("unknown image type", formats(c, rw, 0x7777, 4, l, n), CL_INVALID_VALUE);
    t.is("num_entries 0 with an array", formats(c, rw, CL_MEM_OBJECT_IMAGE2D, 0, l, n), CL_INVALID_VALUE);
    let mut value = [0u8; 64];
    let v: Ptr = value.as_mut_ptr().cast();
    t.handle(Kind::Mem, CL_INVALID_MEM_OBJECT, |m| a.clGetImageInfo(m, CL_IMAGE_WIDTH, 64, v, null_mut()));
    t.is("a buffer", a.clGetImageInfo(m, CL_IMAGE_WIDTH, 64, v, null_mut()), CL_INVALID_MEM_OBJECT);

    let no_image = [CL_INVALID_MEM_OBJECT, CL_INVALID_OPERATION];
    let (origin, region) = ([0usize; 3], [1usize; 3]);
    let (z, r) = (origin.as_ptr(), region.as_ptr());
    let (mut rp, mut sp) = (0usize, 0usize);
    let (rp, sp) = (&mut rp as *mut usize, &mut sp as *mut usize);
    let commands: [&dyn Fn(H, H) -> cl_int; 7] = [
        &|q, i| a.clEnqueueReadImage(q, i, CL_FALSE, z, r, 0, 0, v, 0, null(), null_mut()),
        &|q, i| a.clEnqueueWriteImage(q, i, CL_FALSE, z, r, 0, 0, v, 0, null(), null_mut()),
        &|q, i| a.clEnqueueCopyImage(q, i, i, z, z, r, 0, null(), null_mut()),
        &|q, i| a.clEnqueueCopyImageToBuffer(q, i, m, z, r, 0, 0, null(), null_mut()),
        &|q, i| a.clEnqueueCopyBufferToImage(q, m, i, 0, z, r, 0, null(), null_mut()),
        &|q, i| a.clEnqueueFillImage(q, i, v, z, r, 0, null(), null_mut()),
        &|q, i| err(|e| a.clEnqueueMapImage(q, i, CL_FALSE, CL_MAP_READ, z, r, rp, sp, 0, null(), null_mut(), e)),
    ];
    for command in commands {
        t.handle(Kind::Queue, CL_INVALID_COMMAND_QUEUE, |q| command(q, m));
        t.handles(Kind::Mem, &no_image, |i| command(q, i));
        t.check("a buffer as the image", command(q, m), &no_image);
    }

    t.handle(Kind::Context, CL_INVALID_CONTEXT, |c| err(|e| a.clCreateSampler(c, CL_FALSE, CL_ADDRESS_NONE, CL_FILTER_NEAREST, e)));
    t.handle(Kind::Context, CL_INVALID_CONTEXT, |c| err(|e| a.clCreateSamplerWithProperties(c, null(), e)));
    t.handle(Kind::Sampler, CL_INVALID_SAMPLER, |s| a.clRetainSampler(s));
    t.handle(Kind::Sampler, CL_INVALID_SAMPLER, |s| a.clReleaseSampler(s));
    t.handle(Kind::Sampler, CL_INVALID_SAMPLER, |s| a.clGetSamplerInfo(s, CL_SAMPLER_REFERENCE_COUNT, 64, v, null_mut()));
}

unsafe fn programs(t: &T) {
    let (a, o) = (t.a, t.o);
    let (c, d) = (o.context, o.device);
    let text = CString::new(SOURCE).expect("source");
    let s = text.as_ptr();
    let from_source = |c: H, n: cl_uint, strings: *const *const c_char| err(|e| a.clCreateProgramWithSource(c, n, strings, null(), e));
    t.handle(Kind::Context, CL_INVALID_CONTEXT, |c| from_source(c, 1, &s));
    t.is("count 0", from_source(c, 0, &s), CL_INVALID_VALUE);
    t.is("NULL strings", from_source(c, 1, null()), CL_INVALID_VALUE);
    t.is("a NULL string", from_source(c, 2, [s, null()].as_ptr()), CL_INVALID_VALUE);

    let (len, bin) = (o.binary_bytes.len(), o.binary_bytes.as_ptr());
    let garbage = [0x5au8; 64];
    let from_binary = |c: H, n: cl_uint, devices: List, lengths: Sizes, binaries: *const *const u8| {
        err(|e| a.clCreateProgramWithBinary(c, n, devices, lengths, binaries, null_mut(), e))
    };
    t.handle(Kind::Context, CL_INVALID_CONTEXT, |c| from_binary(c, 1, &d, &len, &bin));
    t.handle(Kind::Device, CL_INVALID_DEVICE, |d| from_binary(c, 1, &d, &len, &bin));
    t.is("no devices", from_binary(c, 0, &d, &len, &bin), CL_INVALID_VALUE);
    t.is("NULL device list", from_binary(c, 1, null(), &len, &bin), CL_INVALID_VALUE);
    t.is("NULL lengths", from_binary(c, 1, &d, null(), &bin), CL_INVALID_VALUE);
    t.is("NULL binaries", from_binary(c, 1, &d, &len, null()), CL_INVALID_VALUE);
    t.is("a length 0", from_binary(c, 1, &d, &0, &bin), CL_INVALID_VALUE);
    t.is("a NULL binary", from_binary(c, 1, &d, &len, &null()), CL_INVALID_VALUE);
    t.is("not a binary", from_binary(c, 1, &d, &garbage.len(), &garbage.as_ptr()), CL_INVALID_BINARY);

    // CL_DEVICE_BUILT_IN_KERNELS is empty: no kernel name is valid.
    let built_in = |c: H, n: cl_uint, devices: List, names: *const c_char| err(|e| a.clCreateProgramWithBuiltInKernels(c, n, devices, names, e));
    t.handle(Kind::Context, CL_INVALID_CONTEXT, |c| built_in(c, 1, &d, c"k".as_ptr()));
    t.handle(Kind::Device, CL_INVALID_DEVICE, |d| built_in(c, 1, &d, c"k".as_ptr()));
    t.is("no devices", built_in(c, 0, null(), c"k".as_ptr()), CL_INVALID_VALUE);
    t.is("NULL kernel_names", built_in(c, 1, &d, null()), CL_INVALID_VALUE);
    t.is("an unknown kernel name", built_in(c, 1, &d, c"k".as_ptr()), CL_INVALID_VALUE);

    // CL_DEVICE_IL_VERSION is empty: no device takes intermediate language. A NULL IL is also
    // CL_INVALID_VALUE; either error applies.
    let il = [0x07230203u32, 0, 0, 0, 0];
    t.handle(Kind::Context, CL_INVALID_CONTEXT, |c| err(|e| a.clCreateProgramWithIL(c, ptr(&il), 20, e)));
    t.is("no device takes IL", err(|e| a.clCreateProgramWithIL(c, ptr(&il), 20, e)), CL_INVALID_OPERATION);
    t.check("NULL il", err(|e| a.clCreateProgramWithIL(c, null(), 0, e)), &[CL_INVALID_VALUE, CL_INVALID_OPERATION]);

    t.handle(Kind::Program, CL_INVALID_PROGRAM, |p| a.clRetainProgram(p));
    t.handle(Kind::Program, CL_INVALID_PROGRAM, |p| a.clReleaseProgram(p));
    builds(t);
    program_queries(t);
}

/// Build, compile and link.
unsafe fn builds(t: &T) {
    let (a, o) = (t.a, t.o);
    let (c, d, src) = (o.context, o.device, o.source);
    let build = |p: H, n: cl_uint, devices: List, user: Ptr| a.clBuildProgram(p, n, devices, null(), null(), user);
    t.handle(Kind::Program, CL_INVALID_PROGRAM, |p| build(p, 0, null(), null_mut()));
    t.is("1 device in a NULL list", build(src, 1, null(), null_mut()), CL_INVALID_VALUE);
    t.is("0 devices in a list", build(src, 0, &d, null_mut()), CL_INVALID_VALUE);
    t.handle(Kind::Device, CL_INVALID_DEVICE, |d| build(src, 1, &d, null_mut()));
    t.is("user_data without pfn_notify", build(src, 0, null(), USER), CL_INVALID_VALUE);
    t.is("kernels attached", build(o.program, 0, null(), null_mut()), CL_INVALID_OPERATION);

    let name = c"h.h".as_ptr();
    let compile = |p: H, n: cl_uint, devices: List, headers: (cl_uint, List, *const *const c_char), user: Ptr| {
        a.clCompileProgram(p, n, devices, null(), headers.0, headers.1, headers.2, null(), user)
    };
    let none = (0, null(), null());
    t.handle(Kind::Program, CL_INVALID_PROGRAM, |p| compile(p, 0, null(), none, null_mut()));
    t.is("1 device in a NULL list", compile(src, 1, null(), none, null_mut()), CL_INVALID_VALUE);
    t.is("0 devices in a list", compile(src, 0, &d, none, null_mut()), CL_INVALID_VALUE);
    t.handle(Kind::Device, CL_INVALID_DEVICE, |d| compile(src, 1, &d, none, null_mut()));
    t.is("user_data without pfn_notify", compile(src, 0, null(), none, USER), CL_INVALID_VALUE);
    let header = o.compiled;
    t.is("0 headers, a header list", compile(src, 0, null(), (0, &header, null()), null_mut()), CL_INVALID_VALUE);
    t.is("0 headers, a name list", compile(src, 0, null(), (0, null(), &name), null_mut()), CL_INVALID_VALUE);
    t.is("1 header, NULL header list", compile(src, 0, null(), (1, null(), &name), null_mut()), CL_INVALID_VALUE);
    t.is("1 header, NULL name list", compile(src, 0, null(), (1, &header, null()), null_mut()), CL_INVALID_VALUE);
    t.is("a header of another context", compile(src, 0, null(), (1, &o.other_program, &name), null_mut()), CL_INVALID_CONTEXT);
    // The spec names no error for a header that is no program; the program's own is closest.
    t.handles(Kind::Program, &[CL_INVALID_PROGRAM, CL_INVALID_VALUE], |h| compile(src, 0, null(), (1, &h, &name), null_mut()));
    t.is("made from a binary, no source", compile(o.binary, 0, null(), none, null_mut()), CL_INVALID_OPERATION);
    t.is("kernels attached", compile(o.program, 0, null(), none, null_mut()), CL_INVALID_OPERATION);

    let inputs = [o.compiled];
    let link = |c: H, n: cl_uint, devices: List, inputs: (cl_uint, List), user: Ptr| {
        err(|e| a.clLinkProgram(c, n, devices, null(), inputs.0, inputs.1, null(), user, e))
    };
    let one = (1, inputs.as_ptr());
    t.handle(Kind::Context, CL_INVALID_CONTEXT, |c| link(c, 0, null(), one, null_mut()));
    t.is("1 device in a NULL list", link(c, 1, null(), one, null_mut()), CL_INVALID_VALUE);
    t.is("0 devices in a list", link(c, 0, &d, one, null_mut()), CL_INVALID_VALUE);
    t.handle(Kind::Device, CL_INVALID_DEVICE, |d| link(c, 1, &d, one, null_mut()));
    t.is("no inputs", link(c, 0, null(), (0, null()), null_mut()), CL_INVALID_VALUE);
    t.is("0 inputs in a list", link(c, 0, null(), (0, inputs.as_ptr()), null_mut()), CL_INVALID_VALUE);
    t.is("1 input in a NULL list", link(c, 0, null(), (1, null()), null_mut()), CL_INVALID_VALUE);
    t.handle(Kind::Program, CL_INVALID_PROGRAM, |p| link(c, 0, null(), (2, [o.compiled, p].as_ptr()), null_mut()));
    // The other context's program is an executable, not a compiled object: both errors apply.
    t.check("an input of another context", link(c, 0, null(), (1, &o.other_program), null_mut()), &[CL_INVALID_CONTEXT, CL_INVALID_OPERATION]);
    t.is("an input that was never compiled", link(c, 0, null(), (1, &o.source), null_mut()), CL_INVALID_OPERATION);
    t.is("user_data without pfn_notify", link(c, 0, null(), one, USER), CL_INVALID_VALUE);
}

unsafe fn program_queries(t: &T) {
    let (a, o) = (t.a, t.o);
    let (p, d) = (o.program, o.device);
    let mut value = [0u8; 256];
    let v: Ptr = value.as_mut_ptr().cast();
    t.handle(Kind::Program, CL_INVALID_PROGRAM, |p| a.clGetProgramInfo(p, CL_PROGRAM_NUM_DEVICES, 256, v, null_mut()));
    t.info(&[CL_PROGRAM_SOURCE, CL_PROGRAM_BINARY_SIZES, CL_PROGRAM_NUM_KERNELS, CL_PROGRAM_KERNEL_NAMES], |param, s, v, r| a.clGetProgramInfo(p, param, s, v, r));
    t.is("short CL_PROGRAM_BINARIES", a.clGetProgramInfo(p, CL_PROGRAM_BINARIES, 4, v, null_mut()), CL_INVALID_VALUE);
    for param in [CL_PROGRAM_NUM_KERNELS, CL_PROGRAM_KERNEL_NAMES] {
        t.is("never built", a.clGetProgramInfo(o.source, param, 256, v, null_mut()), CL_INVALID_PROGRAM_EXECUTABLE);
    }
    t.handle(Kind::Program, CL_INVALID_PROGRAM, |p| a.clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_STATUS, 256, v, null_mut()));
    t.handle(Kind::Device, CL_INVALID_DEVICE, |d| a.clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_STATUS, 256, v, null_mut()));
    t.info(&[CL_PROGRAM_BUILD_OPTIONS, CL_PROGRAM_BUILD_STATUS], |param, s, v, r| a.clGetProgramBuildInfo(p, d, param, s, v, r));
    // Program-scope destructors and specialisation constants (IL) are unsupported. A NULL
    // callback is CL_INVALID_VALUE too; a program made from source is no IL program either.
    t.handle(Kind::Program, CL_INVALID_PROGRAM, |p| a.clSetProgramReleaseCallback(p, on_object as Func, null_mut()));
    t.is("no destructors", a.clSetProgramReleaseCallback(p, on_object as Func, null_mut()), CL_INVALID_OPERATION);
    t.check("NULL pfn_notify", a.clSetProgramReleaseCallback(p, null(), null_mut()), &[CL_INVALID_VALUE, CL_INVALID_OPERATION]);
    let x = 0u32;
    t.handle(Kind::Program, CL_INVALID_PROGRAM, |p| a.clSetProgramSpecializationConstant(p, 0, 4, ptr(&x)));
    t.check("not an IL program", a.clSetProgramSpecializationConstant(p, 0, 4, ptr(&x)), &[CL_INVALID_PROGRAM, CL_INVALID_OPERATION]);
}

unsafe fn kernels(t: &T) {
    let (a, o) = (t.a, t.o);
    let (p, d) = (o.program, o.device);
    let create = |p: H, name: *const c_char| err(|e| a.clCreateKernel(p, name, e));
    t.handle(Kind::Program, CL_INVALID_PROGRAM, |p| create(p, c"k".as_ptr()));
    t.is("NULL kernel_name", create(p, null()), CL_INVALID_VALUE);
    t.is("no such kernel", create(p, c"nosuch".as_ptr()), CL_INVALID_KERNEL_NAME);
    t.is("never built", create(o.source, c"k".as_ptr()), CL_INVALID_PROGRAM_EXECUTABLE);
    let (mut list, mut n) = ([null_mut(); 1], 0u32);
    t.handle(Kind::Program, CL_INVALID_PROGRAM, |p| a.clCreateKernelsInProgram(p, 0, null_mut(), &mut n));
    t.is("room for 1 of 2 kernels", a.clCreateKernelsInProgram(p, 1, list.as_mut_ptr(), &mut n), CL_INVALID_VALUE);
    t.is("never built", a.clCreateKernelsInProgram(o.source, 0, null_mut(), &mut n), CL_INVALID_PROGRAM_EXECUTABLE);
    t.handle(Kind::Kernel, CL_INVALID_KERNEL, |k| err(|e| a.clCloneKernel(k, e)));
    t.handle(Kind::Kernel, CL_INVALID_KERNEL, |k| a.clRetainKernel(k));
    t.handle(Kind::Kernel, CL_INVALID_KERNEL, |k| a.clReleaseKernel(k));
    kernel_args(t);

    let mut value = [0u8; 256];
    let v: Ptr = value.as_mut_ptr().cast();
    let k = o.kernel;
    t.handle(Kind::Kernel, CL_INVALID_KERNEL, |k| a.clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, 256, v, null_mut()));
    t.info(&[CL_KERNEL_FUNCTION_NAME, CL_KERNEL_NUM_ARGS, CL_KERNEL_PROGRAM], |param, s, v, r| a.clGetKernelInfo(k, param, s, v, r));
    // NULL names the one device of the kernel's program: valid here.
    let work_group = |k: H, d: H, param: cl_uint| a.clGetKernelWorkGroupInfo(k, d, param, 256, v, null_mut());
    t.handle(Kind::Kernel, CL_INVALID_KERNEL, |k| work_group(k, d, CL_KERNEL_WORK_GROUP_SIZE));
    t.non_null_handles(Kind::Device, CL_INVALID_DEVICE, |d| work_group(k, d, CL_KERNEL_WORK_GROUP_SIZE));
    t.info(&[CL_KERNEL_COMPILE_WORK_GROUP_SIZE, CL_KERNEL_WORK_GROUP_SIZE, CL_KERNEL_LOCAL_MEM_SIZE], |param, s, v, r| a.clGetKernelWorkGroupInfo(k, d, param, s, v, r));
    t.is("CL_KERNEL_GLOBAL_WORK_SIZE of a program kernel", work_group(k, d, CL_KERNEL_GLOBAL_WORK_SIZE), CL_INVALID_VALUE);
    t.handle(Kind::Kernel, CL_INVALID_KERNEL, |k| a.clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_NAME, 256, v, null_mut()));
    t.is("argument index past the last", a.clGetKernelArgInfo(k, 3, CL_KERNEL_ARG_NAME, 256, v, null_mut()), CL_INVALID_ARG_INDEX);
    t.info(&[CL_KERNEL_ARG_TYPE_NAME, CL_KERNEL_ARG_ADDRESS_QUALIFIER], |param, s, v, r| a.clGetKernelArgInfo(k, 0, param, s, v, r));
    let from_binary = new_kernel(a, o.binary, c"k");
    t.is("built without -cl-kernel-arg-info", a.clGetKernelArgInfo(from_binary, 0, CL_KERNEL_ARG_NAME, 256, v, null_mut()), CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
    ok(a.clReleaseKernel(from_binary));

    // Sub-group queries: a local size of 1 to 3 sizes, known parameters.
    let local = 1usize;
    let sub_groups: [&dyn Fn(H, H) -> cl_int; 2] = [
        &|k, d| a.clGetKernelSubGroupInfo(k, d, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, 8, ptr(&local), 256, v, null_mut()),
        &|k, d| a.clGetKernelSubGroupInfoKHR(k, d, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, 8, ptr(&local), 256, v, null_mut()),
    ];
    for query in sub_groups {
        t.handle(Kind::Kernel, CL_INVALID_KERNEL, |k| query(k, d));
        t.non_null_handles(Kind::Device, CL_INVALID_DEVICE, |d| query(k, d));
    }
    t.is("a sub-group query with no local size", a.clGetKernelSubGroupInfo(k, d, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, 0, null(), 256, v, null_mut()), CL_INVALID_VALUE);
    t.is("a sub-group query with four sizes", a.clGetKernelSubGroupInfo(k, d, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE, 32, ptr(&[1usize; 4]), 256, v, null_mut()), CL_INVALID_VALUE);
    t.is("an unknown sub-group query", a.clGetKernelSubGroupInfo(k, d, CL_KERNEL_WORK_GROUP_SIZE, 8, ptr(&local), 256, v, null_mut()), CL_INVALID_VALUE);
}

/// `clSetKernelArg` on a copy of `k` (global int *p, int v, local int *l), and the SVM
/// arguments and execution information (coarse-grain buffer SVM).
unsafe fn kernel_args(t: &T) {
    let (a, o) = (t.a, t.o);
    let k = made("clone", |e| a.clCloneKernel(o.kernel, e));
    let (v, m) = (7i32, o.mem);
    t.handle(Kind::Kernel, CL_INVALID_KERNEL, |k| a.clSetKernelArg(k, 1, 4, ptr(&v)));
    t.is("argument index past the last", a.clSetKernelArg(k, 3, 4, ptr(&v)), CL_INVALID_ARG_INDEX);
    t.is("buffer argument of 4 bytes", a.clSetKernelArg(k, 0, 4, ptr(&m)), CL_INVALID_ARG_SIZE);
    // A NULL buffer argument is valid.
    t.non_null_handles(Kind::Mem, CL_INVALID_MEM_OBJECT, |m| a.clSetKernelArg(k, 0, size_of::<H>(), ptr(&m)));
    t.is("int argument of 8 bytes", a.clSetKernelArg(k, 1, 8, ptr(&0u64)), CL_INVALID_ARG_SIZE);
    t.is("int argument with a NULL value", a.clSetKernelArg(k, 1, 4, null()), CL_INVALID_ARG_VALUE);
    t.is("local argument with a value", a.clSetKernelArg(k, 2, 4, ptr(&v)), CL_INVALID_ARG_VALUE);
    t.is("local argument of 0 bytes", a.clSetKernelArg(k, 2, 0, null()), CL_INVALID_ARG_SIZE);
    ok(a.clReleaseKernel(k));

    let k = o.kernel;
    let svm = [0u8; 16];
    t.handle(Kind::Kernel, CL_INVALID_KERNEL, |k| a.clSetKernelArgSVMPointer(k, 0, svm.as_ptr().cast()));
    t.is("host memory, not SVM", a.clSetKernelArgSVMPointer(k, 0, svm.as_ptr().cast()), CL_INVALID_ARG_VALUE);
    t.is("SVM pointer for an int", a.clSetKernelArgSVMPointer(k, 1, null()), CL_INVALID_ARG_VALUE);
    t.is("SVM pointer index past the last", a.clSetKernelArgSVMPointer(k, 3, null()), CL_INVALID_ARG_INDEX);
    let pointers = [svm.as_ptr()];
    let exec = |k: H, param: cl_uint, size: usize, value: CPtr| a.clSetKernelExecInfo(k, param, size, value);
    t.handle(Kind::Kernel, CL_INVALID_KERNEL, |k| exec(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, size_of_val(&pointers), ptr(&pointers)));
    t.is("SVM pointers of 3 bytes", exec(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, 3, ptr(&pointers)), CL_INVALID_VALUE);
    let yes = CL_TRUE;
    t.is("fine-grain system SVM, unsupported", exec(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, 4, ptr(&yes)), CL_INVALID_OPERATION);
    t.is("fine-grain system SVM off", exec(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, 4, ptr(&CL_FALSE)), CL_SUCCESS);
    t.is("unknown param_name", exec(k, 0x7777, 4, ptr(&yes)), CL_INVALID_VALUE);
    t.is("NULL param_value", exec(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, 4, null()), CL_INVALID_VALUE);
    t.is("param_value_size not a cl_bool", exec(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, 1, ptr(&yes)), CL_INVALID_VALUE);
}

/// Device limits an NDRange is checked against.
unsafe fn work_limits(a: &Api, d: H) -> (usize, [usize; 3], u32) {
    let (mut group, mut items, mut bits) = (0usize, [0usize; 3], 0u32);
    ok(a.clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_GROUP_SIZE, 8, out(&mut group), null_mut()));
    ok(a.clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_ITEM_SIZES, 24, out(&mut items), null_mut()));
    ok(a.clGetDeviceInfo(d, CL_DEVICE_ADDRESS_BITS, 4, out(&mut bits), null_mut()));
    (group, items, bits)
}

unsafe fn launches(t: &T) {
    let (a, o) = (t.a, t.o);
    let (q, k) = (o.queue, o.kernel);
    let one = [1usize; 3];
    let nd = |q: H, k: H, dim: cl_uint, offset: Sizes, global: &[usize; 3], local: Option<&[usize; 3]>| {
        a.clEnqueueNDRangeKernel(q, k, dim, offset, global.as_ptr(), local.map_or(null(), |l| l.as_ptr()), 0, null(), null_mut())
    };
    t.handle(Kind::Queue, CL_INVALID_COMMAND_QUEUE, |q| nd(q, k, 1, null(), &one, None));
    t.handle(Kind::Kernel, CL_INVALID_KERNEL, |k| nd(q, k, 1, null(), &one, None));
    t.is("a kernel of another context", nd(q, o.other_kernel, 1, null(), &one, None), CL_INVALID_CONTEXT);
    t.is("arguments not set", nd(q, o.unset, 1, null(), &one, None), CL_INVALID_KERNEL_ARGS);
    for dim in [0, 4] {
        t.is(&format!("work_dim {dim}"), nd(q, k, dim, null(), &one, None), CL_INVALID_WORK_DIMENSION);
    }
    // Non-uniform work-groups are unsupported (CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT).
    t.is("global size not a multiple of the local size", nd(q, k, 1, null(), &[6, 1, 1], Some(&[4, 1, 1])), CL_INVALID_WORK_GROUP_SIZE);
    let (max_group, max_items, address_bits) = work_limits(a, o.device);
    // A work-group over CL_DEVICE_MAX_WORK_GROUP_SIZE whose every size is allowed on its own.
    let x = max_items[0].min(max_group);
    let y = max_group / x + 1;
    if y <= max_items[1] {
        let local = [x, y, 1];
        t.is("work-group past CL_DEVICE_MAX_WORK_GROUP_SIZE", nd(q, k, 2, null(), &local, Some(&local)), CL_INVALID_WORK_GROUP_SIZE);
    }
    // A local size past CL_DEVICE_MAX_WORK_ITEM_SIZES in one dimension; where that maximum is
    // the work-group maximum or more, the work-group is too large as well and both errors apply.
    let i = (0..3).min_by_key(|&i| max_items[i]).unwrap_or(0);
    let mut local = [1usize; 3];
    local[i] = max_items[i] + 1;
    let allowed: &[cl_int] = if local[i] <= max_group { &[CL_INVALID_WORK_ITEM_SIZE] } else { &[CL_INVALID_WORK_ITEM_SIZE, CL_INVALID_WORK_GROUP_SIZE] };
    t.check("local size past CL_DEVICE_MAX_WORK_ITEM_SIZES", nd(q, k, 3, null(), &local, Some(&local)), allowed);
    t.is("offset + global size past the device's size_t", nd(q, k, 1, [usize::MAX, 0, 0].as_ptr(), &[2, 1, 1], None), CL_INVALID_GLOBAL_OFFSET);
    if address_bits == 32 {
        t.is("global size past the device's size_t", nd(q, k, 1, null(), &[1 << 32, 1, 1], None), CL_INVALID_GLOBAL_WORK_SIZE);
    }
    t.wait_lists(|n, l| a.clEnqueueNDRangeKernel(q, k, 1, null(), one.as_ptr(), null(), n, l, null_mut()));

    let task = |q: H, k: H| a.clEnqueueTask(q, k, 0, null(), null_mut());
    t.handle(Kind::Queue, CL_INVALID_COMMAND_QUEUE, |q| task(q, k));
    t.handle(Kind::Kernel, CL_INVALID_KERNEL, |k| task(q, k));
    t.is("a kernel of another context", task(q, o.other_kernel), CL_INVALID_CONTEXT);
    t.is("arguments not set", task(q, o.unset), CL_INVALID_KERNEL_ARGS);
    t.wait_lists(|n, l| a.clEnqueueTask(q, k, n, l, null_mut()));

    // CL_DEVICE_EXECUTION_CAPABILITIES has no CL_EXEC_NATIVE_KERNEL. A NULL function is also
    // CL_INVALID_VALUE; either error applies.
    let native = |q: H, f: Func| a.clEnqueueNativeKernel(q, f, null_mut(), 0, 0, null(), null(), 0, null(), null_mut());
    t.handle(Kind::Queue, CL_INVALID_COMMAND_QUEUE, |q| native(q, native_fn as Func));
    t.is("no native kernels", native(q, native_fn as Func), CL_INVALID_OPERATION);
    t.check("NULL user_func", native(q, null()), &[CL_INVALID_VALUE, CL_INVALID_OPERATION]);
}

unsafe fn events(t: &T) {
    let (a, o) = (t.a, t.o);
    let (q, done) = (o.queue, o.done);
    t.is("no events", a.clWaitForEvents(0, &done), CL_INVALID_VALUE);
    t.is("NULL event_list", a.clWaitForEvents(1, null()), CL_INVALID_VALUE);
    t.handle(Kind::Event, CL_INVALID_EVENT, |e| a.clWaitForEvents(2, [done, e].as_ptr()));
    t.is("events of two contexts", a.clWaitForEvents(2, [done, o.other_event].as_ptr()), CL_INVALID_CONTEXT);
    let mut value = [0u8; 64];
    let v: Ptr = value.as_mut_ptr().cast();
    t.handle(Kind::Event, CL_INVALID_EVENT, |e| a.clGetEventInfo(e, CL_EVENT_COMMAND_TYPE, 64, v, null_mut()));
    t.info(&[CL_EVENT_COMMAND_EXECUTION_STATUS, CL_EVENT_CONTEXT], |param, s, v, r| a.clGetEventInfo(done, param, s, v, r));
    t.handle(Kind::Event, CL_INVALID_EVENT, |e| a.clRetainEvent(e));
    t.handle(Kind::Event, CL_INVALID_EVENT, |e| a.clReleaseEvent(e));

    let mut marker = null_mut();
    ok(a.clEnqueueMarkerWithWaitList(q, 0, null(), &mut marker));
    ok(a.clFinish(q));
    let profiling = |e: H, param: cl_uint| a.clGetEventProfilingInfo(e, param, 64, v, null_mut());
    t.handle(Kind::Event, CL_INVALID_EVENT, |e| profiling(e, CL_PROFILING_COMMAND_END));
    t.is("a user event", profiling(done, CL_PROFILING_COMMAND_END), CL_PROFILING_INFO_NOT_AVAILABLE);
    t.is("a queue without profiling", profiling(marker, CL_PROFILING_COMMAND_END), CL_PROFILING_INFO_NOT_AVAILABLE);
    t.info(&[CL_PROFILING_COMMAND_END, CL_PROFILING_COMMAND_QUEUED], |param, s, v, r| a.clGetEventProfilingInfo(o.profiled, param, s, v, r));

    let callback = |e: H, on: cl_int, f: Func| a.clSetEventCallback(e, on, f, null_mut());
    t.handle(Kind::Event, CL_INVALID_EVENT, |e| callback(e, CL_COMPLETE as cl_int, on_event as Func));
    t.is("NULL pfn_notify", callback(done, CL_COMPLETE as cl_int, null()), CL_INVALID_VALUE);
    for on in [CL_QUEUED as cl_int, 77] {
        t.is(&format!("callback type {on}"), callback(done, on, on_event as Func), CL_INVALID_VALUE);
    }
    t.handle(Kind::Context, CL_INVALID_CONTEXT, |c| err(|e| a.clCreateUserEvent(c, e)));
    let fresh = made("user event", |e| a.clCreateUserEvent(o.context, e));
    t.handle(Kind::Event, CL_INVALID_EVENT, |e| a.clSetUserEventStatus(e, CL_COMPLETE as cl_int));
    t.is("not a user event", a.clSetUserEventStatus(marker, CL_COMPLETE as cl_int), CL_INVALID_EVENT);
    for status in [CL_RUNNING as cl_int, CL_SUBMITTED as cl_int, 5] {
        t.is(&format!("status {status}"), a.clSetUserEventStatus(fresh, status), CL_INVALID_VALUE);
    }
    t.is("status set twice", a.clSetUserEventStatus(done, CL_COMPLETE as cl_int), CL_INVALID_OPERATION);
    ok(a.clSetUserEventStatus(fresh, CL_COMPLETE as cl_int));
    ok(a.clReleaseEvent(fresh));
    ok(a.clReleaseEvent(marker));

    let sync_points: [&dyn Fn(H, cl_uint, List) -> cl_int; 2] = [
        &|q, n, l| a.clEnqueueMarkerWithWaitList(q, n, l, null_mut()),
        &|q, n, l| a.clEnqueueBarrierWithWaitList(q, n, l, null_mut()),
    ];
    for call in sync_points {
        t.handle(Kind::Queue, CL_INVALID_COMMAND_QUEUE, |q| call(q, 0, null()));
        t.wait_lists(|n, l| call(q, n, l));
    }
    let mut event = null_mut();
    t.handle(Kind::Queue, CL_INVALID_COMMAND_QUEUE, |q| a.clEnqueueMarker(q, &mut event));
    t.is("NULL event", a.clEnqueueMarker(q, null_mut()), CL_INVALID_VALUE);
    t.handle(Kind::Queue, CL_INVALID_COMMAND_QUEUE, |q| a.clEnqueueBarrier(q));
    t.handle(Kind::Queue, CL_INVALID_COMMAND_QUEUE, |q| a.clEnqueueWaitForEvents(q, 1, &done));
    t.is("no events", a.clEnqueueWaitForEvents(q, 0, &done), CL_INVALID_VALUE);
    t.is("NULL event_list", a.clEnqueueWaitForEvents(q, 1, null()), CL_INVALID_VALUE);
    // OpenCL 3.0 lists no error for an invalid event here (the call predates wait lists); OpenCL
    // 1.x's clWaitForEvents used CL_INVALID_EVENT.
    t.handles(Kind::Event, &[CL_INVALID_EVENT, CL_INVALID_EVENT_WAIT_LIST], |e| a.clEnqueueWaitForEvents(q, 2, [done, e].as_ptr()));
    t.is("an event of another context", a.clEnqueueWaitForEvents(q, 1, &o.other_event), CL_INVALID_CONTEXT);
}

/// GL and EGL sharing: no context is made from a GL or EGL context, and no memory object or
/// event from a GL or EGL object (the extensions are not reported).
unsafe fn sharing(t: &T) {
    let (a, o) = (t.a, t.o);
    let (c, q, m) = (o.context, o.queue, o.mem);
    let rw = CL_MEM_READ_WRITE;
    let gl: [&dyn Fn(H) -> cl_int; 6] = [
        &|c| err(|e| a.clCreateFromGLBuffer(c, rw, 1, e)),
        &|c| err(|e| a.clCreateFromGLTexture(c, rw, 0x0DE1, 0, 1, e)),
        &|c| err(|e| a.clCreateFromGLTexture2D(c, rw, 0x0DE1, 0, 1, e)),
        &|c| err(|e| a.clCreateFromGLTexture3D(c, rw, 0x806F, 0, 1, e)),
        &|c| err(|e| a.clCreateFromGLRenderbuffer(c, rw, 1, e)),
        &|c| err(|e| a.clCreateEventFromGLsyncKHR(c, 0x1 as Ptr, e)),
    ];
    for create in gl {
        t.handle(Kind::Context, CL_INVALID_CONTEXT, create);
        t.is("a context not made from GL", create(c), CL_INVALID_CONTEXT);
    }
    let (mut ty, mut name) = (0u32, 0u32);
    t.handle(Kind::Mem, CL_INVALID_MEM_OBJECT, |m| a.clGetGLObjectInfo(m, &mut ty, &mut name));
    t.is("a buffer not made from GL", a.clGetGLObjectInfo(m, &mut ty, &mut name), CL_INVALID_GL_OBJECT);
    let mut value = [0u8; 64];
    let v: Ptr = value.as_mut_ptr().cast();
    t.handle(Kind::Mem, CL_INVALID_MEM_OBJECT, |m| a.clGetGLTextureInfo(m, CL_GL_TEXTURE_TARGET, 64, v, null_mut()));
    t.is("a buffer not made from GL", a.clGetGLTextureInfo(m, CL_GL_TEXTURE_TARGET, 64, v, null_mut()), CL_INVALID_GL_OBJECT);
    let acquire: [&dyn Fn(H, cl_uint, List) -> cl_int; 2] = [
        &|q, n, mems| a.clEnqueueAcquireGLObjects(q, n, mems, 0, null(), null_mut()),
        &|q, n, mems| a.clEnqueueReleaseGLObjects(q, n, mems, 0, null(), null_mut()),
    ];
    for call in acquire {
        t.handle(Kind::Queue, CL_INVALID_COMMAND_QUEUE, |q| call(q, 0, null()));
        t.is("a context not made from GL", call(q, 0, null()), CL_INVALID_CONTEXT);
        t.check("a buffer not made from GL", call(q, 1, &m), &[CL_INVALID_CONTEXT, CL_INVALID_GL_OBJECT]);
    }
    // An EGL display and a GL context that cannot be valid: either error describes them.
    let given = [CL_GL_CONTEXT_KHR, 1, CL_EGL_DISPLAY_KHR, 1, 0];
    let context_info = |props: &[isize], param: cl_uint| a.clGetGLContextInfoKHR(props.as_ptr(), param, 64, v, null_mut());
    let no_gl = [CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR, CL_INVALID_OPERATION];
    t.check("no such GL context", context_info(&given, CL_CURRENT_DEVICE_FOR_GL_CONTEXT_KHR), &no_gl);
    t.check("no such GL context", context_info(&given, CL_DEVICES_FOR_GL_CONTEXT_KHR), &no_gl);
    t.is("unknown property", context_info(&[0x7777, 1, 0], CL_CURRENT_DEVICE_FOR_GL_CONTEXT_KHR), CL_INVALID_VALUE);
    t.check("unknown param_name", context_info(&given, 0x7777), &[&no_gl[..], &[CL_INVALID_VALUE]].concat());

    // No image support: an image from EGL is CL_INVALID_OPERATION; the display and image given
    // are not valid either (CL_INVALID_VALUE, CL_INVALID_EGL_OBJECT_KHR).
    let egl_image = |c: H| err(|e| a.clCreateFromEGLImageKHR(c, 0x1 as Ptr, 0x1 as Ptr, rw, null(), e));
    t.handle(Kind::Context, CL_INVALID_CONTEXT, egl_image);
    t.check("no images", egl_image(c), &[CL_INVALID_OPERATION, CL_INVALID_VALUE, CL_INVALID_EGL_OBJECT_KHR]);
    let egl_sync = |c: H| err(|e| a.clCreateEventFromEGLSyncKHR(c, 0x1 as Ptr, 0x1 as Ptr, e));
    t.handle(Kind::Context, CL_INVALID_CONTEXT, egl_sync);
    t.check("a context not made from EGL", egl_sync(c), &[CL_INVALID_CONTEXT, CL_INVALID_EGL_OBJECT_KHR]);
    let egl: [&dyn Fn(H, cl_uint, List, cl_uint, List) -> cl_int; 2] = [
        &|q, n_mem, mems, n, l| a.clEnqueueAcquireEGLObjectsKHR(q, n_mem, mems, n, l, null_mut()),
        &|q, n_mem, mems, n, l| a.clEnqueueReleaseEGLObjectsKHR(q, n_mem, mems, n, l, null_mut()),
    ];
    for call in egl {
        t.handle(Kind::Queue, CL_INVALID_COMMAND_QUEUE, |q| call(q, 0, null(), 0, null()));
        t.is("no objects: does nothing", call(q, 0, null(), 0, null()), CL_SUCCESS);
        t.is("1 object in a NULL list", call(q, 1, null(), 0, null()), CL_INVALID_VALUE);
        t.is("0 objects in a list", call(q, 0, &m, 0, null()), CL_INVALID_VALUE);
        t.handle(Kind::Mem, CL_INVALID_MEM_OBJECT, |bad| call(q, 2, [m, bad].as_ptr(), 0, null()));
        t.is("a buffer of another context", call(q, 1, &o.other_mem, 0, null()), CL_INVALID_MEM_OBJECT);
        t.is("a buffer not made from EGL", call(q, 1, &m, 0, null()), CL_INVALID_EGL_OBJECT_KHR);
        // The extension lists no error for an event of another context.
        t.wait_lists_but(None, |n, l| call(q, 0, null(), n, l));
    }
}

/// Pipes and on-device queues, unsupported; SVM given host memory.
unsafe fn unsupported(t: &T) {
    let (a, o) = (t.a, t.o);
    let (c, d, q, m) = (o.context, o.device, o.queue, o.mem);
    // CL_DEVICE_PIPE_SUPPORT is CL_FALSE; no memory object is a pipe.
    let pipe = |c: H| err(|e| a.clCreatePipe(c, CL_MEM_READ_WRITE, 4, 16, null(), e));
    t.handle(Kind::Context, CL_INVALID_CONTEXT, pipe);
    t.is("no pipes", pipe(c), CL_INVALID_OPERATION);
    let mut value = [0u8; 64];
    let v: Ptr = value.as_mut_ptr().cast();
    t.handle(Kind::Mem, CL_INVALID_MEM_OBJECT, |m| a.clGetPipeInfo(m, CL_PIPE_PACKET_SIZE, 64, v, null_mut()));
    t.is("a buffer", a.clGetPipeInfo(m, CL_PIPE_PACKET_SIZE, 64, v, null_mut()), CL_INVALID_MEM_OBJECT);

    // Coarse-grain buffer SVM. clSVMAlloc fails with NULL alone (counted as
    // CL_INVALID_CONTEXT or CL_INVALID_VALUE here); clSVMFree of NULL does nothing.
    let alloc = |c: H, flags: cl_ulong, size: usize, align: cl_uint| null_means(CL_INVALID_VALUE, a.clSVMAlloc(c, flags, size, align));
    t.handle(Kind::Context, CL_INVALID_CONTEXT, |c| null_means(CL_INVALID_CONTEXT, a.clSVMAlloc(c, CL_MEM_READ_WRITE, 64, 0)));
    t.is("size 0", alloc(c, CL_MEM_READ_WRITE, 0, 0), CL_INVALID_VALUE);
    t.is("alignment not a power of two", alloc(c, CL_MEM_READ_WRITE, 64, 24), CL_INVALID_VALUE);
    t.is("fine-grain buffer, unsupported", alloc(c, CL_MEM_READ_WRITE | (1 << 10), 64, 0), CL_INVALID_VALUE);
    t.is("read-only and write-only", alloc(c, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, 64, 0), CL_INVALID_VALUE);
    t.handle(Kind::Context, CL_SUCCESS, |c| {
        a.clSVMFree(c, null_mut());
        CL_SUCCESS
    });
    let mut host = [0u8; 64];
    let h: Ptr = host.as_mut_ptr().cast();
    let pointers = [h];
    let sizes = [64usize];
    let pattern = 0u32;
    // Host memory where SVM is asked for: CL_INVALID_VALUE (copies may take host memory).
    let svm: [(&dyn Fn(H) -> cl_int, cl_int); 6] = [
        (&|q| a.clEnqueueSVMFree(q, 1, null(), null(), null_mut(), 0, null(), null_mut()), CL_INVALID_VALUE),
        (&|q| a.clEnqueueSVMMemcpy(q, CL_FALSE, h, h.wrapping_add(16), 32, 0, null(), null_mut()), CL_MEM_COPY_OVERLAP),
        (&|q| a.clEnqueueSVMMemFill(q, h, ptr(&pattern), 4, 64, 0, null(), null_mut()), CL_INVALID_VALUE),
        (&|q| a.clEnqueueSVMMap(q, CL_FALSE, CL_MAP_READ, h, 64, 0, null(), null_mut()), CL_INVALID_VALUE),
        (&|q| a.clEnqueueSVMUnmap(q, h, 0, null(), null_mut()), CL_INVALID_VALUE),
        (&|q| a.clEnqueueSVMMigrateMem(q, 1, pointers.as_ptr().cast(), sizes.as_ptr(), 0, 0, null(), null_mut()), CL_INVALID_VALUE),
    ];
    for (call, code) in svm {
        t.handle(Kind::Queue, CL_INVALID_COMMAND_QUEUE, call);
        t.is("host memory", call(q), code);
    }

    // CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES is 0: no default on-device queue to replace, so
    // CL_INVALID_OPERATION whatever the queue (CTS consistency_device_enqueue passes NULL).
    let set_default = |c: H, d: H, q: H| a.clSetDefaultDeviceCommandQueue(c, d, q);
    t.handle(Kind::Context, CL_INVALID_CONTEXT, |c| set_default(c, d, q));
    t.handle(Kind::Device, CL_INVALID_DEVICE, |d| set_default(c, d, q));
    t.check("a host queue", set_default(c, d, q), &[CL_INVALID_OPERATION]);
    t.check("no queue", set_default(c, d, std::ptr::null_mut()), &[CL_INVALID_OPERATION]);
}

// ---------------------------------------------------------------------------------------------

/// The entry points of the dispatch table (src/api/icd.rs), TAG and NONE slots left out.
fn table_entry_points() -> Vec<&'static str> {
    const ICD: &str = include_str!("../src/api/icd.rs");
    let table = &ICD[ICD.find("dispatch! {").expect("the dispatch table")..];
    let slots: Vec<(&str, &str)> = table.lines().skip(1).take_while(|l| l.trim() != "}").filter_map(|l| l.trim().split_once(": ")).collect();
    assert_eq!(slots.len(), 149, "the table's slots");
    slots.into_iter().filter(|(_, slot)| slot.starts_with('(')).map(|(name, _)| name).collect()
}

#[test]
fn every_entry_point_refuses_misuse() {
    watchdog();
    let drv = Driver::open();
    let a = Api::load(&drv);
    // SAFETY: every call passes what its case says: valid pointers of the sizes given, or NULL
    // and bad handles on purpose, which the driver must refuse without touching them.
    let (tally, entry_points) = unsafe {
        let o = Objects::new(&a, &drv);
        let t = T { a: &a, o: &o, tally: RefCell::default() };
        let sections: [unsafe fn(&T); 14] =
            [platforms, devices, contexts, queues, buffers, transfers, rects, images, programs, kernels, launches, events, sharing, unsupported];
        for section in sections {
            section(&t);
        }
        let tally = t.tally.into_inner();
        o.release_all(&a);
        (tally, CALLED.lock().unwrap_or_else(|e| e.into_inner()).clone())
    };
    let table = table_entry_points();
    let missing: Vec<&str> = table.iter().copied().filter(|name| !entry_points.contains(name)).collect();
    let _ = writeln!(std::io::stderr(), "misuse: {} entry points, {} cases", table.len() - missing.len(), tally.cases);
    assert!(missing.is_empty(), "entry points without a case: {missing:?}");
    assert!(tally.failures.is_empty(), "{} of {} cases failed:\n{}", tally.failures.len(), tally.cases, tally.failures.join("\n"));
}
