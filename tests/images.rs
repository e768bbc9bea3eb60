//! Images and samplers on the host side: every image type written and read back at pitches,
//! copies, fills and maps against a model of the texels kept on the CPU, the info queries and
//! the errors of bad descriptors, formats and regions.
mod common;

use common::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};

#[link(name = "OpenCL")]
extern "system" {
    fn clCreateImageWithProperties(context: cl_context, props: *const cl_ulong, flags: cl_mem_flags, format: *const cl_image_format, desc: *const cl_image_desc, host: *mut c_void, err: *mut cl_int) -> cl_mem;
    fn clCreateSamplerWithProperties(context: cl_context, props: *const cl_ulong, err: *mut cl_int) -> cl_sampler;
}

const CL_SAMPLER_PROPERTIES: cl_uint = 0x1158;

/// An image format (`cl_image_format` is not `Copy`).
#[derive(Clone, Copy)]
struct Format(cl_uint, cl_uint);

impl Format {
    fn raw(self) -> cl_image_format {
        cl_image_format { image_channel_order: self.0, image_channel_data_type: self.1 }
    }
}

fn format(order: cl_uint, data_type: cl_uint) -> Format {
    Format(order, data_type)
}

fn rgba8() -> Format {
    format(CL_RGBA, CL_UNSIGNED_INT8)
}

/// An image's shape in OpenCL's terms: width, height (or a 1D array's layers), depth (or a 2D
/// array's layers).
#[derive(Clone, Copy)]
struct Shape {
    ty: cl_uint,
    dims: [usize; 3],
}

impl Shape {
    fn desc(&self, buffer: cl_mem) -> cl_image_desc {
        let [w, h, d] = self.dims;
        let (height, depth, array) = match self.ty {
            CL_MEM_OBJECT_IMAGE1D_ARRAY => (0, 0, h),
            CL_MEM_OBJECT_IMAGE2D_ARRAY => (h, 0, d),
            CL_MEM_OBJECT_IMAGE2D => (h, 0, 0),
            CL_MEM_OBJECT_IMAGE3D => (h, d, 0),
            _ => (0, 0, 0),
        };
        cl_image_desc {
            image_type: self.ty,
            image_width: w,
            image_height: height,
            image_depth: depth,
            image_array_size: array,
            image_row_pitch: 0,
            image_slice_pitch: 0,
            num_mip_levels: 0,
            num_samples: 0,
            buffer,
        }
    }

    fn texels(&self) -> usize {
        self.dims.iter().product()
    }
}

/// An image's texels on the CPU, packed in OpenCL's coordinates.
struct Model {
    shape: Shape,
    element: usize,
    bytes: Vec<u8>,
}

impl Model {
    fn at(&self, [x, y, z]: [usize; 3]) -> usize {
        ((z * self.shape.dims[1] + y) * self.shape.dims[0] + x) * self.element
    }

    /// Where texel `p` of a region lies in host memory at these pitches: a 1D array's layers
    /// are apart by the slice pitch.
    fn host_at(&self, [x, y, z]: [usize; 3], row_pitch: usize, slice_pitch: usize) -> usize {
        if self.shape.ty == CL_MEM_OBJECT_IMAGE1D_ARRAY {
            y * slice_pitch + x * self.element
        } else {
            z * slice_pitch + y * row_pitch + x * self.element
        }
    }

    fn each(region: [usize; 3], mut f: impl FnMut([usize; 3])) {
        for z in 0..region[2] {
            for y in 0..region[1] {
                for x in 0..region[0] {
                    f([x, y, z]);
                }
            }
        }
    }

    /// Host memory holding `region` at the pitches, from the model at `origin` (padding 0xee).
    fn region_out(&self, origin: [usize; 3], region: [usize; 3], pitches: [usize; 2]) -> Vec<u8> {
        let mut out = vec![0xee; host_len(self, region, pitches)];
        Model::each(region, |p| {
            let src = self.at([origin[0] + p[0], origin[1] + p[1], origin[2] + p[2]]);
            let dst = self.host_at(p, pitches[0], pitches[1]);
            out[dst..dst + self.element].copy_from_slice(&self.bytes[src..src + self.element]);
        });
        out
    }

    /// Stores host memory holding `region` at the pitches into the model at `origin`.
    fn region_in(&mut self, origin: [usize; 3], region: [usize; 3], pitches: [usize; 2], host: &[u8]) {
        Model::each(region, |p| {
            let dst = self.at([origin[0] + p[0], origin[1] + p[1], origin[2] + p[2]]);
            let src = self.host_at(p, pitches[0], pitches[1]);
            self.bytes[dst..dst + self.element].copy_from_slice(&host[src..src + self.element]);
        });
    }
}

/// Bytes of host memory a region takes at the pitches (up to the end of its last texel).
fn host_len(m: &Model, region: [usize; 3], pitches: [usize; 2]) -> usize {
    m.host_at([region[0] - 1, region[1] - 1, region[2] - 1], pitches[0], pitches[1]) + m.element
}

fn create(env: &Env, flags: cl_mem_flags, f: Format, desc: &cl_image_desc, host: *mut c_void) -> Result<cl_mem, cl_int> {
    let mut err = 0;
    let m = unsafe { clCreateImage(env.context, flags, &f.raw(), desc, host, &mut err) };
    if err == CL_SUCCESS { Ok(m) } else { Err(err) }
}

/// An image of `f` and `shape` (read-only for the sRGB orders, which kernels do not write).
fn image(env: &Env, f: Format, shape: Shape) -> Mem {
    let flags = if SRGB.contains(&f.0) { CL_MEM_READ_ONLY } else { CL_MEM_READ_WRITE };
    Mem(create(env, flags, f, &shape.desc(null_mut()), null_mut()).expect("image"))
}

const SRGB: [cl_uint; 4] = [CL_sRGBA, CL_sBGRA, CL_sRGBx, CL_sRGB];

fn write(env: &Env, m: cl_mem, origin: [usize; 3], region: [usize; 3], pitches: [usize; 2], data: &[u8]) {
    ok(unsafe { clEnqueueWriteImage(env.queue, m, CL_TRUE, origin.as_ptr(), region.as_ptr(), pitches[0], pitches[1], data.as_ptr().cast(), 0, null(), null_mut()) });
}

fn read(env: &Env, m: cl_mem, origin: [usize; 3], region: [usize; 3], pitches: [usize; 2], len: usize) -> Vec<u8> {
    let mut out = vec![0xee; len];
    ok(unsafe { clEnqueueReadImage(env.queue, m, CL_TRUE, origin.as_ptr(), region.as_ptr(), pitches[0], pitches[1], out.as_mut_ptr().cast(), 0, null(), null_mut()) });
    out
}

/// OpenCL's region of a whole image.
fn whole(shape: Shape) -> [usize; 3] {
    match shape.ty {
        CL_MEM_OBJECT_IMAGE1D | CL_MEM_OBJECT_IMAGE1D_BUFFER => [shape.dims[0], 1, 1],
        CL_MEM_OBJECT_IMAGE1D_ARRAY | CL_MEM_OBJECT_IMAGE2D => [shape.dims[0], shape.dims[1], 1],
        _ => shape.dims,
    }
}

fn image_info<T: Copy>(m: cl_mem, param: cl_image_info) -> T {
    info_value(|s, v, r| unsafe { clGetImageInfo(m, param, s, v, r) })
}

fn mem_info<T: Copy>(m: cl_mem, param: cl_mem_info) -> T {
    info_value(|s, v, r| unsafe { clGetMemObjectInfo(m, param, s, v, r) })
}

const SHAPES: [Shape; 5] = [
    Shape { ty: CL_MEM_OBJECT_IMAGE1D, dims: [37, 1, 1] },
    Shape { ty: CL_MEM_OBJECT_IMAGE1D_ARRAY, dims: [19, 5, 1] },
    Shape { ty: CL_MEM_OBJECT_IMAGE2D, dims: [23, 17, 1] },
    Shape { ty: CL_MEM_OBJECT_IMAGE2D_ARRAY, dims: [13, 11, 4] },
    Shape { ty: CL_MEM_OBJECT_IMAGE3D, dims: [9, 7, 5] },
];

/// A sub-region that starts inside and stops short of the far edges where it can.
fn inner(shape: Shape) -> ([usize; 3], [usize; 3]) {
    let w = whole(shape);
    let origin = w.map(|n| usize::from(n > 2));
    let region: [usize; 3] = std::array::from_fn(|i| if w[i] > 2 { w[i] - 2 } else { w[i] });
    (origin, region)
}

/// Writes a whole image, then a padded sub-region, and reads both back at other pitches.
fn round_trip(env: &Env, m: cl_mem, shape: Shape, element: usize, seed: u32) {
    let mut model = Model { shape, element, bytes: pattern(shape.texels() * element, seed) };
    let all = whole(shape);
    write(env, m, [0; 3], all, [0, 0], &model.bytes);
    assert_eq!(read(env, m, [0; 3], all, [0, 0], model.bytes.len()), model.bytes, "whole image, type {:#x}", shape.ty);

    let (origin, region) = inner(shape);
    let row = region[0] * element;
    let rows = if shape.ty == CL_MEM_OBJECT_IMAGE1D_ARRAY { 1 } else { region[1] };
    let in_pitches = [row + 3 * element, (row + 3 * element) * rows + 5 * element];
    let host = pattern(host_len(&model, region, in_pitches), seed + 1);
    let mut event = null_mut();
    let pitches_arg = if matches!(shape.ty, CL_MEM_OBJECT_IMAGE1D | CL_MEM_OBJECT_IMAGE1D_BUFFER | CL_MEM_OBJECT_IMAGE2D) { [in_pitches[0], 0] } else { in_pitches };
    ok(unsafe { clEnqueueWriteImage(env.queue, m, CL_FALSE, origin.as_ptr(), region.as_ptr(), pitches_arg[0], pitches_arg[1], host.as_ptr().cast(), 0, null(), &mut event) });
    ok(unsafe { clWaitForEvents(1, &event) });
    ok(unsafe { clReleaseEvent(event) });
    model.region_in(origin, region, pitches_arg_or_packed(&model, region, pitches_arg), &host);

    let out_pitches = [row + element, (row + element) * rows + element];
    let out_arg = if matches!(shape.ty, CL_MEM_OBJECT_IMAGE1D | CL_MEM_OBJECT_IMAGE1D_BUFFER | CL_MEM_OBJECT_IMAGE2D) { [out_pitches[0], 0] } else { out_pitches };
    let resolved = pitches_arg_or_packed(&model, region, out_arg);
    let expected = model.region_out(origin, region, resolved);
    assert_eq!(read(env, m, origin, region, out_arg, expected.len()), expected, "sub-region, type {:#x}", shape.ty);
    assert_eq!(read(env, m, [0; 3], all, [0, 0], model.bytes.len()), model.bytes, "whole image after the write, type {:#x}", shape.ty);
}

/// The pitches a read or write uses when given `arg` (0: packed).
fn pitches_arg_or_packed(m: &Model, region: [usize; 3], arg: [usize; 2]) -> [usize; 2] {
    let row = if arg[0] == 0 { region[0] * m.element } else { arg[0] };
    let slice = match (arg[1], m.shape.ty) {
        (0, CL_MEM_OBJECT_IMAGE1D_ARRAY) => row,
        (0, _) => row * region[1],
        (s, _) => s,
    };
    [row, slice]
}

#[test]
fn every_type_writes_and_reads_regions_at_pitches() {
    let env = Env::new();
    for (i, shape) in SHAPES.iter().enumerate() {
        let m = image(&env, rgba8(), *shape);
        round_trip(&env, m.0, *shape, 4, 10 + i as u32);
    }
    // A wider texel: 8 bytes of RG float.
    let shape = SHAPES[2];
    let m = image(&env, format(CL_RG, CL_FLOAT), shape);
    round_trip(&env, m.0, shape, 8, 30);
}

#[test]
fn image1d_buffer_shares_its_buffer() {
    let env = Env::new();
    let bytes = pattern(64 * 4, 40);
    let buffer = env.buffer_from(&bytes);
    let shape = Shape { ty: CL_MEM_OBJECT_IMAGE1D_BUFFER, dims: [50, 1, 1] };
    let m = Mem(create(&env, 0, rgba8(), &shape.desc(buffer.0), null_mut()).expect("1D buffer image"));
    assert_eq!(read(&env, m.0, [0; 3], [50, 1, 1], [0, 0], 200), bytes[..200]);
    let texels = pattern(12, 41);
    write(&env, m.0, [7, 0, 0], [3, 1, 1], [0, 0], &texels);
    let mut expected = bytes.clone();
    expected[28..40].copy_from_slice(&texels);
    assert_eq!(env.read(&buffer, 0, bytes.len()), expected, "the image's texels are the buffer's bytes");
    assert_eq!(mem_info::<cl_mem>(m.0, CL_MEM_ASSOCIATED_MEMOBJECT), buffer.0);
    assert_eq!(image_info::<cl_mem>(m.0, CL_IMAGE_BUFFER), buffer.0);
    assert_eq!(mem_info::<cl_mem_object_type>(m.0, CL_MEM_TYPE), CL_MEM_OBJECT_IMAGE1D_BUFFER);
    // Read-write, inherited from the buffer.
    assert_eq!(mem_info::<cl_mem_flags>(m.0, CL_MEM_FLAGS) & CL_MEM_READ_WRITE, CL_MEM_READ_WRITE);

    // Copies to and from a 1D image, a fill and a map reach the buffer's bytes too.
    let one_d = image(&env, rgba8(), SHAPES[0]);
    let texels_1d = pattern(37 * 4, 42);
    write(&env, one_d.0, [0; 3], [37, 1, 1], [0, 0], &texels_1d);
    let (from, to, n) = ([5usize, 0, 0], [20usize, 0, 0], [9usize, 1, 1]);
    ok(unsafe { clEnqueueCopyImage(env.queue, one_d.0, m.0, from.as_ptr(), to.as_ptr(), n.as_ptr(), 0, null(), null_mut()) });
    expected[80..116].copy_from_slice(&texels_1d[20..56]);
    ok(unsafe { clEnqueueCopyImage(env.queue, m.0, one_d.0, [0usize; 3].as_ptr(), [30usize, 0, 0].as_ptr(), [7usize, 1, 1].as_ptr(), 0, null(), null_mut()) });
    let mut expected_1d = texels_1d.clone();
    expected_1d[120..148].copy_from_slice(&expected[0..28]);
    assert_eq!(read(&env, one_d.0, [0; 3], [37, 1, 1], [0, 0], 148), expected_1d, "1D buffer image to 1D image");
    let colour = [9u32, 300, 7, 1];
    ok(unsafe { clEnqueueFillImage(env.queue, m.0, colour.as_ptr().cast(), [45usize, 0, 0].as_ptr(), [5usize, 1, 1].as_ptr(), 0, null(), null_mut()) });
    for t in 45..50 {
        expected[4 * t..4 * t + 4].copy_from_slice(&[9, 255, 7, 1]);
    }
    assert_eq!(env.read(&buffer, 0, bytes.len()), expected, "copy into and fill of the 1D buffer image");
    let (mut row, mut err) = (0usize, 0);
    let p = unsafe { clEnqueueMapImage(env.queue, m.0, CL_TRUE, CL_MAP_READ, [10usize, 0, 0].as_ptr(), [4usize, 1, 1].as_ptr(), &mut row, null_mut(), 0, null(), null_mut(), &mut err) };
    ok(err);
    assert_eq!(row, 16);
    assert_eq!(unsafe { std::slice::from_raw_parts(p as *const u8, 16) }, &expected[40..56]);
    ok(unsafe { clEnqueueUnmapMemObject(env.queue, m.0, p, 0, null(), null_mut()) });
    env.finish();
}

/// A 2D image of `f`, `[width, height]`, made from `buffer` with rows `row_pitch` bytes apart
/// (0: packed).
fn image_from_buffer(env: &Env, flags: cl_mem_flags, f: Format, [w, h]: [usize; 2], row_pitch: usize, buffer: cl_mem) -> Result<cl_mem, cl_int> {
    let desc = cl_image_desc { image_row_pitch: row_pitch, ..Shape { ty: CL_MEM_OBJECT_IMAGE2D, dims: [w, h, 1] }.desc(buffer) };
    create(env, flags, f, &desc, null_mut())
}

/// `cl_khr_image2d_from_buffer` on the host side: the extension and alignments are reported;
/// the image's texels are the buffer's rows at the row pitch, through writes, reads, copies,
/// fills and maps of either object.
#[test]
fn image2d_from_buffer_shares_its_rows() {
    let env = Env::new();
    let extensions = info_string(|s, v, r| unsafe { clGetDeviceInfo(env.device, CL_DEVICE_EXTENSIONS, s, v, r) });
    assert!(extensions.split(' ').any(|e| e == "cl_khr_image2d_from_buffer"));
    assert_eq!(device_info::<cl_uint>(CL_DEVICE_IMAGE_PITCH_ALIGNMENT), 1);
    assert_eq!(device_info::<cl_uint>(CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT), 1);
    let (w, h, pitch) = (13usize, 7usize, 64usize);
    let mut bytes = pattern(pitch * h + 16, 50);
    let buffer = env.buffer_from(&bytes);
    let m = Mem(image_from_buffer(&env, 0, rgba8(), [w, h], pitch, buffer.0).expect("a 2D image from a buffer"));
    assert_eq!(image_info::<cl_mem>(m.0, CL_IMAGE_BUFFER), buffer.0);
    assert_eq!(mem_info::<cl_mem>(m.0, CL_MEM_ASSOCIATED_MEMOBJECT), buffer.0);
    assert_eq!(image_info::<usize>(m.0, CL_IMAGE_ROW_PITCH), pitch);
    assert_eq!(image_info::<usize>(m.0, CL_IMAGE_WIDTH), w);
    assert_eq!(image_info::<usize>(m.0, CL_IMAGE_HEIGHT), h);
    // The image's texel (x, y) is the buffer's bytes at y · pitch + 4x.
    let at = |x: usize, y: usize| y * pitch + 4 * x;
    let rows = |b: &[u8], [x, y]: [usize; 2], [rw, rh]: [usize; 2]| -> Vec<u8> { (y..y + rh).flat_map(|r| b[at(x, r)..at(x + rw, r)].to_vec()).collect() };
    assert_eq!(read(&env, m.0, [0; 3], [w, h, 1], [0, 0], w * h * 4), rows(&bytes, [0, 0], [w, h]));
    assert_eq!(read(&env, m.0, [2, 3, 0], [5, 4, 1], [0, 0], 80), rows(&bytes, [2, 3], [5, 4]));
    let texels = pattern(4 * 3 * 2, 51);
    write(&env, m.0, [9, 5, 0], [3, 2, 1], [0, 0], &texels);
    for (i, r) in texels.chunks(12).enumerate() {
        bytes[at(9, 5 + i)..at(12, 5 + i)].copy_from_slice(r);
    }
    assert_eq!(env.read(&buffer, 0, bytes.len()), bytes, "a write of the image lands in the buffer's rows");
    // The buffer's padding between rows is the buffer's own.
    let fresh = pattern(8, 52);
    env.write(&buffer, at(w, 2), &fresh);
    bytes[at(w, 2)..at(w, 2) + 8].copy_from_slice(&fresh);
    assert_eq!(read(&env, m.0, [0; 3], [w, h, 1], [0, 0], w * h * 4), rows(&bytes, [0, 0], [w, h]), "the image sees the buffer's writes");

    // Copies with a 2D image and with a buffer, a fill and a map.
    let two_d = image(&env, rgba8(), Shape { ty: CL_MEM_OBJECT_IMAGE2D, dims: [w, h, 1] });
    write(&env, two_d.0, [0; 3], [w, h, 1], [0, 0], &pattern(w * h * 4, 53));
    ok(unsafe { clEnqueueCopyImage(env.queue, m.0, two_d.0, [1usize, 1, 0].as_ptr(), [0usize; 3].as_ptr(), [4usize, 5, 1].as_ptr(), 0, null(), null_mut()) });
    assert_eq!(read(&env, two_d.0, [0; 3], [4, 5, 1], [0, 0], 80), rows(&bytes, [1, 1], [4, 5]), "image from buffer to image");
    let block = read(&env, two_d.0, [6, 0, 0], [3, 3, 1], [0, 0], 36);
    ok(unsafe { clEnqueueCopyImage(env.queue, two_d.0, m.0, [6usize, 0, 0].as_ptr(), [10usize, 4, 0].as_ptr(), [3usize, 3, 1].as_ptr(), 0, null(), null_mut()) });
    for (i, r) in block.chunks(12).enumerate() {
        bytes[at(10, 4 + i)..at(13, 4 + i)].copy_from_slice(r);
    }
    let packed = env.buffer(CL_MEM_READ_WRITE, 256);
    ok(unsafe { clEnqueueCopyImageToBuffer(env.queue, m.0, packed.0, [3usize, 2, 0].as_ptr(), [4usize, 3, 1].as_ptr(), 8, 0, null(), null_mut()) });
    assert_eq!(env.read(&packed, 8, 48), rows(&bytes, [3, 2], [4, 3]), "image from buffer to buffer, packed");
    let colour = [1.0f32, 0.0, 0.5, 1.0].map(f32::to_bits);
    let unorm = Mem(image_from_buffer(&env, 0, format(CL_RGBA, CL_UNORM_INT8), [w, h], pitch, buffer.0).expect("a second view of the buffer"));
    ok(unsafe { clEnqueueFillImage(env.queue, unorm.0, colour.as_ptr().cast(), [0usize, 6, 0].as_ptr(), [2usize, 1, 1].as_ptr(), 0, null(), null_mut()) });
    bytes[at(0, 6)..at(2, 6)].copy_from_slice(&[255, 0, 128, 255, 255, 0, 128, 255]);
    assert_eq!(env.read(&buffer, 0, bytes.len()), bytes, "copies into and fills of the image reach the buffer");
    let (mut row, mut err) = (0usize, 0);
    let p = unsafe { clEnqueueMapImage(env.queue, m.0, CL_TRUE, CL_MAP_READ, [4usize, 1, 0].as_ptr(), [3usize, 4, 1].as_ptr(), &mut row, null_mut(), 0, null(), null_mut(), &mut err) };
    ok(err);
    assert_eq!(row, pitch);
    let mapped: Vec<u8> = (0..4).flat_map(|r| unsafe { std::slice::from_raw_parts((p as *const u8).add(r * pitch), 12) }.to_vec()).collect();
    assert_eq!(mapped, rows(&bytes, [4, 1], [3, 4]));
    ok(unsafe { clEnqueueUnmapMemObject(env.queue, m.0, p, 0, null(), null_mut()) });
    env.finish();
}

/// The errors of 2D images from buffers: rows that do not fit the buffer, pitches that are no
/// whole texels or hold no row, host pointers, formats that are no texel buffers.
#[test]
fn image2d_from_buffer_errors() {
    let env = Env::new();
    let buffer = env.buffer(CL_MEM_READ_WRITE, 1024);
    let make = |f, size: [usize; 2], pitch| image_from_buffer(&env, 0, f, size, pitch, buffer.0).map(|m| ok(unsafe { clReleaseMemObject(m) }));
    assert_eq!(make(rgba8(), [8, 32], 0), Ok(()), "exactly the buffer");
    assert_eq!(make(rgba8(), [8, 33], 0), Err(CL_INVALID_IMAGE_SIZE), "one row past the buffer");
    assert_eq!(make(rgba8(), [4, 8], 128), Ok(()));
    assert_eq!(make(rgba8(), [4, 9], 128), Err(CL_INVALID_IMAGE_SIZE), "rows at the pitch past the buffer");
    assert_eq!(make(rgba8(), [4, 4], 18), Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR), "a pitch of no whole texels");
    assert_eq!(make(rgba8(), [4, 4], 12), Err(CL_INVALID_IMAGE_DESCRIPTOR), "a pitch shorter than a row");
    let mut host = [0u8; 64];
    let desc = Shape { ty: CL_MEM_OBJECT_IMAGE2D, dims: [4, 4, 1] }.desc(buffer.0);
    assert_eq!(create(&env, 0, rgba8(), &desc, host.as_mut_ptr().cast()).err(), Some(CL_INVALID_HOST_PTR), "the buffer holds the texels");
    // An image is no buffer to make a 2D image from.
    let img = image(&env, rgba8(), Shape { ty: CL_MEM_OBJECT_IMAGE2D, dims: [4, 4, 1] });
    let on_image = Shape { ty: CL_MEM_OBJECT_IMAGE2D, dims: [4, 4, 1] }.desc(img.0);
    assert!(create(&env, 0, rgba8(), &on_image, null_mut()).is_err());
    // sRGB is no texel-buffer format; the emulated channel orders are read-only (the image
    // inherits the buffer's CL_MEM_READ_WRITE here).
    assert_eq!(make(format(CL_sRGBA, CL_UNORM_INT8), [4, 4], 0), Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR));
    assert_eq!(make(format(CL_LUMINANCE, CL_UNORM_INT8), [4, 4], 0), Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR));
    let luminance = image_from_buffer(&env, CL_MEM_READ_ONLY, format(CL_LUMINANCE, CL_UNORM_INT8), [4, 4], 0, buffer.0);
    ok(unsafe { clReleaseMemObject(luminance.expect("a read-only luminance image from a buffer")) });
}

#[test]
fn copies_between_images_and_buffers() {
    let env = Env::new();
    let (s2, s3, s1a) = (SHAPES[2], SHAPES[4], SHAPES[1]);
    let (a, b) = (image(&env, rgba8(), s2), image(&env, rgba8(), s2));
    let mut ma = Model { shape: s2, element: 4, bytes: pattern(s2.texels() * 4, 50) };
    let mut mb = Model { shape: s2, element: 4, bytes: pattern(s2.texels() * 4, 51) };
    write(&env, a.0, [0; 3], whole(s2), [0, 0], &ma.bytes);
    write(&env, b.0, [0; 3], whole(s2), [0, 0], &mb.bytes);

    // Image to image at offsets.
    let (so, d_o, r) = ([2usize, 3, 0], [5usize, 1, 0], [7usize, 6, 1]);
    ok(unsafe { clEnqueueCopyImage(env.queue, a.0, b.0, so.as_ptr(), d_o.as_ptr(), r.as_ptr(), 0, null(), null_mut()) });
    let moved = ma.region_out(so, r, [r[0] * 4, r[0] * r[1] * 4]);
    mb.region_in(d_o, r, [r[0] * 4, r[0] * r[1] * 4], &moved);
    assert_eq!(read(&env, b.0, [0; 3], whole(s2), [0, 0], mb.bytes.len()), mb.bytes, "2D to 2D");

    // A 2D region into one slice of a 3D image.
    let c = image(&env, rgba8(), s3);
    let mut mc = Model { shape: s3, element: 4, bytes: pattern(s3.texels() * 4, 52) };
    write(&env, c.0, [0; 3], whole(s3), [0, 0], &mc.bytes);
    let (so, d_o, r) = ([1usize, 1, 0], [2usize, 3, 4], [5usize, 4, 1]);
    ok(unsafe { clEnqueueCopyImage(env.queue, a.0, c.0, so.as_ptr(), d_o.as_ptr(), r.as_ptr(), 0, null(), null_mut()) });
    let moved = ma.region_out(so, r, [r[0] * 4, r[0] * r[1] * 4]);
    mc.region_in(d_o, r, [r[0] * 4, r[0] * r[1] * 4], &moved);
    assert_eq!(read(&env, c.0, [0; 3], whole(s3), [0, 0], mc.bytes.len()), mc.bytes, "2D to 3D");

    // A 1D array's layers become a 2D image's rows.
    let l = image(&env, rgba8(), s1a);
    let ml = Model { shape: s1a, element: 4, bytes: pattern(s1a.texels() * 4, 53) };
    write(&env, l.0, [0; 3], whole(s1a), [0, 0], &ml.bytes);
    let (so, d_o, r) = ([3usize, 1, 0], [0usize, 10, 0], [9usize, 3, 1]);
    ok(unsafe { clEnqueueCopyImage(env.queue, l.0, a.0, so.as_ptr(), d_o.as_ptr(), r.as_ptr(), 0, null(), null_mut()) });
    let moved = ml.region_out(so, r, [r[0] * 4, r[0] * 4]);
    ma.region_in(d_o, r, [r[0] * 4, r[0] * r[1] * 4], &moved);
    assert_eq!(read(&env, a.0, [0; 3], whole(s2), [0, 0], ma.bytes.len()), ma.bytes, "1D array to 2D");

    // Image to buffer and back at offsets, one of them not a multiple of 4.
    let buf = env.buffer_from(&pattern(4096, 54));
    let mut mbuf = env.read(&buf, 0, 4096);
    for offset in [64usize, 3] {
        let (o, r) = ([4usize, 2, 0], [6usize, 5, 1]);
        ok(unsafe { clEnqueueCopyImageToBuffer(env.queue, a.0, buf.0, o.as_ptr(), r.as_ptr(), offset, 0, null(), null_mut()) });
        let packed = ma.region_out(o, r, [r[0] * 4, r[0] * r[1] * 4]);
        mbuf[offset..offset + packed.len()].copy_from_slice(&packed);
        assert_eq!(env.read(&buf, 0, 4096), mbuf, "image to buffer at {offset}");
        let (o, src) = ([10usize, 9, 0], offset + 1000);
        ok(unsafe { clEnqueueCopyBufferToImage(env.queue, buf.0, b.0, src, o.as_ptr(), r.as_ptr(), 0, null(), null_mut()) });
        mb.region_in(o, r, [r[0] * 4, r[0] * r[1] * 4], &mbuf[src..]);
        assert_eq!(read(&env, b.0, [0; 3], whole(s2), [0, 0], mb.bytes.len()), mb.bytes, "buffer at {src} to image");
    }
}

fn f32s(v: [f32; 4]) -> [u32; 4] {
    v.map(f32::to_bits)
}

/// Fills a region of a 2D image of `f` with `colour` and checks every texel: the region's hold
/// `texel`, computed by hand from OpenCL's conversion rules, the others are unchanged. Then
/// the whole image (the device's clear, where the format allows it).
fn check_fill(env: &Env, f: Format, colour: [u32; 4], texel: &[u8]) {
    let shape = Shape { ty: CL_MEM_OBJECT_IMAGE2D, dims: [11, 9, 1] };
    let m = image(env, f, shape);
    let element = texel.len();
    let mut model = Model { shape, element, bytes: pattern(shape.texels() * element, 60) };
    write(env, m.0, [0; 3], whole(shape), [0, 0], &model.bytes);
    let (o, r) = ([2usize, 3, 0], [5usize, 4, 1]);
    ok(unsafe { clEnqueueFillImage(env.queue, m.0, colour.as_ptr().cast(), o.as_ptr(), r.as_ptr(), 0, null(), null_mut()) });
    let filled: Vec<u8> = texel.repeat(r[0] * r[1]);
    model.region_in(o, r, [r[0] * element, r[0] * r[1] * element], &filled);
    assert_eq!(read(env, m.0, [0; 3], whole(shape), [0, 0], model.bytes.len()), model.bytes, "fill of {:#x}/{:#x}", f.0, f.1);
    ok(unsafe { clEnqueueFillImage(env.queue, m.0, colour.as_ptr().cast(), [0usize; 3].as_ptr(), whole(shape).as_ptr(), 0, null(), null_mut()) });
    let all = texel.repeat(shape.texels());
    assert_eq!(read(env, m.0, [0; 3], whole(shape), [0, 0], all.len()), all, "whole fill of {:#x}/{:#x}", f.0, f.1);
}

fn le16(v: [i16; 4]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn fills_convert_the_colour() {
    let env = Env::new();
    // 0.5 · 255 = 127.5 rounds to even 128; 0.2 · 255 = 51.000001 → 51; saturation at both ends.
    check_fill(&env, format(CL_RGBA, CL_UNORM_INT8), f32s([0.5, 1.5, -1.0, 0.2]), &[128, 255, 0, 51]);
    // Memory order B, G, R, A.
    check_fill(&env, format(CL_BGRA, CL_UNORM_INT8), f32s([1.0, 0.0, 0.5, 0.0]), &[128, 0, 255, 0]);
    // 0.5 · 32767 = 16383.5 → 16384; -0.25 · 32767 = -8191.75 → -8192; 1/3 · 32767 = 10922.33 → 10922.
    check_fill(&env, format(CL_RGBA, CL_SNORM_INT16), f32s([-2.0, 0.5, -0.25, 1.0 / 3.0]), &le16([-32767, 16384, -8192, 10922]));
    // Half: 1, -2, 1 + 2^-11 (a tie: even, 1), 65520 (rounds up past the largest half: infinity).
    let halves: Vec<u8> = [0x3c00u16, 0xc000, 0x3c00, 0x7c00].iter().flat_map(|x| x.to_le_bytes()).collect();
    check_fill(&env, format(CL_RGBA, CL_HALF_FLOAT), f32s([1.0, -2.0, 1.0 + 2f32.powi(-11), 65520.0]), &halves);
    let floats = [0.1f32, -3.5, 1e30, -0.0];
    check_fill(&env, format(CL_RGBA, CL_FLOAT), f32s(floats), &floats.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>());
    let ints = [-5i32, i32::MAX, 0, 77];
    check_fill(&env, format(CL_RGBA, CL_SIGNED_INT32), ints.map(|x| x as u32), &ints.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>());
    // Integers saturate to the channel.
    check_fill(&env, format(CL_RGBA, CL_SIGNED_INT8), [300i32, -300, 5, -5].map(|x| x as u32), &[127, 128, 5, 251]);
    check_fill(&env, format(CL_R, CL_UNSIGNED_INT16), [70000, 1, 2, 3], &[0xff, 0xff]);
}

/// OpenCL's linear → sRGB encoding of a colour channel, as a byte (rounded to nearest).
fn srgb_byte(c: f64) -> u8 {
    let c = c.clamp(0.0, 1.0);
    let e = if c < 0.0031308 { 12.92 * c } else { 1.055 * c.powf(1.0 / 2.4) - 0.055 };
    (e * 255.0).round() as u8
}

/// Fills of sRGB images encode the colour channels (not alpha) from linear to sRGB, and
/// transfers move the bytes unchanged.
#[test]
fn srgb_fills_encode_the_colour() {
    let env = Env::new();
    let colour = [0.5, 0.002, 1.25, 0.25];
    let [r, g, b] = [colour[0], colour[1], colour[2]].map(srgb_byte);
    // Hand-checked: 0.5 → 187.5 (188), 0.002 · 12.92 · 255 = 6.59 (7), saturated 1.25 → 255.
    assert_eq!([r, g, b], [188, 7, 255]);
    let a = 64; // 0.25 · 255 = 63.75
    let f = colour.map(|c| c as f32);
    check_fill(&env, format(CL_sRGBA, CL_UNORM_INT8), f32s(f), &[r, g, b, a]);
    check_fill(&env, format(CL_sBGRA, CL_UNORM_INT8), f32s(f), &[b, g, r, a]);
    for (order, texel) in [(CL_sRGBx, vec![r, g, b, a]), (CL_sRGB, vec![r, g, b])] {
        let desc = Shape { ty: CL_MEM_OBJECT_IMAGE2D, dims: [1, 1, 1] }.desc(null_mut());
        match create(&env, CL_MEM_READ_ONLY, format(order, CL_UNORM_INT8), &desc, null_mut()) {
            Ok(m) => {
                ok(unsafe { clReleaseMemObject(m) });
                check_fill(&env, format(order, CL_UNORM_INT8), f32s(f), &texel);
            }
            Err(e) => assert_eq!(e, CL_IMAGE_FORMAT_NOT_SUPPORTED),
        }
    }
}

#[test]
fn maps_show_the_region_at_their_pitches() {
    let env = Env::new();
    let shape = SHAPES[3];
    let m = image(&env, rgba8(), shape);
    let mut model = Model { shape, element: 4, bytes: pattern(shape.texels() * 4, 70) };
    write(&env, m.0, [0; 3], whole(shape), [0, 0], &model.bytes);
    let (o, r) = inner(shape);
    let (mut row, mut slice, mut err) = (0usize, 0usize, 0);
    let p = unsafe { clEnqueueMapImage(env.queue, m.0, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, o.as_ptr(), r.as_ptr(), &mut row, &mut slice, 0, null(), null_mut(), &mut err) };
    ok(err);
    assert!(row >= r[0] * 4 && slice >= row * r[1]);
    let len = host_len(&model, r, [row, slice]);
    let mapped = unsafe { std::slice::from_raw_parts_mut(p as *mut u8, len) };
    let expected = model.region_out(o, r, [row, slice]);
    Model::each(r, |t| {
        let at = model.host_at(t, row, slice);
        assert_eq!(mapped[at..at + 4], expected[at..at + 4], "mapped texel {t:?}");
    });
    let fresh = pattern(len, 71);
    mapped.copy_from_slice(&fresh);
    ok(unsafe { clEnqueueUnmapMemObject(env.queue, m.0, p, 0, null(), null_mut()) });
    model.region_in(o, r, [row, slice], &fresh);
    assert_eq!(read(&env, m.0, [0; 3], whole(shape), [0, 0], model.bytes.len()), model.bytes, "written through the map");
    assert_eq!(mem_info::<cl_uint>(m.0, CL_MEM_MAP_COUNT), 0);
}

#[test]
fn use_host_ptr_images_keep_the_host_memory() {
    let env = Env::new();
    let shape = Shape { ty: CL_MEM_OBJECT_IMAGE2D, dims: [10, 6, 1] };
    let row_pitch = 48;
    let mut host = pattern(row_pitch * 6, 80);
    let mut desc = shape.desc(null_mut());
    desc.image_row_pitch = row_pitch;
    let m = Mem(create(&env, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, rgba8(), &desc, host.as_mut_ptr().cast()).expect("USE_HOST_PTR image"));
    let mut model = Model { shape, element: 4, bytes: vec![0; shape.texels() * 4] };
    model.region_in([0; 3], [10, 6, 1], [row_pitch, 0], &host);
    assert_eq!(read(&env, m.0, [0; 3], [10, 6, 1], [0, 0], 240), model.bytes, "initial texels from the host memory");
    assert_eq!(image_info::<usize>(m.0, CL_IMAGE_ROW_PITCH), row_pitch);
    assert_eq!(mem_info::<*mut c_void>(m.0, CL_MEM_HOST_PTR), host.as_mut_ptr().cast());

    let texels = pattern(3 * 2 * 4, 81);
    write(&env, m.0, [4, 2, 0], [3, 2, 1], [0, 0], &texels);
    model.region_in([4, 2, 0], [3, 2, 1], [12, 24], &texels);
    let (o, r) = ([1usize, 1, 0], [8usize, 4, 1]);
    let (mut row, mut err) = (0usize, 0);
    let p = unsafe { clEnqueueMapImage(env.queue, m.0, CL_TRUE, CL_MAP_READ, o.as_ptr(), r.as_ptr(), &mut row, null_mut(), 0, null(), null_mut(), &mut err) };
    ok(err);
    assert_eq!(row, row_pitch);
    assert_eq!(p as usize, host.as_ptr() as usize + row_pitch + 4, "the map shows the application's memory");
    let expected = model.region_out([0; 3], [10, 6, 1], [row_pitch, 0]);
    Model::each(r, |t| {
        let at = model.host_at([o[0] + t[0], o[1] + t[1], 0], row_pitch, 0);
        assert_eq!(host[at..at + 4], expected[at..at + 4], "host texel {t:?} refreshed at map");
    });
    ok(unsafe { clEnqueueUnmapMemObject(env.queue, m.0, p, 0, null(), null_mut()) });
    env.finish();
}

#[test]
fn image_info_answers() {
    let env = Env::new();
    let shape = SHAPES[3];
    let f = format(CL_RG, CL_UNSIGNED_INT16);
    let m = image(&env, f, shape);
    let got: [cl_uint; 2] = image_info(m.0, CL_IMAGE_FORMAT);
    assert_eq!(got, [CL_RG, CL_UNSIGNED_INT16]);
    assert_eq!(image_info::<usize>(m.0, CL_IMAGE_ELEMENT_SIZE), 4);
    assert_eq!(image_info::<usize>(m.0, CL_IMAGE_ROW_PITCH), 13 * 4);
    assert_eq!(image_info::<usize>(m.0, CL_IMAGE_SLICE_PITCH), 13 * 4 * 11);
    assert_eq!(image_info::<usize>(m.0, CL_IMAGE_WIDTH), 13);
    assert_eq!(image_info::<usize>(m.0, CL_IMAGE_HEIGHT), 11);
    assert_eq!(image_info::<usize>(m.0, CL_IMAGE_DEPTH), 0);
    assert_eq!(image_info::<usize>(m.0, CL_IMAGE_ARRAY_SIZE), 4);
    assert_eq!(image_info::<cl_mem>(m.0, CL_IMAGE_BUFFER), null_mut());
    assert_eq!(image_info::<cl_uint>(m.0, CL_IMAGE_NUM_MIP_LEVELS), 0);
    assert_eq!(mem_info::<cl_mem_object_type>(m.0, CL_MEM_TYPE), CL_MEM_OBJECT_IMAGE2D_ARRAY);
    assert_eq!(mem_info::<usize>(m.0, CL_MEM_SIZE), 13 * 11 * 4 * 4);
    assert_eq!(mem_info::<cl_context>(m.0, CL_MEM_CONTEXT), env.context);
    let a1 = image(&env, rgba8(), SHAPES[1]);
    assert_eq!(image_info::<usize>(a1.0, CL_IMAGE_SLICE_PITCH), 19 * 4, "a 1D array's slice is one row");
    assert_eq!(image_info::<usize>(a1.0, CL_IMAGE_HEIGHT), 0);
    let v3 = image(&env, rgba8(), SHAPES[4]);
    assert_eq!(image_info::<usize>(v3.0, CL_IMAGE_DEPTH), 5);
    let buffer = env.buffer(CL_MEM_READ_WRITE, 64);
    assert_eq!(unsafe { clGetImageInfo(buffer.0, CL_IMAGE_WIDTH, 0, null_mut(), null_mut()) }, CL_INVALID_MEM_OBJECT);
}

#[test]
fn supported_formats_follow_the_flags() {
    let env = Env::new();
    let list = |flags: cl_mem_flags, ty: cl_uint| -> Vec<(cl_uint, cl_uint)> {
        let mut n = 0;
        ok(unsafe { clGetSupportedImageFormats(env.context, flags, ty, 0, null_mut(), &mut n) });
        let mut formats: Vec<cl_image_format> = (0..n).map(|_| format(0, 0).raw()).collect();
        ok(unsafe { clGetSupportedImageFormats(env.context, flags, ty, n, formats.as_mut_ptr(), null_mut()) });
        formats.iter().map(|f| (f.image_channel_order, f.image_channel_data_type)).collect()
    };
    let read = list(CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D);
    let write = list(CL_MEM_WRITE_ONLY, CL_MEM_OBJECT_IMAGE2D);
    for f in [(CL_RGBA, CL_UNORM_INT8), (CL_RGBA, CL_FLOAT), (CL_RGBA, CL_SIGNED_INT32), (CL_R, CL_FLOAT)] {
        assert!(read.contains(&f) && write.contains(&f), "{f:x?} is readable and writable");
    }
    // Emulated channel orders (a swizzled view) are read-only.
    assert!(read.contains(&(CL_LUMINANCE, CL_UNORM_INT8)));
    assert!(write.iter().all(|(o, _)| ![CL_A, CL_INTENSITY, CL_LUMINANCE, CL_RA, CL_ARGB, CL_ABGR].contains(o)));
    assert!(write.iter().all(|f| read.contains(f)));
    // sRGB is read-only (no `cl_khr_srgb_image_writes`), and sRGBA is there to read.
    assert!(read.contains(&(CL_sRGBA, CL_UNORM_INT8)));
    assert!(write.iter().all(|(o, _)| !SRGB.contains(o)));
    assert!(list(CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D).iter().all(|(o, _)| !SRGB.contains(o)));
    let desc = Shape { ty: CL_MEM_OBJECT_IMAGE2D, dims: [4, 4, 1] }.desc(null_mut());
    assert_eq!(create(&env, CL_MEM_READ_WRITE, format(CL_sRGBA, CL_UNORM_INT8), &desc, null_mut()).err(), Some(CL_IMAGE_FORMAT_NOT_SUPPORTED));
    assert_eq!(create(&env, CL_MEM_READ_ONLY, format(CL_sRGBA, CL_UNORM_INT16), &desc, null_mut()).err(), Some(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR));
    // Every listed format makes an image.
    let desc = Shape { ty: CL_MEM_OBJECT_IMAGE2D, dims: [4, 4, 1] }.desc(null_mut());
    for (order, data_type) in read {
        let m = create(&env, CL_MEM_READ_ONLY, format(order, data_type), &desc, null_mut()).expect("an image of a listed format");
        ok(unsafe { clReleaseMemObject(m) });
    }
}

#[test]
fn bad_descriptors_formats_and_sizes() {
    let env = Env::new();
    let d2 = || SHAPES[2].desc(null_mut());
    let rw = CL_MEM_READ_WRITE;
    let mut err = 0;
    let m = unsafe { clCreateImage(env.context, rw, null(), &d2(), null_mut(), &mut err) };
    assert!(m.is_null());
    assert_eq!(err, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    assert_eq!(create(&env, rw, format(CL_RGB, CL_UNORM_INT8), &d2(), null_mut()).err(), Some(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR), "RGB needs a packed type");
    assert_eq!(create(&env, rw, format(CL_RGBA, 0x1234), &d2(), null_mut()).err(), Some(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR));
    assert_eq!(create(&env, rw, format(CL_BGRA, CL_FLOAT), &d2(), null_mut()).err(), Some(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR));
    let m = unsafe { clCreateImage(env.context, rw, &rgba8().raw(), null(), null_mut(), &mut err) };
    assert!(m.is_null());
    assert_eq!(err, CL_INVALID_IMAGE_DESCRIPTOR);
    let bad = |change: &dyn Fn(&mut cl_image_desc)| {
        let mut d = d2();
        change(&mut d);
        create(&env, rw, rgba8(), &d, null_mut()).err()
    };
    assert_eq!(bad(&|d| d.image_width = 0), Some(CL_INVALID_IMAGE_DESCRIPTOR));
    assert_eq!(bad(&|d| d.image_type = CL_MEM_OBJECT_BUFFER), Some(CL_INVALID_IMAGE_DESCRIPTOR));
    assert_eq!(bad(&|d| d.num_mip_levels = 2), Some(CL_INVALID_IMAGE_DESCRIPTOR));
    assert_eq!(bad(&|d| d.image_row_pitch = 400), Some(CL_INVALID_IMAGE_DESCRIPTOR), "a pitch without host memory");
    assert_eq!(bad(&|d| d.buffer = env.context as cl_mem), Some(CL_INVALID_IMAGE_DESCRIPTOR), "a 2D image from what is no memory object");
    assert_eq!(bad(&|d| d.image_width = 1 << 30), Some(CL_INVALID_IMAGE_SIZE));
    let mut host = vec![0u8; 4096];
    let mut d = d2();
    d.image_row_pitch = 23 * 4 + 2;
    assert_eq!(create(&env, rw | CL_MEM_COPY_HOST_PTR, rgba8(), &d, host.as_mut_ptr().cast()).err(), Some(CL_INVALID_IMAGE_DESCRIPTOR), "a pitch of part of a texel");
    assert_eq!(create(&env, rw, rgba8(), &d2(), host.as_mut_ptr().cast()).err(), Some(CL_INVALID_HOST_PTR));
    assert_eq!(create(&env, rw | CL_MEM_COPY_HOST_PTR, rgba8(), &d2(), null_mut()).err(), Some(CL_INVALID_HOST_PTR));
    assert_eq!(create(&env, CL_MEM_WRITE_ONLY, format(CL_LUMINANCE, CL_UNORM_INT8), &d2(), null_mut()).err(), Some(CL_IMAGE_FORMAT_NOT_SUPPORTED));
    let m2 = unsafe { clCreateImage2D(env.context, rw, &mut rgba8().raw(), 0, 4, 0, null_mut(), &mut err) };
    assert!(m2.is_null());
    assert_eq!(err, CL_INVALID_IMAGE_SIZE);
    let m3 = unsafe { clCreateImage3D(env.context, rw, &mut rgba8().raw(), 4, 4, 1, 0, 0, null_mut(), &mut err) };
    assert!(m3.is_null());
    assert_eq!(err, CL_INVALID_IMAGE_SIZE, "a 3D image of depth 1");
    let with_props = unsafe { clCreateImageWithProperties(env.context, [CL_MEM_PROPERTIES as cl_ulong, 1, 0].as_ptr(), rw, &rgba8().raw(), &d2(), null_mut(), &mut err) };
    assert!(with_props.is_null());
    assert_eq!(err, CL_INVALID_PROPERTY);

    // A 1D image buffer: its buffer must be a buffer big enough, and its flags may not widen it.
    let buffer = env.buffer(CL_MEM_READ_ONLY, 64);
    let shape = Shape { ty: CL_MEM_OBJECT_IMAGE1D_BUFFER, dims: [16, 1, 1] };
    assert_eq!(create(&env, 0, rgba8(), &Shape { dims: [17, 1, 1], ..shape }.desc(buffer.0), null_mut()).err(), Some(CL_INVALID_IMAGE_SIZE));
    assert_eq!(create(&env, CL_MEM_WRITE_ONLY, rgba8(), &shape.desc(buffer.0), null_mut()).err(), Some(CL_INVALID_VALUE));
    assert_eq!(create(&env, 0, rgba8(), &shape.desc(null_mut()), null_mut()).err(), Some(CL_INVALID_IMAGE_DESCRIPTOR));
    let img = image(&env, rgba8(), SHAPES[0]);
    assert_eq!(create(&env, 0, rgba8(), &shape.desc(img.0), null_mut()).err(), Some(CL_INVALID_IMAGE_DESCRIPTOR), "an image as the buffer");
    let ok_image = Mem(create(&env, 0, rgba8(), &shape.desc(buffer.0), null_mut()).expect("a read-only image of a read-only buffer"));
    assert_eq!(mem_info::<cl_mem_flags>(ok_image.0, CL_MEM_FLAGS) & CL_MEM_READ_ONLY, CL_MEM_READ_ONLY);
}

#[test]
fn bad_regions_and_objects() {
    let env = Env::new();
    let shape = SHAPES[2];
    let m = image(&env, rgba8(), shape);
    let mut out = vec![0u8; 4096];
    let mut rd = |o: [usize; 3], r: [usize; 3]| unsafe { clEnqueueReadImage(env.queue, m.0, CL_TRUE, o.as_ptr(), r.as_ptr(), 0, 0, out.as_mut_ptr().cast(), 0, null(), null_mut()) };
    assert_eq!(rd([0; 3], [24, 1, 1]), CL_INVALID_VALUE, "past the width");
    assert_eq!(rd([0, 17, 0], [1, 1, 1]), CL_INVALID_VALUE, "past the height");
    assert_eq!(rd([0, 0, 1], [1, 1, 1]), CL_INVALID_VALUE, "a 2D image's origin[2]");
    assert_eq!(rd([0; 3], [1, 1, 2]), CL_INVALID_VALUE, "a 2D image's region[2]");
    assert_eq!(rd([0; 3], [0, 1, 1]), CL_INVALID_VALUE, "an empty region");
    let small_pitch = unsafe { clEnqueueReadImage(env.queue, m.0, CL_TRUE, [0usize; 3].as_ptr(), [4usize, 2, 1].as_ptr(), 15, 0, out.as_mut_ptr().cast(), 0, null(), null_mut()) };
    assert_eq!(small_pitch, CL_INVALID_VALUE, "a row pitch below the row");
    let null_ptr = unsafe { clEnqueueReadImage(env.queue, m.0, CL_TRUE, [0usize; 3].as_ptr(), [1usize; 3].as_ptr(), 0, 0, null_mut(), 0, null(), null_mut()) };
    assert_eq!(null_ptr, CL_INVALID_VALUE);

    let other = image(&env, format(CL_RGBA, CL_UNORM_INT8), shape);
    let (z, r) = ([0usize; 3], [2usize, 2, 1]);
    assert_eq!(unsafe { clEnqueueCopyImage(env.queue, m.0, other.0, z.as_ptr(), z.as_ptr(), r.as_ptr(), 0, null(), null_mut()) }, CL_IMAGE_FORMAT_MISMATCH);
    let near = [1usize, 1, 0];
    assert_eq!(unsafe { clEnqueueCopyImage(env.queue, m.0, m.0, z.as_ptr(), near.as_ptr(), r.as_ptr(), 0, null(), null_mut()) }, CL_MEM_COPY_OVERLAP);
    let buffer = env.buffer(CL_MEM_READ_WRITE, 64);
    assert_eq!(unsafe { clEnqueueCopyImageToBuffer(env.queue, m.0, buffer.0, z.as_ptr(), [5usize, 4, 1].as_ptr(), 0, 0, null(), null_mut()) }, CL_INVALID_VALUE, "past the buffer's end");
    assert_eq!(unsafe { clEnqueueReadBuffer(env.queue, m.0, CL_TRUE, 0, 4, out.as_mut_ptr().cast(), 0, null(), null_mut()) }, CL_INVALID_MEM_OBJECT, "an image as a buffer");
    assert_eq!(rd_buffer_as_image(&env, buffer.0), CL_INVALID_MEM_OBJECT);
    let colour = [0u32; 4];
    assert_eq!(unsafe { clEnqueueFillImage(env.queue, m.0, colour.as_ptr().cast(), z.as_ptr(), [30usize, 1, 1].as_ptr(), 0, null(), null_mut()) }, CL_INVALID_VALUE);
    let mut err = 0;
    let p = unsafe { clEnqueueMapImage(env.queue, m.0, CL_TRUE, CL_MAP_READ, z.as_ptr(), r.as_ptr(), null_mut(), null_mut(), 0, null(), null_mut(), &mut err) };
    assert!(p.is_null());
    assert_eq!(err, CL_INVALID_VALUE, "no row pitch to return");
    let mut sub_err = 0;
    let region = cl_buffer_region { origin: 0, size: 4 };
    let sub = unsafe { clCreateSubBuffer(m.0, 0, CL_BUFFER_CREATE_TYPE_REGION, (&region as *const cl_buffer_region).cast(), &mut sub_err) };
    assert!(sub.is_null());
    assert_eq!(sub_err, CL_INVALID_MEM_OBJECT, "no sub-buffer of an image");
}

fn rd_buffer_as_image(env: &Env, buffer: cl_mem) -> cl_int {
    let mut out = [0u8; 16];
    unsafe { clEnqueueReadImage(env.queue, buffer, CL_TRUE, [0usize; 3].as_ptr(), [1usize; 3].as_ptr(), 0, 0, out.as_mut_ptr().cast(), 0, null(), null_mut()) }
}

#[test]
fn non_blocking_transfers_complete_in_order_with_profiling() {
    let env = Env::with_queue_properties(CL_QUEUE_PROFILING_ENABLE);
    let shape = SHAPES[4];
    let m = image(&env, rgba8(), shape);
    let data = pattern(shape.texels() * 4, 90);
    let mut out = vec![0u8; data.len()];
    let all = whole(shape);
    let mut events = [null_mut(); 2];
    unsafe {
        ok(clEnqueueWriteImage(env.queue, m.0, CL_FALSE, [0usize; 3].as_ptr(), all.as_ptr(), 0, 0, data.as_ptr().cast(), 0, null(), &mut events[0]));
        ok(clEnqueueReadImage(env.queue, m.0, CL_FALSE, [0usize; 3].as_ptr(), all.as_ptr(), 0, 0, out.as_mut_ptr().cast(), 1, &events[0], &mut events[1]));
        ok(clWaitForEvents(2, events.as_ptr()));
    }
    assert_eq!(out, data);
    let time = |e: cl_event, p: cl_profiling_info| -> cl_ulong { info_value(|s, v, r| unsafe { clGetEventProfilingInfo(e, p, s, v, r) }) };
    for &e in &events {
        let (queued, start, end) = (time(e, CL_PROFILING_COMMAND_QUEUED), time(e, CL_PROFILING_COMMAND_START), time(e, CL_PROFILING_COMMAND_END));
        assert!(queued <= start && start <= end);
        let ty: cl_command_type = info_value(|s, v, r| unsafe { clGetEventInfo(e, CL_EVENT_COMMAND_TYPE, s, v, r) });
        assert!(ty == CL_COMMAND_WRITE_IMAGE || ty == CL_COMMAND_READ_IMAGE);
        ok(unsafe { clReleaseEvent(e) });
    }
}

extern "C" fn count_destruction(_m: cl_mem, user: *mut c_void) {
    // SAFETY: the test passes its counter, alive until the callback has run.
    unsafe { &*(user as *const std::sync::atomic::AtomicU32) }.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
}

#[test]
fn image_destructor_callbacks_run() {
    let env = Env::new();
    let calls = std::sync::atomic::AtomicU32::new(0);
    let m = create(&env, CL_MEM_READ_ONLY, rgba8(), &SHAPES[0].desc(null_mut()), null_mut()).expect("image");
    ok(unsafe { clSetMemObjectDestructorCallback(m, Some(count_destruction), (&calls as *const std::sync::atomic::AtomicU32) as *mut c_void) });
    ok(unsafe { clReleaseMemObject(m) });
    env.finish();
    assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 1);
}

fn sampler_info<T: Copy>(s: cl_sampler, param: cl_sampler_info) -> T {
    info_value(|z, v, r| unsafe { clGetSamplerInfo(s, param, z, v, r) })
}

#[test]
fn samplers_are_made_queried_and_released() {
    let env = Env::new();
    let mut err = 0;
    let s = unsafe { clCreateSampler(env.context, CL_TRUE, CL_ADDRESS_REPEAT, CL_FILTER_LINEAR, &mut err) };
    ok(err);
    assert_eq!(sampler_info::<cl_bool>(s, CL_SAMPLER_NORMALIZED_COORDS), CL_TRUE);
    assert_eq!(sampler_info::<cl_uint>(s, CL_SAMPLER_ADDRESSING_MODE), CL_ADDRESS_REPEAT);
    assert_eq!(sampler_info::<cl_uint>(s, CL_SAMPLER_FILTER_MODE), CL_FILTER_LINEAR);
    assert_eq!(sampler_info::<cl_context>(s, CL_SAMPLER_CONTEXT), env.context);
    assert_eq!(sampler_info::<cl_uint>(s, CL_SAMPLER_REFERENCE_COUNT), 1);
    ok(unsafe { clRetainSampler(s) });
    assert_eq!(sampler_info::<cl_uint>(s, CL_SAMPLER_REFERENCE_COUNT), 2);
    ok(unsafe { clReleaseSampler(s) });
    ok(unsafe { clReleaseSampler(s) });

    let bad = unsafe { clCreateSampler(env.context, CL_FALSE, CL_ADDRESS_MIRRORED_REPEAT, CL_FILTER_NEAREST, &mut err) };
    assert!(bad.is_null());
    assert_eq!(err, CL_INVALID_VALUE, "repeating needs normalized coordinates");
    let bad = unsafe { clCreateSampler(env.context, CL_TRUE, 0x9999, CL_FILTER_NEAREST, &mut err) };
    assert!(bad.is_null());
    assert_eq!(err, CL_INVALID_VALUE);

    let props: [cl_ulong; 5] = [CL_SAMPLER_ADDRESSING_MODE as cl_ulong, CL_ADDRESS_CLAMP_TO_EDGE as cl_ulong, CL_SAMPLER_NORMALIZED_COORDS as cl_ulong, CL_FALSE as cl_ulong, 0];
    let p = unsafe { clCreateSamplerWithProperties(env.context, props.as_ptr(), &mut err) };
    ok(err);
    assert_eq!(sampler_info::<cl_bool>(p, CL_SAMPLER_NORMALIZED_COORDS), CL_FALSE);
    assert_eq!(sampler_info::<cl_uint>(p, CL_SAMPLER_ADDRESSING_MODE), CL_ADDRESS_CLAMP_TO_EDGE);
    assert_eq!(sampler_info::<cl_uint>(p, CL_SAMPLER_FILTER_MODE), CL_FILTER_NEAREST, "the default filter");
    let got: Vec<cl_ulong> = info_array(|z, v, r| unsafe { clGetSamplerInfo(p, CL_SAMPLER_PROPERTIES, z, v, r) });
    assert_eq!(got, props);
    ok(unsafe { clReleaseSampler(p) });
    let twice: [cl_ulong; 5] = [CL_SAMPLER_FILTER_MODE as cl_ulong, CL_FILTER_NEAREST as cl_ulong, CL_SAMPLER_FILTER_MODE as cl_ulong, CL_FILTER_LINEAR as cl_ulong, 0];
    let d = unsafe { clCreateSamplerWithProperties(env.context, twice.as_ptr(), &mut err) };
    assert!(d.is_null());
    assert_eq!(err, CL_INVALID_VALUE, "a property given twice");
}

#[test]
fn images_are_no_buffer_arguments() {
    let env = Env::new();
    let program = build(env.context, env.device, "kernel void k(global int *p) { p[0] = 1; }");
    let k = kernel(program, "k");
    let m = image(&env, rgba8(), SHAPES[2]);
    let code = unsafe { clSetKernelArg(k, 0, std::mem::size_of::<cl_mem>(), (&m.0 as *const cl_mem).cast()) };
    assert_eq!(code, CL_INVALID_MEM_OBJECT);
    unsafe {
        ok(clReleaseKernel(k));
        ok(clReleaseProgram(program));
    }
}

/// An image of another type is CL_INVALID_MEM_OBJECT, an image the kernel may not access as
/// declared CL_INVALID_ARG_VALUE, a missing sampler CL_INVALID_SAMPLER; no format is offered
/// for kernels that read and write one image (read_write images are not supported).
#[test]
fn image_and_sampler_arguments_are_checked() {
    let env = Env::new();
    let src = "kernel void k(read_only image2d_t i, sampler_t s, global int *o) { o[0] = sizeof(i) + get_image_width(i); }";
    let program = build(env.context, env.device, src);
    let k = kernel(program, "k");
    let set = |m: cl_mem| unsafe { clSetKernelArg(k, 0, std::mem::size_of::<cl_mem>(), (&m as *const cl_mem).cast()) };
    let array = image(&env, rgba8(), SHAPES.iter().copied().find(|s| s.ty == CL_MEM_OBJECT_IMAGE2D_ARRAY).expect("a 2D array shape"));
    assert_eq!(set(array.0), CL_INVALID_MEM_OBJECT, "a 2D array for an image2d_t");
    let shape = SHAPES.iter().copied().find(|s| s.ty == CL_MEM_OBJECT_IMAGE2D).expect("a 2D shape");
    let write_only = create(&env, CL_MEM_WRITE_ONLY, rgba8(), &shape.desc(null_mut()), null_mut()).expect("image");
    assert_eq!(set(write_only), CL_INVALID_ARG_VALUE, "a write-only image for a read_only argument");
    assert_eq!(unsafe { clSetKernelArg(k, 1, std::mem::size_of::<cl_sampler>(), null()) }, CL_INVALID_SAMPLER);
    let mut count = 7;
    ok(unsafe { clGetSupportedImageFormats(env.context, CL_MEM_KERNEL_READ_AND_WRITE, CL_MEM_OBJECT_IMAGE2D, 0, null_mut(), &mut count) });
    assert_eq!(count, 0);
    unsafe {
        ok(clReleaseMemObject(write_only));
        ok(clReleaseKernel(k));
        ok(clReleaseProgram(program));
    }
}
