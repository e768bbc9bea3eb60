//! A small safe wrapper over the OpenCL API (through the system's ICD loader) for ferrocl's
//! demo and benchmark programs. It is an application of OpenCL, not part of the driver.
#![allow(dead_code)]

use cl_sys::*;
use std::alloc::Layout;
use std::ffi::{c_void, CString};
use std::ptr::{null, null_mut};

pub type Result<T> = std::result::Result<T, String>;

fn check(code: cl_int, what: &str) -> Result<()> {
    if code == CL_SUCCESS {
        Ok(())
    } else {
        Err(format!("{what} failed: error {code}"))
    }
}

fn info_string(f: impl Fn(usize, *mut c_void, *mut usize) -> cl_int) -> String {
    let mut size = 0;
    if f(0, null_mut(), &mut size) != CL_SUCCESS {
        return String::new();
    }
    let mut buf = vec![0u8; size];
    f(size, buf.as_mut_ptr().cast(), null_mut());
    String::from_utf8_lossy(&buf).trim_end_matches('\0').to_string()
}

pub struct Platform {
    pub id: cl_platform_id,
    pub name: String,
}

impl Platform {
    pub fn info(&self, param: cl_platform_info) -> String {
        // SAFETY: valid platform id; `info_string` sizes the buffer.
        info_string(|s, v, r| unsafe { clGetPlatformInfo(self.id, param, s, v, r) })
    }
}

/// Every platform the loader finds.
pub fn platforms() -> Vec<Platform> {
    let mut n = 0;
    // SAFETY: standard two-call enumeration.
    unsafe {
        if clGetPlatformIDs(0, null_mut(), &mut n) != CL_SUCCESS || n == 0 {
            return Vec::new();
        }
        let mut ids = vec![null_mut(); n as usize];
        clGetPlatformIDs(n, ids.as_mut_ptr(), null_mut());
        ids.into_iter()
            .map(|id| Platform { id, name: info_string(|s, v, r| clGetPlatformInfo(id, CL_PLATFORM_NAME, s, v, r)) })
            .collect()
    }
}

/// One device of a platform with a context and a queue on it.
pub struct Env {
    pub platform: String,
    pub device: cl_device_id,
    pub device_name: String,
    pub context: cl_context,
    pub queue: cl_command_queue,
}

impl Env {
    pub fn new(p: &Platform, profiling: bool) -> Result<Env> {
        let mut device = null_mut();
        // SAFETY: valid platform id; the out-pointers live on this frame.
        unsafe {
            check(clGetDeviceIDs(p.id, CL_DEVICE_TYPE_DEFAULT, 1, &mut device, null_mut()), "clGetDeviceIDs")?;
            let mut err = 0;
            let context = clCreateContext(null(), 1, &device, None, null_mut(), &mut err);
            check(err, "clCreateContext")?;
            let props = if profiling { CL_QUEUE_PROFILING_ENABLE } else { 0 };
            let queue = clCreateCommandQueue(context, device, props, &mut err);
            check(err, "clCreateCommandQueue")?;
            let device_name = info_string(|s, v, r| clGetDeviceInfo(device, CL_DEVICE_NAME, s, v, r));
            Ok(Env { platform: p.name.clone(), device, device_name, context, queue })
        }
    }

    pub fn device_string(&self, param: cl_device_info) -> String {
        // SAFETY: valid device id; `info_string` sizes the buffer.
        info_string(|s, v, r| unsafe { clGetDeviceInfo(self.device, param, s, v, r) })
    }

    pub fn device_u64(&self, param: cl_device_info) -> u64 {
        let mut v = [0u8; 8];
        // SAFETY: 8 bytes hold every scalar device query.
        unsafe { clGetDeviceInfo(self.device, param, 8, v.as_mut_ptr().cast(), null_mut()) };
        u64::from_le_bytes(v)
    }

    pub fn buffer(&self, size: usize) -> Result<Mem> {
        let mut err = 0;
        // SAFETY: valid context.
        let m = unsafe { clCreateBuffer(self.context, CL_MEM_READ_WRITE, size, null_mut(), &mut err) };
        check(err, "clCreateBuffer")?;
        Ok(Mem(m, size))
    }

    /// A buffer of `size` bytes placed as `placement` says.
    pub fn buffer_in(&self, placement: Placement, size: usize) -> Result<Backed> {
        let (flags, host) = match placement {
            Placement::Device => (0, None),
            Placement::AllocHostPtr => (CL_MEM_ALLOC_HOST_PTR, None),
            Placement::UseHostPtr => (CL_MEM_USE_HOST_PTR, Some(HostBlock::zeroed(size)?)),
        };
        let ptr = host.as_ref().map_or(null_mut(), |h| h.ptr.cast());
        let mut err = 0;
        // SAFETY: valid context; a host pointer, if any, holds `size` bytes and outlives the buffer
        // (`Backed` releases the buffer first).
        let m = unsafe { clCreateBuffer(self.context, CL_MEM_READ_WRITE | flags, size, ptr, &mut err) };
        check(err, "clCreateBuffer")?;
        Ok(Backed { mem: Mem(m, size), host })
    }

    pub fn write<T: Copy>(&self, m: &Mem, data: &[T]) -> Result<()> {
        // SAFETY: `data` holds the bytes written; the call blocks.
        check(unsafe { clEnqueueWriteBuffer(self.queue, m.0, CL_TRUE, 0, std::mem::size_of_val(data), data.as_ptr().cast(), 0, null(), null_mut()) }, "write")
    }

    pub fn read<T: Copy>(&self, m: &Mem, data: &mut [T]) -> Result<()> {
        // SAFETY: `data` has room for the bytes read; the call blocks.
        check(unsafe { clEnqueueReadBuffer(self.queue, m.0, CL_TRUE, 0, std::mem::size_of_val(data), data.as_mut_ptr().cast(), 0, null(), null_mut()) }, "read")
    }

    /// A non-blocking `clEnqueueWriteBuffer` of `data` into `m`, waited for before returning (so
    /// `data` outlives it); its event, for profiling.
    pub fn write_nonblocking<T: Copy>(&self, m: &Mem, data: &[T]) -> Result<Event> {
        let mut ev = null_mut();
        // SAFETY: `data` holds the bytes written and lives until the wait below completes the write.
        check(unsafe { clEnqueueWriteBuffer(self.queue, m.0, CL_FALSE, 0, std::mem::size_of_val(data), data.as_ptr().cast(), 0, null(), &mut ev) }, "write")?;
        let event = Event(ev);
        event.wait()?;
        Ok(event)
    }

    /// A non-blocking `clEnqueueReadBuffer` of `m` into `data`, waited for before returning.
    pub fn read_nonblocking<T: Copy>(&self, m: &Mem, data: &mut [T]) -> Result<Event> {
        let mut ev = null_mut();
        // SAFETY: `data` has room for the bytes read and is borrowed until the wait below.
        check(unsafe { clEnqueueReadBuffer(self.queue, m.0, CL_FALSE, 0, std::mem::size_of_val(data), data.as_mut_ptr().cast(), 0, null(), &mut ev) }, "read")?;
        let event = Event(ev);
        event.wait()?;
        Ok(event)
    }

    /// Fills `m` with copies of `pattern`.
    pub fn fill<T: Copy>(&self, m: &Mem, pattern: T) -> Result<Event> {
        let mut ev = null_mut();
        // SAFETY: the pattern is copied by the call; `m.1` is the buffer's size.
        check(unsafe { clEnqueueFillBuffer(self.queue, m.0, (&pattern as *const T).cast(), std::mem::size_of::<T>(), 0, m.1, 0, null(), &mut ev) }, "clEnqueueFillBuffer")?;
        Ok(Event(ev))
    }

    /// Copies all of `src` into `dst` (at least as large).
    pub fn copy(&self, src: &Mem, dst: &Mem) -> Result<Event> {
        let mut ev = null_mut();
        // SAFETY: valid buffers; the size is the source's.
        check(unsafe { clEnqueueCopyBuffer(self.queue, src.0, dst.0, 0, 0, src.1, 0, null(), &mut ev) }, "clEnqueueCopyBuffer")?;
        Ok(Event(ev))
    }

    /// Maps all of `m` for reading (blocking); the mapping is released when dropped.
    pub fn map_read(&self, m: &Mem) -> Result<Mapping<'_>> {
        let mut err = 0;
        // SAFETY: a blocking map of the whole buffer; the pointer stays valid until the unmap.
        let ptr = unsafe { clEnqueueMapBuffer(self.queue, m.0, CL_TRUE, CL_MAP_READ, 0, m.1, 0, null(), null_mut(), &mut err) };
        check(err, "clEnqueueMapBuffer")?;
        Ok(Mapping { env: self, mem: m.0, ptr, len: m.1 })
    }

    /// A 2D image of `width` × `height` texels of `format`; `Mem`'s size is its bytes.
    pub fn image2d(&self, format: cl_image_format, width: usize, height: usize, texel: usize) -> Result<Mem> {
        let desc = cl_image_desc {
            image_type: CL_MEM_OBJECT_IMAGE2D,
            image_width: width,
            image_height: height,
            image_depth: 1,
            image_array_size: 1,
            image_row_pitch: 0,
            image_slice_pitch: 0,
            num_mip_levels: 0,
            num_samples: 0,
            buffer: null_mut(),
        };
        let mut err = 0;
        // SAFETY: valid context; format and descriptor live on this frame.
        let m = unsafe { clCreateImage(self.context, CL_MEM_READ_WRITE, &format, &desc, null_mut(), &mut err) };
        check(err, "clCreateImage")?;
        Ok(Mem(m, width * height * texel))
    }

    /// Writes `data` (tightly packed rows) into all of 2D image `m` of `width` × `height`.
    pub fn write_image<T: Copy>(&self, m: &Mem, width: usize, height: usize, data: &[T]) -> Result<()> {
        if std::mem::size_of_val(data) != m.1 {
            return Err("image data of the wrong size".into());
        }
        let region = [width, height, 1];
        // SAFETY: `data` holds the image's bytes; the call blocks.
        check(unsafe { clEnqueueWriteImage(self.queue, m.0, CL_TRUE, [0; 3].as_ptr(), region.as_ptr(), 0, 0, data.as_ptr().cast(), 0, null(), null_mut()) }, "clEnqueueWriteImage")
    }

    /// Reads all of 2D image `m` of `width` × `height` into `data` (tightly packed rows).
    pub fn read_image<T: Copy>(&self, m: &Mem, width: usize, height: usize, data: &mut [T]) -> Result<()> {
        if std::mem::size_of_val(data) != m.1 {
            return Err("image data of the wrong size".into());
        }
        let region = [width, height, 1];
        // SAFETY: `data` has room for the image's bytes; the call blocks.
        check(unsafe { clEnqueueReadImage(self.queue, m.0, CL_TRUE, [0; 3].as_ptr(), region.as_ptr(), 0, 0, data.as_mut_ptr().cast(), 0, null(), null_mut()) }, "clEnqueueReadImage")
    }

    /// Copies all of 2D image `src` into `dst` (same format and size).
    pub fn copy_image(&self, src: &Mem, dst: &Mem, width: usize, height: usize) -> Result<Event> {
        let mut ev = null_mut();
        let region = [width, height, 1];
        // SAFETY: valid images of at least `region`.
        check(unsafe { clEnqueueCopyImage(self.queue, src.0, dst.0, [0; 3].as_ptr(), [0; 3].as_ptr(), region.as_ptr(), 0, null(), &mut ev) }, "clEnqueueCopyImage")?;
        Ok(Event(ev))
    }

    /// Fills all of 2D image `m` with `color` (a `float4`, for a normalized or float format).
    pub fn fill_image(&self, m: &Mem, width: usize, height: usize, color: [f32; 4]) -> Result<Event> {
        let mut ev = null_mut();
        let region = [width, height, 1];
        // SAFETY: the colour is copied by the call.
        check(unsafe { clEnqueueFillImage(self.queue, m.0, color.as_ptr().cast(), [0; 3].as_ptr(), region.as_ptr(), 0, null(), &mut ev) }, "clEnqueueFillImage")?;
        Ok(Event(ev))
    }

    pub fn sampler(&self, normalized: bool, addressing: cl_addressing_mode, filter: cl_filter_mode) -> Result<Sampler> {
        let mut err = 0;
        // SAFETY: valid context.
        let s = unsafe { clCreateSampler(self.context, cl_bool::from(normalized), addressing, filter, &mut err) };
        check(err, "clCreateSampler")?;
        Ok(Sampler(s))
    }

    pub fn program(&self, source: &str, options: &str) -> Result<Program> {
        let src = CString::new(source).map_err(|e| e.to_string())?;
        let opts = CString::new(options).map_err(|e| e.to_string())?;
        let mut err = 0;
        // SAFETY: valid context and NUL-terminated strings.
        unsafe {
            let p = clCreateProgramWithSource(self.context, 1, &src.as_ptr(), null(), &mut err);
            check(err, "clCreateProgramWithSource")?;
            let program = Program(p);
            if clBuildProgram(p, 1, &self.device, opts.as_ptr(), None, null_mut()) != CL_SUCCESS {
                let log = info_string(|s, v, r| clGetProgramBuildInfo(p, self.device, CL_PROGRAM_BUILD_LOG, s, v, r));
                return Err(format!("build failed:\n{log}"));
            }
            Ok(program)
        }
    }

    pub fn finish(&self) -> Result<()> {
        // SAFETY: valid queue.
        check(unsafe { clFinish(self.queue) }, "clFinish")
    }

    /// Enqueues `k` over `global` work-items (work-group size `local`, or the driver's choice).
    pub fn run(&self, k: &Kernel, global: &[usize], local: Option<&[usize]>) -> Result<Event> {
        let mut ev = null_mut();
        self.enqueue(k, global, local, &mut ev)?;
        Ok(Event(ev))
    }

    /// Enqueues `k` like `run` without asking for an event.
    pub fn launch(&self, k: &Kernel, global: &[usize], local: Option<&[usize]>) -> Result<()> {
        self.enqueue(k, global, local, null_mut())
    }

    fn enqueue(&self, k: &Kernel, global: &[usize], local: Option<&[usize]>, event: *mut cl_event) -> Result<()> {
        enqueue_on(self.queue, k, global, local, event)
    }

    /// Another command queue of the context, with `props`.
    pub fn queue(&self, props: cl_command_queue_properties) -> Result<Queue> {
        let mut err = 0;
        // SAFETY: valid context and device.
        let queue = unsafe { clCreateCommandQueue(self.context, self.device, props, &mut err) };
        check(err, "clCreateCommandQueue")?;
        Ok(Queue(queue))
    }
}

fn enqueue_on(queue: cl_command_queue, k: &Kernel, global: &[usize], local: Option<&[usize]>, event: *mut cl_event) -> Result<()> {
    if local.is_some_and(|l| l.len() != global.len()) {
        return Err("local and global sizes differ in dimensions".into());
    }
    let local_ptr = local.map_or(null(), |l| l.as_ptr());
    // SAFETY: both sizes arrays hold `global.len()` entries; `event` is null or writable.
    check(unsafe { clEnqueueNDRangeKernel(queue, k.0, global.len() as u32, null(), global.as_ptr(), local_ptr, 0, null(), event) }, "clEnqueueNDRangeKernel")
}

/// A command queue besides the env's own.
pub struct Queue(pub cl_command_queue);

impl Queue {
    /// Enqueues `k` over `global` work-items (work-group size `local`, or the driver's choice).
    pub fn launch(&self, k: &Kernel, global: &[usize], local: Option<&[usize]>) -> Result<()> {
        enqueue_on(self.0, k, global, local, null_mut())
    }

    pub fn finish(&self) -> Result<()> {
        // SAFETY: valid queue.
        check(unsafe { clFinish(self.0) }, "clFinish")
    }
}

impl Drop for Queue {
    fn drop(&mut self) {
        // SAFETY: the queue was created by `Env::queue`.
        unsafe { clReleaseCommandQueue(self.0) };
    }
}

impl Drop for Env {
    fn drop(&mut self) {
        // SAFETY: the handles were created by this Env.
        unsafe {
            clReleaseCommandQueue(self.queue);
            clReleaseContext(self.context);
        }
    }
}

pub struct Mem(pub cl_mem, pub usize);

pub struct Sampler(pub cl_sampler);

impl Drop for Sampler {
    fn drop(&mut self) {
        // SAFETY: created by `Env::sampler`.
        unsafe { clReleaseSampler(self.0) };
    }
}

/// Where a buffer of `Env::buffer_in` lives.
#[derive(Clone, Copy)]
pub enum Placement {
    /// Wherever the driver puts it (no host-pointer flag).
    Device,
    /// `CL_MEM_ALLOC_HOST_PTR`: memory the host can reach, allocated by the driver.
    AllocHostPtr,
    /// `CL_MEM_USE_HOST_PTR` over zeroed, page-aligned host memory that `Backed` owns.
    UseHostPtr,
}

/// A buffer and, for `CL_MEM_USE_HOST_PTR`, the host memory behind it. Fields drop in order:
/// the buffer is released before its memory is freed.
pub struct Backed {
    pub mem: Mem,
    host: Option<HostBlock>,
}

impl Backed {
    /// The host memory behind a `CL_MEM_USE_HOST_PTR` buffer.
    pub fn host_ptr(&self) -> Option<*const u8> {
        self.host.as_ref().map(|h| h.ptr.cast_const())
    }
}

/// Zeroed host memory aligned to a page, as drivers prefer for `CL_MEM_USE_HOST_PTR`.
struct HostBlock {
    ptr: *mut u8,
    layout: Layout,
}

impl HostBlock {
    const ALIGN: usize = 4096;

    fn zeroed(size: usize) -> Result<HostBlock> {
        let layout = Layout::from_size_align(size.max(1), Self::ALIGN).map_err(|e| e.to_string())?;
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        if ptr.is_null() {
            return Err(format!("cannot allocate {size} bytes of host memory"));
        }
        Ok(HostBlock { ptr, layout })
    }
}

impl Drop for HostBlock {
    fn drop(&mut self) {
        // SAFETY: allocated in `zeroed` with this layout.
        unsafe { std::alloc::dealloc(self.ptr, self.layout) };
    }
}
impl Drop for Mem {
    fn drop(&mut self) {
        // SAFETY: created by `Env::buffer`.
        unsafe { clReleaseMemObject(self.0) };
    }
}

/// A buffer mapped for reading by `Env::map_read`.
pub struct Mapping<'a> {
    env: &'a Env,
    mem: cl_mem,
    ptr: *mut c_void,
    len: usize,
}

impl Mapping<'_> {
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: the map made `len` bytes readable at `ptr` until the unmap in `drop`.
        unsafe { std::slice::from_raw_parts(self.ptr.cast(), self.len) }
    }
}

impl Drop for Mapping<'_> {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from mapping `mem` on this queue; the wait makes the unmap complete.
        unsafe {
            clEnqueueUnmapMemObject(self.env.queue, self.mem, self.ptr, 0, null(), null_mut());
            clFinish(self.env.queue);
        }
    }
}

pub struct Program(pub cl_program);
impl Program {
    pub fn kernel(&self, name: &str) -> Result<Kernel> {
        let name = CString::new(name).map_err(|e| e.to_string())?;
        let mut err = 0;
        // SAFETY: built program, NUL-terminated name.
        let k = unsafe { clCreateKernel(self.0, name.as_ptr(), &mut err) };
        check(err, "clCreateKernel")?;
        Ok(Kernel(k))
    }
}
impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: created by `Env::program`.
        unsafe { clReleaseProgram(self.0) };
    }
}

pub struct Kernel(pub cl_kernel);
impl Kernel {
    pub fn arg<T: Copy>(&self, index: u32, value: T) -> Result<&Self> {
        // SAFETY: `value` lives across the call, which copies it.
        check(unsafe { clSetKernelArg(self.0, index, std::mem::size_of::<T>(), (&value as *const T).cast()) }, "clSetKernelArg")?;
        Ok(self)
    }

    pub fn sampler(&self, index: u32, s: &Sampler) -> Result<&Self> {
        self.arg(index, s.0)
    }

    pub fn mem(&self, index: u32, m: &Mem) -> Result<&Self> {
        self.arg(index, m.0)
    }

    pub fn local(&self, index: u32, bytes: usize) -> Result<&Self> {
        // SAFETY: a NULL value with a size declares a `__local` buffer.
        check(unsafe { clSetKernelArg(self.0, index, bytes, null()) }, "clSetKernelArg(local)")?;
        Ok(self)
    }
}
impl Drop for Kernel {
    fn drop(&mut self) {
        // SAFETY: created by `Program::kernel`.
        unsafe { clReleaseKernel(self.0) };
    }
}

pub struct Event(pub cl_event);
impl Event {
    pub fn wait(&self) -> Result<()> {
        // SAFETY: valid event.
        check(unsafe { clWaitForEvents(1, &self.0) }, "clWaitForEvents")
    }

    /// Start-to-end time of a profiled command, in nanoseconds.
    pub fn duration_ns(&self) -> Result<u64> {
        let t = self.times()?;
        Ok(t.end.saturating_sub(t.start))
    }

    /// The four timestamps of a completed command on a profiling queue.
    pub fn times(&self) -> Result<Times> {
        let stamp = |param: cl_profiling_info, what: &str| {
            let mut ns = 0u64;
            // SAFETY: valid event; 8 bytes hold a cl_ulong.
            check(unsafe { clGetEventProfilingInfo(self.0, param, 8, (&mut ns as *mut u64).cast(), null_mut()) }, what).map(|()| ns)
        };
        Ok(Times {
            queued: stamp(CL_PROFILING_COMMAND_QUEUED, "profiling queued")?,
            submit: stamp(CL_PROFILING_COMMAND_SUBMIT, "profiling submit")?,
            start: stamp(CL_PROFILING_COMMAND_START, "profiling start")?,
            end: stamp(CL_PROFILING_COMMAND_END, "profiling end")?,
        })
    }
}
/// `CL_PROFILING_COMMAND_QUEUED`, `_SUBMIT`, `_START` and `_END` of a command, in nanoseconds.
#[derive(Clone, Copy, Debug)]
pub struct Times {
    pub queued: u64,
    pub submit: u64,
    pub start: u64,
    pub end: u64,
}

impl Drop for Event {
    fn drop(&mut self) {
        // SAFETY: created by an enqueue.
        unsafe { clReleaseEvent(self.0) };
    }
}
