//! Events: status progression, user events gating commands, callbacks, markers and barriers,
//! cross-queue dependencies, waiting and profiling.
mod common;

use common::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Long enough for a command that could run to have run.
const SETTLE: Duration = Duration::from_millis(100);

fn write_after(q: cl_command_queue, mem: &Mem, offset: usize, data: &[u8], deps: &[cl_event]) -> cl_event {
    let mut e = null_mut();
    ok(unsafe { clEnqueueWriteBuffer(q, mem.0, CL_FALSE, offset, data.len(), data.as_ptr().cast(), deps.len() as cl_uint, if deps.is_empty() { null() } else { deps.as_ptr() }, &mut e) });
    e
}

fn event_info<T: Copy>(e: cl_event, param: cl_event_info) -> T {
    info_value(|s, v, r| unsafe { clGetEventInfo(e, param, s, v, r) })
}

fn release(events: &[cl_event]) {
    events.iter().for_each(|&e| ok(unsafe { clReleaseEvent(e) }));
}

#[test]
fn user_event_gates_a_command_until_set() {
    let env = Env::new();
    let other = env.queue(0);
    let mem = env.buffer_from(&[0u8; 64]);
    let gate = user_event(env.context);
    assert_eq!(event_status(gate), CL_SUBMITTED);
    assert_eq!(event_info::<cl_command_type>(gate, CL_EVENT_COMMAND_TYPE), CL_COMMAND_USER);
    assert!(event_info::<cl_command_queue>(gate, CL_EVENT_COMMAND_QUEUE).is_null());
    let data = pattern(64, 1);
    let w = write_after(env.queue, &mem, 0, &data, &[gate]);
    ok(unsafe { clFlush(env.queue) });
    std::thread::sleep(SETTLE);
    assert!(event_status(w) > CL_COMPLETE, "ran before its user event");
    assert_eq!(read_on(other, mem.0, 0, 64), [0u8; 64], "another queue still sees the old data");
    ok(unsafe { clSetUserEventStatus(gate, CL_COMPLETE) });
    ok(unsafe { clWaitForEvents(1, &w) });
    assert_eq!(event_status(w), CL_COMPLETE);
    assert_eq!(env.read(&mem, 0, 64), data);
    assert_eq!(unsafe { clSetUserEventStatus(gate, CL_COMPLETE) }, CL_INVALID_OPERATION, "set once only");
    assert_eq!(unsafe { clSetUserEventStatus(w, CL_COMPLETE) }, CL_INVALID_EVENT, "not a user event");
    let fresh = user_event(env.context);
    assert_eq!(unsafe { clSetUserEventStatus(fresh, CL_SUBMITTED) }, CL_INVALID_VALUE);
    ok(unsafe { clSetUserEventStatus(fresh, CL_COMPLETE) });
    release(&[gate, w, fresh]);
    ok(unsafe { clReleaseCommandQueue(other) });
}

#[test]
fn failed_user_event_fails_its_dependents() {
    let env = Env::new();
    let q = env.queue(0);
    let mem = env.buffer_from(&[7u8; 32]);
    let gate = user_event(env.context);
    let w = write_after(q, &mem, 0, &[1u8; 32], &[gate]);
    let mut out = [0u8; 32];
    ok(unsafe { clSetUserEventStatus(gate, -1234) });
    assert_eq!(unsafe { clWaitForEvents(1, &w) }, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    assert_eq!(event_status(w), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    assert_eq!(event_status(gate), -1234);
    // A blocking command waiting for a failed event reports it.
    let r = unsafe { clEnqueueReadBuffer(env.queue, mem.0, CL_TRUE, 0, 32, out.as_mut_ptr().cast(), 1, &gate, null_mut()) };
    assert_eq!(r, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    assert_eq!(env.read(&mem, 0, 32), [7u8; 32], "the failed write did not run");
    release(&[gate, w]);
    ok(unsafe { clReleaseCommandQueue(q) });
}

static CALLS: Mutex<Vec<(usize, cl_int, cl_int)>> = Mutex::new(Vec::new());

/// Records (tag, status reported, status the event has when called).
extern "C" fn record(event: cl_event, status: cl_int, user_data: *mut c_void) {
    let now = event_status(event);
    CALLS.lock().unwrap().push((user_data as usize, status, now));
}

fn calls_for(tag: usize) -> Vec<(cl_int, cl_int)> {
    CALLS.lock().unwrap().iter().filter(|c| c.0 == tag).map(|c| (c.1, c.2)).collect()
}

/// Callbacks may run on a driver thread just after the wait returns: give them a moment.
fn await_calls(tag: usize, n: usize) -> Vec<(cl_int, cl_int)> {
    let start = Instant::now();
    while calls_for(tag).len() < n && start.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(2));
    }
    calls_for(tag)
}

#[test]
fn callbacks_run_for_each_status_in_order() {
    let env = Env::new();
    let mem = env.buffer(CL_MEM_READ_WRITE, 1024);
    let gate = user_event(env.context);
    let w = write_after(env.queue, &mem, 0, &pattern(1024, 2), &[gate]);
    for on in [CL_COMPLETE, CL_RUNNING, CL_SUBMITTED] {
        ok(unsafe { clSetEventCallback(w, on, Some(record), (1000 + on as usize) as *mut c_void) });
    }
    ok(unsafe { clFlush(env.queue) });
    std::thread::sleep(SETTLE);
    assert!(calls_for(1000 + CL_COMPLETE as usize).is_empty(), "completed before its user event");
    ok(unsafe { clSetUserEventStatus(gate, CL_COMPLETE) });
    ok(unsafe { clWaitForEvents(1, &w) });
    for on in [CL_SUBMITTED, CL_RUNNING, CL_COMPLETE] {
        let calls = await_calls(1000 + on as usize, 1);
        assert_eq!(calls.len(), 1, "one call for {on}");
        assert_eq!(calls[0].0, on);
        assert!(calls[0].1 <= on, "the event has reached {on} when called");
    }
    let order: Vec<usize> = CALLS.lock().unwrap().iter().map(|c| c.0).filter(|t| (1000..1003).contains(t)).collect();
    assert_eq!(order, [1000 + CL_SUBMITTED as usize, 1000 + CL_RUNNING as usize, 1000 + CL_COMPLETE as usize]);
    // Registered after completion: called at once.
    ok(unsafe { clSetEventCallback(w, CL_SUBMITTED, Some(record), 2000 as *mut c_void) });
    assert_eq!(await_calls(2000, 1), [(CL_SUBMITTED, CL_COMPLETE)]);
    assert_eq!(unsafe { clSetEventCallback(w, CL_QUEUED, Some(record), null_mut()) }, CL_INVALID_VALUE);
    assert_eq!(unsafe { clSetEventCallback(w, CL_COMPLETE, None, null_mut()) }, CL_INVALID_VALUE);
    release(&[gate, w]);
}

#[test]
fn callbacks_of_a_failed_command_report_the_error() {
    let env = Env::new();
    let q = env.queue(0);
    let mem = env.buffer(CL_MEM_READ_WRITE, 64);
    let gate = user_event(env.context);
    let w = write_after(q, &mem, 0, &[1u8; 64], &[gate]);
    ok(unsafe { clSetEventCallback(w, CL_COMPLETE, Some(record), 3000 as *mut c_void) });
    ok(unsafe { clSetEventCallback(gate, CL_COMPLETE, Some(record), 3001 as *mut c_void) });
    ok(unsafe { clSetUserEventStatus(gate, -55) });
    assert_eq!(await_calls(3001, 1)[0].0, -55);
    assert_eq!(await_calls(3000, 1)[0].0, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    release(&[gate, w]);
    ok(unsafe { clReleaseCommandQueue(q) });
}

fn marker(q: cl_command_queue, deps: &[cl_event]) -> cl_event {
    let mut e = null_mut();
    ok(unsafe { clEnqueueMarkerWithWaitList(q, deps.len() as cl_uint, if deps.is_empty() { null() } else { deps.as_ptr() }, &mut e) });
    e
}

fn barrier(q: cl_command_queue, deps: &[cl_event]) -> cl_event {
    let mut e = null_mut();
    ok(unsafe { clEnqueueBarrierWithWaitList(q, deps.len() as cl_uint, if deps.is_empty() { null() } else { deps.as_ptr() }, &mut e) });
    e
}

fn settled_status(q: cl_command_queue, e: cl_event) -> cl_int {
    ok(unsafe { clFlush(q) });
    std::thread::sleep(SETTLE);
    event_status(e)
}

#[test]
fn markers_wait_for_what_they_should() {
    for props in [0, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE] {
        let env = Env::with_queue_properties(props);
        let mem = env.buffer(CL_MEM_READ_WRITE, 256);
        let gate = user_event(env.context);
        let gated = write_after(env.queue, &mem, 0, &[1u8; 128], &[gate]);
        let free = write_after(env.queue, &mem, 128, &[2u8; 128], &[]);
        // Without a wait list a marker waits for every earlier command.
        let all = marker(env.queue, &[]);
        assert!(settled_status(env.queue, all) > CL_COMPLETE, "props {props:#x}");
        if props != 0 {
            // Out of order: a marker on `free` alone completes while `gated` waits.
            let only_free = marker(env.queue, &[free]);
            ok(unsafe { clWaitForEvents(1, &only_free) });
            assert!(event_status(gated) > CL_COMPLETE);
            release(&[only_free]);
        }
        ok(unsafe { clSetUserEventStatus(gate, CL_COMPLETE) });
        ok(unsafe { clWaitForEvents(1, &all) });
        assert_eq!(event_status(gated), CL_COMPLETE);
        assert_eq!(event_status(free), CL_COMPLETE);
        assert_eq!(event_info::<cl_command_type>(all, CL_EVENT_COMMAND_TYPE), CL_COMMAND_MARKER);
        let mut expected = vec![1u8; 128];
        expected.extend([2u8; 128]);
        assert_eq!(env.read(&mem, 0, 256), expected);
        release(&[gate, gated, free, all]);
    }
}

#[test]
fn barriers_order_later_commands() {
    for props in [0, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE] {
        let env = Env::with_queue_properties(props);
        let mem = env.buffer(CL_MEM_READ_WRITE, 64);
        let gate = user_event(env.context);
        let first = write_after(env.queue, &mem, 0, &[1u8; 64], &[gate]);
        let b = barrier(env.queue, &[]);
        let second = write_after(env.queue, &mem, 0, &[2u8; 64], &[]);
        assert!(settled_status(env.queue, second) > CL_COMPLETE, "props {props:#x}: ran before the barrier");
        ok(unsafe { clSetUserEventStatus(gate, CL_COMPLETE) });
        ok(unsafe { clWaitForEvents(1, &second) });
        assert_eq!(event_status(b), CL_COMPLETE);
        assert_eq!(event_info::<cl_command_type>(b, CL_EVENT_COMMAND_TYPE), CL_COMMAND_BARRIER);
        assert_eq!(env.read(&mem, 0, 64), [2u8; 64], "the second write ran last");
        release(&[gate, first, b, second]);
    }
}

#[test]
fn barrier_with_a_wait_list_on_an_out_of_order_queue() {
    let env = Env::with_queue_properties(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    let mem = env.buffer(CL_MEM_READ_WRITE, 64);
    let gate = user_event(env.context);
    let b = barrier(env.queue, &[gate]);
    let after = write_after(env.queue, &mem, 0, &[3u8; 64], &[]);
    assert!(settled_status(env.queue, after) > CL_COMPLETE);
    ok(unsafe { clSetUserEventStatus(gate, CL_COMPLETE) });
    ok(unsafe { clWaitForEvents(1, &after) });
    assert_eq!(event_status(b), CL_COMPLETE);
    assert_eq!(env.read(&mem, 0, 64), [3u8; 64]);
    release(&[gate, b, after]);
}

#[test]
fn legacy_marker_barrier_and_wait_for_events() {
    let env = Env::with_queue_properties(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    let mem = env.buffer(CL_MEM_READ_WRITE, 64);
    let gate = user_event(env.context);
    let first = write_after(env.queue, &mem, 0, &[4u8; 64], &[gate]);
    ok(unsafe { clEnqueueWaitForEvents(env.queue, 1, &first as *const cl_event as *mut cl_event) });
    let second = write_after(env.queue, &mem, 0, &[5u8; 64], &[]);
    ok(unsafe { clEnqueueBarrier(env.queue) });
    let mut m = null_mut();
    ok(unsafe { clEnqueueMarker(env.queue, &mut m) });
    assert!(settled_status(env.queue, second) > CL_COMPLETE);
    ok(unsafe { clSetUserEventStatus(gate, CL_COMPLETE) });
    ok(unsafe { clWaitForEvents(1, &m) });
    assert_eq!(event_status(second), CL_COMPLETE);
    assert_eq!(env.read(&mem, 0, 64), [5u8; 64]);
    assert_eq!(unsafe { clEnqueueMarker(env.queue, null_mut()) }, CL_INVALID_VALUE);
    assert_eq!(unsafe { clEnqueueWaitForEvents(env.queue, 0, null_mut()) }, CL_INVALID_VALUE);
    release(&[gate, first, second, m]);
}

#[test]
fn cross_queue_dependencies() {
    let env = Env::new();
    let q2 = env.queue(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    let data = pattern(4096, 3);
    let mem = env.buffer(CL_MEM_READ_WRITE, 4096);
    let copy = env.buffer(CL_MEM_READ_WRITE, 4096);
    let gate = user_event(env.context);
    let w = write_after(env.queue, &mem, 0, &data, &[gate]);
    let mut c = null_mut();
    ok(unsafe { clEnqueueCopyBuffer(q2, mem.0, copy.0, 0, 0, 4096, 1, &w, &mut c) });
    let mut out = vec![0u8; 4096];
    let mut r = null_mut();
    ok(unsafe { clEnqueueReadBuffer(q2, copy.0, CL_FALSE, 0, 4096, out.as_mut_ptr().cast(), 1, &c, &mut r) });
    assert!(settled_status(q2, r) > CL_COMPLETE);
    ok(unsafe { clSetUserEventStatus(gate, CL_COMPLETE) });
    ok(unsafe { clWaitForEvents(1, &r) });
    assert_eq!(out, data);
    // Events of two queues waited for together.
    let w1 = write_after(env.queue, &mem, 0, &[1u8; 16], &[]);
    let w2 = write_after(q2, &copy, 0, &[2u8; 16], &[]);
    ok(unsafe { clWaitForEvents(2, [w1, w2].as_ptr()) });
    assert_eq!((event_status(w1), event_status(w2)), (CL_COMPLETE, CL_COMPLETE));
    release(&[gate, w, c, r, w1, w2]);
    ok(unsafe { clReleaseCommandQueue(q2) });
}

#[test]
fn wait_for_events_errors() {
    let env = Env::new();
    let other = Env::new();
    assert_eq!(unsafe { clWaitForEvents(0, null()) }, CL_INVALID_VALUE);
    let a = user_event(env.context);
    let b = user_event(other.context);
    assert_eq!(unsafe { clWaitForEvents(2, [a, b].as_ptr()) }, CL_INVALID_CONTEXT);
    // An event of another context in a wait list.
    let mem = env.buffer(CL_MEM_READ_WRITE, 16);
    let mut e = null_mut();
    let code = unsafe { clEnqueueWriteBuffer(env.queue, mem.0, CL_FALSE, 0, 16, [0u8; 16].as_ptr().cast(), 1, &b, &mut e) };
    assert_eq!(code, CL_INVALID_CONTEXT);
    // A wait-list count without a list, and a list with a zero count.
    let code = unsafe { clEnqueueWriteBuffer(env.queue, mem.0, CL_TRUE, 0, 16, [0u8; 16].as_ptr().cast(), 1, null(), null_mut()) };
    assert_eq!(code, CL_INVALID_EVENT_WAIT_LIST);
    let code = unsafe { clEnqueueWriteBuffer(env.queue, mem.0, CL_TRUE, 0, 16, [0u8; 16].as_ptr().cast(), 0, &a, null_mut()) };
    assert_eq!(code, CL_INVALID_EVENT_WAIT_LIST);
    ok(unsafe { clSetUserEventStatus(a, CL_COMPLETE) });
    ok(unsafe { clSetUserEventStatus(b, CL_COMPLETE) });
    release(&[a, b]);
}

#[test]
fn event_queries_and_reference_counts() {
    let env = Env::new();
    let mem = env.buffer(CL_MEM_READ_WRITE, 16);
    let e = write_after(env.queue, &mem, 0, &[9u8; 16], &[]);
    assert_eq!(event_info::<cl_command_queue>(e, CL_EVENT_COMMAND_QUEUE), env.queue);
    assert_eq!(event_info::<cl_context>(e, CL_EVENT_CONTEXT), env.context);
    assert_eq!(event_info::<cl_command_type>(e, CL_EVENT_COMMAND_TYPE), CL_COMMAND_WRITE_BUFFER);
    assert_eq!(event_info::<cl_uint>(e, CL_EVENT_REFERENCE_COUNT), 1);
    ok(unsafe { clRetainEvent(e) });
    assert_eq!(event_info::<cl_uint>(e, CL_EVENT_REFERENCE_COUNT), 2);
    ok(unsafe { clReleaseEvent(e) });
    // Polling the status makes progress on its own (the queue is flushed).
    let start = Instant::now();
    while event_status(e) != CL_COMPLETE {
        assert!(start.elapsed() < Duration::from_secs(10), "never completed");
        std::thread::yield_now();
    }
    assert_eq!(unsafe { clGetEventInfo(e, 0x11FF, 0, null_mut(), null_mut()) }, CL_INVALID_VALUE);
    release(&[e]);
}

fn profile(e: cl_event, param: cl_profiling_info) -> Result<cl_ulong, cl_int> {
    let mut v: cl_ulong = 0;
    match unsafe { clGetEventProfilingInfo(e, param, 8, (&mut v as *mut cl_ulong).cast(), null_mut()) } {
        CL_SUCCESS => Ok(v),
        err => Err(err),
    }
}

/// A large non-blocking read, behind a write held by a user event and before a fill, reads what
/// the write left (it runs as a host command once the write completed; the fill waits for it),
/// and its profiling times keep the spec's order.
#[test]
fn large_read_runs_in_queue_order_between_commands() {
    const LEN: usize = 12 << 20;
    let env = Env::with_queue_properties(CL_QUEUE_PROFILING_ENABLE);
    let mem = env.buffer(CL_MEM_READ_WRITE, LEN);
    let data = pattern(LEN, 9);
    let gate = user_event(env.context);
    let w = write_after(env.queue, &mem, 0, &data, &[gate]);
    let mut out = vec![0u8; LEN];
    let (mut r, mut f) = (null_mut(), null_mut());
    let zero = [0u8; 4];
    unsafe {
        ok(clEnqueueReadBuffer(env.queue, mem.0, CL_FALSE, 0, LEN, out.as_mut_ptr().cast(), 0, null(), &mut r));
        ok(clEnqueueFillBuffer(env.queue, mem.0, zero.as_ptr().cast(), 4, 0, LEN, 0, null(), &mut f));
        ok(clFlush(env.queue));
    }
    assert_eq!(event_status(r), CL_QUEUED, "the read waits for the gated write");
    ok(unsafe { clSetUserEventStatus(gate, CL_COMPLETE) });
    ok(unsafe { clWaitForEvents(1, &f) });
    assert_eq!(event_status(r), CL_COMPLETE);
    assert!(out == data, "the read saw the write, not the later fill");
    let t: Vec<cl_ulong> = [CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT, CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END]
        .iter()
        .map(|&p| profile(r, p).expect("profiling info"))
        .collect();
    assert!(t[0] > 0 && t.windows(2).all(|w| w[0] <= w[1]), "queued <= submit <= start <= end: {t:?}");
    assert!(profile(w, CL_PROFILING_COMMAND_END).unwrap() <= t[2], "the read starts after the write ends");
    assert!(profile(f, CL_PROFILING_COMMAND_START).unwrap() >= t[3], "the fill starts after the read ends");
    unsafe { [gate, w, r, f].iter().for_each(|&e| ok(clReleaseEvent(e))) };
}

#[test]
fn profiling_times_are_ordered() {
    let env = Env::with_queue_properties(CL_QUEUE_PROFILING_ENABLE);
    let mem = env.buffer(CL_MEM_READ_WRITE, 1 << 20);
    let gate = user_event(env.context);
    let e = write_after(env.queue, &mem, 0, &pattern(1 << 20, 4), &[gate]);
    assert_eq!(profile(e, CL_PROFILING_COMMAND_START), Err(CL_PROFILING_INFO_NOT_AVAILABLE), "not complete yet");
    ok(unsafe { clSetUserEventStatus(gate, CL_COMPLETE) });
    let fill = [1u8, 2, 3, 4];
    let mut f = null_mut();
    ok(unsafe { clEnqueueFillBuffer(env.queue, mem.0, fill.as_ptr().cast(), 4, 0, 1 << 20, 0, null(), &mut f) });
    ok(unsafe { clWaitForEvents(1, &f) });
    for ev in [e, f] {
        let t: Vec<cl_ulong> = [CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT, CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END]
            .iter()
            .map(|&p| profile(ev, p).expect("profiling info"))
            .collect();
        assert!(t[0] > 0 && t.windows(2).all(|w| w[0] <= w[1]), "queued <= submit <= start <= end: {t:?}");
        assert!(profile(ev, CL_PROFILING_COMMAND_COMPLETE).expect("complete") >= t[3]);
        let size: usize = info_bytes(|s, v, r| unsafe { clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, s, v, r) }).len();
        assert_eq!(size, 8);
    }
    // Commands run in order: the fill started no earlier than the write ended.
    assert!(profile(f, CL_PROFILING_COMMAND_START).unwrap() >= profile(e, CL_PROFILING_COMMAND_END).unwrap());
    assert_eq!(profile(e, 0x12FF), Err(CL_INVALID_VALUE));
    assert_eq!(profile(gate, CL_PROFILING_COMMAND_QUEUED), Err(CL_PROFILING_INFO_NOT_AVAILABLE), "user event");
    release(&[gate, e, f]);

    let plain = Env::new();
    let mem = plain.buffer(CL_MEM_READ_WRITE, 16);
    let e = write_after(plain.queue, &mem, 0, &[0u8; 16], &[]);
    ok(unsafe { clWaitForEvents(1, &e) });
    assert_eq!(profile(e, CL_PROFILING_COMMAND_END), Err(CL_PROFILING_INFO_NOT_AVAILABLE), "queue without profiling");
    release(&[e]);
}

#[test]
fn barrier_on_another_queues_event() {
    let env = Env::new();
    let q2 = env.queue(0);
    let mem = env.buffer(CL_MEM_READ_WRITE, 64);
    let gate = user_event(env.context);
    let first = write_after(q2, &mem, 0, &[6u8; 64], &[gate]);
    let b = barrier(env.queue, &[first]);
    let second = write_after(env.queue, &mem, 0, &[7u8; 64], &[]);
    assert!(settled_status(env.queue, second) > CL_COMPLETE, "ran before the other queue's command");
    ok(unsafe { clSetUserEventStatus(gate, CL_COMPLETE) });
    ok(unsafe { clWaitForEvents(1, &second) });
    assert_eq!(env.read(&mem, 0, 64), [7u8; 64]);
    // Migration is an ordering point too.
    let mut m = null_mut();
    ok(unsafe { clEnqueueMigrateMemObjects(env.queue, 1, &mem.0, CL_MIGRATE_MEM_OBJECT_HOST, 1, &first, &mut m) });
    ok(unsafe { clWaitForEvents(1, &m) });
    assert_eq!(event_info::<cl_command_type>(m, CL_EVENT_COMMAND_TYPE), CL_COMMAND_MIGRATE_MEM_OBJECTS);
    assert_eq!(unsafe { clEnqueueMigrateMemObjects(env.queue, 1, &mem.0, 1 << 7, 0, null(), null_mut()) }, CL_INVALID_VALUE);
    assert_eq!(unsafe { clEnqueueMigrateMemObjects(env.queue, 0, null(), 0, 0, null(), null_mut()) }, CL_INVALID_VALUE);
    release(&[gate, first, b, second, m]);
    ok(unsafe { clReleaseCommandQueue(q2) });
}

#[test]
fn blocking_read_waits_for_a_user_event_set_by_another_thread() {
    let env = Env::new();
    let mem = env.buffer_from(&[8u8; 256]);
    let gate = user_event(env.context);
    let w = write_after(env.queue, &mem, 0, &[9u8; 256], &[gate]);
    let gate_handle = gate as usize;
    let setter = std::thread::spawn(move || {
        std::thread::sleep(SETTLE);
        ok(unsafe { clSetUserEventStatus(gate_handle as cl_event, CL_COMPLETE) });
    });
    let start = Instant::now();
    // In order: the read waits for the gated write, hence for the other thread.
    assert_eq!(env.read(&mem, 0, 256), [9u8; 256]);
    assert!(start.elapsed() >= SETTLE / 2, "returned before the user event was set");
    setter.join().unwrap();
    release(&[gate, w]);
}

#[test]
fn out_of_order_queue_follows_explicit_dependencies_only() {
    let env = Env::with_queue_properties(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    let (src, dst, other) = (env.buffer(CL_MEM_READ_WRITE, 256), env.buffer(CL_MEM_READ_WRITE, 256), env.buffer(CL_MEM_READ_WRITE, 256));
    let data = pattern(256, 50);
    let gate = user_event(env.context);
    let a = write_after(env.queue, &src, 0, &data, &[gate]);
    let mut b = null_mut();
    ok(unsafe { clEnqueueCopyBuffer(env.queue, src.0, dst.0, 0, 0, 256, 1, &a, &mut b) });
    let c = write_after(env.queue, &other, 0, &[4u8; 256], &[]);
    ok(unsafe { clWaitForEvents(1, &c) });
    assert!(event_status(a) > CL_COMPLETE && event_status(b) > CL_COMPLETE, "held behind the user event");
    ok(unsafe { clSetUserEventStatus(gate, CL_COMPLETE) });
    ok(unsafe { clWaitForEvents(1, &b) });
    assert_eq!(env.read(&dst, 0, 256), data, "the copy ran after the write it waits for");
    assert_eq!(env.read(&other, 0, 256), [4u8; 256]);
    release(&[gate, a, b, c]);
}

/// An out-of-order queue records commands that wait for nothing of its open batch without a
/// barrier between them, and orders the rest after what they wait for: a chain of kernels and
/// a copy through wait lists, a marker and a barrier, all in one batch, each reading what the
/// one before wrote. (Under the validation layer's synchronization checks,
/// `VK_LAYER_ENABLES=VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT`, a barrier
/// missing around the copy is a hazard error.)
#[test]
fn out_of_order_kernels_follow_only_what_they_wait_for() {
    let env = Env::with_queue_properties(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    let p = build(env.context, env.device, "kernel void fill(global int *d, int v) { d[get_global_id(0)] = v; }
        kernel void add(global int *d, global const int *a, global const int *b) { size_t i = get_global_id(0); d[i] = a[i] + b[i]; }");
    let (fill, add) = (kernel(p, "fill"), kernel(p, "add"));
    const N: usize = 1 << 16;
    let [x, y, z, x2, w, v] = [0; 6].map(|_| env.buffer(CL_MEM_READ_WRITE, 4 * N));
    let launch = |k: cl_kernel, deps: &[cl_event]| {
        let mut e = null_mut();
        ok(unsafe { clEnqueueNDRangeKernel(env.queue, k, 1, null(), &N, null(), deps.len() as cl_uint, if deps.is_empty() { null() } else { deps.as_ptr() }, &mut e) });
        e
    };
    let fill_with = |m: &Mem, value: i32| {
        set_arg(fill, 0, &m.0);
        set_arg(fill, 1, &value);
        launch(fill, &[])
    };
    let add_into = |d: &Mem, a: &Mem, b: &Mem, deps: &[cl_event]| {
        [d, a, b].iter().enumerate().for_each(|(i, m)| set_arg(add, i as u32, &m.0));
        launch(add, deps)
    };
    let (fx, fy) = (fill_with(&x, 1), fill_with(&y, 2));
    let c1 = add_into(&z, &x, &y, &[fx, fy]);
    // Two rows, so two regions: a vkCmdCopyBuffer, not the copy kernel.
    let (half_size, origin) = (2 * N, [0usize; 3]);
    let mut c2 = null_mut();
    ok(unsafe { clEnqueueCopyBufferRect(env.queue, z.0, x2.0, origin.as_ptr(), origin.as_ptr(), [half_size, 2, 1].as_ptr(), half_size, 0, half_size, 0, 1, &c1, &mut c2) });
    let m = marker(env.queue, &[c2]);
    let c3 = add_into(&w, &x2, &y, &[m]);
    let b = barrier(env.queue, &[]);
    let c4 = add_into(&v, &w, &w, &[]);
    env.finish();
    // x = 1, y = 2, z = 3, x2 = 3, w = 5, v = 10
    for (mem, want) in [(&z, 3), (&x2, 3), (&w, 5), (&v, 10)] {
        let got: Vec<i32> = env.read(mem, 0, 4 * N).chunks(4).map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        assert!(got.iter().all(|&g| g == want), "want {want}, got {:?}", &got[..4]);
    }
    release(&[fx, fy, c1, c2, m, c3, b, c4]);
    unsafe {
        clReleaseKernel(fill);
        clReleaseKernel(add);
        clReleaseProgram(p);
    }
}

extern "C" fn set_done(_e: cl_event, _status: cl_int, flag: *mut c_void) {
    // SAFETY: the flag is a static the test passed.
    unsafe { &*(flag as *const AtomicBool) }.store(true, Ordering::SeqCst);
}

#[test]
fn an_idle_queues_first_command_starts_without_a_flush() {
    // White-box: the batch begun on an idle in-order queue is submitted at once, so its first
    // command completes though nothing flushes the queue (a callback watches it: querying the
    // status would flush); the commands enqueued behind it run once the queue is finished,
    // each in its place.
    static DONE: AtomicBool = AtomicBool::new(false);
    let env = Env::new();
    let mem = env.buffer(CL_MEM_READ_WRITE, 64 * 40);
    env.finish();
    let chunks: Vec<Vec<u8>> = (0..40).map(|i| pattern(64, i)).collect();
    let events: Vec<cl_event> = chunks.iter().enumerate().map(|(i, c)| write_after(env.queue, &mem, 64 * i, c, &[])).collect();
    ok(unsafe { clSetEventCallback(events[0], CL_COMPLETE, Some(set_done), &DONE as *const AtomicBool as *mut c_void) });
    await_callback(|| DONE.load(Ordering::SeqCst), "the first write did not run");
    env.finish();
    assert_eq!(env.read(&mem, 0, 64 * 40), chunks.concat());
    release(&events);
}

/// What `create_an_image` made, from the callback's thread.
struct Made {
    /// The `cl_mem`, as an address: a raw pointer cannot sit in a static.
    image: usize,
    err: cl_int,
}

static MADE: Mutex<Option<Made>> = Mutex::new(None);
const TEXELS: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        t[i] = (i * 37 % 251) as u8;
        i += 1;
    }
    t
};

extern "C" fn create_an_image(_event: cl_event, _status: cl_int, context: *mut c_void) {
    let format = cl_image_format { image_channel_order: CL_RGBA, image_channel_data_type: CL_UNSIGNED_INT8 };
    let desc = image2d_desc(4, 4);
    let mut err = 0;
    let flags = CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR;
    let image = unsafe { clCreateImage(context as cl_context, flags, &format, &desc, TEXELS.as_ptr() as *mut c_void, &mut err) };
    *MADE.lock().unwrap() = Some(Made { image: image as usize, err });
}

#[test]
fn a_callback_may_create_memory_objects() {
    // Creating an image runs a command of its own and waits for it; from a callback, which runs
    // where batches are completed, that wait must not need the callback to return.
    let env = Env::new();
    let gate = user_event(env.context);
    let e = marker(env.queue, &[gate]);
    ok(unsafe { clSetEventCallback(e, CL_COMPLETE, Some(create_an_image), env.context as *mut c_void) });
    ok(unsafe { clSetUserEventStatus(gate, CL_COMPLETE) });
    ok(unsafe { clFlush(env.queue) });
    // Not waited for: on this thread, the wait would complete the marker and call back here.
    await_callback(|| MADE.lock().unwrap().is_some(), "the callback never returned");
    let Some(Made { image, err }) = MADE.lock().unwrap().take() else { unreachable!() };
    ok(err);
    let image = image as cl_mem;
    let mut got = [0u8; 64];
    let (origin, region) = ([0usize; 3], [4usize, 4, 1]);
    ok(unsafe { clEnqueueReadImage(env.queue, image, CL_TRUE, origin.as_ptr(), region.as_ptr(), 0, 0, got.as_mut_ptr().cast(), 0, null(), null_mut()) });
    assert_eq!(got, TEXELS);
    ok(unsafe { clReleaseMemObject(image) });
    release(&[gate, e]);
}

extern "C" fn flush_the_queue(_mem: cl_mem, queue: *mut c_void) {
    ok(unsafe { clFlush(queue as cl_command_queue) });
    FLUSHED.store(true, Ordering::SeqCst);
}

static FLUSHED: AtomicBool = AtomicBool::new(false);

#[test]
fn a_failed_command_releases_its_buffer_where_callbacks_may_call_back() {
    // The application released the buffer after enqueueing a write to it: the write held the
    // last reference, and when it fails (its user event failed) the buffer's destructor
    // callback runs, and may call OpenCL on the same queue.
    let env = Env::new();
    let mem = env.buffer_from(&[7u8; 32]);
    ok(unsafe { clSetMemObjectDestructorCallback(mem.0, Some(flush_the_queue), env.queue as *mut c_void) });
    let gate = user_event(env.context);
    let w = write_after(env.queue, &mem, 0, &[1u8; 32], &[gate]);
    drop(mem);
    ok(unsafe { clSetUserEventStatus(gate, -1) });
    assert_eq!(unsafe { clWaitForEvents(1, &w) }, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    await_callback(|| FLUSHED.load(Ordering::SeqCst), "the destructor callback never ran");
    release(&[gate, w]);
}

/// A chain of writes, each enqueued by the callback of the one before.
struct Chain {
    queue: cl_command_queue,
    buffer: cl_mem,
    next: AtomicUsize,
}

const CHAIN: usize = 12;

extern "C" fn enqueue_the_next(_event: cl_event, status: cl_int, chain: *mut c_void) {
    // SAFETY: the test's chain outlives every callback (it waits for the last).
    let chain = unsafe { &*(chain as *const Chain) };
    let i = chain.next.fetch_add(1, Ordering::SeqCst);
    if status != CL_COMPLETE || i >= CHAIN {
        return;
    }
    let value = [i as u8 + 1; 4];
    let mut e = null_mut();
    ok(unsafe { clEnqueueWriteBuffer(chain.queue, chain.buffer, CL_FALSE, 4 * i, 4, value.as_ptr().cast(), 0, null(), &mut e) });
    ok(unsafe { clSetEventCallback(e, CL_COMPLETE, Some(enqueue_the_next), chain as *const Chain as *mut c_void) });
    ok(unsafe { clFlush(chain.queue) });
    ok(unsafe { clReleaseEvent(e) });
}

#[test]
fn callbacks_may_enqueue_commands_and_flush() {
    // Each write's callback enqueues the next write on the same queue: the callbacks run where
    // batches are completed, and must be able to record and submit there.
    let env = Env::new();
    let mem = env.buffer_from(&[0u8; 4 * CHAIN]);
    let chain = Chain { queue: env.queue, buffer: mem.0, next: AtomicUsize::new(0) };
    let first = marker(env.queue, &[]);
    ok(unsafe { clSetEventCallback(first, CL_COMPLETE, Some(enqueue_the_next), &chain as *const Chain as *mut c_void) });
    ok(unsafe { clFlush(env.queue) });
    await_callback(|| chain.next.load(Ordering::SeqCst) > CHAIN, "the chain stopped");
    env.finish();
    let want: Vec<u8> = (0..CHAIN).flat_map(|i| [i as u8 + 1; 4]).collect();
    assert_eq!(env.read(&mem, 0, 4 * CHAIN), want);
    release(&[first]);
}
