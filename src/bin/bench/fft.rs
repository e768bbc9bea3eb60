//! Batched 1024-point complex FFTs on `float2`, one transform per work-group: five radix-4
//! Stockham stages exchanging data through `__local` memory, twiddles from `sincos`.

use super::suite::{device_seconds, median_seconds, Ctx, Failure, Outcome};

const FFT: &str = r#"
#define N 1024
#define QUARTER (N / 4)   // work-items per transform: one radix-4 butterfly each per stage
#define HALF_PI 1.57079632679489661923f

float2 cmul(float2 a, float2 b) {
    return (float2)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

/* X[m] = sum_j a[j] (-i)^(j m), in place. */
void radix4(float2 *a) {
    float2 s02 = a[0] + a[2], d02 = a[0] - a[2];
    float2 s13 = a[1] + a[3], d13 = a[1] - a[3];
    float2 rot = (float2)(d13.y, -d13.x);   /* -i (a1 - a3) */
    a[0] = s02 + s13;
    a[1] = d02 + rot;
    a[2] = s02 - s13;
    a[3] = d02 - rot;
}

/* Stage p turns sub-transforms of length p into ones of length 4p: work-item i takes element
   i of each quarter, multiplies the j-th by w^(j k) with w = exp(-2 pi i / 4p) and k = i mod p,
   and writes the four results p apart from (i - k) 4 + k. */
kernel void fft(global const float2 *in, global float2 *out) {
    local float2 buf[N];
    int i = get_local_id(0);
    size_t offset = get_group_id(0) * N;
    float2 a[4];
    for (int j = 0; j < 4; j++)
        a[j] = in[offset + i + j * QUARTER];
    for (int p = 1; p < N; p *= 4) {
        int k = i & (p - 1);
        for (int j = 1; j < 4; j++) {
            float c, s = sincos(-HALF_PI * (float)(j * k) / (float)p, &c);
            a[j] = cmul(a[j], (float2)(c, s));
        }
        radix4(a);
        int base = (i - k) * 4 + k;
        if (4 * p == N) {
            for (int m = 0; m < 4; m++)
                out[offset + base + m * p] = a[m];
        } else {
            barrier(CLK_LOCAL_MEM_FENCE);   /* the previous stage's loads are done */
            for (int m = 0; m < 4; m++)
                buf[base + m * p] = a[m];
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int j = 0; j < 4; j++)
                a[j] = buf[i + j * QUARTER];
        }
    }
}
"#;

const N: usize = 1024;
const GROUP: usize = N / 4;
/// Transforms checked against the CPU DFT: the first, the last and two between.
const CHECKED: usize = 4;
/// Largest relative L2 error of a checked transform: single-precision FFTs land near 1e-7; an
/// index or twiddle wrong anywhere gives errors near 1.
const TOLERANCE: f64 = 1e-4;

/// Input values in [-1, 1) from a hash of the index (real and imaginary parts alike).
fn input(len: usize) -> Vec<f32> {
    (0..len as u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 8) as f32 / (1 << 23) as f32 - 1.0).collect()
}

/// Runs `sizes.fft_batches` transforms; GFLOP/s counting 5·N·log2 N per transform (clFFT's
/// convention).
pub fn fft(c: &Ctx) -> Outcome {
    let (env, batches) = (c.env, c.sizes.fft_batches);
    let values = 2 * N * batches;
    let data = input(values);
    let program = env.program(FFT, "")?;
    let (min, mout) = (env.buffer(values * 4)?, env.buffer(values * 4)?);
    env.write(&min, &data)?;
    let kernel = program.kernel("fft")?;
    kernel.mem(0, &min)?.mem(1, &mout)?;
    let secs = median_seconds(c.sizes.repeats, || device_seconds(env.run(&kernel, &[GROUP * batches], Some(&[GROUP]))))?;
    let mut got = vec![0f32; values];
    env.read(&mout, &mut got)?;
    let table = twiddles();
    for b in (0..CHECKED).map(|s| s * (batches - 1) / (CHECKED - 1).max(1)) {
        let range = 2 * N * b..2 * N * (b + 1);
        let error = relative_error(&got[range.clone()], &dft(&data[range], &table));
        if error.is_nan() || error > TOLERANCE {
            return Err(Failure::Failed(format!("transform {b}: relative error {error:.3e} (at most {TOLERANCE:e})")));
        }
    }
    let flops = 5.0 * N as f64 * (N as f64).log2() * batches as f64;
    Ok(flops / secs * 1e-9)
}

/// exp(-2πi m / N) for m in 0..N, as (cos, sin) pairs.
fn twiddles() -> Vec<(f64, f64)> {
    (0..N).map(|m| -2.0 * std::f64::consts::PI * m as f64 / N as f64).map(|t| (t.cos(), t.sin())).collect()
}

/// The direct DFT of `x` (interleaved real, imaginary), in f64.
fn dft(x: &[f32], table: &[(f64, f64)]) -> Vec<(f64, f64)> {
    (0..N)
        .map(|k| {
            (0..N).fold((0.0, 0.0), |(re, im), n| {
                let (c, s) = table[n * k % N];
                let (xr, xi) = (f64::from(x[2 * n]), f64::from(x[2 * n + 1]));
                (re + xr * c - xi * s, im + xr * s + xi * c)
            })
        })
        .collect()
}

/// ‖got − want‖ / ‖want‖ over the complex values.
fn relative_error(got: &[f32], want: &[(f64, f64)]) -> f64 {
    let (mut diff, mut norm) = (0.0, 0.0);
    for (g, (wr, wi)) in got.chunks_exact(2).zip(want) {
        diff += (f64::from(g[0]) - wr).powi(2) + (f64::from(g[1]) - wi).powi(2);
        norm += wr * wr + wi * wi;
    }
    (diff / norm).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dft_of_an_impulse_and_a_tone() {
        let table = twiddles();
        // δ[n − 1] → exp(-2πi k / N).
        let mut x = vec![0f32; 2 * N];
        x[2] = 1.0;
        let y = dft(&x, &table);
        assert!((y[3].0 - table[3].0).abs() < 1e-12 && (y[3].1 - table[3].1).abs() < 1e-12);
        // exp(2πi 5n / N) → N at k = 5, zero elsewhere.
        let tone: Vec<f32> = (0..N).flat_map(|n| {
            let t = 2.0 * std::f64::consts::PI * (5 * n) as f64 / N as f64;
            [t.cos() as f32, t.sin() as f32]
        }).collect();
        let y = dft(&tone, &table);
        assert!((y[5].0 - N as f64).abs() < 1e-3 && y[6].0.abs() < 1e-3);
    }

    #[test]
    fn error_is_relative() {
        let want = [(3.0, 4.0), (0.0, 0.0)];
        assert_eq!(relative_error(&[3.0, 4.0, 0.0, 0.0], &want), 0.0);
        assert!((relative_error(&[3.0, 4.0, 0.0, 0.5], &want) - 0.1).abs() < 1e-12);
    }

    #[test]
    fn inputs_span_minus_one_to_one() {
        let x = input(1 << 16);
        assert!(x.iter().all(|v| (-1.0..1.0).contains(v)));
        assert!(x.iter().any(|v| *v < -0.9) && x.iter().any(|v| *v > 0.9));
    }
}
