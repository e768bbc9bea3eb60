//! Runtime overheads: kernel launch latency (wall clock and profiled), enqueue throughput,
//! independent kernels on an out-of-order queue, and program build time.

use super::suite::{expect_each, median_seconds, wall_seconds, Ctx, Outcome};
use crate::cl;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

const EMPTY: &str = "kernel void empty(void) {\n}\n";

fn empty_kernel(env: &cl::Env) -> cl::Result<(cl::Program, cl::Kernel)> {
    let program = env.program(EMPTY, "")?;
    let kernel = program.kernel("empty")?;
    Ok((program, kernel))
}

/// One empty kernel enqueued and waited for with `clFinish`: median wall time, in µs.
pub fn latency(c: &Ctx) -> Outcome {
    let (_program, kernel) = empty_kernel(c.env)?;
    let secs = median_seconds(c.sizes.latency_runs, || {
        wall_seconds(|| {
            c.env.launch(&kernel, &[1], None)?;
            c.env.finish()
        })
    })?;
    Ok(secs * 1e6)
}

/// A small kernel with a result to check: one work-group of `SMALL_ITEMS` each writing a word.
const SMALL: &str = "kernel void small(global uint *out) {\n    size_t i = get_global_id(0);\n    out[i] = 3 * i + 1;\n}\n";
const SMALL_ITEMS: usize = 256;

/// What the profiled latency rows report, from a command's profiling timestamps.
#[derive(Clone, Copy)]
pub enum Span {
    /// `CL_PROFILING_COMMAND_END − CL_PROFILING_COMMAND_QUEUED`: enqueue to completion.
    QueuedToEnd,
    /// `CL_PROFILING_COMMAND_START − CL_PROFILING_COMMAND_QUEUED`: the delay before it runs.
    QueuedToStart,
}

/// The small kernel enqueued with an event, then `clFinish`: median of `span`, in µs. Every
/// command's timestamps must be in order (QUEUED ≤ SUBMIT ≤ START ≤ END).
pub fn profiled_latency(c: &Ctx, span: Span) -> Outcome {
    let env = c.env;
    let program = env.program(SMALL, "")?;
    let kernel = program.kernel("small")?;
    let out = env.buffer(SMALL_ITEMS * 4)?;
    kernel.mem(0, &out)?;
    let secs = median_seconds(c.sizes.latency_runs, || {
        let event = env.run(&kernel, &[SMALL_ITEMS], None)?;
        env.finish()?;
        let t = event.times()?;
        if !(t.queued <= t.submit && t.submit <= t.start && t.start <= t.end) {
            return Err(format!("profiling timestamps out of order: {t:?}"));
        }
        let ns = match span {
            Span::QueuedToEnd => t.end - t.queued,
            Span::QueuedToStart => t.start - t.queued,
        };
        Ok(ns as f64 * 1e-9)
    })?;
    let mut got = vec![0u32; SMALL_ITEMS];
    env.read(&out, &mut got)?;
    expect_each(&got, |i| 3 * i as u32 + 1)?;
    Ok(secs * 1e6)
}

/// `sizes.enqueues` empty kernels enqueued back to back, then one `clFinish`: enqueues per second.
pub fn throughput(c: &Ctx) -> Outcome {
    let (_program, kernel) = empty_kernel(c.env)?;
    let n = c.sizes.enqueues;
    let secs = median_seconds(c.sizes.repeats, || {
        wall_seconds(|| {
            (0..n).try_for_each(|_| c.env.launch(&kernel, &[1], None))?;
            c.env.finish()
        })
    })?;
    Ok(n as f64 / secs)
}

/// One work-group of 64 work-items stepping a linear congruential generator `n` times.
const SPIN: &str = "kernel void spin(global uint *out, uint n) {\n    uint x = get_global_id(0);\n    for (uint i = 0; i < n; i++)\n        x = x * 1664525u + 1013904223u;\n    out[get_global_id(0)] = x;\n}\n";
const SPIN_ITEMS: usize = 64;

/// `sizes.independent.0` kernels of one work-group each, none waiting for another, enqueued on
/// an out-of-order queue and then finished: wall time per kernel, in µs. A device that runs
/// them side by side (one multiprocessor each) takes about one kernel's time for all.
pub fn out_of_order(c: &Ctx) -> Outcome {
    let (kernels, steps) = c.sizes.independent;
    let queue = c.env.queue(cl_sys::CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)?;
    let program = c.env.program(SPIN, "")?;
    let kernel = program.kernel("spin")?;
    let outs = (0..kernels).map(|_| c.env.buffer(SPIN_ITEMS * 4)).collect::<cl::Result<Vec<_>>>()?;
    kernel.arg(1, steps)?;
    let secs = median_seconds(c.sizes.repeats, || {
        wall_seconds(|| {
            for out in &outs {
                kernel.mem(0, out)?;
                queue.launch(&kernel, &[SPIN_ITEMS], Some(&[SPIN_ITEMS]))?;
            }
            queue.finish()
        })
    })?;
    for out in &outs {
        let mut got = vec![0u32; SPIN_ITEMS];
        c.env.read(out, &mut got)?;
        expect_each(&got, |i| spun(i, steps))?;
    }
    Ok(secs * 1e6 / kernels as f64)
}

/// What work-item `i` of the spin kernel writes after `steps` steps.
fn spun(i: usize, steps: u32) -> u32 {
    (0..steps).fold(i as u32, |x, _| x.wrapping_mul(1664525).wrapping_add(1013904223))
}

/// The spin kernel over `sizes.busy.0` work-items of `sizes.busy.1` steps (tens of µs on a large
/// GPU), launched with an event, waited for with `clWaitForEvents`, then `clFinish`, as CLBlast's
/// tuners time each launch: the median of the wall time less the kernel's own END − START, in
/// µs. What a launch costs an application that waits for each one.
pub fn launch_beyond_kernel(c: &Ctx) -> Outcome {
    let env = c.env;
    let (items, steps) = c.sizes.busy;
    let program = env.program(SPIN, "")?;
    let kernel = program.kernel("spin")?;
    let out = env.buffer(items * 4)?;
    kernel.mem(0, &out)?.arg(1, steps)?;
    let secs = median_seconds(c.sizes.latency_runs, || {
        let start = Instant::now();
        let event = env.run(&kernel, &[items], None)?;
        event.wait()?;
        env.finish()?;
        let wall = start.elapsed().as_secs_f64();
        Ok(wall - event.duration_ns()? as f64 * 1e-9)
    })?;
    let mut got = vec![0u32; items];
    env.read(&out, &mut got)?;
    expect_each(&got, |i| spun(i, steps))?;
    Ok(secs * 1e6)
}

/// Blocks in the generated program: a helper function and a kernel each, 19 lines.
const BLOCKS: usize = 16;
const ITEMS: usize = 256;
const LOOP: i32 = 4;

/// A ~300-line program; `tag` goes into its first comment, so a new tag is new source text, and
/// `term` ends each kernel's sum (empty, or a constant added: new code as well).
fn generated(tag: &str, term: &str) -> String {
    let mut source = format!("// generated program {tag}\n");
    for i in 0..BLOCKS {
        let j = i % 5;
        source += &format!(
            r#"
/* block {i}: a helper with a loop and a branch, and a kernel using vectors */
float scale_{i}(float x, int n) {{
    float acc = 0.0f;
    for (int k = 0; k < n; k++) {{
        if (k % 2 == 0)
            acc += x * {i}.0f;
        else
            acc -= {j}.0f;
    }}
    return acc;
}}

kernel void run_{i}(global float *data, int n) {{
    size_t g = get_global_id(0);
    float4 v = (float4)(data[g], 1.0f, 2.0f, 3.0f);
    float3 w = v.yzw * {i}.0f;
    data[g] = scale_{i}(v.x, n) + w.x + w.y + w.z{term};
}}
"#
        );
    }
    source
}

/// A tag no earlier build used, so no cache can hold the program.
fn fresh_tag() -> u64 {
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    nanos.wrapping_add(COUNT.fetch_add(1, Ordering::Relaxed))
}

/// What kernel `run_i` of the generated program leaves in an element holding `x` (`LOOP`
/// turns): scale_i(x, 4) = 2·i·x − 2·(i mod 5), and the vector part adds (1 + 2 + 3)·i.
fn generated_result(i: usize, x: f32) -> f32 {
    let k = i as f32;
    2.0 * k * x - 2.0 * (i % 5) as f32 + 6.0 * k
}

/// Wall time of `clCreateProgramWithSource` + `clBuildProgram` of the generated program, in ms:
/// new source text every time (`cached` false) or the same text again (`cached` true). The last
/// program built runs its last kernel as the check.
pub fn build(c: &Ctx, cached: bool) -> Outcome {
    let env = c.env;
    let same = generated("cached", "");
    let mut last = None;
    let secs = median_seconds(c.sizes.repeats, || {
        let source = if cached { same.clone() } else { generated(&fresh_tag().to_string(), "") };
        let start = Instant::now();
        let program = env.program(&source, "")?;
        let secs = start.elapsed().as_secs_f64();
        last = Some(program);
        Ok(secs)
    })?;
    let program = last.ok_or_else(|| "no program built".to_string())?;
    let i = BLOCKS - 1;
    let kernel = program.kernel(&format!("run_{i}"))?;
    let data: Vec<f32> = (0..ITEMS).map(|g| g as f32).collect();
    let buffer = env.buffer(ITEMS * 4)?;
    env.write(&buffer, &data)?;
    kernel.mem(0, &buffer)?.arg(1, LOOP)?;
    env.run(&kernel, &[ITEMS], None)?.wait()?;
    let mut got = vec![0f32; ITEMS];
    env.read(&buffer, &mut got)?;
    expect_each(&got, |g| generated_result(i, data[g]))?;
    Ok(secs * 1e3)
}

/// Wall time from new source text to the first result of each of its kernels, in ms: the
/// build, then every kernel created and run once, to `clFinish`. A driver that makes machine
/// code at the first launch (ferrocl creates its pipelines then) pays for it here, not in
/// `build`. Each kernel also adds a constant from the tag, so that the code is new too and no
/// cache of machine code (a Vulkan driver's own included) can serve it.
pub fn build_and_run(c: &Ctx) -> Outcome {
    let env = c.env;
    let data: Vec<f32> = (0..ITEMS).map(|g| g as f32).collect();
    let buffers = (0..BLOCKS).map(|_| env.buffer(ITEMS * 4)).collect::<cl::Result<Vec<_>>>()?;
    let mut added = 0.0;
    let secs = median_seconds(c.sizes.repeats, || {
        for buffer in &buffers {
            env.write(buffer, &data)?;
        }
        let tag = fresh_tag();
        // Below 2^20, so that every sum stays an integer a float holds exactly.
        added = (tag % (1 << 20)) as f32;
        let source = generated(&tag.to_string(), &format!(" + {added:.1}f"));
        let start = Instant::now();
        let program = env.program(&source, "")?;
        for (i, buffer) in buffers.iter().enumerate() {
            let kernel = program.kernel(&format!("run_{i}"))?;
            kernel.mem(0, buffer)?.arg(1, LOOP)?;
            env.launch(&kernel, &[ITEMS], None)?;
        }
        env.finish()?;
        Ok(start.elapsed().as_secs_f64())
    })?;
    for (i, buffer) in buffers.iter().enumerate() {
        let mut got = vec![0f32; ITEMS];
        env.read(buffer, &mut got)?;
        expect_each(&got, |g| generated_result(i, data[g]) + added)?;
    }
    Ok(secs * 1e3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_program_is_about_300_lines_with_every_kernel() {
        let source = generated("t", "");
        assert_eq!(source.lines().count(), 1 + BLOCKS * 19);
        assert_eq!(source.matches("kernel void run_").count(), BLOCKS);
        assert_ne!(fresh_tag(), fresh_tag());
        assert_eq!(generated("t", " + 5.0f").matches("w.z + 5.0f;").count(), BLOCKS);
    }
}
