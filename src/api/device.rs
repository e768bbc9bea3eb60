//! Device entry points and `clGetDeviceInfo`, answered from the Vulkan properties.

use super::entry::entry;
use crate::cl::CLResult;
use crate::cl::object::{get, handle_of};
use super::info::{self, name_version, Info};
use super::platform::{check, devices_of_type};
use crate::cl::types::*;
use crate::core::device::Device;
use crate::core::platform as core_platform;

entry! {
    fn clGetDeviceIDs(platform: cl_platform_id, device_type: cl_device_type, num_entries: cl_uint, devices: *mut cl_device_id, num_devices: *mut cl_uint) -> CLResult<()> {
        check(platform)?;
        if (num_entries == 0 && !devices.is_null()) || (devices.is_null() && num_devices.is_null()) {
            return Err(CL_INVALID_VALUE);
        }
        let found = devices_of_type(device_type)?;
        if !devices.is_null() {
            for (i, d) in found.iter().take(num_entries as usize).enumerate() {
                devices.add(i).write(handle_of(d));
            }
        }
        super::util::write_opt(num_devices, found.len() as cl_uint);
        Ok(())
    }
}

entry! {
    fn clGetDeviceInfo(device: cl_device_id, param: cl_device_info, size: usize, value: *mut c_void, size_ret: *mut usize) -> CLResult<()> {
        let d = get::<Device>(device)?;
        info::write(query(&d, param), size, value, size_ret)
    }
}

entry! {
    fn clRetainDevice(device: cl_device_id) -> CLResult<()> {
        // Root devices live as long as the platform: retaining them changes nothing.
        get::<Device>(device).map(drop)
    }
}

entry! {
    fn clReleaseDevice(device: cl_device_id) -> CLResult<()> {
        get::<Device>(device).map(drop)
    }
}

entry! {
    fn clCreateSubDevices(device: cl_device_id, properties: *const cl_device_partition_property, num_devices: cl_uint, out: *mut cl_device_id, num_ret: *mut cl_uint) -> CLResult<()> {
        get::<Device>(device)?;
        let _ = (properties, num_devices, out, num_ret);
        // CL_DEVICE_PARTITION_PROPERTIES reports no partition type: every request is unsupported.
        Err(CL_INVALID_VALUE)
    }
}

fn version_string(d: &Device) -> String {
    format!("OpenCL 3.0 ferrocl (Vulkan {} {})", d.gpu.props.driver_name, d.gpu.props.driver_info)
}

const WORK_DIMS: cl_uint = 3;

/// Answers every OpenCL 3.0 device query.
fn query(d: &Device, param: cl_device_info) -> CLResult<Info> {
    let l = d.limits();
    let t = &d.target;
    let exts = d.extensions();
    let queue_props = CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE;
    let c_versions = [(1, 0), (1, 1), (1, 2), (3, 0)].map(|(a, b)| name_version("OpenCL C", cl_make_version(a, b, 0)));
    let uuid = |bytes: [u8; 16]| Info::value(bytes);
    Ok(match param {
        CL_DEVICE_TYPE => Info::value(d.device_type),
        CL_DEVICE_VENDOR_ID => d.gpu.props.base.vendor_id.into(),
        CL_DEVICE_MAX_COMPUTE_UNITS => d.compute_units.into(),
        CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS => WORK_DIMS.into(),
        CL_DEVICE_MAX_WORK_ITEM_SIZES => Info::slice(&t.max_work_item_sizes.map(|s| s as usize)),
        CL_DEVICE_MAX_WORK_GROUP_SIZE => (t.max_work_group_size as usize).into(),
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR
        | CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT
        | CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT
        | CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG
        | CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT
        | CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR
        | CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT
        | CL_DEVICE_NATIVE_VECTOR_WIDTH_INT
        | CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG
        | CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT => 1u32.into(),
        // 0 exactly when the type is not supported.
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE | CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE => u32::from(t.fp64).into(),
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF | CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF => u32::from(t.fp16).into(),
        // Vulkan does not report clock rates.
        CL_DEVICE_MAX_CLOCK_FREQUENCY => d.max_clock_mhz().into(),
        CL_DEVICE_ADDRESS_BITS => t.address_bits.into(),
        CL_DEVICE_MAX_MEM_ALLOC_SIZE => d.max_alloc_size.into(),
        CL_DEVICE_IMAGE_SUPPORT => Info::bool(d.image_support()),
        // Every image limit is 0 while CL_DEVICE_IMAGE_SUPPORT is false.
        CL_DEVICE_MAX_READ_IMAGE_ARGS => d.reported_image_limits().read_args.into(),
        CL_DEVICE_MAX_WRITE_IMAGE_ARGS => d.reported_image_limits().write_args.into(),
        // read_write images need shaderStorageImageReadWithoutFormat (docs/design.md, "Images").
        CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS => 0u32.into(),
        CL_DEVICE_MAX_SAMPLERS => d.reported_image_limits().samplers.into(),
        CL_DEVICE_IMAGE2D_MAX_WIDTH => d.reported_image_limits().width.into(),
        CL_DEVICE_IMAGE2D_MAX_HEIGHT => d.reported_image_limits().height.into(),
        CL_DEVICE_IMAGE3D_MAX_WIDTH | CL_DEVICE_IMAGE3D_MAX_HEIGHT | CL_DEVICE_IMAGE3D_MAX_DEPTH => d.reported_image_limits().size_3d.into(),
        CL_DEVICE_IMAGE_MAX_BUFFER_SIZE => d.reported_image_limits().buffer.into(),
        CL_DEVICE_IMAGE_MAX_ARRAY_SIZE => d.reported_image_limits().array.into(),
        // In pixels. A 2D image made from a buffer is read through a texel-buffer view at
        // index y · pitch + x, so any row pitch of whole texels serves; a `USE_HOST_PTR`
        // buffer's host memory is copied, never imported, so its address needs no alignment
        // (the buffer's own offset, a sub-buffer's origin, follows CL_DEVICE_MEM_BASE_ADDR_ALIGN).
        CL_DEVICE_IMAGE_PITCH_ALIGNMENT | CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT => u32::from(d.image_support()).into(),
        CL_DEVICE_MAX_PARAMETER_SIZE => 1024usize.into(),
        CL_DEVICE_MEM_BASE_ADDR_ALIGN => ((d.base_align * 8) as u32).into(),
        CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE => 128u32.into(),
        CL_DEVICE_SINGLE_FP_CONFIG => d.single_fp_config().into(),
        CL_DEVICE_DOUBLE_FP_CONFIG => d.double_fp_config().into(),
        CL_DEVICE_HALF_FP_CONFIG => d.half_fp_config().into(),
        CL_DEVICE_SINGLE_FP_ATOMIC_CAPABILITIES_EXT => d.fp_atomic_capabilities(false).into(),
        CL_DEVICE_DOUBLE_FP_ATOMIC_CAPABILITIES_EXT => d.fp_atomic_capabilities(true).into(),
        CL_DEVICE_HALF_FP_ATOMIC_CAPABILITIES_EXT => Info::value::<cl_device_fp_atomic_capabilities_ext>(0),
        // Cache sizes are not reported by Vulkan.
        CL_DEVICE_GLOBAL_MEM_CACHE_TYPE => Info::value(CL_NONE),
        CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE => 0u32.into(),
        CL_DEVICE_GLOBAL_MEM_CACHE_SIZE => 0u64.into(),
        CL_DEVICE_GLOBAL_MEM_SIZE => d.global_mem_size.into(),
        CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE => t.max_constant_buffer_size.into(),
        CL_DEVICE_MAX_CONSTANT_ARGS => d.max_constant_args.into(),
        CL_DEVICE_LOCAL_MEM_TYPE => Info::value(CL_LOCAL),
        CL_DEVICE_LOCAL_MEM_SIZE => t.local_mem_size.into(),
        CL_DEVICE_ERROR_CORRECTION_SUPPORT => Info::bool(false),
        CL_DEVICE_HOST_UNIFIED_MEMORY => Info::bool(d.device_type == CL_DEVICE_TYPE_CPU),
        CL_DEVICE_PROFILING_TIMER_RESOLUTION => (l.timestamp_period.ceil().max(1.0) as usize).into(),
        CL_DEVICE_ENDIAN_LITTLE | CL_DEVICE_AVAILABLE | CL_DEVICE_COMPILER_AVAILABLE | CL_DEVICE_LINKER_AVAILABLE => Info::bool(true),
        CL_DEVICE_EXECUTION_CAPABILITIES => Info::value(CL_EXEC_KERNEL),
        // CL_DEVICE_QUEUE_PROPERTIES has the same value.
        CL_DEVICE_QUEUE_ON_HOST_PROPERTIES => queue_props.into(),
        CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES => 0u64.into(),
        CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE | CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE => 0u32.into(),
        CL_DEVICE_MAX_ON_DEVICE_QUEUES | CL_DEVICE_MAX_ON_DEVICE_EVENTS => 0u32.into(),
        CL_DEVICE_BUILT_IN_KERNELS => "".into(),
        CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION | CL_DEVICE_ILS_WITH_VERSION => Info::bytes(Vec::new()),
        CL_DEVICE_IL_VERSION => "".into(),
        CL_DEVICE_PLATFORM => handle_of(super::platform::platform()).into(),
        CL_DEVICE_NAME => d.name.as_str().into(),
        CL_DEVICE_VENDOR => core_platform::VENDOR.into(),
        CL_DRIVER_VERSION => env!("CARGO_PKG_VERSION").into(),
        CL_DEVICE_PROFILE => "FULL_PROFILE".into(),
        CL_DEVICE_VERSION => version_string(d).as_str().into(),
        CL_DEVICE_NUMERIC_VERSION => cl_make_version(3, 0, 0).into(),
        CL_DEVICE_OPENCL_C_VERSION => "OpenCL C 1.2 ferrocl".into(),
        CL_DEVICE_OPENCL_C_NUMERIC_VERSION_KHR => cl_make_version(1, 2, 0).into(),
        CL_DEVICE_OPENCL_C_ALL_VERSIONS => Info::slice(&c_versions),
        CL_DEVICE_OPENCL_C_FEATURES => Info::slice(&d.c_features().iter().map(|f| name_version(f, cl_make_version(3, 0, 0))).collect::<Vec<_>>()),
        CL_DEVICE_EXTENSIONS => exts.iter().map(|e| e.0).collect::<Vec<_>>().join(" ").as_str().into(),
        CL_DEVICE_EXTENSIONS_WITH_VERSION => Info::slice(&exts.iter().map(|(n, v)| name_version(n, *v)).collect::<Vec<_>>()),
        CL_DEVICE_PRINTF_BUFFER_SIZE => (crate::compiler::printf::BUFFER_SIZE as usize).into(),
        CL_DEVICE_PREFERRED_INTEROP_USER_SYNC => Info::bool(true),
        CL_DEVICE_PARENT_DEVICE => std::ptr::null_mut::<c_void>().into(),
        CL_DEVICE_PARTITION_MAX_SUB_DEVICES => 0u32.into(),
        CL_DEVICE_PARTITION_PROPERTIES => Info::slice(&[0 as cl_device_partition_property]),
        CL_DEVICE_PARTITION_AFFINITY_DOMAIN => 0u64.into(),
        CL_DEVICE_PARTITION_TYPE => Info::bytes(Vec::new()),
        CL_DEVICE_REFERENCE_COUNT => 1u32.into(),
        CL_DEVICE_SVM_CAPABILITIES => d.svm_capabilities().into(),
        CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT
        | CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT
        | CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT => 0u32.into(),
        CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE | CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE => (Device::MAX_GLOBAL_VARIABLE_SIZE as usize).into(),
        CL_DEVICE_MAX_PIPE_ARGS | CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS | CL_DEVICE_PIPE_MAX_PACKET_SIZE => 0u32.into(),
        CL_DEVICE_MAX_NUM_SUB_GROUPS => (if t.subgroups { t.max_work_group_size.div_ceil(t.subgroup_size) } else { 0 }).into(),
        CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT => Info::bool(t.subgroups),
        // Vulkan promises no forward progress between a work-group's subgroups.
        CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS | CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT | CL_DEVICE_PIPE_SUPPORT => Info::bool(false),
        CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT => Info::bool(true),
        CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES => Device::ATOMIC_MEMORY_CAPABILITIES.into(),
        CL_DEVICE_ATOMIC_FENCE_CAPABILITIES => Device::ATOMIC_FENCE_CAPABILITIES.into(),
        CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES => 0u64.into(),
        CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE => (t.subgroup_size as usize).into(),
        CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED => "v0000-01-01-00".into(),
        CL_DEVICE_UUID_KHR => uuid(d.gpu.props.device_uuid),
        CL_DRIVER_UUID_KHR => uuid(d.gpu.props.driver_uuid),
        CL_DEVICE_LUID_VALID_KHR => Info::bool(false),
        CL_DEVICE_LUID_KHR => Info::value([0u8; CL_LUID_SIZE_KHR]),
        CL_DEVICE_NODE_MASK_KHR => 0u32.into(),
        CL_DEVICE_PCI_BUS_INFO_KHR => match &d.gpu.props.pci_bus {
            Some(p) => Info::value([p.pci_domain, p.pci_bus, p.pci_device, p.pci_function]),
            None => return Err(CL_INVALID_VALUE),
        },
        _ => return Err(CL_INVALID_VALUE),
    })
}

