//! Armed launches (docs/design.md, "Armed launches"): a launch repeated with a wait in between
//! runs as a copy submitted ahead of it; anything else in between cancels the copy, which must
//! then run nothing. Every result is checked against sums computed here.
mod common;

use common::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

const ADD: &str = "kernel void add(global int *a, int v) { a[get_global_id(0)] += v; }";
const N: usize = 256;

struct Adder {
    program: cl_program,
    kernel: cl_kernel,
    buffer: Mem,
}

impl Adder {
    fn new(env: &Env) -> Adder {
        let program = build(env.context, env.device, ADD);
        let kernel = kernel(program, "add");
        let buffer = env.buffer_from(&[0u8; 4 * N]);
        set_arg(kernel, 0, &buffer.0);
        Adder { program, kernel, buffer }
    }

    fn launch(&self, q: cl_command_queue, v: i32) -> cl_event {
        set_arg(self.kernel, 1, &v);
        let mut e = null_mut();
        ok(unsafe { clEnqueueNDRangeKernel(q, self.kernel, 1, null(), &N, null(), 0, null(), &mut e) });
        e
    }

    /// Launches adding `v` and waits for the launch, `times` times, as a benchmark does.
    fn repeat(&self, q: cl_command_queue, v: i32, times: usize) {
        for _ in 0..times {
            let e = self.launch(q, v);
            ok(unsafe { clWaitForEvents(1, &e) });
            ok(unsafe { clFinish(q) });
            ok(unsafe { clReleaseEvent(e) });
        }
    }

    fn values(&self, env: &Env) -> Vec<i32> {
        env.read(&self.buffer, 0, 4 * N).chunks(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect()
    }
}

impl Drop for Adder {
    fn drop(&mut self) {
        unsafe {
            clReleaseKernel(self.kernel);
            clReleaseProgram(self.program);
        }
    }
}

extern "C" fn set_flag(_e: cl_event, _status: cl_int, flag: *mut c_void) {
    // SAFETY: the flag is a static the test passed.
    unsafe { &*(flag as *const AtomicBool) }.store(true, Ordering::SeqCst);
}

#[test]
fn repeated_launches_add_up() {
    let env = Env::new();
    let adder = Adder::new(&env);
    adder.repeat(env.queue, 3, 20);
    assert_eq!(adder.values(&env), vec![60; N]);
}

#[test]
fn a_repeated_launch_runs_without_a_flush() {
    // White-box: the fourth launch is the copy armed while the application waited for the
    // third (the second repeated the first after a clFinish), submitted already, so it
    // completes though nothing flushes the queue.
    static DONE: AtomicBool = AtomicBool::new(false);
    let env = Env::new();
    let adder = Adder::new(&env);
    adder.repeat(env.queue, 5, 3);
    let e = adder.launch(env.queue, 5);
    ok(unsafe { clSetEventCallback(e, CL_COMPLETE, Some(set_flag), &DONE as *const AtomicBool as *mut c_void) });
    await_callback(|| DONE.load(Ordering::SeqCst), "the armed launch did not run");
    ok(unsafe { clReleaseEvent(e) });
    assert_eq!(adder.values(&env), vec![20; N]);
}

#[test]
fn other_commands_cancel_the_armed_launch() {
    let env = Env::new();
    let adder = Adder::new(&env);
    adder.repeat(env.queue, 1, 3);
    // A write in between: the copy armed for a fourth launch must not run.
    let fresh: Vec<i32> = (0..N as i32).map(|i| i * 7 - 100).collect();
    env.write(&adder.buffer, 0, &fresh.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>());
    env.finish();
    assert_eq!(adder.values(&env), fresh);
    // Another value: a different launch.
    adder.repeat(env.queue, 2, 3);
    adder.repeat(env.queue, -4, 1);
    let want: Vec<i32> = fresh.iter().map(|v| v + 6 - 4).collect();
    assert_eq!(adder.values(&env), want);
}

#[test]
fn another_queue_cancels_the_armed_launch() {
    // The copy armed for queue A would hold every submission behind it: queue B's work must run
    // all the same, and A's next launch after it.
    let env = Env::new();
    let other = env.queue(0);
    let adder = Adder::new(&env);
    adder.repeat(env.queue, 10, 3);
    let data = pattern(4096, 9);
    let mem = env.buffer(CL_MEM_READ_WRITE, data.len());
    ok(unsafe { clEnqueueWriteBuffer(other, mem.0, CL_TRUE, 0, data.len(), data.as_ptr().cast(), 0, null(), null_mut()) });
    assert_eq!(read_on(other, mem.0, 0, data.len()), data);
    adder.repeat(env.queue, 10, 2);
    assert_eq!(adder.values(&env), vec![50; N]);
    ok(unsafe { clReleaseCommandQueue(other) });
}

#[test]
fn armed_launches_keep_profiling_times_in_order() {
    let env = Env::with_queue_properties(CL_QUEUE_PROFILING_ENABLE);
    let adder = Adder::new(&env);
    for _ in 0..20 {
        let e = adder.launch(env.queue, 1);
        env.finish();
        let times: Vec<cl_ulong> = [CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT, CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END]
            .iter()
            .map(|&p| info_value(|s, v, r| unsafe { clGetEventProfilingInfo(e, p, s, v, r) }))
            .collect();
        assert!(times.windows(2).all(|w| w[0] <= w[1]), "QUEUED ≤ SUBMIT ≤ START ≤ END: {times:?}");
        ok(unsafe { clReleaseEvent(e) });
    }
    assert_eq!(adder.values(&env), vec![20; N]);
}

static DELETED: AtomicUsize = AtomicUsize::new(0);

extern "C" fn count_deletion(_mem: cl_mem, _user_data: *mut c_void) {
    DELETED.fetch_add(1, Ordering::SeqCst);
}

#[test]
fn a_buffer_released_after_its_launches_is_deleted() {
    // The armed copy keeps the buffer, but only until it is cancelled: the buffer goes soon
    // after the queue falls quiet, and a launch with it is refused.
    let env = Env::new();
    let adder = Adder::new(&env);
    let mem = env.buffer_from(&[0u8; 4 * N]);
    set_arg(adder.kernel, 0, &mem.0);
    adder.repeat(env.queue, 1, 3);
    assert_eq!(env.read(&mem, 0, 4 * N).chunks(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect::<Vec<_>>(), vec![3; N]);
    // Many launches, then nothing more: the copy armed for the next stays parked until the
    // queue is quiet, and must hold up no retirement (it never signals the timeline).
    adder.repeat(env.queue, 1, 40);
    ok(unsafe { clSetMemObjectDestructorCallback(mem.0, Some(count_deletion), null_mut()) });
    let raw = mem.0;
    std::mem::forget(mem);
    ok(unsafe { clReleaseMemObject(raw) });
    await_callback(|| DELETED.load(Ordering::SeqCst) > 0, "the buffer was never deleted");
    assert_eq!(DELETED.load(Ordering::SeqCst), 1, "deleted once the queue was quiet");
    let code = unsafe { clEnqueueNDRangeKernel(env.queue, adder.kernel, 1, null(), &N, null(), 0, null(), null_mut()) };
    assert_eq!(code, CL_INVALID_KERNEL_ARGS, "the argument's buffer is gone");
    set_arg(adder.kernel, 0, &adder.buffer.0);
    adder.repeat(env.queue, 2, 2);
    assert_eq!(adder.values(&env), vec![4; N], "the device still works");
}

#[test]
fn writes_through_a_map_between_launches_are_seen() {
    // The application writes through a map between two identical launches: the second (armed
    // or not) must add to what it wrote.
    let env = Env::new();
    let adder = Adder::new(&env);
    for flags in [CL_MEM_READ_WRITE, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR] {
        let mem = env.buffer(flags, 4 * N);
        set_arg(adder.kernel, 0, &mem.0);
        adder.repeat(env.queue, 1, 3);
        let mut err = 0;
        let p = unsafe { clEnqueueMapBuffer(env.queue, mem.0, CL_TRUE, CL_MAP_WRITE, 0, 4 * N, 0, null(), null_mut(), &mut err) } as *mut i32;
        ok(err);
        (0..N).for_each(|i| unsafe { *p.add(i) = i as i32 * 5 - 17 });
        ok(unsafe { clEnqueueUnmapMemObject(env.queue, mem.0, p.cast(), 0, null(), null_mut()) });
        adder.repeat(env.queue, 2, 2);
        let got: Vec<i32> = env.read(&mem, 0, 4 * N).chunks(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect();
        let want: Vec<i32> = (0..N as i32).map(|i| i * 5 - 17 + 4).collect();
        assert_eq!(got, want, "flags {flags:#x}");
    }
}

#[test]
fn a_blocking_write_between_launches_is_seen() {
    // A blocking write on the idle queue goes straight into the buffer's memory, without a
    // command: the copy armed for the next identical launch must not run on the old data.
    let env = Env::new();
    let adder = Adder::new(&env);
    adder.repeat(env.queue, 1, 3);
    let fresh: Vec<i32> = (0..N as i32).map(|i| 1000 - i * 3).collect();
    let bytes: Vec<u8> = fresh.iter().flat_map(|v| v.to_le_bytes()).collect();
    ok(unsafe { clEnqueueWriteBuffer(env.queue, adder.buffer.0, CL_TRUE, 0, bytes.len(), bytes.as_ptr().cast(), 0, null(), null_mut()) });
    adder.repeat(env.queue, 1, 2);
    let want: Vec<i32> = fresh.iter().map(|v| v + 2).collect();
    assert_eq!(adder.values(&env), want);
}

#[test]
fn launches_back_to_back_alike_and_not() {
    // Launches enqueued without a wait share batches; every change between them (the value,
    // the buffer) must take, whether the launch before was alike or not.
    let env = Env::new();
    let adder = Adder::new(&env);
    let other = env.buffer_from(&[0u8; 4 * N]);
    let values = [1, 1, 1, 2, 2, 3, 1, 1, 5, 5, 5, 5, 7, 1, 1, 2];
    let (mut a, mut b) = (0, 0);
    for (i, &v) in values.iter().cycle().take(64).enumerate() {
        let to_other = i % 11 >= 8;
        set_arg(adder.kernel, 0, if to_other { &other.0 } else { &adder.buffer.0 });
        let e = adder.launch(env.queue, v);
        ok(unsafe { clReleaseEvent(e) });
        if to_other { b += v } else { a += v }
    }
    env.finish();
    assert_eq!(adder.values(&env), vec![a; N]);
    let got: Vec<i32> = env.read(&other, 0, 4 * N).chunks(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect();
    assert_eq!(got, vec![b; N]);
}
