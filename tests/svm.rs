//! Coarse-grain buffer SVM: allocation, the SVM commands, SVM pointers as kernel arguments,
//! each result against the CPU.
mod common;

use common::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};

type SvmFree = unsafe extern "system" fn(cl_command_queue, cl_uint, *mut *mut c_void, *mut c_void);

// OpenCL 2.0 entry points, which cl-sys declares only behind a feature.
#[link(name = "OpenCL")]
extern "system" {
    fn clSVMAlloc(context: cl_context, flags: cl_bitfield, size: usize, alignment: cl_uint) -> *mut c_void;
    fn clSVMFree(context: cl_context, ptr: *mut c_void);
    fn clEnqueueSVMFree(q: cl_command_queue, n: cl_uint, ptrs: *mut *mut c_void, f: Option<SvmFree>, data: *mut c_void, w: cl_uint, l: *const cl_event, e: *mut cl_event) -> cl_int;
    fn clEnqueueSVMMemcpy(q: cl_command_queue, blocking: cl_bool, dst: *mut c_void, src: *const c_void, size: usize, w: cl_uint, l: *const cl_event, e: *mut cl_event) -> cl_int;
    fn clEnqueueSVMMemFill(q: cl_command_queue, ptr: *mut c_void, pattern: *const c_void, pattern_size: usize, size: usize, w: cl_uint, l: *const cl_event, e: *mut cl_event) -> cl_int;
    fn clEnqueueSVMMap(q: cl_command_queue, blocking: cl_bool, flags: cl_map_flags, ptr: *mut c_void, size: usize, w: cl_uint, l: *const cl_event, e: *mut cl_event) -> cl_int;
    fn clEnqueueSVMUnmap(q: cl_command_queue, ptr: *mut c_void, w: cl_uint, l: *const cl_event, e: *mut cl_event) -> cl_int;
    fn clSetKernelArgSVMPointer(k: cl_kernel, index: cl_uint, value: *const c_void) -> cl_int;
    fn clSetKernelExecInfo(k: cl_kernel, name: cl_uint, size: usize, value: *const c_void) -> cl_int;
}

const CL_KERNEL_EXEC_INFO_SVM_PTRS: cl_uint = 0x11B6;

const CL_MEM_SVM_FINE_GRAIN_BUFFER: cl_bitfield = 1 << 10;

/// `n` ints of SVM, mapped for writing, filled with `f(i)`, unmapped.
fn svm_ints(env: &Env, n: usize, f: impl Fn(usize) -> i32) -> *mut i32 {
    let p = unsafe { clSVMAlloc(env.context, CL_MEM_READ_WRITE, n * 4, 0) }.cast::<i32>();
    assert!(!p.is_null());
    ok(unsafe { clEnqueueSVMMap(env.queue, CL_TRUE, CL_MAP_WRITE, p.cast(), n * 4, 0, null(), null_mut()) });
    (0..n).for_each(|i| unsafe { p.add(i).write(f(i)) });
    ok(unsafe { clEnqueueSVMUnmap(env.queue, p.cast(), 0, null(), null_mut()) });
    p
}

/// The `n` ints at `p`, read through a blocking map.
fn read_ints(env: &Env, p: *mut i32, n: usize) -> Vec<i32> {
    ok(unsafe { clEnqueueSVMMap(env.queue, CL_TRUE, CL_MAP_READ, p.cast(), n * 4, 0, null(), null_mut()) });
    let v = (0..n).map(|i| unsafe { p.add(i).read() }).collect();
    ok(unsafe { clEnqueueSVMUnmap(env.queue, p.cast(), 0, null(), null_mut()) });
    v
}

#[test]
fn the_device_reports_coarse_grain_buffers() {
    let caps: cl_bitfield = device_info(CL_DEVICE_SVM_CAPABILITIES);
    assert_eq!(caps, CL_DEVICE_SVM_COARSE_GRAIN_BUFFER);
}

#[test]
fn allocations_are_aligned_apart_and_refused_where_the_spec_says() {
    let env = Env::new();
    let mut live = Vec::new();
    for (size, align) in [(1, 0), (100, 4), (4096, 4096), (3 << 20, 256), (7, 128)] {
        let p = unsafe { clSVMAlloc(env.context, CL_MEM_READ_WRITE, size, align) };
        assert!(!p.is_null(), "{size} bytes aligned to {align}");
        // Alignment 0 is the largest type's, `long16`.
        let want = if align == 0 { 128 } else { align as usize };
        assert!((p as usize).is_multiple_of(want), "{p:?} for alignment {align}");
        live.push((p as usize, size));
    }
    live.sort();
    assert!(live.windows(2).all(|w| w[0].0 + w[0].1 <= w[1].0), "allocations overlap: {live:?}");
    for (flags, size, align) in [(CL_MEM_SVM_FINE_GRAIN_BUFFER, 64, 0), (CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, 64, 0), (CL_MEM_READ_WRITE, 0, 0), (CL_MEM_READ_WRITE, 64, 3)] {
        assert!(unsafe { clSVMAlloc(env.context, flags, size, align) }.is_null(), "flags {flags:#x}, size {size}, alignment {align}");
    }
    live.into_iter().for_each(|(p, _)| unsafe { clSVMFree(env.context, p as *mut c_void) });
}

#[test]
fn kernels_take_svm_pointers_as_arguments() {
    let env = Env::new();
    let n = 1000;
    let input = svm_ints(&env, n + 8, |i| i as i32 * 7 - 300);
    let output = svm_ints(&env, n, |_| 0);
    let program = build(env.context, env.device, "kernel void k(global const int *in, global int *out) { int i = get_global_id(0); out[i] = in[i] * 2 + i; }");
    let k = kernel(program, "k");
    // An argument may point anywhere inside an allocation.
    ok(unsafe { clSetKernelArgSVMPointer(k, 0, input.add(8).cast()) });
    ok(unsafe { clSetKernelArgSVMPointer(k, 1, output.cast()) });
    ok(unsafe { clEnqueueNDRangeKernel(env.queue, k, 1, null(), &n, null(), 0, null(), null_mut()) });
    let want: Vec<i32> = (0..n).map(|i| ((i + 8) as i32 * 7 - 300) * 2 + i as i32).collect();
    assert_eq!(read_ints(&env, output, n), want);
    let outside = [0i32; 4];
    assert_eq!(unsafe { clSetKernelArgSVMPointer(k, 0, outside.as_ptr().cast()) }, CL_INVALID_ARG_VALUE);
    unsafe {
        clReleaseKernel(k);
        clReleaseProgram(program);
        clSVMFree(env.context, input.cast());
        clSVMFree(env.context, output.cast());
    }
}

#[test]
fn svm_copies_and_fills_in_queue_order() {
    let env = Env::new();
    let n = 4096;
    let a = svm_ints(&env, n, |i| i as i32);
    let b = svm_ints(&env, n, |_| -1);
    let host: Vec<i32> = (0..n as i32).map(|i| i * 3).collect();
    let mut back = vec![0i32; n];
    let pattern = 0x1234_5678i32;
    unsafe {
        // Host to SVM, SVM to SVM (the second half of `a` over `b`'s first), a fill, SVM to host.
        ok(clEnqueueSVMMemcpy(env.queue, CL_FALSE, a.cast(), host.as_ptr().cast(), n * 2, 0, null(), null_mut()));
        ok(clEnqueueSVMMemcpy(env.queue, CL_FALSE, b.cast(), a.add(n / 2).cast(), n * 2, 0, null(), null_mut()));
        ok(clEnqueueSVMMemFill(env.queue, b.add(n / 2).cast(), (&pattern as *const i32).cast(), 4, n * 2, 0, null(), null_mut()));
        ok(clEnqueueSVMMemcpy(env.queue, CL_TRUE, back.as_mut_ptr().cast(), b.cast(), n * 4, 0, null(), null_mut()));
    }
    let want: Vec<i32> = (0..n).map(|i| if i < n / 2 { (i + n / 2) as i32 } else { pattern }).collect();
    assert_eq!(back, want);
    assert_eq!(read_ints(&env, a, n / 2), host[..n / 2]);
    let mut copy = vec![0i32; 16];
    ok(unsafe { clEnqueueSVMMemcpy(env.queue, CL_TRUE, copy.as_mut_ptr().cast(), host.as_ptr().cast(), 64, 0, null(), null_mut()) });
    assert_eq!(copy, host[..16]);
    assert_eq!(unsafe { clEnqueueSVMMemcpy(env.queue, CL_TRUE, a.add(1).cast(), a.cast(), 16, 0, null(), null_mut()) }, CL_MEM_COPY_OVERLAP);
    unsafe {
        clSVMFree(env.context, a.cast());
        clSVMFree(env.context, b.cast());
    }
}

unsafe extern "system" fn count_freed(_q: cl_command_queue, n: cl_uint, ptrs: *mut *mut c_void, data: *mut c_void) {
    let context = data as cl_context;
    for i in 0..n as usize {
        clSVMFree(context, *ptrs.add(i));
    }
}

#[test]
fn svm_free_commands_free_after_what_they_wait_for() {
    let env = Env::new();
    let a = svm_ints(&env, 64, |i| i as i32);
    let b = svm_ints(&env, 64, |i| i as i32);
    let mut ptrs = [a.cast::<c_void>(), b.cast::<c_void>()];
    ok(unsafe { clEnqueueSVMFree(env.queue, 1, ptrs.as_mut_ptr(), None, null_mut(), 0, null(), null_mut()) });
    ok(unsafe { clEnqueueSVMFree(env.queue, 1, ptrs.as_mut_ptr().add(1), Some(count_freed), env.context.cast(), 0, null(), null_mut()) });
    env.finish();
    // Both are free: the same sizes come back at the same addresses, lowest first.
    let again = unsafe { clSVMAlloc(env.context, CL_MEM_READ_WRITE, 256, 0) };
    assert_eq!(again as usize, (a as usize).min(b as usize));
    unsafe { clSVMFree(env.context, again) };
}

#[test]
fn buffers_made_on_svm_pointers_are_that_memory() {
    let env = Env::new();
    let n = 64;
    let p = svm_ints(&env, n + 4, |i| i as i32);
    let mut err = 0;
    let m = unsafe { clCreateBuffer(env.context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, n * 4, p.add(4).cast(), &mut err) };
    ok(err);
    let uses: cl_bool = info_value(|s, v, r| unsafe { clGetMemObjectInfo(m, CL_MEM_USES_SVM_POINTER, s, v, r) });
    let host: *mut c_void = info_value(|s, v, r| unsafe { clGetMemObjectInfo(m, CL_MEM_HOST_PTR, s, v, r) });
    assert_eq!((uses, host), (CL_TRUE, p.wrapping_add(4).cast()));
    // A map shows the SVM bytes themselves, at their SVM address.
    let mapped = unsafe { clEnqueueMapBuffer(env.queue, m, CL_TRUE, CL_MAP_READ, 8, 16, 0, null(), null_mut(), &mut err) };
    ok(err);
    assert_eq!(mapped, p.wrapping_add(6).cast());
    ok(unsafe { clEnqueueUnmapMemObject(env.queue, m, mapped, 0, null(), null_mut()) });
    // A kernel writes through the buffer; the SVM pointer sees it, and the reverse.
    let program = build(env.context, env.device, "kernel void k(global int *b) { b[get_global_id(0)] += 1000; }");
    let k = kernel(program, "k");
    ok(unsafe { clSetKernelArg(k, 0, std::mem::size_of::<cl_mem>(), (&m as *const cl_mem).cast()) });
    ok(unsafe { clEnqueueNDRangeKernel(env.queue, k, 1, null(), &n, null(), 0, null(), null_mut()) });
    let want: Vec<i32> = (0..n + 4).map(|i| if i < 4 { i as i32 } else { i as i32 + 1000 }).collect();
    assert_eq!(read_ints(&env, p, n + 4), want);
    let mut through_buffer = vec![0i32; n];
    ok(unsafe { clEnqueueReadBuffer(env.queue, m, CL_TRUE, 0, n * 4, through_buffer.as_mut_ptr().cast(), 0, null(), null_mut()) });
    assert_eq!(through_buffer, want[4..]);
    unsafe {
        clReleaseKernel(k);
        clReleaseProgram(program);
        clReleaseMemObject(m);
        clSVMFree(env.context, p.cast());
    }
}

/// A list node as the kernels below declare it: `struct Node { int value; int list; global struct Node *next; }`.
#[repr(C)]
#[derive(Clone, Copy)]
struct Node {
    value: i32,
    list: i32,
    next: *mut Node,
}

const NODES: &str = "typedef struct Node { int value; int list; global struct Node *next; } Node;\n";

/// `n` nodes of SVM, mapped for writing, filled by `f` with the nodes' addresses, unmapped.
fn svm_nodes(env: &Env, n: usize, f: impl Fn(*mut Node, usize) -> Node) -> *mut Node {
    let size = n * std::mem::size_of::<Node>();
    let p = unsafe { clSVMAlloc(env.context, CL_MEM_READ_WRITE, size, 0) }.cast::<Node>();
    assert!(!p.is_null());
    ok(unsafe { clEnqueueSVMMap(env.queue, CL_TRUE, CL_MAP_WRITE, p.cast(), size, 0, null(), null_mut()) });
    (0..n).for_each(|i| unsafe { p.add(i).write(f(p, i)) });
    ok(unsafe { clEnqueueSVMUnmap(env.queue, p.cast(), 0, null(), null_mut()) });
    p
}

#[test]
fn kernels_follow_lists_the_host_links_through_svm() {
    let env = Env::new();
    // Eight lists of 50 nodes, their nodes spread over two allocations in a shuffled order:
    // node k of list l is element (l * 50 + k) * 37 % 400 of the pair, odd ones in the second.
    let (lists, len) = (8usize, 50usize);
    let place = |l: usize, k: usize| (l * len + k) * 37 % (lists * len);
    let second = unsafe { clSVMAlloc(env.context, CL_MEM_READ_WRITE, lists * len / 2 * std::mem::size_of::<Node>(), 0) }.cast::<Node>();
    let at = |slot: usize, first: *mut Node| if slot % 2 == 0 { first.wrapping_add(slot / 2) } else { second.wrapping_add(slot / 2) };
    let mut nodes = vec![Node { value: 0, list: 0, next: null_mut() }; lists * len];
    let first = unsafe { clSVMAlloc(env.context, CL_MEM_READ_WRITE, lists * len / 2 * std::mem::size_of::<Node>(), 0) }.cast::<Node>();
    for l in 0..lists {
        for k in 0..len {
            let next = if k + 1 < len { at(place(l, k + 1), first) } else { null_mut() };
            nodes[place(l, k)] = Node { value: (l * 1000 + k * k) as i32, list: l as i32, next };
        }
    }
    for (half, base) in [(0, first), (1, second)] {
        let size = lists * len / 2 * std::mem::size_of::<Node>();
        ok(unsafe { clEnqueueSVMMap(env.queue, CL_TRUE, CL_MAP_WRITE, base.cast(), size, 0, null(), null_mut()) });
        (0..lists * len / 2).for_each(|i| unsafe { base.add(i).write(nodes[2 * i + half]) });
        ok(unsafe { clEnqueueSVMUnmap(env.queue, base.cast(), 0, null(), null_mut()) });
    }
    let heads: Vec<*mut Node> = (0..lists).map(|l| at(place(l, 0), first)).collect();
    let heads_svm = svm_nodes(&env, lists, |_, l| Node { value: 0, list: 0, next: heads[l] });
    let sums = svm_ints(&env, lists * 2, |_| 0);
    let source = format!(
        "{NODES}kernel void walk(global Node *heads, global int *out) {{
            int l = get_global_id(0), sum = 0, count = 0;
            for (global Node *p = heads[l].next; p; p = p->next) {{ sum += p->value; count += p->list == l; }}
            out[2 * l] = sum; out[2 * l + 1] = count;
        }}"
    );
    let program = build(env.context, env.device, &source);
    let k = kernel(program, "walk");
    ok(unsafe { clSetKernelArgSVMPointer(k, 0, heads_svm.cast()) });
    ok(unsafe { clSetKernelArgSVMPointer(k, 1, sums.cast()) });
    // The nodes are reached only through pointers in memory: the kernel is told of them.
    let reached = [first.cast::<c_void>(), second.cast()];
    ok(unsafe { clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, std::mem::size_of_val(&reached), reached.as_ptr().cast()) });
    ok(unsafe { clEnqueueNDRangeKernel(env.queue, k, 1, null(), &lists, null(), 0, null(), null_mut()) });
    let want: Vec<i32> = (0..lists).flat_map(|l| [(0..len).map(|k| (l * 1000 + k * k) as i32).sum(), len as i32]).collect();
    assert_eq!(read_ints(&env, sums, lists * 2), want);
    unsafe {
        clReleaseKernel(k);
        clReleaseProgram(program);
        for p in [first.cast(), second.cast(), heads_svm.cast(), sums.cast::<c_void>()] {
            clSVMFree(env.context, p);
        }
    }
}

#[test]
fn the_host_follows_lists_kernels_link_in_svm() {
    let env = Env::new();
    let (lists, len) = (16usize, 12usize);
    let pool = svm_nodes(&env, lists * len, |_, _| Node { value: -1, list: -1, next: null_mut() });
    let next_free = svm_ints(&env, 1, |_| lists as i32);
    // As the CTS's linked-list test: each work-item takes its nodes from a shared pool.
    let source = format!(
        "{NODES}kernel void link(global Node *pool, volatile global int *next_free, int len) {{
            int l = get_global_id(0);
            global Node *p = &pool[l];
            p->value = l * 100; p->list = l;
            for (int k = 1; k < len; k++) {{
                global Node *n = &pool[atomic_inc(next_free)];
                n->value = l * 100 + k; n->list = l; n->next = 0;
                p->next = n;
                p = n;
            }}
        }}"
    );
    let program = build(env.context, env.device, &source);
    let k = kernel(program, "link");
    ok(unsafe { clSetKernelArgSVMPointer(k, 0, pool.cast()) });
    ok(unsafe { clSetKernelArgSVMPointer(k, 1, next_free.cast()) });
    ok(unsafe { clSetKernelArg(k, 2, 4, (&(len as i32) as *const i32).cast()) });
    ok(unsafe { clEnqueueNDRangeKernel(env.queue, k, 1, null(), &lists, null(), 0, null(), null_mut()) });
    let size = lists * len * std::mem::size_of::<Node>();
    ok(unsafe { clEnqueueSVMMap(env.queue, CL_TRUE, CL_MAP_READ, pool.cast(), size, 0, null(), null_mut()) });
    let range = pool as usize..pool as usize + size;
    for l in 0..lists {
        let (mut p, mut seen) = (pool.wrapping_add(l), Vec::new());
        while !p.is_null() && seen.len() <= len {
            assert!(range.contains(&(p as usize)), "list {l}: node {} at {p:?}, outside the pool", seen.len());
            let node = unsafe { p.read() };
            seen.push((node.value, node.list));
            p = node.next;
        }
        let want: Vec<(i32, i32)> = (0..len).map(|k| ((l * 100 + k) as i32, l as i32)).collect();
        assert_eq!(seen, want, "list {l}");
    }
    ok(unsafe { clEnqueueSVMUnmap(env.queue, pool.cast(), 0, null(), null_mut()) });
    unsafe {
        clReleaseKernel(k);
        clReleaseProgram(program);
        clSVMFree(env.context, pool.cast());
        clSVMFree(env.context, next_free.cast());
    }
}

#[test]
fn pointers_into_svm_are_their_host_addresses_in_kernels() {
    let env = Env::new();
    let n = 64usize;
    let data = svm_ints(&env, n, |i| i as i32);
    let out = unsafe { clSVMAlloc(env.context, CL_MEM_READ_WRITE, n * 8, 0) }.cast::<u64>();
    // Through a pointer chosen at run time, and held in private memory, too.
    let program = build(
        env.context,
        env.device,
        "kernel void k(global int *data, global ulong *out, global int *other) {
            int i = get_global_id(0);
            global int *held[2] = { data + i, other };
            global int *p = i % 2 ? held[0] : other + i;
            out[i] = (ulong)p;
            *held[0] += (int)((uintptr_t)(data + 3) & 15);
        }",
    );
    let k = kernel(program, "k");
    let mut err = 0;
    let other = unsafe { clCreateBuffer(env.context, CL_MEM_READ_WRITE, n * 4, null_mut(), &mut err) };
    ok(err);
    ok(unsafe { clSetKernelArgSVMPointer(k, 0, data.cast()) });
    ok(unsafe { clSetKernelArgSVMPointer(k, 1, out.cast()) });
    ok(unsafe { clSetKernelArg(k, 2, std::mem::size_of::<cl_mem>(), (&other as *const cl_mem).cast()) });
    ok(unsafe { clEnqueueNDRangeKernel(env.queue, k, 1, null(), &n, null(), 0, null(), null_mut()) });
    ok(unsafe { clEnqueueSVMMap(env.queue, CL_TRUE, CL_MAP_READ, out.cast(), n * 8, 0, null(), null_mut()) });
    let addresses: Vec<u64> = (0..n).map(|i| unsafe { out.add(i).read() }).collect();
    ok(unsafe { clEnqueueSVMUnmap(env.queue, out.cast(), 0, null(), null_mut()) });
    for (i, &a) in addresses.iter().enumerate().filter(|(i, _)| i % 2 == 1) {
        assert_eq!(a, data.wrapping_add(i) as u64, "work-item {i}");
    }
    // A buffer that is no SVM has no host address: its pointers are anything but one of these.
    assert!(addresses.iter().step_by(2).all(|&a| !(data as u64..data as u64 + n as u64 * 4).contains(&a)));
    let misalign = (data.wrapping_add(3) as usize & 15) as i32;
    assert_eq!(read_ints(&env, data, n), (0..n as i32).map(|i| i + misalign).collect::<Vec<_>>());
    unsafe {
        clReleaseKernel(k);
        clReleaseProgram(program);
        clReleaseMemObject(other);
        clSVMFree(env.context, data.cast());
        clSVMFree(env.context, out.cast());
    }
}

#[test]
fn kernels_reach_past_sub_buffers_of_svm_into_their_parent() {
    let env = Env::new();
    let n = 256usize;
    let p = svm_ints(&env, n, |i| i as i32);
    let mut err = 0;
    let whole = unsafe { clCreateBuffer(env.context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, n * 4, p.cast(), &mut err) };
    ok(err);
    let region = [0usize, n * 2];
    let half = unsafe { clCreateSubBuffer(whole, 0, CL_BUFFER_CREATE_TYPE_REGION, region.as_ptr().cast(), &mut err) };
    ok(err);
    // One address space: the first half's pointer reaches the second half, as the CTS's
    // shared sub-buffer test allocates list nodes.
    let program = build(env.context, env.device, "kernel void k(global int *h, int n) { int i = get_global_id(0); h[n - 1 - i] += 10000; }");
    let k = kernel(program, "k");
    ok(unsafe { clSetKernelArg(k, 0, std::mem::size_of::<cl_mem>(), (&half as *const cl_mem).cast()) });
    ok(unsafe { clSetKernelArg(k, 1, 4, (&(n as i32) as *const i32).cast()) });
    let items = n / 4;
    ok(unsafe { clEnqueueNDRangeKernel(env.queue, k, 1, null(), &items, null(), 0, null(), null_mut()) });
    let want: Vec<i32> = (0..n).map(|i| i as i32 + if i >= n - items { 10000 } else { 0 }).collect();
    assert_eq!(read_ints(&env, p, n), want);
    unsafe {
        clReleaseKernel(k);
        clReleaseProgram(program);
        clReleaseMemObject(half);
        clReleaseMemObject(whole);
        clSVMFree(env.context, p.cast());
    }
}

#[test]
fn svm_arguments_may_start_at_any_byte() {
    let env = Env::new();
    let n = 64usize;
    let bytes = unsafe { clSVMAlloc(env.context, CL_MEM_READ_WRITE, n + 64, 0) }.cast::<u8>();
    let floats = svm_ints(&env, n + 16, |i| (i as f32 * 1.5).to_bits() as i32).cast::<f32>();
    let out = svm_ints(&env, n, |_| 0);
    let program = build(
        env.context,
        env.device,
        "kernel void k(global uchar *c, global const float *f, global int *out) {
            int i = get_global_id(0);
            out[i] = c[i] + (int)(f[i] * 2.0f) * 1000;
            c[i] += 1;
        }",
    );
    let k = kernel(program, "k");
    for (c_off, f_off) in [(0usize, 0usize), (1, 1), (3, 2), (5, 3), (15, 4), (17, 7)] {
        ok(unsafe { clEnqueueSVMMap(env.queue, CL_TRUE, CL_MAP_WRITE, bytes.cast(), n + 64, 0, null(), null_mut()) });
        (0..n + 64).for_each(|i| unsafe { bytes.add(i).write(i as u8) });
        ok(unsafe { clEnqueueSVMUnmap(env.queue, bytes.cast(), 0, null(), null_mut()) });
        ok(unsafe { clSetKernelArgSVMPointer(k, 0, bytes.add(c_off).cast()) });
        ok(unsafe { clSetKernelArgSVMPointer(k, 1, floats.add(f_off).cast()) });
        ok(unsafe { clSetKernelArgSVMPointer(k, 2, out.cast()) });
        ok(unsafe { clEnqueueNDRangeKernel(env.queue, k, 1, null(), &n, null(), 0, null(), null_mut()) });
        let want: Vec<i32> = (0..n).map(|i| (i + c_off) as i32 + ((i + f_off) as i32 * 3) * 1000).collect();
        assert_eq!(read_ints(&env, out, n), want, "bytes from {c_off}, floats from {f_off}");
        ok(unsafe { clEnqueueSVMMap(env.queue, CL_TRUE, CL_MAP_READ, bytes.cast(), n + 64, 0, null(), null_mut()) });
        let got: Vec<u8> = (0..n + 64).map(|i| unsafe { bytes.add(i).read() }).collect();
        ok(unsafe { clEnqueueSVMUnmap(env.queue, bytes.cast(), 0, null(), null_mut()) });
        let want: Vec<u8> = (0..n + 64).map(|i| i as u8 + u8::from((c_off..c_off + n).contains(&i))).collect();
        assert_eq!(got, want, "bytes written from {c_off}");
    }
    unsafe {
        clReleaseKernel(k);
        clReleaseProgram(program);
        for p in [bytes.cast::<c_void>(), floats.cast(), out.cast()] {
            clSVMFree(env.context, p);
        }
    }
}

#[test]
fn kernels_follow_arrays_of_svm_pointers_the_host_fills() {
    let env = Env::new();
    let (rows, len) = (6usize, 32usize);
    // Rows in two allocations, odd ones in the second, listed in an SVM array of pointers.
    let first = svm_ints(&env, rows / 2 * len, |i| i as i32);
    let second = svm_ints(&env, rows / 2 * len, |i| -(i as i32));
    let row = |r: usize| if r % 2 == 0 { first.wrapping_add(r / 2 * len) } else { second.wrapping_add(r / 2 * len) };
    let table = unsafe { clSVMAlloc(env.context, CL_MEM_READ_WRITE, rows * 8, 0) }.cast::<*mut i32>();
    ok(unsafe { clEnqueueSVMMap(env.queue, CL_TRUE, CL_MAP_WRITE, table.cast(), rows * 8, 0, null(), null_mut()) });
    (0..rows).for_each(|r| unsafe { table.add(r).write(row(rows - 1 - r)) });
    ok(unsafe { clEnqueueSVMUnmap(env.queue, table.cast(), 0, null(), null_mut()) });
    let out = svm_ints(&env, rows * len, |_| 0);
    // A kernel argument may point to pointers from OpenCL C 2.0 on.
    let program = program(
        env.context,
        "kernel void k(global int *global *rows, global int *out, int len) {
            int i = get_global_id(0), r = i / len;
            out[i] = rows[r][i % len] * 2;
            rows[r][i % len] += 1;
        }",
    );
    let options = std::ffi::CString::new("-cl-std=CL3.0").expect("options");
    let code = unsafe { clBuildProgram(program, 1, &env.device, options.as_ptr(), None, null_mut()) };
    assert_eq!(code, CL_SUCCESS, "{}", build_log(program, env.device));
    let k = kernel(program, "k");
    ok(unsafe { clSetKernelArgSVMPointer(k, 0, table.cast()) });
    ok(unsafe { clSetKernelArgSVMPointer(k, 1, out.cast()) });
    ok(unsafe { clSetKernelArg(k, 2, 4, (&(len as i32) as *const i32).cast()) });
    let n = rows * len;
    ok(unsafe { clEnqueueNDRangeKernel(env.queue, k, 1, null(), &n, null(), 0, null(), null_mut()) });
    let value = |r: usize, j: usize| if r % 2 == 0 { (r / 2 * len + j) as i32 } else { -((r / 2 * len + j) as i32) };
    let want: Vec<i32> = (0..n).map(|i| value(rows - 1 - i / len, i % len) * 2).collect();
    assert_eq!(read_ints(&env, out, n), want);
    let first_after: Vec<i32> = (0..rows / 2 * len).map(|i| i as i32 + 1).collect();
    assert_eq!(read_ints(&env, first, rows / 2 * len), first_after);
    unsafe {
        clReleaseKernel(k);
        clReleaseProgram(program);
        for p in [first.cast::<c_void>(), second.cast(), table.cast(), out.cast()] {
            clSVMFree(env.context, p);
        }
    }
}
