//! Global memory bandwidth of kernels (copy, triad, and reads summed as clpeak does) and of the
//! runtime's own transfers.

use super::suite::{device_seconds, expect_each, median_seconds, wall_seconds, Ctx, Failure, Outcome};
use crate::cl;
use crate::cl::Placement;

/// `T` is `float` or `float4`: the program is built once per type.
const STREAM: &str = r#"
kernel void copy(global const T *src, global T *dst) {
    size_t i = get_global_id(0);
    dst[i] = src[i];
}

kernel void triad(global T *a, global const T *b, global const T *c, float s) {
    size_t i = get_global_id(0);
    a[i] = b[i] + s * c[i];
}
"#;

const GROUP: usize = 256;
const SCALE: f32 = 3.0;

#[derive(Clone, Copy)]
pub enum Stream {
    /// `dst[i] = src[i]`: one array read, one written.
    Copy,
    /// `a[i] = b[i] + s * c[i]`: two arrays read, one written.
    Triad,
}

/// The inputs: small integers, so that every result is exact in `float`.
fn x(i: usize) -> f32 {
    (i % 1024) as f32
}

fn y(i: usize) -> f32 {
    (i % 7) as f32
}

/// Runs a stream kernel on `width`-wide floats; GB/s of array traffic.
pub fn stream(c: &Ctx, kind: Stream, width: usize) -> Outcome {
    let arrays = match kind {
        Stream::Copy => 2,
        Stream::Triad => 3,
    };
    let unit = GROUP * width;
    let n = c.sizes.traffic / (arrays * 4) / unit * unit;
    let ty = if width == 1 { "float".to_string() } else { format!("float{width}") };
    let env = c.env;
    let program = env.program(STREAM, &format!("-DT={ty}"))?;
    let (mx, out) = (env.buffer(n * 4)?, env.buffer(n * 4)?);
    env.write(&mx, &(0..n).map(x).collect::<Vec<_>>())?;
    // The triad's second input lives while the kernel runs.
    let (kernel, _my) = match kind {
        Stream::Copy => {
            let k = program.kernel("copy")?;
            k.mem(0, &mx)?.mem(1, &out)?;
            (k, None)
        }
        Stream::Triad => {
            let my = env.buffer(n * 4)?;
            env.write(&my, &(0..n).map(y).collect::<Vec<_>>())?;
            let k = program.kernel("triad")?;
            k.mem(0, &out)?.mem(1, &mx)?.mem(2, &my)?.arg(3, SCALE)?;
            (k, Some(my))
        }
    };
    let secs = median_seconds(c.sizes.repeats, || device_seconds(env.run(&kernel, &[n / width], Some(&[GROUP]))))?;
    let mut got = vec![0f32; n];
    env.read(&out, &mut got)?;
    expect_each(&got, |i| match kind {
        Stream::Copy => x(i),
        Stream::Triad => x(i) + SCALE * y(i),
    })?;
    Ok((arrays * n * 4) as f64 / secs * 1e-9)
}

/// Loads of one work-item in the read kernel (clpeak's `FETCH_PER_WI`).
const FETCHES: usize = 16;

/// Each work-item sums `FETCHES` elements of type `TN` (`float` … `float16`), one work-group
/// width apart so that a work-group's loads are contiguous, and writes one `float`.
const READ: &str = r#"
kernel void read(global const TN *in, global float *out) {
    size_t i = get_group_id(0) * get_local_size(0) * FETCHES + get_local_id(0);
    TN sum = 0;
    for (int f = 0; f < FETCHES; f++, i += get_local_size(0))
        sum += in[i];
    out[get_global_id(0)] = SUM(sum);
}
"#;

/// `SUM(v)` for vectors of `width` lanes: the lanes added in order.
fn lane_sum(width: usize) -> String {
    if width == 1 {
        return "(v)".into();
    }
    let lanes: Vec<String> = (0..width).map(|k| format!("(v).s{k:x}")).collect();
    format!("({})", lanes.join(" + "))
}

/// How a bandwidth row is timed.
#[derive(Clone, Copy)]
pub enum Timing {
    /// One launch, by its profiling event (END − START): the kernel alone.
    Event,
    /// `BACK_TO_BACK` launches enqueued together and then finished, by the host's clock, as
    /// clpeak times its bandwidth: the kernels and what the driver puts between them.
    BackToBack,
}

/// Launches of a back-to-back row.
const BACK_TO_BACK: usize = 16;

/// Reads `sizes.traffic` bytes as `width`-wide floats, summing them per work-item; GB/s read
/// (the one `float` written per 16 loads is not counted, as in clpeak).
pub fn read(c: &Ctx, width: usize, timing: Timing) -> Outcome {
    let unit = GROUP * FETCHES * width;
    let n = c.sizes.traffic / 4 / unit * unit;
    let items = n / width / FETCHES;
    let ty = if width == 1 { "float".to_string() } else { format!("float{width}") };
    let env = c.env;
    let defines = format!("#define TN {ty}\n#define FETCHES {FETCHES}\n#define SUM(v) {}\n", lane_sum(width));
    let program = env.program(&(defines + READ), "")?;
    let (input, out) = (env.buffer(n * 4)?, env.buffer(items * 4)?);
    env.write(&input, &(0..n).map(x).collect::<Vec<_>>())?;
    let kernel = program.kernel("read")?;
    kernel.mem(0, &input)?.mem(1, &out)?;
    let local = Some(&[GROUP][..]);
    let secs = match timing {
        Timing::Event => median_seconds(c.sizes.repeats, || device_seconds(env.run(&kernel, &[items], local)))?,
        Timing::BackToBack => {
            let launches = || (0..BACK_TO_BACK).try_for_each(|_| env.launch(&kernel, &[items], local));
            median_seconds(c.sizes.repeats, || wall_seconds(|| launches().and_then(|()| env.finish())))? / BACK_TO_BACK as f64
        }
    };
    let mut got = vec![0f32; items];
    env.read(&out, &mut got)?;
    expect_each(&got, |g| read_sum(g, width))?;
    Ok((n * 4) as f64 / secs * 1e-9)
}

/// What work-item `g` of the read kernel writes: the sum of vectors g / GROUP · GROUP · FETCHES
/// + g % GROUP + f · GROUP for f < FETCHES; sums of small integers are exact in any order.
fn read_sum(g: usize, width: usize) -> f32 {
    let first = g / GROUP * GROUP * FETCHES + g % GROUP;
    let mut sum = 0.0;
    for f in 0..FETCHES {
        let element = (first + f * GROUP) * width;
        for k in element..element + width {
            sum += x(k);
        }
    }
    sum
}

#[derive(Clone, Copy)]
pub enum Transfer {
    /// Blocking `clEnqueueWriteBuffer` from host memory.
    Write,
    /// Blocking `clEnqueueReadBuffer` into host memory.
    Read,
    /// Non-blocking `clEnqueueWriteBuffer`, timed by its event (END − START), as clpeak does.
    WriteEvent,
    /// Non-blocking `clEnqueueReadBuffer`, timed by its event.
    ReadEvent,
    /// Blocking `clEnqueueMapBuffer` for reading (until the pointer is returned).
    Map,
    /// `clEnqueueFillBuffer` with a 4-byte pattern (bytes written).
    Fill,
    /// `clEnqueueCopyBuffer` (bytes read plus bytes written).
    Copy,
}

const FILL: u32 = 0x5eed_f00d;

/// Times one kind of transfer of `sizes.transfer` bytes to or from a buffer placed as
/// `placement` says, and checks what arrived; GB/s.
pub fn transfer(c: &Ctx, kind: Transfer, placement: Placement) -> Outcome {
    let (env, repeats) = (c.env, c.sizes.repeats);
    let n = c.sizes.transfer / 4;
    let data: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
    let backed = env.buffer_in(placement, n * 4)?;
    let buffer = &backed.mem;
    let mut host = vec![0u32; n];
    let (secs, moved) = match kind {
        Transfer::Write => (median_seconds(repeats, || wall_seconds(|| env.write(buffer, &data)))?, 1),
        Transfer::Read => {
            env.write(buffer, &data)?;
            (median_seconds(repeats, || wall_seconds(|| env.read(buffer, &mut host)))?, 1)
        }
        Transfer::WriteEvent => (median_seconds(repeats, || device_seconds(env.write_nonblocking(buffer, &data)))?, 1),
        Transfer::ReadEvent => {
            env.write(buffer, &data)?;
            (median_seconds(repeats, || device_seconds(env.read_nonblocking(buffer, &mut host)))?, 1)
        }
        Transfer::Map => {
            env.write(buffer, &data)?;
            let secs = median_seconds(repeats, || timed_map(env, buffer))?;
            let mapping = env.map_read(buffer)?;
            // OpenCL maps a CL_MEM_USE_HOST_PTR buffer at the application's own memory.
            if backed.host_ptr().is_some_and(|p| p != mapping.bytes().as_ptr()) {
                return Err(Failure::Failed("the map of a CL_MEM_USE_HOST_PTR buffer is not at its host pointer".into()));
            }
            copy_words(&mapping, &mut host);
            (secs, 1)
        }
        Transfer::Fill => (median_seconds(repeats, || device_seconds(env.fill(buffer, FILL)))?, 1),
        Transfer::Copy => {
            let source = env.buffer(n * 4)?;
            env.write(&source, &data)?;
            (median_seconds(repeats, || device_seconds(env.copy(&source, buffer)))?, 2)
        }
    };
    if !matches!(kind, Transfer::Read | Transfer::ReadEvent | Transfer::Map) {
        env.read(buffer, &mut host)?;
    }
    match kind {
        Transfer::Fill => expect_each(&host, |_| FILL)?,
        _ => expect_each(&host, |i| data[i])?,
    }
    Ok((moved * n * 4) as f64 / secs * 1e-9)
}

/// Seconds until a blocking map returns (the unmap, when the mapping drops, is not timed).
fn timed_map(env: &cl::Env, buffer: &cl::Mem) -> cl::Result<f64> {
    let start = std::time::Instant::now();
    let _mapping = env.map_read(buffer)?;
    Ok(start.elapsed().as_secs_f64())
}

/// The mapped contents as words, for the check.
fn copy_words(mapping: &cl::Mapping, host: &mut [u32]) {
    for (h, word) in host.iter_mut().zip(mapping.bytes().chunks_exact(4)) {
        *h = u32::from_ne_bytes([word[0], word[1], word[2], word[3]]);
    }
}
