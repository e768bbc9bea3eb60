//! Compute peaks: chains of multiply-adds, sixteen independent lanes per work-item spread over
//! vectors of one width (clpeak's approach), in `float`, `int` and `double` of every width.

use super::suite::{device_seconds, median_seconds, Ctx, Failure, Outcome};
use std::fmt::Debug;

/// The kernel for vectors of `width` lanes: 16 / `width` chains `x0, x1, …`, lane `j` of the
/// work-item starting at `get_global_id(0) + j` (chain `j / width`, component `j % width`).
/// `T`/`TN` are the scalar and vector types and `MADD` the multiply-add, defined per type by a
/// prelude. Each loop turn makes 8 steps of 16 lanes: 128 multiply-adds, i.e. 256 operations.
fn peak_source(width: usize) -> String {
    let chains = LANES / width;
    let start = |c: usize| {
        let lanes: Vec<String> = (0..width).map(|k| format!("(T){}", c * width + k)).collect();
        if width == 1 { format!("s + {}", lanes[0]) } else { format!("s + (TN)({})", lanes.join(", ")) }
    };
    let declare: String = (0..chains).map(|c| format!("    TN x{c} = {};\n", start(c))).collect();
    let step: Vec<String> = (0..chains).map(|c| format!("x{c} = MADD(x{c}, a, b);")).collect();
    let sum: Vec<String> = (0..chains).map(|c| format!("x{c}")).collect();
    let components: Vec<String> = if width == 1 { vec!["r".into()] } else { (0..width).map(|k| format!("r.s{k:x}")).collect() };
    format!(
        r#"
#define STEP {step}

kernel void peak(global T *out, T a1, T b1, int turns) {{
    TN a = (TN)(a1), b = (TN)(b1);
    T s = (T)get_global_id(0);
{declare}    for (int i = 0; i < turns; i++) {{
        STEP; STEP; STEP; STEP;
        STEP; STEP; STEP; STEP;
    }}
    TN r = {sum};
    out[get_global_id(0)] = {components};
}}
"#,
        step = step.join(" "),
        sum = sum.join(" + "),
        components = components.join(" + "),
    )
}

const OPS_PER_TURN: f64 = 256.0;
const STEPS_PER_TURN: i32 = 8;
const LANES: usize = 16;
const SAMPLES: usize = 64;

/// A scalar type the peak kernel runs on, with its CPU model for the check.
pub trait Lane: Copy + Debug + Default {
    /// The OpenCL C name of the scalar type.
    const NAME: &'static str;
    /// `#pragma`s the type needs and the definition of `MADD(x, a, b)`.
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
    ($t:ty, $name:literal, $prelude:literal, $extension:expr) => {
        impl Lane for $t {
            const NAME: &'static str = $name;
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

float_lane!(f32, "float", "#define MADD(x, a, b) mad(x, a, b)\n", None);
float_lane!(f64, "double", "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n#define MADD(x, a, b) mad(x, a, b)\n", Some("cl_khr_fp64"));

impl Lane for i32 {
    const NAME: &'static str = "int";
    const PRELUDE: &'static str = "#define MADD(x, a, b) (x * a + b)\n";
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

/// What work-item `g` writes, computed on the CPU: the sum of its sixteen lanes. The kernel sums
/// them in another order, which integers (wrapping) ignore and floats feel only within rounding.
fn model<T: Lane>(g: usize, turns: i32) -> T {
    let steps = turns * STEPS_PER_TURN;
    (0..LANES).map(|j| (0..steps).fold(T::from_index(g + j), |x, _| x.madd(T::A, T::B))).fold(T::default(), T::add)
}

/// The prelude naming `T` and `TN` for vectors of `width` lanes.
fn types<T: Lane>(width: usize) -> String {
    let vector = if width == 1 { T::NAME.to_string() } else { format!("{}{width}", T::NAME) };
    format!("{}#define T {}\n#define TN {vector}\n", T::PRELUDE, T::NAME)
}

/// Runs the peak kernel on `T` vectors of `width` lanes; operations per second (a multiply-add
/// counts two), in G/s.
pub fn peak<T: Lane>(c: &Ctx, width: usize) -> Outcome {
    let env = c.env;
    if T::EXTENSION.is_some_and(|e| !env.device_string(cl_sys::CL_DEVICE_EXTENSIONS).split_whitespace().any(|x| x == e)) {
        return Err(Failure::NotApplicable);
    }
    let (items, turns) = (c.sizes.peak_items, c.sizes.peak_turns);
    let program = env.program(&format!("{}{}", types::<T>(width), peak_source(width)), "")?;
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
    fn kernels_spread_sixteen_lanes_over_the_width() {
        let scalar = peak_source(1);
        assert!(scalar.contains("TN x15 = s + (T)15;") && !scalar.contains("x16"));
        assert!(scalar.contains("out[get_global_id(0)] = r;"));
        let four = peak_source(4);
        assert!(four.contains("TN x3 = s + (TN)((T)12, (T)13, (T)14, (T)15);") && !four.contains("x4"));
        assert!(four.contains("TN r = x0 + x1 + x2 + x3;"));
        assert!(peak_source(16).contains("r.s0 + r.s1") && peak_source(16).contains("r.se + r.sf;"));
        assert_eq!(types::<f64>(8).lines().last(), Some("#define TN double8"));
    }

    #[test]
    fn integer_chains_wrap() {
        // One turn is eight LCG steps per lane, computed here step by step.
        let lane = |x0: i32| (0..8).fold(x0, |x, _| x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223));
        let want = (0..16).fold(0i32, |s, j| s.wrapping_add(lane(7 + j)));
        assert_eq!(model::<i32>(7, 1), want);
    }
}
