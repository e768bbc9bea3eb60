//! Every buffer command against a model of the buffer kept on the CPU.
mod common;

use common::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};
use std::sync::Mutex;

const SIZE: usize = 1 << 16;

fn mem_info<T: Copy>(m: cl_mem, param: cl_mem_info) -> T {
    info_value(|s, v, r| unsafe { clGetMemObjectInfo(m, param, s, v, r) })
}

#[test]
fn write_and_read_blocking() {
    let env = Env::new();
    let mem = env.buffer(CL_MEM_READ_WRITE, SIZE);
    let mut model = pattern(SIZE, 1);
    env.write(&mem, 0, &model);
    for (i, &(offset, len)) in [(0, 1), (1, 7), (3, 4096), (4095, 2), (SIZE - 5, 5), (1000, 30000)].iter().enumerate() {
        let data = pattern(len, 10 + i as u32);
        env.write(&mem, offset, &data);
        model[offset..offset + len].copy_from_slice(&data);
    }
    assert_eq!(env.read(&mem, 0, SIZE), model);
    assert_eq!(env.read(&mem, 4093, 11), model[4093..4104]);
    assert_eq!(env.read(&mem, SIZE - 1, 1), model[SIZE - 1..]);
}

#[test]
fn write_and_read_non_blocking() {
    let env = Env::new();
    let mem = env.buffer(CL_MEM_READ_WRITE, SIZE);
    let data = pattern(SIZE, 2);
    let mut out = vec![0u8; SIZE];
    let mut part = vec![0u8; 100];
    let mut events = [null_mut(); 3];
    unsafe {
        ok(clEnqueueWriteBuffer(env.queue, mem.0, CL_FALSE, 0, SIZE, data.as_ptr().cast(), 0, null(), &mut events[0]));
        ok(clEnqueueReadBuffer(env.queue, mem.0, CL_FALSE, 0, SIZE, out.as_mut_ptr().cast(), 0, null(), &mut events[1]));
        ok(clEnqueueReadBuffer(env.queue, mem.0, CL_FALSE, 777, 100, part.as_mut_ptr().cast(), 0, null(), &mut events[2]));
        ok(clWaitForEvents(3, events.as_ptr()));
        events.iter().for_each(|&e| ok(clReleaseEvent(e)));
    }
    assert_eq!(out, data);
    assert_eq!(part, data[777..877]);
}

/// Large non-blocking reads, several in flight before one wait, at offsets that the GPU path
/// (straight into the application's memory, 16-byte aligned) takes and at ones it leaves to
/// staging; bytes around each destination stay untouched.
#[test]
fn large_non_blocking_reads_in_flight_together() {
    const LEN: usize = 12 << 20;
    let env = Env::new();
    let data = pattern(LEN + 64, 5);
    let mem = env.buffer_from(&data);
    let cases = [(0, 0), (16, 32), (3, 0), (0, 5)];
    let mut outs: Vec<Vec<u8>> = cases.iter().map(|_| vec![0xa5u8; LEN + 64]).collect();
    let mut events = Vec::new();
    for (&(src, dst), out) in cases.iter().zip(outs.iter_mut()) {
        let mut e = null_mut();
        let at = out[dst..].as_mut_ptr().cast();
        ok(unsafe { clEnqueueReadBuffer(env.queue, mem.0, CL_FALSE, src, LEN, at, 0, null(), &mut e) });
        events.push(e);
    }
    ok(unsafe { clWaitForEvents(events.len() as cl_uint, events.as_ptr()) });
    events.iter().for_each(|&e| ok(unsafe { clReleaseEvent(e) }));
    for (&(src, dst), out) in cases.iter().zip(&outs) {
        assert!(out[..dst].iter().all(|&b| b == 0xa5), "src {src} dst {dst}: bytes before");
        assert!(out[dst..dst + LEN] == data[src..src + LEN], "src {src} dst {dst}: data");
        assert!(out[dst + LEN..].iter().all(|&b| b == 0xa5), "src {src} dst {dst}: bytes after");
    }
}

#[test]
fn write_source_may_be_reused_at_once() {
    // A non-blocking write copies its source before returning.
    let env = Env::new();
    let mem = env.buffer(CL_MEM_READ_WRITE, 256);
    let mut src = pattern(256, 3);
    let expected = src.clone();
    ok(unsafe { clEnqueueWriteBuffer(env.queue, mem.0, CL_FALSE, 0, 256, src.as_ptr().cast(), 0, null(), null_mut()) });
    src.fill(0);
    assert_eq!(env.read(&mem, 0, 256), expected);
}

#[test]
fn copy_between_and_within_buffers() {
    let env = Env::new();
    let src_data = pattern(SIZE, 4);
    let mut model = pattern(SIZE, 5);
    let (src, dst) = (env.buffer_from(&src_data), env.buffer_from(&model));
    for &(s, d, len) in &[(0, 0, 16), (1, 3, 1), (5, 1000, 4097), (SIZE - 9, 17, 9), (64, SIZE - 64, 64)] {
        ok(unsafe { clEnqueueCopyBuffer(env.queue, src.0, dst.0, s, d, len, 0, null(), null_mut()) });
        model[d..d + len].copy_from_slice(&src_data[s..s + len]);
    }
    // Within one buffer, disjoint ranges.
    ok(unsafe { clEnqueueCopyBuffer(env.queue, dst.0, dst.0, 0, 20000, 10000, 0, null(), null_mut()) });
    model.copy_within(0..10000, 20000);
    assert_eq!(env.read(&dst, 0, SIZE), model);
    assert_eq!(env.read(&src, 0, SIZE), src_data, "the source is unchanged");
}

#[test]
fn fill_with_every_pattern_size() {
    let env = Env::new();
    let mut model = pattern(SIZE, 6);
    let mem = env.buffer_from(&model);
    let mut n = 0;
    for size in [1usize, 2, 4, 8, 16, 32, 64, 128] {
        let pat = pattern(size, 100 + size as u32);
        // Unaligned offsets (a multiple of the pattern only), short and long ranges.
        for (offset_units, units) in [(1usize, 1usize), (3, 5), (7, 1200)] {
            let offset = offset_units * size + n * 512;
            let len = units * size;
            if offset + len > SIZE {
                continue;
            }
            ok(unsafe { clEnqueueFillBuffer(env.queue, mem.0, pat.as_ptr().cast(), size, offset, len, 0, null(), null_mut()) });
            for (i, b) in model[offset..offset + len].iter_mut().enumerate() {
                *b = pat[i % size];
            }
        }
        n += 1;
    }
    assert_eq!(env.read(&mem, 0, SIZE), model);
}

#[test]
fn fill_larger_than_the_staging_chunk() {
    // An 8-byte pattern is not one repeated 32-bit word: it goes through staging in chunks.
    let env = Env::new();
    let len = 300_000;
    let mem = env.buffer(CL_MEM_READ_WRITE, len + 16);
    let pat = [1u8, 2, 3, 4, 5, 6, 7, 8];
    ok(unsafe { clEnqueueFillBuffer(env.queue, mem.0, pat.as_ptr().cast(), 8, 8, len, 0, null(), null_mut()) });
    let got = env.read(&mem, 8, len);
    assert!(got.chunks(8).all(|c| c == pat));
}

/// Bytes a rectangle touches: (offset in the linear memory) for each byte of the region.
fn rect_offsets(origin: [usize; 3], region: [usize; 3], row: usize, slice: usize) -> Vec<usize> {
    let mut out = Vec::new();
    for z in 0..region[2] {
        for y in 0..region[1] {
            for x in 0..region[0] {
                out.push(origin[0] + x + (origin[1] + y) * row + (origin[2] + z) * slice);
            }
        }
    }
    out
}

#[test]
fn rect_write_read_and_copy_with_pitches() {
    let env = Env::new();
    let (row, slice) = (64usize, 64 * 16);
    let size = slice * 4;
    let mut model = pattern(size, 7);
    let mem = env.buffer_from(&model);
    let region = [10usize, 5, 3];
    // Write from a host rectangle with its own pitches.
    let (h_row, h_slice) = (13usize, 13 * 7);
    let host = pattern(h_slice * 4, 8);
    let (b_origin, h_origin) = ([3usize, 2, 1], [1usize, 1, 0]);
    ok(unsafe {
        clEnqueueWriteBufferRect(env.queue, mem.0, CL_TRUE, b_origin.as_ptr(), h_origin.as_ptr(), region.as_ptr(), row, slice, h_row, h_slice, host.as_ptr().cast(), 0, null(), null_mut())
    });
    for (b, h) in rect_offsets(b_origin, region, row, slice).into_iter().zip(rect_offsets(h_origin, region, h_row, h_slice)) {
        model[b] = host[h];
    }
    assert_eq!(env.read(&mem, 0, size), model);

    // Read a rectangle back into host memory with other pitches.
    let (r_row, r_slice) = (11usize, 11 * 6);
    let mut out = vec![0xEEu8; r_slice * 3];
    let (r_origin, o_origin) = ([0usize, 7, 1], [1usize, 0, 0]);
    ok(unsafe {
        clEnqueueReadBufferRect(env.queue, mem.0, CL_TRUE, r_origin.as_ptr(), o_origin.as_ptr(), region.as_ptr(), row, slice, r_row, r_slice, out.as_mut_ptr().cast(), 0, null(), null_mut())
    });
    let mut expected = vec![0xEEu8; r_slice * 3];
    for (b, h) in rect_offsets(r_origin, region, row, slice).into_iter().zip(rect_offsets(o_origin, region, r_row, r_slice)) {
        expected[h] = model[b];
    }
    assert_eq!(out, expected);

    // Copy a rectangle into another buffer laid out differently.
    let (d_row, d_slice) = (32usize, 32 * 8);
    let mut dst_model = vec![0u8; d_slice * 3];
    let dst = env.buffer_from(&dst_model);
    let (s_origin, d_origin) = ([5usize, 3, 0], [2usize, 1, 0]);
    ok(unsafe { clEnqueueCopyBufferRect(env.queue, mem.0, dst.0, s_origin.as_ptr(), d_origin.as_ptr(), region.as_ptr(), row, slice, d_row, d_slice, 0, null(), null_mut()) });
    for (s, d) in rect_offsets(s_origin, region, row, slice).into_iter().zip(rect_offsets(d_origin, region, d_row, d_slice)) {
        dst_model[d] = model[s];
    }
    assert_eq!(env.read(&dst, 0, dst_model.len()), dst_model);
}

#[test]
fn rect_copies_within_one_buffer_and_between_its_sub_buffers() {
    let env = Env::new();
    let (row, slice) = (64usize, 64 * 8);
    let size = slice * 8;
    let mut model = pattern(size, 11);
    let mem = env.buffer_from(&model);
    let copy = |src: &Mem, dst: &Mem, s: [usize; 3], d: [usize; 3], region: [usize; 3]| {
        ok(unsafe { clEnqueueCopyBufferRect(env.queue, src.0, dst.0, s.as_ptr(), d.as_ptr(), region.as_ptr(), row, slice, row, slice, 0, null(), null_mut()) });
    };
    let mirror = |model: &mut Vec<u8>, base: [usize; 2], s: [usize; 3], d: [usize; 3], region: [usize; 3]| {
        let before = model.clone();
        for (from, to) in rect_offsets(s, region, row, slice).into_iter().zip(rect_offsets(d, region, row, slice)) {
            model[base[1] + to] = before[base[0] + from];
        }
    };
    // Side by side in the same rows, and in alternate rows of the same slices.
    for (s, d, region) in [([0, 0, 0], [24, 0, 0], [20, 5, 3]), ([3, 0, 1], [3, 4, 1], [50, 4, 4]), ([1, 6, 5], [9, 2, 0], [30, 2, 2])] {
        copy(&mem, &mem, s, d, region);
        mirror(&mut model, [0, 0], s, d, region);
    }
    assert_eq!(env.read(&mem, 0, size), model);
    // Two sub-buffers of the buffer, at different slices: their own origins are counted from
    // their starts.
    let (a, b) = (sub_buffer(&mem, 0, 0, slice * 4).unwrap(), sub_buffer(&mem, 0, slice * 4, slice * 4).unwrap());
    copy(&a, &b, [0, 0, 1], [8, 0, 0], [16, 8, 2]);
    mirror(&mut model, [0, slice * 4], [0, 0, 1], [8, 0, 0], [16, 8, 2]);
    assert_eq!(env.read(&mem, 0, size), model);
}

#[test]
fn rect_default_pitches() {
    // Zero pitches mean tightly packed: row pitch = region width, slice pitch = rows * row pitch.
    let env = Env::new();
    let region = [8usize, 4, 2];
    let data = pattern(64, 9);
    let mem = env.buffer(CL_MEM_READ_WRITE, 64);
    let zero = [0usize; 3];
    ok(unsafe { clEnqueueWriteBufferRect(env.queue, mem.0, CL_TRUE, zero.as_ptr(), zero.as_ptr(), region.as_ptr(), 0, 0, 0, 0, data.as_ptr().cast(), 0, null(), null_mut()) });
    assert_eq!(env.read(&mem, 0, 64), data);
}

fn map(env: &Env, mem: &Mem, flags: cl_map_flags, offset: usize, len: usize) -> *mut u8 {
    let mut err = 1;
    let p = unsafe { clEnqueueMapBuffer(env.queue, mem.0, CL_TRUE, flags, offset, len, 0, null(), null_mut(), &mut err) };
    ok(err);
    assert!(!p.is_null());
    p.cast()
}

fn unmap(env: &Env, mem: &Mem, p: *mut u8) {
    ok(unsafe { clEnqueueUnmapMemObject(env.queue, mem.0, p.cast(), 0, null(), null_mut()) });
    env.finish();
}

#[test]
fn map_for_reading_writing_and_invalidating() {
    let env = Env::new();
    let mut model = pattern(SIZE, 11);
    let mem = env.buffer_from(&model);
    let p = map(&env, &mem, CL_MAP_READ, 100, 1000);
    assert_eq!(mem_info::<cl_uint>(mem.0, CL_MEM_MAP_COUNT), 1);
    assert_eq!(unsafe { std::slice::from_raw_parts(p, 1000) }, &model[100..1100]);
    unmap(&env, &mem, p);
    assert_eq!(mem_info::<cl_uint>(mem.0, CL_MEM_MAP_COUNT), 0);

    let p = map(&env, &mem, CL_MAP_READ | CL_MAP_WRITE, 5, 300);
    let slice = unsafe { std::slice::from_raw_parts_mut(p, 300) };
    assert_eq!(slice, &model[5..305]);
    for (i, b) in slice.iter_mut().enumerate() {
        *b = b.wrapping_add(i as u8);
    }
    model[5..305].copy_from_slice(slice);
    unmap(&env, &mem, p);

    let fresh = pattern(4096, 12);
    let p = map(&env, &mem, CL_MAP_WRITE_INVALIDATE_REGION, 8192, 4096);
    unsafe { std::slice::from_raw_parts_mut(p, 4096) }.copy_from_slice(&fresh);
    model[8192..12288].copy_from_slice(&fresh);
    unmap(&env, &mem, p);
    assert_eq!(env.read(&mem, 0, SIZE), model);

    // Two maps at once, unmapped out of order.
    let a = map(&env, &mem, CL_MAP_READ, 0, 16);
    let b = map(&env, &mem, CL_MAP_READ, 32, 16);
    assert_eq!(mem_info::<cl_uint>(mem.0, CL_MEM_MAP_COUNT), 2);
    unmap(&env, &mem, a);
    unmap(&env, &mem, b);
    let unknown = model.as_mut_ptr();
    assert_eq!(unsafe { clEnqueueUnmapMemObject(env.queue, mem.0, unknown.cast(), 0, null(), null_mut()) }, CL_INVALID_VALUE);
    assert_eq!(unsafe { clEnqueueUnmapMemObject(env.queue, mem.0, a.cast(), 0, null(), null_mut()) }, CL_INVALID_VALUE, "already unmapped");
}

#[test]
fn use_host_ptr_maps_to_the_host_pointer_with_current_data() {
    let env = Env::new();
    let mut host = pattern(8192, 13);
    let mut model = host.clone();
    let mem = Mem(create_buffer(env.context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, host.len(), host.as_mut_ptr().cast()));
    assert_eq!(mem_info::<*mut c_void>(mem.0, CL_MEM_HOST_PTR), host.as_mut_ptr().cast());
    assert_eq!(env.read(&mem, 0, 8192), model);
    // Change the buffer through the queue, then map: the host memory shows the new data.
    let update = pattern(1000, 14);
    env.write(&mem, 2000, &update);
    model[2000..3000].copy_from_slice(&update);
    let p = map(&env, &mem, CL_MAP_READ | CL_MAP_WRITE, 1024, 4096);
    assert_eq!(p, unsafe { host.as_mut_ptr().add(1024) });
    assert_eq!(unsafe { std::slice::from_raw_parts(p, 4096) }, &model[1024..5120]);
    unsafe { std::slice::from_raw_parts_mut(p, 16) }.fill(0x5A);
    model[1024..1040].fill(0x5A);
    unmap(&env, &mem, p);
    assert_eq!(env.read(&mem, 0, 8192), model);
}

#[test]
fn copy_host_ptr_copies_at_creation() {
    let env = Env::new();
    let mut host = pattern(1000, 15);
    let expected = host.clone();
    let mem = Mem(create_buffer(env.context, CL_MEM_COPY_HOST_PTR, host.len(), host.as_mut_ptr().cast()));
    host.fill(0);
    assert_eq!(env.read(&mem, 0, 1000), expected);
    assert!(mem_info::<*mut c_void>(mem.0, CL_MEM_HOST_PTR).is_null());
    assert_eq!(mem_info::<cl_mem_flags>(mem.0, CL_MEM_FLAGS), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, "READ_WRITE is the default");
    let alloc = env.buffer(CL_MEM_READ_ONLY | CL_MEM_ALLOC_HOST_PTR, 64);
    assert_eq!(mem_info::<cl_mem_flags>(alloc.0, CL_MEM_FLAGS), CL_MEM_READ_ONLY | CL_MEM_ALLOC_HOST_PTR);
    // ALLOC_HOST_PTR and COPY_HOST_PTR together: allocated for the host, initialised from it.
    let mut init = pattern(512, 33);
    let both = Mem(create_buffer(env.context, CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR, 512, init.as_mut_ptr().cast()));
    assert_eq!(env.read(&both, 0, 512), init);
}

fn sub_buffer(parent: &Mem, flags: cl_mem_flags, origin: usize, size: usize) -> Result<Mem, cl_int> {
    let region = cl_buffer_region { origin, size };
    let mut err = 1;
    let m = unsafe { clCreateSubBuffer(parent.0, flags, CL_BUFFER_CREATE_TYPE_REGION, (&region as *const cl_buffer_region).cast(), &mut err) };
    if err == CL_SUCCESS {
        Ok(Mem(m))
    } else {
        assert!(m.is_null());
        Err(err)
    }
}

#[test]
fn sub_buffers_share_the_parent_memory() {
    let env = Env::new();
    let align = device_info::<cl_uint>(CL_DEVICE_MEM_BASE_ADDR_ALIGN) as usize / 8;
    let size = align * 8;
    let mut model = pattern(size, 16);
    let parent = env.buffer_from(&model);
    let sub = sub_buffer(&parent, 0, align * 2, align * 3).expect("aligned sub-buffer");
    assert_eq!(env.read(&sub, 0, align * 3), model[align * 2..align * 5]);
    let data = pattern(100, 17);
    env.write(&sub, 10, &data);
    model[align * 2 + 10..align * 2 + 110].copy_from_slice(&data);
    assert_eq!(env.read(&parent, 0, size), model);
    // Through the parent, seen by the sub-buffer.
    let fill = [0x77u8];
    ok(unsafe { clEnqueueFillBuffer(env.queue, parent.0, fill.as_ptr().cast(), 1, align * 3, 8, 0, null(), null_mut()) });
    model[align * 3..align * 3 + 8].fill(0x77);
    assert_eq!(env.read(&sub, 0, align * 3), model[align * 2..align * 5]);
    // A copy from the sub-buffer into another part of the parent.
    ok(unsafe { clEnqueueCopyBuffer(env.queue, sub.0, parent.0, 0, 0, 64, 0, null(), null_mut()) });
    model.copy_within(align * 2..align * 2 + 64, 0);
    assert_eq!(env.read(&parent, 0, size), model);

    assert_eq!(mem_info::<cl_mem>(sub.0, CL_MEM_ASSOCIATED_MEMOBJECT), parent.0);
    assert_eq!(mem_info::<usize>(sub.0, CL_MEM_OFFSET), align * 2);
    assert_eq!(mem_info::<usize>(sub.0, CL_MEM_SIZE), align * 3);
    assert_eq!(mem_info::<cl_mem_flags>(sub.0, CL_MEM_FLAGS), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, "inherited");
    assert_eq!(mem_info::<cl_context>(sub.0, CL_MEM_CONTEXT), env.context);

    assert_eq!(sub_buffer(&parent, 0, align + 4, 16).err(), Some(CL_MISALIGNED_SUB_BUFFER_OFFSET));
    assert_eq!(sub_buffer(&parent, 0, 0, 0).err(), Some(CL_INVALID_BUFFER_SIZE));
    assert_eq!(sub_buffer(&parent, 0, align * 7, align * 2).err(), Some(CL_INVALID_VALUE), "past the end");
    assert_eq!(sub_buffer(&sub, 0, 0, 16).err(), Some(CL_INVALID_MEM_OBJECT), "sub-buffer of a sub-buffer");
    assert_eq!(sub_buffer(&parent, CL_MEM_USE_HOST_PTR, 0, 16).err(), Some(CL_INVALID_VALUE));
    let read_only = env.buffer(CL_MEM_READ_ONLY | CL_MEM_HOST_READ_ONLY, size);
    assert_eq!(sub_buffer(&read_only, CL_MEM_READ_WRITE, 0, 16).err(), Some(CL_INVALID_VALUE), "wider device access");
    assert_eq!(sub_buffer(&read_only, CL_MEM_HOST_WRITE_ONLY, 0, 16).err(), Some(CL_INVALID_VALUE), "wider host access");
    let narrow = sub_buffer(&read_only, 0, 0, 16).expect("inherits");
    assert_eq!(mem_info::<cl_mem_flags>(narrow.0, CL_MEM_FLAGS), CL_MEM_READ_ONLY | CL_MEM_HOST_READ_ONLY);
    let mut err = 1;
    let region = cl_buffer_region { origin: 0, size: 16 };
    let bad = unsafe { clCreateSubBuffer(parent.0, 0, 0x7777, (&region as *const cl_buffer_region).cast(), &mut err) };
    assert!(bad.is_null());
    assert_eq!(err, CL_INVALID_VALUE);
    let bad = unsafe { clCreateSubBuffer(parent.0, 0, CL_BUFFER_CREATE_TYPE_REGION, null(), &mut err) };
    assert!(bad.is_null());
    assert_eq!(err, CL_INVALID_VALUE);
}

#[test]
fn mem_object_queries() {
    let env = Env::new();
    let mem = env.buffer(CL_MEM_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS, 4096);
    assert_eq!(mem_info::<cl_mem_object_type>(mem.0, CL_MEM_TYPE), CL_MEM_OBJECT_BUFFER);
    assert_eq!(mem_info::<cl_mem_flags>(mem.0, CL_MEM_FLAGS), CL_MEM_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS);
    assert_eq!(mem_info::<usize>(mem.0, CL_MEM_SIZE), 4096);
    assert!(mem_info::<*mut c_void>(mem.0, CL_MEM_HOST_PTR).is_null());
    assert_eq!(mem_info::<cl_uint>(mem.0, CL_MEM_MAP_COUNT), 0);
    assert_eq!(mem_info::<cl_uint>(mem.0, CL_MEM_REFERENCE_COUNT), 1);
    ok(unsafe { clRetainMemObject(mem.0) });
    assert_eq!(mem_info::<cl_uint>(mem.0, CL_MEM_REFERENCE_COUNT), 2);
    ok(unsafe { clReleaseMemObject(mem.0) });
    assert_eq!(mem_info::<cl_context>(mem.0, CL_MEM_CONTEXT), env.context);
    assert!(mem_info::<cl_mem>(mem.0, CL_MEM_ASSOCIATED_MEMOBJECT).is_null());
    assert_eq!(mem_info::<usize>(mem.0, CL_MEM_OFFSET), 0);
    assert_eq!(mem_info::<cl_bool>(mem.0, CL_MEM_USES_SVM_POINTER), CL_FALSE);
    let mut size = 99;
    ok(unsafe { clGetMemObjectInfo(mem.0, CL_MEM_PROPERTIES, 0, null_mut(), &mut size) });
    assert_eq!(size, 0, "created without properties");
    assert_eq!(unsafe { clGetMemObjectInfo(mem.0, 0x11FF, 0, null_mut(), &mut size) }, CL_INVALID_VALUE);
    let mut small = 0u8;
    assert_eq!(unsafe { clGetMemObjectInfo(mem.0, CL_MEM_SIZE, 1, (&mut small as *mut u8).cast(), null_mut()) }, CL_INVALID_VALUE);

    // clCreateBufferWithProperties: the (empty) list comes back as given.
    let props: [cl_mem_properties; 1] = [0];
    let mut err = 1;
    let with = Mem(unsafe { clCreateBufferWithProperties(env.context, props.as_ptr(), CL_MEM_READ_WRITE, 64, null_mut(), &mut err) });
    ok(err);
    let back: Vec<cl_mem_properties> = info_array(|s, v, r| unsafe { clGetMemObjectInfo(with.0, CL_MEM_PROPERTIES, s, v, r) });
    assert_eq!(back, props);
    let unknown: [cl_mem_properties; 3] = [0x7777, 1, 0];
    let bad = unsafe { clCreateBufferWithProperties(env.context, unknown.as_ptr(), CL_MEM_READ_WRITE, 64, null_mut(), &mut err) };
    assert!(bad.is_null());
    assert_eq!(err, CL_INVALID_PROPERTY);
}

static RELEASED: Mutex<Vec<usize>> = Mutex::new(Vec::new());

extern "C" fn on_release(_mem: *mut c_void, user_data: *mut c_void) {
    RELEASED.lock().unwrap().push(user_data as usize);
}

#[test]
fn destructor_callbacks_run_last_first_after_the_sub_buffers() {
    let env = Env::new();
    let parent = create_buffer(env.context, CL_MEM_READ_WRITE, 1024, null_mut());
    let region = cl_buffer_region { origin: 0, size: 512 };
    let mut err = 1;
    let sub = unsafe { clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, (&region as *const cl_buffer_region).cast(), &mut err) };
    ok(err);
    for tag in [1usize, 2, 3] {
        ok(unsafe { clSetMemObjectDestructorCallback(parent, Some(on_release), tag as *mut c_void) });
    }
    ok(unsafe { clSetMemObjectDestructorCallback(sub, Some(on_release), 10 as *mut c_void) });
    assert_eq!(unsafe { clSetMemObjectDestructorCallback(parent, None, null_mut()) }, CL_INVALID_VALUE);
    ok(unsafe { clReleaseMemObject(parent) });
    assert!(RELEASED.lock().unwrap().is_empty(), "the sub-buffer keeps its parent");
    ok(unsafe { clReleaseMemObject(sub) });
    env.finish();
    assert_eq!(*RELEASED.lock().unwrap(), [10, 3, 2, 1]);
}

#[test]
fn buffers_larger_than_a_storage_descriptor_range() {
    // 256 MiB is twice lavapipe's maxStorageBufferRange; transfers address it all.
    const MIB: usize = 1 << 20;
    let max: cl_ulong = device_info(CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    let size = (256 * MIB).min(max as usize);
    let env = Env::new();
    let mem = env.buffer(CL_MEM_READ_WRITE, size);
    let spots = [0, 128 * MIB - 3, size / 2 + 12345, size - 4096];
    for (i, &at) in spots.iter().enumerate() {
        env.write(&mem, at, &pattern(4096, 20 + i as u32));
    }
    for (i, &at) in spots.iter().enumerate() {
        assert_eq!(env.read(&mem, at, 4096), pattern(4096, 20 + i as u32), "spot {at}");
    }
    // A fill and a copy that reach past the first 128 MiB.
    let word = 0xDEADBEEFu32.to_le_bytes();
    ok(unsafe { clEnqueueFillBuffer(env.queue, mem.0, word.as_ptr().cast(), 4, size - 8192, 4096, 0, null(), null_mut()) });
    ok(unsafe { clEnqueueCopyBuffer(env.queue, mem.0, mem.0, 128 * MIB - 3, 8192, 4096, 0, null(), null_mut()) });
    assert!(env.read(&mem, size - 8192, 4096).chunks(4).all(|c| c == word));
    assert_eq!(env.read(&mem, 8192, 4096), pattern(4096, 21));
}

#[test]
fn non_blocking_map_after_a_gated_write() {
    let env = Env::new();
    let mem = env.buffer_from(&[0u8; 4096]);
    let data = pattern(4096, 30);
    let mut err = 1;
    let gate = user_event(env.context);
    let mut w = null_mut();
    ok(unsafe { clEnqueueWriteBuffer(env.queue, mem.0, CL_FALSE, 0, 4096, data.as_ptr().cast(), 1, &gate, &mut w) });
    let mut mapped = null_mut();
    let p = unsafe { clEnqueueMapBuffer(env.queue, mem.0, CL_FALSE, CL_MAP_READ, 1024, 2048, 0, null(), &mut mapped, &mut err) };
    ok(err);
    assert!(!p.is_null(), "the pointer is known before the map completes");
    ok(unsafe { clSetUserEventStatus(gate, CL_COMPLETE) });
    ok(unsafe { clWaitForEvents(1, &mapped) });
    assert_eq!(unsafe { std::slice::from_raw_parts(p.cast::<u8>(), 2048) }, &data[1024..3072]);
    unmap(&env, &mem, p.cast());
    unsafe { [gate, w, mapped].iter().for_each(|&e| ok(clReleaseEvent(e))) };
}

#[test]
fn sub_buffer_of_a_use_host_ptr_buffer() {
    let env = Env::new();
    let align = device_info::<cl_uint>(CL_DEVICE_MEM_BASE_ADDR_ALIGN) as usize / 8;
    let mut host = pattern(align * 4, 31);
    let base = host.as_mut_ptr();
    let parent = Mem(create_buffer(env.context, CL_MEM_USE_HOST_PTR, host.len(), base.cast()));
    let sub = sub_buffer(&parent, 0, align, align).expect("sub-buffer");
    assert_eq!(mem_info::<*mut c_void>(sub.0, CL_MEM_HOST_PTR), unsafe { base.add(align) }.cast());
    let update = pattern(64, 32);
    env.write(&sub, 8, &update);
    let p = map(&env, &sub, CL_MAP_READ, 8, 64);
    assert_eq!(p, unsafe { base.add(align + 8) });
    assert_eq!(unsafe { std::slice::from_raw_parts(p, 64) }, &update[..]);
    unmap(&env, &sub, p);
}

#[test]
fn rect_transfers_queued_behind_other_work() {
    // Behind a gated command the transfers cannot take the idle queue's shortcut: they go
    // through staging memory, and must still land row by row.
    let env = Env::new();
    let (row, slice) = (40usize, 40 * 10);
    let size = slice * 3;
    let mut model = pattern(size, 34);
    let mem = env.buffer_from(&model);
    let gate = user_event(env.context);
    let mut first = null_mut();
    ok(unsafe { clEnqueueMarkerWithWaitList(env.queue, 1, &gate, &mut first) });
    let region = [7usize, 3, 2];
    let (b_origin, h_origin, h_row, h_slice) = ([5usize, 4, 1], [2usize, 1, 0], 9usize, 9 * 5);
    let host = pattern(h_slice * 2, 35);
    let mut out = vec![0u8; h_slice * 2];
    unsafe {
        ok(clEnqueueWriteBufferRect(env.queue, mem.0, CL_FALSE, b_origin.as_ptr(), h_origin.as_ptr(), region.as_ptr(), row, slice, h_row, h_slice, host.as_ptr().cast(), 0, null(), null_mut()));
        ok(clEnqueueReadBufferRect(env.queue, mem.0, CL_FALSE, b_origin.as_ptr(), h_origin.as_ptr(), region.as_ptr(), row, slice, h_row, h_slice, out.as_mut_ptr().cast(), 0, null(), null_mut()));
    }
    let mut whole = vec![0u8; size];
    ok(unsafe { clEnqueueReadBuffer(env.queue, mem.0, CL_FALSE, 0, size, whole.as_mut_ptr().cast(), 0, null(), null_mut()) });
    ok(unsafe { clSetUserEventStatus(gate, CL_COMPLETE) });
    env.finish();
    let mut expected_out = vec![0u8; h_slice * 2];
    for (b, h) in rect_offsets(b_origin, region, row, slice).into_iter().zip(rect_offsets(h_origin, region, h_row, h_slice)) {
        model[b] = host[h];
        expected_out[h] = host[h];
    }
    assert_eq!(whole, model);
    assert_eq!(out, expected_out);
    unsafe { [gate, first].iter().for_each(|&e| ok(clReleaseEvent(e))) };
}

/// A non-blocking read returns the buffer as it was when the read ran in queue order, not as a
/// later command left it (reads of host-readable buffers used to copy out at completion).
#[test]
fn non_blocking_read_sees_the_buffer_before_later_commands() {
    let env = Env::new();
    let program = build(env.context, env.device, "kernel void k(global int *p, int v) { p[get_global_id(0)] = v; }");
    let k = kernel(program, "k");
    const N: usize = 1024;
    let mem = env.buffer(CL_MEM_READ_WRITE, N * 4);
    set_arg(k, 0, &mem.0);
    let launch = |v: i32| {
        set_arg(k, 1, &v);
        ok(unsafe { clEnqueueNDRangeKernel(env.queue, k, 1, null(), &N, null(), 0, null(), null_mut()) });
    };
    for flush in [false, true] {
        let mut got = vec![0i32; N];
        launch(42);
        ok(unsafe { clEnqueueReadBuffer(env.queue, mem.0, CL_FALSE, 0, N * 4, got.as_mut_ptr().cast(), 0, null(), null_mut()) });
        if flush {
            ok(unsafe { clFlush(env.queue) });
        }
        launch(0);
        env.finish();
        assert!(got.iter().all(|&v| v == 42), "flush {flush}: the read saw a later kernel's writes");
    }
    unsafe {
        clReleaseKernel(k);
        clReleaseProgram(program);
    }
}

#[test]
fn zero_sized_transfers() {
    // OpenCL 2.0+ lists no error for a zero size in clEnqueueRead/Write/Copy/FillBuffer: the
    // command moves nothing and completes. A zero region element of a *Rect command and a zero
    // map size are CL_INVALID_VALUE.
    let env = Env::new();
    let model = pattern(256, 7);
    let mem = env.buffer_from(&model);
    let other = env.buffer_from(&model);
    let mut host = [0u8; 16];
    let (h, q) = (host.as_mut_ptr().cast::<c_void>(), env.queue);
    let pat = [9u8; 4];
    let mut events = Vec::new();
    for blocking in [CL_TRUE, CL_FALSE] {
        for offset in [0, 100, 256] {
            let mut e = [null_mut(); 5];
            unsafe {
                ok(clEnqueueReadBuffer(q, mem.0, blocking, offset, 0, h, 0, null(), &mut e[0]));
                ok(clEnqueueWriteBuffer(q, mem.0, blocking, offset, 0, h, 0, null(), &mut e[1]));
                ok(clEnqueueCopyBuffer(q, mem.0, other.0, offset, 0, 0, 0, null(), &mut e[2]));
                ok(clEnqueueCopyBuffer(q, mem.0, mem.0, offset, offset, 0, 0, null(), &mut e[3]));
                ok(clEnqueueFillBuffer(q, mem.0, pat.as_ptr().cast(), 4, offset, 0, 0, null(), &mut e[4]));
            }
            events.extend(e);
        }
    }
    env.finish();
    assert!(events.iter().all(|&e| event_status(e) == CL_COMPLETE));
    events.into_iter().for_each(|e| ok(unsafe { clReleaseEvent(e) }));
    assert_eq!(host, [0u8; 16]);
    assert_eq!(env.read(&mem, 0, 256), model);
    assert_eq!(env.read(&other, 0, 256), model);
    let zero = [0usize; 3];
    unsafe {
        assert_eq!(clEnqueueReadBuffer(q, mem.0, CL_TRUE, 257, 0, h, 0, null(), null_mut()), CL_INVALID_VALUE, "past the end");
        assert_eq!(clEnqueueReadBuffer(q, mem.0, CL_TRUE, 0, 0, null_mut(), 0, null(), null_mut()), CL_INVALID_VALUE, "NULL ptr");
        assert_eq!(clEnqueueCopyBuffer(q, mem.0, other.0, 0, 257, 0, 0, null(), null_mut()), CL_INVALID_VALUE);
        assert_eq!(clEnqueueFillBuffer(q, mem.0, pat.as_ptr().cast(), 4, 260, 0, 0, null(), null_mut()), CL_INVALID_VALUE);
        for region in [[0usize, 1, 1], [1, 0, 1], [1, 1, 0]] {
            let r = region.as_ptr();
            assert_eq!(clEnqueueReadBufferRect(q, mem.0, CL_TRUE, zero.as_ptr(), zero.as_ptr(), r, 0, 0, 0, 0, h, 0, null(), null_mut()), CL_INVALID_VALUE);
            assert_eq!(clEnqueueWriteBufferRect(q, mem.0, CL_TRUE, zero.as_ptr(), zero.as_ptr(), r, 0, 0, 0, 0, h, 0, null(), null_mut()), CL_INVALID_VALUE);
            assert_eq!(clEnqueueCopyBufferRect(q, mem.0, other.0, zero.as_ptr(), zero.as_ptr(), r, 0, 0, 0, 0, 0, null(), null_mut()), CL_INVALID_VALUE);
        }
        let mut err = 1;
        assert!(clEnqueueMapBuffer(q, mem.0, CL_TRUE, CL_MAP_READ, 0, 0, 0, null(), null_mut(), &mut err).is_null());
        assert_eq!(err, CL_INVALID_VALUE);
    }
}
