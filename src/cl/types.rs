//! OpenCL types and constants: cl-sys, plus what it lacks (OpenCL 2.2/3.0, cl_khr_icd).
#![allow(non_camel_case_types)]

pub use cl_sys::*;
pub use std::ffi::c_void;

pub type cl_mem_properties = cl_ulong;
pub type cl_version = cl_uint;
pub type cl_device_atomic_capabilities = cl_bitfield;
pub type cl_device_device_enqueue_capabilities = cl_bitfield;
pub type cl_command_queue_info_ext = cl_uint;

pub const CL_NAME_VERSION_MAX_NAME_SIZE: usize = 64;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct cl_name_version {
    pub version: cl_version,
    pub name: [u8; CL_NAME_VERSION_MAX_NAME_SIZE],
}

pub type ContextCallback =
    Option<unsafe extern "system" fn(*const std::ffi::c_char, *const c_void, usize, *mut c_void)>;
pub type ObjectCallback<H> = Option<unsafe extern "system" fn(H, *mut c_void)>;
pub type EventCallback = Option<unsafe extern "system" fn(cl_event, cl_int, *mut c_void)>;

// cl_khr_icd
pub const CL_PLATFORM_ICD_SUFFIX_KHR: cl_uint = 0x0920;
pub const CL_ICD2_TAG_KHR: isize = 0x4F50_454E_434C_3331_u64 as isize;

// cl_khr_egl_image
pub const CL_INVALID_EGL_OBJECT_KHR: cl_int = -1093;
pub const CL_COMMAND_ACQUIRE_EGL_OBJECTS_KHR: cl_command_type = 0x202D;
pub const CL_COMMAND_RELEASE_EGL_OBJECTS_KHR: cl_command_type = 0x202E;

// cl_ext_float_atomics
pub type cl_device_fp_atomic_capabilities_ext = cl_bitfield;
pub const CL_DEVICE_SINGLE_FP_ATOMIC_CAPABILITIES_EXT: cl_uint = 0x4231;
pub const CL_DEVICE_DOUBLE_FP_ATOMIC_CAPABILITIES_EXT: cl_uint = 0x4232;
pub const CL_DEVICE_HALF_FP_ATOMIC_CAPABILITIES_EXT: cl_uint = 0x4233;
pub const CL_DEVICE_GLOBAL_FP_ATOMIC_LOAD_STORE_EXT: cl_device_fp_atomic_capabilities_ext = 1 << 0;
pub const CL_DEVICE_GLOBAL_FP_ATOMIC_ADD_EXT: cl_device_fp_atomic_capabilities_ext = 1 << 1;
pub const CL_DEVICE_GLOBAL_FP_ATOMIC_MIN_MAX_EXT: cl_device_fp_atomic_capabilities_ext = 1 << 2;
pub const CL_DEVICE_LOCAL_FP_ATOMIC_LOAD_STORE_EXT: cl_device_fp_atomic_capabilities_ext = 1 << 16;
pub const CL_DEVICE_LOCAL_FP_ATOMIC_ADD_EXT: cl_device_fp_atomic_capabilities_ext = 1 << 17;
pub const CL_DEVICE_LOCAL_FP_ATOMIC_MIN_MAX_EXT: cl_device_fp_atomic_capabilities_ext = 1 << 18;

// OpenCL 2.1 / 2.2 / 3.0
pub const CL_PLATFORM_NUMERIC_VERSION: cl_uint = 0x0906;
pub const CL_PLATFORM_EXTENSIONS_WITH_VERSION: cl_uint = 0x0907;
pub const CL_DEVICE_NUMERIC_VERSION: cl_uint = 0x105E;
pub const CL_DEVICE_EXTENSIONS_WITH_VERSION: cl_uint = 0x1060;
pub const CL_DEVICE_ILS_WITH_VERSION: cl_uint = 0x1061;
pub const CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION: cl_uint = 0x1062;
pub const CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES: cl_uint = 0x1063;
pub const CL_DEVICE_ATOMIC_FENCE_CAPABILITIES: cl_uint = 0x1064;
pub const CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT: cl_uint = 0x1065;
pub const CL_DEVICE_OPENCL_C_ALL_VERSIONS: cl_uint = 0x1066;
pub const CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE: cl_uint = 0x1067;
pub const CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT: cl_uint = 0x1068;
pub const CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT: cl_uint = 0x1069;
pub const CL_DEVICE_OPENCL_C_FEATURES: cl_uint = 0x106F;
pub const CL_DEVICE_OPENCL_C_NUMERIC_VERSION_KHR: cl_uint = 0x105F;
pub const CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES: cl_uint = 0x1070;
pub const CL_DEVICE_PIPE_SUPPORT: cl_uint = 0x1071;
pub const CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED: cl_uint = 0x1072;
pub const CL_DEVICE_UUID_KHR: cl_uint = 0x106A;
pub const CL_DRIVER_UUID_KHR: cl_uint = 0x106B;
pub const CL_DEVICE_LUID_VALID_KHR: cl_uint = 0x106C;
pub const CL_DEVICE_LUID_KHR: cl_uint = 0x106D;
pub const CL_DEVICE_NODE_MASK_KHR: cl_uint = 0x106E;
pub const CL_UUID_SIZE_KHR: usize = 16;
pub const CL_LUID_SIZE_KHR: usize = 8;
pub const CL_DEVICE_PCI_BUS_INFO_KHR: cl_uint = 0x410F;
pub const CL_QUEUE_PROPERTIES_ARRAY: cl_uint = 0x1098;
pub const CL_MEM_PROPERTIES: cl_uint = 0x110A;
pub const CL_PIPE_PROPERTIES: cl_uint = 0x1122;
pub const CL_SAMPLER_PROPERTIES: cl_uint = 0x1158;
pub const CL_MEM_KERNEL_READ_AND_WRITE: cl_mem_flags = 1 << 12;
pub const CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT: cl_uint = 0x116A;
pub const CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT: cl_uint = 0x116B;
pub const CL_COMMAND_SVM_MIGRATE_MEM: cl_uint = 0x120E;
pub const CL_INVALID_SPEC_ID: cl_int = -71;
pub const CL_MAX_SIZE_RESTRICTION_EXCEEDED: cl_int = -72;

pub const CL_DEVICE_ATOMIC_ORDER_RELAXED: cl_bitfield = 1 << 0;
pub const CL_DEVICE_ATOMIC_ORDER_ACQ_REL: cl_bitfield = 1 << 1;
pub const CL_DEVICE_ATOMIC_ORDER_SEQ_CST: cl_bitfield = 1 << 2;
pub const CL_DEVICE_ATOMIC_SCOPE_WORK_ITEM: cl_bitfield = 1 << 3;
pub const CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP: cl_bitfield = 1 << 4;
pub const CL_DEVICE_ATOMIC_SCOPE_DEVICE: cl_bitfield = 1 << 5;

/// `CL_MAKE_VERSION(major, minor, patch)`.
pub const fn cl_make_version(major: u32, minor: u32, patch: u32) -> cl_version {
    (major << 22) | (minor << 12) | patch
}
