//! An OpenCL device: a Vulkan physical device opened for compute, with the limits OpenCL reports
//! derived once from the Vulkan properties.

use crate::cl::object::{object, Header, Kind};
use crate::cl::types::*;
use crate::compiler::Target;
use crate::vk::device::{BindLimits, Gpu};
use crate::vk::instance::Instance;
use crate::vk::vk;
use super::builtins::Builtins;
use std::sync::{Arc, Mutex, OnceLock};

#[repr(C)]
pub struct Device {
    header: Header,
    pub gpu: Arc<Gpu>,
    pub device_type: cl_device_type,
    pub name: String,
    pub compute_units: u32,
    pub global_mem_size: u64,
    pub max_alloc_size: u64,
    pub max_constant_args: u32,
    /// `CL_DEVICE_MEM_BASE_ADDR_ALIGN` in bytes: sub-buffer origins must be multiples of it.
    pub base_align: u64,
    pub target: Target,
    /// Serialises the scheduling of every queue of this device (they share one Vulkan queue).
    pub sched: Mutex<()>,
    builtins: OnceLock<Option<Builtins>>,
    /// `CL_DEVICE_MAX_CLOCK_FREQUENCY`, found on first query (NVML takes tens of ms to start).
    clock_mhz: OnceLock<u32>,
}
object!(Device, Device, CL_INVALID_DEVICE);

/// What images of a device may be (see [`Device::image_limits`]).
#[derive(Default)]
pub struct ImageLimits {
    /// `CL_DEVICE_IMAGE2D_MAX_WIDTH`, also the limit of 1D widths.
    pub width: usize,
    pub height: usize,
    /// `CL_DEVICE_IMAGE3D_MAX_WIDTH`, `_HEIGHT` and `_DEPTH`.
    pub size_3d: usize,
    /// `CL_DEVICE_IMAGE_MAX_BUFFER_SIZE` in texels.
    pub buffer: usize,
    pub array: usize,
    /// Image arguments a kernel may take (each a descriptor).
    pub read_args: u32,
    pub write_args: u32,
    /// `CL_DEVICE_MAX_SAMPLERS`: samplers are value words, not descriptors; the OpenCL minimum.
    pub samplers: u32,
}


/// Bytes of the largest OpenCL C type, `long16`: the minimum base alignment.
const LARGEST_TYPE: u64 = 128;

impl Device {
    /// The device was lost (or a kernel ran past the timeout): its commands fail.
    pub fn is_lost(&self) -> bool {
        self.gpu.is_lost()
    }

    pub fn open(instance: &Instance, physical: vk::PhysicalDevice) -> Result<Device, String> {
        let gpu = Gpu::open(instance, physical)?;
        let p = &gpu.props;
        let l = p.limits();
        let device_type = match p.base.device_type {
            vk::PhysicalDeviceType::CPU => CL_DEVICE_TYPE_CPU,
            _ => CL_DEVICE_TYPE_GPU,
        };
        let global_mem_size = p.device_local_heap();
        // 32-bit addresses (CL_DEVICE_ADDRESS_BITS): no single buffer may exceed 4 GiB.
        let max_alloc_size = p.max_memory_allocation_size.min(p.max_buffer_size).min(global_mem_size).min(u32::MAX as u64);
        let compute_units = match (p.sm_count, device_type) {
            (Some(n), _) => n,
            (None, CL_DEVICE_TYPE_CPU) => std::thread::available_parallelism().map_or(1, |n| n.get() as u32),
            _ => 1,
        };
        // One uniform buffer stays free for value arguments that overflow the push constants.
        let max_constant_args = l.max_per_stage_descriptor_uniform_buffers.saturating_sub(1).min(15);
        let target = Target {
            address_bits: if gpu.features.int64 { 64 } else { 32 },
            int64: gpu.features.int64,
            int64_atomics: gpu.features.int64 && gpu.features.int64_atomics,
            int16: gpu.features.int16,
            // The software math for double works on its bits as 64-bit integers.
            fp64: gpu.features.fp64 && gpu.features.int64,
            // `half` computes in float registers, every result rounded to half, and is kept
            // in memory as its bits: it needs nothing of the device (docs/compiler.md, "half").
            fp16: true,
            storage_8bit: gpu.features.storage_8bit,
            storage_16bit: gpu.features.storage_16bit,
            max_push_constants_size: l.max_push_constants_size,
            max_constant_args,
            max_constant_buffer_size: l.max_uniform_buffer_range as u64,
            max_uniform_buffer_range: l.max_uniform_buffer_range as u64,
            max_work_group_size: l.max_compute_work_group_invocations,
            max_work_item_sizes: l.max_compute_work_group_size,
            local_mem_size: l.max_compute_shared_memory_size as u64,
            subgroup_size: p.subgroup_size,
            subgroups: p.subgroup_ops && gpu.features.subgroup_extended_types,
            images: gpu.features.image_write_without_format,
            opencl_c_version: 300,
            clamp_array_indices: device_type == CL_DEVICE_TYPE_CPU,
            ordering_by_rmw: gpu.props.driver_id == vk::DriverId::MESA_LLVMPIPE,
            preserve_signed_zeros: gpu.props.signed_zero_preserve,
            fused_fma: gpu.props.driver_id == vk::DriverId::NVIDIA_PROPRIETARY,
            guard_endless_loops: gpu.props.driver_id == vk::DriverId::MESA_LLVMPIPE,
            no_signed_wrap: gpu.props.driver_id == vk::DriverId::NVIDIA_PROPRIETARY,
        };
        // Sub-buffers are bound as storage and uniform buffers, and images over them as texel
        // buffers, from their origin.
        let base_align = (l.min_storage_buffer_offset_alignment).max(l.min_uniform_buffer_offset_alignment).max(l.min_texel_buffer_offset_alignment).max(LARGEST_TYPE);
        Ok(Device {
            header: Header::new(Kind::Device),
            name: p.name(),
            gpu,
            device_type,
            compute_units,
            global_mem_size,
            max_alloc_size,
            max_constant_args,
            base_align,
            target,
            sched: Mutex::new(()),
            builtins: OnceLock::new(),
            clock_mhz: OnceLock::new(),
        })
    }

    /// Sort key: discrete GPUs first, CPUs (lavapipe) last.
    pub fn rank(&self) -> u32 {
        match self.gpu.props.base.device_type {
            vk::PhysicalDeviceType::DISCRETE_GPU => 0,
            vk::PhysicalDeviceType::INTEGRATED_GPU => 1,
            vk::PhysicalDeviceType::VIRTUAL_GPU => 2,
            vk::PhysicalDeviceType::CPU => 4,
            _ => 3,
        }
    }

    /// `CL_DEVICE_MAX_CLOCK_FREQUENCY` in MHz, 0 where unknown (see `frequency.rs`).
    pub fn max_clock_mhz(&self) -> u32 {
        *self.clock_mhz.get_or_init(|| {
            let known = if self.device_type == CL_DEVICE_TYPE_CPU {
                super::frequency::cpu_mhz()
            } else if self.gpu.props.driver_id == vk::DriverId::NVIDIA_PROPRIETARY {
                let p = self.gpu.props.pci_bus.as_ref();
                p.and_then(|p| super::frequency::nvidia_gpu_mhz([p.pci_domain, p.pci_bus, p.pci_device, p.pci_function]))
            } else {
                None
            };
            known.unwrap_or(0)
        })
    }

    /// The runtime's own kernels, compiled on first use.
    pub fn builtins(&self) -> Option<&Builtins> {
        self.builtins.get_or_init(|| Builtins::new(self)).as_ref()
    }

    pub fn limits(&self) -> &vk::PhysicalDeviceLimits {
        self.gpu.props.limits()
    }

    /// `CL_DEVICE_SVM_CAPABILITIES`: coarse-grain buffers (`core::svm`), where pointers are
    /// 8 bytes as the host's are.
    pub fn svm_capabilities(&self) -> cl_device_svm_capabilities {
        if self.target.address_bits == 64 { CL_DEVICE_SVM_COARSE_GRAIN_BUFFER } else { 0 }
    }

    /// `CL_DEVICE_IMAGE_SUPPORT`: kernels can write images (see `Target::images`).
    pub fn image_support(&self) -> bool {
        self.target.images
    }

    /// The image limits `clGetDeviceInfo` reports: 0 without image support, as OpenCL asks.
    pub fn reported_image_limits(&self) -> ImageLimits {
        if self.image_support() {
            self.image_limits()
        } else {
            ImageLimits::default()
        }
    }

    /// The limits of images, from Vulkan's (what image creation checks).
    pub fn image_limits(&self) -> ImageLimits {
        let l = self.limits();
        // OpenCL's minimums (128 read, 64 write), within what one stage binds beside a few
        // buffers, in a plain layout or one for update-after-bind pools (vk::pipeline).
        let (plain, after_bind) = (self.gpu.props.bind_limits, self.gpu.props.after_bind_limits);
        let args = |kind: fn(&BindLimits) -> u32| [plain, after_bind].iter().map(|b| kind(b).min(b.resources.saturating_sub(8))).max().unwrap_or(0);
        ImageLimits {
            // 1D images share the 2D width limit in OpenCL.
            width: l.max_image_dimension1_d.min(l.max_image_dimension2_d) as usize,
            height: l.max_image_dimension2_d as usize,
            size_3d: l.max_image_dimension3_d as usize,
            buffer: l.max_texel_buffer_elements as usize,
            array: l.max_image_array_layers as usize,
            read_args: args(|b| b.sampled_images).min(128),
            write_args: args(|b| b.storage_images).min(64),
            samplers: 16,
        }
    }

    /// Extensions with their versions; the compiler's predefined macros follow the same flags.
    pub fn extensions(&self) -> Vec<(&'static str, cl_version)> {
        let v1 = cl_make_version(1, 0, 0);
        let mut list = vec![
            ("cl_khr_icd", cl_make_version(2, 0, 0)),
            ("cl_khr_byte_addressable_store", v1),
            ("cl_khr_global_int32_base_atomics", v1),
            ("cl_khr_global_int32_extended_atomics", v1),
            ("cl_khr_local_int32_base_atomics", v1),
            ("cl_khr_local_int32_extended_atomics", v1),
            ("cl_khr_extended_versioning", v1),
            ("cl_khr_device_uuid", v1),
        ];
        if self.gpu.props.pci_bus.is_some() {
            list.push(("cl_khr_pci_bus_info", v1));
        }
        if self.target.int64_atomics {
            list.extend([("cl_khr_int64_base_atomics", v1), ("cl_khr_int64_extended_atomics", v1)]);
        }
        if self.target.fp64 {
            list.push(("cl_khr_fp64", v1));
        }
        if self.target.fp16 {
            list.push(("cl_khr_fp16", v1));
        }
        list.push(("cl_ext_float_atomics", v1));
        if self.target.subgroups {
            list.extend(crate::compiler::preprocess::SUBGROUP_EXTENSIONS.map(|e| (e, v1)));
        }
        if self.image_support() {
            list.extend([("cl_khr_3d_image_writes", v1), ("cl_khr_image2d_from_buffer", v1)]);
        }
        list
    }

    /// cl_ext_float_atomics: what atomics do on `float` (`double: false`) or `double` in
    /// `__global` and `__local` memory. Loads, stores, add, sub, min and max, the arithmetic
    /// by compare-exchange loops on the bits; `double` where 64-bit atomics exist. No `half`
    /// atomics (there is no `atomic_half`).
    pub fn fp_atomic_capabilities(&self, double: bool) -> cl_device_fp_atomic_capabilities_ext {
        if double && !(self.target.fp64 && self.target.int64_atomics) {
            return 0;
        }
        CL_DEVICE_GLOBAL_FP_ATOMIC_LOAD_STORE_EXT
            | CL_DEVICE_GLOBAL_FP_ATOMIC_ADD_EXT
            | CL_DEVICE_GLOBAL_FP_ATOMIC_MIN_MAX_EXT
            | CL_DEVICE_LOCAL_FP_ATOMIC_LOAD_STORE_EXT
            | CL_DEVICE_LOCAL_FP_ATOMIC_ADD_EXT
            | CL_DEVICE_LOCAL_FP_ATOMIC_MIN_MAX_EXT
    }

    /// `CL_DEVICE_SINGLE_FP_CONFIG`: OpenCL's minimum, round to nearest and infinities and
    /// NaNs, and subnormals where the driver keeps them. Vulkan promises neither keeping nor
    /// flushing them on our devices (`shaderDenormPreserveFloat32` and
    /// `shaderDenormFlushToZeroFloat32` are false on both), and naga cannot ask for either:
    /// lavapipe computes on the host's vector units, which keep them (a product of
    /// 0x1.161d46p-38 and -0x1.e9b178p-106 is -0x1.08p-143 there, CTS `test_contractions`),
    /// while NVIDIA's driver flushes them, as NVIDIA's own OpenCL reports.
    pub fn single_fp_config(&self) -> cl_device_fp_config {
        let kept = if self.gpu.props.driver_id == vk::DriverId::MESA_LLVMPIPE { CL_FP_DENORM } else { 0 };
        CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN | kept
    }

    /// `CL_DEVICE_DOUBLE_FP_CONFIG`: 0 without `double`; with it OpenCL 1.x's minimum, which
    /// the CTS asks of every version (`min_max_double_fp_config`, `math_brute_force`).
    /// Arithmetic rounds to nearest even, as OpenCL C requires, and no kernel can select
    /// another mode for it; the directed modes are reached only through the explicit
    /// conversions (`convert_double_rtz(long)`, `convert_float_rtp(double)`, ...), which are
    /// exact in every mode, and that is what ROUND_TO_ZERO | ROUND_TO_INF report (reasoning in
    /// docs/compiler.md, "Floating-point configuration"). `fma` is computed exactly in
    /// software; subnormals are kept by the hardware, not asked for (naga cannot write
    /// `DenormPreserve`): measured on lavapipe's x86 doubles; NVIDIA's own OpenCL reports
    /// double denormals on the same GPUs.
    pub fn double_fp_config(&self) -> cl_device_fp_config {
        if !self.target.fp64 {
            return 0;
        }
        CL_FP_FMA | CL_FP_ROUND_TO_NEAREST | CL_FP_ROUND_TO_ZERO | CL_FP_ROUND_TO_INF | CL_FP_INF_NAN | CL_FP_DENORM
    }

    /// `CL_DEVICE_HALF_FP_CONFIG`: 0 without `half`. With it, halves compute in float, where
    /// every half (subnormals too) is a normal number and one rounding of a float result to
    /// half is correct for +, -, * and /; `fma` is correctly rounded through a round-to-odd
    /// float sum (docs/compiler.md, "half").
    pub fn half_fp_config(&self) -> cl_device_fp_config {
        if !self.target.fp16 {
            return 0;
        }
        CL_FP_FMA | CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN | CL_FP_DENORM
    }

    /// `CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE` (also what sema enforces).
    pub const MAX_GLOBAL_VARIABLE_SIZE: u64 = crate::compiler::MAX_GLOBAL_VARIABLE_SIZE;

    /// `CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES`: the orders and scopes of the C11 atomics
    /// (`sema/atomics.rs`; `docs/compiler.md`, "Atomics"). Acquire/release and seq_cst are
    /// fences around the relaxed atomic; the device scope is the scope of every atomic on a
    /// buffer. Not `ALL_DEVICES`: no SVM, and no wider scope in naga.
    pub const ATOMIC_MEMORY_CAPABILITIES: cl_bitfield = CL_DEVICE_ATOMIC_ORDER_RELAXED
        | CL_DEVICE_ATOMIC_ORDER_ACQ_REL
        | CL_DEVICE_ATOMIC_ORDER_SEQ_CST
        | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP
        | CL_DEVICE_ATOMIC_SCOPE_DEVICE;

    /// `CL_DEVICE_ATOMIC_FENCE_CAPABILITIES`: the same, and the work-item scope of
    /// `atomic_work_item_fence` (which orders nothing a work-item's program order does not).
    pub const ATOMIC_FENCE_CAPABILITIES: cl_bitfield = Self::ATOMIC_MEMORY_CAPABILITIES | CL_DEVICE_ATOMIC_SCOPE_WORK_ITEM;

    /// OpenCL C 3.0 optional features this device supports.
    pub fn c_features(&self) -> Vec<&'static str> {
        let mut list = Vec::new();
        if self.target.int64 {
            list.push("__opencl_c_int64");
        }
        if self.target.fp64 {
            list.push("__opencl_c_fp64");
        }
        list.push("__opencl_c_program_scope_global_variables");
        list.push("__opencl_c_generic_address_space");
        list.extend(crate::compiler::preprocess::ATOMIC_FEATURES);
        if self.target.subgroups {
            list.extend(crate::compiler::preprocess::SUBGROUP_FEATURES);
        }
        if self.image_support() {
            list.extend(crate::compiler::preprocess::IMAGE_FEATURES);
        }
        list
    }
}
