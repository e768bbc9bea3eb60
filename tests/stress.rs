//! Sixteen host threads on one context for a while (`FERROCL_STRESS_SECONDS`, default 20): a
//! queue shared by half of them and a queue of its own for each (in-order or out-of-order),
//! kernels, transfers and maps, events waited on by other threads, user events set by other
//! threads, and every object released while its commands may still run. Each thread checks its
//! own results against the CPU; the validation layer is on (`common::init`).
mod common;

use common::*;
use std::ptr::{null, null_mut};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant};

const THREADS: usize = 16;
const N: usize = 4096;
const SOURCE: &str = "kernel void add(global int *p, int v) { size_t i = get_global_id(0); p[i] += v + (int)i; }";

/// Handles are plain pointers; OpenCL objects may be used from any thread.
#[derive(Clone, Copy)]
struct Handle(*mut std::ffi::c_void);
unsafe impl Send for Handle {}
unsafe impl Sync for Handle {}

impl Handle {
    fn get(self) -> *mut std::ffi::c_void {
        self.0
    }
}

/// An event another thread must release, with what it guards.
struct Handoff {
    event: Handle,
    /// A user event the receiver completes first (null when the command needs none).
    gate: Handle,
    /// The command ran on its thread's own queue, so nothing but the gate holds it back and
    /// the receiver may block on it; one on the shared in-order queue may sit behind another
    /// thread's gated command.
    may_block: bool,
}

struct Shared {
    context: Handle,
    device: Handle,
    queue: Handle,
    program: Handle,
    /// Each thread sends handoffs to the next one.
    outboxes: Vec<Mutex<Sender<Handoff>>>,
}

fn expected(start: &[i32], v: i32) -> Vec<i32> {
    start.iter().enumerate().map(|(i, x)| x.wrapping_add(v).wrapping_add(i as i32)).collect()
}

/// One round: write, launch (sometimes behind a user event another thread sets), read back
/// without blocking, hand an event to the next thread, release everything at once, then check.
fn round(shared: &Shared, inbox: &Receiver<Handoff>, queue: cl_command_queue, id: usize, n: u32) {
    let start: Vec<i32> = (0..N as i32).map(|i| i.wrapping_mul(n as i32 + 1) ^ id as i32).collect();
    let mem = create_buffer(shared.context.get().cast(), CL_MEM_READ_WRITE, N * 4, null_mut());
    let k = kernel(shared.program.get().cast(), "add");
    set_arg(k, 0, &mem);
    set_arg(k, 1, &(n as i32));
    let gated = n.is_multiple_of(3);
    let gate = if gated { user_event(shared.context.get().cast()) } else { null_mut() };
    let (mut written, mut launched, mut read) = (null_mut(), null_mut(), null_mut());
    let mut got = vec![0i32; N];
    unsafe {
        ok(clEnqueueWriteBuffer(queue, mem, CL_FALSE, 0, N * 4, start.as_ptr().cast(), 0, null(), &mut written));
        let waits = [written, gate];
        ok(clEnqueueNDRangeKernel(queue, k, 1, null(), &N, null(), if gated { 2 } else { 1 }, waits.as_ptr(), &mut launched));
        ok(clEnqueueReadBuffer(queue, mem, CL_FALSE, 0, N * 4, got.as_mut_ptr().cast(), 1, &launched, &mut read));
        // Released while the commands may still run: the commands keep what they need.
        ok(clReleaseKernel(k));
        ok(clReleaseMemObject(mem));
        ok(clReleaseEvent(written));
    }
    let may_block = queue != shared.queue.get().cast();
    let handoff = Handoff { event: Handle(launched.cast()), gate: Handle(gate.cast()), may_block };
    shared.outboxes[(id + 1) % THREADS].lock().unwrap_or_else(|e| e.into_inner()).send(handoff).expect("next thread listens");
    ok(unsafe { clFlush(queue) });
    // Our gate is opened by the next thread; meanwhile we open the previous thread's.
    while event_status(read) > CL_COMPLETE {
        take_handoffs(inbox);
        std::thread::yield_now();
    }
    assert_eq!(event_status(read), CL_COMPLETE);
    unsafe { ok(clReleaseEvent(read)) };
    assert_eq!(got, expected(&start, n as i32), "thread {id} round {n}");
}

/// Takes the previous thread's handoffs: opens their gates, waits for those it may block on,
/// and releases them.
fn take_handoffs(inbox: &Receiver<Handoff>) {
    while let Ok(h) = inbox.try_recv() {
        unsafe {
            if !h.gate.get().is_null() {
                ok(clSetUserEventStatus(h.gate.get().cast(), CL_COMPLETE));
                ok(clReleaseEvent(h.gate.get().cast()));
            }
            if h.may_block {
                ok(clWaitForEvents(1, &h.event.get().cast()));
            }
            ok(clReleaseEvent(h.event.get().cast()));
        }
    }
}

fn worker(shared: Arc<Shared>, inbox: Receiver<Handoff>, id: usize, until: Instant, start: Arc<Barrier>, finished: Arc<AtomicUsize>) -> u32 {
    let props = if id % 4 == 1 { CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE } else { 0 };
    let own = queue(shared.context.get().cast(), shared.device.get().cast(), props);
    start.wait();
    let mut n: u32 = 0;
    while Instant::now() < until {
        let q = if id < THREADS / 2 && n.is_multiple_of(2) { shared.queue.get().cast() } else { own };
        take_handoffs(&inbox);
        n += 1;
        round(&shared, &inbox, q, id, n);
    }
    // Keep opening the previous thread's gates until every thread has stopped sending.
    finished.fetch_add(1, Ordering::AcqRel);
    while finished.load(Ordering::Acquire) < THREADS {
        take_handoffs(&inbox);
        std::thread::yield_now();
    }
    take_handoffs(&inbox);
    unsafe {
        ok(clFinish(own));
        ok(clReleaseCommandQueue(own));
    }
    n
}

#[test]
fn sixteen_threads_for_a_while() {
    let seconds = std::env::var("FERROCL_STRESS_SECONDS").ok().and_then(|v| v.parse().ok()).unwrap_or(20);
    let device = device();
    let context = context(device);
    let shared_queue = queue(context, device, 0);
    let program = build(context, device, SOURCE);
    let (senders, inboxes): (Vec<_>, Vec<_>) = (0..THREADS).map(|_| channel::<Handoff>()).unzip();
    let shared = Arc::new(Shared {
        context: Handle(context.cast()),
        device: Handle(device.cast()),
        queue: Handle(shared_queue.cast()),
        program: Handle(program.cast()),
        outboxes: senders.into_iter().map(Mutex::new).collect(),
    });
    let until = Instant::now() + Duration::from_secs(seconds);
    let (start, finished) = (Arc::new(Barrier::new(THREADS)), Arc::new(AtomicUsize::new(0)));
    let threads: Vec<_> = inboxes
        .into_iter()
        .enumerate()
        .map(|(id, inbox)| {
            let (shared, start, finished) = (shared.clone(), start.clone(), finished.clone());
            std::thread::spawn(move || worker(shared, inbox, id, until, start, finished))
        })
        .collect();
    let rounds: u32 = threads.into_iter().map(|t| t.join().expect("a worker failed")).sum();
    unsafe {
        ok(clFinish(shared_queue));
        ok(clReleaseCommandQueue(shared_queue));
        ok(clReleaseProgram(program));
        ok(clReleaseContext(context));
    }
    println!("stress: {THREADS} threads, {rounds} rounds in {seconds} s");
    assert!(rounds as usize >= THREADS, "every thread ran at least one round");
}
