//! Misuse of the API answers with the spec's error codes, never a crash: NULL and wrong-type
//! handles, NULL pointers, bad sizes, flags and regions. (Released handles are tested in
//! `direct.rs`: the loader would read them before the driver sees them.)
mod common;

use common::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};

fn create(context: cl_context, flags: cl_mem_flags, size: usize, host: *mut c_void) -> cl_int {
    let mut err = 1;
    let m = unsafe { clCreateBuffer(context, flags, size, host, &mut err) };
    assert!(m.is_null(), "created despite {}", error_name(err));
    err
}

#[test]
fn null_and_wrong_type_handles() {
    let env = Env::new();
    let mem = env.buffer(CL_MEM_READ_WRITE, 64);
    let mut out = [0u8; 64];
    unsafe {
        assert_eq!(create(null_mut(), CL_MEM_READ_WRITE, 64, null_mut()), CL_INVALID_CONTEXT);
        assert_eq!(create(mem.0, CL_MEM_READ_WRITE, 64, null_mut()), CL_INVALID_CONTEXT, "a cl_mem as the context");
        assert_eq!(create(env.queue, CL_MEM_READ_WRITE, 64, null_mut()), CL_INVALID_CONTEXT, "a queue as the context");
        assert_eq!(clGetContextInfo(null_mut(), CL_CONTEXT_NUM_DEVICES, 0, null_mut(), null_mut()), CL_INVALID_CONTEXT);
        assert_eq!(clGetContextInfo(env.queue, CL_CONTEXT_NUM_DEVICES, 0, null_mut(), null_mut()), CL_INVALID_CONTEXT);
        assert_eq!(clGetMemObjectInfo(env.context, CL_MEM_SIZE, 0, null_mut(), null_mut()), CL_INVALID_MEM_OBJECT);
        assert_eq!(clGetCommandQueueInfo(mem.0, CL_QUEUE_CONTEXT, 0, null_mut(), null_mut()), CL_INVALID_COMMAND_QUEUE);
        assert_eq!(clGetDeviceInfo(env.context, CL_DEVICE_NAME, 0, null_mut(), null_mut()), CL_INVALID_DEVICE);
        assert_eq!(clGetPlatformInfo(env.context as cl_platform_id, CL_PLATFORM_NAME, 0, null_mut(), null_mut()), CL_INVALID_PLATFORM);
        assert_eq!(clGetEventInfo(mem.0, CL_EVENT_CONTEXT, 0, null_mut(), null_mut()), CL_INVALID_EVENT);
        assert_eq!(clReleaseMemObject(env.context), CL_INVALID_MEM_OBJECT);
        assert_eq!(clRetainContext(mem.0), CL_INVALID_CONTEXT);
        assert_eq!(clReleaseCommandQueue(env.context), CL_INVALID_COMMAND_QUEUE);
        assert_eq!(clRetainEvent(env.queue), CL_INVALID_EVENT);
        assert_eq!(clReleaseMemObject(null_mut()), CL_INVALID_MEM_OBJECT);
        assert_eq!(clReleaseEvent(null_mut()), CL_INVALID_EVENT);
        assert_eq!(clFlush(null_mut()), CL_INVALID_COMMAND_QUEUE);
        assert_eq!(clFinish(env.context), CL_INVALID_COMMAND_QUEUE);
        // A valid queue with a bad buffer.
        assert_eq!(clEnqueueReadBuffer(env.queue, null_mut(), CL_TRUE, 0, 64, out.as_mut_ptr().cast(), 0, null(), null_mut()), CL_INVALID_MEM_OBJECT);
        assert_eq!(clEnqueueReadBuffer(env.queue, env.context, CL_TRUE, 0, 64, out.as_mut_ptr().cast(), 0, null(), null_mut()), CL_INVALID_MEM_OBJECT);
        assert_eq!(clEnqueueReadBuffer(mem.0, mem.0, CL_TRUE, 0, 64, out.as_mut_ptr().cast(), 0, null(), null_mut()), CL_INVALID_COMMAND_QUEUE);
        // Something that is not an event in a wait list.
        let not_event = mem.0;
        assert_eq!(clEnqueueReadBuffer(env.queue, mem.0, CL_TRUE, 0, 64, out.as_mut_ptr().cast(), 1, &not_event, null_mut()), CL_INVALID_EVENT_WAIT_LIST);
        assert_eq!(clWaitForEvents(1, &not_event), CL_INVALID_EVENT);
        let mut err = 1;
        assert!(clCreateUserEvent(mem.0, &mut err).is_null());
        assert_eq!(err, CL_INVALID_CONTEXT);
    }
}

#[test]
fn buffers_of_another_context_are_refused() {
    let a = Env::new();
    let b = Env::new();
    let mem = b.buffer(CL_MEM_READ_WRITE, 64);
    let mine = a.buffer(CL_MEM_READ_WRITE, 64);
    let mut out = [0u8; 64];
    unsafe {
        assert_eq!(clEnqueueReadBuffer(a.queue, mem.0, CL_TRUE, 0, 64, out.as_mut_ptr().cast(), 0, null(), null_mut()), CL_INVALID_CONTEXT);
        assert_eq!(clEnqueueCopyBuffer(a.queue, mine.0, mem.0, 0, 0, 64, 0, null(), null_mut()), CL_INVALID_CONTEXT);
    }
}

#[test]
fn bad_buffer_sizes_flags_and_host_pointers() {
    let env = Env::new();
    let max: cl_ulong = device_info(CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    let mut host = [0u8; 64];
    let h = host.as_mut_ptr().cast::<c_void>();
    let c = env.context;
    assert_eq!(create(c, CL_MEM_READ_WRITE, 0, null_mut()), CL_INVALID_BUFFER_SIZE);
    assert_eq!(create(c, CL_MEM_READ_WRITE, max as usize + 1, null_mut()), CL_INVALID_BUFFER_SIZE);
    assert_eq!(create(c, CL_MEM_READ_WRITE, usize::MAX, null_mut()), CL_INVALID_BUFFER_SIZE);
    assert_eq!(create(c, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, 64, null_mut()), CL_INVALID_VALUE);
    assert_eq!(create(c, CL_MEM_READ_WRITE | CL_MEM_READ_ONLY, 64, null_mut()), CL_INVALID_VALUE);
    assert_eq!(create(c, CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY, 64, null_mut()), CL_INVALID_VALUE);
    assert_eq!(create(c, CL_MEM_HOST_NO_ACCESS | CL_MEM_HOST_READ_ONLY, 64, null_mut()), CL_INVALID_VALUE);
    assert_eq!(create(c, 1 << 40, 64, null_mut()), CL_INVALID_VALUE);
    assert_eq!(create(c, CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR, 64, h), CL_INVALID_VALUE);
    assert_eq!(create(c, CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR, 64, h), CL_INVALID_VALUE);
    assert_eq!(create(c, CL_MEM_COPY_HOST_PTR, 64, null_mut()), CL_INVALID_HOST_PTR);
    assert_eq!(create(c, CL_MEM_USE_HOST_PTR, 64, null_mut()), CL_INVALID_HOST_PTR);
    assert_eq!(create(c, CL_MEM_READ_WRITE, 64, h), CL_INVALID_HOST_PTR, "a host pointer without a flag to use it");
    // errcode_ret may be NULL.
    let m = unsafe { clCreateBuffer(c, CL_MEM_READ_WRITE, 0, null_mut(), null_mut()) };
    assert!(m.is_null());
}

#[test]
fn transfers_out_of_bounds_or_without_memory() {
    let env = Env::new();
    let mem = env.buffer(CL_MEM_READ_WRITE, 256);
    let mut out = [0u8; 512];
    let p = out.as_mut_ptr().cast::<c_void>();
    let q = env.queue;
    unsafe {
        assert_eq!(clEnqueueReadBuffer(q, mem.0, CL_TRUE, 0, 257, p, 0, null(), null_mut()), CL_INVALID_VALUE);
        assert_eq!(clEnqueueReadBuffer(q, mem.0, CL_TRUE, 256, 1, p, 0, null(), null_mut()), CL_INVALID_VALUE);
        assert_eq!(clEnqueueReadBuffer(q, mem.0, CL_TRUE, usize::MAX, 2, p, 0, null(), null_mut()), CL_INVALID_VALUE, "offset + size overflows");
        assert_eq!(clEnqueueReadBuffer(q, mem.0, CL_TRUE, 0, 16, null_mut(), 0, null(), null_mut()), CL_INVALID_VALUE);
        assert_eq!(clEnqueueWriteBuffer(q, mem.0, CL_TRUE, 200, 57, p, 0, null(), null_mut()), CL_INVALID_VALUE);
        assert_eq!(clEnqueueWriteBuffer(q, mem.0, CL_TRUE, 0, 16, null(), 0, null(), null_mut()), CL_INVALID_VALUE);
        let other = env.buffer(CL_MEM_READ_WRITE, 128);
        assert_eq!(clEnqueueCopyBuffer(q, mem.0, other.0, 0, 0, 129, 0, null(), null_mut()), CL_INVALID_VALUE);
        assert_eq!(clEnqueueCopyBuffer(q, mem.0, other.0, 200, 0, 64, 0, null(), null_mut()), CL_INVALID_VALUE);
        assert_eq!(clEnqueueCopyBuffer(q, mem.0, other.0, 0, usize::MAX, 1, 0, null(), null_mut()), CL_INVALID_VALUE);
        let mut err = 1;
        assert!(clEnqueueMapBuffer(q, mem.0, CL_TRUE, CL_MAP_READ, 0, 0, 0, null(), null_mut(), &mut err).is_null());
        assert_eq!(err, CL_INVALID_VALUE, "map of zero bytes");
        assert!(clEnqueueMapBuffer(q, mem.0, CL_TRUE, CL_MAP_READ, 128, 129, 0, null(), null_mut(), &mut err).is_null());
        assert_eq!(err, CL_INVALID_VALUE);
    }
}

#[test]
fn bad_fills() {
    let env = Env::new();
    let mem = env.buffer(CL_MEM_READ_WRITE, 256);
    let pat = [0u8; 256];
    let fill = |pattern: *const c_void, size: usize, offset: usize, len: usize| unsafe { clEnqueueFillBuffer(env.queue, mem.0, pattern, size, offset, len, 0, null(), null_mut()) };
    let p = pat.as_ptr().cast();
    assert_eq!(fill(null(), 4, 0, 16), CL_INVALID_VALUE);
    assert_eq!(fill(p, 0, 0, 16), CL_INVALID_VALUE);
    assert_eq!(fill(p, 3, 0, 12), CL_INVALID_VALUE, "not a power of two");
    assert_eq!(fill(p, 256, 0, 256), CL_INVALID_VALUE, "larger than 128");
    assert_eq!(fill(p, 4, 2, 16), CL_INVALID_VALUE, "offset not a multiple");
    assert_eq!(fill(p, 4, 0, 18), CL_INVALID_VALUE, "size not a multiple");
    assert_eq!(fill(p, 4, 252, 8), CL_INVALID_VALUE, "out of bounds");
}

#[test]
fn bad_rectangles() {
    let env = Env::new();
    let mem = env.buffer(CL_MEM_READ_WRITE, 1024);
    let other = env.buffer(CL_MEM_READ_WRITE, 1024);
    let mut host = [0u8; 4096];
    let h = host.as_mut_ptr().cast::<c_void>();
    let zero = [0usize; 3];
    let read = |origin: *const usize, region: *const usize, row: usize, slice: usize, ptr: *mut c_void| unsafe {
        clEnqueueReadBufferRect(env.queue, mem.0, CL_TRUE, origin, zero.as_ptr(), region, row, slice, 0, 0, ptr, 0, null(), null_mut())
    };
    let region = [16usize, 4, 2];
    assert_eq!(read(zero.as_ptr(), region.as_ptr(), 32, 128, h), CL_SUCCESS);
    assert_eq!(read(null(), region.as_ptr(), 32, 128, h), CL_INVALID_VALUE);
    assert_eq!(read(zero.as_ptr(), null(), 32, 128, h), CL_INVALID_VALUE);
    assert_eq!(read(zero.as_ptr(), region.as_ptr(), 32, 128, null_mut()), CL_INVALID_VALUE);
    assert_eq!(read(zero.as_ptr(), [0usize, 4, 2].as_ptr(), 32, 128, h), CL_INVALID_VALUE, "empty region");
    assert_eq!(read(zero.as_ptr(), region.as_ptr(), 8, 128, h), CL_INVALID_VALUE, "row pitch below the width");
    assert_eq!(read(zero.as_ptr(), region.as_ptr(), 32, 100, h), CL_INVALID_VALUE, "slice pitch not a multiple of the row pitch");
    assert_eq!(read(zero.as_ptr(), region.as_ptr(), 32, 64, h), CL_INVALID_VALUE, "slice pitch below rows * row pitch");
    assert_eq!(read([0usize, 0, 7].as_ptr(), region.as_ptr(), 32, 128, h), CL_INVALID_VALUE, "past the end");
    assert_eq!(read([1000usize, 0, 0].as_ptr(), [30usize, 1, 1].as_ptr(), 0, 0, h), CL_INVALID_VALUE, "past the end in x");
    let copy = |src: cl_mem, dst: cl_mem, s: [usize; 3], d: [usize; 3], region: [usize; 3]| unsafe {
        clEnqueueCopyBufferRect(env.queue, src, dst, s.as_ptr(), d.as_ptr(), region.as_ptr(), 64, 0, 64, 0, 0, null(), null_mut())
    };
    assert_eq!(copy(mem.0, other.0, [0, 0, 0], [0, 15, 0], [64, 2, 1]), CL_INVALID_VALUE, "destination past the end");
    assert_eq!(copy(mem.0, mem.0, [0, 0, 0], [8, 1, 0], [16, 2, 1]), CL_MEM_COPY_OVERLAP);
    assert_eq!(copy(mem.0, mem.0, [0, 0, 0], [32, 0, 0], [16, 4, 1]), CL_SUCCESS, "interleaved rows do not overlap");
    env.finish();
}

#[test]
fn copy_rect_within_one_buffer() {
    // The spec's overlap test ("Checking for Memory Copy Overlap"): rectangles overlap unless
    // their blocks are apart or one's rows (slices) fit between the other's.
    let env = Env::new();
    let mem = env.buffer(CL_MEM_READ_WRITE, 1 << 17);
    let copy = |s: [usize; 3], d: [usize; 3], region: [usize; 3], src_pitch: [usize; 2], dst_pitch: [usize; 2]| unsafe {
        clEnqueueCopyBufferRect(env.queue, mem.0, mem.0, s.as_ptr(), d.as_ptr(), region.as_ptr(), src_pitch[0], src_pitch[1], dst_pitch[0], dst_pitch[1], 0, null(), null_mut())
    };
    let p = [64, 64 * 8];
    assert_eq!(copy([0, 0, 0], [0, 0, 0], [8, 2, 2], p, p), CL_MEM_COPY_OVERLAP, "the same rectangle");
    assert_eq!(copy([0, 0, 0], [4, 1, 1], [8, 2, 2], p, p), CL_MEM_COPY_OVERLAP);
    assert_eq!(copy([0, 0, 0], [8, 1, 1], [8, 2, 2], p, p), CL_SUCCESS, "side by side in every row");
    assert_eq!(copy([0, 0, 0], [0, 2, 0], [64, 2, 3], p, p), CL_SUCCESS, "rows between the other's rows, slice by slice");
    assert_eq!(copy([0, 0, 0], [0, 1, 0], [64, 2, 3], p, p), CL_MEM_COPY_OVERLAP);
    assert_eq!(copy([0, 0, 0], [0, 0, 0], [8, 2, 2], p, [64, 64 * 16]), CL_INVALID_VALUE, "one buffer, two slice pitches");
    assert_eq!(copy([0, 0, 0], [0, 0, 0], [8, 2, 2], p, [128, 128 * 8]), CL_INVALID_VALUE, "one buffer, two row pitches");
    // Zero pitches mean a packed rectangle: these blocks meet (CTS bufferreadwriterect gives the
    // same call, having checked overlap with the buffer's own pitches).
    assert_eq!(copy([105, 10, 32], [421, 44, 25], [111, 20, 7], [0, 0], [0, 0]), CL_MEM_COPY_OVERLAP);
    assert_eq!(copy([0, 0, 0], [0, 0, 1], [64, 8, 1], [0, 0], p), CL_SUCCESS, "a zero pitch equals the region's");
    env.finish();
}

#[test]
fn overlapping_copies() {
    let env = Env::new();
    let mem = env.buffer(CL_MEM_READ_WRITE, 4096);
    let copy = |src: cl_mem, dst: cl_mem, s: usize, d: usize, len: usize| unsafe { clEnqueueCopyBuffer(env.queue, src, dst, s, d, len, 0, null(), null_mut()) };
    assert_eq!(copy(mem.0, mem.0, 0, 10, 20), CL_MEM_COPY_OVERLAP);
    assert_eq!(copy(mem.0, mem.0, 10, 0, 20), CL_MEM_COPY_OVERLAP);
    assert_eq!(copy(mem.0, mem.0, 5, 5, 1), CL_MEM_COPY_OVERLAP);
    assert_eq!(copy(mem.0, mem.0, 0, 20, 20), CL_SUCCESS, "adjacent ranges");
    // A sub-buffer and its parent share memory.
    let align = device_info::<cl_uint>(CL_DEVICE_MEM_BASE_ADDR_ALIGN) as usize / 8;
    let region = cl_buffer_region { origin: align, size: align };
    let mut err = 1;
    let sub = Mem(unsafe { clCreateSubBuffer(mem.0, 0, CL_BUFFER_CREATE_TYPE_REGION, (&region as *const cl_buffer_region).cast(), &mut err) });
    ok(err);
    assert_eq!(copy(sub.0, mem.0, 0, align + 8, 16), CL_MEM_COPY_OVERLAP);
    assert_eq!(copy(sub.0, mem.0, 0, 0, 16), CL_SUCCESS);
    env.finish();
}

#[test]
fn host_access_flags_forbid_transfers_and_maps() {
    let env = Env::new();
    let mut buf = [0u8; 64];
    let p = buf.as_mut_ptr().cast::<c_void>();
    let q = env.queue;
    let map = |m: &Mem, flags: cl_map_flags| {
        let mut err = 1;
        let ptr = unsafe { clEnqueueMapBuffer(q, m.0, CL_TRUE, flags, 0, 64, 0, null(), null_mut(), &mut err) };
        if err == CL_SUCCESS {
            ok(unsafe { clEnqueueUnmapMemObject(q, m.0, ptr, 0, null(), null_mut()) });
        }
        err
    };
    let write_only = env.buffer(CL_MEM_HOST_WRITE_ONLY, 64);
    let read_only = env.buffer(CL_MEM_HOST_READ_ONLY, 64);
    let no_access = env.buffer(CL_MEM_HOST_NO_ACCESS, 64);
    let origin = [0usize; 3];
    let region = [64usize, 1, 1];
    unsafe {
        assert_eq!(clEnqueueReadBuffer(q, write_only.0, CL_TRUE, 0, 64, p, 0, null(), null_mut()), CL_INVALID_OPERATION);
        assert_eq!(clEnqueueReadBufferRect(q, write_only.0, CL_TRUE, origin.as_ptr(), origin.as_ptr(), region.as_ptr(), 0, 0, 0, 0, p, 0, null(), null_mut()), CL_INVALID_OPERATION);
        ok(clEnqueueWriteBuffer(q, write_only.0, CL_TRUE, 0, 64, p, 0, null(), null_mut()));
        assert_eq!(clEnqueueWriteBuffer(q, read_only.0, CL_TRUE, 0, 64, p, 0, null(), null_mut()), CL_INVALID_OPERATION);
        assert_eq!(clEnqueueWriteBufferRect(q, read_only.0, CL_TRUE, origin.as_ptr(), origin.as_ptr(), region.as_ptr(), 0, 0, 0, 0, p, 0, null(), null_mut()), CL_INVALID_OPERATION);
        ok(clEnqueueReadBuffer(q, read_only.0, CL_TRUE, 0, 64, p, 0, null(), null_mut()));
        assert_eq!(clEnqueueReadBuffer(q, no_access.0, CL_TRUE, 0, 64, p, 0, null(), null_mut()), CL_INVALID_OPERATION);
        assert_eq!(clEnqueueWriteBuffer(q, no_access.0, CL_TRUE, 0, 64, p, 0, null(), null_mut()), CL_INVALID_OPERATION);
    }
    assert_eq!(map(&write_only, CL_MAP_READ), CL_INVALID_OPERATION);
    assert_eq!(map(&write_only, CL_MAP_WRITE), CL_SUCCESS);
    assert_eq!(map(&read_only, CL_MAP_WRITE), CL_INVALID_OPERATION);
    assert_eq!(map(&read_only, CL_MAP_WRITE_INVALIDATE_REGION), CL_INVALID_OPERATION);
    assert_eq!(map(&read_only, CL_MAP_READ), CL_SUCCESS);
    for flags in [CL_MAP_READ, CL_MAP_WRITE, CL_MAP_WRITE_INVALIDATE_REGION] {
        assert_eq!(map(&no_access, flags), CL_INVALID_OPERATION);
    }
    let rw = env.buffer(CL_MEM_READ_WRITE, 64);
    assert_eq!(map(&rw, CL_MAP_WRITE_INVALIDATE_REGION | CL_MAP_READ), CL_INVALID_VALUE);
    assert_eq!(map(&rw, 1 << 10), CL_INVALID_VALUE);
    assert_eq!(unsafe { clEnqueueUnmapMemObject(q, rw.0, null_mut(), 0, null(), null_mut()) }, CL_INVALID_VALUE);
    env.finish();
}
