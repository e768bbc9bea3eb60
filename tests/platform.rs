//! Platform and device queries through the loader: every OpenCL 3.0 query answers, with the
//! size of its type, and the answers agree with each other and with the spec's minimums.
mod common;

use common::*;
use std::ffi::c_void;
use std::ptr::null_mut;

/// The C type a query answers with.
#[derive(Clone, Copy, Debug)]
enum Ty {
    U32,
    U64,
    Size,
    Bool,
    Str,
    Ptr,
    /// An array of `size_t`/`intptr_t`/`cl_ulong` (element size 8 here).
    Array8,
    NameVersions,
    Bytes(usize),
}

fn expected_size(ty: Ty) -> Option<usize> {
    match ty {
        Ty::U32 | Ty::Bool => Some(4),
        Ty::U64 | Ty::Size | Ty::Ptr => Some(8),
        Ty::Bytes(n) => Some(n),
        Ty::Str | Ty::Array8 | Ty::NameVersions => None,
    }
}

const PLATFORM_QUERIES: &[(cl_uint, Ty)] = &[
    (CL_PLATFORM_PROFILE, Ty::Str),
    (CL_PLATFORM_VERSION, Ty::Str),
    (CL_PLATFORM_NAME, Ty::Str),
    (CL_PLATFORM_VENDOR, Ty::Str),
    (CL_PLATFORM_EXTENSIONS, Ty::Str),
    (CL_PLATFORM_HOST_TIMER_RESOLUTION, Ty::U64),
    (CL_PLATFORM_NUMERIC_VERSION, Ty::U32),
    (CL_PLATFORM_EXTENSIONS_WITH_VERSION, Ty::NameVersions),
    (CL_PLATFORM_ICD_SUFFIX_KHR, Ty::Str),
];

/// Every `clGetDeviceInfo` query of OpenCL 3.0 (core), with its type.
const DEVICE_QUERIES: &[(cl_uint, Ty)] = &[
    (CL_DEVICE_TYPE, Ty::U64),
    (CL_DEVICE_VENDOR_ID, Ty::U32),
    (CL_DEVICE_MAX_COMPUTE_UNITS, Ty::U32),
    (CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, Ty::U32),
    (CL_DEVICE_MAX_WORK_GROUP_SIZE, Ty::Size),
    (CL_DEVICE_MAX_WORK_ITEM_SIZES, Ty::Array8),
    (CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR, Ty::U32),
    (CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT, Ty::U32),
    (CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT, Ty::U32),
    (CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG, Ty::U32),
    (CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, Ty::U32),
    (CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE, Ty::U32),
    (CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF, Ty::U32),
    (CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR, Ty::U32),
    (CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT, Ty::U32),
    (CL_DEVICE_NATIVE_VECTOR_WIDTH_INT, Ty::U32),
    (CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG, Ty::U32),
    (CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT, Ty::U32),
    (CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE, Ty::U32),
    (CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF, Ty::U32),
    (CL_DEVICE_MAX_CLOCK_FREQUENCY, Ty::U32),
    (CL_DEVICE_ADDRESS_BITS, Ty::U32),
    (CL_DEVICE_MAX_MEM_ALLOC_SIZE, Ty::U64),
    (CL_DEVICE_IMAGE_SUPPORT, Ty::Bool),
    (CL_DEVICE_MAX_READ_IMAGE_ARGS, Ty::U32),
    (CL_DEVICE_MAX_WRITE_IMAGE_ARGS, Ty::U32),
    (CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS, Ty::U32),
    (CL_DEVICE_IL_VERSION, Ty::Str),
    (CL_DEVICE_ILS_WITH_VERSION, Ty::NameVersions),
    (CL_DEVICE_IMAGE2D_MAX_WIDTH, Ty::Size),
    (CL_DEVICE_IMAGE2D_MAX_HEIGHT, Ty::Size),
    (CL_DEVICE_IMAGE3D_MAX_WIDTH, Ty::Size),
    (CL_DEVICE_IMAGE3D_MAX_HEIGHT, Ty::Size),
    (CL_DEVICE_IMAGE3D_MAX_DEPTH, Ty::Size),
    (CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, Ty::Size),
    (CL_DEVICE_IMAGE_MAX_ARRAY_SIZE, Ty::Size),
    (CL_DEVICE_MAX_SAMPLERS, Ty::U32),
    (CL_DEVICE_IMAGE_PITCH_ALIGNMENT, Ty::U32),
    (CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT, Ty::U32),
    (CL_DEVICE_MAX_PIPE_ARGS, Ty::U32),
    (CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS, Ty::U32),
    (CL_DEVICE_PIPE_MAX_PACKET_SIZE, Ty::U32),
    (CL_DEVICE_MAX_PARAMETER_SIZE, Ty::Size),
    (CL_DEVICE_MEM_BASE_ADDR_ALIGN, Ty::U32),
    (CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE, Ty::U32),
    (CL_DEVICE_SINGLE_FP_CONFIG, Ty::U64),
    (CL_DEVICE_DOUBLE_FP_CONFIG, Ty::U64),
    (CL_DEVICE_HALF_FP_CONFIG, Ty::U64),
    (CL_DEVICE_GLOBAL_MEM_CACHE_TYPE, Ty::U32),
    (CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE, Ty::U32),
    (CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, Ty::U64),
    (CL_DEVICE_GLOBAL_MEM_SIZE, Ty::U64),
    (CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, Ty::U64),
    (CL_DEVICE_MAX_CONSTANT_ARGS, Ty::U32),
    (CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE, Ty::Size),
    (CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE, Ty::Size),
    (CL_DEVICE_LOCAL_MEM_TYPE, Ty::U32),
    (CL_DEVICE_LOCAL_MEM_SIZE, Ty::U64),
    (CL_DEVICE_ERROR_CORRECTION_SUPPORT, Ty::Bool),
    (CL_DEVICE_HOST_UNIFIED_MEMORY, Ty::Bool),
    (CL_DEVICE_PROFILING_TIMER_RESOLUTION, Ty::Size),
    (CL_DEVICE_ENDIAN_LITTLE, Ty::Bool),
    (CL_DEVICE_AVAILABLE, Ty::Bool),
    (CL_DEVICE_COMPILER_AVAILABLE, Ty::Bool),
    (CL_DEVICE_LINKER_AVAILABLE, Ty::Bool),
    (CL_DEVICE_EXECUTION_CAPABILITIES, Ty::U64),
    (CL_DEVICE_QUEUE_ON_HOST_PROPERTIES, Ty::U64),
    (CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES, Ty::U64),
    (CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE, Ty::U32),
    (CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE, Ty::U32),
    (CL_DEVICE_MAX_ON_DEVICE_QUEUES, Ty::U32),
    (CL_DEVICE_MAX_ON_DEVICE_EVENTS, Ty::U32),
    (CL_DEVICE_BUILT_IN_KERNELS, Ty::Str),
    (CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION, Ty::NameVersions),
    (CL_DEVICE_PLATFORM, Ty::Ptr),
    (CL_DEVICE_NAME, Ty::Str),
    (CL_DEVICE_VENDOR, Ty::Str),
    (CL_DRIVER_VERSION, Ty::Str),
    (CL_DEVICE_PROFILE, Ty::Str),
    (CL_DEVICE_VERSION, Ty::Str),
    (CL_DEVICE_NUMERIC_VERSION, Ty::U32),
    (CL_DEVICE_OPENCL_C_VERSION, Ty::Str),
    (CL_DEVICE_OPENCL_C_ALL_VERSIONS, Ty::NameVersions),
    (CL_DEVICE_OPENCL_C_FEATURES, Ty::NameVersions),
    (CL_DEVICE_EXTENSIONS, Ty::Str),
    (CL_DEVICE_EXTENSIONS_WITH_VERSION, Ty::NameVersions),
    (CL_DEVICE_PRINTF_BUFFER_SIZE, Ty::Size),
    (CL_DEVICE_PREFERRED_INTEROP_USER_SYNC, Ty::Bool),
    (CL_DEVICE_PARENT_DEVICE, Ty::Ptr),
    (CL_DEVICE_PARTITION_MAX_SUB_DEVICES, Ty::U32),
    (CL_DEVICE_PARTITION_PROPERTIES, Ty::Array8),
    (CL_DEVICE_PARTITION_AFFINITY_DOMAIN, Ty::U64),
    (CL_DEVICE_PARTITION_TYPE, Ty::Array8),
    (CL_DEVICE_REFERENCE_COUNT, Ty::U32),
    (CL_DEVICE_SVM_CAPABILITIES, Ty::U64),
    (CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT, Ty::U32),
    (CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT, Ty::U32),
    (CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT, Ty::U32),
    (CL_DEVICE_MAX_NUM_SUB_GROUPS, Ty::U32),
    (CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS, Ty::Bool),
    (CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES, Ty::U64),
    (CL_DEVICE_ATOMIC_FENCE_CAPABILITIES, Ty::U64),
    (CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT, Ty::Bool),
    (CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT, Ty::Bool),
    (CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT, Ty::Bool),
    (CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES, Ty::U64),
    (CL_DEVICE_PIPE_SUPPORT, Ty::Bool),
    (CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, Ty::Size),
    (CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED, Ty::Str),
];

/// Checks the protocol of one query: size query, exact value size, too-small buffer.
fn check_protocol(name: cl_uint, ty: Ty, query: &dyn Fn(usize, *mut c_void, *mut usize) -> cl_int) {
    let mut size = usize::MAX;
    assert_eq!(query(0, null_mut(), &mut size), CL_SUCCESS, "size query of {name:#x}");
    match (ty, expected_size(ty)) {
        (_, Some(n)) => assert_eq!(size, n, "size of {name:#x} ({ty:?})"),
        (Ty::Str, None) => assert!(size >= 1, "a string has at least its NUL: {name:#x}"),
        (Ty::Array8, None) => assert_eq!(size % 8, 0, "{name:#x}"),
        (_, None) => assert_eq!(size % std::mem::size_of::<cl_name_version>(), 0, "{name:#x}"),
    }
    let mut bytes = vec![0xA5u8; size + 8];
    let mut again = 0;
    assert_eq!(query(size, bytes.as_mut_ptr().cast(), &mut again), CL_SUCCESS, "value of {name:#x}");
    assert_eq!(again, size);
    assert!(bytes[size..].iter().all(|&b| b == 0xA5), "{name:#x} wrote past its size");
    if matches!(ty, Ty::Bool) {
        let v = u32::from_ne_bytes(bytes[..4].try_into().unwrap());
        assert!(v == CL_TRUE || v == CL_FALSE, "{name:#x} is a cl_bool: {v}");
    }
    if size > 0 {
        assert_eq!(query(size - 1, bytes.as_mut_ptr().cast(), null_mut()), CL_INVALID_VALUE, "short buffer for {name:#x}");
    }
    // Neither a value pointer nor a size pointer: still a valid (useless) call.
    assert_eq!(query(0, null_mut(), null_mut()), CL_SUCCESS, "{name:#x} with no outputs");
}

#[test]
fn every_platform_query_follows_the_protocol() {
    let p = platform();
    for &(name, ty) in PLATFORM_QUERIES {
        check_protocol(name, ty, &|s, v, r| unsafe { clGetPlatformInfo(p, name, s, v, r) });
    }
    for bad in [0u32, 0x0908, 0x1000, 0xFFFF_FFFF] {
        let mut size = 0;
        assert_eq!(unsafe { clGetPlatformInfo(p, bad, 0, null_mut(), &mut size) }, CL_INVALID_VALUE, "param {bad:#x}");
    }
}

#[test]
fn platform_answers_agree() {
    let p = platform();
    let s = |param| info_string(|sz, v, r| unsafe { clGetPlatformInfo(p, param, sz, v, r) });
    assert_eq!(s(CL_PLATFORM_PROFILE), "FULL_PROFILE");
    assert!(s(CL_PLATFORM_VERSION).starts_with("OpenCL 3.0 "), "{}", s(CL_PLATFORM_VERSION));
    let numeric: cl_uint = info_value(|sz, v, r| unsafe { clGetPlatformInfo(p, CL_PLATFORM_NUMERIC_VERSION, sz, v, r) });
    assert_eq!(numeric, 3 << 22, "CL_MAKE_VERSION(3, 0, 0)");
    let exts = s(CL_PLATFORM_EXTENSIONS);
    let with_version: Vec<cl_name_version> = info_array(|sz, v, r| unsafe { clGetPlatformInfo(p, CL_PLATFORM_EXTENSIONS_WITH_VERSION, sz, v, r) });
    let names: Vec<String> = with_version.iter().map(cl_name_version::name).collect();
    assert_eq!(exts.split_whitespace().collect::<Vec<_>>(), names);
    assert!(names.iter().any(|n| n == "cl_khr_icd"));
    assert!(!s(CL_PLATFORM_ICD_SUFFIX_KHR).is_empty());
    assert!(!s(CL_PLATFORM_VENDOR).is_empty());
}

#[test]
fn device_ids_by_type() {
    let p = platform();
    let count = |ty| {
        let mut n = 0;
        let code = unsafe { clGetDeviceIDs(p, ty, 0, null_mut(), &mut n) };
        (code, n)
    };
    let (code, all) = count(CL_DEVICE_TYPE_ALL);
    ok(code);
    assert!(all >= 1);
    let mut ids = vec![null_mut(); all as usize];
    ok(unsafe { clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, all, ids.as_mut_ptr(), null_mut()) });
    let types: Vec<cl_device_type> = ids.iter().map(|&d| info_value(|s, v, r| unsafe { clGetDeviceInfo(d, CL_DEVICE_TYPE, s, v, r) })).collect();
    for ty in [CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_ACCELERATOR] {
        let expected = types.iter().filter(|&&t| t & ty != 0).count() as u32;
        let (code, n) = count(ty);
        if expected == 0 {
            assert_eq!(code, CL_DEVICE_NOT_FOUND, "type {ty:#x}");
        } else {
            ok(code);
            assert_eq!(n, expected, "type {ty:#x}");
        }
    }
    assert_eq!(count(CL_DEVICE_TYPE_DEFAULT), (CL_SUCCESS, 1));
    assert_eq!(count(0).0, CL_INVALID_DEVICE_TYPE);
    assert_eq!(count(1 << 40).0, CL_INVALID_DEVICE_TYPE);
    // Asking for fewer entries than there are devices fills only those.
    let mut one = [null_mut(); 1];
    ok(unsafe { clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, one.as_mut_ptr(), null_mut()) });
    assert_eq!(one[0], ids[0]);
    assert_eq!(unsafe { clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, one.as_mut_ptr(), null_mut()) }, CL_INVALID_VALUE);
    assert_eq!(unsafe { clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, null_mut(), null_mut()) }, CL_INVALID_VALUE);
}

#[test]
fn every_device_query_follows_the_protocol() {
    let d = device();
    for &(name, ty) in DEVICE_QUERIES {
        check_protocol(name, ty, &|s, v, r| unsafe { clGetDeviceInfo(d, name, s, v, r) });
    }
    for bad in [0u32, 0x0FFF, 0x1073, 0x2000, 0xFFFF_FFFF] {
        assert_eq!(unsafe { clGetDeviceInfo(d, bad, 0, null_mut(), null_mut()) }, CL_INVALID_VALUE, "param {bad:#x}");
    }
}

fn device_string(param: cl_device_info) -> String {
    let d = device();
    info_string(|s, v, r| unsafe { clGetDeviceInfo(d, param, s, v, r) })
}

fn device_array<T: Copy>(param: cl_device_info) -> Vec<T> {
    let d = device();
    info_array(|s, v, r| unsafe { clGetDeviceInfo(d, param, s, v, r) })
}

#[test]
fn device_answers_agree_and_meet_the_minimums() {
    let dims: cl_uint = device_info(CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS);
    assert!(dims >= 3);
    let item_sizes: Vec<usize> = device_array(CL_DEVICE_MAX_WORK_ITEM_SIZES);
    assert_eq!(item_sizes.len(), dims as usize);
    let group: usize = device_info(CL_DEVICE_MAX_WORK_GROUP_SIZE);
    assert!(group >= 1 && item_sizes.iter().all(|&s| s >= 1 && s <= group), "{item_sizes:?} vs {group}");
    let global: cl_ulong = device_info(CL_DEVICE_GLOBAL_MEM_SIZE);
    let alloc: cl_ulong = device_info(CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    assert!(alloc <= global && alloc >= (global / 4).clamp(32 << 20, 1 << 30), "alloc {alloc} global {global}");
    let bits: cl_uint = device_info(CL_DEVICE_ADDRESS_BITS);
    assert!(bits == 32 || bits == 64);
    assert!(u128::from(alloc) <= 1u128 << bits);
    let align: cl_uint = device_info(CL_DEVICE_MEM_BASE_ADDR_ALIGN);
    assert!(align >= 1024 && align.is_power_of_two(), "base alignment {align} bits covers long16");
    let fp: cl_ulong = device_info(CL_DEVICE_SINGLE_FP_CONFIG);
    assert_eq!(fp & (CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN), CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN);
    let queue_props: cl_ulong = device_info(CL_DEVICE_QUEUE_ON_HOST_PROPERTIES);
    assert_ne!(queue_props & CL_QUEUE_PROFILING_ENABLE, 0, "profiling is mandatory");
    assert!(device_info::<usize>(CL_DEVICE_MAX_PARAMETER_SIZE) >= 1024);
    assert!(device_info::<cl_ulong>(CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE) >= 64 << 10);
    assert!(device_info::<cl_uint>(CL_DEVICE_MAX_CONSTANT_ARGS) >= 8);
    assert!(device_info::<cl_ulong>(CL_DEVICE_LOCAL_MEM_SIZE) >= 32 << 10);
    assert!(device_info::<cl_uint>(CL_DEVICE_MAX_COMPUTE_UNITS) >= 1);
    assert!(device_info::<usize>(CL_DEVICE_PROFILING_TIMER_RESOLUTION) >= 1);
    assert!(device_info::<usize>(CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE) >= 1);
    assert_eq!(device_info::<cl_bool>(CL_DEVICE_AVAILABLE), CL_TRUE);
    assert_eq!(device_info::<cl_bool>(CL_DEVICE_COMPILER_AVAILABLE), CL_TRUE);
    assert_eq!(device_info::<cl_bool>(CL_DEVICE_ENDIAN_LITTLE), CL_TRUE);
    assert_eq!(device_info::<cl_ulong>(CL_DEVICE_EXECUTION_CAPABILITIES) & CL_EXEC_KERNEL, CL_EXEC_KERNEL);
    assert_eq!(device_info::<cl_uint>(CL_DEVICE_REFERENCE_COUNT), 1, "root device");
    assert!(device_info::<*mut c_void>(CL_DEVICE_PARENT_DEVICE).is_null());
    assert_eq!(device_info::<cl_platform_id>(CL_DEVICE_PLATFORM), platform());
    // Without images every image limit is zero.
    if device_info::<cl_bool>(CL_DEVICE_IMAGE_SUPPORT) == CL_FALSE {
        assert_eq!(device_info::<usize>(CL_DEVICE_IMAGE2D_MAX_WIDTH), 0);
        assert_eq!(device_info::<cl_uint>(CL_DEVICE_MAX_READ_IMAGE_ARGS), 0);
        assert_eq!(device_info::<cl_uint>(CL_DEVICE_MAX_SAMPLERS), 0);
    }
    // Versions: the string and the number say the same.
    assert!(device_string(CL_DEVICE_VERSION).starts_with("OpenCL 3.0 "), "{}", device_string(CL_DEVICE_VERSION));
    assert_eq!(device_info::<cl_uint>(CL_DEVICE_NUMERIC_VERSION), 3 << 22);
    assert_eq!(device_string(CL_DEVICE_PROFILE), "FULL_PROFILE");
    assert!(device_string(CL_DEVICE_OPENCL_C_VERSION).starts_with("OpenCL C 1."));
    let c_versions: Vec<cl_name_version> = device_array(CL_DEVICE_OPENCL_C_ALL_VERSIONS);
    for (major, minor) in [(1, 0), (1, 1), (1, 2)] {
        let v = (major << 22) | (minor << 12);
        assert!(c_versions.iter().any(|n| n.name() == "OpenCL C" && n.version == v), "OpenCL C {major}.{minor}");
    }
    // Extensions: the string and the versioned list name the same ones.
    let exts = device_string(CL_DEVICE_EXTENSIONS);
    let versioned: Vec<cl_name_version> = device_array(CL_DEVICE_EXTENSIONS_WITH_VERSION);
    let names: Vec<String> = versioned.iter().map(cl_name_version::name).collect();
    assert_eq!(exts.split_whitespace().collect::<Vec<_>>(), names);
    // Double precision: the extension, the OpenCL C 3.0 feature, the fp config and the vector
    // widths agree; with it, the configuration is at least OpenCL 3.0's minimum.
    let fp64 = names.iter().any(|n| n == "cl_khr_fp64");
    let features: Vec<cl_name_version> = device_array(CL_DEVICE_OPENCL_C_FEATURES);
    assert_eq!(features.iter().any(|f| f.name() == "__opencl_c_fp64"), fp64);
    let double: cl_ulong = device_info(CL_DEVICE_DOUBLE_FP_CONFIG);
    // OpenCL 1.x's minimum (with the directed rounding modes, which the explicit conversions
    // give exactly), which the CTS asks of every version: see Device::double_fp_config.
    let minimum = CL_FP_FMA | CL_FP_ROUND_TO_NEAREST | CL_FP_ROUND_TO_ZERO | CL_FP_ROUND_TO_INF | CL_FP_INF_NAN | CL_FP_DENORM;
    assert_eq!(double, if fp64 { minimum } else { 0 }, "double fp config {double:#x}");
    for width in [CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE, CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE] {
        assert_eq!(device_info::<cl_uint>(width) != 0, fp64, "vector width {width:#x}");
    }
    // C11 atomics: each reported order and scope is an OpenCL C feature and back, above the
    // minimum OpenCL 3.0 requires; fences can do what atomics can, and the work-item scope.
    let memory: cl_ulong = device_info(CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES);
    let fence: cl_ulong = device_info(CL_DEVICE_ATOMIC_FENCE_CAPABILITIES);
    let (relaxed, acq_rel, seq_cst, work_item, work_group, device, all_devices) = (1, 2, 4, 8, 16, 32, 64);
    for (bit, feature) in [
        (acq_rel, "__opencl_c_atomic_order_acq_rel"),
        (seq_cst, "__opencl_c_atomic_order_seq_cst"),
        (device, "__opencl_c_atomic_scope_device"),
        (all_devices, "__opencl_c_atomic_scope_all_devices"),
    ] {
        assert_eq!(memory & bit != 0, features.iter().any(|f| f.name() == feature), "{feature}");
    }
    assert_eq!(memory & (relaxed | work_group), relaxed | work_group, "memory {memory:#x}");
    assert_eq!(fence & (memory | acq_rel | work_item), memory | acq_rel | work_item, "fence {fence:#x}");
    // An unpartitionable device reports a single 0.
    let partitions: Vec<isize> = device_array(CL_DEVICE_PARTITION_PROPERTIES);
    if device_info::<cl_uint>(CL_DEVICE_PARTITION_MAX_SUB_DEVICES) == 0 {
        assert_eq!(partitions, [0]);
    }
    let conformance = device_string(CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED);
    assert!(conformance.starts_with('v') && conformance.len() == 14, "{conformance}");
    assert!(!device_string(CL_DEVICE_NAME).is_empty());
}

#[test]
fn device_uuid_extension_queries() {
    const CL_DEVICE_UUID_KHR: cl_uint = 0x106A;
    const CL_DRIVER_UUID_KHR: cl_uint = 0x106B;
    const CL_DEVICE_LUID_VALID_KHR: cl_uint = 0x106C;
    const CL_DEVICE_LUID_KHR: cl_uint = 0x106D;
    const CL_DEVICE_NODE_MASK_KHR: cl_uint = 0x106E;
    if !device_string(CL_DEVICE_EXTENSIONS).split_whitespace().any(|e| e == "cl_khr_device_uuid") {
        return;
    }
    let d = device();
    for (name, ty) in [(CL_DEVICE_UUID_KHR, Ty::Bytes(16)), (CL_DRIVER_UUID_KHR, Ty::Bytes(16)), (CL_DEVICE_LUID_VALID_KHR, Ty::Bool), (CL_DEVICE_LUID_KHR, Ty::Bytes(8)), (CL_DEVICE_NODE_MASK_KHR, Ty::U32)] {
        check_protocol(name, ty, &|s, v, r| unsafe { clGetDeviceInfo(d, name, s, v, r) });
    }
}

#[test]
fn root_device_retain_and_release() {
    let d = device();
    ok(unsafe { clRetainDevice(d) });
    ok(unsafe { clReleaseDevice(d) });
    assert_eq!(device_info::<cl_uint>(CL_DEVICE_REFERENCE_COUNT), 1);
}

#[test]
fn sub_devices_are_not_supported() {
    let d = device();
    let props = [CL_DEVICE_PARTITION_EQUALLY as isize, 1, 0];
    let mut n = 0;
    assert_eq!(unsafe { clCreateSubDevices(d, props.as_ptr(), 0, null_mut(), &mut n) }, CL_INVALID_VALUE);
}

/// A CPU device (lavapipe) reports the host CPU's clock: cpufreq's maximum where the kernel
/// exposes it, else the clock `/proc/cpuinfo` shows.
#[test]
fn a_cpu_device_reports_the_host_clock() {
    if device_info::<cl_device_type>(CL_DEVICE_TYPE) != CL_DEVICE_TYPE_CPU {
        return;
    }
    let max_khz = std::fs::read_to_string("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq").ok().and_then(|s| s.trim().parse::<u32>().ok());
    let shown = || -> Option<u32> {
        let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
        let mhz: f64 = info.lines().find(|l| l.starts_with("cpu MHz"))?.split(':').nth(1)?.trim().parse().ok()?;
        Some(mhz.round() as u32)
    };
    let want = max_khz.map(|k| k / 1000).or_else(shown).unwrap_or(0);
    assert_eq!(device_info::<cl_uint>(CL_DEVICE_MAX_CLOCK_FREQUENCY), want);
}
