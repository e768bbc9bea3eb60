//! Images: OpenCL image formats as Vulkan formats, image memory objects, their transfer
//! commands, and the host-side conversion of fill colours to texels.
//!
//! An image's texels live in a Vulkan image (optimal tiling, always in the `GENERAL` layout),
//! except an `IMAGE1D_BUFFER` image's and a 2D image's made from a buffer, which are their
//! buffer's bytes (the 2D image's rows at its row pitch). Either way they are OpenCL's texels
//! byte for byte, so every copy is a byte copy.

use super::context::Context;
use super::device::Device;
use super::memory::{copy_bytes, copy_regions, fill_element, mapped, run_now, span, staging, HostPtr, Mapping, Mem, Rect};
use super::queue::{HostStep, Work};
use crate::cl::CLResult;
use crate::cl::object::{Header, Kind};
use crate::cl::types::*;
use crate::vk::batch::Batch;
use crate::vk::image::{self as vkimage, format_properties, Shape, TexelView};
use crate::compiler::{ImageAccess, ImageDim};
use crate::vk::memory::{Buffer, Placement};
use crate::vk::pipeline::Resource;
use crate::vk::vk;
use std::sync::{Arc, Mutex, OnceLock};

/// An OpenCL image format and the Vulkan format with the same bytes.
#[derive(Clone, Copy, Debug)]
pub struct Format {
    pub order: cl_channel_order,
    pub data_type: cl_channel_type,
    pub vk: vk::Format,
    /// The sampled view's swizzle for a channel order Vulkan lacks (such images are read-only).
    pub swizzle: Option<vk::ComponentMapping>,
    /// Bytes per texel.
    pub element: usize,
}

impl Format {
    /// An sRGB channel order (read-only: kernels do not write them).
    pub fn srgb(&self) -> bool {
        SRGB_ORDERS.contains(&self.order)
    }
}

/// Every channel order and data type ferrocl knows, in the order formats are listed.
pub const ORDERS: [cl_channel_order; 16] = [CL_RGBA, CL_BGRA, CL_ARGB, CL_ABGR, CL_R, CL_RG, CL_A, CL_RA, CL_INTENSITY, CL_LUMINANCE, CL_RGB, CL_RGBx, CL_sRGBA, CL_sBGRA, CL_sRGBx, CL_sRGB];

/// The sRGB channel orders: 8-bit unsigned normalized colour stored sRGB-encoded, read by
/// kernels as linear values.
const SRGB_ORDERS: [cl_channel_order; 4] = [CL_sRGBA, CL_sBGRA, CL_sRGBx, CL_sRGB];
pub const DATA_TYPES: [cl_channel_type; 15] = [
    CL_UNORM_INT8,
    CL_UNORM_INT16,
    CL_SNORM_INT8,
    CL_SNORM_INT16,
    CL_SIGNED_INT8,
    CL_SIGNED_INT16,
    CL_SIGNED_INT32,
    CL_UNSIGNED_INT8,
    CL_UNSIGNED_INT16,
    CL_UNSIGNED_INT32,
    CL_HALF_FLOAT,
    CL_FLOAT,
    CL_UNORM_SHORT_565,
    CL_UNORM_SHORT_555,
    CL_UNORM_INT_101010,
];

const PACKED: [cl_channel_type; 3] = [CL_UNORM_SHORT_565, CL_UNORM_SHORT_555, CL_UNORM_INT_101010];
const BYTE_TYPES: [cl_channel_type; 4] = [CL_UNORM_INT8, CL_SNORM_INT8, CL_SIGNED_INT8, CL_UNSIGNED_INT8];
const FLOAT_TYPES: [cl_channel_type; 6] = [CL_UNORM_INT8, CL_UNORM_INT16, CL_SNORM_INT8, CL_SNORM_INT16, CL_HALF_FLOAT, CL_FLOAT];

/// Whether the specification allows this order with this data type
/// (`CL_INVALID_IMAGE_FORMAT_DESCRIPTOR` otherwise), for the orders and types ferrocl knows.
fn valid_pair(order: cl_channel_order, data_type: cl_channel_type) -> bool {
    if !DATA_TYPES.contains(&data_type) {
        return false;
    }
    match order {
        _ if order == CL_RGB || order == CL_RGBx => PACKED.contains(&data_type),
        CL_BGRA | CL_ARGB | CL_ABGR => BYTE_TYPES.contains(&data_type),
        CL_INTENSITY | CL_LUMINANCE => FLOAT_TYPES.contains(&data_type),
        CL_R | CL_RG | CL_RA | CL_A | CL_RGBA => !PACKED.contains(&data_type),
        _ if SRGB_ORDERS.contains(&order) => data_type == CL_UNORM_INT8,
        _ => false,
    }
}

/// Bytes of one channel of a non-packed data type.
fn channel_bytes(data_type: cl_channel_type) -> usize {
    match data_type {
        CL_UNORM_INT8 | CL_SNORM_INT8 | CL_SIGNED_INT8 | CL_UNSIGNED_INT8 => 1,
        CL_UNORM_INT16 | CL_SNORM_INT16 | CL_SIGNED_INT16 | CL_UNSIGNED_INT16 | CL_HALF_FLOAT => 2,
        _ => 4,
    }
}

/// The Vulkan format of `channels` channels of `data_type`, in R, RG, RGBA order.
fn vk_format(channels: usize, data_type: cl_channel_type) -> vk::Format {
    use vk::Format as F;
    let table: [F; 3] = match data_type {
        CL_UNORM_INT8 => [F::R8_UNORM, F::R8G8_UNORM, F::R8G8B8A8_UNORM],
        CL_SNORM_INT8 => [F::R8_SNORM, F::R8G8_SNORM, F::R8G8B8A8_SNORM],
        CL_UNSIGNED_INT8 => [F::R8_UINT, F::R8G8_UINT, F::R8G8B8A8_UINT],
        CL_SIGNED_INT8 => [F::R8_SINT, F::R8G8_SINT, F::R8G8B8A8_SINT],
        CL_UNORM_INT16 => [F::R16_UNORM, F::R16G16_UNORM, F::R16G16B16A16_UNORM],
        CL_SNORM_INT16 => [F::R16_SNORM, F::R16G16_SNORM, F::R16G16B16A16_SNORM],
        CL_UNSIGNED_INT16 => [F::R16_UINT, F::R16G16_UINT, F::R16G16B16A16_UINT],
        CL_SIGNED_INT16 => [F::R16_SINT, F::R16G16_SINT, F::R16G16B16A16_SINT],
        CL_HALF_FLOAT => [F::R16_SFLOAT, F::R16G16_SFLOAT, F::R16G16B16A16_SFLOAT],
        CL_UNSIGNED_INT32 => [F::R32_UINT, F::R32G32_UINT, F::R32G32B32A32_UINT],
        CL_SIGNED_INT32 => [F::R32_SINT, F::R32G32_SINT, F::R32G32B32A32_SINT],
        _ => [F::R32_SFLOAT, F::R32G32_SFLOAT, F::R32G32B32A32_SFLOAT],
    };
    match channels {
        1 => table[0],
        2 => table[1],
        _ => table[2],
    }
}

fn swizzle(r: vk::ComponentSwizzle, g: vk::ComponentSwizzle, b: vk::ComponentSwizzle, a: vk::ComponentSwizzle) -> Option<vk::ComponentMapping> {
    Some(vk::ComponentMapping { r, g, b, a })
}

/// The format of an order and data type: `CL_INVALID_IMAGE_FORMAT_DESCRIPTOR` for a pair the
/// specification does not define.
pub fn format(order: cl_channel_order, data_type: cl_channel_type) -> CLResult<Format> {
    use vk::ComponentSwizzle as S;
    if !valid_pair(order, data_type) {
        return Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    }
    // 5- and 6-bit channels: NVIDIA's Vulkan reads them widened to 8 bits by bit replication
    // (5/31 reads as 41/255), not as OpenCL's exact values (CTS image_streams).
    if [CL_UNORM_SHORT_565, CL_UNORM_SHORT_555].contains(&data_type) {
        return Err(CL_IMAGE_FORMAT_NOT_SUPPORTED);
    }
    let plain = |channels: usize| (vk_format(channels, data_type), None, channels * channel_bytes(data_type));
    // Vulkan lacks these orders: a format of the same bytes, swizzled when kernels read it.
    let swizzled = |channels: usize, mapping| (vk_format(channels, data_type), mapping, channels * channel_bytes(data_type));
    let (vk, swizzle, element) = match order {
        CL_R => plain(1),
        CL_RG => plain(2),
        CL_RGBA => plain(4),
        CL_A => swizzled(1, swizzle(S::ZERO, S::ZERO, S::ZERO, S::R)),
        CL_INTENSITY => swizzled(1, swizzle(S::R, S::R, S::R, S::R)),
        CL_LUMINANCE => swizzled(1, swizzle(S::R, S::R, S::R, S::ONE)),
        CL_RA => swizzled(2, swizzle(S::R, S::ZERO, S::ZERO, S::G)),
        // Memory holds A, R, G, B: Vulkan's R is OpenCL's alpha.
        CL_ARGB => swizzled(4, swizzle(S::G, S::B, S::A, S::R)),
        CL_ABGR => swizzled(4, swizzle(S::A, S::B, S::G, S::R)),
        // Vulkan's sRGB formats decode to linear values when kernels read them (sampled
        // views decode every fetch, before the shader filters).
        o if o == CL_sRGBA => (vk::Format::R8G8B8A8_SRGB, None, 4),
        o if o == CL_sBGRA => (vk::Format::B8G8R8A8_SRGB, None, 4),
        o if o == CL_sRGBx => (vk::Format::R8G8B8A8_SRGB, swizzle(S::R, S::G, S::B, S::ONE), 4),
        o if o == CL_sRGB => (vk::Format::R8G8B8_SRGB, None, 3),
        CL_BGRA => {
            let vk = match data_type {
                CL_UNORM_INT8 => vk::Format::B8G8R8A8_UNORM,
                CL_SNORM_INT8 => vk::Format::B8G8R8A8_SNORM,
                CL_UNSIGNED_INT8 => vk::Format::B8G8R8A8_UINT,
                _ => vk::Format::B8G8R8A8_SINT,
            };
            (vk, None, 4)
        }
        // CL_RGB and CL_RGBx: x-10-10-10 only, the unused bits read as alpha 1.
        _ => (vk::Format::A2R10G10B10_UNORM_PACK32, swizzle(S::R, S::G, S::B, S::ONE), 4),
    };
    Ok(Format { order, data_type, vk, swizzle, element })
}

/// The Vulkan image type and view type of an OpenCL image type.
fn vk_type(ty: cl_mem_object_type) -> (vk::ImageType, vk::ImageViewType) {
    match ty {
        CL_MEM_OBJECT_IMAGE1D | CL_MEM_OBJECT_IMAGE1D_BUFFER => (vk::ImageType::TYPE_1D, vk::ImageViewType::TYPE_1D),
        CL_MEM_OBJECT_IMAGE1D_ARRAY => (vk::ImageType::TYPE_1D, vk::ImageViewType::TYPE_1D_ARRAY),
        CL_MEM_OBJECT_IMAGE2D => (vk::ImageType::TYPE_2D, vk::ImageViewType::TYPE_2D),
        CL_MEM_OBJECT_IMAGE2D_ARRAY => (vk::ImageType::TYPE_2D, vk::ImageViewType::TYPE_2D_ARRAY),
        _ => (vk::ImageType::TYPE_3D, vk::ImageViewType::TYPE_3D),
    }
}

/// Whether `device` holds images of `format` and type `ty` that kernels use as `flags` say:
/// read where Vulkan samples the format, written where it stores it (unswizzled formats only,
/// and only where kernels may write without a format); an `IMAGE1D_BUFFER` needs texel-buffer
/// support for both, since every buffer may be viewed either way, and cannot swizzle.
pub fn supported(device: &Device, format: &Format, ty: cl_mem_object_type, flags: cl_mem_flags) -> bool {
    let props = format_properties(&device.gpu, format.vk);
    // No kernel both reads and writes an image (`read_write` is not supported).
    if flags & CL_MEM_KERNEL_READ_AND_WRITE != 0 {
        return false;
    }
    let writes = flags & (CL_MEM_WRITE_ONLY | CL_MEM_READ_WRITE) != 0;
    // Kernels write sRGB images only with `cl_khr_srgb_image_writes`, not reported.
    if writes && (!device.gpu.features.image_write_without_format || format.srgb()) {
        return false;
    }
    if ty == CL_MEM_OBJECT_IMAGE1D_BUFFER {
        let texel = vk::FormatFeatureFlags::UNIFORM_TEXEL_BUFFER | vk::FormatFeatureFlags::STORAGE_TEXEL_BUFFER;
        return format.swizzle.is_none() && props.buffer_features.contains(texel);
    }
    let mut needed = vk::FormatFeatureFlags::SAMPLED_IMAGE | vk::FormatFeatureFlags::TRANSFER_SRC | vk::FormatFeatureFlags::TRANSFER_DST;
    if writes {
        if format.swizzle.is_some() {
            return false;
        }
        needed |= vk::FormatFeatureFlags::STORAGE_IMAGE;
    }
    props.optimal_tiling_features.contains(needed) && vkimage::can_make(&device.gpu, format.vk, vk_type(ty).0, writes)
}

/// The bytes an image of `format` and type `ty` may hold: Vulkan's `maxResourceSize` (NVIDIA
/// makes images larger than its 4 GiB `maxMemoryAllocationSize`, and OpenCL's image limits
/// reach past it: a 32768 × 32767 RGBA8 image in CTS `imagedim_pow2`); a buffer's for
/// `IMAGE1D_BUFFER`.
pub fn max_bytes(device: &Device, format: &Format, ty: cl_mem_object_type) -> u64 {
    if ty == CL_MEM_OBJECT_IMAGE1D_BUFFER {
        return device.max_alloc_size;
    }
    vkimage::max_resource_size(&device.gpu, format.vk, vk_type(ty).0, storable(device, format)).unwrap_or(0)
}

/// Whether a 2D image of `format` may be made from a buffer for use as `flags` say: its
/// texel-buffer view needs what an `IMAGE1D_BUFFER`'s does, of the format without its swizzle
/// (kernels arrange the channel orders Vulkan lacks, `lower/image.rs`, when they read: such
/// images are read-only); sRGB no (texel buffers do not decode it).
pub fn supported_from_buffer(device: &Device, format: &Format, flags: cl_mem_flags) -> bool {
    let writes = flags & (CL_MEM_WRITE_ONLY | CL_MEM_READ_WRITE) != 0;
    if format.srgb() || (format.swizzle.is_some() && writes) {
        return false;
    }
    supported(device, &Format { swizzle: None, ..*format }, CL_MEM_OBJECT_IMAGE1D_BUFFER, flags)
}

/// Kernels may write images of this format (it has a storage view).
fn storable(device: &Device, format: &Format) -> bool {
    format.swizzle.is_none() && !format.srgb() && format_properties(&device.gpu, format.vk).optimal_tiling_features.contains(vk::FormatFeatureFlags::STORAGE_IMAGE)
}

/// An image's description, as `clGetImageInfo` reports it.
#[derive(Clone, Copy, Debug)]
pub struct Desc {
    pub ty: cl_mem_object_type,
    pub width: usize,
    pub height: usize,
    pub depth: usize,
    pub array_size: usize,
    /// The pitches given with the initial host memory (`COPY_HOST_PTR` or `USE_HOST_PTR`),
    /// else of tightly packed texels.
    pub row_pitch: usize,
    pub slice_pitch: usize,
}

impl Desc {
    /// The extent as a box: width, rows, and slices (3D depth or array layers).
    fn extent(&self) -> [usize; 3] {
        [self.width, self.height, if self.layered() { self.array_size } else { self.depth }]
    }

    /// An origin and region in OpenCL's terms as a box whose third coordinate counts slices:
    /// a 1D array's layers are its second coordinate in OpenCL.
    pub fn boxed(&self, origin: [usize; 3], region: [usize; 3]) -> ([usize; 3], [usize; 3]) {
        match self.ty {
            CL_MEM_OBJECT_IMAGE1D_ARRAY => ([origin[0], 0, origin[1]], [region[0], 1, region[1]]),
            CL_MEM_OBJECT_IMAGE1D | CL_MEM_OBJECT_IMAGE1D_BUFFER => ([origin[0], 0, 0], [region[0], 1, 1]),
            CL_MEM_OBJECT_IMAGE2D => ([origin[0], origin[1], 0], [region[0], region[1], 1]),
            _ => (origin, region),
        }
    }

    /// Whether the third coordinate counts array layers rather than 3D depth.
    fn layered(&self) -> bool {
        matches!(self.ty, CL_MEM_OBJECT_IMAGE1D_ARRAY | CL_MEM_OBJECT_IMAGE2D_ARRAY)
    }
}

/// What makes a memory object an image.
pub struct Image {
    pub format: Format,
    pub desc: Desc,
    pub texels: Texels,
}

/// Where an image's texels live.
pub enum Texels {
    Image(Arc<vkimage::Image>),
    /// An `IMAGE1D_BUFFER`, or a 2D image made from a buffer (its rows at its row pitch): the
    /// texels are the memory object's buffer; kernels see it through a texel-buffer view made
    /// when first bound.
    Buffer(OnceLock<Arc<TexelView>>),
}

impl Image {
    /// A 2D image made from a buffer (`cl_khr_image2d_from_buffer`).
    pub fn from_buffer_2d(&self) -> bool {
        self.desc.ty == CL_MEM_OBJECT_IMAGE2D && matches!(self.texels, Texels::Buffer(_))
    }
}

/// One end of a copy: a box of an image's texels (whether its third coordinate counts layers,
/// origin, extent), tightly packed texels at an offset in a buffer, or rows of `[width,
/// height]` texels at an offset and row pitch in a buffer (a 2D image made from a buffer).
enum End<'a> {
    Image(&'a vkimage::Image, bool, [usize; 3], [usize; 3]),
    Linear(&'a Buffer, u64),
    Pitched(&'a Buffer, u64, u64, [usize; 2]),
}

impl Mem {
    /// A new image. `buffer`: the buffer of an `IMAGE1D_BUFFER`. `host_ptr` holds the initial
    /// texels at `desc`'s pitches when `flags` ask to copy or use it.
    pub fn new_image(context: Arc<Context>, flags: cl_mem_flags, format: Format, desc: Desc, host_ptr: *mut c_void, buffer: Option<Arc<Mem>>, properties: Vec<cl_mem_properties>) -> CLResult<Arc<Mem>> {
        let device = context.devices.first().ok_or(CL_INVALID_CONTEXT)?.clone();
        let extent = desc.extent();
        // A 2D image made from a buffer spans its rows at its pitch there.
        let size = match buffer.is_some() && desc.ty == CL_MEM_OBJECT_IMAGE2D {
            true => desc.row_pitch * desc.height,
            false => format.element * extent.iter().product::<usize>(),
        };
        let (texels, vk_buffer, base, host_ptr) = match &buffer {
            Some(b) => (Texels::Buffer(OnceLock::new()), b.buffer.clone(), b.base, b.host_ptr),
            None => {
                let image = Arc::new(new_vk_image(&device, &format, &desc)?);
                let initial = flags & (CL_MEM_COPY_HOST_PTR | CL_MEM_USE_HOST_PTR) != 0;
                // SAFETY: the API checked that host_ptr holds the image at desc's pitches.
                let upload = if initial { Some(unsafe { stage_in(&device, host_ptr.cast(), desc.row_pitch, desc.slice_pitch, format.element, extent)? }) } else { None };
                let ready = image.clone();
                run_now(&device, move |batch| {
                    // The transition's barrier orders the copy after it.
                    ready.to_general(batch.cmd());
                    if let Some(u) = upload {
                        ready.copy_from(batch.cmd(), &u, &[layered_copy(0, desc.layered(), [0; 3], extent)]);
                        batch.keep(u);
                    }
                    batch.keep(ready);
                    Ok(())
                })?;
                let kept = if flags & CL_MEM_USE_HOST_PTR != 0 { host_ptr } else { std::ptr::null_mut() };
                (Texels::Image(image), None, 0, kept)
            }
        };
        Ok(Arc::new(Mem {
            header: Header::new(Kind::Mem),
            context,
            flags,
            size,
            host_ptr,
            properties,
            parent: buffer,
            origin: 0,
            buffer: vk_buffer,
            image: Some(Image { format, desc, texels }),
            base,
            svm: false,
            maps: Mutex::default(),
            host_import: Default::default(),
            destructors: Mutex::default(),
        }))
    }

    /// The image part of an image memory object (the API passes buffers elsewhere).
    pub fn img(&self) -> CLResult<&Image> {
        self.image.as_ref().ok_or(CL_INVALID_MEM_OBJECT)
    }

    /// The copy end of a region of this image (`origin`, `region` in OpenCL's terms).
    fn end(&self, origin: [usize; 3], region: [usize; 3]) -> CLResult<End<'_>> {
        let image = self.img()?;
        let (o, e) = image.desc.boxed(origin, region);
        let element = image.format.element;
        Ok(match &image.texels {
            Texels::Image(i) => End::Image(i, image.desc.layered(), o, e),
            Texels::Buffer(_) if image.from_buffer_2d() => {
                let pitch = image.desc.row_pitch;
                End::Pitched(self.buf()?, self.base + (o[1] * pitch + o[0] * element) as u64, pitch as u64, [e[0], e[1]])
            }
            Texels::Buffer(_) => End::Linear(self.buf()?, self.base + (o[0] * element) as u64),
        })
    }

    /// `clEnqueueWriteImage`: the host texels are packed into staging now (the application's
    /// memory is free when the call returns) and copied into the image in queue order.
    ///
    /// # Safety
    /// `src` holds `region` at the host pitches, which the caller has checked.
    pub unsafe fn write_image(self: &Arc<Self>, device: &Arc<Device>, origin: [usize; 3], region: [usize; 3], host: Rect, src: *const u8) -> CLResult<Work> {
        let image = self.img()?;
        let (element, (_, extent)) = (image.format.element, image.desc.boxed(origin, region));
        let texels: usize = extent.iter().product();
        let upload = stage_in(device, src, host.row_pitch, host.slice_pitch, element, extent)?;
        let (mem, device) = (self.clone(), device.clone());
        Ok(Box::new(move |batch| {
            record_copy(&device, batch, End::Linear(&upload, 0), mem.end(origin, region)?, texels, element)?;
            batch.keep((upload, mem));
            Ok(None)
        }))
    }

    /// `clEnqueueReadImage`: copied into staging in queue order, then out to the application
    /// at its pitches on the completion thread.
    pub fn read_image(self: &Arc<Self>, device: &Arc<Device>, origin: [usize; 3], region: [usize; 3], host: Rect, dst: HostPtr) -> CLResult<Work> {
        let image = self.img()?;
        let (element, (_, extent)) = (image.format.element, image.desc.boxed(origin, region));
        let texels: usize = extent.iter().product();
        let readback = staging(device, element * texels, Placement::Readback)?;
        let (mem, device) = (self.clone(), device.clone());
        Ok(Box::new(move |batch| {
            record_copy(&device, batch, mem.end(origin, region)?, End::Linear(&readback, 0), texels, element)?;
            batch.keep(mem);
            let src = HostPtr(mapped(&readback)?);
            Ok(Some(Box::new(move || {
                // SAFETY: staging holds the packed box; the host rectangle was checked.
                unsafe { unpack(src.get(), dst.get(), host.row_pitch, host.slice_pitch, element, extent) };
                drop(readback);
            })))
        }))
    }

    /// `clEnqueueCopyImage` from `self` into `dst` (same format).
    pub fn copy_image(self: &Arc<Self>, device: &Arc<Device>, dst: &Arc<Mem>, src_origin: [usize; 3], dst_origin: [usize; 3], region: [usize; 3]) -> CLResult<Work> {
        let image = self.img()?;
        let (element, (_, extent)) = (image.format.element, image.desc.boxed(src_origin, region));
        let texels: usize = extent.iter().product();
        let (src, dst, device) = (self.clone(), dst.clone(), device.clone());
        Ok(Box::new(move |batch| {
            record_copy(&device, batch, src.end(src_origin, region)?, dst.end(dst_origin, region)?, texels, element)?;
            batch.keep((src, dst));
            Ok(None)
        }))
    }

    /// `clEnqueueCopyImageToBuffer` (`to_buffer`) or `clEnqueueCopyBufferToImage`: the buffer
    /// holds the region's texels tightly packed from `offset`.
    pub fn copy_with_buffer(self: &Arc<Self>, device: &Arc<Device>, buffer: &Arc<Mem>, offset: usize, origin: [usize; 3], region: [usize; 3], to_buffer: bool) -> CLResult<Work> {
        let image = self.img()?;
        let (element, (_, extent)) = (image.format.element, image.desc.boxed(origin, region));
        let texels: usize = extent.iter().product();
        let (mem, buffer, device) = (self.clone(), buffer.clone(), device.clone());
        Ok(Box::new(move |batch| {
            let linear = End::Linear(buffer.buf()?, buffer.base + offset as u64);
            let (src, dst) = if to_buffer { (mem.end(origin, region)?, linear) } else { (linear, mem.end(origin, region)?) };
            record_copy(&device, batch, src, dst, texels, element)?;
            batch.keep((mem, buffer));
            Ok(None)
        }))
    }

    /// `clEnqueueFillImage`: `texel` (the colour converted by [`texel`]) replicated in staging
    /// and copied into the region.
    pub fn fill_image(self: &Arc<Self>, device: &Arc<Device>, texel: &[u8], origin: [usize; 3], region: [usize; 3]) -> CLResult<Work> {
        let image = self.img()?;
        let (element, (_, extent)) = (image.format.element, image.desc.boxed(origin, region));
        let texels: usize = extent.iter().product();
        let len = element * texels;
        let (mem, dev) = (self.clone(), device.clone());
        if let (Texels::Image(i), Some(value), Some((first, count))) = (&image.texels, clear_value(&image.format, texel), whole_layers(&image.desc, origin, region)) {
            // Whole layers: the device's own clear (NVIDIA copies buffers into images at a
            // fraction of memory speed: 92 GB/s through the fill kernel's buffer on an H200).
            let i = i.clone();
            return Ok(Box::new(move |batch| {
                i.clear(batch.cmd(), value, first, count);
                batch.keep(mem);
                Ok(None)
            }));
        }
        if let (Some(value), Some(_)) = (fill_element(texel), device.builtins()) {
            // The fill kernel repeats the texel over a device-local buffer that is then copied
            // into the image: no host copy of the region (filling host staging instead ran at
            // 94 GB/s on an H200, where NVIDIA's OpenCL fills at 3.9 TB/s).
            let scratch = staging(device, len.next_multiple_of(16), Placement::Device)?;
            return Ok(Box::new(move |batch| {
                if let Some(b) = dev.builtins() {
                    b.fill(&dev, batch, (&scratch, 0), len.next_multiple_of(16) as u64, value)?;
                }
                batch.barrier(vk::PipelineStageFlags2::COMPUTE_SHADER, vk::PipelineStageFlags2::ALL_TRANSFER);
                record_copy(&dev, batch, End::Linear(&scratch, 0), mem.end(origin, region)?, texels, element)?;
                batch.keep((scratch, mem));
                Ok(None)
            }));
        }
        let upload = staging(device, len, Placement::Upload)?;
        let dst = mapped(&upload)?;
        for at in (0..len).step_by(element) {
            // SAFETY: staging holds `len` bytes, a whole number of texels.
            unsafe { copy_bytes(texel.as_ptr(), dst.add(at), element) };
        }
        Ok(Box::new(move |batch| {
            record_copy(&dev, batch, End::Linear(&upload, 0), mem.end(origin, region)?, texels, element)?;
            batch.keep((upload, mem));
            Ok(None)
        }))
    }

    /// `clEnqueueMapImage`: the region in staging, tightly packed, or, for a `USE_HOST_PTR`
    /// image, in the application's memory at the image's pitches, refreshed from the image.
    /// Returns the pointer, its row and slice pitches, and the command.
    pub fn map_image(self: &Arc<Self>, device: &Arc<Device>, flags: cl_map_flags, origin: [usize; 3], region: [usize; 3]) -> CLResult<(*mut c_void, [usize; 2], Work)> {
        let image = self.img()?;
        let (element, desc) = (image.format.element, image.desc);
        let (at, extent) = desc.boxed(origin, region);
        let texels: usize = extent.iter().product();
        let write = flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION) != 0;
        let invalidate = flags & CL_MAP_WRITE_INVALIDATE_REGION != 0;
        let len = element * texels;
        let s = staging(device, len, Placement::Readback)?;
        let (ptr, pitches) = if self.host_ptr.is_null() {
            (mapped(&s)?, [element * extent[0], element * extent[0] * extent[1]])
        } else {
            let offset = at[0] * element + at[1] * desc.row_pitch + at[2] * desc.slice_pitch;
            (self.host_ptr.cast::<u8>().wrapping_add(offset), [desc.row_pitch, desc.slice_pitch])
        };
        self.maps().push(Mapping { ptr: ptr as usize, offset: 0, size: len, write, staging: Some(s.clone()), image: Some((origin, region, pitches)) });
        let (mem, device, host) = (self.clone(), device.clone(), HostPtr(ptr));
        let work: Work = Box::new(move |batch| {
            if invalidate {
                return Ok(None);
            }
            record_copy(&device, batch, mem.end(origin, region)?, End::Linear(&s, 0), texels, element)?;
            let into_host_ptr = !mem.host_ptr.is_null();
            batch.keep(mem);
            let src = HostPtr(mapped(&s)?);
            Ok(into_host_ptr.then(|| -> HostStep {
                Box::new(move || {
                    // SAFETY: the mapped region lies in the application's host_ptr allocation.
                    unsafe { unpack(src.get(), host.get(), pitches[0], pitches[1], element, extent) };
                    drop(s);
                })
            }))
        });
        Ok((ptr.cast(), pitches, work))
    }

    /// The write-back of an image mapping at unmap: the region from staging (packed there now
    /// from a `USE_HOST_PTR` image's host memory) into the image.
    pub(super) fn unmap_image(self: Arc<Self>, device: Arc<Device>, mapping: Mapping, (origin, region, pitches): MapRegion) -> CLResult<Work> {
        let image = self.img()?;
        let (element, (_, extent)) = (image.format.element, image.desc.boxed(origin, region));
        let texels: usize = extent.iter().product();
        let source = match mapping.staging {
            Some(_) if !mapping.write => None,
            Some(s) if self.host_ptr.is_null() => Some(s),
            // SAFETY: the application has finished writing the mapped region.
            _ => Some(unsafe { stage_in(&device, mapping.ptr as *const u8, pitches[0], pitches[1], element, extent)? }),
        };
        Ok(Box::new(move |batch| {
            if let Some(s) = source {
                record_copy(&device, batch, End::Linear(&s, 0), self.end(origin, region)?, texels, element)?;
                batch.keep(s);
            }
            batch.keep(self);
            Ok(None)
        }))
    }

    /// What a kernel argument of this image binds: the sampled view to read, the storage view
    /// to write, or the texel-buffer view of an `IMAGE1D_BUFFER`.
    pub fn image_resource(&self, device: &Device, dim: ImageDim, access: ImageAccess) -> CLResult<Resource> {
        let image = self.img()?;
        Ok(match (&image.texels, access) {
            (Texels::Buffer(_), _) if matches!(dim, ImageDim::D1Buffer | ImageDim::D2) => Resource::Texels(self.texel_view(device)?.raw),
            (Texels::Image(i), ImageAccess::Read) => Resource::Image(i.sampled),
            (Texels::Image(i), ImageAccess::Write) => Resource::Image(i.storage.ok_or(CL_INVALID_KERNEL_ARGS)?),
            _ => return Err(CL_INVALID_KERNEL_ARGS),
        })
    }

    /// The texel-buffer view of an `IMAGE1D_BUFFER` image, made on first use.
    fn texel_view(&self, device: &Device) -> CLResult<Arc<TexelView>> {
        let image = self.img()?;
        let Texels::Buffer(view) = &image.texels else { return Err(CL_INVALID_MEM_OBJECT) };
        if let Some(v) = view.get() {
            return Ok(v.clone());
        }
        let made = TexelView::new(&device.gpu, self.buf()?, image.format.vk, self.base, self.size as u64).map_err(|_| CL_OUT_OF_RESOURCES)?;
        Ok(view.get_or_init(|| Arc::new(made)).clone())
    }
}

/// Where an image mapping is: OpenCL origin and region, and the pitches returned.
pub type MapRegion = ([usize; 3], [usize; 3], [usize; 2]);

fn new_vk_image(device: &Device, format: &Format, desc: &Desc) -> CLResult<vkimage::Image> {
    let (ty, view) = vk_type(desc.ty);
    let [w, h, slices] = desc.extent();
    let (depth, layers) = if desc.layered() { (1, slices) } else { (slices, 1) };
    let shape = Shape { ty, view, extent: vk::Extent3D { width: w as u32, height: h as u32, depth: depth as u32 }, layers: layers as u32 };
    let swizzle = format.swizzle.unwrap_or_default();
    super::memory::allocate(device, || vkimage::Image::new(&device.gpu, format.vk, shape, swizzle, storable(device, format)))
}

/// The Vulkan copy of a box (`origin`, `extent` with slices third) of an image and tightly
/// packed texels at `offset` in a buffer.
fn layered_copy(offset: u64, layered: bool, origin: [usize; 3], extent: [usize; 3]) -> vk::BufferImageCopy {
    let (offset3, extent3, layers) = vk_box(layered, origin, extent);
    vk::BufferImageCopy { buffer_offset: offset, buffer_row_length: 0, buffer_image_height: 0, image_subresource: layers, image_offset: offset3, image_extent: extent3 }
}

/// A box as Vulkan's offset, extent and array layers.
fn vk_box(layered: bool, o: [usize; 3], e: [usize; 3]) -> (vk::Offset3D, vk::Extent3D, vk::ImageSubresourceLayers) {
    let (z, depth, base, count) = if layered { (0, 1, o[2], e[2]) } else { (o[2], e[2], 0, 1) };
    let layers = vk::ImageSubresourceLayers { aspect_mask: vk::ImageAspectFlags::COLOR, mip_level: 0, base_array_layer: base as u32, layer_count: count as u32 };
    (vk::Offset3D { x: o[0] as i32, y: o[1] as i32, z: z as i32 }, vk::Extent3D { width: e[0] as u32, height: e[1] as u32, depth: depth as u32 }, layers)
}

/// Records a copy of `texels` texels of `element` bytes between two ends.
fn record_copy(device: &Device, batch: &mut Batch, src: End, dst: End, texels: usize, element: usize) -> CLResult<()> {
    let bytes = (element * texels) as u64;
    let cmd = batch.cmd();
    match (src, dst) {
        (End::Linear(s, so), End::Linear(d, d_o)) => copy_regions(device, batch, s, d, &[span(so, d_o, bytes)])?,
        // Rows of a 2D image made from a buffer, and packed rows of the same width.
        (End::Pitched(s, so, sp, [w, h]), End::Linear(d, d_o)) => copy_rows(device, batch, (s, so, sp), (d, d_o, (w * element) as u64), (w * element) as u64, h)?,
        (End::Linear(s, so), End::Pitched(d, d_o, dp, [w, h])) => copy_rows(device, batch, (s, so, (w * element) as u64), (d, d_o, dp), (w * element) as u64, h)?,
        (End::Pitched(s, so, sp, [w, h]), End::Pitched(d, d_o, dp, _)) => copy_rows(device, batch, (s, so, sp), (d, d_o, dp), (w * element) as u64, h)?,
        (End::Image(i, layered, o, e), End::Pitched(b, offset, pitch, _)) if aligned(offset, element) => {
            i.copy_to(cmd, b, &[pitched_copy(offset, pitch, element, layered, o, e)]);
        }
        (End::Pitched(b, offset, pitch, _), End::Image(i, layered, o, e)) if aligned(offset, element) => {
            i.copy_from(cmd, b, &[pitched_copy(offset, pitch, element, layered, o, e)]);
        }
        (End::Image(i, layered, o, e), End::Linear(b, offset)) if aligned(offset, element) => i.copy_to(cmd, b, &[layered_copy(offset, layered, o, e)]),
        (End::Linear(b, offset), End::Image(i, layered, o, e)) if aligned(offset, element) => i.copy_from(cmd, b, &[layered_copy(offset, layered, o, e)]),
        (End::Image(s, sl, so, se), End::Image(d, dl, d_o, de)) if direct(s, d) => {
            let (src_offset, src_extent, src_subresource) = vk_box(sl, so, se);
            let (dst_offset, dst_extent, dst_subresource) = vk_box(dl, d_o, de);
            // Between a layered image and a 3D one, the extent's depth counts the layers.
            let depth = src_extent.depth.max(dst_extent.depth);
            let region = vk::ImageCopy { src_subresource, src_offset, dst_subresource, dst_offset, extent: vk::Extent3D { depth, ..src_extent } };
            s.copy_to_image(cmd, d, region);
        }
        // Through tightly packed staging: images of different shapes (a 1D array's layers
        // becoming a 2D image's rows), or buffer offsets Vulkan cannot copy images at.
        (src, dst) => {
            let bounce = staging(device, bytes as usize, Placement::Device)?;
            record_copy(device, batch, src, End::Linear(&bounce, 0), texels, element)?;
            batch.barrier(vk::PipelineStageFlags2::ALL_TRANSFER, vk::PipelineStageFlags2::ALL_TRANSFER);
            record_copy(device, batch, End::Linear(&bounce, 0), dst, texels, element)?;
            batch.keep(bounce);
        }
    }
    Ok(())
}

/// Records a copy of `rows` rows of `row` bytes between buffers, each end a buffer, offset
/// and row pitch.
fn copy_rows(device: &Device, batch: &mut Batch, (s, so, sp): (&Buffer, u64, u64), (d, d_o, dp): (&Buffer, u64, u64), row: u64, rows: usize) -> CLResult<()> {
    let spans: Vec<vk::BufferCopy> = (0..rows as u64).map(|y| span(so + y * sp, d_o + y * dp, row)).collect();
    copy_regions(device, batch, s, d, &spans)
}

/// The Vulkan copy of an image box and rows at `pitch` bytes from `offset` in a buffer.
fn pitched_copy(offset: u64, pitch: u64, element: usize, layered: bool, origin: [usize; 3], extent: [usize; 3]) -> vk::BufferImageCopy {
    vk::BufferImageCopy { buffer_row_length: (pitch / element as u64) as u32, ..layered_copy(offset, layered, origin, extent) }
}

/// Vulkan copies images to and from buffer offsets that are multiples of the texel size;
/// offsets are kept to multiples of 4 as well, which Vulkan 1.0 required.
fn aligned(offset: u64, element: usize) -> bool {
    offset.is_multiple_of(4) && offset.is_multiple_of(element as u64)
}

/// `vkCmdCopyImage` copies between images of one type, and between 2D and 3D images.
fn direct(s: &vkimage::Image, d: &vkimage::Image) -> bool {
    let flat = |t: vk::ImageType| t == vk::ImageType::TYPE_2D || t == vk::ImageType::TYPE_3D;
    s.shape.ty == d.shape.ty || (flat(s.shape.ty) && flat(d.shape.ty))
}

/// Packs a box of texels from host memory at the given pitches into new upload staging.
///
/// # Safety
/// `src` holds the box at those pitches.
unsafe fn stage_in(device: &Device, src: *const u8, row_pitch: usize, slice_pitch: usize, element: usize, extent: [usize; 3]) -> CLResult<Arc<crate::vk::memory::Staging>> {
    let row = element * extent[0];
    let upload = staging(device, row * extent[1] * extent[2], Placement::Upload)?;
    let dst = mapped(&upload)?;
    let host = Rect { origin: [0; 3], row_pitch: row_pitch.max(row), slice_pitch: slice_pitch.max(row * extent[1]) };
    if tight(&host, row, extent) {
        copy_bytes(src, dst, row * extent[1] * extent[2]);
    } else {
        for (i, h) in host.rows([row, extent[1], extent[2]]).enumerate() {
            copy_bytes(src.add(h), dst.add(i * row), row);
        }
    }
    Ok(upload)
}

/// Unpacks a tightly packed box into host memory at the given pitches.
///
/// # Safety
/// `dst` has room for the box at those pitches; `src` holds it packed.
unsafe fn unpack(src: *const u8, dst: *mut u8, row_pitch: usize, slice_pitch: usize, element: usize, extent: [usize; 3]) {
    let row = element * extent[0];
    let host = Rect { origin: [0; 3], row_pitch: row_pitch.max(row), slice_pitch: slice_pitch.max(row * extent[1]) };
    if tight(&host, row, extent) {
        copy_bytes(src, dst, row * extent[1] * extent[2]);
        return;
    }
    for (i, h) in host.rows([row, extent[1], extent[2]]).enumerate() {
        copy_bytes(src.add(i * row), dst.add(h), row);
    }
}

/// Whether the host rectangle packs `extent`'s rows of `row` bytes without gaps: then one copy
/// (on several threads when large) moves the whole box, where a copy per row stays on one.
fn tight(host: &Rect, row: usize, extent: [usize; 3]) -> bool {
    host.row_pitch == row && (extent[2] == 1 || host.slice_pitch == row * extent[1])
}

/// The bytes of one texel of `format` holding `colour` (four `f32`, `i32` or `u32` by the
/// format's data type, in R, G, B, A order), converted as OpenCL converts what kernels write:
/// normalized values rounded to nearest even and saturated, integers saturated, half floats
/// rounded to nearest even; the colour channels of an sRGB format encoded from linear first.
pub fn texel(format: &Format, colour: [u32; 4]) -> Vec<u8> {
    let [r, g, b, a] = colour;
    if format.srgb() {
        let [r, g, b] = [r, g, b].map(|c| srgb_byte(f32::from_bits(c)));
        let a = normalized(f32::from_bits(a), 0.0, 255.0) as u8;
        return match format.order {
            o if o == CL_sBGRA => vec![b, g, r, a],
            o if o == CL_sRGB => vec![r, g, b],
            // sRGBx's fourth byte is unused: it holds alpha, as fills of sRGBA do.
            _ => vec![r, g, b, a],
        };
    }
    let channels: Vec<u32> = match format.order {
        CL_R | CL_INTENSITY | CL_LUMINANCE => vec![r],
        CL_A => vec![a],
        CL_RG => vec![r, g],
        CL_RA => vec![r, a],
        CL_BGRA => vec![b, g, r, a],
        CL_ARGB => vec![a, r, g, b],
        CL_ABGR => vec![a, b, g, r],
        CL_RGBA => vec![r, g, b, a],
        // Packed RGB formats.
        _ => return packed([r, g, b].map(f32::from_bits)),
    };
    channels.into_iter().flat_map(|c| channel(format.data_type, c)).collect()
}

/// One channel's bytes from the colour's 32 bits (a float, or an integer).
fn channel(data_type: cl_channel_type, bits: u32) -> Vec<u8> {
    let f = f32::from_bits(bits);
    let (i, u) = (bits as i32, bits);
    match data_type {
        CL_UNORM_INT8 => vec![normalized(f, 0.0, 255.0) as u8],
        CL_SNORM_INT8 => vec![normalized(f, -127.0, 127.0) as i8 as u8],
        CL_UNORM_INT16 => (normalized(f, 0.0, 65535.0) as u16).to_le_bytes().to_vec(),
        CL_SNORM_INT16 => (normalized(f, -32767.0, 32767.0) as i16).to_le_bytes().to_vec(),
        CL_SIGNED_INT8 => vec![i.clamp(i8::MIN.into(), i8::MAX.into()) as i8 as u8],
        CL_SIGNED_INT16 => (i.clamp(i16::MIN.into(), i16::MAX.into()) as i16).to_le_bytes().to_vec(),
        CL_UNSIGNED_INT8 => vec![u.min(u8::MAX.into()) as u8],
        CL_UNSIGNED_INT16 => (u.min(u16::MAX.into()) as u16).to_le_bytes().to_vec(),
        CL_HALF_FLOAT => f32_to_f16(f).to_le_bytes().to_vec(),
        _ => bits.to_le_bytes().to_vec(),
    }
}

/// OpenCL's linear → sRGB conversion of one colour channel to its byte (NaN becomes 0, values
/// saturate): `12.92 c` below 0.0031308, else `1.055 c^(1/2.4) - 0.055`, scaled by 255 and
/// rounded to nearest, all in double.
fn srgb_byte(c: f32) -> u8 {
    let c = if c.is_nan() { 0.0 } else { f64::from(c).clamp(0.0, 1.0) };
    let e = if c < 0.0031308 { 12.92 * c } else { 1.055 * c.powf(1.0 / 2.4) - 0.055 };
    (e * 255.0).round() as u8
}

/// A float scaled to a normalized integer of range `[min, max]` (`max` the scale): saturated,
/// rounded to nearest even; NaN becomes 0.
fn normalized(f: f32, min: f32, max: f32) -> f32 {
    if f.is_nan() {
        return 0.0;
    }
    (f.clamp(min / max, 1.0) * max).round_ties_even()
}

/// The clear colour whose conversion to `format` is exactly `texel` (OpenCL's conversion of
/// the fill colour, done on the host): normalized channels as k / (2^n - 1), which every
/// device converts back to k; `None` for half, packed and sRGB formats.
fn clear_value(format: &Format, texel: &[u8]) -> Option<vk::ClearColorValue> {
    let dt = format.data_type;
    // Vulkan would encode a clear colour into an sRGB format itself, not keep the bytes.
    if PACKED.contains(&dt) || dt == CL_HALF_FLOAT || format.srgb() {
        return None;
    }
    let size = channel_bytes(dt);
    let raw = |c: usize| -> u32 {
        let b = &texel[c * size..(c + 1) * size];
        match size {
            1 => u32::from(b[0]),
            2 => u32::from(u16::from_le_bytes([b[0], b[1]])),
            _ => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        }
    };
    let signed = |c: usize| -> i32 {
        let v = raw(c);
        match size {
            1 => i32::from(v as u8 as i8),
            2 => i32::from(v as u16 as i16),
            _ => v as i32,
        }
    };
    let mut channels = [0usize, 1, 2, 3];
    // B, G, R, A in memory; Vulkan's BGRA formats take the colour in R, G, B, A.
    if format.order == CL_BGRA {
        channels.swap(0, 2);
    }
    let n = (format.element / size).min(4);
    let pick = |f: &dyn Fn(usize) -> u32| -> [u32; 4] { std::array::from_fn(|i| if channels[i] < n { f(channels[i]) } else { 0 }) };
    let unit = |f: &dyn Fn(usize) -> f32| -> [f32; 4] { pick(&|c| f(c).to_bits()).map(f32::from_bits) };
    Some(match dt {
        CL_FLOAT => vk::ClearColorValue { float32: unit(&|c| f32::from_bits(raw(c))) },
        CL_UNORM_INT8 | CL_UNORM_INT16 => {
            let max = ((1u64 << (8 * size)) - 1) as f32;
            vk::ClearColorValue { float32: unit(&|c| raw(c) as f32 / max) }
        }
        CL_SNORM_INT8 | CL_SNORM_INT16 => {
            let max = ((1u64 << (8 * size - 1)) - 1) as f32;
            vk::ClearColorValue { float32: unit(&|c| (signed(c) as f32 / max).max(-1.0)) }
        }
        CL_SIGNED_INT8 | CL_SIGNED_INT16 | CL_SIGNED_INT32 => vk::ClearColorValue { int32: pick(&|c| signed(c) as u32).map(|v| v as i32) },
        _ => vk::ClearColorValue { uint32: pick(&raw) },
    })
}

/// The array layers `(first, count)` a region covers whole (every texel of each), or `None`.
fn whole_layers(d: &Desc, origin: [usize; 3], region: [usize; 3]) -> Option<(u32, u32)> {
    let full = |axis: usize, size: usize| origin[axis] == 0 && region[axis] == size;
    let (layers_axis, plane) = match d.ty {
        CL_MEM_OBJECT_IMAGE1D_ARRAY => (Some(1), full(0, d.width)),
        CL_MEM_OBJECT_IMAGE2D_ARRAY => (Some(2), full(0, d.width) && full(1, d.height)),
        CL_MEM_OBJECT_IMAGE3D => (None, full(0, d.width) && full(1, d.height) && full(2, d.depth)),
        CL_MEM_OBJECT_IMAGE2D => (None, full(0, d.width) && full(1, d.height)),
        _ => (None, full(0, d.width)),
    };
    if !plane {
        return None;
    }
    match layers_axis {
        Some(a) => Some((u32::try_from(origin[a]).ok()?, u32::try_from(region[a]).ok()?)),
        None => Some((0, 1)),
    }
}

/// A packed x-10-10-10 RGB texel, red in the high bits.
fn packed([r, g, b]: [f32; 3]) -> Vec<u8> {
    let bits = |f: f32| normalized(f, 0.0, 1023.0) as u32;
    (bits(r) << 20 | bits(g) << 10 | bits(b)).to_le_bytes().to_vec()
}

/// `f32` → IEEE half, rounded to nearest even (overflow to infinity, NaN kept quiet).
pub fn f32_to_f16(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32;
    let man = b & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if man != 0 { 0x200 | (man >> 13) as u16 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    // The half's bits before rounding, and the bits shifted out.
    let (half, shift, full) = if e > 0 {
        (((e as u32) << 10) | (man >> 13), 13, man)
    } else if e >= -11 {
        // A subnormal half: the implicit bit joins the mantissa.
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        (m >> shift, shift, m)
    } else {
        return sign;
    };
    let rem = full & ((1 << shift) - 1);
    let mid = 1 << (shift - 1);
    let up = rem > mid || (rem == mid && half & 1 == 1);
    // A carry out of the mantissa moves to the next binade (or infinity), as it should.
    sign | (half + u32::from(up)) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_rounds_to_nearest_even() {
        assert_eq!(f32_to_f16(1.0), 0x3c00);
        assert_eq!(f32_to_f16(-2.0), 0xc000);
        assert_eq!(f32_to_f16(65504.0), 0x7bff);
        assert_eq!(f32_to_f16(65520.0), 0x7c00);
        assert_eq!(f32_to_f16(f32::INFINITY), 0x7c00);
        assert_eq!(f32_to_f16(f32::NAN) & 0x7e00, 0x7e00);
        // 1 + 2^-11 is halfway between 1 and the next half: ties to even (1).
        assert_eq!(f32_to_f16(1.0 + 2f32.powi(-11)), 0x3c00);
        assert_eq!(f32_to_f16(1.0 + 3.0 * 2f32.powi(-11)), 0x3c02);
        assert_eq!(f32_to_f16(1.0 + 2f32.powi(-11) * 1.01), 0x3c01);
        // Subnormals: 2^-24 is the smallest; 2^-25 ties to 0; just above it rounds up.
        assert_eq!(f32_to_f16(2f32.powi(-24)), 1);
        assert_eq!(f32_to_f16(2f32.powi(-25)), 0);
        assert_eq!(f32_to_f16(2f32.powi(-25) * 1.0001), 1);
        assert_eq!(f32_to_f16(2f32.powi(-14)), 0x0400);
    }

    #[test]
    fn formats_keep_opencl_bytes() {
        let f = format(CL_BGRA, CL_UNORM_INT8).unwrap();
        assert_eq!(texel(&f, [1.0f32, 0.5, 0.0, 1.0].map(f32::to_bits)), vec![0, 128, 255, 255]);
        assert_eq!(format(CL_RGB, CL_UNORM_INT8).err(), Some(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR));
        let s = format(CL_RGBA, CL_SNORM_INT16).unwrap();
        assert_eq!(texel(&s, [-2.0f32, 0.5, f32::NAN, 1.0].map(f32::to_bits)), [-32767i16, 16384, 0, 32767].iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<_>>());
    }
}
