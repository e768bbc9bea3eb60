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
    assert_eq!(enqueue(2, null(), null()), CL_SUCCESS, "no global size: an empty grid (OpenCL 2.1+)");
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
    let unbuilt = program(env.context, SOURCE);
    let text = std::ffi::CString::new(SOURCE).unwrap();
    let ptr = text.as_ptr();
    let mut err = 1;
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

const MORE: &str = r#"
kernel void group_sums(global const int* in, global int* out, local int* tmp) {
    size_t l = get_local_id(0);
    tmp[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0) {
        int s = 0;
        for (size_t i = 0; i < get_local_size(0); i++) {
            s += tmp[i];
        }
        out[get_group_id(0)] = s;
    }
}

kernel void mark(global int* out) {
    out[get_global_id(0)] = (int)get_global_id(0) + 1;
}

kernel void scale_add(global const int* x, global int* y, int k) {
    size_t i = get_global_id(0);
    y[i] = k * x[i] + y[i];
}

kernel void single(global int* out) {
    out[0] = 42;
}

kernel void index3d(global int* out) {
    size_t x = get_global_id(0) - get_global_offset(0);
    size_t y = get_global_id(1) - get_global_offset(1);
    size_t z = get_global_id(2) - get_global_offset(2);
    size_t i = (z * get_global_size(1) + y) * get_global_size(0) + x;
    out[i] = (int)(get_global_id(0) + 100 * get_global_id(1) + 10000 * get_global_id(2) + 1000000 * get_group_id(0) + 10000000 * get_local_id(1));
}
"#;

#[test]
fn local_memory_arguments() {
    let env = Env::new();
    let program = build(env.context, env.device, MORE);
    let k = kernel(program, "group_sums");
    let (n, group) = (1024usize, 64usize);
    let input = ints(n, 7);
    let (mi, mo) = (env.buffer_from(bytes_of(&input)), env.buffer(CL_MEM_READ_WRITE, n / group * 4));
    set_arg(k, 0, &mi.0);
    set_arg(k, 1, &mo.0);
    ok(unsafe { clSetKernelArg(k, 2, group * 4, null()) });
    run(&env, k, &[n], Some(&[group]));
    let expected: Vec<i32> = input.chunks(group).map(|c| c.iter().fold(0i32, |a, b| a.wrapping_add(*b))).collect();
    assert_eq!(read_as::<i32>(&env, &mo, n / group), expected);
    assert_eq!(unsafe { clSetKernelArg(k, 2, 0, null()) }, CL_INVALID_ARG_SIZE, "a __local size of 0");
    assert_eq!(unsafe { clSetKernelArg(k, 2, 4, (&0i32 as *const i32).cast()) }, CL_INVALID_ARG_VALUE, "a __local argument takes no value");
    ok(unsafe { clReleaseKernel(k) });
    ok(unsafe { clReleaseProgram(program) });
}

#[test]
fn global_offsets_tasks_and_sub_buffer_arguments() {
    let env = Env::new();
    let program = build(env.context, env.device, MORE);
    let k = kernel(program, "mark");
    let out = env.buffer_from(&[0u8; 64 * 4]);
    set_arg(k, 0, &out.0);
    let (offset, global) = ([16usize], [32usize]);
    ok(unsafe { clEnqueueNDRangeKernel(env.queue, k, 1, offset.as_ptr(), global.as_ptr(), null(), 0, null(), null_mut()) });
    let expected: Vec<i32> = (0..64).map(|i| if (16..48).contains(&i) { i + 1 } else { 0 }).collect();
    assert_eq!(read_as::<i32>(&env, &out, 64), expected);

    // A sub-buffer argument sees the kernel's index 0 at its origin.
    let align = device_info::<cl_uint>(CL_DEVICE_MEM_BASE_ADDR_ALIGN) as usize / 8;
    let parent = env.buffer_from(&vec![0u8; align * 2 + 64]);
    let region = cl_buffer_region { origin: align, size: 64 };
    let mut err = 1;
    let sub = Mem(unsafe { clCreateSubBuffer(parent.0, 0, CL_BUFFER_CREATE_TYPE_REGION, (&region as *const cl_buffer_region).cast(), &mut err) });
    ok(err);
    set_arg(k, 0, &sub.0);
    run(&env, k, &[16], None);
    let mut expected = vec![0i32; (align * 2 + 64) / 4];
    (0..16).for_each(|i| expected[align / 4 + i] = i as i32 + 1);
    assert_eq!(read_as::<i32>(&env, &parent, expected.len()), expected);

    let task = kernel(program, "single");
    set_arg(task, 0, &out.0);
    let mut e = null_mut();
    ok(unsafe { clEnqueueTask(env.queue, task, 0, null(), &mut e) });
    ok(unsafe { clWaitForEvents(1, &e) });
    let ty: cl_command_type = info_value(|s, v, r| unsafe { clGetEventInfo(e, CL_EVENT_COMMAND_TYPE, s, v, r) });
    assert_eq!(ty, CL_COMMAND_TASK);
    assert_eq!(read_as::<i32>(&env, &out, 1), [42]);
    unsafe {
        ok(clReleaseEvent(e));
        ok(clReleaseKernel(task));
        ok(clReleaseKernel(k));
        ok(clReleaseProgram(program));
    }
}

#[test]
fn arguments_are_captured_at_enqueue() {
    // Two launches gated by a user event, with the argument changed in between: each uses the
    // value it was enqueued with.
    let env = Env::new();
    let program = build(env.context, env.device, MORE);
    let k = kernel(program, "scale_add");
    let n = 256;
    let (x, y) = (ints(n, 8), ints(n, 9));
    let (mx, my) = (env.buffer_from(bytes_of(&x)), env.buffer_from(bytes_of(&y)));
    set_arg(k, 0, &mx.0);
    set_arg(k, 1, &my.0);
    let gate = user_event(env.context);
    let mut err = 1;
    let global = [n];
    for factor in [3i32, 5] {
        set_arg(k, 2, &factor);
        ok(unsafe { clEnqueueNDRangeKernel(env.queue, k, 1, null(), global.as_ptr(), null(), 1, &gate, null_mut()) });
    }
    // A clone copies the arguments as they are now.
    let clone = unsafe { clCloneKernel(k, &mut err) };
    ok(err);
    ok(unsafe { clSetUserEventStatus(gate, CL_COMPLETE) });
    env.finish();
    let expected: Vec<i32> = x.iter().zip(&y).map(|(x, y)| y.wrapping_add(x.wrapping_mul(8))).collect();
    assert_eq!(read_as::<i32>(&env, &my, n), expected);
    ok(unsafe { clEnqueueNDRangeKernel(env.queue, clone, 1, null(), global.as_ptr(), null(), 0, null(), null_mut()) });
    let expected: Vec<i32> = expected.iter().zip(&x).map(|(y, x)| y.wrapping_add(x.wrapping_mul(5))).collect();
    assert_eq!(read_as::<i32>(&env, &my, n), expected);
    unsafe {
        ok(clReleaseEvent(gate));
        ok(clReleaseKernel(clone));
        ok(clReleaseKernel(k));
        ok(clReleaseProgram(program));
    }
}

#[test]
fn program_binaries_round_trip() {
    let env = Env::new();
    let program = build(env.context, env.device, MORE);
    let sizes: Vec<usize> = info_array(|s, v, r| unsafe { clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, s, v, r) });
    assert_eq!(sizes.len(), 1);
    assert!(sizes[0] > 0);
    let mut binary = vec![0u8; sizes[0]];
    let mut slots = [binary.as_mut_ptr()];
    ok(unsafe { clGetProgramInfo(program, CL_PROGRAM_BINARIES, std::mem::size_of_val(&slots), slots.as_mut_ptr().cast(), null_mut()) });
    let (len, ptr) = (binary.len(), binary.as_ptr());
    let (mut status, mut err) = (1, 1);
    let loaded = unsafe { clCreateProgramWithBinary(env.context, 1, &env.device, &len, &ptr, &mut status, &mut err) };
    ok(err);
    ok(status);
    ok(unsafe { clBuildProgram(loaded, 1, &env.device, null(), None, null_mut()) });
    let k = kernel(loaded, "mark");
    let out = env.buffer(CL_MEM_READ_WRITE, 16 * 4);
    set_arg(k, 0, &out.0);
    run(&env, k, &[16], None);
    assert_eq!(read_as::<i32>(&env, &out, 16), (1..=16).collect::<Vec<i32>>());
    // Garbage is not a binary.
    let junk = [0u8; 64];
    let (jl, jp) = (junk.len(), junk.as_ptr());
    let bad = unsafe { clCreateProgramWithBinary(env.context, 1, &env.device, &jl, &jp, &mut status, &mut err) };
    assert!(bad.is_null());
    assert_eq!((err, status), (CL_INVALID_BINARY, CL_INVALID_BINARY));
    // Lengths inside the binary that overflow, or that no memory holds within a length the
    // application overstates, make it invalid (they once panicked or aborted the process).
    let options_len_at = 16; // after the 8-byte magic, the version and the binary type
    for (inner, outer) in [(u64::MAX, binary.len()), (1 << 39, 1 << 40)] {
        let mut patched = binary.clone();
        patched[options_len_at..options_len_at + 8].copy_from_slice(&inner.to_le_bytes());
        let ptr = patched.as_ptr();
        let bad = unsafe { clCreateProgramWithBinary(env.context, 1, &env.device, &outer, &ptr, &mut status, &mut err) };
        assert!(bad.is_null());
        assert_eq!((err, status), (CL_INVALID_BINARY, CL_INVALID_BINARY), "options length {inner:#x}");
    }
    unsafe {
        ok(clReleaseKernel(k));
        ok(clReleaseProgram(loaded));
        ok(clReleaseProgram(program));
    }
}

#[test]
fn compile_and_link_separately() {
    let env = Env::new();
    let header = "int twice(int x);\n";
    let lib_source = "int twice(int x) { return 2 * x; }\n";
    let main_source = "#include \"twice.h\"\nkernel void k(global int* out) { out[get_global_id(0)] = twice((int)get_global_id(0)); }\n";
    let (h, lib, main) = (program(env.context, header), program(env.context, lib_source), program(env.context, main_source));
    let name = c"twice.h".as_ptr();
    ok(unsafe { clCompileProgram(lib, 1, &env.device, null(), 0, null(), null(), None, null_mut()) });
    ok(unsafe { clCompileProgram(main, 1, &env.device, null(), 1, &h, &name, None, null_mut()) });
    let inputs = [main, lib];
    let mut err = 1;
    let linked = unsafe { clLinkProgram(env.context, 1, &env.device, null(), 2, inputs.as_ptr(), None, null_mut(), &mut err) };
    ok(err);
    let k = kernel(linked, "k");
    let out = env.buffer(CL_MEM_READ_WRITE, 32 * 4);
    set_arg(k, 0, &out.0);
    run(&env, k, &[32], None);
    assert_eq!(read_as::<i32>(&env, &out, 32), (0..32).map(|i| 2 * i).collect::<Vec<i32>>());
    unsafe {
        ok(clReleaseKernel(k));
        [h, lib, main, linked].iter().for_each(|&p| ok(clReleaseProgram(p)));
    }
}

/// Each translation unit of a link has its own typedefs, tags and enumerators; records that
/// are the same in two units (C99 6.2.7) are one type, so a variable or a function one unit
/// defines is used from another through its own declarations (CTS progvar_prog_scope_misc).
#[test]
fn linked_units_keep_their_own_types_and_share_compatible_records() {
    let env = Env::new();
    let common = "typedef struct { uchar c; uint i; } my_struct_t;\nstruct pair { int a, b; };\n";
    let writer = format!(
        "{common}typedef int scalar_t;\nenum {{ SCALE = 3 }};\nmy_struct_t var = {{ 'a', 42 }};\n\
         int sum(struct pair p) {{ return p.a + p.b; }}\n\
         kernel void writer(uchar c, uint i) {{ scalar_t n = SCALE; var.c = c; var.i = i * n; }}\n"
    );
    let reader = format!(
        "{common}typedef float scalar_t;\nenum {{ SCALE = 5 }};\nextern my_struct_t var;\nint sum(struct pair p);\n\
         kernel void reader(global uint *out) {{\n  scalar_t h = 0.5f;\n  struct pair p = {{ var.c, (int)var.i }};\n\
           out[0] = var.c; out[1] = var.i; out[2] = sum(p) * SCALE; out[3] = (uint)(h * 4.0f);\n}}\n"
    );
    let (a, b) = (program(env.context, &writer), program(env.context, &reader));
    for p in [a, b] {
        ok(unsafe { clCompileProgram(p, 1, &env.device, c"-cl-std=CL3.0".as_ptr(), 0, null(), null(), None, null_mut()) });
    }
    let mut err = 1;
    let linked = unsafe { clLinkProgram(env.context, 1, &env.device, null(), 2, [a, b].as_ptr(), None, null_mut(), &mut err) };
    ok(err);
    let (w, r) = (kernel(linked, "writer"), kernel(linked, "reader"));
    set_arg(w, 0, &b'x');
    set_arg(w, 1, &7u32);
    run(&env, w, &[1], None);
    let out = env.buffer(CL_MEM_READ_WRITE, 4 * 4);
    set_arg(r, 0, &out.0);
    run(&env, r, &[1], None);
    assert_eq!(read_as::<u32>(&env, &out, 4), [u32::from(b'x'), 21, (120 + 21) * 5, 2]);
    unsafe {
        [w, r].iter().for_each(|&k| ok(clReleaseKernel(k)));
        [a, b, linked].iter().for_each(|&p| ok(clReleaseProgram(p)));
    }
}

/// A program rebuilt from the same text is a cache lookup, before and after the first program
/// object is released (then its pipelines are gone and are made again).
#[test]
fn a_rebuilt_program_runs_after_the_first_is_released() {
    let env = Env::new();
    let src = "kernel void twice(global int *o) { o[get_global_id(0)] = 2 * (int)get_global_id(0) + 1; }";
    let out = env.buffer(CL_MEM_READ_WRITE, 16 * 4);
    let want: Vec<i32> = (0..16).map(|i| 2 * i + 1).collect();
    let first = build(env.context, env.device, src);
    for release_first in [false, true] {
        if release_first {
            ok(unsafe { clReleaseProgram(first) });
        }
        let program = build(env.context, env.device, src);
        let k = kernel(program, "twice");
        set_arg(k, 0, &out.0);
        env.write(&out, 0, &[0u8; 64]);
        run(&env, k, &[16], None);
        assert_eq!(read_as::<i32>(&env, &out, 16), want, "first program released: {release_first}");
        ok(unsafe { clReleaseKernel(k) });
        ok(unsafe { clReleaseProgram(program) });
    }
}

#[test]
fn awkward_and_large_grids() {
    // A prime size (work-groups of 1), and more groups than one dispatch may hold in x
    // (131074 = 2 * 65537: 65537 groups of 2, past Vulkan's usual 65535 per dispatch).
    let env = Env::new();
    let program = build(env.context, env.device, MORE);
    let k = kernel(program, "mark");
    for n in [997usize, 131_074] {
        let out = env.buffer(CL_MEM_READ_WRITE, n * 4);
        set_arg(k, 0, &out.0);
        run(&env, k, &[n], None);
        let got = read_as::<i32>(&env, &out, n);
        let wrong = got.iter().enumerate().find(|(i, &v)| v != *i as i32 + 1);
        assert!(wrong.is_none(), "n={n}: first wrong element {wrong:?}");
    }
    ok(unsafe { clReleaseKernel(k) });
    ok(unsafe { clReleaseProgram(program) });
}

#[test]
fn three_dimensions_with_offsets() {
    let env = Env::new();
    let program = build(env.context, env.device, MORE);
    let k = kernel(program, "index3d");
    let (offset, global, local) = ([1usize, 2, 3], [8usize, 4, 2], [4usize, 2, 1]);
    let n = global.iter().product::<usize>();
    let out = env.buffer(CL_MEM_READ_WRITE, n * 4);
    set_arg(k, 0, &out.0);
    ok(unsafe { clEnqueueNDRangeKernel(env.queue, k, 3, offset.as_ptr(), global.as_ptr(), local.as_ptr(), 0, null(), null_mut()) });
    let mut expected = Vec::new();
    for z in 0..global[2] {
        for y in 0..global[1] {
            for x in 0..global[0] {
                let (gx, gy, gz) = (x + offset[0], y + offset[1], z + offset[2]);
                // Group ids count from the offset's group: (gx - offset) / local.
                let (group_x, local_y) = (x / local[0], y % local[1]);
                expected.push((gx + 100 * gy + 10000 * gz + 1_000_000 * group_x + 10_000_000 * local_y) as i32);
            }
        }
    }
    assert_eq!(read_as::<i32>(&env, &out, n), expected);
    ok(unsafe { clReleaseKernel(k) });
    ok(unsafe { clReleaseProgram(program) });
}

#[test]
fn kernels_on_host_pointer_buffers() {
    // A kernel writes into a USE_HOST_PTR buffer: a map shows the result in the host memory, and
    // an ALLOC_HOST_PTR buffer's map shows it too.
    let env = Env::new();
    let program = build(env.context, env.device, MORE);
    let k = kernel(program, "mark");
    let n = 256;
    let mut host = vec![0i32; n];
    let base = host.as_mut_ptr();
    let use_ptr = Mem(create_buffer(env.context, CL_MEM_USE_HOST_PTR, n * 4, base.cast()));
    let alloc = env.buffer(CL_MEM_ALLOC_HOST_PTR, n * 4);
    let expected: Vec<i32> = (1..=n as i32).collect();
    for mem in [&use_ptr, &alloc] {
        set_arg(k, 0, &mem.0);
        run(&env, k, &[n], None);
        let mut err = 1;
        let p = unsafe { clEnqueueMapBuffer(env.queue, mem.0, CL_TRUE, CL_MAP_READ, 0, n * 4, 0, null(), null_mut(), &mut err) };
        ok(err);
        assert_eq!(unsafe { std::slice::from_raw_parts(p.cast::<i32>(), n) }, &expected[..]);
        if mem.0 == use_ptr.0 {
            assert_eq!(p, base.cast());
        }
        ok(unsafe { clEnqueueUnmapMemObject(env.queue, mem.0, p, 0, null(), null_mut()) });
        env.finish();
    }
    ok(unsafe { clReleaseKernel(k) });
    ok(unsafe { clReleaseProgram(program) });
}

extern "C" fn count_build(_program: cl_program, user_data: *mut c_void) {
    // SAFETY: the test passes a pointer to an AtomicUsize that outlives the build.
    unsafe { &*(user_data as *const std::sync::atomic::AtomicUsize) }.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
}

#[test]
fn build_options_callbacks_and_devices() {
    let env = Env::new();
    let program = program(env.context, MORE);
    let build_with = |options: &std::ffi::CStr| unsafe { clBuildProgram(program, 1, &env.device, options.as_ptr(), None, null_mut()) };
    assert_eq!(build_with(c"-no-such-option"), CL_INVALID_BUILD_OPTIONS);
    let calls = std::sync::atomic::AtomicUsize::new(0);
    let data = (&calls as *const std::sync::atomic::AtomicUsize).cast_mut().cast::<c_void>();
    assert_eq!(unsafe { clBuildProgram(program, 1, &env.device, null(), None, data) }, CL_INVALID_VALUE, "user data without a callback");
    ok(unsafe { clBuildProgram(program, 1, &env.device, c"-cl-std=CL1.2 -DVALUE=3".as_ptr(), Some(count_build), data) });
    // The callback may run on another thread after the call returns.
    let start = std::time::Instant::now();
    while calls.load(std::sync::atomic::Ordering::SeqCst) == 0 && start.elapsed() < std::time::Duration::from_secs(5) {
        std::thread::yield_now();
    }
    assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 1);
    let options = info_string(|s, v, r| unsafe { clGetProgramBuildInfo(program, env.device, CL_PROGRAM_BUILD_OPTIONS, s, v, r) });
    assert_eq!(options, "-cl-std=CL1.2 -DVALUE=3");
    assert_eq!(unsafe { clGetProgramBuildInfo(program, env.context as cl_device_id, CL_PROGRAM_BUILD_STATUS, 0, null_mut(), null_mut()) }, CL_INVALID_DEVICE);
    assert_eq!(unsafe { clBuildProgram(program, 1, [env.context as cl_device_id].as_ptr(), null(), None, null_mut()) }, CL_INVALID_DEVICE);
    assert_eq!(unsafe { clBuildProgram(program, 1, null(), null(), None, null_mut()) }, CL_INVALID_VALUE);
    ok(unsafe { clReleaseProgram(program) });
}

#[test]
fn build_options_reach_the_compiler() {
    let env = Env::new();
    let program = program(env.context, "kernel void v(global int* out) { out[0] = VALUE * 2; }\n");
    let mut err = 1;
    ok(unsafe { clBuildProgram(program, 1, &env.device, c"-D VALUE=21 -cl-std=CL3.0 -cl-mad-enable -w".as_ptr(), None, null_mut()) });
    let k = kernel(program, "v");
    let out = env.buffer(CL_MEM_READ_WRITE, 4);
    set_arg(k, 0, &out.0);
    run(&env, k, &[1], None);
    assert_eq!(read_as::<i32>(&env, &out, 1), [42]);
    // A binary takes compiler options too (they are checked, the binary is already compiled).
    let size: Vec<usize> = info_array(|s, v, r| unsafe { clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, s, v, r) });
    let mut binary = vec![0u8; size[0]];
    let mut slots = [binary.as_mut_ptr()];
    ok(unsafe { clGetProgramInfo(program, CL_PROGRAM_BINARIES, 8, slots.as_mut_ptr().cast(), null_mut()) });
    let (len, bin) = (binary.len(), binary.as_ptr());
    let loaded = unsafe { clCreateProgramWithBinary(env.context, 1, &env.device, &len, &bin, null_mut(), &mut err) };
    ok(err);
    assert_eq!(unsafe { clBuildProgram(loaded, 1, &env.device, c"-bogus".as_ptr(), None, null_mut()) }, CL_INVALID_BUILD_OPTIONS);
    ok(unsafe { clBuildProgram(loaded, 1, &env.device, c"-D VALUE=21".as_ptr(), None, null_mut()) });
    unsafe {
        ok(clReleaseKernel(k));
        ok(clReleaseProgram(loaded));
        ok(clReleaseProgram(program));
    }
}

#[test]
fn warning_options_reach_the_semantic_checks() {
    // Falling off the end of a non-void function is a warning, found by the semantic checks.
    let source = "int f(int x) { if (x) return 1; }\nkernel void k(global int* o) { o[0] = f(o[0]); }\n";
    let env = Env::new();
    let build_with = |options: &std::ffi::CStr| {
        let p = program(env.context, source);
        let code = unsafe { clBuildProgram(p, 1, &env.device, options.as_ptr(), None, null_mut()) };
        let log = build_log(p, env.device);
        ok(unsafe { clReleaseProgram(p) });
        (code, log)
    };
    let (code, log) = build_with(c"");
    assert_eq!(code, CL_SUCCESS);
    assert!(log.contains("warning") && log.contains(":1:"), "{log}");
    let (code, log) = build_with(c"-Werror");
    assert_eq!(code, CL_BUILD_PROGRAM_FAILURE);
    assert!(log.contains("error"), "{log}");
    let (code, log) = build_with(c"-w");
    assert_eq!(code, CL_SUCCESS);
    assert!(!log.contains("warning"), "{log}");
}

const EXTRA: &str = r#"
constant int table[4] = { 3, 5, 7, 11 };

__attribute__((reqd_work_group_size(8, 1, 1)))
kernel void fixed(global int* out) {
    out[get_global_id(0)] = table[get_global_id(0) % 4] * (int)get_local_size(0);
}

kernel void bytes(global const uchar* in, global short* out) {
    size_t i = get_global_id(0);
    out[i] = (short)in[i] * -3;
}
"#;

#[test]
fn required_group_size_constant_data_and_small_types() {
    let env = Env::new();
    let program = build(env.context, env.device, EXTRA);
    let k = kernel(program, "fixed");
    let reqd: Vec<usize> = info_array(|s, v, r| unsafe { clGetKernelWorkGroupInfo(k, env.device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, s, v, r) });
    assert_eq!(reqd, [8, 1, 1]);
    let out = env.buffer(CL_MEM_READ_WRITE, 32 * 4);
    set_arg(k, 0, &out.0);
    run(&env, k, &[32], None);
    let expected: Vec<i32> = (0..32).map(|i| [3, 5, 7, 11][i % 4] * 8).collect();
    assert_eq!(read_as::<i32>(&env, &out, 32), expected);
    let (global, local) = ([32usize], [16usize]);
    let code = unsafe { clEnqueueNDRangeKernel(env.queue, k, 1, null(), global.as_ptr(), local.as_ptr(), 0, null(), null_mut()) };
    assert_eq!(code, CL_INVALID_WORK_GROUP_SIZE, "a local size other than the required one");

    let k2 = kernel(program, "bytes");
    let n = 100;
    let input = pattern(n, 40);
    let (mi, mo) = (env.buffer_from(&input), env.buffer(CL_MEM_READ_WRITE, n * 2));
    set_arg(k2, 0, &mi.0);
    set_arg(k2, 1, &mo.0);
    run(&env, k2, &[n], None);
    let expected: Vec<i16> = input.iter().map(|&b| b as i16 * -3).collect();
    assert_eq!(read_as::<i16>(&env, &mo, n), expected);
    unsafe {
        ok(clReleaseKernel(k));
        ok(clReleaseKernel(k2));
        ok(clReleaseProgram(program));
    }
}

#[test]
fn many_value_arguments() {
    // 64 ints do not fit in the push constants: they travel in a uniform buffer.
    let params: Vec<String> = (0..64).map(|i| format!("int a{i}")).collect();
    let sum: Vec<String> = (0..64).map(|i| format!("a{i} * {}", i + 1)).collect();
    let source = format!("kernel void wide(global int* out, {}) {{ out[get_global_id(0)] = {} + (int)get_global_id(0); }}\n", params.join(", "), sum.join(" + "));
    let env = Env::new();
    let program = build(env.context, env.device, &source);
    let k = kernel(program, "wide");
    let out = env.buffer(CL_MEM_READ_WRITE, 16 * 4);
    set_arg(k, 0, &out.0);
    let values: Vec<i32> = (0..64).map(|i| i * 7 - 100).collect();
    for (i, v) in values.iter().enumerate() {
        set_arg(k, i as u32 + 1, v);
    }
    run(&env, k, &[16], None);
    let base: i32 = values.iter().enumerate().map(|(i, v)| v * (i as i32 + 1)).sum();
    assert_eq!(read_as::<i32>(&env, &out, 16), (0..16).map(|i| base + i).collect::<Vec<i32>>());
    ok(unsafe { clReleaseKernel(k) });
    ok(unsafe { clReleaseProgram(program) });
}

#[test]
fn argument_info_and_kernels_in_program() {
    let b = Built::new();
    let plain = kernel(b.program, "axpy");
    assert_eq!(unsafe { clGetKernelArgInfo(plain, 0, CL_KERNEL_ARG_NAME, 0, null_mut(), null_mut()) }, CL_KERNEL_ARG_INFO_NOT_AVAILABLE, "built without -cl-kernel-arg-info");
    ok(unsafe { clReleaseKernel(plain) });
    let with_info = program(b.env.context, SOURCE);
    ok(unsafe { clBuildProgram(with_info, 1, &b.env.device, c"-cl-kernel-arg-info".as_ptr(), None, null_mut()) });
    let k = kernel(with_info, "axpy");
    let name = |i| info_string(|s, v, r| unsafe { clGetKernelArgInfo(k, i, CL_KERNEL_ARG_NAME, s, v, r) });
    let ty = |i| info_string(|s, v, r| unsafe { clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_NAME, s, v, r) });
    let space = |i| info_value::<cl_kernel_arg_address_qualifier>(|s, v, r| unsafe { clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, s, v, r) });
    assert_eq!([name(0), name(1), name(2)], ["k", "x", "y"]);
    assert_eq!([ty(0), ty(1), ty(2)], ["float", "float*", "float*"]);
    assert_eq!([space(0), space(1), space(2)], [CL_KERNEL_ARG_ADDRESS_PRIVATE, CL_KERNEL_ARG_ADDRESS_GLOBAL, CL_KERNEL_ARG_ADDRESS_GLOBAL]);
    let qualifiers: cl_bitfield = info_value(|s, v, r| unsafe { clGetKernelArgInfo(k, 1, CL_KERNEL_ARG_TYPE_QUALIFIER, s, v, r) });
    assert_eq!(qualifiers & CL_KERNEL_ARG_TYPE_CONST, CL_KERNEL_ARG_TYPE_CONST);
    assert_eq!(unsafe { clGetKernelArgInfo(k, 3, CL_KERNEL_ARG_NAME, 0, null_mut(), null_mut()) }, CL_INVALID_ARG_INDEX);
    let mut n = 0;
    ok(unsafe { clCreateKernelsInProgram(b.program, 0, null_mut(), &mut n) });
    assert_eq!(n, 4);
    let mut kernels = vec![null_mut(); n as usize];
    assert_eq!(unsafe { clCreateKernelsInProgram(b.program, 1, kernels.as_mut_ptr(), null_mut()) }, CL_INVALID_VALUE, "room for fewer kernels than there are");
    ok(unsafe { clCreateKernelsInProgram(b.program, n, kernels.as_mut_ptr(), null_mut()) });
    let mut names: Vec<String> = kernels.iter().map(|&k| info_string(|s, v, r| unsafe { clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, s, v, r) })).collect();
    names.sort();
    assert_eq!(names, ["add_float", "add_int", "axpy", "index2d"]);
    kernels.iter().for_each(|&k| ok(unsafe { clReleaseKernel(k) }));
    ok(unsafe { clReleaseKernel(k) });
    ok(unsafe { clReleaseProgram(with_info) });
}

#[test]
fn libraries_and_link_options() {
    let env = Env::new();
    let create = |text: &str| program(env.context, text);
    let binary_type = |p: cl_program| info_value::<cl_program_binary_type>(|s, v, r| unsafe { clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BINARY_TYPE, s, v, r) });
    let helper = create("int triple(int x) { return SCALE * x; }\n");
    let main = create("int triple(int x);\nkernel void k(global int* out) { out[get_global_id(0)] = triple((int)get_global_id(0)); }\n");
    ok(unsafe { clCompileProgram(helper, 1, &env.device, c"-DSCALE=3".as_ptr(), 0, null(), null(), None, null_mut()) });
    ok(unsafe { clCompileProgram(main, 1, &env.device, null(), 0, null(), null(), None, null_mut()) });
    assert_eq!(binary_type(helper), CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT as cl_program_binary_type);
    let mut err = 1;
    let library = unsafe { clLinkProgram(env.context, 1, &env.device, c"-create-library".as_ptr(), 1, &helper, None, null_mut(), &mut err) };
    ok(err);
    assert_eq!(binary_type(library), CL_PROGRAM_BINARY_TYPE_LIBRARY as cl_program_binary_type);
    let inputs = [main, library];
    let exe = unsafe { clLinkProgram(env.context, 1, &env.device, c"-cl-fast-relaxed-math".as_ptr(), 2, inputs.as_ptr(), None, null_mut(), &mut err) };
    ok(err);
    assert_eq!(binary_type(exe), CL_PROGRAM_BINARY_TYPE_EXECUTABLE as cl_program_binary_type);
    let k = kernel(exe, "k");
    let out = env.buffer(CL_MEM_READ_WRITE, 8 * 4);
    set_arg(k, 0, &out.0);
    run(&env, k, &[8], None);
    assert_eq!(read_as::<i32>(&env, &out, 8), (0..8).map(|i| 3 * i).collect::<Vec<i32>>());
    // A compiler-only option is not a linker option.
    let bad = unsafe { clLinkProgram(env.context, 1, &env.device, c"-DX=1".as_ptr(), 1, &main, None, null_mut(), &mut err) };
    assert!(bad.is_null());
    assert_eq!(err, CL_INVALID_LINKER_OPTIONS);
    // A function called but defined nowhere fails the link; the failed program is returned
    // with the log.
    let alone = unsafe { clLinkProgram(env.context, 1, &env.device, null(), 1, &main, None, null_mut(), &mut err) };
    assert_eq!(err, CL_LINK_PROGRAM_FAILURE);
    assert!(!alone.is_null());
    let status = info_value::<cl_build_status>(|s, v, r| unsafe { clGetProgramBuildInfo(alone, env.device, CL_PROGRAM_BUILD_STATUS, s, v, r) });
    assert_eq!(status, CL_BUILD_ERROR);
    let log = info_string(|s, v, r| unsafe { clGetProgramBuildInfo(alone, env.device, CL_PROGRAM_BUILD_LOG, s, v, r) });
    assert!(log.contains("triple"), "{log}");
    let mut kernel_err = 0;
    assert!(unsafe { clCreateKernel(alone, c"k".as_ptr(), &mut kernel_err) }.is_null());
    assert_eq!(kernel_err, CL_INVALID_PROGRAM_EXECUTABLE);
    unsafe {
        ok(clReleaseProgram(alone));
        ok(clReleaseKernel(k));
        [helper, main, library, exe].iter().for_each(|&p| ok(clReleaseProgram(p)));
    }
}

#[test]
fn hostile_sources_fail_cleanly() {
    let env = Env::new();
    let deep_parens = format!("kernel void k(global int* o) {{ o[0] = {}1{}; }}", "(".repeat(20_000), ")".repeat(20_000));
    let deep_blocks = format!("kernel void k() {{ {} }}", "{".repeat(20_000) + &"}".repeat(20_000));
    let deep_if = format!("kernel void k(global int* o) {{ {} o[0] = 1; }}", "if (o[0]) ".repeat(20_000));
    let sources = [
        "",
        "   \n\t\n",
        "/* unterminated comment",
        "kernel void k(global int* o) { o[0] = \"unterminated; }",
        "#include \"no/such/header.h\"\nkernel void k() {}",
        "#error stop here\n",
        "#define A A B\n#define B A\nkernel void k(global int* o) { o[0] = A; }",
        "#if 1 / 0\n#endif\n",
        "kernel void k(global int* o) { o[0] = 1 / 0; o[1] = 1 << 40; }",
        "kernel kernel kernel",
        "\u{1}\u{2}\u{ff}\u{fffd}\u{7f}",
        "kernel void k(global int* o) { int a[1000000000]; o[0] = a[0]; }",
        "kernel void k(global int* o) { k(o); }",
        &deep_parens,
        &deep_blocks,
        &deep_if,
    ];
    for source in sources {
        let (program, code) = try_build(env.context, env.device, source);
        assert!(code == CL_SUCCESS || code == CL_BUILD_PROGRAM_FAILURE, "{} for {:?}", error_name(code), &source[..source.len().min(60)]);
        if code == CL_BUILD_PROGRAM_FAILURE {
            assert!(!build_log(program, env.device).is_empty(), "a failed build explains itself");
        }
        ok(unsafe { clReleaseProgram(program) });
    }
}

#[test]
fn source_lengths_no_memory_holds() {
    // A length of 2^40 (or lengths whose sum overflows) is CL_OUT_OF_HOST_MEMORY, not an abort,
    // and the text is not read.
    let env = Env::new();
    let text = "kernel void k() {}";
    let ptrs = [text.as_ptr().cast::<std::ffi::c_char>(); 2];
    for lengths in [[1usize << 40, 1], [usize::MAX, 2]] {
        let mut err = 1;
        let p = unsafe { clCreateProgramWithSource(env.context, 2, ptrs.as_ptr(), lengths.as_ptr(), &mut err) };
        assert!(p.is_null());
        assert_eq!(err, CL_OUT_OF_HOST_MEMORY, "{lengths:x?}");
    }
}

#[test]
fn sources_in_pieces_with_lengths() {
    let env = Env::new();
    let pieces = ["kernel void k(global int* o) ", "{ o[get_global_id(0)] = 5; }GARBAGE"];
    let ptrs = [pieces[0].as_ptr().cast::<std::ffi::c_char>(), pieces[1].as_ptr().cast()];
    // The second piece's length stops before the garbage; the first is not NUL-terminated.
    let lengths = [pieces[0].len(), pieces[1].len() - "GARBAGE".len()];
    let mut err = 1;
    let program = unsafe { clCreateProgramWithSource(env.context, 2, ptrs.as_ptr(), lengths.as_ptr(), &mut err) };
    ok(err);
    ok(unsafe { clBuildProgram(program, 1, &env.device, null(), None, null_mut()) });
    let k = kernel(program, "k");
    let out = env.buffer(CL_MEM_READ_WRITE, 16);
    set_arg(k, 0, &out.0);
    run(&env, k, &[4], None);
    assert_eq!(read_as::<i32>(&env, &out, 4), [5, 5, 5, 5]);
    ok(unsafe { clReleaseKernel(k) });
    ok(unsafe { clReleaseProgram(program) });
}

#[test]
fn kernel_on_a_buffer_past_the_descriptor_range() {
    // 256 MiB exceeds lavapipe's storage-buffer range: a launch either reaches the last element
    // or refuses with CL_OUT_OF_RESOURCES, never writes short.
    let env = Env::new();
    let max: cl_ulong = device_info(CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    let size = (256usize << 20).min(max as usize);
    let program = build(env.context, env.device, "kernel void tail(global int* out, int base) { out[base + get_global_id(0)] = (int)get_global_id(0) + 1; }\n");
    let k = kernel(program, "tail");
    let mem = env.buffer(CL_MEM_READ_WRITE, size);
    set_arg(k, 0, &mem.0);
    let base = ((size - 4096) / 4) as i32;
    set_arg(k, 1, &base);
    let global = [1024usize];
    let code = unsafe { clEnqueueNDRangeKernel(env.queue, k, 1, null(), global.as_ptr(), null(), 0, null(), null_mut()) };
    if code == CL_SUCCESS {
        let got: Vec<i32> = env.read(&mem, size - 4096, 4096).chunks(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect();
        assert_eq!(got, (1..=1024).collect::<Vec<i32>>());
    } else {
        assert_eq!(code, CL_OUT_OF_RESOURCES);
    }
    ok(unsafe { clReleaseKernel(k) });
    ok(unsafe { clReleaseProgram(program) });
}

#[test]
fn program_and_kernel_queries_follow_the_protocol() {
    let b = Built::new();
    let (p, d) = (b.program, b.env.device);
    let k = kernel(p, "axpy");
    let sized = |name: &str, expected: usize, query: &dyn Fn(usize, *mut c_void, *mut usize) -> cl_int| {
        let mut size = 0;
        assert_eq!(query(0, null_mut(), &mut size), CL_SUCCESS, "{name}");
        assert_eq!(size, expected, "{name}");
        let mut buf = vec![0u8; size];
        if size > 0 {
            assert_eq!(query(size - 1, buf.as_mut_ptr().cast(), null_mut()), CL_INVALID_VALUE, "{name}: short buffer");
        }
        assert_eq!(query(size, buf.as_mut_ptr().cast(), null_mut()), CL_SUCCESS, "{name}");
    };
    sized("program reference count", 4, &|s, v, r| unsafe { clGetProgramInfo(p, CL_PROGRAM_REFERENCE_COUNT, s, v, r) });
    sized("program context", 8, &|s, v, r| unsafe { clGetProgramInfo(p, CL_PROGRAM_CONTEXT, s, v, r) });
    sized("program devices", 8, &|s, v, r| unsafe { clGetProgramInfo(p, CL_PROGRAM_DEVICES, s, v, r) });
    sized("program binary sizes", 8, &|s, v, r| unsafe { clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, s, v, r) });
    sized("build status", 4, &|s, v, r| unsafe { clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_STATUS, s, v, r) });
    sized("binary type", 4, &|s, v, r| unsafe { clGetProgramBuildInfo(p, d, CL_PROGRAM_BINARY_TYPE, s, v, r) });
    sized("kernel reference count", 4, &|s, v, r| unsafe { clGetKernelInfo(k, CL_KERNEL_REFERENCE_COUNT, s, v, r) });
    sized("kernel context", 8, &|s, v, r| unsafe { clGetKernelInfo(k, CL_KERNEL_CONTEXT, s, v, r) });
    sized("work-group size", 8, &|s, v, r| unsafe { clGetKernelWorkGroupInfo(k, d, CL_KERNEL_WORK_GROUP_SIZE, s, v, r) });
    sized("compile work-group size", 24, &|s, v, r| unsafe { clGetKernelWorkGroupInfo(k, d, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, s, v, r) });
    sized("local memory size", 8, &|s, v, r| unsafe { clGetKernelWorkGroupInfo(k, d, CL_KERNEL_LOCAL_MEM_SIZE, s, v, r) });
    sized("preferred multiple", 8, &|s, v, r| unsafe { clGetKernelWorkGroupInfo(k, d, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, s, v, r) });
    sized("private memory size", 8, &|s, v, r| unsafe { clGetKernelWorkGroupInfo(k, d, CL_KERNEL_PRIVATE_MEM_SIZE, s, v, r) });
    let context: cl_context = info_value(|s, v, r| unsafe { clGetKernelInfo(k, CL_KERNEL_CONTEXT, s, v, r) });
    assert_eq!(context, b.env.context);
    let devices: Vec<cl_device_id> = info_array(|s, v, r| unsafe { clGetProgramInfo(p, CL_PROGRAM_DEVICES, s, v, r) });
    assert_eq!(devices, [d]);
    unsafe {
        assert_eq!(clGetProgramInfo(p, 0x11FF, 0, null_mut(), null_mut()), CL_INVALID_VALUE);
        assert_eq!(clGetProgramBuildInfo(p, d, 0x11FF, 0, null_mut(), null_mut()), CL_INVALID_VALUE);
        assert_eq!(clGetKernelInfo(k, 0x11FF, 0, null_mut(), null_mut()), CL_INVALID_VALUE);
        assert_eq!(clGetKernelWorkGroupInfo(k, d, 0x11FF, 0, null_mut(), null_mut()), CL_INVALID_VALUE);
        assert_eq!(clGetKernelInfo(p, CL_KERNEL_NUM_ARGS, 0, null_mut(), null_mut()), CL_INVALID_KERNEL, "a program is not a kernel");
        assert_eq!(clGetProgramInfo(k, CL_PROGRAM_NUM_DEVICES, 0, null_mut(), null_mut()), CL_INVALID_PROGRAM, "a kernel is not a program");
    }
    ok(unsafe { clReleaseKernel(k) });
}

#[test]
fn empty_grids_and_large_constant_arguments() {
    let env = Env::new();
    let source = "kernel void last(constant int* c, global int* out, int i) { out[0] = c[i]; }\nkernel void one(global int* out) { out[get_global_id(0)] = 1; }\n";
    let program = build(env.context, env.device, source);
    // A zero-sized grid is a no-op (OpenCL 2.1+).
    let one = kernel(program, "one");
    let out = env.buffer_from(&[0u8; 16]);
    set_arg(one, 0, &out.0);
    let zero = [0usize];
    ok(unsafe { clEnqueueNDRangeKernel(env.queue, one, 1, null(), zero.as_ptr(), null(), 0, null(), null_mut()) });
    env.finish();
    assert_eq!(env.read(&out, 0, 16), [0u8; 16]);
    // A __constant argument larger than CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE: whole or refused.
    let max: cl_ulong = device_info(CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE);
    let n = (max as usize + 4096) / 4;
    let values: Vec<i32> = (0..n as i32).map(|i| i ^ 0x5555).collect();
    let c = env.buffer_from(bytes_of(&values));
    let k = kernel(program, "last");
    set_arg(k, 0, &c.0);
    set_arg(k, 1, &out.0);
    set_arg(k, 2, &(n as i32 - 1));
    let one_item = [1usize];
    let code = unsafe { clEnqueueNDRangeKernel(env.queue, k, 1, null(), one_item.as_ptr(), null(), 0, null(), null_mut()) };
    if code == CL_SUCCESS {
        env.finish();
        assert_eq!(read_as::<i32>(&env, &out, 1), [values[n - 1]]);
    } else {
        assert_eq!(code, CL_OUT_OF_RESOURCES);
    }
    unsafe {
        ok(clReleaseKernel(k));
        ok(clReleaseKernel(one));
        ok(clReleaseProgram(program));
    }
}

#[test]
fn empty_grids_wait_for_their_events_and_complete() {
    // OpenCL 2.1+: a NULL global size or a zero in any dimension runs nothing, after the wait
    // list, and its event completes (CTS test_api zero_sized_enqueue).
    let env = Env::new();
    let program = build(env.context, env.device, "kernel void one(global int* out) { out[get_global_id(0)] = 1; }");
    let k = kernel(program, "one");
    let out = env.buffer_from(&[0u8; 16]);
    set_arg(k, 0, &out.0);
    let grids: [&[usize]; 4] = [&[0], &[1, 0], &[0, 1, 1], &[1, 1, 0]];
    for g in grids {
        ok(unsafe { clEnqueueNDRangeKernel(env.queue, k, g.len() as cl_uint, null(), g.as_ptr(), null(), 0, null(), null_mut()) });
    }
    for dim in 1..=3 {
        ok(unsafe { clEnqueueNDRangeKernel(env.queue, k, dim, null(), null(), null(), 0, null(), null_mut()) });
    }
    let gate = user_event(env.context);
    let mut done = null_mut();
    ok(unsafe { clEnqueueNDRangeKernel(env.queue, k, 1, null(), [0usize].as_ptr(), null(), 1, &gate, &mut done) });
    let ty: cl_command_type = info_value(|s, v, r| unsafe { clGetEventInfo(done, CL_EVENT_COMMAND_TYPE, s, v, r) });
    assert_eq!(ty, CL_COMMAND_NDRANGE_KERNEL);
    assert!([CL_QUEUED, CL_SUBMITTED].contains(&event_status(done)), "it waits for the user event");
    ok(unsafe { clSetUserEventStatus(gate, CL_COMPLETE) });
    env.finish();
    assert_eq!(event_status(done), CL_COMPLETE);
    assert_eq!(env.read(&out, 0, 16), [0u8; 16], "nothing ran");
    unsafe {
        [done, gate].iter().for_each(|&e| ok(clReleaseEvent(e)));
        ok(clReleaseKernel(k));
        ok(clReleaseProgram(program));
    }
}

#[test]
fn grids_beyond_the_device_size_t() {
    // Sizes, offset + size and the number of work-items must fit the device's size_t, and 32
    // bits whatever CL_DEVICE_ADDRESS_BITS says (kernels number work-items in 32 bits).
    // {2^31, 2^31, 2^31} once made clEnqueueNDRangeKernel run forever.
    let env = Env::new();
    let program = build(env.context, env.device, "kernel void ids(global uint* out) { out[get_global_id(0) - get_global_offset(0)] = get_global_id(0); }");
    let k = kernel(program, "ids");
    let out = env.buffer(CL_MEM_READ_WRITE, 32);
    set_arg(k, 0, &out.0);
    let enqueue = |offset: &[usize], global: &[usize]| unsafe {
        let o = if offset.is_empty() { null() } else { offset.as_ptr() };
        clEnqueueNDRangeKernel(env.queue, k, global.len() as cl_uint, o, global.as_ptr(), null(), 0, null(), null_mut())
    };
    let max = u32::MAX as usize;
    assert_eq!(enqueue(&[], &[1 << 31, 1 << 31, 1 << 31]), CL_INVALID_GLOBAL_WORK_SIZE, "the product overflows");
    assert_eq!(enqueue(&[], &[1 << 16, 1 << 16]), CL_INVALID_GLOBAL_WORK_SIZE, "2^32 work-items");
    assert_eq!(enqueue(&[], &[max + 1]), CL_INVALID_GLOBAL_WORK_SIZE);
    assert_eq!(enqueue(&[], &[usize::MAX]), CL_INVALID_GLOBAL_WORK_SIZE);
    assert_eq!(enqueue(&[max - 7], &[8]), CL_INVALID_GLOBAL_OFFSET, "offset + size is 2^32");
    assert_eq!(enqueue(&[usize::MAX, 0], &[8, 1]), CL_INVALID_GLOBAL_OFFSET);
    // The largest offset + size allowed: the size_t maximum itself.
    ok(enqueue(&[max - 8], &[8]));
    env.finish();
    assert_eq!(read_as::<u32>(&env, &out, 8), (0..8).map(|i| u32::MAX - 8 + i).collect::<Vec<u32>>());
    unsafe {
        ok(clReleaseKernel(k));
        ok(clReleaseProgram(program));
    }
}

#[test]
fn null_buffer_arguments_are_null_in_the_kernel() {
    // clSetKernelArg with a pointer to a NULL cl_mem, or with a NULL value, passes a NULL
    // pointer: the kernel may test it (CTS test_api null_buffer_arg).
    let env = Env::new();
    let source = r#"
kernel void k(global int* src, global long* dst) {
    size_t i = get_global_id(0);
    dst[4 * i] = (long)(src != 0);
    dst[4 * i + 1] = src == NULL;
    dst[4 * i + 2] = !src ? 7 : 8;
    if (src) dst[4 * i + 3] = src[i] + (src + 1 > src); else dst[4 * i + 3] = -1;
}
"#;
    let program = build(env.context, env.device, source);
    let k = kernel(program, "k");
    let n = 16;
    let src = env.buffer_from(bytes_of(&(0..n as i32).map(|i| 10 * i).collect::<Vec<_>>()));
    let dst = env.buffer(CL_MEM_READ_WRITE, n * 4 * 8);
    set_arg(k, 1, &dst.0);
    let absent: cl_mem = null_mut();
    let cases: [(Option<&cl_mem>, bool); 4] = [(Some(&src.0), false), (Some(&absent), true), (None, true), (Some(&src.0), false)];
    for (value, is_null) in cases {
        let v = value.map_or(null(), |m| (m as *const cl_mem).cast::<c_void>());
        ok(unsafe { clSetKernelArg(k, 0, std::mem::size_of::<cl_mem>(), v) });
        run(&env, k, &[n], None);
        let got = read_as::<i64>(&env, &dst, n * 4);
        let want: Vec<i64> = (0..n as i64).flat_map(|i| if is_null { [0, 1, 7, -1] } else { [1, 0, 8, 10 * i + 1] }).collect();
        assert_eq!(got, want, "NULL argument: {is_null}");
    }
    unsafe {
        ok(clReleaseKernel(k));
        ok(clReleaseProgram(program));
    }
}

#[test]
fn argument_info_of_every_kind_of_argument() {
    // As CTS test_api get_kernel_arg_info declares them: `local void*`, and more `__constant`
    // arguments than CL_DEVICE_MAX_CONSTANT_ARGS (never read: nothing is bound for them).
    let env = Env::new();
    let max_constant: cl_uint = device_info(CL_DEVICE_MAX_CONSTANT_ARGS);
    let (c, v, r) = (CL_KERNEL_ARG_TYPE_CONST, CL_KERNEL_ARG_TYPE_VOLATILE, CL_KERNEL_ARG_TYPE_RESTRICT);
    let (g, l, k, p) = (CL_KERNEL_ARG_ADDRESS_GLOBAL, CL_KERNEL_ARG_ADDRESS_LOCAL, CL_KERNEL_ARG_ADDRESS_CONSTANT, CL_KERNEL_ARG_ADDRESS_PRIVATE);
    let mut args: Vec<(String, cl_kernel_arg_address_qualifier, cl_bitfield, &str)> = vec![
        ("global volatile float2* restrict".into(), g, v | r, "float2*"),
        ("local const void*".into(), l, c, "void*"),
        ("local void* restrict".into(), l, r, "void*"),
        ("global char unsigned*".into(), g, 0, "uchar*"),
        ("private short signed".into(), p, 0, "short"),
        ("private signed".into(), p, 0, "int"),
        ("private unsigned".into(), p, 0, "uint"),
        ("private const volatile int".into(), p, 0, "int"),
        ("global const volatile uint4* restrict".into(), g, c | v | r, "uint4*"),
    ];
    for _ in 0..=max_constant {
        args.push(("constant unsigned short*".into(), k, c, "ushort*"));
    }
    let params: Vec<String> = args.iter().enumerate().map(|(i, a)| format!("{} argument{i}", a.0)).collect();
    let source = format!("kernel void info({}) {{}}", params.join(",\n"));
    let program = program(env.context, &source);
    let code = unsafe { clBuildProgram(program, 1, &env.device, c"-cl-kernel-arg-info".as_ptr(), None, null_mut()) };
    assert_eq!(code, CL_SUCCESS, "{}", build_log(program, env.device));
    let kern = kernel(program, "info");
    let query = |i: usize, param| info_value::<cl_bitfield>(|s, v, r| unsafe { clGetKernelArgInfo(kern, i as cl_uint, param, s, v, r) });
    let text = |i: usize, param| info_string(|s, v, r| unsafe { clGetKernelArgInfo(kern, i as cl_uint, param, s, v, r) });
    for (i, (decl, address, qualifiers, type_name)) in args.iter().enumerate() {
        let address_bits = info_value::<cl_kernel_arg_address_qualifier>(|s, v, r| unsafe { clGetKernelArgInfo(kern, i as cl_uint, CL_KERNEL_ARG_ADDRESS_QUALIFIER, s, v, r) });
        let access = info_value::<cl_kernel_arg_access_qualifier>(|s, v, r| unsafe { clGetKernelArgInfo(kern, i as cl_uint, CL_KERNEL_ARG_ACCESS_QUALIFIER, s, v, r) });
        assert_eq!((address_bits, access), (*address, CL_KERNEL_ARG_ACCESS_NONE), "{decl}");
        assert_eq!(query(i, CL_KERNEL_ARG_TYPE_QUALIFIER), *qualifiers, "{decl}");
        assert_eq!(text(i, CL_KERNEL_ARG_TYPE_NAME), *type_name, "{decl}");
        assert_eq!(text(i, CL_KERNEL_ARG_NAME), format!("argument{i}"), "{decl}");
    }
    // The queries of size only, with no value.
    for param in [CL_KERNEL_ARG_ADDRESS_QUALIFIER, CL_KERNEL_ARG_ACCESS_QUALIFIER, CL_KERNEL_ARG_TYPE_QUALIFIER, CL_KERNEL_ARG_TYPE_NAME, CL_KERNEL_ARG_NAME] {
        ok(unsafe { clGetKernelArgInfo(kern, 0, param, 0, null_mut(), null_mut()) });
    }
    // It runs, every argument set.
    let mem = env.buffer(CL_MEM_READ_WRITE, 64);
    for (i, (_, address, _, type_name)) in args.iter().enumerate() {
        let i = i as cl_uint;
        match *address {
            CL_KERNEL_ARG_ADDRESS_LOCAL => ok(unsafe { clSetKernelArg(kern, i, 64, null()) }),
            CL_KERNEL_ARG_ADDRESS_PRIVATE if *type_name == "short" => set_arg(kern, i, &1i16),
            CL_KERNEL_ARG_ADDRESS_PRIVATE => set_arg(kern, i, &1i32),
            _ => set_arg(kern, i, &mem.0),
        }
    }
    run(&env, kern, &[4], None);
    unsafe {
        ok(clReleaseKernel(kern));
        ok(clReleaseProgram(program));
    }
}

#[test]
fn more_buffers_than_the_device_binds() {
    // 40 buffers used: more than lavapipe pushes (32). Valid OpenCL, refused at the enqueue
    // where the device cannot bind them (it was a Vulkan validation error).
    let env = Env::new();
    let n = 40;
    let params: Vec<String> = (0..n).map(|i| format!("global int* b{i}")).collect();
    let body: Vec<String> = (0..n).map(|i| format!("b{i}[0] = {i};")).collect();
    let source = format!("kernel void k({}) {{ {} }}", params.join(", "), body.join(" "));
    let program = build(env.context, env.device, &source);
    let k = kernel(program, "k");
    let bufs: Vec<Mem> = (0..n).map(|_| env.buffer(CL_MEM_READ_WRITE, 4)).collect();
    for (i, b) in bufs.iter().enumerate() {
        set_arg(k, i as cl_uint, &b.0);
    }
    let code = unsafe { clEnqueueNDRangeKernel(env.queue, k, 1, null(), [1usize].as_ptr(), null(), 0, null(), null_mut()) };
    env.finish();
    if code == CL_SUCCESS {
        let got: Vec<i32> = bufs.iter().map(|b| read_as::<i32>(&env, b, 1)[0]).collect();
        assert_eq!(got, (0..n).collect::<Vec<_>>());
    } else {
        assert_eq!(code, CL_OUT_OF_RESOURCES, "{}", error_name(code));
    }
    unsafe {
        ok(clReleaseKernel(k));
        ok(clReleaseProgram(program));
    }
}

#[test]
fn grids_split_in_every_dimension() {
    // 65537 work-groups of 2 in one dimension: more than Vulkan's usual 65535 per dispatch, so
    // the grid is split there and the group offset carries on in that dimension.
    let env = Env::new();
    let source = "kernel void ids(global uint* out, uint d) { out[get_global_id(d)] = get_group_id(d) * 4 + get_local_id(d) + 1; }";
    let program = build(env.context, env.device, source);
    let k = kernel(program, "ids");
    let n = 131_074usize;
    let out = env.buffer(CL_MEM_READ_WRITE, n * 4);
    set_arg(k, 0, &out.0);
    for d in 0..3u32 {
        let (mut global, mut local) = ([1usize; 3], [1usize; 3]);
        global[d as usize] = n;
        local[d as usize] = 2;
        set_arg(k, 1, &d);
        ok(unsafe { clEnqueueNDRangeKernel(env.queue, k, 3, null(), global.as_ptr(), local.as_ptr(), 0, null(), null_mut()) });
        let got = read_as::<u32>(&env, &out, n);
        let wrong = got.iter().enumerate().find(|(i, &v)| v != (*i as u32 / 2) * 4 + *i as u32 % 2 + 1);
        assert!(wrong.is_none(), "dimension {d}: first wrong element {wrong:?}");
    }
    unsafe {
        ok(clReleaseKernel(k));
        ok(clReleaseProgram(program));
    }
}
