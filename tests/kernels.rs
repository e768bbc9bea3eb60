//! Kernels through the whole stack (source → build → arguments → NDRange → results), and the
//! errors of programs and kernels used wrongly.
mod common;

use common::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};

const SOURCE: &str = r#"
kernel void add_int(global const int* a, global const int* b, global int* c) {
    size_t i = get_global_id(0);
    c[i] = a[i] + b[i];
}

kernel void add_float(global const float* a, global const float* b, global float* c) {
    size_t i = get_global_id(0);
    c[i] = a[i] + b[i];
}

kernel void axpy(float k, global const float* x, global float* y) {
    size_t i = get_global_id(0);
    y[i] = k * x[i] + y[i];
}

kernel void index2d(global int* out, int width) {
    int x = get_global_id(0);
    int y = get_global_id(1);
    out[y * width + x] = y * 1000 + x;
}
"#;

fn ints(n: usize, seed: u32) -> Vec<i32> {
    pattern(n * 4, seed).chunks(4).map(|c| i32::from_le_bytes(c.try_into().unwrap()) >> 4).collect()
}

fn floats(n: usize, seed: u32) -> Vec<f32> {
    pattern(n, seed).iter().enumerate().map(|(i, &b)| b as f32 * 0.25 - i as f32 * 0.5).collect()
}

fn bytes_of<T>(v: &[T]) -> &[u8] {
    // SAFETY: plain numbers.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast(), std::mem::size_of_val(v)) }
}

fn read_as<T: Copy>(env: &Env, mem: &Mem, n: usize) -> Vec<T> {
    let bytes = env.read(mem, 0, n * std::mem::size_of::<T>());
    bytes.chunks(std::mem::size_of::<T>()).map(|c| unsafe { std::ptr::read_unaligned(c.as_ptr().cast()) }).collect()
}

fn run(env: &Env, k: cl_kernel, global: &[usize], local: Option<&[usize]>) {
    let l = local.map_or(null(), |l| l.as_ptr());
    ok(unsafe { clEnqueueNDRangeKernel(env.queue, k, global.len() as cl_uint, null(), global.as_ptr(), l, 0, null(), null_mut()) });
    env.finish();
}

struct Built {
    env: Env,
    program: cl_program,
}

impl Built {
    fn new() -> Built {
        let env = Env::new();
        let program = build(env.context, env.device, SOURCE);
        Built { env, program }
    }
}

impl Drop for Built {
    fn drop(&mut self) {
        unsafe { clReleaseProgram(self.program) };
    }
}

#[test]
fn vector_add_int_and_float() {
    let b = Built::new();
    let env = &b.env;
    for (n, local) in [(1000usize, None), (1024, Some(64usize)), (96, Some(32))] {
        let (ai, bi) = (ints(n, 1), ints(n, 2));
        let (af, bf) = (floats(n, 3), floats(n, 4));
        for (name, a, bb, expected) in [
            ("add_int", bytes_of(&ai).to_vec(), bytes_of(&bi).to_vec(), bytes_of(&ai.iter().zip(&bi).map(|(x, y)| x.wrapping_add(*y)).collect::<Vec<i32>>()).to_vec()),
            ("add_float", bytes_of(&af).to_vec(), bytes_of(&bf).to_vec(), bytes_of(&af.iter().zip(&bf).map(|(x, y)| x + y).collect::<Vec<f32>>()).to_vec()),
        ] {
            let k = kernel(b.program, name);
            let (ma, mb, mc) = (env.buffer_from(&a), env.buffer_from(&bb), env.buffer(CL_MEM_WRITE_ONLY, n * 4));
            set_arg(k, 0, &ma.0);
            set_arg(k, 1, &mb.0);
            set_arg(k, 2, &mc.0);
            run(env, k, &[n], local.as_ref().map(std::slice::from_ref));
            assert_eq!(env.read(&mc, 0, n * 4), expected, "{name} n={n} local={local:?}");
            ok(unsafe { clReleaseKernel(k) });
        }
    }
}

#[test]
fn scalar_arguments_and_two_dimensions() {
    let b = Built::new();
    let env = &b.env;
    let n = 512;
    let (x, y) = (floats(n, 5), floats(n, 6));
    let k = kernel(b.program, "axpy");
    let (mx, my) = (env.buffer_from(bytes_of(&x)), env.buffer_from(bytes_of(&y)));
    set_arg(k, 0, &2.5f32);
    set_arg(k, 1, &mx.0);
    set_arg(k, 2, &my.0);
    run(env, k, &[n], None);
    let expected: Vec<f32> = x.iter().zip(&y).map(|(x, y)| 2.5 * x + y).collect();
    assert_eq!(read_as::<f32>(env, &my, n), expected);
    ok(unsafe { clReleaseKernel(k) });

    let (w, h) = (48usize, 20usize);
    let k = kernel(b.program, "index2d");
    let out = env.buffer(CL_MEM_READ_WRITE, w * h * 4);
    set_arg(k, 0, &out.0);
    set_arg(k, 1, &(w as i32));
    run(env, k, &[w, h], Some(&[16, 4]));
    let expected: Vec<i32> = (0..h).flat_map(|y| (0..w).map(move |x| (y * 1000 + x) as i32)).collect();
    assert_eq!(read_as::<i32>(env, &out, w * h), expected);
    ok(unsafe { clReleaseKernel(k) });
}

#[test]
fn kernel_and_program_queries() {
    let b = Built::new();
    let k = kernel(b.program, "axpy");
    let name = info_string(|s, v, r| unsafe { clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, s, v, r) });
    assert_eq!(name, "axpy");
    let args: cl_uint = info_value(|s, v, r| unsafe { clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, s, v, r) });
    assert_eq!(args, 3);
    let program: cl_program = info_value(|s, v, r| unsafe { clGetKernelInfo(k, CL_KERNEL_PROGRAM, s, v, r) });
    assert_eq!(program, b.program);
    let count: usize = info_value(|s, v, r| unsafe { clGetProgramInfo(b.program, CL_PROGRAM_NUM_KERNELS, s, v, r) });
    assert_eq!(count, 4);
    let names = info_string(|s, v, r| unsafe { clGetProgramInfo(b.program, CL_PROGRAM_KERNEL_NAMES, s, v, r) });
    let mut names: Vec<&str> = names.split(';').collect();
    names.sort_unstable();
    assert_eq!(names, ["add_float", "add_int", "axpy", "index2d"]);
    let status: cl_build_status = info_value(|s, v, r| unsafe { clGetProgramBuildInfo(b.program, b.env.device, CL_PROGRAM_BUILD_STATUS, s, v, r) });
    assert_eq!(status, CL_BUILD_SUCCESS);
    let group: usize = info_value(|s, v, r| unsafe { clGetKernelWorkGroupInfo(k, b.env.device, CL_KERNEL_WORK_GROUP_SIZE, s, v, r) });
    assert!(group >= 1 && group <= device_info::<usize>(CL_DEVICE_MAX_WORK_GROUP_SIZE));
    let source = info_string(|s, v, r| unsafe { clGetProgramInfo(b.program, CL_PROGRAM_SOURCE, s, v, r) });
    assert_eq!(source, SOURCE);
    ok(unsafe { clReleaseKernel(k) });
}

#[test]
fn bad_kernel_arguments() {
    let b = Built::new();
    let env = &b.env;
    let k = kernel(b.program, "axpy");
    let mem = env.buffer(CL_MEM_READ_WRITE, 64);
    let m = (&mem.0 as *const cl_mem).cast::<c_void>();
    unsafe {
        assert_eq!(clSetKernelArg(k, 3, 4, (&1.0f32 as *const f32).cast()), CL_INVALID_ARG_INDEX);
        assert_eq!(clSetKernelArg(k, 0, 8, (&1.0f64 as *const f64).cast()), CL_INVALID_ARG_SIZE, "a double for a float");
        assert_eq!(clSetKernelArg(k, 0, 4, null()), CL_INVALID_ARG_VALUE, "a scalar needs a value");
        assert_eq!(clSetKernelArg(k, 1, 4, m), CL_INVALID_ARG_SIZE, "a buffer is a cl_mem");
        let not_mem = env.queue;
        assert_eq!(clSetKernelArg(k, 1, 8, (&not_mem as *const cl_command_queue).cast()), CL_INVALID_MEM_OBJECT);
        assert_eq!(clSetKernelArg(env.queue, 1, 8, m), CL_INVALID_KERNEL);
        // Arguments 0 and 1 set, 2 missing.
        ok(clSetKernelArg(k, 0, 4, (&1.0f32 as *const f32).cast()));
        ok(clSetKernelArg(k, 1, 8, m));
        let global = [16usize];
        assert_eq!(clEnqueueNDRangeKernel(env.queue, k, 1, null(), global.as_ptr(), null(), 0, null(), null_mut()), CL_INVALID_KERNEL_ARGS);
    }
    ok(unsafe { clReleaseKernel(k) });
}

#[test]
fn bad_work_sizes() {
    let b = Built::new();
    let env = &b.env;
    let k = kernel(b.program, "index2d");
    let out = env.buffer(CL_MEM_READ_WRITE, 4096);
    set_arg(k, 0, &out.0);
    set_arg(k, 1, &8i32);
    let max_group: usize = device_info(CL_DEVICE_MAX_WORK_GROUP_SIZE);
    let item_sizes: Vec<usize> = info_array(|s, v, r| unsafe { clGetDeviceInfo(env.device, CL_DEVICE_MAX_WORK_ITEM_SIZES, s, v, r) });
    let enqueue = |dim: cl_uint, global: *const usize, local: *const usize| unsafe { clEnqueueNDRangeKernel(env.queue, k, dim, null(), global, local, 0, null(), null_mut()) };
    let g = [8usize, 8, 1];
    assert_eq!(enqueue(0, g.as_ptr(), null()), CL_INVALID_WORK_DIMENSION);
    assert_eq!(enqueue(4, g.as_ptr(), null()), CL_INVALID_WORK_DIMENSION);
    assert_eq!(enqueue(2, null(), null()), CL_INVALID_GLOBAL_WORK_SIZE);
    assert_eq!(enqueue(2, g.as_ptr(), [3usize, 8].as_ptr()), CL_INVALID_WORK_GROUP_SIZE, "3 does not divide 8");
    assert_eq!(enqueue(2, g.as_ptr(), [0usize, 8].as_ptr()), CL_INVALID_WORK_GROUP_SIZE);
    let big = [max_group * 2, 1usize];
    assert_eq!(enqueue(2, big.as_ptr(), [max_group * 2, 1usize].as_ptr()), CL_INVALID_WORK_GROUP_SIZE, "more than the device's group size");
    if item_sizes[1] < max_group {
        let tall = [1usize, item_sizes[1] * 2];
        assert_eq!(enqueue(2, tall.as_ptr(), [1usize, item_sizes[1] * 2].as_ptr()), CL_INVALID_WORK_ITEM_SIZE);
    }
    let offset = [usize::MAX, 0];
    let code = unsafe { clEnqueueNDRangeKernel(env.queue, k, 2, offset.as_ptr(), g.as_ptr(), null(), 0, null(), null_mut()) };
    assert_eq!(code, CL_INVALID_GLOBAL_OFFSET);
    env.finish();
    ok(unsafe { clReleaseKernel(k) });
}

#[test]
fn bad_kernel_creation() {
    let env = Env::new();
    let text = std::ffi::CString::new(SOURCE).unwrap();
    let ptr = text.as_ptr();
    let mut err = 1;
    let unbuilt = unsafe { clCreateProgramWithSource(env.context, 1, &ptr, null(), &mut err) };
    ok(err);
    let name = c"add_int";
    assert!(unsafe { clCreateKernel(unbuilt, name.as_ptr(), &mut err) }.is_null());
    assert_eq!(err, CL_INVALID_PROGRAM_EXECUTABLE);
    ok(unsafe { clBuildProgram(unbuilt, 1, &env.device, null(), None, null_mut()) });
    assert!(unsafe { clCreateKernel(unbuilt, c"no_such_kernel".as_ptr(), &mut err) }.is_null());
    assert_eq!(err, CL_INVALID_KERNEL_NAME);
    assert!(unsafe { clCreateKernel(unbuilt, null(), &mut err) }.is_null());
    assert_eq!(err, CL_INVALID_VALUE);
    assert!(unsafe { clCreateKernel(env.context, name.as_ptr(), &mut err) }.is_null());
    assert_eq!(err, CL_INVALID_PROGRAM);
    assert!(unsafe { clCreateProgramWithSource(env.context, 0, &ptr, null(), &mut err) }.is_null());
    assert_eq!(err, CL_INVALID_VALUE);
    assert!(unsafe { clCreateProgramWithSource(env.context, 1, null(), null(), &mut err) }.is_null());
    assert_eq!(err, CL_INVALID_VALUE);
    // A kernel attached to the program forbids rebuilding it.
    let k = kernel(unbuilt, "add_int");
    assert_eq!(unsafe { clBuildProgram(unbuilt, 1, &env.device, null(), None, null_mut()) }, CL_INVALID_OPERATION);
    ok(unsafe { clReleaseKernel(k) });
    ok(unsafe { clReleaseProgram(unbuilt) });
}

#[test]
fn build_failure_reports_line_and_column() {
    let env = Env::new();
    let source = "kernel void broken(global int* out) {\n    out[0] = undefined_name + 1;\n}\n";
    let (line, column) = (2, source.lines().nth(1).unwrap().find("undefined_name").unwrap() + 1);
    let (program, code) = try_build(env.context, env.device, source);
    assert_eq!(code, CL_BUILD_PROGRAM_FAILURE);
    let status: cl_build_status = info_value(|s, v, r| unsafe { clGetProgramBuildInfo(program, env.device, CL_PROGRAM_BUILD_STATUS, s, v, r) });
    assert_eq!(status, CL_BUILD_ERROR);
    let log = build_log(program, env.device);
    assert!(log.contains(&format!("{line}:{column}")), "log without {line}:{column}:\n{log}");
    assert!(log.contains("undefined_name"), "{log}");
    let mut err = 1;
    assert!(unsafe { clCreateKernel(program, c"broken".as_ptr(), &mut err) }.is_null());
    assert_eq!(err, CL_INVALID_PROGRAM_EXECUTABLE);
    ok(unsafe { clReleaseProgram(program) });
}
