//! Reductions through `__local` memory: an integer sum (tree in `__local` memory with barriers,
//! one global atomic per work-group) and a 256-bin histogram (`__local` atomics merged into
//! `__global` ones).

use super::suite::{device_seconds, expect_each, median_seconds, Ctx, Failure, Outcome};

const REDUCE: &str = r#"
#define GROUP 256
#define BINS 256

kernel void sum(global const int *in, int n, global int *total) {
    local int scratch[GROUP];
    int lid = get_local_id(0);
    int acc = 0;
    for (int i = get_global_id(0); i < n; i += get_global_size(0))
        acc += in[i];
    scratch[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = GROUP / 2; s > 0; s >>= 1) {
        if (lid < s)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        atomic_add(total, scratch[0]);
}

kernel void histogram(global const uint *in, int n, global uint *bins) {
    local uint counts[BINS];
    for (int b = get_local_id(0); b < BINS; b += GROUP)
        counts[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = get_global_id(0); i < n; i += get_global_size(0))
        atomic_inc(&counts[in[i] % BINS]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int b = get_local_id(0); b < BINS; b += GROUP)
        if (counts[b] != 0)
            atomic_add(&bins[b], counts[b]);
}
"#;

const GROUP: usize = 256;
const BINS: usize = 256;
/// Elements each work-item visits (grid-stride), so that groups are many but not one per 256.
const PER_ITEM: usize = 16;

/// Sum of `sizes.elements` ints; GB/s read.
pub fn sum(c: &Ctx) -> Outcome {
    // Small values of both signs: the total stays far from overflow.
    let input: Vec<i32> = (0..c.sizes.elements as i32).map(|i| i % 201 - 100).collect();
    let (secs, total) = accumulate(c, "sum", &input, 1)?;
    expect_each(&total, |_| input.iter().sum::<i32>())?;
    Ok(bytes_per_second(&input, secs))
}

/// Histogram of `sizes.elements` uints into 256 bins; GB/s read.
pub fn histogram(c: &Ctx) -> Outcome {
    let input: Vec<u32> = (0..c.sizes.elements as u32).map(|i| i.wrapping_mul(2_654_435_761) >> 7).collect();
    let (secs, bins) = accumulate(c, "histogram", &input, BINS)?;
    let mut want = vec![0u32; BINS];
    for x in &input {
        want[*x as usize % BINS] += 1;
    }
    expect_each(&bins, |b| want[b])?;
    Ok(bytes_per_second(&input, secs))
}

fn bytes_per_second<T>(input: &[T], secs: f64) -> f64 {
    std::mem::size_of_val(input) as f64 / secs * 1e-9
}

/// Runs kernel `name(in, n, out)` over `input` into `words` zeroed 32-bit words; seconds and
/// `out`.
fn accumulate<T: Copy + Default>(c: &Ctx, name: &str, input: &[T], words: usize) -> Result<(f64, Vec<T>), Failure> {
    let env = c.env;
    let program = env.program(REDUCE, "")?;
    let (min, out) = (env.buffer(std::mem::size_of_val(input))?, env.buffer(words * std::mem::size_of::<T>())?);
    env.write(&min, input)?;
    let kernel = program.kernel(name)?;
    kernel.mem(0, &min)?.arg(1, input.len() as i32)?.mem(2, &out)?;
    let global = (input.len() / PER_ITEM).div_ceil(GROUP) * GROUP;
    let secs = median_seconds(c.sizes.repeats, || {
        env.fill(&out, 0u32)?;
        device_seconds(env.run(&kernel, &[global], Some(&[GROUP])))
    })?;
    let mut result = vec![T::default(); words];
    env.read(&out, &mut result)?;
    Ok((secs, result))
}
