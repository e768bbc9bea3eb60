//! A faulty kernel is contained: out-of-bounds accesses to `__local`, private and `__global`
//! memory neither crash the host nor reach memory outside the object they index.
mod common;

use common::*;
use std::ptr::{null, null_mut};

/// Runs kernel `k(global int *o, global int *guard)` over `global` work-items in groups of
/// `local`, then checks that the launch completed and `guard` (a separate buffer) is untouched.
fn run_contained(source: &str, global: usize, local: Option<usize>) -> Vec<i32> {
    let env = Env::new();
    let program = build(env.context, env.device, source);
    let k = kernel(program, "k");
    let out = env.buffer_from(&[0u8; 64 * 4]);
    let guard_bytes = pattern(4096, 7);
    let guard = env.buffer_from(&guard_bytes);
    set_arg(k, 0, &out.0);
    set_arg(k, 1, &guard.0);
    ok(unsafe { clEnqueueNDRangeKernel(env.queue, k, 1, null(), &global, local.as_ref().map_or(null(), |l| l), 0, null(), null_mut()) });
    env.finish();
    assert_eq!(env.read(&guard, 0, guard_bytes.len()), guard_bytes, "another buffer was written");
    unsafe {
        clReleaseKernel(k);
        clReleaseProgram(program);
    }
    env.read(&out, 0, 64 * 4).chunks(4).map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn max_group() -> usize {
    device_info::<usize>(CL_DEVICE_MAX_WORK_GROUP_SIZE).min(256)
}

#[test]
fn out_of_bounds_local_writes_stay_in_the_array() {
    // The reproducer: every work-item writes far beyond a 4-int __local array.
    let src = "kernel void k(global int *o, global int *g) { local int t[4]; \
               if (get_local_id(0) < 4) t[get_local_id(0)] = 0; barrier(CLK_LOCAL_MEM_FENCE); \
               t[get_local_id(0) + 100000] = 1; barrier(CLK_LOCAL_MEM_FENCE); o[get_group_id(0)] = t[0] + 7; }";
    for _ in 0..20 {
        let o = run_contained(src, 4096, None);
        assert!(o[0] == 7 || o[0] == 8);
    }
}

#[test]
fn out_of_bounds_private_writes_stay_in_the_array() {
    let src = "kernel void k(global int *o, global int *g) { int t[4] = {1, 2, 3, 4}; \
               int i = get_global_id(0); t[i * 1000 + 50] = 9; t[-i - 1000] = 9; \
               if (i < 64) o[i] = t[0] + t[1] + t[2] + t[3] > 0; }";
    let o = run_contained(src, 64, Some(64.min(max_group())));
    assert!(o.iter().all(|&v| v == 1));
}

#[test]
fn out_of_bounds_global_writes_stay_in_the_buffer() {
    // Indices past the end of `o` (64 ints): the other buffer must not change.
    let src = "kernel void k(global int *o, global int *g) { int i = get_global_id(0); o[i + 64] = -1; o[i * 4096 + 1000000] = -1; if (i < 64) o[i] = 3; }";
    let o = run_contained(src, 256, Some(64.min(max_group())));
    assert!(o.iter().all(|&v| v == 3 || v == -1));
}

const TIMEOUT_CHILD: &str = "FERROCL_TIMEOUT_CHILD";
const LOST_MARKER: &str = "the device was given up and every object released";

/// In the child, with `FERROCL_KERNEL_TIMEOUT=1`: a kernel that never ends fails its event, the
/// next commands are refused, and every object is released while the GPU may still run it.
fn never_ending_child() {
    let env = Env::new();
    // Never ends on a GPU; llvmpipe ends a kernel's loops after 65535 iterations in all, so
    // there the grid is what takes hours.
    let spin = "kernel void spin(global int *flag, global int *o) {\n\
                  while (atomic_or(flag, 0) == 0) { while (atomic_or(flag, 0) == 0) { while (atomic_or(flag, 0) == 0) {} } }\n\
                  o[0] = 1;\n}";
    let program = build(env.context, env.device, spin);
    let k = kernel(program, "spin");
    let (flag, out) = (env.buffer_from(&[0u8; 4]), env.buffer_from(&[0u8; 4]));
    set_arg(k, 0, &flag.0);
    set_arg(k, 1, &out.0);
    // Held behind a user event until the device is lost: a command on one queue, and on
    // another a command that waits for it.
    let (gate, held, behind) = (user_event(env.context), env.queue(0), env.queue(0));
    let (mut first, mut second) = (null_mut(), null_mut());
    ok(unsafe { clEnqueueMarkerWithWaitList(held, 1, &gate, &mut first) });
    ok(unsafe { clEnqueueMarkerWithWaitList(behind, 1, &first, &mut second) });
    let (n, mut event) = (1usize << 30, null_mut());
    ok(unsafe { clEnqueueNDRangeKernel(env.queue, k, 1, null(), &n, null(), 0, null(), &mut event) });
    let start = std::time::Instant::now();
    assert_eq!(unsafe { clFinish(env.queue) }, CL_OUT_OF_RESOURCES);
    assert!(start.elapsed() < std::time::Duration::from_secs(20), "the timeout took {:?}", start.elapsed());
    assert_eq!(event_status(event), CL_OUT_OF_RESOURCES);
    assert_eq!(unsafe { clWaitForEvents(1, &event) }, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    let one = 1i32;
    let write = unsafe { clEnqueueWriteBuffer(env.queue, flag.0, CL_TRUE, 0, 4, (&one as *const i32).cast(), 0, null(), null_mut()) };
    assert_eq!(write, CL_OUT_OF_RESOURCES);
    // Released now, the held commands fail, and so does the one waiting for them.
    ok(unsafe { clSetUserEventStatus(gate, CL_COMPLETE) });
    assert_eq!(unsafe { clWaitForEvents(1, &second) }, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    assert!(event_status(first) < 0 && event_status(second) < 0);
    unsafe {
        for e in [gate, first, second] {
            ok(clReleaseEvent(e));
        }
        ok(clReleaseCommandQueue(held));
        ok(clReleaseCommandQueue(behind));
        ok(clReleaseEvent(event));
        ok(clReleaseKernel(k));
        ok(clReleaseProgram(program));
    }
    drop((flag, out, env));
    println!("{LOST_MARKER}");
}

/// A kernel that never ends does not hang the application: past `FERROCL_KERNEL_TIMEOUT` the
/// device is given up as lost (as after `VK_ERROR_DEVICE_LOST`), in a child process.
#[test]
fn a_kernel_that_never_ends_loses_the_device_after_the_timeout() {
    if std::env::var_os(TIMEOUT_CHILD).is_some() {
        return never_ending_child();
    }
    let exe = std::env::current_exe().expect("test binary");
    let mut command = std::process::Command::new(exe);
    command
        .args(["--exact", "a_kernel_that_never_ends_loses_the_device_after_the_timeout", "--nocapture", "--test-threads=1"])
        .env(TIMEOUT_CHILD, "1")
        .env("FERROCL_KERNEL_TIMEOUT", "1");
    let out = output_within(&mut command, std::time::Duration::from_secs(120)).expect("the child runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains(LOST_MARKER), "the child failed ({:?}):\n{stdout}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_vector_store_past_a_buffers_end_keeps_its_part_inside() {
    // piglit's constant-load: an `int2` store into a buffer of one `int` writes that int (NVIDIA's
    // OpenCL does; robustBufferAccess may drop a partly outside store whole). A sub-buffer's
    // store stays inside it: its parent's next int is untouched.
    let env = Env::new();
    let program = build(env.context, env.device, "kernel void k(global int2 *o, constant int *in) { o[0] = *in; }");
    let k = kernel(program, "k");
    let (out, input) = (env.buffer_from(&[0u8; 4]), env.buffer_from(&41i32.to_le_bytes()));
    let align = device_info::<u32>(CL_DEVICE_MEM_BASE_ADDR_ALIGN) as usize / 8;
    let parent = env.buffer_from(&vec![0xabu8; align + 8]);
    let region = cl_buffer_region { origin: align, size: 4 };
    let mut err = 0;
    let sub = unsafe { clCreateSubBuffer(parent.0, 0, CL_BUFFER_CREATE_TYPE_REGION, &region as *const _ as *const _, &mut err) };
    ok(err);
    set_arg(k, 1, &input.0);
    for target in [out.0, sub] {
        set_arg(k, 0, &target);
        ok(unsafe { clEnqueueNDRangeKernel(env.queue, k, 1, null(), &1, null(), 0, null(), null_mut()) });
    }
    env.finish();
    assert_eq!(env.read(&out, 0, 4), 41i32.to_le_bytes());
    let after = env.read(&parent, align + 4, 4);
    assert_eq!(after, [0xab; 4], "the store left its sub-buffer");
    unsafe {
        clReleaseMemObject(sub);
        clReleaseKernel(k);
        clReleaseProgram(program);
    }
}

#[test]
fn work_items_past_a_buffers_end_do_not_overwrite_its_elements() {
    // 24 work-items on buffers of 8 `ushort2` (the shape of piglit's bswap). The faulty ones read zeros or
    // nothing and write nowhere: the 8 elements hold what their own work-items computed.
    let env = Env::new();
    let program = build(env.context, env.device, "kernel void k(global ushort2 *o, global const ushort2 *in) { int i = get_global_id(0); o[i] = in[i] + (ushort2)(1, 2); }");
    let k = kernel(program, "k");
    let input: Vec<u8> = (0..8u16).flat_map(|i| [(i * 100).to_le_bytes(), (i * 7 + 3).to_le_bytes()]).flatten().collect();
    let (out, inb) = (env.buffer_from(&[0u8; 32]), env.buffer_from(&input));
    set_arg(k, 0, &out.0);
    set_arg(k, 1, &inb.0);
    ok(unsafe { clEnqueueNDRangeKernel(env.queue, k, 1, null(), &24, null(), 0, null(), null_mut()) });
    env.finish();
    let want: Vec<u8> = (0..8u16).flat_map(|i| [(i * 100 + 1).to_le_bytes(), (i * 7 + 5).to_le_bytes()]).flatten().collect();
    assert_eq!(env.read(&out, 0, 32), want);
    unsafe {
        clReleaseKernel(k);
        clReleaseProgram(program);
    }
}
