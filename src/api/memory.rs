//! Buffer entry points: creation, queries and the transfer commands.

use super::entry::entry;
use crate::cl::CLResult;
use crate::cl::object::{get, get_list, handle_of, publish, release, retain, Object};
use super::info::{self, Info};
use super::queue::queue;
use crate::cl::types::*;
use super::util::{finish_enqueue, properties, wait_list};
use crate::core::context::{Callback, Context};
use crate::core::memory::{HostPtr, Mem, Rect};
use crate::core::queue::{Queue, Work};
use std::sync::Arc;

pub(super) const ACCESS: cl_mem_flags = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
const HOST_ACCESS: cl_mem_flags = CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS;
const HOST_PTR: cl_mem_flags = CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR;

/// Checks a memory object's flags: known bits, one access mode, one host access mode, and
/// `USE_HOST_PTR` alone among the host-pointer flags.
pub(super) fn check_flags(flags: cl_mem_flags) -> CLResult<()> {
    let known = ACCESS | HOST_ACCESS | HOST_PTR | CL_MEM_KERNEL_READ_AND_WRITE;
    let use_conflict = flags & CL_MEM_USE_HOST_PTR != 0 && flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0;
    if flags & !known != 0 || (flags & ACCESS).count_ones() > 1 || (flags & HOST_ACCESS).count_ones() > 1 || use_conflict {
        return Err(CL_INVALID_VALUE);
    }
    Ok(())
}

fn create_buffer(context: cl_context, flags: cl_mem_flags, size: usize, host_ptr: *mut c_void, props: Vec<cl_mem_properties>) -> CLResult<cl_mem> {
    let c = get::<Context>(context)?;
    check_flags(flags)?;
    let flags = if flags & ACCESS == 0 { flags | CL_MEM_READ_WRITE } else { flags };
    if size == 0 || size as u64 > c.max_alloc_size() {
        return Err(CL_INVALID_BUFFER_SIZE);
    }
    let wants_ptr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0;
    if wants_ptr == host_ptr.is_null() {
        return Err(CL_INVALID_HOST_PTR);
    }
    // On SVM memory the buffer is that memory, as the spec wants (`CL_MEM_USES_SVM_POINTER`).
    if flags & CL_MEM_USE_HOST_PTR != 0 {
        if let Some(m) = super::svm::buffer_on_svm(&c, flags, host_ptr, size, props.clone()).map_err(|_| CL_INVALID_BUFFER_SIZE)? {
            return Ok(publish(m));
        }
    }
    Ok(publish(Mem::new_buffer(c, flags, size, host_ptr, props)?))
}

entry! {
    fn clCreateBuffer(context: cl_context, flags: cl_mem_flags, size: usize, host_ptr: *mut c_void; errcode_ret) -> CLResult<cl_mem> {
        create_buffer(context, flags, size, host_ptr, Vec::new())
    }
}

entry! {
    fn clCreateBufferWithProperties(context: cl_context, props: *const cl_mem_properties, flags: cl_mem_flags, size: usize, host_ptr: *mut c_void; errcode_ret) -> CLResult<cl_mem> {
        let (pairs, raw) = properties(props);
        if !pairs.is_empty() {
            // No buffer property is defined for this device.
            get::<Context>(context)?;
            return Err(CL_INVALID_PROPERTY);
        }
        create_buffer(context, flags, size, host_ptr, raw)
    }
}

/// Flags of a sub-buffer: what is not given is inherited; nothing may widen the parent's access.
pub(super) fn sub_buffer_flags(parent: cl_mem_flags, flags: cl_mem_flags) -> CLResult<cl_mem_flags> {
    check_flags(flags)?;
    let widens_device = (parent & CL_MEM_WRITE_ONLY != 0 && flags & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY) != 0)
        || (parent & CL_MEM_READ_ONLY != 0 && flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY) != 0);
    let widens_host = (parent & CL_MEM_HOST_WRITE_ONLY != 0 && flags & CL_MEM_HOST_READ_ONLY != 0)
        || (parent & CL_MEM_HOST_READ_ONLY != 0 && flags & CL_MEM_HOST_WRITE_ONLY != 0)
        || (parent & CL_MEM_HOST_NO_ACCESS != 0 && flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY) != 0);
    if widens_device || widens_host || flags & HOST_PTR != 0 {
        return Err(CL_INVALID_VALUE);
    }
    let access = if flags & ACCESS == 0 { parent & ACCESS } else { flags & ACCESS };
    let host = if flags & HOST_ACCESS == 0 { parent & HOST_ACCESS } else { flags & HOST_ACCESS };
    Ok(access | host | (parent & HOST_PTR) | (flags & CL_MEM_KERNEL_READ_AND_WRITE))
}

entry! {
    fn clCreateSubBuffer(buffer: cl_mem, flags: cl_mem_flags, kind: cl_buffer_create_type, info: *const c_void; errcode_ret) -> CLResult<cl_mem> {
        let parent = get::<Mem>(buffer)?;
        if parent.parent.is_some() || parent.image.is_some() {
            return Err(CL_INVALID_MEM_OBJECT);
        }
        let flags = sub_buffer_flags(parent.flags, flags)?;
        if kind != CL_BUFFER_CREATE_TYPE_REGION || info.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let region = &*(info as *const cl_buffer_region);
        if region.size == 0 {
            return Err(CL_INVALID_BUFFER_SIZE);
        }
        if region.origin.checked_add(region.size).is_none_or(|end| end > parent.size) {
            return Err(CL_INVALID_VALUE);
        }
        if parent.context.devices.iter().any(|d| !(region.origin as u64).is_multiple_of(d.base_align)) {
            return Err(CL_MISALIGNED_SUB_BUFFER_OFFSET);
        }
        Ok(publish(Mem::new_sub_buffer(&parent, flags, region.origin, region.size)))
    }
}

entry! {
    fn clRetainMemObject(mem: cl_mem) -> CLResult<()> {
        retain::<Mem>(mem)
    }
}

entry! {
    fn clReleaseMemObject(mem: cl_mem) -> CLResult<()> {
        release::<Mem>(mem).map(drop)
    }
}

entry! {
    fn clGetMemObjectInfo(mem: cl_mem, param: cl_mem_info, size: usize, value: *mut c_void, size_ret: *mut usize) -> CLResult<()> {
        let m = get::<Mem>(mem)?;
        let answer = match param {
            CL_MEM_TYPE => Ok(Info::value(m.image.as_ref().map_or(CL_MEM_OBJECT_BUFFER, |i| i.desc.ty))),
            CL_MEM_FLAGS => Ok(Info::value(m.flags)),
            CL_MEM_SIZE => Ok(m.size.into()),
            CL_MEM_HOST_PTR => Ok(m.app_host_ptr().into()),
            CL_MEM_MAP_COUNT => Ok(m.map_count().into()),
            CL_MEM_REFERENCE_COUNT => Ok(m.header().ref_count().into()),
            CL_MEM_CONTEXT => Ok(handle_of(&m.context).into()),
            CL_MEM_ASSOCIATED_MEMOBJECT => Ok(m.parent.as_ref().map_or(std::ptr::null_mut(), handle_of).into()),
            CL_MEM_OFFSET => Ok(m.origin.into()),
            CL_MEM_USES_SVM_POINTER => Ok(Info::bool(m.svm)),
            CL_MEM_PROPERTIES => Ok(Info::slice(&m.properties)),
            _ => Err(CL_INVALID_VALUE),
        };
        info::write(answer, size, value, size_ret)
    }
}

entry! {
    fn clSetMemObjectDestructorCallback(mem: cl_mem, func: ObjectCallback<cl_mem>, user_data: *mut c_void) -> CLResult<()> {
        let m = get::<Mem>(mem)?;
        if func.is_none() {
            return Err(CL_INVALID_VALUE);
        }
        m.add_destructor(Callback { func, user_data });
        Ok(())
    }
}

/// A memory object used by a command of `q`: same context, and on the queue's device.
pub(super) fn mem_for(q: &Queue, mem: cl_mem) -> CLResult<Arc<Mem>> {
    let m = get::<Mem>(mem)?;
    if !Arc::ptr_eq(&m.context, &q.context) {
        return Err(CL_INVALID_CONTEXT);
    }
    m.check_queue(q)?;
    Ok(m)
}

/// A buffer (not an image) used by a command of `q`.
pub(super) fn buffer_for(q: &Queue, mem: cl_mem) -> CLResult<Arc<Mem>> {
    let m = mem_for(q, mem)?;
    if m.image.is_some() {
        return Err(CL_INVALID_MEM_OBJECT);
    }
    Ok(m)
}

pub(super) fn host_may(m: &Mem, forbidden: cl_mem_flags) -> CLResult<()> {
    if m.flags & forbidden != 0 {
        return Err(CL_INVALID_OPERATION);
    }
    Ok(())
}

fn in_bounds(offset: usize, size: usize, total: usize) -> CLResult<()> {
    match offset.checked_add(size) {
        Some(end) if end <= total => Ok(()),
        _ => Err(CL_INVALID_VALUE),
    }
}

/// Enqueues `work` after the wait list, then blocks or returns the event as asked.
pub(super) unsafe fn submit(q: &Queue, ty: cl_command_type, n: cl_uint, list: *const cl_event, blocking: bool, event: *mut cl_event, work: impl FnOnce() -> CLResult<Work>) -> CLResult<()> {
    let deps = wait_list(q, n, list)?;
    let ev = q.enqueue(ty, deps, work()?);
    finish_enqueue(q, ev, blocking, event)
}

/// The work of a transfer of no bytes (valid since OpenCL 2.0): a command in the queue's order
/// that records nothing (Vulkan forbids empty copies and fills).
fn nothing() -> CLResult<Work> {
    Ok(Box::new(|_| Ok(None)))
}

/// Buffer rectangle, host rectangle, extent.
type Transfer = (Rect, Rect, [usize; 3]);

/// A blocking read runs at once, straight from the mapping, when the queue is idle; any other
/// read is enqueued: a large one as a host command doing the same when its turn comes.
#[allow(clippy::too_many_arguments)] // the arguments of clEnqueueReadBuffer(Rect)
pub(super) unsafe fn read(q: &Queue, m: &Arc<Mem>, ty: cl_command_type, (buf, host, extent): Transfer, dst: *mut u8, (n, list): (cl_uint, *const cl_event), blocking: bool, event: *mut cl_event) -> CLResult<()> {
    let deps = wait_list(q, n, list)?;
    let now = || m.read_mapped(buf, host, extent, dst) || m.read_by_engine(&q.device, buf, host, extent, dst);
    if let Some(ev) = blocking.then(|| q.execute_now(ty, &deps, now)).flatten() {
        return finish_enqueue(q, ev, false, event);
    }
    if m.reads_on_host(&q.device, extent) {
        let (m, device, dst) = (m.clone(), q.device.clone(), HostPtr(dst));
        // SAFETY: the API checked the host rectangle; the application keeps it until the read
        // completes.
        let ev = q.enqueue_host(ty, deps, Box::new(move || unsafe { m.read_on_host(&device, buf, host, extent, dst) }));
        return finish_enqueue(q, ev, blocking, event);
    }
    let ev = q.enqueue(ty, deps, m.read_rect(&q.device, buf, host, extent, HostPtr(dst))?);
    finish_enqueue(q, ev, blocking, event)
}

/// A blocking write goes straight into the mapping when the queue is idle; any other write is
/// staged and enqueued.
#[allow(clippy::too_many_arguments)] // the arguments of clEnqueueWriteBuffer(Rect)
pub(super) unsafe fn write(q: &Queue, m: &Arc<Mem>, ty: cl_command_type, (buf, host, extent): Transfer, src: *const u8, (n, list): (cl_uint, *const cl_event), blocking: bool, event: *mut cl_event) -> CLResult<()> {
    let deps = wait_list(q, n, list)?;
    if let Some(ev) = blocking.then(|| q.execute_now(ty, &deps, || m.write_mapped(buf, host, extent, src))).flatten() {
        return finish_enqueue(q, ev, false, event);
    }
    let ev = q.enqueue(ty, deps, m.write_rect(&q.device, buf, host, extent, src)?);
    finish_enqueue(q, ev, blocking, event)
}

/// A linear range as a one-row rectangle.
pub(super) fn linear(offset: usize, size: usize) -> (Rect, [usize; 3]) {
    (Rect { origin: [offset, 0, 0], row_pitch: size, slice_pitch: size }, [size, 1, 1])
}

entry! {
    fn clEnqueueReadBuffer(q: cl_command_queue, mem: cl_mem, blocking: cl_bool, offset: usize, size: usize, ptr: *mut c_void, n: cl_uint, list: *const cl_event, event: *mut cl_event) -> CLResult<()> {
        let q = queue(q)?;
        let m = buffer_for(&q, mem)?;
        in_bounds(offset, size, m.size)?;
        if ptr.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        host_may(&m, CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS)?;
        if size == 0 {
            return submit(&q, CL_COMMAND_READ_BUFFER, n, list, blocking != 0, event, nothing);
        }
        let (buf, region) = linear(offset, size);
        let (host, _) = linear(0, size);
        read(&q, &m, CL_COMMAND_READ_BUFFER, (buf, host, region), ptr.cast(), (n, list), blocking != 0, event)
    }
}

entry! {
    fn clEnqueueWriteBuffer(q: cl_command_queue, mem: cl_mem, blocking: cl_bool, offset: usize, size: usize, ptr: *const c_void, n: cl_uint, list: *const cl_event, event: *mut cl_event) -> CLResult<()> {
        let q = queue(q)?;
        let m = buffer_for(&q, mem)?;
        in_bounds(offset, size, m.size)?;
        if ptr.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        host_may(&m, CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)?;
        if size == 0 {
            return submit(&q, CL_COMMAND_WRITE_BUFFER, n, list, blocking != 0, event, nothing);
        }
        let (buf, region) = linear(offset, size);
        let (host, _) = linear(0, size);
        write(&q, &m, CL_COMMAND_WRITE_BUFFER, (buf, host, region), ptr.cast(), (n, list), blocking != 0, event)
    }
}

fn same_buffer(a: &Mem, b: &Mem) -> bool {
    a.buffer.as_ref().zip(b.buffer.as_ref()).is_some_and(|(x, y)| Arc::ptr_eq(x, y))
}

/// Two buffers overlap if they share memory and their byte ranges intersect.
fn overlap(a: &Mem, a_off: usize, b: &Mem, b_off: usize, size: usize) -> bool {
    let a0 = a.base + a_off as u64;
    let b0 = b.base + b_off as u64;
    same_buffer(a, b) && a0 < b0 + size as u64 && b0 < a0 + size as u64
}

entry! {
    fn clEnqueueCopyBuffer(q: cl_command_queue, src: cl_mem, dst: cl_mem, src_offset: usize, dst_offset: usize, size: usize, n: cl_uint, list: *const cl_event, event: *mut cl_event) -> CLResult<()> {
        let q = queue(q)?;
        let (s, d) = (buffer_for(&q, src)?, buffer_for(&q, dst)?);
        in_bounds(src_offset, size, s.size)?;
        in_bounds(dst_offset, size, d.size)?;
        if overlap(&s, src_offset, &d, dst_offset, size) {
            return Err(CL_MEM_COPY_OVERLAP);
        }
        if size == 0 {
            return submit(&q, CL_COMMAND_COPY_BUFFER, n, list, false, event, nothing);
        }
        let (sr, region) = linear(src_offset, size);
        let (dr, _) = linear(dst_offset, size);
        submit(&q, CL_COMMAND_COPY_BUFFER, n, list, false, event, || s.copy_rect(&q.device, &d, sr, dr, region))
    }
}

/// Resolves zero pitches to their defaults and checks them against the region.
unsafe fn rect(origin: *const usize, region: [usize; 3], row_pitch: usize, slice_pitch: usize) -> CLResult<Rect> {
    if origin.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    let origin = *(origin as *const [usize; 3]);
    let row_pitch = if row_pitch == 0 { region[0] } else { row_pitch };
    let slice_pitch = if slice_pitch == 0 { region[1] * row_pitch } else { slice_pitch };
    if row_pitch < region[0] || slice_pitch < region[1] * row_pitch || slice_pitch % row_pitch != 0 {
        return Err(CL_INVALID_VALUE);
    }
    Ok(Rect { origin, row_pitch, slice_pitch })
}

/// One past the last byte a rectangle touches.
fn rect_end(r: &Rect, region: [usize; 3]) -> Option<usize> {
    let last = |i: usize| r.origin[i].checked_add(region[i] - 1);
    let end = last(2)?.checked_mul(r.slice_pitch)?.checked_add(last(1)?.checked_mul(r.row_pitch)?)?;
    end.checked_add(r.origin[0])?.checked_add(region[0])
}

unsafe fn region(region: *const usize) -> CLResult<[usize; 3]> {
    if region.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    let r = *(region as *const [usize; 3]);
    if r.contains(&0) {
        return Err(CL_INVALID_VALUE);
    }
    Ok(r)
}

fn rect_in(r: &Rect, extent: [usize; 3], size: usize) -> CLResult<()> {
    match rect_end(r, extent) {
        Some(end) if end <= size => Ok(()),
        _ => Err(CL_INVALID_VALUE),
    }
}

/// Checks the buffer and host rectangles of a `*BufferRect` transfer, resolving their pitches
/// (`[buffer row, buffer slice, host row, host slice]`).
unsafe fn rect_transfer(m: &Mem, ptr: *const c_void, [buffer_origin, host_origin]: [*const usize; 2], reg: *const usize, pitches: [usize; 4]) -> CLResult<Transfer> {
    let extent = region(reg)?;
    let buf = rect(buffer_origin, extent, pitches[0], pitches[1])?;
    let host = rect(host_origin, extent, pitches[2], pitches[3])?;
    rect_in(&buf, extent, m.size)?;
    if ptr.is_null() || rect_end(&host, extent).is_none() {
        return Err(CL_INVALID_VALUE);
    }
    Ok((buf, host, extent))
}

entry! {
    fn clEnqueueReadBufferRect(q: cl_command_queue, mem: cl_mem, blocking: cl_bool, buffer_origin: *const usize, host_origin: *const usize, reg: *const usize,
        buffer_row_pitch: usize, buffer_slice_pitch: usize, host_row_pitch: usize, host_slice_pitch: usize, ptr: *mut c_void, n: cl_uint, list: *const cl_event, event: *mut cl_event) -> CLResult<()> {
        let q = queue(q)?;
        let m = buffer_for(&q, mem)?;
        let pitches = [buffer_row_pitch, buffer_slice_pitch, host_row_pitch, host_slice_pitch];
        let transfer = rect_transfer(&m, ptr, [buffer_origin, host_origin], reg, pitches)?;
        host_may(&m, CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS)?;
        read(&q, &m, CL_COMMAND_READ_BUFFER_RECT, transfer, ptr.cast(), (n, list), blocking != 0, event)
    }
}

entry! {
    fn clEnqueueWriteBufferRect(q: cl_command_queue, mem: cl_mem, blocking: cl_bool, buffer_origin: *const usize, host_origin: *const usize, reg: *const usize,
        buffer_row_pitch: usize, buffer_slice_pitch: usize, host_row_pitch: usize, host_slice_pitch: usize, ptr: *const c_void, n: cl_uint, list: *const cl_event, event: *mut cl_event) -> CLResult<()> {
        let q = queue(q)?;
        let m = buffer_for(&q, mem)?;
        let pitches = [buffer_row_pitch, buffer_slice_pitch, host_row_pitch, host_slice_pitch];
        let transfer = rect_transfer(&m, ptr, [buffer_origin, host_origin], reg, pitches)?;
        host_may(&m, CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)?;
        write(&q, &m, CL_COMMAND_WRITE_BUFFER_RECT, transfer, ptr.cast(), (n, list), blocking != 0, event)
    }
}

entry! {
    fn clEnqueueCopyBufferRect(q: cl_command_queue, src: cl_mem, dst: cl_mem, src_origin: *const usize, dst_origin: *const usize, reg: *const usize,
        src_row_pitch: usize, src_slice_pitch: usize, dst_row_pitch: usize, dst_slice_pitch: usize, n: cl_uint, list: *const cl_event, event: *mut cl_event) -> CLResult<()> {
        let q = queue(q)?;
        let (s, d) = (buffer_for(&q, src)?, buffer_for(&q, dst)?);
        let extent = region(reg)?;
        let sr = rect(src_origin, extent, src_row_pitch, src_slice_pitch)?;
        let dr = rect(dst_origin, extent, dst_row_pitch, dst_slice_pitch)?;
        rect_in(&sr, extent, s.size)?;
        rect_in(&dr, extent, d.size)?;
        let pitches = |r: &Rect| (r.row_pitch, r.slice_pitch);
        if Arc::ptr_eq(&s, &d) && pitches(&sr) != pitches(&dr) {
            return Err(CL_INVALID_VALUE);
        }
        if same_buffer(&s, &d) && rects_overlap(&s, &sr, &d, &dr, extent) {
            return Err(CL_MEM_COPY_OVERLAP);
        }
        submit(&q, CL_COMMAND_COPY_BUFFER_RECT, n, list, false, event, || s.copy_rect(&q.device, &d, sr, dr, extent))
    }
}

/// Whether two rectangles in one memory overlap, by the spec's test ("Checking for Memory Copy
/// Overlap"): their blocks' byte ranges meet, and neither's rows fit in the gap between the
/// other's rows (modulo the row pitch), nor its slices between the other's (modulo the slice
/// pitch). Offsets count from the memory's start, so sub-buffers of one buffer compare too (the
/// gap tests hold under a common shift); sub-buffers with different pitches, which the spec's
/// test does not cover, overlap when their blocks do.
fn rects_overlap(s: &Mem, sr: &Rect, d: &Mem, dr: &Rect, region: [usize; 3]) -> bool {
    // In range: the API checked that both rectangles lie inside their memory.
    let start = |m: &Mem, r: &Rect| m.base + (r.origin[2] * r.slice_pitch + r.origin[1] * r.row_pitch + r.origin[0]) as u64;
    let slice = |r: &Rect| ((region[1] - 1) * r.row_pitch + region[0]) as u64;
    let block = |r: &Rect| (region[2] - 1) as u64 * r.slice_pitch as u64 + slice(r);
    let (a, b) = (start(s, sr), start(d, dr));
    if b + block(dr) <= a || a + block(sr) <= b {
        return false;
    }
    if (sr.row_pitch, sr.slice_pitch) != (dr.row_pitch, dr.slice_pitch) {
        return true;
    }
    // Spans of `len` at `x` and `y`, repeating every `pitch` bytes, never meet.
    let apart = |len: u64, pitch: u64| {
        let (x, y) = (a % pitch, b % pitch);
        (y >= x + len && y + len <= x + pitch) || (x >= y + len && x + len <= y + pitch)
    };
    !(apart(region[0] as u64, sr.row_pitch as u64) || apart(slice(sr), sr.slice_pitch as u64))
}

entry! {
    fn clEnqueueFillBuffer(q: cl_command_queue, mem: cl_mem, pattern: *const c_void, pattern_size: usize, offset: usize, size: usize, n: cl_uint, list: *const cl_event, event: *mut cl_event) -> CLResult<()> {
        let q = queue(q)?;
        let m = buffer_for(&q, mem)?;
        let valid_size = pattern_size.is_power_of_two() && pattern_size <= 128;
        if pattern.is_null() || !valid_size || !offset.is_multiple_of(pattern_size.max(1)) || !size.is_multiple_of(pattern_size.max(1)) {
            return Err(CL_INVALID_VALUE);
        }
        in_bounds(offset, size, m.size)?;
        if size == 0 {
            return submit(&q, CL_COMMAND_FILL_BUFFER, n, list, false, event, nothing);
        }
        let bytes = std::slice::from_raw_parts(pattern as *const u8, pattern_size);
        submit(&q, CL_COMMAND_FILL_BUFFER, n, list, false, event, || m.fill(&q.device, bytes, offset, size))
    }
}

/// Checks map flags: known bits, `WRITE_INVALIDATE_REGION` alone, and the host access the
/// object allows.
pub(super) fn check_map_flags(m: &Mem, flags: cl_map_flags) -> CLResult<()> {
    let known = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
    if flags & !known != 0 || (flags & CL_MAP_WRITE_INVALIDATE_REGION != 0 && flags & (CL_MAP_READ | CL_MAP_WRITE) != 0) {
        return Err(CL_INVALID_VALUE);
    }
    if flags & CL_MAP_READ != 0 {
        host_may(m, CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS)?;
    }
    if flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION) != 0 {
        host_may(m, CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)?;
    }
    Ok(())
}

entry! {
    fn clEnqueueMapBuffer(q: cl_command_queue, mem: cl_mem, blocking: cl_bool, flags: cl_map_flags, offset: usize, size: usize, n: cl_uint, list: *const cl_event, event: *mut cl_event; errcode_ret) -> CLResult<*mut c_void> {
        let q = queue(q)?;
        let m = buffer_for(&q, mem)?;
        if size == 0 {
            return Err(CL_INVALID_VALUE);
        }
        in_bounds(offset, size, m.size)?;
        check_map_flags(&m, flags)?;
        let deps = wait_list(&q, n, list)?;
        let mut now = None;
        if let Some(ev) = (blocking != 0).then(|| q.execute_now(CL_COMMAND_MAP_BUFFER, &deps, || { now = m.map_by_engine(&q.device, flags, offset, size); now.is_some() })).flatten() {
            finish_enqueue(&q, ev, false, event)?;
            return Ok(now.unwrap_or(std::ptr::null_mut()));
        }
        let (ptr, work) = m.map(&q.device, flags, offset, size)?;
        let ev = q.enqueue(CL_COMMAND_MAP_BUFFER, deps, work);
        finish_enqueue(&q, ev, blocking != 0, event)?;
        Ok(ptr)
    }
}

entry! {
    fn clEnqueueUnmapMemObject(q: cl_command_queue, mem: cl_mem, ptr: *mut c_void, n: cl_uint, list: *const cl_event, event: *mut cl_event) -> CLResult<()> {
        let q = queue(q)?;
        let m = mem_for(&q, mem)?;
        submit(&q, CL_COMMAND_UNMAP_MEM_OBJECT, n, list, false, event, || m.unmap(&q.device, ptr))
    }
}

entry! {
    fn clEnqueueMigrateMemObjects(q: cl_command_queue, count: cl_uint, objects: *const cl_mem, flags: cl_mem_migration_flags, n: cl_uint, list: *const cl_event, event: *mut cl_event) -> CLResult<()> {
        let q = queue(q)?;
        if count == 0 || objects.is_null() || flags & !(CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED) != 0 {
            return Err(CL_INVALID_VALUE);
        }
        let mems = get_list::<Mem>(count, objects, CL_INVALID_VALUE)?;
        if mems.iter().any(|m| !Arc::ptr_eq(&m.context, &q.context)) {
            return Err(CL_INVALID_CONTEXT);
        }
        // A buffer's memory already lives on its device: migration is only an ordering point.
        submit(&q, CL_COMMAND_MIGRATE_MEM_OBJECTS, n, list, false, event, || Ok(Box::new(move |batch| {
            batch.keep(mems);
            Ok(None)
        })))
    }
}
