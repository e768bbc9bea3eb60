//! Runs a small OpenCL program on every platform the loader finds and checks its result on
//! the CPU: `c[i] = a[i] * b[i] + i`, a kernel with a `__local` reduction, and prints what ran.

#[path = "host/cl.rs"]
mod cl;

const SOURCE: &str = r#"
kernel void fma_index(global const float *a, global const float *b, global float *c) {
    int i = get_global_id(0);
    c[i] = a[i] * b[i] + (float)i;
}

kernel void block_sum(global const int *in, global int *out, local int *scratch) {
    int lid = get_local_id(0);
    scratch[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (lid < s)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        out[get_group_id(0)] = scratch[0];
}
"#;

const N: usize = 1 << 16;
const GROUP: usize = 64;

fn run(env: &cl::Env) -> cl::Result<()> {
    let program = env.program(SOURCE, "")?;
    let a: Vec<f32> = (0..N).map(|i| (i % 97) as f32 * 0.5).collect();
    let b: Vec<f32> = (0..N).map(|i| (i % 13) as f32 - 6.0).collect();
    let (ba, bb, bc) = (env.buffer(N * 4)?, env.buffer(N * 4)?, env.buffer(N * 4)?);
    env.write(&ba, &a)?;
    env.write(&bb, &b)?;
    let k = program.kernel("fma_index")?;
    k.mem(0, &ba)?.mem(1, &bb)?.mem(2, &bc)?;
    env.run(&k, &[N], None)?;
    let mut c = vec![0f32; N];
    env.read(&bc, &mut c)?;
    let bad = (0..N).filter(|&i| c[i] != a[i] * b[i] + i as f32).count();

    let ints: Vec<i32> = (0..N as i32).map(|i| i % 1000 - 500).collect();
    let (bi, bo) = (env.buffer(N * 4)?, env.buffer(N / GROUP * 4)?);
    env.write(&bi, &ints)?;
    let k = program.kernel("block_sum")?;
    k.mem(0, &bi)?.mem(1, &bo)?.local(2, GROUP * 4)?;
    env.run(&k, &[N], Some(&[GROUP]))?;
    let mut sums = vec![0i32; N / GROUP];
    env.read(&bo, &mut sums)?;
    let bad_sums = sums.iter().enumerate().filter(|(g, s)| **s != ints[g * GROUP..(g + 1) * GROUP].iter().sum::<i32>()).count();

    if bad + bad_sums > 0 {
        return Err(format!("{bad} wrong products, {bad_sums} wrong sums"));
    }
    println!("  {N} fused multiply-adds and {} work-group sums: all correct", N / GROUP);
    Ok(())
}

fn main() {
    let mut failed = false;
    for p in cl::platforms() {
        match cl::Env::new(&p, false).and_then(|env| {
            println!("{} / {}", env.platform, env.device_name);
            run(&env)
        }) {
            Ok(()) => {}
            Err(e) => {
                println!("  {}: {e}", p.name);
                failed |= p.name == "ferrocl";
            }
        }
    }
    std::process::exit(failed as i32);
}
