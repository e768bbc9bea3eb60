//! SGEMM C = A × B (row-major, M = N = K) with a classic tiled kernel: each 16 × 16 work-group
//! computes a 64 × 64 tile of C, each work-item a 4 × 4 block of it, staging 64 × 16 slices of
//! A and 16 × 64 slices of B in `__local` memory.

use super::suite::{device_seconds, median_seconds, Ctx, Failure, Outcome};

const SGEMM: &str = r#"
#define TS 64           // tile of C per work-group
#define TK 16           // depth of one step along K
#define WPT 4           // C entries per work-item along each dimension
#define RTS (TS / WPT)  // work-items along each dimension
#define LOADS (TS * TK / (RTS * RTS))

kernel void sgemm(int M, int N, int K, global const float *A, global const float *B, global float *C) {
    local float As[TK][TS + 1];   // As[k][m], padded against bank conflicts
    local float Bs[TK][TS];       // Bs[k][n]
    int tx = get_local_id(0), ty = get_local_id(1);
    int n0 = get_group_id(0) * TS, m0 = get_group_id(1) * TS;
    float acc[WPT][WPT];
    for (int i = 0; i < WPT; i++)
        for (int j = 0; j < WPT; j++)
            acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += TK) {
        for (int l = 0; l < LOADS; l++) {
            int e = l * RTS * RTS + ty * RTS + tx;
            As[e % TK][e / TK] = A[(m0 + e / TK) * K + k0 + e % TK];
            Bs[e / TS][e % TS] = B[(k0 + e / TS) * N + n0 + e % TS];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TK; k++) {
            float a[WPT], b[WPT];
            for (int w = 0; w < WPT; w++) {
                a[w] = As[k][ty + w * RTS];
                b[w] = Bs[k][tx + w * RTS];
            }
            for (int i = 0; i < WPT; i++)
                for (int j = 0; j < WPT; j++)
                    acc[i][j] = mad(a[i], b[j], acc[i][j]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    for (int i = 0; i < WPT; i++)
        for (int j = 0; j < WPT; j++)
            C[(m0 + ty + i * RTS) * N + n0 + tx + j * RTS] = acc[i][j];
}
"#;

const GROUP: usize = 16;
const SAMPLES: usize = 256;

/// Entries of A and B: multiples of 1/4 in [-0.75, 0.75] from a hash of the index, so every
/// partial sum of a 4096-long dot product is exact in `float` and the check can be exact.
fn matrix(len: usize, seed: u32) -> Vec<f32> {
    (0..len as u32).map(|i| (i.wrapping_mul(2_654_435_761) ^ seed).rotate_left(7) % 7).map(|v| (v as f32 - 3.0) * 0.25).collect()
}

pub fn sgemm(c: &Ctx) -> Outcome {
    let (env, n) = (c.env, c.sizes.sgemm);
    let program = env.program(SGEMM, "")?;
    let (a, b) = (matrix(n * n, 0x1234_5678), matrix(n * n, 0x9abc_def0));
    let (ma, mb, mc) = (env.buffer(n * n * 4)?, env.buffer(n * n * 4)?, env.buffer(n * n * 4)?);
    env.write(&ma, &a)?;
    env.write(&mb, &b)?;
    let kernel = program.kernel("sgemm")?;
    let dim = n as i32;
    kernel.arg(0, dim)?.arg(1, dim)?.arg(2, dim)?.mem(3, &ma)?.mem(4, &mb)?.mem(5, &mc)?;
    let global = [n / 4, n / 4];
    let secs = median_seconds(c.sizes.repeats, || device_seconds(env.run(&kernel, &global, Some(&[GROUP, GROUP]))))?;
    let mut got = vec![0f32; n * n];
    env.read(&mc, &mut got)?;
    for s in 0..SAMPLES {
        let (row, col) = ((s * 7919) % n, (s * 104_729 + s / 3) % n);
        let want: f32 = (0..n).map(|k| a[row * n + k] * b[k * n + col]).sum();
        let value = got[row * n + col];
        if value != want {
            return Err(Failure::Failed(format!("C[{row}][{col}] = {value}, expected {want}")));
        }
    }
    Ok(2.0 * (n as f64).powi(3) / secs * 1e-9)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matrix_entries_are_small_quarters() {
        let m = matrix(10_000, 1);
        assert!(m.iter().all(|x| (x * 4.0).fract() == 0.0 && x.abs() <= 0.75));
        // All seven values occur.
        assert!((-3..=3).all(|q| m.contains(&(q as f32 * 0.25))));
    }
}
