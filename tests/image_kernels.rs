//! Image kernels end to end: reads through every addressing mode, normalized or not, nearest
//! and linear, with samplers passed as arguments and declared as constants, from float and
//! integer images of every shape; samplerless reads; writes; queries. The expected texels are
//! computed here from the specification's formulas (OpenCL 3.0 API §"Image Addressing and
//! Filtering"), independently of the compiler's lowering. These need the runtime half of
//! images (image objects, samplers, clSetKernelArg of both).
mod common;

use common::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};

/// A sampler as the tests describe it.
#[derive(Clone, Copy, Debug)]
struct SamplerDesc {
    normalized: bool,
    addressing: cl_uint,
    linear: bool,
}

impl SamplerDesc {
    /// The `CLK_*` spelling of this sampler, for a program-scope constant.
    fn source(&self) -> String {
        let addressing = match self.addressing {
            CL_ADDRESS_NONE => "CLK_ADDRESS_NONE",
            CL_ADDRESS_CLAMP_TO_EDGE => "CLK_ADDRESS_CLAMP_TO_EDGE",
            CL_ADDRESS_CLAMP => "CLK_ADDRESS_CLAMP",
            CL_ADDRESS_REPEAT => "CLK_ADDRESS_REPEAT",
            _ => "CLK_ADDRESS_MIRRORED_REPEAT",
        };
        let n = if self.normalized { "CLK_NORMALIZED_COORDS_TRUE" } else { "CLK_NORMALIZED_COORDS_FALSE" };
        let f = if self.linear { "CLK_FILTER_LINEAR" } else { "CLK_FILTER_NEAREST" };
        format!("{n} | {addressing} | {f}")
    }
}

/// Every sampler OpenCL defines: repeat modes need normalized coordinates.
fn all_samplers() -> Vec<SamplerDesc> {
    let mut out = Vec::new();
    for normalized in [false, true] {
        for addressing in [CL_ADDRESS_NONE, CL_ADDRESS_CLAMP_TO_EDGE, CL_ADDRESS_CLAMP, CL_ADDRESS_REPEAT, CL_ADDRESS_MIRRORED_REPEAT] {
            if !normalized && matches!(addressing, CL_ADDRESS_REPEAT | CL_ADDRESS_MIRRORED_REPEAT) {
                continue;
            }
            for linear in [false, true] {
                out.push(SamplerDesc { normalized, addressing, linear });
            }
        }
    }
    out
}

/// The texels of an image as the kernel reads them (channels converted to floats, or
/// integers held exactly), with its extent: `size[k]` along each spatial axis and `layers`
/// (1 for images that are not arrays).
struct RefImage {
    size: Vec<usize>,
    layers: usize,
    texels: Vec<[f64; 4]>,
    /// The border colour of `CL_ADDRESS_CLAMP` for the image's channel order.
    border: [f64; 4],
}

impl RefImage {
    /// The texel at `idx` of `layer`: texels are stored x fastest, then y, z, the layer.
    fn at(&self, idx: &[usize], layer: usize) -> [f64; 4] {
        let mut i = layer;
        for k in (0..self.size.len()).rev() {
            i = i * self.size[k] + idx[k];
        }
        self.texels[i]
    }

    /// The value at unclamped indices: the border colour outside the image.
    fn tap(&self, idx: &[i64], layer: usize) -> [f64; 4] {
        if idx.iter().zip(&self.size).any(|(&i, &n)| i < 0 || i >= n as i64) {
            return self.border;
        }
        let idx: Vec<usize> = idx.iter().map(|&i| i as usize).collect();
        self.at(&idx, layer)
    }

    /// `read_image{f,i,ui}(image, sampler, coord)` with float coordinates (the spatial ones,
    /// then the layer for arrays), by the specification's formulas.
    fn sample(&self, s: SamplerDesc, coord: &[f32], filter: bool) -> [f64; 4] {
        let n = self.size.len();
        let layer = if coord.len() > n { (coord[n].round_ties_even().max(0.0) as usize).min(self.layers - 1) } else { 0 };
        let linear = s.linear && filter;
        // Per axis: the indices (nearest: one; linear: i0, i1) and the weight of i1.
        let mut axes: Vec<(Vec<i64>, f32)> = Vec::new();
        for (&c, &size) in coord.iter().zip(&self.size) {
            let w = size as i64;
            let wf = w as f32;
            let u = match s.addressing {
                CL_ADDRESS_REPEAT => (c - c.floor()) * wf,
                CL_ADDRESS_MIRRORED_REPEAT => (c - 2.0 * (0.5 * c).round_ties_even()).abs() * wf,
                _ if s.normalized => c * wf,
                _ => c,
            };
            let clamp = |i: i64| match s.addressing {
                CL_ADDRESS_CLAMP => i.clamp(-1, w),
                _ => i.clamp(0, w - 1),
            };
            if linear {
                let (mut i0, mut i1) = ((u - 0.5).floor() as i64, (u - 0.5).floor() as i64 + 1);
                let a = (u - 0.5) - (u - 0.5).floor();
                if s.addressing == CL_ADDRESS_REPEAT {
                    if i0 < 0 {
                        i0 += w;
                    }
                    if i1 > w - 1 {
                        i1 -= w;
                    }
                }
                axes.push((vec![clamp(i0), clamp(i1)], a));
            } else {
                let mut i = u.floor() as i64;
                if s.addressing == CL_ADDRESS_REPEAT && i > w - 1 {
                    i -= w;
                }
                axes.push((vec![clamp(i)], 0.0));
            }
        }
        let corners = 1usize << if linear { n } else { 0 };
        let mut sum = [0.0f64; 4];
        for corner in 0..corners {
            let mut weight = 1.0f64;
            let mut idx = Vec::new();
            for (k, (is, a)) in axes.iter().enumerate() {
                if linear {
                    let hi = corner >> k & 1 == 1;
                    idx.push(is[usize::from(hi)]);
                    weight *= if hi { f64::from(*a) } else { 1.0 - f64::from(*a) };
                } else {
                    idx.push(is[0]);
                }
            }
            let t = self.tap(&idx, layer);
            for c in 0..4 {
                sum[c] += weight * t[c];
            }
        }
        sum
    }
}

/// An image object, released on drop.
struct Image(cl_mem);

impl Drop for Image {
    fn drop(&mut self) {
        unsafe { clReleaseMemObject(self.0) };
    }
}

struct Sampler(cl_sampler);

impl Drop for Sampler {
    fn drop(&mut self) {
        unsafe { clReleaseSampler(self.0) };
    }
}

fn sampler(env: &Env, s: SamplerDesc) -> Sampler {
    let mut err = 0;
    let smp = unsafe { clCreateSampler(env.context, cl_bool::from(s.normalized), s.addressing, if s.linear { CL_FILTER_LINEAR } else { CL_FILTER_NEAREST }, &mut err) };
    ok(err);
    Sampler(smp)
}

/// An image of `ty` with `size` (width, height, depth) and `layers` (0 unless an array),
/// holding `bytes` (none: uninitialized).
fn image(env: &Env, ty: cl_mem_object_type, order: cl_uint, data_type: cl_uint, size: [usize; 3], layers: usize, bytes: &[u8]) -> Image {
    image_with(env, CL_MEM_READ_WRITE, ty, order, data_type, size, layers, bytes, null_mut())
}

/// The same with `flags`, and the buffer of a `CL_MEM_OBJECT_IMAGE1D_BUFFER`.
#[allow(clippy::too_many_arguments)]
fn image_with(env: &Env, flags: cl_mem_flags, ty: cl_mem_object_type, order: cl_uint, data_type: cl_uint, size: [usize; 3], layers: usize, bytes: &[u8], buffer: cl_mem) -> Image {
    let format = cl_image_format { image_channel_order: order, image_channel_data_type: data_type };
    // Extents the type does not have are left 0.
    let height = if matches!(ty, CL_MEM_OBJECT_IMAGE2D | CL_MEM_OBJECT_IMAGE2D_ARRAY | CL_MEM_OBJECT_IMAGE3D) { size[1] } else { 0 };
    let depth = if ty == CL_MEM_OBJECT_IMAGE3D { size[2] } else { 0 };
    let desc = cl_image_desc {
        image_type: ty,
        image_width: size[0],
        image_height: height,
        image_depth: depth,
        image_array_size: layers,
        image_row_pitch: 0,
        image_slice_pitch: 0,
        num_mip_levels: 0,
        num_samples: 0,
        buffer,
    };
    let flags = flags | if bytes.is_empty() { 0 } else { CL_MEM_COPY_HOST_PTR };
    let host = if bytes.is_empty() { null_mut() } else { bytes.as_ptr() as *mut c_void };
    let mut err = 0;
    let mem = unsafe { clCreateImage(env.context, flags, &format, &desc, host, &mut err) };
    ok(err);
    Image(mem)
}

/// Reads `len` bytes of a whole image of `region` texels (width, height or layers, depth or
/// layers).
fn read_image(env: &Env, img: &Image, region: [usize; 3], len: usize) -> Vec<u8> {
    let mut out = vec![0u8; len];
    let origin = [0usize; 3];
    ok(unsafe { clEnqueueReadImage(env.queue, img.0, CL_TRUE, origin.as_ptr(), region.as_ptr(), 0, 0, out.as_mut_ptr().cast(), 0, null(), null_mut()) });
    out
}

/// A kernel argument.
enum A<'a> {
    Buf(&'a Mem),
    Img(&'a Image),
    Smp(&'a Sampler),
}

fn run(env: &Env, program: cl_program, name: &str, args: &[A], global: &[usize]) {
    let k = kernel(program, name);
    for (i, a) in args.iter().enumerate() {
        let i = i as cl_uint;
        let code = match a {
            A::Buf(m) => unsafe { clSetKernelArg(k, i, std::mem::size_of::<cl_mem>(), (&m.0 as *const cl_mem).cast()) },
            A::Img(m) => unsafe { clSetKernelArg(k, i, std::mem::size_of::<cl_mem>(), (&m.0 as *const cl_mem).cast()) },
            A::Smp(s) => unsafe { clSetKernelArg(k, i, std::mem::size_of::<cl_sampler>(), (&s.0 as *const cl_sampler).cast()) },
        };
        assert_eq!(code, CL_SUCCESS, "{name}: argument {i}: {}", error_name(code));
    }
    let code = unsafe { clEnqueueNDRangeKernel(env.queue, k, global.len() as cl_uint, null(), global.as_ptr(), null(), 0, null(), null_mut()) };
    assert_eq!(code, CL_SUCCESS, "{name}: {}", error_name(code));
    env.finish();
    unsafe { clReleaseKernel(k) };
}

fn as_bytes<T: Copy>(v: &[T]) -> Vec<u8> {
    // SAFETY: plain numbers.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(v)) }.to_vec()
}

fn from_bytes<T: Copy>(b: &[u8]) -> Vec<T> {
    // SAFETY: each chunk holds one plain `T`.
    b.chunks_exact(std::mem::size_of::<T>()).map(|c| unsafe { std::ptr::read_unaligned(c.as_ptr().cast()) }).collect()
}

/// A buffer holding `v`.
fn buf<T: Copy>(env: &Env, v: &[T]) -> Mem {
    env.buffer_from(&as_bytes(v))
}

fn get<T: Copy>(env: &Env, m: &Mem, n: usize) -> Vec<T> {
    from_bytes(&env.read(m, 0, n * std::mem::size_of::<T>()))
}

/// Coordinates along an axis of `n` texels: unnormalized from before the image to past it,
/// normalized the same in fractions of it. None falls on a texel's edge or centre, where a
/// rounding difference would change the texel or weight chosen. With `inside`, only those
/// whose every tap (nearest or linear) stays within the image (for `CL_ADDRESS_NONE`).
fn coords(n: usize, normalized: bool, inside: bool) -> Vec<f32> {
    let steps: Vec<f32> = (-9..=(4 * n as i32 + 9)).map(|i| i as f32 * 0.25 + 0.1).collect();
    let plain = steps.into_iter().filter(|&u| !inside || (u >= 0.6 && u <= n as f32 - 0.6));
    plain.map(|u| if normalized { u / n as f32 } else { u }).collect()
}

/// Asserts `got` (4 floats per texel) is within `tol` of `want`.
#[track_caller]
fn check(what: &str, got: &[f32], want: &[[f64; 4]], tol: f64) {
    assert_eq!(got.len(), want.len() * 4, "{what}");
    for (i, w) in want.iter().enumerate() {
        let g = &got[4 * i..4 * i + 4];
        let close = g.iter().zip(w).all(|(&g, &w)| (f64::from(g) - w).abs() <= tol);
        assert!(close, "{what}: texel {i}: got {g:?}, want {w:?}");
    }
}

/// A 5×3 `CL_RGBA`/`CL_UNORM_INT8` image: its bytes and texels as floats.
/// Coordinates over a `w` × `h` image for sampler `s` (inside it where `s` has no addressing
/// mode), and the reference's filtered colour at each.
fn points_2d(w: usize, h: usize, s: SamplerDesc, reference: &RefImage) -> (Vec<[f32; 2]>, Vec<[f64; 4]>) {
    let inside = s.addressing == CL_ADDRESS_NONE;
    let xs = coords(w, s.normalized, inside);
    let ys = coords(h, s.normalized, inside);
    let pts: Vec<[f32; 2]> = xs.iter().flat_map(|&x| ys.iter().map(move |&y| [x, y])).collect();
    let want = pts.iter().map(|p| reference.sample(s, p, true)).collect();
    (pts, want)
}

fn rgba8(w: usize, h: usize) -> (Vec<u8>, RefImage) {
    let bytes = pattern(w * h * 4, 7);
    let texels = bytes.chunks(4).map(|c| [0, 1, 2, 3].map(|k| f64::from(c[k]) / 255.0)).collect();
    (bytes, RefImage { size: vec![w, h], layers: 1, texels, border: [0.0; 4] })
}

const SAMPLE_2D: &str = "
kernel void by_arg(read_only image2d_t img, sampler_t s, global const float2 *c, global float4 *o) {
    int i = get_global_id(0);
    o[i] = read_imagef(img, s, c[i]);
}
kernel void int_coords(read_only image2d_t img, sampler_t s, global const int2 *c, global float4 *o) {
    int i = get_global_id(0);
    o[i] = read_imagef(img, s, c[i]);
}
kernel void fetch(read_only image2d_t img, global const int2 *c, global float4 *o) {
    int i = get_global_id(0);
    o[i] = read_imagef(img, c[i]);
}
";

/// Every sampler on a 2D unorm image, passed as an argument and declared as a constant.
#[test]
fn read_imagef_2d_every_sampler() {
    let env = Env::new();
    let (w, h) = (5, 3);
    let (bytes, reference) = rgba8(w, h);
    let img = image(&env, CL_MEM_OBJECT_IMAGE2D, CL_RGBA, CL_UNORM_INT8, [w, h, 1], 0, &bytes);
    let by_arg = build(env.context, env.device, SAMPLE_2D);
    for s in all_samplers() {
        let (pts, want) = points_2d(w, h, s, &reference);
        let (c, o) = (buf(&env, &pts), env.buffer(CL_MEM_READ_WRITE, pts.len() * 16));
        let smp = sampler(&env, s);
        run(&env, by_arg, "by_arg", &[A::Img(&img), A::Smp(&smp), A::Buf(&c), A::Buf(&o)], &[pts.len()]);
        let tol = if s.linear { 1e-4 } else { 1e-6 };
        check(&format!("{s:?} as an argument"), &get::<f32>(&env, &o, pts.len() * 4), &want, tol);
        let src = format!(
            "constant sampler_t s = {};
             kernel void by_constant(read_only image2d_t img, global const float2 *c, global float4 *o) {{
                 int i = get_global_id(0);
                 o[i] = read_imagef(img, s, c[i]);
             }}",
            s.source()
        );
        let constant = build(env.context, env.device, &src);
        run(&env, constant, "by_constant", &[A::Img(&img), A::Buf(&c), A::Buf(&o)], &[pts.len()]);
        check(&format!("{s:?} as a constant"), &get::<f32>(&env, &o, pts.len() * 4), &want, tol);
        unsafe { clReleaseProgram(constant) };
    }
    unsafe { clReleaseProgram(by_arg) };
}

/// Integer coordinates with unnormalized nearest samplers (clamp: the border), and
/// samplerless reads.
#[test]
fn read_imagef_2d_int_coordinates() {
    let env = Env::new();
    let (w, h) = (5, 3);
    let (bytes, reference) = rgba8(w, h);
    let img = image(&env, CL_MEM_OBJECT_IMAGE2D, CL_RGBA, CL_UNORM_INT8, [w, h, 1], 0, &bytes);
    let program = build(env.context, env.device, SAMPLE_2D);
    let pts: Vec<[i32; 2]> = (-2..w as i32 + 2).flat_map(|x| (-2..h as i32 + 2).map(move |y| [x, y])).collect();
    let inside: Vec<[i32; 2]> = pts.iter().copied().filter(|p| p[0] >= 0 && p[0] < w as i32 && p[1] >= 0 && p[1] < h as i32).collect();
    for addressing in [CL_ADDRESS_CLAMP_TO_EDGE, CL_ADDRESS_CLAMP] {
        let s = SamplerDesc { normalized: false, addressing, linear: false };
        let want: Vec<[f64; 4]> = pts.iter().map(|p| match addressing {
            CL_ADDRESS_CLAMP => reference.tap(&[i64::from(p[0]), i64::from(p[1])], 0),
            _ => reference.at(&[p[0].clamp(0, w as i32 - 1) as usize, p[1].clamp(0, h as i32 - 1) as usize], 0),
        }).collect();
        let (c, o) = (buf(&env, &pts), env.buffer(CL_MEM_READ_WRITE, pts.len() * 16));
        let smp = sampler(&env, s);
        run(&env, program, "int_coords", &[A::Img(&img), A::Smp(&smp), A::Buf(&c), A::Buf(&o)], &[pts.len()]);
        check(&format!("{s:?}"), &get::<f32>(&env, &o, pts.len() * 4), &want, 1e-6);
    }
    let want: Vec<[f64; 4]> = inside.iter().map(|p| reference.at(&[p[0] as usize, p[1] as usize], 0)).collect();
    let (c, o) = (buf(&env, &inside), env.buffer(CL_MEM_READ_WRITE, inside.len() * 16));
    run(&env, program, "fetch", &[A::Img(&img), A::Buf(&c), A::Buf(&o)], &[inside.len()]);
    check("samplerless", &get::<f32>(&env, &o, inside.len() * 4), &want, 1e-6);
    unsafe { clReleaseProgram(program) };
}

/// `read_imagei` and `read_imageui` (nearest; linear filtering does not apply to integer
/// reads), with the border colour of orders with and without alpha.
#[test]
fn read_integer_images_and_border_colours() {
    let env = Env::new();
    let (w, h) = (4, 3);
    let ints: Vec<i32> = (0..(w * h * 4) as i32).map(|i| i * 7919 - 40000).collect();
    let signed = image(&env, CL_MEM_OBJECT_IMAGE2D, CL_RGBA, CL_SIGNED_INT32, [w, h, 1], 0, &as_bytes(&ints));
    let signed_ref = RefImage { size: vec![w, h], layers: 1, texels: ints.chunks(4).map(|c| [0, 1, 2, 3].map(|k| f64::from(c[k]))).collect(), border: [0.0; 4] };
    let reds: Vec<u8> = (0..(w * h) as u8).map(|i| i * 17 + 3).collect();
    let red = image(&env, CL_MEM_OBJECT_IMAGE2D, CL_R, CL_UNSIGNED_INT8, [w, h, 1], 0, &reds);
    // A missing channel reads as 0, a missing alpha as 1; the border of CL_R has alpha 1.
    let red_ref = RefImage { size: vec![w, h], layers: 1, texels: reds.iter().map(|&r| [f64::from(r), 0.0, 0.0, 1.0]).collect(), border: [0.0, 0.0, 0.0, 1.0] };
    let program = build(
        env.context,
        env.device,
        "kernel void ri(read_only image2d_t img, sampler_t s, global const float2 *c, global float4 *o) {
             int i = get_global_id(0); o[i] = convert_float4(read_imagei(img, s, c[i]));
         }
         kernel void rui(read_only image2d_t img, sampler_t s, global const float2 *c, global float4 *o) {
             int i = get_global_id(0); o[i] = convert_float4(read_imageui(img, s, c[i]));
         }",
    );
    for s in all_samplers() {
        let inside = s.addressing == CL_ADDRESS_NONE;
        let pts: Vec<[f32; 2]> = coords(w, s.normalized, inside).iter().flat_map(|&x| coords(h, s.normalized, inside).into_iter().map(move |y| [x, y])).collect();
        let c = buf(&env, &pts);
        let o = env.buffer(CL_MEM_READ_WRITE, pts.len() * 16);
        let smp = sampler(&env, s);
        for (name, img, reference) in [("ri", &signed, &signed_ref), ("rui", &red, &red_ref)] {
            run(&env, program, name, &[A::Img(img), A::Smp(&smp), A::Buf(&c), A::Buf(&o)], &[pts.len()]);
            let want: Vec<[f64; 4]> = pts.iter().map(|p| reference.sample(s, p, false)).collect();
            // (The signed values are exact in a float up to 2^24.)
            check(&format!("{name} {s:?}"), &get::<f32>(&env, &o, pts.len() * 4), &want, 0.0);
        }
    }
    unsafe { clReleaseProgram(program) };
}

/// 1D, 1D array, 2D array and 3D float images: linear and nearest through the modes,
/// arrays' layers rounded to the nearest even integer and clamped.
#[test]
fn read_imagef_other_shapes() {
    let env = Env::new();
    // (image type, OpenCL C type, float coordinate type, size, layers)
    let shapes = [
        (CL_MEM_OBJECT_IMAGE1D, "image1d_t", "float", [7usize, 1, 1], 1usize),
        (CL_MEM_OBJECT_IMAGE1D_ARRAY, "image1d_array_t", "float2", [6, 1, 1], 3),
        (CL_MEM_OBJECT_IMAGE2D_ARRAY, "image2d_array_t", "float4", [4, 3, 1], 3),
        (CL_MEM_OBJECT_IMAGE3D, "image3d_t", "float4", [4, 3, 3], 1),
    ];
    for (ty, cl_ty, coord_ty, size, layers) in shapes {
        let axes = match ty {
            CL_MEM_OBJECT_IMAGE1D | CL_MEM_OBJECT_IMAGE1D_ARRAY => 1,
            CL_MEM_OBJECT_IMAGE2D_ARRAY => 2,
            _ => 3,
        };
        let count = size[..axes].iter().product::<usize>() * layers;
        let values: Vec<f32> = (0..count * 4).map(|i| ((i * 37 % 101) as f32) / 8.0 - 3.0).collect();
        let texels = values.chunks(4).map(|c| [0, 1, 2, 3].map(|k| f64::from(c[k]))).collect();
        let reference = RefImage { size: size[..axes].to_vec(), layers, texels, border: [0.0; 4] };
        let (height, depth) = match ty {
            CL_MEM_OBJECT_IMAGE1D_ARRAY => (layers, 1),
            CL_MEM_OBJECT_IMAGE2D_ARRAY => (size[1], layers),
            _ => (size[1], size[2]),
        };
        let arrayed = layers > 1;
        let img = image(&env, ty, CL_RGBA, CL_FLOAT, [size[0], height, depth], if arrayed { layers } else { 0 }, &as_bytes(&values));
        let width = if coord_ty == "float" { 1 } else if coord_ty == "float2" { 2 } else { 4 };
        let src = format!(
            "kernel void k(read_only {cl_ty} img, sampler_t s, global const float4 *c, global float4 *o) {{
                 int i = get_global_id(0);
                 float4 p = c[i];
                 o[i] = read_imagef(img, s, {});
             }}",
            match width {
                1 => "p.x",
                2 => "p.xy",
                _ => "p",
            }
        );
        let program = build(env.context, env.device, &src);
        for s in all_samplers() {
            let inside = s.addressing == CL_ADDRESS_NONE;
            let mut pts: Vec<[f32; 4]> = vec![[0.0; 4]];
            for k in 0..axes {
                let cs = coords(size[k], s.normalized, inside);
                // A few coordinates per axis keep the 3D case small.
                let cs: Vec<f32> = cs.iter().copied().step_by(if axes == 3 { 5 } else { 2 }).collect();
                pts = pts.iter().flat_map(|p| cs.iter().map(move |&c| { let mut q = *p; q[k] = c; q })).collect();
            }
            if arrayed {
                // Layers: below 0, halves (rounded to even), past the last.
                let ls = [-1.2f32, 0.5, 1.5, 1.2, 2.5, 7.0];
                pts = pts.iter().flat_map(|p| ls.iter().map(move |&l| { let mut q = *p; q[axes] = l; q })).collect();
            }
            let want: Vec<[f64; 4]> = pts.iter().map(|p| reference.sample(s, &p[..axes + usize::from(arrayed)], true)).collect();
            let (c, o) = (buf(&env, &pts), env.buffer(CL_MEM_READ_WRITE, pts.len() * 16));
            let smp = sampler(&env, s);
            run(&env, program, "k", &[A::Img(&img), A::Smp(&smp), A::Buf(&c), A::Buf(&o)], &[pts.len()]);
            let tol = if s.linear { 1e-3 } else { 0.0 };
            check(&format!("{cl_ty} {s:?}"), &get::<f32>(&env, &o, pts.len() * 4), &want, tol);
        }
        unsafe { clReleaseProgram(program) };
    }
}

/// `write_imagef`/`_i`/`_ui` to every shape, read back with clEnqueueReadImage.
#[test]
fn write_images() {
    let env = Env::new();
    let program = build(
        env.context,
        env.device,
        "kernel void wf(write_only image2d_t img) {
             int x = get_global_id(0), y = get_global_id(1);
             write_imagef(img, (int2)(x, y), (float4)(x, y, x * 0.5f, -1.0f));
         }
         kernel void wi(write_only image2d_array_t img) {
             int x = get_global_id(0), y = get_global_id(1), l = get_global_id(2);
             write_imagei(img, (int4)(x, y, l, 0), (int4)(x - 3, -y, l * 1000, 7));
         }
         kernel void wui(write_only image1d_array_t img) {
             int x = get_global_id(0), l = get_global_id(1);
             write_imageui(img, (int2)(x, l), (uint4)(x, l, 65535, x * l));
         }
         kernel void w1(write_only image1d_t img) {
             int x = get_global_id(0);
             write_imagef(img, x, (float4)(0.25f * x));
         }",
    );
    let (w, h, layers) = (5usize, 4usize, 3usize);
    let f = image(&env, CL_MEM_OBJECT_IMAGE2D, CL_RGBA, CL_FLOAT, [w, h, 1], 0, &[]);
    run(&env, program, "wf", &[A::Img(&f)], &[w, h]);
    let got: Vec<f32> = from_bytes(&read_image(&env, &f, [w, h, 1], w * h * 16));
    let want: Vec<f32> = (0..h).flat_map(|y| (0..w).flat_map(move |x| [x as f32, y as f32, x as f32 * 0.5, -1.0])).collect();
    assert_eq!(got, want, "write_imagef");
    let i = image(&env, CL_MEM_OBJECT_IMAGE2D_ARRAY, CL_RGBA, CL_SIGNED_INT32, [w, h, 1], layers, &[]);
    run(&env, program, "wi", &[A::Img(&i)], &[w, h, layers]);
    let got: Vec<i32> = from_bytes(&read_image(&env, &i, [w, h, layers], w * h * layers * 16));
    let want: Vec<i32> = (0..layers as i32)
        .flat_map(|l| (0..h as i32).flat_map(move |y| (0..w as i32).flat_map(move |x| [x - 3, -y, l * 1000, 7])))
        .collect();
    assert_eq!(got, want, "write_imagei");
    let u = image(&env, CL_MEM_OBJECT_IMAGE1D_ARRAY, CL_RGBA, CL_UNSIGNED_INT16, [w, 1, 1], layers, &[]);
    run(&env, program, "wui", &[A::Img(&u)], &[w, layers]);
    let got: Vec<u16> = from_bytes(&read_image(&env, &u, [w, layers, 1], w * layers * 8));
    let want: Vec<u16> = (0..layers as u16).flat_map(|l| (0..w as u16).flat_map(move |x| [x, l, 65535, x * l])).collect();
    assert_eq!(got, want, "write_imageui");
    let one = image(&env, CL_MEM_OBJECT_IMAGE1D, CL_RGBA, CL_UNORM_INT8, [w, 1, 1], 0, &[]);
    run(&env, program, "w1", &[A::Img(&one)], &[w]);
    let got = read_image(&env, &one, [w, 1, 1], w * 4);
    // 0.25 x as unorm8: round(0.25 x · 255), saturated.
    let want: Vec<u8> = (0..w).flat_map(|x| [((0.25 * x as f32).min(1.0) * 255.0).round() as u8; 4]).collect();
    assert_eq!(got, want, "write_imagef to unorm8");
    unsafe { clReleaseProgram(program) };
}

/// 3D writes (`cl_khr_3d_image_writes`).
#[test]
fn write_image_3d() {
    let env = Env::new();
    let program = build(
        env.context,
        env.device,
        "kernel void w(write_only image3d_t img) {
             int4 p = (int4)(get_global_id(0), get_global_id(1), get_global_id(2), 0);
             write_imageui(img, p, (uint4)(p.x + 10 * p.y + 100 * p.z, 0, 0, 0));
         }",
    );
    let size = [4usize, 3, 2];
    let img = image(&env, CL_MEM_OBJECT_IMAGE3D, CL_R, CL_UNSIGNED_INT32, size, 0, &[]);
    run(&env, program, "w", &[A::Img(&img)], &size);
    let got: Vec<u32> = from_bytes(&read_image(&env, &img, size, 4 * 3 * 2 * 4));
    let want: Vec<u32> = (0..2u32).flat_map(|z| (0..3u32).flat_map(move |y| (0..4u32).map(move |x| x + 10 * y + 100 * z))).collect();
    assert_eq!(got, want);
    unsafe { clReleaseProgram(program) };
}

/// The image queries, of read and write images.
#[test]
fn image_queries() {
    let env = Env::new();
    let program = build(
        env.context,
        env.device,
        "kernel void q(read_only image2d_array_t a, write_only image3d_t b, read_only image1d_t c, global int *o) {
             o[0] = get_image_width(a); o[1] = get_image_height(a); o[2] = (int)get_image_array_size(a);
             o[3] = get_image_dim(a).x; o[4] = get_image_dim(a).y;
             o[5] = get_image_width(b); o[6] = get_image_height(b); o[7] = get_image_depth(b);
             int4 d = get_image_dim(b); o[8] = d.x; o[9] = d.y; o[10] = d.z; o[11] = d.w;
             o[12] = get_image_width(c);
             o[13] = get_image_channel_order(a); o[14] = get_image_channel_data_type(a);
             o[15] = get_image_channel_order(b); o[16] = get_image_channel_data_type(b);
             o[17] = get_image_channel_order(c); o[18] = get_image_channel_data_type(c);
             o[19] = CLK_RGBA; o[20] = CLK_UNORM_INT8;
         }",
    );
    let a = image(&env, CL_MEM_OBJECT_IMAGE2D_ARRAY, CL_RGBA, CL_UNORM_INT8, [7, 5, 1], 3, &[]);
    let b = image(&env, CL_MEM_OBJECT_IMAGE3D, CL_RGBA, CL_FLOAT, [4, 3, 2], 0, &[]);
    let c = image(&env, CL_MEM_OBJECT_IMAGE1D, CL_R, CL_SIGNED_INT16, [9, 1, 1], 0, &[]);
    let o = env.buffer(CL_MEM_READ_WRITE, 21 * 4);
    run(&env, program, "q", &[A::Img(&a), A::Img(&b), A::Img(&c), A::Buf(&o)], &[1]);
    let rgba = CL_RGBA as i32;
    let want = [7, 5, 3, 7, 5, 4, 3, 2, 4, 3, 2, 0, 9, rgba, CL_UNORM_INT8 as i32, rgba, CL_FLOAT as i32, CL_R as i32, CL_SIGNED_INT16 as i32, rgba, CL_UNORM_INT8 as i32];
    assert_eq!(get::<i32>(&env, &o, 21), want);
    unsafe { clReleaseProgram(program) };
}

/// Images and samplers passed on to helper functions, one sampler declared in the kernel.
#[test]
fn images_through_helpers() {
    let env = Env::new();
    let (w, h) = (5, 3);
    let (bytes, reference) = rgba8(w, h);
    let src = image(&env, CL_MEM_OBJECT_IMAGE2D, CL_RGBA, CL_UNORM_INT8, [w, h, 1], 0, &bytes);
    let dst = image(&env, CL_MEM_OBJECT_IMAGE2D, CL_RGBA, CL_FLOAT, [w, h, 1], 0, &[]);
    let program = build(
        env.context,
        env.device,
        "float4 get(read_only image2d_t img, sampler_t s, int2 at) { return read_imagef(img, s, at); }
         void put(write_only image2d_t img, int2 at, float4 v) { write_imagef(img, at, v); }
         kernel void copy(read_only image2d_t src, write_only image2d_t dst) {
             const sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
             int2 at = (int2)(get_global_id(0), get_global_id(1));
             put(dst, at, get(src, s, at) + get(src, s, at + (int2)(1, 0)));
         }",
    );
    run(&env, program, "copy", &[A::Img(&src), A::Img(&dst)], &[w, h]);
    let got: Vec<f32> = from_bytes(&read_image(&env, &dst, [w, h, 1], w * h * 16));
    let want: Vec<[f64; 4]> = (0..h as i64)
        .flat_map(|y| (0..w as i64).map(move |x| (x, y)))
        .map(|(x, y)| {
            let (a, b) = (reference.tap(&[x, y], 0), reference.tap(&[x + 1, y], 0));
            [0, 1, 2, 3].map(|k| a[k] + b[k])
        })
        .collect();
    check("copy through helpers", &got, &want, 1e-6);
    unsafe { clReleaseProgram(program) };
}

/// `image1d_buffer_t`: texel buffers read and written by index, over buffers.
#[test]
fn image1d_buffers() {
    let env = Env::new();
    let n = 37;
    let src: Vec<u16> = (0..n * 4).map(|i| (i * 1009 % 65536) as u16).collect();
    let src_buf = env.buffer_from(&as_bytes(&src));
    let dst_buf = env.buffer(CL_MEM_READ_WRITE, n * 16);
    let a = image_with(&env, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE1D_BUFFER, CL_RGBA, CL_UNSIGNED_INT16, [n, 1, 1], 0, &[], src_buf.0);
    let b = image_with(&env, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE1D_BUFFER, CL_RGBA, CL_SIGNED_INT32, [n, 1, 1], 0, &[], dst_buf.0);
    let program = build(
        env.context,
        env.device,
        "kernel void k(read_only image1d_buffer_t a, write_only image1d_buffer_t b) {
             int i = get_global_id(0);
             uint4 v = read_imageui(a, i);
             write_imagei(b, i, convert_int4(v) - (int4)(get_image_width(a), get_image_width(b), get_image_channel_data_type(a), i));
         }",
    );
    run(&env, program, "k", &[A::Img(&a), A::Img(&b)], &[n]);
    let got: Vec<i32> = get(&env, &dst_buf, n * 4);
    let want: Vec<i32> = src.chunks(4).enumerate().flat_map(|(i, c)| {
        [i32::from(c[0]) - n as i32, i32::from(c[1]) - n as i32, i32::from(c[2]) - CL_UNSIGNED_INT16 as i32, i32::from(c[3]) - i as i32]
    }).collect();
    assert_eq!(got, want);
    unsafe { clReleaseProgram(program) };
}

/// The orders' texels as `read_imagef` returns them (missing colour channels 0, missing alpha
/// 1, intensity and luminance replicated) and `CL_ADDRESS_CLAMP`'s border colour: alpha 1
/// for the orders without alpha, else 0; from 2D images and from 2D images made from buffers.
/// Orders the device does not support are skipped.
#[test]
fn channel_orders_and_border_colours() {
    let env = Env::new();
    let mut count = 0;
    let n = unsafe {
        clGetSupportedImageFormats(env.context, CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D, 0, null_mut(), &mut count);
        count
    };
    let mut formats: Vec<cl_image_format> = (0..n).map(|_| cl_image_format { image_channel_order: 0, image_channel_data_type: 0 }).collect();
    ok(unsafe { clGetSupportedImageFormats(env.context, CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D, n, formats.as_mut_ptr(), null_mut()) });
    let program = build(
        env.context,
        env.device,
        "kernel void k(read_only image2d_t img, global float4 *o) {
             const sampler_t s = CLK_ADDRESS_CLAMP;
             o[0] = read_imagef(img, s, (int2)(0, 0));
             o[1] = read_imagef(img, s, (int2)(-1, 0));
             o[2] = read_imagef(img, s, (float2)(0.5f, 7.5f));
         }",
    );
    // (order, channels, texel from channel bytes 10, 20, 30, 40 / 255, border alpha)
    let orders: [(cl_uint, usize, [f64; 4], f64); 10] = [
        (CL_R, 1, [10.0, 0.0, 0.0, 255.0], 1.0),
        (CL_A, 1, [0.0, 0.0, 0.0, 10.0], 0.0),
        (CL_RG, 2, [10.0, 20.0, 0.0, 255.0], 1.0),
        (CL_RA, 2, [10.0, 0.0, 0.0, 20.0], 0.0),
        (CL_RGBA, 4, [10.0, 20.0, 30.0, 40.0], 0.0),
        (CL_BGRA, 4, [30.0, 20.0, 10.0, 40.0], 0.0),
        (CL_ARGB, 4, [20.0, 30.0, 40.0, 10.0], 0.0),
        (CL_ABGR, 4, [40.0, 30.0, 20.0, 10.0], 0.0),
        (CL_INTENSITY, 1, [10.0, 10.0, 10.0, 10.0], 0.0),
        (CL_LUMINANCE, 1, [10.0, 10.0, 10.0, 255.0], 1.0),
    ];
    let mut tested = 0;
    for (order, channels, texel, alpha) in orders {
        if !formats.iter().any(|f| f.image_channel_order == order && f.image_channel_data_type == CL_UNORM_INT8) {
            continue;
        }
        tested += 1;
        let bytes: Vec<u8> = [10u8, 20, 30, 40][..channels].to_vec();
        let img = image_with(&env, CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D, order, CL_UNORM_INT8, [1, 1, 1], 0, &bytes, null_mut());
        // The same texel in a 2D image made from a buffer (the kernel arranges the channels).
        let buffer = env.buffer_from(&bytes);
        let from_buffer = image_from_buffer(&env, CL_MEM_READ_ONLY, order, CL_UNORM_INT8, [1, 1], 0, buffer.0);
        let want = [texel.map(|c| c / 255.0), [0.0, 0.0, 0.0, alpha], [0.0, 0.0, 0.0, alpha]];
        for (what, img) in [("an image", &img), ("from a buffer", &from_buffer)] {
            let o = env.buffer(CL_MEM_READ_WRITE, 48);
            run(&env, program, "k", &[A::Img(img), A::Buf(&o)], &[1]);
            check(&format!("order {order:#x}, {what}"), &get::<f32>(&env, &o, 12), &want, 1e-6);
        }
    }
    assert!(tested >= 3, "only {tested} orders supported");
    unsafe { clReleaseProgram(program) };
}

/// OpenCL's sRGB → linear decoding of a channel byte.
fn srgb_decode(byte: u8) -> f64 {
    let c = f64::from(byte) / 255.0;
    if c <= 0.04045 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
}

/// OpenCL's linear → sRGB encoding of a channel, in steps of the 8-bit encoding.
fn srgb_steps(c: f64) -> f64 {
    let c = c.clamp(0.0, 1.0);
    255.0 * if c < 0.0031308 { 12.92 * c } else { 1.055 * c.powf(1.0 / 2.4) - 0.055 }
}

/// Asserts that `got` matches `want` as OpenCL bounds sRGB reads: the colour channels within
/// half a step once encoded back to sRGB (the CTS's rule: Vulkan decodes by approximation,
/// lavapipe within 1.6 %), alpha within `1e-4`.
#[track_caller]
fn check_srgb(what: &str, got: &[f32], want: &[[f64; 4]]) {
    assert_eq!(got.len(), want.len() * 4, "{what}");
    for (i, w) in want.iter().enumerate() {
        let g = &got[4 * i..4 * i + 4];
        let colour = (0..3).all(|c| (srgb_steps(f64::from(g[c])) - srgb_steps(w[c])).abs() <= 0.5);
        assert!(colour && (f64::from(g[3]) - w[3]).abs() <= 1e-4, "{what}: texel {i}: got {g:?}, want {w:?}");
    }
}

/// sRGB images read as linear values: every byte value decoded (alpha and sRGBx's unused
/// byte are not), and linear filtering of the decoded texels. Orders the device lacks are
/// skipped; sRGBA is required.
#[test]
fn srgb_images_read_linear() {
    let env = Env::new();
    let program = build(env.context, env.device, SAMPLE_2D);
    let (w, h) = (16, 16);
    let bytes_per = |order| if order == CL_sRGB { 3 } else { 4 };
    for order in [CL_sRGBA, CL_sBGRA, CL_sRGBx, CL_sRGB] {
        let element = bytes_per(order);
        // Every byte value in every channel, in a different texel per channel.
        let bytes: Vec<u8> = (0..w * h).flat_map(|t| (0..element).map(move |c| ((t * (2 * c + 1) + 17 * c) % 256) as u8)).collect();
        let format = cl_image_format { image_channel_order: order, image_channel_data_type: CL_UNORM_INT8 };
        let desc = image2d_desc(w, h);
        let mut err = 0;
        let mem = unsafe { clCreateImage(env.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &format, &desc, bytes.as_ptr() as *mut c_void, &mut err) };
        if err == CL_IMAGE_FORMAT_NOT_SUPPORTED && order != CL_sRGBA {
            continue;
        }
        ok(err);
        let img = Image(mem);
        let texels: Vec<[f64; 4]> = bytes
            .chunks(element)
            .map(|t| match order {
                o if o == CL_sBGRA => [srgb_decode(t[2]), srgb_decode(t[1]), srgb_decode(t[0]), f64::from(t[3]) / 255.0],
                o if o == CL_sRGBA => [srgb_decode(t[0]), srgb_decode(t[1]), srgb_decode(t[2]), f64::from(t[3]) / 255.0],
                _ => [srgb_decode(t[0]), srgb_decode(t[1]), srgb_decode(t[2]), 1.0],
            })
            .collect();
        let border = if order == CL_sRGBA || order == CL_sBGRA { [0.0; 4] } else { [0.0, 0.0, 0.0, 1.0] };
        let reference = RefImage { size: vec![w, h], layers: 1, texels, border };
        // Every texel by a samplerless read.
        let pts: Vec<[i32; 2]> = (0..h as i32).flat_map(|y| (0..w as i32).map(move |x| [x, y])).collect();
        let (c, o) = (buf(&env, &pts), env.buffer(CL_MEM_READ_WRITE, pts.len() * 16));
        run(&env, program, "fetch", &[A::Img(&img), A::Buf(&c), A::Buf(&o)], &[pts.len()]);
        let want: Vec<[f64; 4]> = pts.iter().map(|p| reference.at(&[p[0] as usize, p[1] as usize], 0)).collect();
        check_srgb(&format!("order {order:#x}, fetched"), &get::<f32>(&env, &o, pts.len() * 4), &want);
        // Linear filtering averages decoded texels, with the border outside.
        let s = SamplerDesc { normalized: true, addressing: CL_ADDRESS_CLAMP, linear: true };
        let xs = coords(w, true, false);
        let pts: Vec<[f32; 2]> = xs.iter().step_by(3).flat_map(|&x| xs.iter().step_by(5).map(move |&y| [x, y])).collect();
        let want: Vec<[f64; 4]> = pts.iter().map(|p| reference.sample(s, p, true)).collect();
        let (c, o) = (buf(&env, &pts), env.buffer(CL_MEM_READ_WRITE, pts.len() * 16));
        let smp = sampler(&env, s);
        run(&env, program, "by_arg", &[A::Img(&img), A::Smp(&smp), A::Buf(&c), A::Buf(&o)], &[pts.len()]);
        check_srgb(&format!("order {order:#x}, linear"), &get::<f32>(&env, &o, pts.len() * 4), &want);
    }
    unsafe { clReleaseProgram(program) };
}

/// A 2D image of `w` × `h` texels made from `buffer`, its rows `pitch` bytes apart.
fn image_from_buffer(env: &Env, flags: cl_mem_flags, order: cl_uint, data_type: cl_uint, [w, h]: [usize; 2], pitch: usize, buffer: cl_mem) -> Image {
    let format = cl_image_format { image_channel_order: order, image_channel_data_type: data_type };
    let desc = cl_image_desc { image_row_pitch: pitch, buffer, ..image2d_desc(w, h) };
    let mut err = 0;
    let mem = unsafe { clCreateImage(env.context, flags, &format, &desc, null_mut(), &mut err) };
    ok(err);
    Image(mem)
}

/// 2D images made from buffers in kernels (texel buffers read at y · pitch + x): every sampler
/// reads them as it reads a 2D image of the same texels, the same kernel serves both kinds of
/// image (alone and side by side), and writes land in the buffer's rows, the padding between
/// rows untouched.
#[test]
fn image2d_from_buffer_in_kernels() {
    let env = Env::new();
    let (w, h, pitch) = (5usize, 3usize, 32usize);
    let (packed, reference) = rgba8(w, h);
    // The texels in rows `pitch` apart, padding between them.
    let mut rows = pattern(pitch * h, 9);
    for y in 0..h {
        rows[y * pitch..y * pitch + 4 * w].copy_from_slice(&packed[y * 4 * w..(y + 1) * 4 * w]);
    }
    let buffer = env.buffer_from(&rows);
    let from_buffer = image_from_buffer(&env, CL_MEM_READ_ONLY, CL_RGBA, CL_UNORM_INT8, [w, h], pitch, buffer.0);
    let plain = image(&env, CL_MEM_OBJECT_IMAGE2D, CL_RGBA, CL_UNORM_INT8, [w, h, 1], 0, &packed);
    let program = build(env.context, env.device, SAMPLE_2D);
    for s in all_samplers() {
        let (pts, want) = points_2d(w, h, s, &reference);
        let (c, o) = (buf(&env, &pts), env.buffer(CL_MEM_READ_WRITE, pts.len() * 16));
        let smp = sampler(&env, s);
        let tol = if s.linear { 1e-4 } else { 1e-6 };
        for (what, img) in [("from a buffer", &from_buffer), ("a 2D image", &plain)] {
            run(&env, program, "by_arg", &[A::Img(img), A::Smp(&smp), A::Buf(&c), A::Buf(&o)], &[pts.len()]);
            check(&format!("{s:?}, {what}"), &get::<f32>(&env, &o, pts.len() * 4), &want, tol);
        }
    }
    unsafe { clReleaseProgram(program) };

    // Integer texels written through one image from a buffer and read through another, and
    // from a 2D image into an image from a buffer, in one kernel.
    let src = "kernel void copy(read_only image2d_t a, write_only image2d_t b) {
             int2 p = (int2)(get_global_id(0), get_global_id(1));
             uint4 v = read_imageui(a, p);
             write_imageui(b, p, v + (uint4)(p.x, p.y, get_image_width(a), get_image_height(b)));
         }";
    let program = build(env.context, env.device, src);
    let (w, h) = (6usize, 4usize);
    let (src_pitch, dst_pitch) = (w * 8 + 16, w * 8 + 8);
    let texels: Vec<u16> = (0..w * h * 4).map(|i| (i * 977 % 60000) as u16).collect();
    let mut src_rows = vec![0u8; src_pitch * h];
    for y in 0..h {
        src_rows[y * src_pitch..y * src_pitch + 8 * w].copy_from_slice(&as_bytes(&texels[y * w * 4..(y + 1) * w * 4]));
    }
    let src_buf = env.buffer_from(&src_rows);
    let dst_rows = pattern(dst_pitch * h, 11);
    let dst_buf = env.buffer_from(&dst_rows);
    let a = image_from_buffer(&env, CL_MEM_READ_ONLY, CL_RGBA, CL_UNSIGNED_INT16, [w, h], src_pitch, src_buf.0);
    let b = image_from_buffer(&env, CL_MEM_WRITE_ONLY, CL_RGBA, CL_UNSIGNED_INT16, [w, h], dst_pitch, dst_buf.0);
    let expect = |src: &[u16]| -> Vec<u8> {
        let mut out = dst_rows.clone();
        for y in 0..h {
            for x in 0..w {
                let t = &src[(y * w + x) * 4..(y * w + x) * 4 + 4];
                let v = [t[0] + x as u16, t[1] + y as u16, t[2] + w as u16, t[3] + h as u16];
                out[y * dst_pitch + 8 * x..y * dst_pitch + 8 * x + 8].copy_from_slice(&as_bytes(&v));
            }
        }
        out
    };
    run(&env, program, "copy", &[A::Img(&a), A::Img(&b)], &[w, h]);
    assert_eq!(env.read(&dst_buf, 0, dst_rows.len()), expect(&texels), "image from buffer to image from buffer");
    env.write(&dst_buf, 0, &dst_rows);
    let other: Vec<u16> = texels.iter().map(|t| t ^ 0x0f0f).collect();
    let plain = image(&env, CL_MEM_OBJECT_IMAGE2D, CL_RGBA, CL_UNSIGNED_INT16, [w, h, 1], 0, &as_bytes(&other));
    run(&env, program, "copy", &[A::Img(&plain), A::Img(&b)], &[w, h]);
    assert_eq!(env.read(&dst_buf, 0, dst_rows.len()), expect(&other), "2D image to image from buffer");
    unsafe { clReleaseProgram(program) };
}

/// `read_imageh` of a float image rounds each texel to half (to nearest even), and
/// `write_imageh` into a half-float image stores those halves' bits.
#[test]
fn half_reads_and_writes() {
    if !has_extension("cl_khr_fp16") {
        return;
    }
    let env = Env::new();
    let w = 4;
    // 0.1 and 1/3 are not halves; 2^-20 is a subnormal half; 70000 overflows to infinity.
    let values: [f32; 16] = [0.1, 1.0 / 3.0, 2f32.powi(-20), 70000.0, -0.1, 1.0, 65504.0, -2.5, 1e-3, 0.5, 2049.0, -7e-5, 3.0, 0.0, -0.0, 1e-8];
    let img = image(&env, CL_MEM_OBJECT_IMAGE2D, CL_RGBA, CL_FLOAT, [w, 1, 1], 0, &as_bytes(&values));
    let out = image(&env, CL_MEM_OBJECT_IMAGE2D, CL_RGBA, CL_HALF_FLOAT, [w, 1, 1], 0, &[0u8; 32]);
    let src = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable
        kernel void k(read_only image2d_t img, write_only image2d_t out, global half4 *o) {
            int i = get_global_id(0);
            half4 h = read_imageh(img, (int2)(i, 0));
            o[i] = h;
            write_imageh(out, (int2)(i, 0), h);
        }";
    let program = build(env.context, env.device, src);
    let o = env.buffer(CL_MEM_READ_WRITE, 32);
    run(&env, program, "k", &[A::Img(&img), A::Img(&out), A::Buf(&o)], &[w]);
    // Half bits of each value rounded to nearest even (2049 is a tie: 2048), as Python's
    // struct 'e' format gives them.
    let want: [u16; 16] = [0x2e66, 0x3555, 0x0010, 0x7c00, 0xae66, 0x3c00, 0x7bff, 0xc100, 0x1419, 0x3800, 0x6800, 0x8496, 0x4200, 0x0000, 0x8000, 0x0000];
    assert_eq!(get::<u16>(&env, &o, 16), want, "read_imageh");
    assert_eq!(from_bytes::<u16>(&read_image(&env, &out, [w, 1, 1], 32)), want, "write_imageh");
    unsafe { clReleaseProgram(program) };
}

/// A kernel taking as many read images as the device reports (128 on a full-profile device)
/// and a buffer, then as many write images: more than lavapipe binds in a plain descriptor
/// set, so these take the layout for update-after-bind pools.
#[test]
fn as_many_image_arguments_as_reported() {
    let env = Env::new();
    let reads: cl_uint = device_info(CL_DEVICE_MAX_READ_IMAGE_ARGS);
    let writes: cl_uint = device_info(CL_DEVICE_MAX_WRITE_IMAGE_ARGS);
    assert!(reads >= 128 && writes >= 64, "reported {reads} read and {writes} write image arguments");
    let texel = |i: u32| as_bytes(&[i * 7 + 1, i, 0u32, 0]);
    let sources: Vec<Image> = (0..reads).map(|i| image(&env, CL_MEM_OBJECT_IMAGE2D, CL_RGBA, CL_UNSIGNED_INT32, [1, 1, 1], 0, &texel(i))).collect();
    let params = |kind: &str, n: u32| (0..n).map(|i| format!("{kind} image2d_t i{i}, ")).collect::<String>();
    let sum = (0..reads).map(|i| format!("read_imageui(i{i}, (int2)(0)).x")).collect::<Vec<_>>().join(" + ");
    let stores = (0..writes).map(|i| format!("write_imageui(i{i}, (int2)(0), (uint4)({i} * 3 + v));")).collect::<String>();
    let program = build(
        env.context,
        env.device,
        &format!(
            "kernel void reads({} global uint *out) {{ out[0] = {sum}; }}
             kernel void writes({} uint v) {{ {stores} }}",
            params("read_only", reads),
            params("write_only", writes)
        ),
    );
    let out = buf(&env, &[0u32]);
    let mut args: Vec<A> = sources.iter().map(A::Img).collect();
    args.push(A::Buf(&out));
    run(&env, program, "reads", &args, &[1]);
    assert_eq!(get::<u32>(&env, &out, 1), [(0..reads).map(|i| i * 7 + 1).sum::<u32>()]);

    let targets: Vec<Image> = (0..writes).map(|_| image(&env, CL_MEM_OBJECT_IMAGE2D, CL_RGBA, CL_UNSIGNED_INT32, [1, 1, 1], 0, &[])).collect();
    let k = kernel(program, "writes");
    for (i, t) in targets.iter().enumerate() {
        ok(unsafe { clSetKernelArg(k, i as cl_uint, std::mem::size_of::<cl_mem>(), (&t.0 as *const cl_mem).cast()) });
    }
    let v: cl_uint = 5;
    ok(unsafe { clSetKernelArg(k, writes, std::mem::size_of::<cl_uint>(), (&v as *const cl_uint).cast()) });
    ok(unsafe { clEnqueueNDRangeKernel(env.queue, k, 1, null(), [1usize].as_ptr(), null(), 0, null(), null_mut()) });
    env.finish();
    for (i, t) in targets.iter().enumerate() {
        let got: Vec<u32> = from_bytes(&read_image(&env, t, [1, 1, 1], 16));
        assert_eq!(got, [i as u32 * 3 + 5; 4], "write image {i}");
    }
    unsafe { clReleaseKernel(k) };
    unsafe { clReleaseProgram(program) };
}
