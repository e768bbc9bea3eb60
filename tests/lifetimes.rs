//! Objects released while commands still need them: the commands run, with correct results.
mod common;

use common::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicUsize, Ordering};

#[test]
fn queue_released_with_held_commands() {
    let env = Env::new();
    let q = env.queue(0);
    let mem = env.buffer(CL_MEM_READ_WRITE, 1024);
    let data = pattern(1024, 1);
    let gate = user_event(env.context);
    let mut w = null_mut();
    ok(unsafe { clEnqueueWriteBuffer(q, mem.0, CL_FALSE, 0, 1024, data.as_ptr().cast(), 1, &gate, &mut w) });
    ok(unsafe { clReleaseCommandQueue(q) });
    ok(unsafe { clSetUserEventStatus(gate, CL_COMPLETE) });
    ok(unsafe { clWaitForEvents(1, &w) });
    assert_eq!(env.read(&mem, 0, 1024), data);
    unsafe {
        ok(clReleaseEvent(w));
        ok(clReleaseEvent(gate));
    }
}

#[test]
fn buffers_released_while_in_use() {
    let env = Env::new();
    let data = pattern(8192, 2);
    let src = create_buffer(env.context, CL_MEM_READ_WRITE, 8192, null_mut());
    let dst = env.buffer(CL_MEM_READ_WRITE, 8192);
    let gate = user_event(env.context);
    let mut out = vec![0u8; 8192];
    let mut r = null_mut();
    unsafe {
        ok(clEnqueueWriteBuffer(env.queue, src, CL_FALSE, 0, 8192, data.as_ptr().cast(), 1, &gate, null_mut()));
        ok(clEnqueueCopyBuffer(env.queue, src, dst.0, 0, 0, 8192, 0, null(), null_mut()));
        ok(clEnqueueReadBuffer(env.queue, src, CL_FALSE, 0, 8192, out.as_mut_ptr().cast(), 0, null(), &mut r));
        ok(clReleaseMemObject(src));
        ok(clSetUserEventStatus(gate, CL_COMPLETE));
        ok(clWaitForEvents(1, &r));
        ok(clReleaseEvent(r));
        ok(clReleaseEvent(gate));
    }
    assert_eq!(out, data);
    assert_eq!(env.read(&dst, 0, 8192), data);
}

#[test]
fn context_released_before_its_objects() {
    let d = device();
    let c = context(d);
    let q = queue(c, d, 0);
    let mem = create_buffer(c, CL_MEM_READ_WRITE, 256, null_mut());
    ok(unsafe { clReleaseContext(c) });
    let data = pattern(256, 3);
    unsafe {
        ok(clEnqueueWriteBuffer(q, mem, CL_TRUE, 0, 256, data.as_ptr().cast(), 0, null(), null_mut()));
    }
    assert_eq!(read_on(q, mem, 0, 256), data);
    let ctx: cl_context = info_value(|s, v, r| unsafe { clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, s, v, r) });
    assert_eq!(ctx, c, "the queue still names its context");
    unsafe {
        ok(clReleaseMemObject(mem));
        ok(clReleaseCommandQueue(q));
    }
}

#[test]
fn events_released_before_completion() {
    // Neither the command's event nor the user event's handle is needed for the command to run.
    let env = Env::new();
    let mem = env.buffer(CL_MEM_READ_WRITE, 64);
    let gate = user_event(env.context);
    ok(unsafe { clRetainEvent(gate) });
    let mut w = null_mut();
    ok(unsafe { clEnqueueWriteBuffer(env.queue, mem.0, CL_FALSE, 0, 64, [5u8; 64].as_ptr().cast(), 1, &gate, &mut w) });
    ok(unsafe { clReleaseEvent(w) });
    ok(unsafe { clReleaseEvent(gate) });
    ok(unsafe { clSetUserEventStatus(gate, CL_COMPLETE) });
    ok(unsafe { clReleaseEvent(gate) });
    env.finish();
    assert_eq!(env.read(&mem, 0, 64), [5u8; 64]);
}

#[test]
fn many_small_commands_in_one_flush() {
    // More commands than one batch holds: batches are submitted as they fill.
    let env = Env::with_queue_properties(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    let n = 3000;
    let mem = env.buffer(CL_MEM_READ_WRITE, n * 4);
    let values: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
    for (i, v) in values.iter().enumerate() {
        ok(unsafe { clEnqueueFillBuffer(env.queue, mem.0, (v as *const u32).cast(), 4, i * 4, 4, 0, null(), null_mut()) });
    }
    env.finish();
    let bytes = env.read(&mem, 0, n * 4);
    let got: Vec<u32> = bytes.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    assert_eq!(got, values);
}

static ARG_DELETED: AtomicUsize = AtomicUsize::new(0);

extern "C" fn count_arg_deletion(_mem: *mut c_void, _user_data: *mut c_void) {
    ARG_DELETED.fetch_add(1, Ordering::SeqCst);
}

#[test]
fn kernel_arguments_hold_no_reference() {
    // The spec forbids a kernel to hold references to its arguments: releasing a buffer set as
    // one deletes it at once (CTS retain_mem_object_set_kernel_arg spins until it does); a
    // command enqueued before still has it until it has run.
    let env = Env::new();
    let program = build(env.context, env.device, "kernel void copy(global const int* src, global int* dst) { dst[get_global_id(0)] = src[get_global_id(0)]; }");
    let k = kernel(program, "copy");
    let data: Vec<i32> = (0..64).map(|i| i * 3 - 7).collect();
    let bytes: Vec<u8> = data.iter().flat_map(|v| v.to_le_bytes()).collect();
    let dst = env.buffer(CL_MEM_READ_WRITE, bytes.len());
    set_arg(k, 1, &dst.0);
    let src = create_buffer(env.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes.len(), bytes.as_ptr().cast_mut().cast());
    ok(unsafe { clSetMemObjectDestructorCallback(src, Some(count_arg_deletion), null_mut()) });
    // Set as an argument and released with no command enqueued: deleted at once.
    let unused = create_buffer(env.context, CL_MEM_READ_WRITE, 64, null_mut());
    ok(unsafe { clSetMemObjectDestructorCallback(unused, Some(count_arg_deletion), null_mut()) });
    set_arg(k, 0, &unused);
    ok(unsafe { clReleaseMemObject(unused) });
    assert_eq!(ARG_DELETED.swap(0, Ordering::SeqCst), 1, "the last release of an argument's buffer deletes it");
    set_arg(k, 0, &src);
    let gate = user_event(env.context);
    let global = [data.len()];
    ok(unsafe { clEnqueueNDRangeKernel(env.queue, k, 1, null(), global.as_ptr(), null(), 1, &gate, null_mut()) });
    ok(unsafe { clReleaseMemObject(src) });
    assert_eq!(ARG_DELETED.load(Ordering::SeqCst), 0, "the enqueued command still uses it");
    ok(unsafe { clSetUserEventStatus(gate, CL_COMPLETE) });
    env.finish();
    assert_eq!(env.read(&dst, 0, bytes.len()), bytes);
    // The command's resources go once its batch retires, after its event completes: on the
    // completion thread, at the latest once the queue has been quiet for a millisecond.
    let start = std::time::Instant::now();
    while ARG_DELETED.load(Ordering::SeqCst) == 0 && start.elapsed().as_secs() < 10 {
        std::thread::yield_now();
    }
    assert_eq!(ARG_DELETED.load(Ordering::SeqCst), 1, "deleted once the command has run, though still an argument");
    let code = unsafe { clEnqueueNDRangeKernel(env.queue, k, 1, null(), global.as_ptr(), null(), 0, null(), null_mut()) };
    assert_eq!(code, CL_INVALID_KERNEL_ARGS, "the argument's buffer is gone");
    unsafe {
        ok(clReleaseEvent(gate));
        ok(clReleaseKernel(k));
        ok(clReleaseProgram(program));
    }
}
