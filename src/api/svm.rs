//! Shared virtual memory, coarse-grain buffers (`core::svm`): allocation, the SVM commands and
//! SVM pointers as kernel arguments. An SVM pointer reaches the commands that buffers use
//! through a buffer object over its bytes (`Mem::over_svm`).

use super::entry::entry;
use super::memory::{linear, read, submit, write};
use super::queue::queue;
use super::util::{finish_enqueue, wait_list};
use crate::cl::object::get;
use crate::cl::types::*;
use crate::cl::CLResult;
use crate::core::context::{Callback, Context};
use crate::core::kernel::{ArgValue, Kernel};
use crate::core::memory::Mem;
use crate::core::queue::Queue;
use std::sync::Arc;

/// The alignment of an allocation made with alignment 0: the largest OpenCL C type, `long16`.
const DEFAULT_ALIGN: usize = 128;
/// The largest alignment `clSVMAlloc` gives (a page).
const MAX_ALIGN: usize = 4096;

type SvmFreeCallback = Option<unsafe extern "system" fn(cl_command_queue, cl_uint, *mut *mut c_void, *mut c_void)>;

/// True where some device of `context` supports SVM.
fn supported(context: &Context) -> bool {
    context.devices.iter().any(|d| d.svm_capabilities() != 0)
}

/// A buffer object over the `size` SVM bytes at `ptr`, which must lie in one allocation of
/// `context`; None where `ptr` is not SVM memory of the context.
fn svm_mem(context: &Arc<Context>, ptr: *const c_void, size: usize) -> CLResult<Option<Arc<Mem>>> {
    buffer_on_svm(context, CL_MEM_READ_WRITE, ptr, size, Vec::new())
}

/// The same with the buffer's flags and properties: also a buffer the application makes with
/// `CL_MEM_USE_HOST_PTR` on SVM memory, which is that memory (`CL_MEM_USES_SVM_POINTER`).
pub(super) fn buffer_on_svm(context: &Arc<Context>, flags: cl_mem_flags, ptr: *const c_void, size: usize, properties: Vec<cl_mem_properties>) -> CLResult<Option<Arc<Mem>>> {
    let Some(place) = context.svm.lock().unwrap_or_else(|e| e.into_inner()).find(ptr as usize) else { return Ok(None) };
    if size as u64 > place.remaining {
        return Err(CL_INVALID_VALUE);
    }
    // Size 0: the allocation's bytes from `ptr` on.
    let size = if size == 0 { place.remaining as usize } else { size };
    Ok(Some(Mem::over_svm(context.clone(), flags, &place, size, properties)))
}

/// `clSVMAlloc` has no error code: NULL means failure.
pub unsafe extern "system" fn clSVMAlloc(context: cl_context, flags: cl_svm_mem_flags, size: usize, alignment: cl_uint) -> *mut c_void {
    let Ok(c) = get::<Context>(context) else { return std::ptr::null_mut() };
    let access = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
    // Exactly one access flag at most; fine-grain buffers and atomics are not supported.
    let align = if alignment == 0 { DEFAULT_ALIGN } else { alignment as usize };
    if !supported(&c) || flags & !access != 0 || (flags & access).count_ones() > 1 || size == 0 || size as u64 > c.max_alloc_size() || !align.is_power_of_two() || align > MAX_ALIGN {
        return std::ptr::null_mut();
    }
    let Some(device) = c.devices.first() else { return std::ptr::null_mut() };
    let limit = u64::from(device.gpu.props.limits().max_storage_buffer_range);
    let address = c.svm.lock().unwrap_or_else(|e| e.into_inner()).alloc(&device.gpu, size as u64, align as u64, limit);
    address.map_or(std::ptr::null_mut(), |a| a as *mut c_void)
}

/// Frees at once: the application must have waited for the commands that use the memory.
pub unsafe extern "system" fn clSVMFree(context: cl_context, ptr: *mut c_void) {
    if let Ok(c) = get::<Context>(context) {
        c.svm.lock().unwrap_or_else(|e| e.into_inner()).free(ptr as usize);
    }
}

entry! {
    fn clEnqueueSVMFree(q: cl_command_queue, count: cl_uint, ptrs: *mut *mut c_void, callback: SvmFreeCallback, user_data: *mut c_void, n: cl_uint, list: *const cl_event, event: *mut cl_event) -> CLResult<()> {
        // Handed to the callback: an address, so the host command may move it across threads.
        let queue_handle = q as usize;
        let q = svm_queue(q)?;
        if (count == 0) != ptrs.is_null() || (count > 0 && (0..count as usize).any(|i| (*ptrs.add(i)).is_null())) {
            return Err(CL_INVALID_VALUE);
        }
        let list_of = |i| *ptrs.add(i) as usize;
        let mut addresses: Vec<usize> = (0..count as usize).map(list_of).collect();
        let context = q.context.clone();
        let callback = Callback { func: callback, user_data };
        let deps = wait_list(&q, n, list)?;
        let work = Box::new(move || {
            // The whole callback moves here (it is `Send`), not its fields apart.
            let callback = callback;
            if let Some(f) = callback.func {
                let mut pointers: Vec<*mut c_void> = addresses.iter().map(|&a| a as *mut c_void).collect();
                // SAFETY: the application's callback frees the pointers itself, as the spec says.
                unsafe { f(queue_handle as cl_command_queue, count, pointers.as_mut_ptr(), callback.user_data) };
            } else {
                let mut svm = context.svm.lock().unwrap_or_else(|e| e.into_inner());
                addresses.drain(..).for_each(|a| {
                    svm.free(a);
                });
            }
            Ok(())
        });
        finish_enqueue(&q, q.enqueue_host(CL_COMMAND_SVM_FREE, deps, work), false, event)
    }
}

/// The queue of an SVM command; `CL_INVALID_OPERATION` where its context has no SVM.
fn svm_queue(q: cl_command_queue) -> CLResult<Arc<Queue>> {
    let q = queue(q)?;
    if !supported(&q.context) {
        return Err(CL_INVALID_OPERATION);
    }
    Ok(q)
}

entry! {
    fn clEnqueueSVMMemcpy(q: cl_command_queue, blocking: cl_bool, dst: *mut c_void, src: *const c_void, size: usize, n: cl_uint, list: *const cl_event, event: *mut cl_event) -> CLResult<()> {
        let q = svm_queue(q)?;
        if dst.is_null() || src.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let (d, s) = (dst as usize, src as usize);
        if d < s.saturating_add(size) && s < d.saturating_add(size) {
            return Err(CL_MEM_COPY_OVERLAP);
        }
        let blocking = blocking != 0;
        let (whole, region) = linear(0, size);
        match (svm_mem(&q.context, dst, size)?, svm_mem(&q.context, src, size)?) {
            _ if size == 0 => submit(&q, CL_COMMAND_SVM_MEMCPY, n, list, blocking, event, || Ok(Box::new(|_| Ok(None)))),
            (Some(d), Some(s)) => submit(&q, CL_COMMAND_SVM_MEMCPY, n, list, blocking, event, || s.copy_rect(&q.device, &d, whole, whole, region)),
            (Some(d), None) => write(&q, &d, CL_COMMAND_SVM_MEMCPY, (whole, whole, region), src.cast(), (n, list), blocking, event),
            (None, Some(s)) => read(&q, &s, CL_COMMAND_SVM_MEMCPY, (whole, whole, region), dst.cast(), (n, list), blocking, event),
            (None, None) => {
                // Host memory both: copied by the host once the command's turn comes.
                let (d, s) = (d, s);
                let deps = wait_list(&q, n, list)?;
                let work = Box::new(move || {
                    // SAFETY: the application passes `size` bytes at each, apart (checked above).
                    unsafe { std::ptr::copy_nonoverlapping(s as *const u8, d as *mut u8, size) };
                    Ok(())
                });
                finish_enqueue(&q, q.enqueue_host(CL_COMMAND_SVM_MEMCPY, deps, work), blocking, event)
            }
        }
    }
}

entry! {
    fn clEnqueueSVMMemFill(q: cl_command_queue, ptr: *mut c_void, pattern: *const c_void, pattern_size: usize, size: usize, n: cl_uint, list: *const cl_event, event: *mut cl_event) -> CLResult<()> {
        let q = svm_queue(q)?;
        let valid_pattern = pattern_size.is_power_of_two() && pattern_size <= 128;
        if ptr.is_null() || pattern.is_null() || !valid_pattern || !(ptr as usize).is_multiple_of(pattern_size) || !size.is_multiple_of(pattern_size) {
            return Err(CL_INVALID_VALUE);
        }
        let m = svm_mem(&q.context, ptr, size)?.ok_or(CL_INVALID_VALUE)?;
        if size == 0 {
            return submit(&q, CL_COMMAND_SVM_MEMFILL, n, list, false, event, || Ok(Box::new(|_| Ok(None))));
        }
        let bytes = std::slice::from_raw_parts(pattern as *const u8, pattern_size);
        submit(&q, CL_COMMAND_SVM_MEMFILL, n, list, false, event, || m.fill(&q.device, bytes, 0, size))
    }
}

/// Map and unmap of coarse-grain SVM: the host always sees the memory (it is mapped for its
/// whole life, coherently), so either is a point in the queue's order.
unsafe fn map_point(q: cl_command_queue, ty: cl_command_type, ptr: *const c_void, size: usize, n: cl_uint, list: *const cl_event, blocking: bool, event: *mut cl_event) -> CLResult<()> {
    let q = svm_queue(q)?;
    if ptr.is_null() || svm_mem(&q.context, ptr, size)?.is_none() {
        return Err(CL_INVALID_VALUE);
    }
    let deps = wait_list(&q, n, list)?;
    finish_enqueue(&q, q.enqueue_sync_point(ty, deps, false), blocking, event)
}

entry! {
    fn clEnqueueSVMMap(q: cl_command_queue, blocking: cl_bool, flags: cl_map_flags, ptr: *mut c_void, size: usize, n: cl_uint, list: *const cl_event, event: *mut cl_event) -> CLResult<()> {
        let known = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
        if size == 0 || flags & !known != 0 || (flags & CL_MAP_WRITE_INVALIDATE_REGION != 0 && flags & (CL_MAP_READ | CL_MAP_WRITE) != 0) {
            svm_queue(q)?;
            return Err(CL_INVALID_VALUE);
        }
        map_point(q, CL_COMMAND_SVM_MAP, ptr, size, n, list, blocking != 0, event)
    }
}

entry! {
    fn clEnqueueSVMUnmap(q: cl_command_queue, ptr: *mut c_void, n: cl_uint, list: *const cl_event, event: *mut cl_event) -> CLResult<()> {
        map_point(q, CL_COMMAND_SVM_UNMAP, ptr, 0, n, list, false, event)
    }
}

entry! {
    fn clEnqueueSVMMigrateMem(q: cl_command_queue, count: cl_uint, ptrs: *const *const c_void, sizes: *const usize, flags: cl_mem_migration_flags, n: cl_uint, list: *const cl_event, event: *mut cl_event) -> CLResult<()> {
        let q = svm_queue(q)?;
        let known = CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED;
        if count == 0 || ptrs.is_null() || flags & !known != 0 {
            return Err(CL_INVALID_VALUE);
        }
        for i in 0..count as usize {
            let size = if sizes.is_null() { 0 } else { *sizes.add(i) };
            let p = *ptrs.add(i);
            if p.is_null() || svm_mem(&q.context, p, size)?.is_none() {
                return Err(CL_INVALID_VALUE);
            }
        }
        // One memory for host and device: nothing moves.
        let deps = wait_list(&q, n, list)?;
        finish_enqueue(&q, q.enqueue_sync_point(CL_COMMAND_SVM_MIGRATE_MEM, deps, false), false, event)
    }
}

entry! {
    fn clSetKernelArgSVMPointer(kernel: cl_kernel, index: cl_uint, value: *const c_void) -> CLResult<()> {
        let k = get::<Kernel>(kernel)?;
        let context = &k.program.context;
        if !supported(context) {
            return Err(CL_INVALID_OPERATION);
        }
        let arg = k.info().args().get(index as usize).cloned().ok_or(CL_INVALID_ARG_INDEX)?;
        if !matches!(arg.kind, crate::compiler::ArgKind::Buffer { .. }) {
            return Err(CL_INVALID_ARG_VALUE);
        }
        // A NULL pointer is a NULL argument; any other must lie in an allocation of the context.
        let value = if value.is_null() {
            ArgValue::Buffer(None)
        } else {
            ArgValue::Svm(svm_mem(context, value, 0)?.ok_or(CL_INVALID_ARG_VALUE)?)
        };
        k.set_arg(index as usize, value);
        Ok(())
    }
}

entry! {
    fn clSetKernelExecInfo(k: cl_kernel, p: cl_uint, s: usize, v: *const c_void) -> CLResult<()> {
        get::<Kernel>(k)?;
        const BOOL: usize = std::mem::size_of::<cl_bool>();
        match p {
            CL_KERNEL_EXEC_INFO_SVM_PTRS if !s.is_multiple_of(std::mem::size_of::<*const c_void>()) || (v.is_null() && s > 0) => Err(CL_INVALID_VALUE),
            // Every allocation lies in a heap that kernels reaching SVM through memory bind.
            CL_KERNEL_EXEC_INFO_SVM_PTRS => Ok(()),
            // Fine-grain system SVM cannot be turned on; turning it off is allowed.
            CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM if s != BOOL || v.is_null() => Err(CL_INVALID_VALUE),
            CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM if (v as *const cl_bool).read_unaligned() != CL_FALSE => Err(CL_INVALID_OPERATION),
            CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM => Ok(()),
            _ => Err(CL_INVALID_VALUE),
        }
    }
}
