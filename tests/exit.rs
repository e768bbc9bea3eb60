//! Objects released from the application's exit handlers (CLBlast releases its cached programs
//! from a static destructor; a queue released there still holds an unflushed launch): the
//! process must still exit cleanly, even where the Vulkan
//! driver's own exit handlers have run first (NVIDIA's: SIGSEGV in the driver before the fix).
mod common;

use common::*;
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicPtr, Ordering};

static PROGRAM: AtomicPtr<std::ffi::c_void> = AtomicPtr::new(null_mut());
/// A queue with a launch recorded but never flushed: its release would submit it.
static QUEUE: AtomicPtr<std::ffi::c_void> = AtomicPtr::new(null_mut());
const MARKER: &str = "program released from the exit handler";
const QUEUE_MARKER: &str = "queue released from the exit handler";

extern "C" {
    fn atexit(handler: extern "C" fn()) -> std::ffi::c_int;
}

extern "C" fn release_at_exit() {
    let program = PROGRAM.swap(null_mut(), Ordering::AcqRel);
    if !program.is_null() && unsafe { clReleaseProgram(program.cast()) } == CL_SUCCESS {
        println!("{MARKER}");
    }
    let queue = QUEUE.swap(null_mut(), Ordering::AcqRel);
    if !queue.is_null() && unsafe { clReleaseCommandQueue(queue.cast()) } == CL_SUCCESS {
        println!("{QUEUE_MARKER}");
    }
}

/// In the child: the exit handler is registered before the first OpenCL call, so it runs after
/// every handler the driver and Vulkan register.
fn child() {
    assert_eq!(unsafe { atexit(release_at_exit) }, 0);
    let env = Env::new();
    let program = build(env.context, env.device, "kernel void k(global int *p) { p[get_global_id(0)] = 1; }");
    let k = kernel(program, "k");
    let mem = env.buffer(CL_MEM_READ_WRITE, 256);
    set_arg(k, 0, &mem.0);
    let n = 64usize;
    ok(unsafe { clEnqueueNDRangeKernel(env.queue, k, 1, null(), &n, null(), 0, null(), null_mut()) });
    env.finish();
    // The same launch twice more, each waited for: a copy of it is armed, left so at exit.
    for _ in 0..2 {
        ok(unsafe { clEnqueueNDRangeKernel(env.queue, k, 1, null(), &n, null(), 0, null(), null_mut()) });
        env.finish();
    }
    let pending = queue(env.context, env.device, 0);
    ok(unsafe { clEnqueueNDRangeKernel(pending, k, 1, null(), &n, null(), 0, null(), null_mut()) });
    unsafe { clReleaseKernel(k) };
    PROGRAM.store(program.cast(), Ordering::Release);
    QUEUE.store(pending.cast(), Ordering::Release);
    // `env` releases the queue and the context here; the program keeps the context alive.
}

#[test]
fn program_released_from_an_exit_handler() {
    if std::env::var_os("FERROCL_EXIT_CHILD").is_some() {
        return child();
    }
    let exe = std::env::current_exe().expect("test binary");
    let out = std::process::Command::new(exe)
        .args(["--exact", "program_released_from_an_exit_handler", "--nocapture", "--test-threads=1"])
        .env("FERROCL_EXIT_CHILD", "1")
        .output()
        .expect("the child runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "the child exited with {:?}:\n{stdout}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains(MARKER), "the exit handler did not release the program:\n{stdout}");
    assert!(stdout.contains(QUEUE_MARKER), "the exit handler did not release the queue:\n{stdout}");
}
