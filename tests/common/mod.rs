//! Shared by the integration tests: they reach the driver through the system's OpenCL loader
//! (ocl-icd), exactly as applications do. Before the first OpenCL call, `init` points the loader
//! at the `libferrocl.so` that cargo built for this test run and turns Vulkan validation on (the
//! driver aborts on a validation error, so none can pass unnoticed).
#![allow(dead_code, non_camel_case_types)]

pub mod driver;

pub use cl_sys::*;
use std::ffi::{c_char, c_void, CString};
use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::ptr::{null, null_mut};
use std::sync::Once;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

pub type cl_mem_properties = cl_ulong;
pub type cl_version = cl_uint;

pub const CL_PLATFORM_NUMERIC_VERSION: cl_uint = 0x0906;
pub const CL_PLATFORM_EXTENSIONS_WITH_VERSION: cl_uint = 0x0907;
pub const CL_PLATFORM_ICD_SUFFIX_KHR: cl_uint = 0x0920;
pub const CL_DEVICE_NUMERIC_VERSION: cl_uint = 0x105E;
pub const CL_DEVICE_EXTENSIONS_WITH_VERSION: cl_uint = 0x1060;
pub const CL_DEVICE_ILS_WITH_VERSION: cl_uint = 0x1061;
pub const CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION: cl_uint = 0x1062;
pub const CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES: cl_uint = 0x1063;
pub const CL_DEVICE_ATOMIC_FENCE_CAPABILITIES: cl_uint = 0x1064;
pub const CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT: cl_uint = 0x1065;
pub const CL_DEVICE_OPENCL_C_ALL_VERSIONS: cl_uint = 0x1066;
pub const CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE: cl_uint = 0x1067;
pub const CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT: cl_uint = 0x1068;
pub const CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT: cl_uint = 0x1069;
pub const CL_DEVICE_OPENCL_C_FEATURES: cl_uint = 0x106F;
pub const CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES: cl_uint = 0x1070;
pub const CL_DEVICE_PIPE_SUPPORT: cl_uint = 0x1071;
pub const CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED: cl_uint = 0x1072;
pub const CL_QUEUE_PROPERTIES_ARRAY: cl_uint = 0x1098;
pub const CL_MEM_PROPERTIES: cl_uint = 0x110A;
pub const CL_NAME_VERSION_MAX_NAME_SIZE: usize = 64;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct cl_name_version {
    pub version: cl_version,
    pub name: [u8; CL_NAME_VERSION_MAX_NAME_SIZE],
}

impl cl_name_version {
    pub fn name(&self) -> String {
        let end = self.name.iter().position(|&b| b == 0).unwrap_or(self.name.len());
        String::from_utf8_lossy(&self.name[..end]).into_owned()
    }
}

pub type ObjectCallback = unsafe extern "system" fn(*mut c_void, *mut c_void);
pub type EventCallback = unsafe extern "system" fn(cl_event, cl_int, *mut c_void);

// Entry points newer than what cl-sys declares by default; ocl-icd exports them.
#[link(name = "OpenCL")]
extern "system" {
    pub fn clCreateCommandQueueWithProperties(context: cl_context, device: cl_device_id, properties: *const cl_queue_properties, errcode_ret: *mut cl_int) -> cl_command_queue;
    pub fn clCreateBufferWithProperties(context: cl_context, properties: *const cl_mem_properties, flags: cl_mem_flags, size: usize, host_ptr: *mut c_void, errcode_ret: *mut cl_int) -> cl_mem;
    pub fn clSetContextDestructorCallback(context: cl_context, func: Option<ObjectCallback>, user_data: *mut c_void) -> cl_int;
    pub fn clCloneKernel(kernel: cl_kernel, errcode_ret: *mut cl_int) -> cl_kernel;
}

/// The driver cargo built for this run: the test binary lives in `target/<profile>/deps/`, and
/// the crate's cdylib in `target/<profile>/deps/` and (uplifted) in `target/<profile>/`.
pub fn driver_path() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let deps = exe.parent().expect("deps directory");
    [deps.join("libferrocl.so"), deps.join("../libferrocl.so")]
        .into_iter()
        .find(|p| p.is_file())
        .and_then(|p| p.canonicalize().ok())
        .unwrap_or_else(|| panic!("libferrocl.so not found next to {}", exe.display()))
}

/// Runs `command` to its end, reading its output as it runs (a full pipe would stop it), or
/// `None` if it cannot start. One still running after `limit` is killed, and the test fails with
/// what it printed: a hang must not stall CI until its own limit.
pub fn output_within(command: &mut Command, limit: Duration) -> Option<Output> {
    let mut child = command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().ok()?;
    let stdout = collect(child.stdout.take());
    let stderr = collect(child.stderr.take());
    let start = Instant::now();
    let status = loop {
        match child.try_wait().expect("the program's status") {
            Some(status) => break status,
            None if start.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                let (out, err) = (stdout.join().unwrap_or_default(), stderr.join().unwrap_or_default());
                panic!("{command:?} still ran after {limit:?}; it printed:\n{}\n{}", String::from_utf8_lossy(&out), String::from_utf8_lossy(&err));
            }
            None => std::thread::sleep(Duration::from_millis(20)),
        }
    };
    Some(Output { status, stdout: stdout.join().unwrap_or_default(), stderr: stderr.join().unwrap_or_default() })
}

/// Reads a pipe to its end on a thread of its own.
fn collect(pipe: Option<impl Read + Send + 'static>) -> JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut bytes);
        }
        bytes
    })
}

/// Waits up to 30 s for `done`, which callbacks make true on a driver thread; fails with `what`
/// past that.
pub fn await_callback(done: impl Fn() -> bool, what: &str) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < Duration::from_secs(30), "{what}");
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Points ocl-icd at our driver only and enables validation. Every helper that makes an OpenCL
/// call first goes through here.
pub fn init() {
    static INIT: Once = Once::new();
    INIT.call_once(|| {
        // Next to the driver, written whole then renamed: test processes may start together.
        let driver = driver_path();
        let icd = driver.with_file_name("ferrocl-tests.icd");
        let partial = driver.with_file_name(format!("ferrocl-tests.icd.{}", std::process::id()));
        std::fs::write(&partial, format!("{}\n", driver.display())).expect("write .icd file");
        std::fs::rename(&partial, &icd).expect("rename .icd file");
        // Set before the loader's first call, which reads them once.
        std::env::set_var("OCL_ICD_VENDORS", &icd);
        std::env::set_var("FERROCL_VALIDATION", "1");
    });
}

/// Panics with the error's name when an OpenCL call fails.
#[track_caller]
pub fn ok(code: cl_int) {
    assert_eq!(code, CL_SUCCESS, "OpenCL error {} ({code})", error_name(code));
}

pub fn error_name(code: cl_int) -> &'static str {
    match code {
        CL_SUCCESS => "CL_SUCCESS",
        CL_DEVICE_NOT_FOUND => "CL_DEVICE_NOT_FOUND",
        CL_MEM_OBJECT_ALLOCATION_FAILURE => "CL_MEM_OBJECT_ALLOCATION_FAILURE",
        CL_OUT_OF_RESOURCES => "CL_OUT_OF_RESOURCES",
        CL_OUT_OF_HOST_MEMORY => "CL_OUT_OF_HOST_MEMORY",
        CL_PROFILING_INFO_NOT_AVAILABLE => "CL_PROFILING_INFO_NOT_AVAILABLE",
        CL_MEM_COPY_OVERLAP => "CL_MEM_COPY_OVERLAP",
        CL_BUILD_PROGRAM_FAILURE => "CL_BUILD_PROGRAM_FAILURE",
        CL_MISALIGNED_SUB_BUFFER_OFFSET => "CL_MISALIGNED_SUB_BUFFER_OFFSET",
        CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST => "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST",
        CL_INVALID_VALUE => "CL_INVALID_VALUE",
        CL_INVALID_DEVICE_TYPE => "CL_INVALID_DEVICE_TYPE",
        CL_INVALID_PLATFORM => "CL_INVALID_PLATFORM",
        CL_INVALID_DEVICE => "CL_INVALID_DEVICE",
        CL_INVALID_CONTEXT => "CL_INVALID_CONTEXT",
        CL_INVALID_QUEUE_PROPERTIES => "CL_INVALID_QUEUE_PROPERTIES",
        CL_INVALID_COMMAND_QUEUE => "CL_INVALID_COMMAND_QUEUE",
        CL_INVALID_HOST_PTR => "CL_INVALID_HOST_PTR",
        CL_INVALID_MEM_OBJECT => "CL_INVALID_MEM_OBJECT",
        CL_INVALID_PROGRAM => "CL_INVALID_PROGRAM",
        CL_INVALID_PROGRAM_EXECUTABLE => "CL_INVALID_PROGRAM_EXECUTABLE",
        CL_INVALID_KERNEL_NAME => "CL_INVALID_KERNEL_NAME",
        CL_INVALID_KERNEL => "CL_INVALID_KERNEL",
        CL_INVALID_ARG_INDEX => "CL_INVALID_ARG_INDEX",
        CL_INVALID_ARG_VALUE => "CL_INVALID_ARG_VALUE",
        CL_INVALID_ARG_SIZE => "CL_INVALID_ARG_SIZE",
        CL_INVALID_KERNEL_ARGS => "CL_INVALID_KERNEL_ARGS",
        CL_INVALID_WORK_DIMENSION => "CL_INVALID_WORK_DIMENSION",
        CL_INVALID_WORK_GROUP_SIZE => "CL_INVALID_WORK_GROUP_SIZE",
        CL_INVALID_WORK_ITEM_SIZE => "CL_INVALID_WORK_ITEM_SIZE",
        CL_INVALID_GLOBAL_OFFSET => "CL_INVALID_GLOBAL_OFFSET",
        CL_INVALID_EVENT_WAIT_LIST => "CL_INVALID_EVENT_WAIT_LIST",
        CL_INVALID_EVENT => "CL_INVALID_EVENT",
        CL_INVALID_OPERATION => "CL_INVALID_OPERATION",
        CL_INVALID_BUFFER_SIZE => "CL_INVALID_BUFFER_SIZE",
        CL_INVALID_GLOBAL_WORK_SIZE => "CL_INVALID_GLOBAL_WORK_SIZE",
        CL_INVALID_PROPERTY => "CL_INVALID_PROPERTY",
        CL_KERNEL_ARG_INFO_NOT_AVAILABLE => "CL_KERNEL_ARG_INFO_NOT_AVAILABLE",
        CL_COMPILE_PROGRAM_FAILURE => "CL_COMPILE_PROGRAM_FAILURE",
        CL_LINK_PROGRAM_FAILURE => "CL_LINK_PROGRAM_FAILURE",
        CL_INVALID_SAMPLER => "CL_INVALID_SAMPLER",
        CL_INVALID_BINARY => "CL_INVALID_BINARY",
        CL_INVALID_BUILD_OPTIONS => "CL_INVALID_BUILD_OPTIONS",
        CL_INVALID_GL_OBJECT => "CL_INVALID_GL_OBJECT",
        CL_INVALID_COMPILER_OPTIONS => "CL_INVALID_COMPILER_OPTIONS",
        CL_INVALID_LINKER_OPTIONS => "CL_INVALID_LINKER_OPTIONS",
        CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR => "CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR",
        _ => "(other)",
    }
}

/// Runs a `clGet*Info`-style query: size first, then the value into a buffer of that size.
pub fn info_bytes(query: impl Fn(usize, *mut c_void, *mut usize) -> cl_int) -> Vec<u8> {
    let mut size = 0;
    ok(query(0, null_mut(), &mut size));
    let mut bytes = vec![0u8; size];
    let mut again = 0;
    ok(query(size, bytes.as_mut_ptr().cast(), &mut again));
    assert_eq!(again, size, "a query's size changed between calls");
    bytes
}

/// A query answering one value of type `T`; checks the size is exactly `size_of::<T>()`.
pub fn info_value<T: Copy>(query: impl Fn(usize, *mut c_void, *mut usize) -> cl_int) -> T {
    let bytes = info_bytes(query);
    assert_eq!(bytes.len(), std::mem::size_of::<T>(), "size of the answer");
    // SAFETY: the bytes are exactly a `T` (a plain OpenCL value).
    unsafe { std::ptr::read_unaligned(bytes.as_ptr().cast()) }
}

/// A query answering an array of `T`.
pub fn info_array<T: Copy>(query: impl Fn(usize, *mut c_void, *mut usize) -> cl_int) -> Vec<T> {
    let bytes = info_bytes(query);
    let n = std::mem::size_of::<T>();
    assert_eq!(bytes.len() % n, 0, "array answer size {} is not a multiple of {n}", bytes.len());
    // SAFETY: each chunk holds one plain `T`.
    bytes.chunks_exact(n).map(|c| unsafe { std::ptr::read_unaligned(c.as_ptr().cast()) }).collect()
}

/// A query answering a string: NUL-terminated, no interior NUL.
pub fn info_string(query: impl Fn(usize, *mut c_void, *mut usize) -> cl_int) -> String {
    let mut bytes = info_bytes(query);
    assert_eq!(bytes.pop(), Some(0), "strings end with NUL");
    assert!(!bytes.contains(&0), "no NUL inside a string");
    String::from_utf8(bytes).expect("UTF-8 string")
}

pub fn platform() -> cl_platform_id {
    init();
    let mut n = 0;
    // SAFETY: plain OpenCL calls with valid pointers, here and in every helper below.
    ok(unsafe { clGetPlatformIDs(0, null_mut(), &mut n) });
    let mut ids = vec![null_mut(); n as usize];
    ok(unsafe { clGetPlatformIDs(n, ids.as_mut_ptr(), null_mut()) });
    ids.into_iter()
        .find(|&p| info_string(|s, v, r| unsafe { clGetPlatformInfo(p, CL_PLATFORM_NAME, s, v, r) }) == "ferrocl")
        .expect("the ferrocl platform through the loader")
}

pub fn device() -> cl_device_id {
    let mut d = null_mut();
    ok(unsafe { clGetDeviceIDs(platform(), CL_DEVICE_TYPE_DEFAULT, 1, &mut d, null_mut()) });
    d
}

pub fn device_info<T: Copy>(param: cl_device_info) -> T {
    let d = device();
    info_value(|s, v, r| unsafe { clGetDeviceInfo(d, param, s, v, r) })
}

/// A context and an in-order queue on the default device, released on drop.
pub struct Env {
    pub device: cl_device_id,
    pub context: cl_context,
    pub queue: cl_command_queue,
}

impl Env {
    pub fn new() -> Env {
        Env::with_queue_properties(0)
    }

    pub fn with_queue_properties(props: cl_command_queue_properties) -> Env {
        let device = device();
        let context = context(device);
        let queue = queue(context, device, props);
        Env { device, context, queue }
    }

    /// Another queue on the same context (released by the caller).
    pub fn queue(&self, props: cl_command_queue_properties) -> cl_command_queue {
        queue(self.context, self.device, props)
    }

    pub fn buffer(&self, flags: cl_mem_flags, size: usize) -> Mem {
        Mem(create_buffer(self.context, flags, size, null_mut()))
    }

    /// A buffer holding `data`.
    pub fn buffer_from(&self, data: &[u8]) -> Mem {
        Mem(create_buffer(self.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, data.len(), data.as_ptr() as *mut c_void))
    }

    pub fn write(&self, mem: &Mem, offset: usize, data: &[u8]) {
        ok(unsafe { clEnqueueWriteBuffer(self.queue, mem.0, CL_TRUE, offset, data.len(), data.as_ptr().cast(), 0, null(), null_mut()) });
    }

    pub fn read(&self, mem: &Mem, offset: usize, len: usize) -> Vec<u8> {
        read_on(self.queue, mem.0, offset, len)
    }

    pub fn finish(&self) {
        ok(unsafe { clFinish(self.queue) });
    }
}

impl Drop for Env {
    fn drop(&mut self) {
        unsafe {
            clFinish(self.queue);
            clReleaseCommandQueue(self.queue);
            clReleaseContext(self.context);
        }
    }
}

pub fn context(device: cl_device_id) -> cl_context {
    let mut err = 0;
    let c = unsafe { clCreateContext(null(), 1, &device, None, null_mut(), &mut err) };
    ok(err);
    c
}

pub fn queue(context: cl_context, device: cl_device_id, props: cl_command_queue_properties) -> cl_command_queue {
    let mut err = 0;
    let q = unsafe { clCreateCommandQueue(context, device, props, &mut err) };
    ok(err);
    q
}

pub fn create_buffer(context: cl_context, flags: cl_mem_flags, size: usize, host: *mut c_void) -> cl_mem {
    let mut err = 0;
    let m = unsafe { clCreateBuffer(context, flags, size, host, &mut err) };
    ok(err);
    m
}

pub fn read_on(queue: cl_command_queue, mem: cl_mem, offset: usize, len: usize) -> Vec<u8> {
    let mut out = vec![0u8; len];
    ok(unsafe { clEnqueueReadBuffer(queue, mem, CL_TRUE, offset, len, out.as_mut_ptr().cast(), 0, null(), null_mut()) });
    out
}

/// A buffer, released on drop.
pub struct Mem(pub cl_mem);

impl Drop for Mem {
    fn drop(&mut self) {
        unsafe { clReleaseMemObject(self.0) };
    }
}

pub fn event_status(e: cl_event) -> cl_int {
    info_value(|s, v, r| unsafe { clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, s, v, r) })
}

/// Deterministic test data: a simple LCG, so expectations never come from the driver.
pub fn pattern(len: usize, seed: u32) -> Vec<u8> {
    let mut x = seed.wrapping_mul(2_654_435_761).wrapping_add(1);
    (0..len)
        .map(|_| {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (x >> 24) as u8
        })
        .collect()
}

/// Builds `source` for the default device; panics with the build log on failure.
pub fn build(context: cl_context, device: cl_device_id, source: &str) -> cl_program {
    let (program, code) = try_build(context, device, source);
    if code != CL_SUCCESS {
        panic!("build failed ({}):\n{}", error_name(code), build_log(program, device));
    }
    program
}

/// A program made from one source string, not built yet.
pub fn program(context: cl_context, source: &str) -> cl_program {
    let text = CString::new(source).expect("source without NUL");
    let ptr = text.as_ptr();
    let mut err = 0;
    let program = unsafe { clCreateProgramWithSource(context, 1, &ptr, null(), &mut err) };
    ok(err);
    program
}

/// Creates and builds a program; returns it with clBuildProgram's status.
pub fn try_build(context: cl_context, device: cl_device_id, source: &str) -> (cl_program, cl_int) {
    let program = program(context, source);
    let code = unsafe { clBuildProgram(program, 1, &device, null(), None, null_mut()) };
    (program, code)
}

/// The description of a 2D image of `width` × `height` texels, its rows packed.
pub fn image2d_desc(width: usize, height: usize) -> cl_image_desc {
    cl_image_desc {
        image_type: CL_MEM_OBJECT_IMAGE2D,
        image_width: width,
        image_height: height,
        image_depth: 0,
        image_array_size: 0,
        image_row_pitch: 0,
        image_slice_pitch: 0,
        num_mip_levels: 0,
        num_samples: 0,
        buffer: null_mut(),
    }
}

pub fn user_event(context: cl_context) -> cl_event {
    let mut err = 0;
    let e = unsafe { clCreateUserEvent(context, &mut err) };
    ok(err);
    e
}

pub fn build_log(program: cl_program, device: cl_device_id) -> String {
    info_string(|s, v, r| unsafe { clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, s, v, r) })
}

pub fn kernel(program: cl_program, name: &str) -> cl_kernel {
    let name = CString::new(name).expect("name");
    let mut err = 0;
    let k = unsafe { clCreateKernel(program, name.as_ptr() as *const c_char, &mut err) };
    ok(err);
    k
}

/// Sets argument `index` to the bytes of `value`.
pub fn set_arg<T>(kernel: cl_kernel, index: u32, value: &T) {
    ok(unsafe { clSetKernelArg(kernel, index, std::mem::size_of::<T>(), (value as *const T).cast()) });
}

/// Whether the default device reports `cl_khr_fp64` (the double tests run only then).
pub fn has_fp64() -> bool {
    has_extension("cl_khr_fp64")
}

/// The default device lists `name` in `CL_DEVICE_EXTENSIONS`.
pub fn has_extension(name: &str) -> bool {
    let d = device();
    info_string(|s, v, r| unsafe { clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, s, v, r) }).split_whitespace().any(|e| e == name)
}

/// `v`, or zero of its sign where it is subnormal and the default device does not report
/// `CL_FP_DENORM` for `float`: the spec then allows flushing inputs and results (NVIDIA does).
pub fn flushed(v: f32) -> f32 {
    let denormals = device_info::<cl_bitfield>(CL_DEVICE_SINGLE_FP_CONFIG) & CL_FP_DENORM != 0;
    if v.is_subnormal() && !denormals { 0f32.copysign(v) } else { v }
}

/// Distance in units in the last place between two doubles (NaNs equal to each other).
pub fn ulps(a: f64, b: f64) -> u64 {
    let same = a.is_nan() && b.is_nan() || a == b;
    if same { 0 } else { on_a_line(a.to_bits() as i64, i64::MIN).abs_diff(on_a_line(b.to_bits() as i64, i64::MIN)) }
}

/// The same for floats.
pub fn ulps32(a: f32, b: f32) -> u32 {
    let line = |x: f32| on_a_line(i64::from(x.to_bits() as i32), i64::from(i32::MIN));
    let same = a.is_nan() && b.is_nan() || a == b;
    if same { 0 } else { line(a).abs_diff(line(b)) as u32 }
}

/// A float's sign-magnitude bits as a position on a line where neighbours differ by one
/// (`min`: the most negative value of the bits' width).
fn on_a_line(bits: i64, min: i64) -> i64 {
    if bits < 0 { min - bits } else { bits }
}
