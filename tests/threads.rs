//! Eight host threads using the driver at once: each creates buffers and enqueues writes,
//! copies, fills and reads, on a queue shared by all and on a queue of its own.
mod common;

use common::*;
use std::ptr::{null, null_mut};
use std::sync::Barrier;

const THREADS: usize = 8;
const ROUNDS: usize = 12;
const SIZE: usize = 16 << 10;

/// Handles are plain pointers; OpenCL objects may be used from any thread.
#[derive(Clone, Copy)]
struct Shared(cl_context, cl_command_queue);
unsafe impl Send for Shared {}
unsafe impl Sync for Shared {}

impl Shared {
    /// By method, so that closures capture the whole `Send` wrapper, not its fields.
    fn get(self) -> (cl_context, cl_command_queue) {
        (self.0, self.1)
    }
}

fn worker(shared: Shared, device: cl_device_id, id: usize, start: &Barrier) {
    let (context, shared_queue) = shared.get();
    let own = queue(context, device, if id.is_multiple_of(2) { 0 } else { CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE });
    start.wait();
    for round in 0..ROUNDS {
        let seed = (id * 100 + round) as u32;
        let data = pattern(SIZE, seed);
        let a = Mem(create_buffer(context, CL_MEM_READ_WRITE, SIZE, null_mut()));
        let b = Mem(create_buffer(context, CL_MEM_READ_WRITE, SIZE, null_mut()));
        // Alternate which queue does the work; the other one reads the result back.
        let (work, check) = if round % 2 == 0 { (shared_queue, own) } else { (own, shared_queue) };
        let mut expected = data.clone();
        let fill = [id as u8, round as u8];
        let mut events = [null_mut(); 3];
        unsafe {
            ok(clEnqueueWriteBuffer(work, a.0, CL_FALSE, 0, SIZE, data.as_ptr().cast(), 0, null(), &mut events[0]));
            ok(clEnqueueCopyBuffer(work, a.0, b.0, 0, 0, SIZE, 1, &events[0], &mut events[1]));
            ok(clEnqueueFillBuffer(work, b.0, fill.as_ptr().cast(), 2, 2 * id, 1024, 1, &events[1], &mut events[2]));
            ok(clFlush(work));
        }
        for chunk in expected[2 * id..2 * id + 1024].chunks_mut(2) {
            chunk.copy_from_slice(&fill);
        }
        let mut out = vec![0u8; SIZE];
        unsafe {
            ok(clEnqueueReadBuffer(check, b.0, CL_TRUE, 0, SIZE, out.as_mut_ptr().cast(), 1, &events[2], null_mut()));
            events.iter().for_each(|&e| ok(clReleaseEvent(e)));
        }
        assert!(out == expected, "thread {id} round {round}");
        assert_eq!(read_on(check, a.0, 0, SIZE), data, "thread {id} round {round}: source");
    }
    ok(unsafe { clFinish(own) });
    ok(unsafe { clReleaseCommandQueue(own) });
}

#[test]
fn eight_threads_share_a_context_and_a_queue() {
    let env = Env::with_queue_properties(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    let shared = Shared(env.context, env.queue);
    let start = Barrier::new(THREADS);
    std::thread::scope(|s| {
        for id in 0..THREADS {
            let (start, device) = (&start, env.device as usize);
            s.spawn(move || worker(shared, device as cl_device_id, id, start));
        }
    });
    env.finish();
}

#[test]
fn threads_set_user_events_that_gate_other_threads_commands() {
    let env = Env::new();
    let mem = env.buffer(CL_MEM_READ_WRITE, 4 * THREADS);
    let gates: Vec<usize> = (0..THREADS)
        .map(|_| user_event(env.context) as usize)
        .collect();
    let queue = env.queue as usize;
    let mem_handle = mem.0 as usize;
    let values: Vec<[u8; 4]> = (0..THREADS).map(|i| [i as u8 + 1; 4]).collect();
    std::thread::scope(|s| {
        // Each thread enqueues a write gated by the next thread's user event, then sets its own.
        for id in 0..THREADS {
            let (gates, values) = (&gates, &values);
            s.spawn(move || {
                let gate = gates[(id + 1) % THREADS] as cl_event;
                let mut e = null_mut();
                unsafe {
                    ok(clEnqueueWriteBuffer(queue as cl_command_queue, mem_handle as cl_mem, CL_FALSE, 4 * id, 4, values[id].as_ptr().cast(), 1, &gate, &mut e));
                    ok(clSetUserEventStatus(gates[id] as cl_event, CL_COMPLETE));
                    ok(clWaitForEvents(1, &e));
                    ok(clReleaseEvent(e));
                }
            });
        }
    });
    let expected: Vec<u8> = values.concat();
    assert_eq!(env.read(&mem, 0, 4 * THREADS), expected);
    gates.iter().for_each(|&g| ok(unsafe { clReleaseEvent(g as cl_event) }));
}

#[test]
fn threads_build_and_run_kernels_concurrently() {
    const SOURCE: &str = "kernel void fill(global int* out, int v) { out[get_global_id(0)] = v * (int)get_global_id(0); }\n";
    let env = Env::with_queue_properties(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    let shared = Shared(env.context, env.queue);
    let device = env.device as usize;
    std::thread::scope(|s| {
        for id in 0..THREADS {
            s.spawn(move || {
                let (context, queue) = shared.get();
                // Every thread builds the same source: the driver's caches are shared.
                let program = build(context, device as cl_device_id, SOURCE);
                let k = kernel(program, "fill");
                let n = 1024;
                for round in 0..4 {
                    let out = Mem(create_buffer(context, CL_MEM_READ_WRITE, n * 4, null_mut()));
                    let v = (id * 10 + round) as i32;
                    set_arg(k, 0, &out.0);
                    set_arg(k, 1, &v);
                    let global = [n];
                    ok(unsafe { clEnqueueNDRangeKernel(queue, k, 1, null(), global.as_ptr(), null(), 0, null(), null_mut()) });
                    let mut bytes = vec![0u8; n * 4];
                    let mut e = null_mut();
                    ok(unsafe { clEnqueueMarkerWithWaitList(queue, 0, null(), &mut e) });
                    ok(unsafe { clEnqueueReadBuffer(queue, out.0, CL_TRUE, 0, n * 4, bytes.as_mut_ptr().cast(), 1, &e, null_mut()) });
                    ok(unsafe { clReleaseEvent(e) });
                    let got: Vec<i32> = bytes.chunks(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect();
                    assert!(got.iter().enumerate().all(|(i, &x)| x == v * i as i32), "thread {id} round {round}");
                }
                ok(unsafe { clReleaseKernel(k) });
                ok(unsafe { clReleaseProgram(program) });
            });
        }
    });
}

/// CTS `test_vectors vec_align_packed_struct` as it runs: many threads on one in-order queue,
/// each job with a buffer of its own into which it writes a sentinel, then for every variant
/// builds a program of its own, runs it and reads the buffer back blocking. Every read must
/// show this job's variant: on the H200 about one launch in 3000 read another job's value
/// (2026-11-26, not yet explained; see docs/design.md, "Known problems").
#[test]
fn threads_run_programs_of_their_own_on_one_queue() {
    const JOBS: usize = 48;
    const VARIANTS: usize = 4;
    const ITEMS: usize = 32;
    let env = Env::new();
    let shared = Shared(env.context, env.queue);
    let device = env.device as usize;
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..16 {
            s.spawn(|| {
                let (context, queue) = shared.get();
                let device = device as cl_device_id;
                loop {
                    let job = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if job >= JOBS {
                        return;
                    }
                    let out = Mem(create_buffer(context, CL_MEM_READ_WRITE, 4 * ITEMS, null_mut()));
                    for variant in 0..VARIANTS {
                        // The offset of `x` in a packed struct: a constant the compiler folds.
                        let want = (job * VARIANTS + variant + 1) as u32;
                        let source = format!(
                            "typedef struct __attribute__((packed)) {{ char pre[{want}]; int x; }} S;\n\
                             kernel void k(global uint *d) {{ S t; d[get_global_id(0)] = (uint)((uchar *)&t.x - (uchar *)&t); }}\n"
                        );
                        let program = build(context, device, &source);
                        let k = kernel(program, "k");
                        set_arg(k, 0, &out.0);
                        let sentinel = [0xdead_0000u32 + job as u32; ITEMS];
                        let global = [ITEMS];
                        let mut got = vec![0u32; ITEMS];
                        unsafe {
                            ok(clEnqueueWriteBuffer(queue, out.0, CL_TRUE, 0, 4 * ITEMS, sentinel.as_ptr().cast(), 0, null(), null_mut()));
                            ok(clEnqueueNDRangeKernel(queue, k, 1, null(), global.as_ptr(), null(), 0, null(), null_mut()));
                            ok(clEnqueueReadBuffer(queue, out.0, CL_TRUE, 0, 4 * ITEMS, got.as_mut_ptr().cast(), 0, null(), null_mut()));
                            ok(clReleaseKernel(k));
                            ok(clReleaseProgram(program));
                        }
                        assert!(got.iter().all(|&x| x == want), "job {job} variant {variant}: {got:?}");
                    }
                }
            });
        }
    });
}
