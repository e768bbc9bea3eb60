//! Vulkan images with their memory from gpu-allocator, their views, and the copies into, out of
//! and between them. Images stay in `VK_IMAGE_LAYOUT_GENERAL` from their first command on, so
//! no command tracks layouts.

use super::device::Gpu;
use super::memory::Buffer;
use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};
use gpu_allocator::MemoryLocation;
use std::sync::Arc;

/// The shape of an image: its Vulkan type, the type of its views, its size and array layers.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    pub ty: vk::ImageType,
    pub view: vk::ImageViewType,
    pub extent: vk::Extent3D,
    pub layers: u32,
}

pub struct Image {
    gpu: Arc<Gpu>,
    pub raw: vk::Image,
    pub format: vk::Format,
    pub shape: Shape,
    /// The view kernels read through (it may swizzle).
    pub sampled: vk::ImageView,
    /// The view kernels write through (never swizzled), where the format allows storage.
    pub storage: Option<vk::ImageView>,
    allocation: Option<Allocation>,
}

// SAFETY: Vulkan handles are plain integers; the allocation is never mapped.
unsafe impl Send for Image {}
unsafe impl Sync for Image {}

/// The features of `format` with optimal tiling (images) and in buffers (texel buffers).
pub fn format_properties(gpu: &Gpu, format: vk::Format) -> vk::FormatProperties {
    // SAFETY: a valid physical device of the instance.
    unsafe { gpu.instance.get_physical_device_format_properties(gpu.physical, format) }
}

/// Whether Vulkan makes images of `format` and type `ty` with the usage ferrocl gives them.
pub fn can_make(gpu: &Gpu, format: vk::Format, ty: vk::ImageType, storage: bool) -> bool {
    max_resource_size(gpu, format, ty, storage).is_some()
}

/// The largest image of `format` and type `ty` in bytes (`maxResourceSize`), if Vulkan makes
/// such images at all.
pub fn max_resource_size(gpu: &Gpu, format: vk::Format, ty: vk::ImageType, storage: bool) -> Option<u64> {
    // SAFETY: a valid physical device of the instance.
    let props = unsafe { gpu.instance.get_physical_device_image_format_properties(gpu.physical, format, ty, vk::ImageTiling::OPTIMAL, usage(storage), vk::ImageCreateFlags::empty()) };
    props.ok().map(|p| p.max_resource_size)
}

fn usage(storage: bool) -> vk::ImageUsageFlags {
    let usage = vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::TRANSFER_SRC | vk::ImageUsageFlags::TRANSFER_DST;
    if storage {
        usage | vk::ImageUsageFlags::STORAGE
    } else {
        usage
    }
}

const COLOR: vk::ImageSubresourceRange = vk::ImageSubresourceRange {
    aspect_mask: vk::ImageAspectFlags::COLOR,
    base_mip_level: 0,
    level_count: 1,
    base_array_layer: 0,
    layer_count: vk::REMAINING_ARRAY_LAYERS,
};

impl Image {
    /// An image in device memory with a sampled view swizzled by `swizzle` and, when `storage`,
    /// an identity storage view. Its layout is still undefined: record [`Image::to_general`]
    /// before any other command uses it.
    pub fn new(gpu: &Arc<Gpu>, format: vk::Format, shape: Shape, swizzle: vk::ComponentMapping, storage: bool) -> Result<Image, vk::Result> {
        let d = &gpu.device;
        let info = vk::ImageCreateInfo::default()
            .image_type(shape.ty)
            .format(format)
            .extent(shape.extent)
            .mip_levels(1)
            .array_layers(shape.layers)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage(storage))
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        // SAFETY: valid create info; what is created is destroyed in Drop.
        let raw = unsafe { d.create_image(&info, None) }?;
        let mut image = Image { gpu: gpu.clone(), raw, format, shape, sampled: vk::ImageView::null(), storage: None, allocation: None };
        // SAFETY: `raw` is a live image of this device.
        let requirements = unsafe { d.get_image_memory_requirements(raw) };
        let desc = AllocationCreateDesc { name: "ferrocl image", requirements, location: MemoryLocation::GpuOnly, linear: false, allocation_scheme: AllocationScheme::GpuAllocatorManaged };
        let allocation = gpu.allocator.lock().unwrap_or_else(|e| e.into_inner()).allocate(&desc).map_err(|_| vk::Result::ERROR_OUT_OF_DEVICE_MEMORY)?;
        // SAFETY: the allocation satisfies the image's requirements.
        let bound = unsafe { d.bind_image_memory(raw, allocation.memory(), allocation.offset()) };
        image.allocation = Some(allocation);
        bound?;
        image.sampled = image.view(swizzle)?;
        if storage {
            image.storage = Some(image.view(vk::ComponentMapping::default())?);
        }
        Ok(image)
    }

    fn view(&self, components: vk::ComponentMapping) -> Result<vk::ImageView, vk::Result> {
        let info = vk::ImageViewCreateInfo::default().image(self.raw).view_type(self.shape.view).format(self.format).components(components).subresource_range(COLOR);
        // SAFETY: valid create info for this image.
        unsafe { self.gpu.device.create_image_view(&info, None) }
    }

    /// Records the image's one layout transition, from undefined to `GENERAL`.
    pub fn to_general(&self, cmd: vk::CommandBuffer) {
        let barrier = [vk::ImageMemoryBarrier2::default()
            .src_stage_mask(vk::PipelineStageFlags2::NONE)
            .dst_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
            .dst_access_mask(vk::AccessFlags2::MEMORY_READ | vk::AccessFlags2::MEMORY_WRITE)
            .old_layout(vk::ImageLayout::UNDEFINED)
            .new_layout(vk::ImageLayout::GENERAL)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .image(self.raw)
            .subresource_range(COLOR)];
        // SAFETY: the command buffer is recording and the image is live.
        unsafe { self.gpu.device.cmd_pipeline_barrier2(cmd, &vk::DependencyInfo::default().image_memory_barriers(&barrier)) };
    }

    /// Records copies of buffer regions into the image.
    pub fn copy_from(&self, cmd: vk::CommandBuffer, src: &Buffer, regions: &[vk::BufferImageCopy]) {
        // SAFETY: recording; the regions lie inside both (checked by the API).
        unsafe { self.gpu.device.cmd_copy_buffer_to_image(cmd, src.raw, self.raw, vk::ImageLayout::GENERAL, regions) };
    }

    /// Records copies of image regions into a buffer.
    pub fn copy_to(&self, cmd: vk::CommandBuffer, dst: &Buffer, regions: &[vk::BufferImageCopy]) {
        // SAFETY: recording; the regions lie inside both (checked by the API).
        unsafe { self.gpu.device.cmd_copy_image_to_buffer(cmd, self.raw, vk::ImageLayout::GENERAL, dst.raw, regions) };
    }

    /// Records a clear of array layers `first..first + count` (of all a 3D image's depth) to
    /// `value`.
    pub fn clear(&self, cmd: vk::CommandBuffer, value: vk::ClearColorValue, first: u32, count: u32) {
        let range = vk::ImageSubresourceRange { aspect_mask: vk::ImageAspectFlags::COLOR, base_mip_level: 0, level_count: 1, base_array_layer: first, layer_count: count };
        // SAFETY: recording; the layers exist (checked by the API).
        unsafe { self.gpu.device.cmd_clear_color_image(cmd, self.raw, vk::ImageLayout::GENERAL, &value, &[range]) };
    }

    /// Records a copy of a region into another image of the same format.
    pub fn copy_to_image(&self, cmd: vk::CommandBuffer, dst: &Image, region: vk::ImageCopy) {
        // SAFETY: recording; the region lies inside both (checked by the API).
        unsafe { self.gpu.device.cmd_copy_image(cmd, self.raw, vk::ImageLayout::GENERAL, dst.raw, vk::ImageLayout::GENERAL, &[region]) };
    }
}

impl Drop for Image {
    fn drop(&mut self) {
        let gpu = self.gpu.clone();
        gpu.unless_abandoned(|| {
            let d = &gpu.device;
            // SAFETY: owners keep the image alive until every command using it has executed.
            unsafe {
                for view in [Some(self.sampled), self.storage].into_iter().flatten().filter(|v| *v != vk::ImageView::null()) {
                    d.destroy_image_view(view, None);
                }
                d.destroy_image(self.raw, None);
            }
            if let Some(a) = self.allocation.take() {
                let _ = gpu.allocator.lock().unwrap_or_else(|e| e.into_inner()).free(a);
            }
        });
    }
}

/// A texel-buffer view of a buffer (`image1d_buffer_t`): kernels read it as a uniform texel
/// buffer and write it as a storage texel buffer, through the same view.
pub struct TexelView {
    gpu: Arc<Gpu>,
    pub raw: vk::BufferView,
}

impl TexelView {
    pub fn new(gpu: &Arc<Gpu>, buffer: &Buffer, format: vk::Format, offset: u64, range: u64) -> Result<TexelView, vk::Result> {
        let info = vk::BufferViewCreateInfo::default().buffer(buffer.raw).format(format).offset(offset).range(range);
        // SAFETY: valid create info; the buffer outlives the view (its owner keeps both).
        let raw = unsafe { gpu.device.create_buffer_view(&info, None) }?;
        Ok(TexelView { gpu: gpu.clone(), raw })
    }
}

impl Drop for TexelView {
    fn drop(&mut self) {
        // SAFETY: owners keep the view alive until every command using it has executed.
        self.gpu.unless_abandoned(|| unsafe { self.gpu.device.destroy_buffer_view(self.raw, None) });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vk::batch::Batch;
    use crate::vk::instance::Instance;
    use crate::vk::memory::Placement;
    use crate::vk::pipeline::{record_dispatch, Binding, Bound, Descriptor, Pipeline, Resource};

    /// Reads texels of a sampled image and stores them into a storage image, one work-item per
    /// texel.
    const COPY: &str = "
        @group(0) @binding(0) var src: texture_2d<f32>;
        @group(0) @binding(1) var dst: texture_storage_2d<rgba8unorm, write>;
        @compute @workgroup_size(1)
        fn main(@builtin(global_invocation_id) id: vec3<u32>) {
            textureStore(dst, vec2<i32>(id.xy), textureLoad(src, vec2<i32>(id.xy), 0));
        }";

    fn spirv(source: &str) -> Vec<u32> {
        use naga::back::spv;
        let module = naga::front::wgsl::parse_str(source).expect("WGSL");
        let flags = (naga::valid::ValidationFlags::all(), naga::valid::Capabilities::all());
        let info = naga::valid::Validator::new(flags.0, flags.1).validate(&module).expect("valid module");
        let pipeline = spv::PipelineOptions { shader_stage: naga::ShaderStage::Compute, entry_point: "main".into() };
        spv::write_vec(&module, &info, &spv::Options::default(), Some(&pipeline)).expect("SPIR-V")
    }

    fn shape(size: u32) -> Shape {
        Shape { ty: vk::ImageType::TYPE_2D, view: vk::ImageViewType::TYPE_2D, extent: vk::Extent3D { width: size, height: size, depth: 1 }, layers: 1 }
    }

    /// Kernels bind a swizzled sampled view and a storage view by pushed descriptors, with the
    /// images in the `GENERAL` layout (an `R8` image read as `CL_A`: alpha is its byte).
    #[test]
    fn images_bind_through_pushed_descriptors() {
        std::env::set_var("FERROCL_VALIDATION", "1");
        // The instance outlives the device, whose completion thread never ends.
        let instance = Box::leak(Box::new(Instance::new().expect("a Vulkan instance")));
        // SAFETY: plain enumeration on a live instance.
        let physical = unsafe { instance.raw.enumerate_physical_devices() }.expect("devices")[0];
        let gpu = Gpu::open(instance, physical).expect("a Vulkan device");
        const N: u32 = 4;
        let texels = (N * N) as usize;
        let alpha = vk::ComponentMapping { r: vk::ComponentSwizzle::ZERO, g: vk::ComponentSwizzle::ZERO, b: vk::ComponentSwizzle::ZERO, a: vk::ComponentSwizzle::R };
        let src = Image::new(&gpu, vk::Format::R8_UNORM, shape(N), alpha, false).expect("sampled image");
        let dst = Image::new(&gpu, vk::Format::R8G8B8A8_UNORM, shape(N), vk::ComponentMapping::default(), true).expect("storage image");
        let upload = Buffer::new(&gpu, 256, Placement::Upload).expect("upload");
        let readback = Arc::new(Buffer::new(&gpu, 256, Placement::Readback).expect("readback"));
        let bytes: Vec<u8> = (0..texels).map(|i| (i * 13 + 7) as u8).collect();
        // SAFETY: the new buffer is mapped and holds 256 bytes.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), upload.mapped().expect("mapped").as_ptr(), texels) };
        let all = |offset| vk::BufferImageCopy {
            buffer_offset: offset,
            image_subresource: vk::ImageSubresourceLayers { aspect_mask: vk::ImageAspectFlags::COLOR, mip_level: 0, base_array_layer: 0, layer_count: 1 },
            image_extent: vk::Extent3D { width: N, height: N, depth: 1 },
            ..Default::default()
        };
        let bindings = [Binding { binding: 0, descriptor: Descriptor::SampledImage }, Binding { binding: 1, descriptor: Descriptor::StorageImage }];
        let pipeline = Pipeline::new(&gpu, &spirv(COPY), &bindings, 0).expect("pipeline");
        let bound = [Bound { binding: bindings[0], resource: Resource::Image(src.sampled) }, Bound { binding: bindings[1], resource: Resource::Image(dst.storage.expect("storage view")) }];

        let mut batch = Batch::new(&gpu, false).expect("batch");
        batch.begin_command(true);
        src.to_general(batch.cmd());
        dst.to_general(batch.cmd());
        src.copy_from(batch.cmd(), &upload, &[all(0)]);
        batch.end_command(Box::new(|_| {}));
        batch.begin_command(true);
        record_dispatch(&mut batch, &pipeline, &bound, &[], 0, &[([0; 3], [N, N, 1])]).expect("dispatch");
        batch.end_command(Box::new(|_| {}));
        batch.begin_command(true);
        dst.copy_to(batch.cmd(), &readback, &[all(0)]);
        batch.end_command(Box::new(|_| {}));
        // Until the batch retires, which may come after it has executed.
        batch.keep((pipeline, src, dst, upload, readback.clone()));
        let Ok((value, _)) = batch.submit() else { panic!("the batch was not submitted") };
        gpu.tracker.wait_for(&gpu, value);

        // SAFETY: the copy has completed; the buffer holds the texels.
        let out = unsafe { std::slice::from_raw_parts(readback.mapped().expect("mapped").as_ptr(), 4 * texels) };
        let expected: Vec<u8> = bytes.iter().flat_map(|&b| [0, 0, 0, b]).collect();
        assert_eq!(out, &expected[..]);
    }
}
