//! Kernel entry points: creation, arguments, queries and the NDRange enqueue.

use super::entry::entry;
use crate::cl::CLResult;
use crate::cl::object::{get, handle_of, publish, release, retain, Object};
use super::info::{self, Info};
use super::queue::queue;
use crate::cl::types::*;
use super::util::{finish_enqueue, wait_list};
use crate::compiler::{AddressQualifier, ArgKind, ImageAccess, ImageDim};
use crate::core::device::Device;
use crate::core::kernel::{ArgValue, Kernel, NdRange};
use crate::core::memory::Mem;
use crate::core::program::Program;
use crate::core::sampler::Sampler;
use std::ffi::{c_char, CStr};
use std::sync::Arc;

entry! {
    fn clCreateKernel(program: cl_program, name: *const c_char; errcode_ret) -> CLResult<cl_kernel> {
        let p = get::<Program>(program)?;
        if name.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        p.executable()?;
        let name = CStr::from_ptr(name).to_str().map_err(|_| CL_INVALID_KERNEL_NAME)?;
        Ok(publish(Kernel::new(p, name)?))
    }
}

entry! {
    fn clCreateKernelsInProgram(program: cl_program, n: cl_uint, kernels: *mut cl_kernel, n_ret: *mut cl_uint) -> CLResult<()> {
        let p = get::<Program>(program)?;
        let names: Vec<String> = p.executable()?.program.kernels.iter().map(|k| k.name().to_string()).collect();
        if !kernels.is_null() {
            if (n as usize) < names.len() {
                return Err(CL_INVALID_VALUE);
            }
            for (i, name) in names.iter().enumerate() {
                kernels.add(i).write(publish(Kernel::new(p.clone(), name)?));
            }
        }
        super::util::write_opt(n_ret, names.len() as cl_uint);
        Ok(())
    }
}

entry! {
    fn clCloneKernel(kernel: cl_kernel; errcode_ret) -> CLResult<cl_kernel> {
        Ok(publish(get::<Kernel>(kernel)?.duplicate()))
    }
}

entry! {
    fn clRetainKernel(kernel: cl_kernel) -> CLResult<()> {
        retain::<Kernel>(kernel)
    }
}

entry! {
    fn clReleaseKernel(kernel: cl_kernel) -> CLResult<()> {
        let k = get::<Kernel>(kernel)?;
        if release::<Kernel>(kernel)? {
            // The program may be rebuilt once no kernel handle is left, even while commands
            // using the kernel still run.
            k.detach();
        }
        Ok(())
    }
}

entry! {
    fn clSetKernelArg(kernel: cl_kernel, index: cl_uint, size: usize, value: *const c_void) -> CLResult<()> {
        let k = get::<Kernel>(kernel)?;
        let arg = k.info().args().get(index as usize).cloned().ok_or(CL_INVALID_ARG_INDEX)?;
        let v = match arg.kind {
            ArgKind::Buffer { .. } => {
                if size != std::mem::size_of::<cl_mem>() {
                    return Err(CL_INVALID_ARG_SIZE);
                }
                let handle = if value.is_null() { std::ptr::null_mut() } else { *(value as *const cl_mem) };
                let mem = if handle.is_null() { None } else { Some(get::<Mem>(handle)?) };
                if mem.as_ref().is_some_and(|m| !Arc::ptr_eq(&m.context, &k.program.context) || m.image.is_some()) {
                    return Err(CL_INVALID_MEM_OBJECT);
                }
                ArgValue::Buffer(mem.as_ref().map(Arc::downgrade))
            }
            ArgKind::Image { dim, access, .. } => ArgValue::Image(Arc::downgrade(&image_arg(&k, size, value, dim, access)?)),
            ArgKind::Sampler { .. } => {
                if size != std::mem::size_of::<cl_sampler>() {
                    return Err(CL_INVALID_ARG_SIZE);
                }
                if value.is_null() {
                    return Err(CL_INVALID_SAMPLER);
                }
                let sampler = get::<Sampler>(*(value as *const cl_sampler))?;
                if !Arc::ptr_eq(&sampler.context, &k.program.context) {
                    return Err(CL_INVALID_SAMPLER);
                }
                ArgValue::Sampler(sampler.bits())
            }
            ArgKind::Local { .. } => {
                if !value.is_null() {
                    return Err(CL_INVALID_ARG_VALUE);
                }
                if size == 0 || size > u32::MAX as usize {
                    return Err(CL_INVALID_ARG_SIZE);
                }
                ArgValue::Local(size as u32)
            }
            ArgKind::Pod { size: expected, .. } => {
                if size != expected as usize {
                    return Err(CL_INVALID_ARG_SIZE);
                }
                if value.is_null() {
                    return Err(CL_INVALID_ARG_VALUE);
                }
                ArgValue::Pod(std::slice::from_raw_parts(value as *const u8, size).to_vec())
            }
        };
        k.set_arg(index as usize, v);
        Ok(())
    }
}

/// The image an image argument is set to: an image of the kernel's context whose type is the
/// argument's, and that kernels may access as the argument does.
unsafe fn image_arg(k: &Kernel, size: usize, value: *const c_void, dim: ImageDim, access: ImageAccess) -> CLResult<Arc<Mem>> {
    if size != std::mem::size_of::<cl_mem>() {
        return Err(CL_INVALID_ARG_SIZE);
    }
    if value.is_null() {
        return Err(CL_INVALID_ARG_VALUE);
    }
    let m = get::<Mem>(*(value as *const cl_mem))?;
    if !Arc::ptr_eq(&m.context, &k.program.context) {
        return Err(CL_INVALID_MEM_OBJECT);
    }
    // Not an image of the argument's type: CL_INVALID_MEM_OBJECT, as for a depth or array
    // image given to another image type (CTS negative_set_kernel_arg_invalid_image).
    let ty = m.image.as_ref().ok_or(CL_INVALID_MEM_OBJECT)?.desc.ty;
    let expected = match dim {
        ImageDim::D1 => CL_MEM_OBJECT_IMAGE1D,
        ImageDim::D1Buffer => CL_MEM_OBJECT_IMAGE1D_BUFFER,
        ImageDim::D1Array => CL_MEM_OBJECT_IMAGE1D_ARRAY,
        ImageDim::D2 => CL_MEM_OBJECT_IMAGE2D,
        ImageDim::D2Array => CL_MEM_OBJECT_IMAGE2D_ARRAY,
        ImageDim::D3 => CL_MEM_OBJECT_IMAGE3D,
    };
    let forbidden = match access {
        ImageAccess::Read => CL_MEM_WRITE_ONLY,
        ImageAccess::Write => CL_MEM_READ_ONLY,
    };
    if ty != expected {
        return Err(CL_INVALID_MEM_OBJECT);
    }
    if m.flags & forbidden != 0 {
        return Err(CL_INVALID_ARG_VALUE);
    }
    Ok(m)
}

entry! {
    fn clGetKernelInfo(kernel: cl_kernel, param: cl_kernel_info, size: usize, value: *mut c_void, size_ret: *mut usize) -> CLResult<()> {
        let k = get::<Kernel>(kernel)?;
        let answer = match param {
            CL_KERNEL_FUNCTION_NAME => Ok(k.name.as_str().into()),
            CL_KERNEL_NUM_ARGS => Ok((k.info().args().len() as cl_uint).into()),
            CL_KERNEL_REFERENCE_COUNT => Ok(k.header().ref_count().into()),
            CL_KERNEL_CONTEXT => Ok(handle_of(&k.program.context).into()),
            CL_KERNEL_PROGRAM => Ok(handle_of(&k.program).into()),
            CL_KERNEL_ATTRIBUTES => Ok(k.info().attribute_string().as_str().into()),
            _ => Err(CL_INVALID_VALUE),
        };
        info::write(answer, size, value, size_ret)
    }
}

/// The device a per-device kernel query is about: NULL is allowed when there is only one.
pub(super) fn query_device(k: &Kernel, device: cl_device_id) -> CLResult<Arc<Device>> {
    if device.is_null() {
        return match k.program.devices.as_slice() {
            [d] => Ok(d.clone()),
            _ => Err(CL_INVALID_DEVICE),
        };
    }
    let d = get::<Device>(device)?;
    k.compiled_for(&d).map_err(|_| CL_INVALID_DEVICE)?;
    Ok(d)
}

entry! {
    fn clGetKernelWorkGroupInfo(kernel: cl_kernel, device: cl_device_id, param: cl_kernel_work_group_info, size: usize, value: *mut c_void, size_ret: *mut usize) -> CLResult<()> {
        let k = get::<Kernel>(kernel)?;
        let d = query_device(&k, device)?;
        let info = k.info();
        let answer = match param {
            CL_KERNEL_WORK_GROUP_SIZE => Ok((d.target.max_work_group_size as usize).into()),
            CL_KERNEL_COMPILE_WORK_GROUP_SIZE => Ok(Info::slice(&info.attributes().reqd_work_group_size.unwrap_or([0; 3]).map(|s| s as usize))),
            CL_KERNEL_LOCAL_MEM_SIZE => Ok(k.local_mem_size().into()),
            CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE => Ok((d.target.subgroup_size as usize).into()),
            CL_KERNEL_PRIVATE_MEM_SIZE => Ok(info.private_mem_size().into()),
            // Only for custom devices and built-in kernels.
            _ => Err(CL_INVALID_VALUE),
        };
        info::write(answer, size, value, size_ret)
    }
}

entry! {
    fn clGetKernelSubGroupInfo(kernel: cl_kernel, device: cl_device_id, param: cl_kernel_sub_group_info, input_size: usize, input: *const c_void, size: usize, value: *mut c_void, size_ret: *mut usize) -> CLResult<()> {
        let k = get::<Kernel>(kernel)?;
        let d = query_device(&k, device)?;
        if !d.target.subgroups {
            return Err(CL_INVALID_OPERATION);
        }
        let sub_group = d.target.subgroup_size as usize;
        let max_items = d.target.max_work_group_size as usize;
        let sizes = || -> CLResult<&[usize]> {
            let n = input_size / std::mem::size_of::<usize>();
            if input.is_null() || !input_size.is_multiple_of(std::mem::size_of::<usize>()) || !(1..=3).contains(&n) {
                return Err(CL_INVALID_VALUE);
            }
            Ok(std::slice::from_raw_parts(input as *const usize, n))
        };
        let answer = match param {
            CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE => Ok(sub_group.min(sizes()?.iter().product()).into()),
            CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE => Ok(sizes()?.iter().product::<usize>().div_ceil(sub_group).into()),
            CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT => {
                let [count] = sizes()? else { return Err(CL_INVALID_VALUE) };
                // Sub-groups are whole: `count` of them fill count · size work-items in x.
                let dims = (size / std::mem::size_of::<usize>()).clamp(1, 3);
                let items = count.checked_mul(sub_group).filter(|&n| n <= max_items).unwrap_or(0);
                let mut local = vec![if items == 0 { 0 } else { 1 }; dims];
                local[0] = items;
                Ok(Info::slice(&local))
            }
            CL_KERNEL_MAX_NUM_SUB_GROUPS => Ok(max_items.div_ceil(sub_group).into()),
            CL_KERNEL_COMPILE_NUM_SUB_GROUPS => Ok(0usize.into()),
            _ => Err(CL_INVALID_VALUE),
        };
        info::write(answer, size, value, size_ret)
    }
}

fn address_qualifier(a: AddressQualifier) -> cl_kernel_arg_address_qualifier {
    match a {
        AddressQualifier::Global => CL_KERNEL_ARG_ADDRESS_GLOBAL,
        AddressQualifier::Local => CL_KERNEL_ARG_ADDRESS_LOCAL,
        AddressQualifier::Constant => CL_KERNEL_ARG_ADDRESS_CONSTANT,
        // (Sema refuses generic kernel arguments.)
        AddressQualifier::Private | AddressQualifier::Generic => CL_KERNEL_ARG_ADDRESS_PRIVATE,
    }
}

entry! {
    fn clGetKernelArgInfo(kernel: cl_kernel, index: cl_uint, param: cl_kernel_arg_info, size: usize, value: *mut c_void, size_ret: *mut usize) -> CLResult<()> {
        let k = get::<Kernel>(kernel)?;
        let arg = k.info().args().get(index as usize).cloned().ok_or(CL_INVALID_ARG_INDEX)?;
        if !k.program.has_arg_info() {
            return Err(CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
        }
        let answer = match param {
            CL_KERNEL_ARG_ADDRESS_QUALIFIER => Ok(Info::value(address_qualifier(arg.address))),
            CL_KERNEL_ARG_ACCESS_QUALIFIER => Ok(Info::value(match arg.kind {
                ArgKind::Image { access: ImageAccess::Read, .. } => CL_KERNEL_ARG_ACCESS_READ_ONLY,
                ArgKind::Image { access: ImageAccess::Write, .. } => CL_KERNEL_ARG_ACCESS_WRITE_ONLY,
                _ => CL_KERNEL_ARG_ACCESS_NONE,
            })),
            CL_KERNEL_ARG_TYPE_NAME => Ok(arg.type_name.as_str().into()),
            CL_KERNEL_ARG_TYPE_QUALIFIER => Ok(Info::value(arg.type_qualifiers)),
            CL_KERNEL_ARG_NAME => Ok(arg.name.as_str().into()),
            _ => Err(CL_INVALID_VALUE),
        };
        info::write(answer, size, value, size_ret)
    }
}

/// Reads an optional `work_dim`-long size array, padding with `fill`.
unsafe fn sizes(ptr: *const usize, work_dim: u32, fill: usize) -> Option<[usize; 3]> {
    if ptr.is_null() {
        return None;
    }
    let mut out = [fill; 3];
    for (i, o) in out.iter_mut().enumerate().take(work_dim as usize) {
        *o = *ptr.add(i);
    }
    Some(out)
}

/// Chooses a work-group size: the largest power-of-two split of the device's preferred size
/// that divides the global size in each dimension.
fn choose_local(global: [usize; 3], work_dim: u32, max_total: usize, max_dims: [u32; 3]) -> [usize; 3] {
    let mut local = [1usize; 3];
    let mut budget = max_total.min(256);
    for i in 0..work_dim as usize {
        let mut l = 1;
        while l * 2 <= budget && l * 2 <= max_dims[i] as usize && global[i].is_multiple_of(l * 2) {
            l *= 2;
        }
        local[i] = l;
        budget /= l;
    }
    local
}

/// The largest global size, offset + size and number of work-items of a launch: the device's
/// `size_t` (`CL_DEVICE_ADDRESS_BITS` wide), and never past 2^32 − 1, since kernels number
/// work-items in 32 bits (a larger grid is refused, not wrapped).
fn device_size_max(d: &Device) -> usize {
    let size_t = usize::MAX >> (usize::BITS - d.target.address_bits.min(usize::BITS));
    size_t.min(u32::MAX as usize)
}

/// Checks the global sizes and offsets against [`device_size_max`]. The total number of
/// work-items must fit it too: `get_global_linear_id` numbers them, and the bound keeps the
/// dispatches of the grid (see `split_groups`) few.
fn check_global(d: &Device, work_dim: u32, offset: [usize; 3], global: [usize; 3]) -> CLResult<()> {
    let max = device_size_max(d);
    let total = global.iter().take(work_dim as usize).try_fold(1usize, |n, &g| n.checked_mul(g));
    if global.iter().any(|&g| g > max) || total.is_none_or(|n| n > max) {
        return Err(CL_INVALID_GLOBAL_WORK_SIZE);
    }
    if (0..3).any(|i| global[i].checked_add(offset[i]).is_none_or(|end| end > max)) {
        return Err(CL_INVALID_GLOBAL_OFFSET);
    }
    Ok(())
}

/// Validates the NDRange of `k` on `d` and resolves the work-group size. A NULL global size is
/// an empty grid, as a zero in any dimension is (OpenCL 2.1+: the command does nothing).
fn nd_range(k: &Kernel, d: &Device, work_dim: u32, offset: Option<[usize; 3]>, global: Option<[usize; 3]>, local: Option<[usize; 3]>) -> CLResult<NdRange> {
    if !(1..=3).contains(&work_dim) {
        return Err(CL_INVALID_WORK_DIMENSION);
    }
    let global = global.unwrap_or([0; 3]);
    let offset = offset.unwrap_or([0; 3]);
    check_global(d, work_dim, offset, global)?;
    let reqd = k.info().attributes().reqd_work_group_size.map(|r| r.map(|v| v as usize));
    let max_dims = d.target.max_work_item_sizes;
    let local = match (local, reqd) {
        (Some(l), Some(r)) if l != r => return Err(CL_INVALID_WORK_GROUP_SIZE),
        (None, Some(r)) => r,
        (Some(l), _) => l,
        (None, None) => choose_local(global, work_dim, d.target.max_work_group_size as usize, max_dims),
    };
    if local.contains(&0) || local.iter().product::<usize>() > d.target.max_work_group_size as usize {
        return Err(CL_INVALID_WORK_GROUP_SIZE);
    }
    if (0..3).any(|i| local[i] > max_dims[i] as usize) {
        return Err(CL_INVALID_WORK_ITEM_SIZE);
    }
    // Non-uniform work-groups are an optional feature this device does not report.
    if (0..3).any(|i| !global[i].is_multiple_of(local[i])) {
        return Err(CL_INVALID_WORK_GROUP_SIZE);
    }
    Ok(NdRange { work_dim, offset, global, local })
}

#[allow(clippy::too_many_arguments)] // the arguments of clEnqueueNDRangeKernel
unsafe fn enqueue_kernel(q: cl_command_queue, kernel: cl_kernel, work_dim: u32, offset: *const usize, global: *const usize, local: *const usize,
    n: cl_uint, list: *const cl_event, event: *mut cl_event, ty: cl_command_type) -> CLResult<()> {
    let q = queue(q)?;
    let k = get::<Kernel>(kernel)?;
    if !Arc::ptr_eq(&k.program.context, &q.context) {
        return Err(CL_INVALID_CONTEXT);
    }
    k.compiled_for(&q.device)?;
    let range = nd_range(&k, &q.device, work_dim, sizes(offset, work_dim, 0), sizes(global, work_dim, 1), sizes(local, work_dim, 1))?;
    let deps = wait_list(&q, n, list)?;
    let key = if q.finished() { k.launch_key(&range) } else { None };
    if let Some(ev) = key.as_ref().and_then(|key| q.launch_armed(ty, &deps, key)) {
        return finish_enqueue(&q, ev, false, event);
    }
    let (work, relaunch) = k.launch(&q.device, &range, key)?;
    // A kernel without buffer arguments cannot race with other commands; printf output is
    // memory the host reads.
    let info = k.info();
    let touches_memory = info.args().iter().any(|a| matches!(a.kind, ArgKind::Buffer { .. } | ArgKind::Image { .. })) || info.printf_binding().is_some();
    let ev = q.enqueue_launch(ty, deps, touches_memory, work, relaunch);
    finish_enqueue(&q, ev, false, event)
}

entry! {
    fn clEnqueueNDRangeKernel(q: cl_command_queue, kernel: cl_kernel, work_dim: cl_uint, offset: *const usize, global: *const usize, local: *const usize,
        n: cl_uint, list: *const cl_event, event: *mut cl_event) -> CLResult<()> {
        enqueue_kernel(q, kernel, work_dim, offset, global, local, n, list, event, CL_COMMAND_NDRANGE_KERNEL)
    }
}

entry! {
    fn clEnqueueTask(q: cl_command_queue, kernel: cl_kernel, n: cl_uint, list: *const cl_event, event: *mut cl_event) -> CLResult<()> {
        let one = [1usize];
        enqueue_kernel(q, kernel, 1, std::ptr::null(), one.as_ptr(), one.as_ptr(), n, list, event, CL_COMMAND_TASK)
    }
}
