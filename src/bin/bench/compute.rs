//! Compute peaks: chains of multiply-adds on 4-wide vectors, sixteen independent chains per
//! work-item (clpeak's approach), in `float`, `int` and `double`.

use super::suite::{device_seconds, median_seconds, Ctx, Failure, Outcome};
use std::fmt::Debug;

/// `T`/`T4` are the scalar and vector types and `MADD` the multiply-add, defined per type by a
/// prelude. Each loop turn makes 8 × 4 × 4 = 128 multiply-adds, i.e. 256 operations.
const PEAK: &str = r#"
#define STEP x0 = MADD(x0, a, b); x1 = MADD(x1, a, b); x2 = MADD(x2, a, b); x3 = MADD(x3, a, b)

kernel void peak(global T *out, T a1, T b1, int turns) {
    T4 a = (T4)(a1), b = (T4)(b1);
    T s = (T)get_global_id(0);
    T4 x0 = (T4)(s, s + 1, s + 2, s + 3);
    T4 x1 = x0 + 4, x2 = x0 + 8, x3 = x0 + 12;
    for (int i = 0; i < turns; i++) {
        STEP; STEP; STEP; STEP;
        STEP; STEP; STEP; STEP;
    }
    T4 r = x0 + x1 + x2 + x3;
    out[get_global_id(0)] = r.x + r.y + r.z + r.w;
}
"#;

const OPS_PER_TURN: f64 = 256.0;
const STEPS_PER_TURN: i32 = 8;
const LANES: usize = 16;
const SAMPLES: usize = 64;

/// A scalar type the peak kernel runs on, with its CPU model for the check.
pub trait Lane: Copy + Debug + Default {
    /// Type definitions and `MADD` for the kernel.
    const PRELUDE: &'static str;
    /// The extension the type needs, if any.
    const EXTENSION: Option<&'static str>;
    /// `x = x * A + B`: contracting for floats (the chains settle near B / (1 - A)), an LCG
    /// step for integers; either way no compiler can fold the loop away.
    const A: Self;
    const B: Self;
    fn from_index(i: usize) -> Self;
    fn madd(self, a: Self, b: Self) -> Self;
    fn add(self, other: Self) -> Self;
    fn matches(self, want: Self) -> bool;
}

macro_rules! float_lane {
    ($t:ty, $prelude:literal, $extension:expr) => {
        impl Lane for $t {
            const PRELUDE: &'static str = $prelude;
            const EXTENSION: Option<&'static str> = $extension;
            const A: Self = 1.0 - 1.0 / 1024.0;
            const B: Self = 0.5;
            fn from_index(i: usize) -> Self {
                i as $t
            }
            fn madd(self, a: Self, b: Self) -> Self {
                self * a + b
            }
            fn add(self, other: Self) -> Self {
                self + other
            }
            /// The device may fuse or not; a contracting chain keeps the difference small.
            fn matches(self, want: Self) -> bool {
                (self - want).abs() <= want.abs() * 1e-3
            }
        }
    };
}

float_lane!(f32, "#define T float\n#define T4 float4\n#define MADD(x, a, b) mad(x, a, b)\n", None);
float_lane!(
    f64,
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n#define T double\n#define T4 double4\n#define MADD(x, a, b) mad(x, a, b)\n",
    Some("cl_khr_fp64")
);

impl Lane for i32 {
    const PRELUDE: &'static str = "#define T int\n#define T4 int4\n#define MADD(x, a, b) (x * a + b)\n";
    const EXTENSION: Option<&'static str> = None;
    const A: Self = 1_664_525;
    const B: Self = 1_013_904_223;
    fn from_index(i: usize) -> Self {
        i as i32
    }
    fn madd(self, a: Self, b: Self) -> Self {
        self.wrapping_mul(a).wrapping_add(b)
    }
    fn add(self, other: Self) -> Self {
        self.wrapping_add(other)
    }
    fn matches(self, want: Self) -> bool {
        self == want
    }
}

/// What work-item `g` writes, computed on the CPU in the kernel's order.
fn model<T: Lane>(g: usize, turns: i32) -> T {
    let steps = turns * STEPS_PER_TURN;
    let chains: Vec<T> = (0..LANES).map(|j| (0..steps).fold(T::from_index(g + j), |x, _| x.madd(T::A, T::B))).collect();
    // Lane j is component j % 4 of vector j / 4; the vectors are summed, then the components.
    let component = |c: usize| chains[c].add(chains[c + 4]).add(chains[c + 8]).add(chains[c + 12]);
    component(0).add(component(1)).add(component(2)).add(component(3))
}

/// Runs the peak kernel on `T`; operations per second (a multiply-add counts two), in G/s.
pub fn peak<T: Lane>(c: &Ctx) -> Outcome {
    let env = c.env;
    if T::EXTENSION.is_some_and(|e| !env.device_string(cl_sys::CL_DEVICE_EXTENSIONS).split_whitespace().any(|x| x == e)) {
        return Err(Failure::NotApplicable);
    }
    let (items, turns) = (c.sizes.peak_items, c.sizes.peak_turns);
    let program = env.program(&format!("{}{PEAK}", T::PRELUDE), "")?;
    let out = env.buffer(items * std::mem::size_of::<T>())?;
    let kernel = program.kernel("peak")?;
    kernel.mem(0, &out)?.arg(1, T::A)?.arg(2, T::B)?.arg(3, turns)?;
    let secs = median_seconds(c.sizes.repeats, || device_seconds(env.run(&kernel, &[items], Some(&[256]))))?;
    let mut got = vec![T::default(); items];
    env.read(&out, &mut got)?;
    check_samples(&got, turns)?;
    Ok(items as f64 * f64::from(turns) * OPS_PER_TURN / secs * 1e-9)
}

/// Checks evenly spaced work-items against the CPU model.
fn check_samples<T: Lane>(got: &[T], turns: i32) -> Result<(), Failure> {
    let stride = (got.len() / SAMPLES).max(1);
    for (g, value) in got.iter().enumerate().step_by(stride) {
        let want = model::<T>(g, turns);
        if !value.matches(want) {
            return Err(Failure::Failed(format!("work-item {g}: {value:?}, expected {want:?}")));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_without_turns_sums_the_starting_lanes() {
        // Lanes start at g .. g + 15: 16·g + 120.
        assert_eq!(model::<i32>(2, 0), 152);
        assert_eq!(model::<f32>(10, 0), 280.0);
    }

    #[test]
    fn float_chains_settle_at_the_fixed_point() {
        // x = x·A + B settles at B / (1 − A) = 512 per lane, 8192 for sixteen lanes.
        assert!((model::<f64>(1000, 2048) - 8192.0).abs() < 1e-3);
    }

    #[test]
    fn integer_chains_wrap() {
        // One turn is eight LCG steps per lane, computed here step by step.
        let lane = |x0: i32| (0..8).fold(x0, |x, _| x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223));
        let want = (0..16).fold(0i32, |s, j| s.wrapping_add(lane(7 + j)));
        assert_eq!(model::<i32>(7, 1), want);
    }
}
