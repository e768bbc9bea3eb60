//! Image entry points: creation, format and info queries, and the image transfer commands.

use super::entry::entry;
use super::info::{self, Info};
use super::memory::{buffer_for, check_flags, host_may, mem_for, sub_buffer_flags, submit, ACCESS};
use super::queue::queue;
use super::util::{finish_enqueue, properties, wait_list, write_opt};
use crate::cl::object::{get, handle_of, publish};
use crate::cl::types::*;
use crate::cl::CLResult;
use crate::core::context::Context;
use crate::core::device::Device;
use crate::core::image::{self, Desc, Format, DATA_TYPES, ORDERS};
use crate::core::memory::{HostPtr, Mem, Rect};
use crate::core::queue::Queue;
use std::sync::Arc;

const IMAGE_TYPES: [cl_mem_object_type; 6] = [
    CL_MEM_OBJECT_IMAGE1D,
    CL_MEM_OBJECT_IMAGE1D_BUFFER,
    CL_MEM_OBJECT_IMAGE1D_ARRAY,
    CL_MEM_OBJECT_IMAGE2D,
    CL_MEM_OBJECT_IMAGE2D_ARRAY,
    CL_MEM_OBJECT_IMAGE3D,
];

/// `CL_INVALID_OPERATION` where no device of the context supports images.
pub(super) fn images_usable(c: &Context) -> CLResult<()> {
    if !c.devices.iter().any(|d| d.image_support()) {
        return Err(CL_INVALID_OPERATION);
    }
    Ok(())
}

/// `clCreateImage(WithProperties)` after the property list.
unsafe fn create_image(context: cl_context, props: Vec<cl_mem_properties>, flags: cl_mem_flags, format: *const cl_image_format, desc: *const cl_image_desc, host_ptr: *mut c_void) -> CLResult<cl_mem> {
    let c = get::<Context>(context)?;
    check_flags(flags)?;
    images_usable(&c)?;
    if format.is_null() {
        return Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    }
    let format = image::format((*format).image_channel_order, (*format).image_channel_data_type)?;
    if desc.is_null() {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    let desc = &*desc;
    let (flags, buffer) = source_buffer(&c, flags, desc, host_ptr)?;
    let flags = if flags & ACCESS == 0 { flags | CL_MEM_READ_WRITE } else { flags };
    let from_buffer = buffer.is_some() && desc.image_type == CL_MEM_OBJECT_IMAGE2D;
    let d = describe(desc, &format, host_ptr, from_buffer)?;
    let wants_ptr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0;
    if buffer.is_none() && wants_ptr == host_ptr.is_null() {
        return Err(CL_INVALID_HOST_PTR);
    }
    for device in &c.devices {
        // A 2D image made from a buffer is a texel buffer of its format. Formats that cannot
        // be are CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, the error of a 2D image from a buffer
        // that breaks the rules of such images (and what the CTS's image suites take to mean
        // a format not offered for them).
        if from_buffer && !image::supported_from_buffer(device, &format, flags) {
            return Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
        }
        // A format Vulkan lacks has no size limit to check against.
        if !image::supported(device, &format, d.ty, flags) {
            return Err(CL_IMAGE_FORMAT_NOT_SUPPORTED);
        }
        check_size(device, &d, &format, buffer.as_deref())?;
    }
    Ok(publish(Mem::new_image(c, flags, format, d, host_ptr, buffer, props)?))
}

/// The buffer of an `IMAGE1D_BUFFER` image or of a 2D image made from a buffer
/// (`cl_khr_image2d_from_buffer`), and the image's flags, inherited from it as a sub-buffer's
/// are; every other type takes no buffer. A 2D image made from another image (OpenCL 2.0's
/// change of channel order) is not supported: `CL_INVALID_OPERATION`.
unsafe fn source_buffer(c: &Arc<Context>, flags: cl_mem_flags, desc: &cl_image_desc, host_ptr: *mut c_void) -> CLResult<(cl_mem_flags, Option<Arc<Mem>>)> {
    let takes_buffer = matches!(desc.image_type, CL_MEM_OBJECT_IMAGE1D_BUFFER | CL_MEM_OBJECT_IMAGE2D);
    if desc.buffer.is_null() && desc.image_type != CL_MEM_OBJECT_IMAGE1D_BUFFER {
        return Ok((flags, None));
    }
    if !takes_buffer {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    let buffer = get::<Mem>(desc.buffer).map_err(|_| CL_INVALID_IMAGE_DESCRIPTOR)?;
    if buffer.image.is_some() && desc.image_type == CL_MEM_OBJECT_IMAGE2D {
        return Err(CL_INVALID_OPERATION);
    }
    if buffer.image.is_some() || !Arc::ptr_eq(&buffer.context, c) {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    let flags = sub_buffer_flags(buffer.flags, flags)?;
    if !host_ptr.is_null() {
        return Err(CL_INVALID_HOST_PTR);
    }
    Ok((flags, Some(buffer)))
}

/// Checks a descriptor's sizes and pitches and resolves the pitches (`CL_INVALID_IMAGE_DESCRIPTOR`).
/// `from_buffer`: a 2D image made from a buffer, whose row pitch is that of its rows in the
/// buffer.
fn describe(desc: &cl_image_desc, format: &Format, host_ptr: *mut c_void, from_buffer: bool) -> CLResult<Desc> {
    let ty = desc.image_type;
    if !IMAGE_TYPES.contains(&ty) || desc.num_mip_levels != 0 || desc.num_samples != 0 {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    let has = |t: &[cl_mem_object_type]| t.contains(&ty);
    let height = if has(&[CL_MEM_OBJECT_IMAGE2D, CL_MEM_OBJECT_IMAGE2D_ARRAY, CL_MEM_OBJECT_IMAGE3D]) { desc.image_height } else { 1 };
    let depth = if ty == CL_MEM_OBJECT_IMAGE3D { desc.image_depth } else { 1 };
    let array_size = if has(&[CL_MEM_OBJECT_IMAGE1D_ARRAY, CL_MEM_OBJECT_IMAGE2D_ARRAY]) { desc.image_array_size } else { 0 };
    let arrayed = array_size > 0 || !has(&[CL_MEM_OBJECT_IMAGE1D_ARRAY, CL_MEM_OBJECT_IMAGE2D_ARRAY]);
    if desc.image_width == 0 || height == 0 || depth == 0 || !arrayed {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    let row = desc.image_width.checked_mul(format.element).ok_or(CL_INVALID_IMAGE_SIZE)?;
    // Pitches describe the host memory (or a buffer's rows): without it they must be 0.
    if host_ptr.is_null() && ((desc.image_row_pitch != 0 && !from_buffer) || desc.image_slice_pitch != 0) {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    let row_pitch = if desc.image_row_pitch == 0 { row } else { desc.image_row_pitch };
    if row_pitch < row {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    // A buffer's rows are aligned to `CL_DEVICE_IMAGE_PITCH_ALIGNMENT` (one texel): breaking
    // that rule of 2D images from buffers is CL_INVALID_IMAGE_FORMAT_DESCRIPTOR.
    if !row_pitch.is_multiple_of(format.element) {
        return Err(if from_buffer { CL_INVALID_IMAGE_FORMAT_DESCRIPTOR } else { CL_INVALID_IMAGE_DESCRIPTOR });
    }
    // A 1D array's slices are its rows; a 2D array's and a 3D image's hold `height` rows.
    let slice = if ty == CL_MEM_OBJECT_IMAGE1D_ARRAY { row_pitch } else { row_pitch.checked_mul(height).ok_or(CL_INVALID_IMAGE_SIZE)? };
    let sliced = has(&[CL_MEM_OBJECT_IMAGE1D_ARRAY, CL_MEM_OBJECT_IMAGE2D_ARRAY, CL_MEM_OBJECT_IMAGE3D]);
    let slice_pitch = match desc.image_slice_pitch {
        0 if sliced => slice,
        p if sliced && (p < slice || !p.is_multiple_of(row_pitch)) => return Err(CL_INVALID_IMAGE_DESCRIPTOR),
        p if sliced => p,
        _ => 0,
    };
    Ok(Desc { ty, width: desc.image_width, height, depth, array_size, row_pitch, slice_pitch })
}

/// Checks a descriptor against the device's limits (`CL_INVALID_IMAGE_SIZE`).
fn check_size(device: &Device, d: &Desc, format: &Format, buffer: Option<&Mem>) -> CLResult<()> {
    let l = device.image_limits();
    if let Some(b) = buffer.filter(|_| d.ty == CL_MEM_OBJECT_IMAGE2D) {
        // Made from a buffer: its rows lie in the buffer, seen through one texel-buffer view.
        let span = d.row_pitch.checked_mul(d.height);
        let fits = d.width <= l.width && d.height <= l.height && span.is_some_and(|s| s <= b.size && s / format.element <= l.buffer);
        return if fits { Ok(()) } else { Err(CL_INVALID_IMAGE_SIZE) };
    }
    let fits = match d.ty {
        CL_MEM_OBJECT_IMAGE1D_BUFFER => d.width <= l.buffer && buffer.is_some_and(|b| d.width * format.element <= b.size),
        CL_MEM_OBJECT_IMAGE3D => d.width <= l.size_3d && d.height <= l.size_3d && d.depth <= l.size_3d,
        _ => d.width <= l.width && d.height <= l.height && d.array_size <= l.array,
    };
    let bytes = [d.width, d.height, d.depth, d.array_size.max(1), format.element].iter().try_fold(1usize, |a, &b| a.checked_mul(b));
    if !fits || bytes.is_none_or(|b| b as u64 > image::max_bytes(device, format, d.ty)) {
        return Err(CL_INVALID_IMAGE_SIZE);
    }
    Ok(())
}

entry! {
    fn clCreateImage(context: cl_context, flags: cl_mem_flags, format: *const cl_image_format, desc: *const cl_image_desc, host_ptr: *mut c_void; errcode_ret) -> CLResult<cl_mem> {
        create_image(context, Vec::new(), flags, format, desc, host_ptr)
    }
}

entry! {
    fn clCreateImageWithProperties(context: cl_context, props: *const cl_mem_properties, flags: cl_mem_flags, format: *const cl_image_format, desc: *const cl_image_desc, host_ptr: *mut c_void; errcode_ret) -> CLResult<cl_mem> {
        let (pairs, raw) = properties(props);
        if !pairs.is_empty() {
            // No image property is defined for this device.
            get::<Context>(context)?;
            return Err(CL_INVALID_PROPERTY);
        }
        create_image(context, raw, flags, format, desc, host_ptr)
    }
}

/// The OpenCL 1.1 entry points: their zero sizes are `CL_INVALID_IMAGE_SIZE`, and a 3D image
/// has a depth above 1.
unsafe fn create_legacy(context: cl_context, flags: cl_mem_flags, format: *const cl_image_format, desc: cl_image_desc, host_ptr: *mut c_void) -> CLResult<cl_mem> {
    let min_depth = if desc.image_type == CL_MEM_OBJECT_IMAGE3D { 2 } else { 0 };
    if desc.image_width == 0 || desc.image_height == 0 || desc.image_depth < min_depth {
        get::<Context>(context)?;
        return Err(CL_INVALID_IMAGE_SIZE);
    }
    create_image(context, Vec::new(), flags, format, &desc, host_ptr)
}

fn legacy_desc(image_type: cl_mem_object_type, [width, height, depth]: [usize; 3], row_pitch: usize, slice_pitch: usize) -> cl_image_desc {
    cl_image_desc {
        image_type,
        image_width: width,
        image_height: height,
        image_depth: depth,
        image_array_size: 0,
        image_row_pitch: row_pitch,
        image_slice_pitch: slice_pitch,
        num_mip_levels: 0,
        num_samples: 0,
        buffer: std::ptr::null_mut(),
    }
}

entry! {
    fn clCreateImage2D(context: cl_context, flags: cl_mem_flags, format: *const cl_image_format, width: usize, height: usize, row_pitch: usize, host_ptr: *mut c_void; errcode_ret) -> CLResult<cl_mem> {
        create_legacy(context, flags, format, legacy_desc(CL_MEM_OBJECT_IMAGE2D, [width, height, 1], row_pitch, 0), host_ptr)
    }
}

entry! {
    fn clCreateImage3D(context: cl_context, flags: cl_mem_flags, format: *const cl_image_format, width: usize, height: usize, depth: usize, row_pitch: usize, slice_pitch: usize, host_ptr: *mut c_void; errcode_ret) -> CLResult<cl_mem> {
        create_legacy(context, flags, format, legacy_desc(CL_MEM_OBJECT_IMAGE3D, [width, height, depth], row_pitch, slice_pitch), host_ptr)
    }
}

entry! {
    fn clGetSupportedImageFormats(context: cl_context, flags: cl_mem_flags, ty: cl_mem_object_type, n: cl_uint, formats: *mut cl_image_format, count: *mut cl_uint) -> CLResult<()> {
        let c = get::<Context>(context)?;
        check_flags(flags)?;
        if !IMAGE_TYPES.contains(&ty) || (n == 0 && !formats.is_null()) {
            return Err(CL_INVALID_VALUE);
        }
        let flags = if flags & ACCESS == 0 { flags | CL_MEM_READ_WRITE } else { flags };
        // Every pair the specification defines that every device of the context holds.
        let list: Vec<Format> = ORDERS
            .iter()
            .flat_map(|&o| DATA_TYPES.iter().filter_map(move |&t| image::format(o, t).ok()))
            .filter(|f| c.devices.iter().all(|d| image::supported(d, f, ty, flags)))
            .collect();
        if !formats.is_null() {
            for (i, f) in list.iter().take(n as usize).enumerate() {
                formats.add(i).write(cl_image_format { image_channel_order: f.order, image_channel_data_type: f.data_type });
            }
        }
        write_opt(count, list.len() as cl_uint);
        Ok(())
    }
}

entry! {
    fn clGetImageInfo(mem: cl_mem, param: cl_image_info, size: usize, value: *mut c_void, size_ret: *mut usize) -> CLResult<()> {
        let m = get::<Mem>(mem)?;
        let image = m.img()?;
        let d = &image.desc;
        let answer = match param {
            CL_IMAGE_FORMAT => Ok(Info::value([image.format.order, image.format.data_type])),
            CL_IMAGE_ELEMENT_SIZE => Ok(image.format.element.into()),
            CL_IMAGE_ROW_PITCH => Ok(d.row_pitch.into()),
            CL_IMAGE_SLICE_PITCH => Ok(d.slice_pitch.into()),
            CL_IMAGE_WIDTH => Ok(d.width.into()),
            // 0 for the types without the dimension.
            CL_IMAGE_HEIGHT => Ok(if matches!(d.ty, CL_MEM_OBJECT_IMAGE2D | CL_MEM_OBJECT_IMAGE2D_ARRAY | CL_MEM_OBJECT_IMAGE3D) { d.height } else { 0 }.into()),
            CL_IMAGE_DEPTH => Ok(if d.ty == CL_MEM_OBJECT_IMAGE3D { d.depth } else { 0 }.into()),
            CL_IMAGE_ARRAY_SIZE => Ok(d.array_size.into()),
            CL_IMAGE_BUFFER => Ok(m.parent.as_ref().map_or(std::ptr::null_mut(), handle_of).into()),
            CL_IMAGE_NUM_MIP_LEVELS | CL_IMAGE_NUM_SAMPLES => Ok(0u32.into()),
            _ => Err(CL_INVALID_VALUE),
        };
        info::write(answer, size, value, size_ret)
    }
}

/// An image used by a command of `q`.
fn image_for(q: &Queue, mem: cl_mem) -> CLResult<Arc<Mem>> {
    let m = mem_for(q, mem)?;
    m.img()?;
    Ok(m)
}

/// Reads an origin or region argument (NULL is `CL_INVALID_VALUE`).
unsafe fn triple(p: *const usize) -> CLResult<[usize; 3]> {
    if p.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    Ok(*(p as *const [usize; 3]))
}

/// Checks that `region` at `origin` lies inside the image, with the unused coordinates of its
/// type 0 (origin) and 1 (region); returns both.
unsafe fn image_region(m: &Mem, origin: *const usize, region: *const usize) -> CLResult<([usize; 3], [usize; 3])> {
    let d = &m.img()?.desc;
    let (o, r) = (triple(origin)?, triple(region)?);
    let extent = match d.ty {
        CL_MEM_OBJECT_IMAGE1D | CL_MEM_OBJECT_IMAGE1D_BUFFER => [d.width, 1, 1],
        CL_MEM_OBJECT_IMAGE1D_ARRAY => [d.width, d.array_size, 1],
        CL_MEM_OBJECT_IMAGE2D => [d.width, d.height, 1],
        CL_MEM_OBJECT_IMAGE2D_ARRAY => [d.width, d.height, d.array_size],
        _ => [d.width, d.height, d.depth],
    };
    let inside = (0..3).all(|i| r[i] != 0 && o[i].checked_add(r[i]).is_some_and(|end| end <= extent[i]));
    if !inside {
        return Err(CL_INVALID_VALUE);
    }
    Ok((o, r))
}

/// The host pitches of a read or write of `region`: 0 picks the packed pitch; others must hold
/// a row, and a slice its rows (a 1D array's slices are its layers, one row each).
fn host_pitches(m: &Mem, region: [usize; 3], row_pitch: usize, slice_pitch: usize) -> CLResult<Rect> {
    let image = m.img()?;
    let (_, extent) = image.desc.boxed([0; 3], region);
    let row = extent[0] * image.format.element;
    let row_pitch = if row_pitch == 0 { row } else { row_pitch };
    let slice = row_pitch * extent[1];
    let slice_pitch = if slice_pitch == 0 { slice } else { slice_pitch };
    if row_pitch < row || slice_pitch < slice {
        return Err(CL_INVALID_VALUE);
    }
    Ok(Rect { origin: [0; 3], row_pitch, slice_pitch })
}

/// A checked host transfer: queue, image, origin, region and host layout.
type HostTransfer = (Arc<Queue>, Arc<Mem>, [usize; 3], [usize; 3], Rect);

/// The checks of `clEnqueueReadImage`/`clEnqueueWriteImage`: the queue, the image, the region
/// in it, the host pitches, a host pointer, and host access (`denied`: the host flag that
/// forbids this direction).
unsafe fn host_transfer(q: cl_command_queue, mem: cl_mem, origin: *const usize, region: *const usize, [row_pitch, slice_pitch]: [usize; 2], no_ptr: bool, denied: cl_mem_flags) -> CLResult<HostTransfer> {
    let q = queue(q)?;
    let m = image_for(&q, mem)?;
    let (o, r) = image_region(&m, origin, region)?;
    let host = host_pitches(&m, r, row_pitch, slice_pitch)?;
    if no_ptr {
        return Err(CL_INVALID_VALUE);
    }
    host_may(&m, denied | CL_MEM_HOST_NO_ACCESS)?;
    Ok((q, m, o, r, host))
}

entry! {
    fn clEnqueueReadImage(q: cl_command_queue, mem: cl_mem, blocking: cl_bool, origin: *const usize, region: *const usize, row_pitch: usize, slice_pitch: usize, ptr: *mut c_void, n: cl_uint, list: *const cl_event, event: *mut cl_event) -> CLResult<()> {
        let (q, m, o, r, host) = host_transfer(q, mem, origin, region, [row_pitch, slice_pitch], ptr.is_null(), CL_MEM_HOST_WRITE_ONLY)?;
        submit(&q, CL_COMMAND_READ_IMAGE, n, list, blocking != 0, event, || m.read_image(&q.device, o, r, host, HostPtr(ptr.cast())))
    }
}

entry! {
    fn clEnqueueWriteImage(q: cl_command_queue, mem: cl_mem, blocking: cl_bool, origin: *const usize, region: *const usize, row_pitch: usize, slice_pitch: usize, ptr: *const c_void, n: cl_uint, list: *const cl_event, event: *mut cl_event) -> CLResult<()> {
        let (q, m, o, r, host) = host_transfer(q, mem, origin, region, [row_pitch, slice_pitch], ptr.is_null(), CL_MEM_HOST_READ_ONLY)?;
        submit(&q, CL_COMMAND_WRITE_IMAGE, n, list, blocking != 0, event, || m.write_image(&q.device, o, r, host, ptr.cast()))
    }
}

/// Whether two regions of one image overlap (each a box in the image's own coordinates).
fn boxes_overlap(a: [usize; 3], b: [usize; 3], region: [usize; 3]) -> bool {
    (0..3).all(|i| a[i] < b[i] + region[i] && b[i] < a[i] + region[i])
}

entry! {
    fn clEnqueueCopyImage(q: cl_command_queue, src: cl_mem, dst: cl_mem, src_origin: *const usize, dst_origin: *const usize, region: *const usize, n: cl_uint, list: *const cl_event, event: *mut cl_event) -> CLResult<()> {
        let q = queue(q)?;
        let (s, d) = (image_for(&q, src)?, image_for(&q, dst)?);
        let (sf, df) = (&s.img()?.format, &d.img()?.format);
        if (sf.order, sf.data_type) != (df.order, df.data_type) {
            return Err(CL_IMAGE_FORMAT_MISMATCH);
        }
        let (so, r) = image_region(&s, src_origin, region)?;
        let (d_o, _) = image_region(&d, dst_origin, region)?;
        if Arc::ptr_eq(&s, &d) && boxes_overlap(so, d_o, r) {
            return Err(CL_MEM_COPY_OVERLAP);
        }
        submit(&q, CL_COMMAND_COPY_IMAGE, n, list, false, event, || s.copy_image(&q.device, &d, so, d_o, r))
    }
}

/// A copy between an image and a buffer: image, buffer, origin and region.
type ImageBufferCopy = (Arc<Mem>, Arc<Mem>, [usize; 3], [usize; 3]);

/// The checks of a copy between an image and a buffer: the region in the image, and the
/// packed region's bytes from `offset` in the buffer.
unsafe fn image_buffer_copy(q: &Queue, image: cl_mem, buffer: cl_mem, origin: *const usize, region: *const usize, offset: usize) -> CLResult<ImageBufferCopy> {
    let i = image_for(q, image)?;
    let b = buffer_for(q, buffer)?;
    let (o, r) = image_region(&i, origin, region)?;
    let bytes = r.iter().product::<usize>() * i.img()?.format.element;
    if offset.checked_add(bytes).is_none_or(|end| end > b.size) {
        return Err(CL_INVALID_VALUE);
    }
    Ok((i, b, o, r))
}

entry! {
    fn clEnqueueCopyImageToBuffer(q: cl_command_queue, src: cl_mem, dst: cl_mem, src_origin: *const usize, region: *const usize, dst_offset: usize, n: cl_uint, list: *const cl_event, event: *mut cl_event) -> CLResult<()> {
        let q = queue(q)?;
        let (i, b, o, r) = image_buffer_copy(&q, src, dst, src_origin, region, dst_offset)?;
        submit(&q, CL_COMMAND_COPY_IMAGE_TO_BUFFER, n, list, false, event, || i.copy_with_buffer(&q.device, &b, dst_offset, o, r, true))
    }
}

entry! {
    fn clEnqueueCopyBufferToImage(q: cl_command_queue, src: cl_mem, dst: cl_mem, src_offset: usize, dst_origin: *const usize, region: *const usize, n: cl_uint, list: *const cl_event, event: *mut cl_event) -> CLResult<()> {
        let q = queue(q)?;
        let (i, b, o, r) = image_buffer_copy(&q, dst, src, dst_origin, region, src_offset)?;
        submit(&q, CL_COMMAND_COPY_BUFFER_TO_IMAGE, n, list, false, event, || i.copy_with_buffer(&q.device, &b, src_offset, o, r, false))
    }
}

entry! {
    fn clEnqueueFillImage(q: cl_command_queue, mem: cl_mem, colour: *const c_void, origin: *const usize, region: *const usize, n: cl_uint, list: *const cl_event, event: *mut cl_event) -> CLResult<()> {
        let q = queue(q)?;
        let m = image_for(&q, mem)?;
        if colour.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let (o, r) = image_region(&m, origin, region)?;
        let texel = image::texel(&m.img()?.format, (colour as *const [u32; 4]).read_unaligned());
        submit(&q, CL_COMMAND_FILL_IMAGE, n, list, false, event, || m.fill_image(&q.device, &texel, o, r))
    }
}

entry! {
    fn clEnqueueMapImage(q: cl_command_queue, mem: cl_mem, blocking: cl_bool, flags: cl_map_flags, origin: *const usize, region: *const usize, row_pitch: *mut usize, slice_pitch: *mut usize,
        n: cl_uint, list: *const cl_event, event: *mut cl_event; errcode_ret) -> CLResult<*mut c_void> {
        let q = queue(q)?;
        let m = image_for(&q, mem)?;
        let (o, r) = image_region(&m, origin, region)?;
        super::memory::check_map_flags(&m, flags)?;
        if row_pitch.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let image = m.img()?;
        let sliced = matches!(image.desc.ty, CL_MEM_OBJECT_IMAGE1D_ARRAY | CL_MEM_OBJECT_IMAGE2D_ARRAY | CL_MEM_OBJECT_IMAGE3D);
        if sliced && slice_pitch.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let deps = wait_list(&q, n, list)?;
        let e = image.format.element;
        let (ptr, pitches, work) = if image.desc.ty == CL_MEM_OBJECT_IMAGE1D_BUFFER {
            // The texels are the buffer's bytes: mapped as the buffer's are.
            let (ptr, work) = m.map(&q.device, flags, o[0] * e, r[0] * e)?;
            (ptr, [r[0] * e; 2], work)
        } else if image.from_buffer_2d() {
            // The region's rows in the buffer, at the image's row pitch.
            let pitch = image.desc.row_pitch;
            let (ptr, work) = m.map(&q.device, flags, o[1] * pitch + o[0] * e, (r[1] - 1) * pitch + r[0] * e)?;
            (ptr, [pitch, 0], work)
        } else {
            m.map_image(&q.device, flags, o, r)?
        };
        write_opt(row_pitch, pitches[0]);
        write_opt(slice_pitch, if sliced { pitches[1] } else { 0 });
        let ev = q.enqueue(CL_COMMAND_MAP_IMAGE, deps, work);
        finish_enqueue(&q, ev, blocking != 0, event)?;
        Ok(ptr)
    }
}
