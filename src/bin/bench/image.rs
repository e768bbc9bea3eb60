//! Images: the runtime's copies and fills of a 2D image, and a kernel that resizes one with
//! OpenCL's bilinear sampling.

use super::suite::{device_seconds, expect_each, median_seconds, Ctx, Failure, Outcome};
use crate::cl;
use cl_sys::*;

const RGBA8: cl_image_format = cl_image_format { image_channel_order: CL_RGBA, image_channel_data_type: CL_UNORM_INT8 };
const RGBA_FLOAT: cl_image_format = cl_image_format { image_channel_order: CL_RGBA, image_channel_data_type: CL_FLOAT };

/// A square side whose RGBA8 image, read and written once, makes the bandwidth rows' traffic.
fn side(c: &Ctx) -> usize {
    let texels = c.sizes.traffic / 2 / 4;
    ((texels as f64).sqrt() as usize / 16 * 16).max(16)
}

fn needs_images(env: &cl::Env) -> Result<(), Failure> {
    if env.device_u64(CL_DEVICE_IMAGE_SUPPORT) & 0xffff_ffff == 0 {
        return Err(Failure::NotApplicable);
    }
    Ok(())
}

/// A byte pattern for texel byte `i`.
fn byte(i: usize) -> u8 {
    (i * 7 % 251) as u8
}

/// `clEnqueueCopyImage` of a whole RGBA8 image: GB/s of bytes read plus written.
pub fn copy(c: &Ctx) -> Outcome {
    needs_images(c.env)?;
    let (env, n) = (c.env, side(c));
    let (src, dst) = (env.image2d(RGBA8, n, n, 4)?, env.image2d(RGBA8, n, n, 4)?);
    let data: Vec<u8> = (0..n * n * 4).map(byte).collect();
    env.write_image(&src, n, n, &data)?;
    let secs = median_seconds(c.sizes.repeats, || device_seconds(env.copy_image(&src, &dst, n, n)))?;
    let mut got = vec![0u8; n * n * 4];
    env.read_image(&dst, n, n, &mut got)?;
    expect_each(&got, byte)?;
    Ok((2 * n * n * 4) as f64 / secs * 1e-9)
}

const FILL: [f32; 4] = [0.25, -1.5, 3.0, 1.0];

/// `clEnqueueFillImage` of a whole RGBA float image: GB/s written.
pub fn fill(c: &Ctx) -> Outcome {
    needs_images(c.env)?;
    let (env, n) = (c.env, side(c) / 2);
    let image = env.image2d(RGBA_FLOAT, n, n, 16)?;
    let secs = median_seconds(c.sizes.repeats, || device_seconds(env.fill_image(&image, n, n, FILL)))?;
    let mut got = vec![0f32; n * n * 4];
    env.read_image(&image, n, n, &mut got)?;
    expect_each(&got, |i| FILL[i % 4])?;
    Ok((n * n * 16) as f64 / secs * 1e-9)
}

const RESIZE: &str = r#"
kernel void resize(read_only image2d_t src, write_only image2d_t dst, sampler_t s) {
    int2 p = (int2)(get_global_id(0), get_global_id(1));
    float2 at = ((float2)(p.x, p.y) + 0.5f) / (float2)(get_image_width(dst), get_image_height(dst));
    write_imagef(dst, p, read_imagef(src, s, at));
}
"#;

/// A 2× bilinear upscale of an RGBA8 image (normalized coordinates, clamp to edge, linear
/// filtering), into an RGBA8 image: output Gpixel/s.
pub fn resize(c: &Ctx) -> Outcome {
    needs_images(c.env)?;
    let env = c.env;
    let n = side(c) / 2;
    let m = 2 * n;
    let (src, dst) = (env.image2d(RGBA8, n, n, 4)?, env.image2d(RGBA8, m, m, 4)?);
    let data: Vec<u8> = (0..n * n * 4).map(byte).collect();
    env.write_image(&src, n, n, &data)?;
    let sampler = env.sampler(true, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_LINEAR)?;
    let program = env.program(RESIZE, "")?;
    let k = program.kernel("resize")?;
    k.mem(0, &src)?.mem(1, &dst)?.sampler(2, &sampler)?;
    let secs = median_seconds(c.sizes.repeats, || device_seconds(env.run(&k, &[m, m], Some(&[16, 16]))))?;
    let mut got = vec![0u8; m * m * 4];
    env.read_image(&dst, m, m, &mut got)?;
    check_resize(&data, n, &got, m)?;
    Ok((m * m) as f64 / secs * 1e-9)
}

/// Every output texel within 2 of OpenCL's bilinear filter computed here: the filter's
/// weights may be computed in reduced precision (NVIDIA's texture units use 8-bit fractions:
/// off by 1.25 from the exact filter), and the result is rounded to 8 bits.
fn check_resize(src: &[u8], n: usize, got: &[u8], m: usize) -> Result<(), Failure> {
    let texel = |x: isize, y: isize, ch: usize| {
        let (x, y) = (x.clamp(0, n as isize - 1) as usize, y.clamp(0, n as isize - 1) as usize);
        f64::from(src[(y * n + x) * 4 + ch]) / 255.0
    };
    for (i, &g) in got.iter().enumerate() {
        let (ch, p) = (i % 4, i / 4);
        let (u, v) = (((p % m) as f64 + 0.5) / m as f64 * n as f64 - 0.5, ((p / m) as f64 + 0.5) / m as f64 * n as f64 - 0.5);
        let (x0, y0) = (u.floor() as isize, v.floor() as isize);
        let (a, b) = (u - u.floor(), v - v.floor());
        let top = (1.0 - a) * texel(x0, y0, ch) + a * texel(x0 + 1, y0, ch);
        let bottom = (1.0 - a) * texel(x0, y0 + 1, ch) + a * texel(x0 + 1, y0 + 1, ch);
        let want = ((1.0 - b) * top + b * bottom) * 255.0;
        if (f64::from(g) - want).abs() > 2.0 {
            return Err(Failure::Failed(format!("resized texel {p} channel {ch}: {g}, expected {want:.2}")));
        }
    }
    Ok(())
}
