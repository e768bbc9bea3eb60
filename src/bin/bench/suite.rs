//! The table of benchmarks, the outcome of one row on one platform, the sizes, and the
//! measuring and checking helpers every row uses.

use super::memory::{Stream, Timing, Transfer};
use super::overhead::Span;
use super::{compute, fft, image, memory, overhead, reduce, sgemm};
use crate::cl;
use crate::cl::Placement;
use std::fmt::Debug;
use std::time::Instant;

/// How much work each row does.
pub struct Sizes {
    /// Bytes read plus written by one run of a bandwidth kernel.
    pub traffic: usize,
    /// Work-items of a compute-peak kernel and loop turns each runs.
    pub peak_items: usize,
    pub peak_turns: i32,
    /// M = N = K of SGEMM.
    pub sgemm: usize,
    /// Elements summed by the reduction and binned by the histogram.
    pub elements: usize,
    /// 1024-point transforms of the FFT row.
    pub fft_batches: usize,
    /// Enqueues of the throughput row; runs of the latency row.
    pub enqueues: usize,
    pub latency_runs: usize,
    /// Kernels of the out-of-order row, and the steps each work-item of theirs takes.
    pub independent: (usize, u32),
    /// Work-items of the launch-beyond-the-kernel row's kernel, and the steps each takes.
    pub busy: (usize, u32),
    /// Bytes of each host transfer, fill and copy.
    pub transfer: usize,
    /// Measured runs after the warm-up run; each figure is their median.
    pub repeats: usize,
}

const MIB: usize = 1 << 20;

impl Sizes {
    /// Sized for a large GPU: each run long enough to time well.
    pub const FULL: Sizes = Sizes {
        traffic: 1024 * MIB,
        peak_items: 1 << 20,
        peak_turns: 2048,
        sgemm: 4096,
        elements: 1 << 26,
        fft_batches: 1 << 15,
        enqueues: 10_000,
        latency_runs: 1000,
        independent: (32, 200_000),
        busy: (1 << 18, 1000),
        transfer: 256 * MIB,
        repeats: 5,
    };

    /// Small enough for a software device in CI.
    pub const QUICK: Sizes = Sizes {
        traffic: 16 * MIB,
        peak_items: 1 << 12,
        peak_turns: 64,
        sgemm: 256,
        elements: 1 << 20,
        fft_batches: 1 << 7,
        enqueues: 100,
        latency_runs: 100,
        independent: (8, 1000),
        busy: (1 << 10, 64),
        transfer: 16 * MIB,
        repeats: 3,
    };
}

/// What a row runs on: one device's context and queue (with profiling), and the sizes.
pub struct Ctx<'a> {
    pub env: &'a cl::Env,
    pub sizes: &'a Sizes,
}

/// Why a row has no figure.
#[derive(Debug)]
pub enum Failure {
    /// The device lacks what the row needs (e.g. `cl_khr_fp64`).
    NotApplicable,
    /// A wrong result, a failed build (with its log) or a failed call.
    Failed(String),
}

impl From<String> for Failure {
    fn from(message: String) -> Self {
        Failure::Failed(message)
    }
}

/// The figure of one row on one platform, in the row's unit.
pub type Outcome = Result<f64, Failure>;

#[derive(Clone, Copy)]
pub enum Unit {
    GBps,
    Gflops,
    Giops,
    Micros,
    PerSecond,
    Millis,
    Gpixels,
}

impl Unit {
    pub fn label(self) -> &'static str {
        match self {
            Unit::GBps => "GB/s",
            Unit::Gflops => "GFLOP/s",
            Unit::Giops => "GIOP/s",
            Unit::Micros => "µs",
            Unit::PerSecond => "1/s",
            Unit::Millis => "ms",
            Unit::Gpixels => "Gpixel/s",
        }
    }

    pub fn higher_is_better(self) -> bool {
        !matches!(self, Unit::Micros | Unit::Millis)
    }
}

/// One row of the table.
pub struct Bench {
    pub name: &'static str,
    pub unit: Unit,
    pub run: fn(&Ctx) -> Outcome,
}

pub const BENCHES: &[Bench] = &[
    Bench { name: "copy float", unit: Unit::GBps, run: |c| memory::stream(c, Stream::Copy, 1) },
    Bench { name: "copy float4", unit: Unit::GBps, run: |c| memory::stream(c, Stream::Copy, 4) },
    Bench { name: "triad float", unit: Unit::GBps, run: |c| memory::stream(c, Stream::Triad, 1) },
    Bench { name: "triad float4", unit: Unit::GBps, run: |c| memory::stream(c, Stream::Triad, 4) },
    Bench { name: "read float", unit: Unit::GBps, run: |c| memory::read(c, 1, Timing::Event) },
    Bench { name: "read float2", unit: Unit::GBps, run: |c| memory::read(c, 2, Timing::Event) },
    Bench { name: "read float4", unit: Unit::GBps, run: |c| memory::read(c, 4, Timing::Event) },
    Bench { name: "read float8", unit: Unit::GBps, run: |c| memory::read(c, 8, Timing::Event) },
    Bench { name: "read float16", unit: Unit::GBps, run: |c| memory::read(c, 16, Timing::Event) },
    Bench { name: "read float, 16 back to back (host clock)", unit: Unit::GBps, run: |c| memory::read(c, 1, Timing::BackToBack) },
    Bench { name: "peak fp32 float", unit: Unit::Gflops, run: |c| compute::peak::<f32>(c, 1) },
    Bench { name: "peak fp32 float2", unit: Unit::Gflops, run: |c| compute::peak::<f32>(c, 2) },
    Bench { name: "peak fp32 float4", unit: Unit::Gflops, run: |c| compute::peak::<f32>(c, 4) },
    Bench { name: "peak fp32 float8", unit: Unit::Gflops, run: |c| compute::peak::<f32>(c, 8) },
    Bench { name: "peak fp32 float16", unit: Unit::Gflops, run: |c| compute::peak::<f32>(c, 16) },
    Bench { name: "peak int32 int", unit: Unit::Giops, run: |c| compute::peak::<i32>(c, 1) },
    Bench { name: "peak int32 int2", unit: Unit::Giops, run: |c| compute::peak::<i32>(c, 2) },
    Bench { name: "peak int32 int4", unit: Unit::Giops, run: |c| compute::peak::<i32>(c, 4) },
    Bench { name: "peak int32 int8", unit: Unit::Giops, run: |c| compute::peak::<i32>(c, 8) },
    Bench { name: "peak int32 int16", unit: Unit::Giops, run: |c| compute::peak::<i32>(c, 16) },
    Bench { name: "peak fp64 double", unit: Unit::Gflops, run: |c| compute::peak::<f64>(c, 1) },
    Bench { name: "peak fp64 double2", unit: Unit::Gflops, run: |c| compute::peak::<f64>(c, 2) },
    Bench { name: "peak fp64 double4", unit: Unit::Gflops, run: |c| compute::peak::<f64>(c, 4) },
    Bench { name: "peak fp64 double8", unit: Unit::Gflops, run: |c| compute::peak::<f64>(c, 8) },
    Bench { name: "peak fp64 double16", unit: Unit::Gflops, run: |c| compute::peak::<f64>(c, 16) },
    Bench { name: "sgemm (local tiles)", unit: Unit::Gflops, run: sgemm::sgemm },
    Bench { name: "fft 1024-point float2", unit: Unit::Gflops, run: fft::fft },
    Bench { name: "reduction int sum", unit: Unit::GBps, run: reduce::sum },
    Bench { name: "histogram 256 bins", unit: Unit::GBps, run: reduce::histogram },
    Bench { name: "launch latency", unit: Unit::Micros, run: overhead::latency },
    Bench { name: "launch latency, profiled (END − QUEUED)", unit: Unit::Micros, run: |c| overhead::profiled_latency(c, Span::QueuedToEnd) },
    Bench { name: "launch queueing, profiled (START − QUEUED)", unit: Unit::Micros, run: |c| overhead::profiled_latency(c, Span::QueuedToStart) },
    Bench { name: "launch beyond the kernel: event wait, then clFinish", unit: Unit::Micros, run: overhead::launch_beyond_kernel },
    Bench { name: "enqueue throughput", unit: Unit::PerSecond, run: overhead::throughput },
    Bench { name: "independent kernels, out-of-order queue", unit: Unit::Micros, run: overhead::out_of_order },
    Bench { name: "build ~300 lines, cold", unit: Unit::Millis, run: |c| overhead::build(c, false) },
    Bench { name: "build ~300 lines, cached", unit: Unit::Millis, run: |c| overhead::build(c, true) },
    Bench { name: "build ~300 lines and run each kernel once, cold", unit: Unit::Millis, run: overhead::build_and_run },
    Bench { name: "host write (blocking)", unit: Unit::GBps, run: |c| memory::transfer(c, Transfer::Write, Placement::Device) },
    Bench { name: "host read (blocking)", unit: Unit::GBps, run: |c| memory::transfer(c, Transfer::Read, Placement::Device) },
    Bench { name: "map for reading", unit: Unit::GBps, run: |c| memory::transfer(c, Transfer::Map, Placement::Device) },
    Bench { name: "host write, ALLOC_HOST_PTR (event)", unit: Unit::GBps, run: |c| memory::transfer(c, Transfer::WriteEvent, Placement::AllocHostPtr) },
    Bench { name: "host read, ALLOC_HOST_PTR (event)", unit: Unit::GBps, run: |c| memory::transfer(c, Transfer::ReadEvent, Placement::AllocHostPtr) },
    Bench { name: "map for reading, ALLOC_HOST_PTR", unit: Unit::GBps, run: |c| memory::transfer(c, Transfer::Map, Placement::AllocHostPtr) },
    Bench { name: "host write, USE_HOST_PTR (event)", unit: Unit::GBps, run: |c| memory::transfer(c, Transfer::WriteEvent, Placement::UseHostPtr) },
    Bench { name: "host read, USE_HOST_PTR (event)", unit: Unit::GBps, run: |c| memory::transfer(c, Transfer::ReadEvent, Placement::UseHostPtr) },
    Bench { name: "map for reading, USE_HOST_PTR", unit: Unit::GBps, run: |c| memory::transfer(c, Transfer::Map, Placement::UseHostPtr) },
    Bench { name: "fill buffer (clEnqueueFillBuffer)", unit: Unit::GBps, run: |c| memory::transfer(c, Transfer::Fill, Placement::Device) },
    Bench { name: "copy buffer (clEnqueueCopyBuffer)", unit: Unit::GBps, run: |c| memory::transfer(c, Transfer::Copy, Placement::Device) },
    Bench { name: "copy image 2D RGBA8 (clEnqueueCopyImage)", unit: Unit::GBps, run: image::copy },
    Bench { name: "fill image 2D RGBA float (clEnqueueFillImage)", unit: Unit::GBps, run: image::fill },
    Bench { name: "bilinear 2× resize RGBA8 (read_imagef)", unit: Unit::Gpixels, run: image::resize },
];

/// Runs `once` (which returns seconds) once to warm up and then `repeats` times; the median.
pub fn median_seconds(repeats: usize, mut once: impl FnMut() -> cl::Result<f64>) -> cl::Result<f64> {
    once()?;
    let mut times = (0..repeats.max(1)).map(|_| once()).collect::<cl::Result<Vec<f64>>>()?;
    times.sort_by(f64::total_cmp);
    Ok(times[times.len() / 2])
}

/// Device time of a profiled command, in seconds.
pub fn device_seconds(event: cl::Result<cl::Event>) -> cl::Result<f64> {
    let event = event?;
    event.wait()?;
    Ok(event.duration_ns()? as f64 * 1e-9)
}

/// Host time of `f`, in seconds.
pub fn wall_seconds(f: impl FnOnce() -> cl::Result<()>) -> cl::Result<f64> {
    let start = Instant::now();
    f()?;
    Ok(start.elapsed().as_secs_f64())
}

/// Compares `got` with `want(i)` entry by entry; the first difference is the failure.
pub fn expect_each<T: PartialEq + Debug>(got: &[T], want: impl Fn(usize) -> T) -> Result<(), Failure> {
    match got.iter().enumerate().find(|(i, g)| **g != want(*i)) {
        None => Ok(()),
        Some((i, g)) => Err(Failure::Failed(format!("wrong result at {i}: {g:?}, expected {:?}", want(i)))),
    }
}
