//! Buffers: device memory from gpu-allocator, sub-buffers, maps, and the transfer commands.

use super::context::{Callback, Context};
use super::builtins::ELEMENT;
use super::device::Device;
use super::image::{Image, MapRegion};
use super::queue::{HostStep, Queue, Work};
use crate::cl::CLResult;
use crate::cl::object::{object, Header, Kind};
use crate::cl::types::*;
use crate::vk::batch::Batch;
use crate::vk::memory::{Buffer, Placement, Staging, StagingPool};
use crate::vk::transfer::{Bounce, CopyEngine, HostBuffer};
use crate::vk::vk;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

/// An application pointer carried into a host step on the completion thread.
#[derive(Clone, Copy)]
pub struct HostPtr(pub *mut u8);
// SAFETY: OpenCL makes the application keep the memory valid until the command completes.
unsafe impl Send for HostPtr {}

impl HostPtr {
    /// The pointer; closures call this so they capture the `Send` wrapper, not the field.
    pub(super) fn get(self) -> *mut u8 {
        self.0
    }
}

#[repr(C)]
pub struct Mem {
    pub(super) header: Header,
    pub context: Arc<Context>,
    pub flags: cl_mem_flags,
    pub size: usize,
    /// The application's pointer of a `CL_MEM_USE_HOST_PTR` buffer (offset for sub-buffers).
    pub host_ptr: *mut c_void,
    pub properties: Vec<cl_mem_properties>,
    pub parent: Option<Arc<Mem>>,
    /// Offset in the parent of a sub-buffer.
    pub origin: usize,
    /// The Vulkan buffer of a buffer, a sub-buffer or an `IMAGE1D_BUFFER` image (its buffer's);
    /// `None` for the other images, whose texels live in a Vulkan image (`image`).
    pub buffer: Option<Arc<Buffer>>,
    /// What makes this object an image.
    pub image: Option<Image>,
    /// Offset of this object's first byte in `buffer`.
    pub base: u64,
    /// Over shared virtual memory (`over_svm`): its host address is its bytes' own.
    pub svm: bool,
    pub(super) maps: Mutex<Vec<Mapping>>,
    /// The `host_ptr` memory imported for the copy engines at the first blocking map (see
    /// [`Mem::map_by_engine`]), with `host_ptr`'s offset in it; `None` where it cannot be.
    pub(super) host_import: OnceLock<Option<(HostBuffer, u64)>>,
    pub(super) destructors: Mutex<Vec<Callback<ObjectCallback<cl_mem>>>>,
}
object!(Mem, Mem, CL_INVALID_MEM_OBJECT);

// SAFETY: `host_ptr` is only dereferenced by commands, which OpenCL orders with the application.
unsafe impl Send for Mem {}
unsafe impl Sync for Mem {}

/// A live map of a region: where the application sees it, and the staging memory behind it
/// when the buffer itself cannot be mapped there.
pub(super) struct Mapping {
    pub ptr: usize,
    pub offset: usize,
    pub size: usize,
    pub write: bool,
    pub staging: Option<Arc<Staging>>,
    /// The region of an image mapping (a buffer's is `offset` and `size`).
    pub image: Option<MapRegion>,
}

/// Buffers are allocated and bound in whole multiples of this (the widest single store, a
/// `double4`; kernels also see 8- and 16-bit data as 32-bit words, whose last must exist
/// whole): a vector store that runs past a buffer's end keeps its parts inside it, as
/// NVIDIA's OpenCL does (piglit's `int2` store into an `int[1]` buffer), where
/// `robustBufferAccess` would drop the whole store.
pub const GRANULE: u64 = 32;

/// Blocking reads from this size on go through staging in chunks of `READ_CHUNK`, the copy
/// engines and host threads working at once.
const PIPELINED_READ: usize = 8 << 20;
const READ_CHUNK: usize = 16 << 20;

pub(super) fn device_error(_: vk::Result) -> cl_int {
    CL_MEM_OBJECT_ALLOCATION_FAILURE
}

/// Makes a memory object's Vulkan resource by `make`; where memory runs out, once more after
/// retiring the batches that have executed, whose objects (released buffers among them) are
/// only freed once retired (`vk::completion`). Call it holding no lock of the driver's.
pub(super) fn allocate<T>(device: &Device, make: impl Fn() -> Result<T, vk::Result>) -> CLResult<T> {
    make()
        .or_else(|e| match e {
            vk::Result::ERROR_OUT_OF_DEVICE_MEMORY | vk::Result::ERROR_OUT_OF_HOST_MEMORY => {
                device.gpu.tracker.retire_executed(&device.gpu);
                make()
            }
            _ => Err(e),
        })
        .map_err(device_error)
}

/// Records a copy of `regions` (src offset, dst offset, size) between two Vulkan buffers: one
/// region by the copy kernel where it can (`vkCmdCopyBuffer` crawls on some GPUs, from VRAM to
/// host memory most of all), anything else by `vkCmdCopyBuffer`.
pub(super) fn copy_regions(device: &Device, batch: &mut Batch, src: &Buffer, dst: &Buffer, regions: &[vk::BufferCopy]) -> CLResult<()> {
    if let (Some(b), [r]) = (device.builtins(), regions) {
        if b.copy(device, batch, (src, r.src_offset), (dst, r.dst_offset), r.size)? {
            return Ok(());
        }
    }
    // SAFETY: the batch is recording; regions lie inside both buffers (checked by the API).
    unsafe { batch.gpu().device.cmd_copy_buffer(batch.cmd(), src.raw, dst.raw, regions) };
    Ok(())
}

pub(super) fn span(src: u64, dst: u64, size: u64) -> vk::BufferCopy {
    vk::BufferCopy { src_offset: src, dst_offset: dst, size }
}

pub(super) fn staging(device: &Device, size: usize, placement: Placement) -> CLResult<Arc<Staging>> {
    StagingPool::get(&device.gpu, size as u64, placement).map(Arc::new).map_err(device_error)
}

/// Copies `len` bytes into mapped memory.
pub(super) unsafe fn copy_bytes(src: *const u8, dst: *mut u8, len: usize) {
    // Large copies on several threads: one does not saturate host memory.
    crate::vk::transfer::parallel_copy(src, dst, len);
}

pub(super) fn mapped(buffer: &Buffer) -> CLResult<*mut u8> {
    buffer.mapped().map(|p| p.as_ptr()).ok_or(CL_OUT_OF_RESOURCES)
}

/// The rows of a rectangular region: `(offset, len)` for every row, given an origin and pitches.
fn rect_rows(origin: [usize; 3], region: [usize; 3], row_pitch: usize, slice_pitch: usize) -> impl Iterator<Item = usize> {
    (0..region[2]).flat_map(move |z| (0..region[1]).map(move |y| origin[0] + (origin[1] + y) * row_pitch + (origin[2] + z) * slice_pitch))
}

/// One item per row of `region`, collected with fallible allocation: an application's
/// rectangle may have billions of rows.
fn per_row<T>(region: [usize; 3], rows: impl Iterator<Item = T>) -> CLResult<Vec<T>> {
    let mut out = Vec::new();
    out.try_reserve_exact(region[1] * region[2]).map_err(|_| CL_OUT_OF_HOST_MEMORY)?;
    out.extend(rows);
    Ok(out)
}

/// A rectangle in a buffer or in host memory.
#[derive(Clone, Copy)]
pub struct Rect {
    pub origin: [usize; 3],
    pub row_pitch: usize,
    pub slice_pitch: usize,
}

impl Rect {
    pub(super) fn rows(&self, region: [usize; 3]) -> impl Iterator<Item = usize> {
        rect_rows(self.origin, region, self.row_pitch, self.slice_pitch)
    }
}

impl Mem {
    pub fn new_buffer(context: Arc<Context>, flags: cl_mem_flags, size: usize, host_ptr: *mut c_void, properties: Vec<cl_mem_properties>) -> CLResult<Arc<Mem>> {
        let device = context.devices.first().ok_or(CL_INVALID_CONTEXT)?;
        let padded = (size as u64).next_multiple_of(GRANULE);
        let buffer = Arc::new(allocate(device, || Buffer::new(&device.gpu, padded, Placement::Device))?);
        if flags & (CL_MEM_COPY_HOST_PTR | CL_MEM_USE_HOST_PTR) != 0 {
            // SAFETY: the application passes `size` readable bytes.
            let data = unsafe { std::slice::from_raw_parts(host_ptr as *const u8, size) };
            upload_now(device, &buffer, 0, data)?;
        }
        let host_ptr = if flags & CL_MEM_USE_HOST_PTR != 0 { host_ptr } else { std::ptr::null_mut() };
        Ok(Arc::new(Mem {
            header: Header::new(Kind::Mem),
            context,
            flags,
            size,
            host_ptr,
            properties,
            parent: None,
            origin: 0,
            buffer: Some(buffer),
            image: None,
            base: 0,
            svm: false,
            maps: Mutex::default(),
            host_import: OnceLock::new(),
            destructors: Mutex::default(),
        }))
    }

    pub fn new_sub_buffer(parent: &Arc<Mem>, flags: cl_mem_flags, origin: usize, size: usize) -> Arc<Mem> {
        let host_ptr = if parent.host_ptr.is_null() { parent.host_ptr } else { parent.host_ptr.wrapping_byte_add(origin) };
        Arc::new(Mem {
            header: Header::new(Kind::Mem),
            context: parent.context.clone(),
            flags,
            size,
            host_ptr,
            properties: Vec::new(),
            parent: Some(parent.clone()),
            origin,
            buffer: parent.buffer.clone(),
            image: None,
            base: parent.base + origin as u64,
            svm: parent.svm,
            maps: Mutex::default(),
            host_import: OnceLock::new(),
            destructors: Mutex::default(),
        })
    }

    /// A buffer object with `flags` over `size` bytes of SVM at `place` (`core::svm`): a
    /// buffer the application makes on an SVM pointer, or how SVM pointers reach the commands
    /// and kernel arguments of buffers. It has no host pointer of its own: its bytes are mapped
    /// where the application sees them. A kernel may reach past its end, into the rest of the
    /// heap, as one address space allows.
    pub fn over_svm(context: Arc<Context>, flags: cl_mem_flags, place: &super::svm::Place, size: usize, properties: Vec<cl_mem_properties>) -> Arc<Mem> {
        Arc::new(Mem {
            header: Header::new(Kind::Mem),
            context,
            flags,
            size,
            host_ptr: std::ptr::null_mut(),
            properties,
            parent: None,
            origin: 0,
            buffer: Some(place.buffer.clone()),
            image: None,
            base: place.offset,
            svm: true,
            maps: Mutex::default(),
            host_import: OnceLock::new(),
            destructors: Mutex::default(),
        })
    }

    /// The host address of the first byte of a buffer over shared virtual memory, which
    /// kernels see as its address too; 0 for other buffers.
    pub fn svm_address(&self) -> u64 {
        let mapped = self.buffer.as_ref().filter(|_| self.svm).and_then(|b| b.mapped());
        mapped.map_or(0, |p| p.as_ptr() as u64 + self.base)
    }

    /// `CL_MEM_HOST_PTR`: the application's pointer, which for a buffer on SVM is its bytes'
    /// own address (not kept in `host_ptr`, which would make maps copy onto themselves).
    pub fn app_host_ptr(&self) -> *mut c_void {
        let mapped = || self.buffer.as_ref().and_then(|b| b.mapped()).map_or(std::ptr::null_mut(), |p| p.as_ptr().wrapping_add(self.base as usize).cast());
        if self.svm && self.flags & CL_MEM_USE_HOST_PTR != 0 { mapped() } else { self.host_ptr }
    }

    /// The Vulkan buffer behind a buffer (the API passes images elsewhere).
    pub fn buf(&self) -> CLResult<&Arc<Buffer>> {
        self.buffer.as_ref().ok_or(CL_INVALID_MEM_OBJECT)
    }

    pub(super) fn maps(&self) -> MutexGuard<'_, Vec<Mapping>> {
        self.maps.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn map_count(&self) -> cl_uint {
        self.maps().len() as cl_uint
    }

    pub fn add_destructor(&self, cb: Callback<ObjectCallback<cl_mem>>) {
        self.destructors.lock().unwrap_or_else(|e| e.into_inner()).push(cb);
    }

    /// Commands can use the buffer only on the device that holds its memory.
    pub fn check_queue(&self, queue: &Queue) -> CLResult<()> {
        match self.context.devices.first() {
            Some(d) if Arc::ptr_eq(d, &queue.device) => Ok(()),
            _ => Err(CL_INVALID_OPERATION),
        }
    }

    /// Copies a host rectangle straight into the buffer's mapping, if it has one. Only for a
    /// command that may execute now (see `Queue::execute_now`).
    ///
    /// # Safety
    /// `src` holds the host rectangle, which the caller has checked.
    pub unsafe fn write_mapped(&self, buf: Rect, host: Rect, region: [usize; 3], src: *const u8) -> bool {
        let Some(base) = self.buffer.as_ref().and_then(|b| b.mapped()) else { return false };
        let base = base.as_ptr().wrapping_add(self.base as usize);
        for (b, h) in buf.rows(region).zip(host.rows(region)) {
            // SAFETY: both rectangles were checked by the API; nothing else uses the buffer now.
            unsafe { copy_bytes(src.add(h), base.add(b), region[0]) };
        }
        true
    }

    /// Copies a buffer rectangle straight out of its mapping, if host reads of it are fast.
    ///
    /// # Safety
    /// `dst` has room for the host rectangle, which the caller has checked.
    pub unsafe fn read_mapped(&self, buf: Rect, host: Rect, region: [usize; 3], dst: *mut u8) -> bool {
        let Some(base) = self.buffer.as_ref().filter(|b| b.host_cached()).and_then(|b| b.mapped()) else { return false };
        let base = base.as_ptr().wrapping_add(self.base as usize);
        for (b, h) in buf.rows(region).zip(host.rows(region)) {
            // SAFETY: both rectangles were checked by the API; the buffer is idle.
            unsafe { copy_bytes(base.add(b), dst.add(h), region[0]) };
        }
        true
    }

    /// Reads a buffer rectangle with the copy engines, straight into the application's memory
    /// where the driver can import it, else through staging. Only for a command that may execute
    /// now (see `Queue::execute_now`); false where the device has no copy engine or it failed.
    ///
    /// # Safety
    /// `dst` has room for the host rectangle, which the caller has checked.
    pub unsafe fn read_by_engine(&self, device: &Device, buf: Rect, host: Rect, region: [usize; 3], dst: *mut u8) -> bool {
        let gpu = &device.gpu;
        let (Some(engine), Some(buffer)) = (&gpu.copy_engine, &self.buffer) else { return false };
        let Ok(rows) = per_row(region, buf.rows(region).zip(host.rows(region))) else { return false };
        let host_end = rows.iter().map(|(_, h)| h + region[0]).max().unwrap_or(0);
        let Ok(after) = gpu.tracker.executed_signal(gpu) else { return false };
        if let [(b, h)] = rows[..] {
            if region[0] >= PIPELINED_READ {
                return self.read_pipelined(device, engine, self.base + b as u64, dst.add(h), region[0], after);
            }
        }
        let copy = |to: vk::Buffer, at: &dyn Fn(usize, usize) -> u64| {
            let Ok(regions) = per_row(region, rows.iter().enumerate().map(|(i, (b, h))| span(self.base + *b as u64, at(i, *h), region[0] as u64))) else { return false };
            engine.copy_and_wait(gpu, buffer.raw, to, &regions, after).is_ok()
        };
        if let Some((imported, offset)) = engine.import(gpu, dst, host_end) {
            return copy(imported.buffer, &|_, h| offset + h as u64);
        }
        let Ok(readback) = staging(device, region[0] * rows.len(), Placement::Readback) else { return false };
        let Ok(src) = mapped(&readback) else { return false };
        if !copy(readback.raw, &|i, _| (i * region[0]) as u64) {
            return false;
        }
        for (i, (_, h)) in rows.iter().enumerate() {
            copy_bytes(src.add(i * region[0]), dst.add(*h), region[0]);
        }
        true
    }

    /// Whether a read of `region` that cannot run at once is better done by the host when its
    /// command's turn comes (`Queue::enqueue_host`) than recorded: a large read then goes by the
    /// copy engines through two small staging buffers, or straight out of a host-cached
    /// mapping, where a recorded one takes staging as large as itself for as long as it is in
    /// flight (clpeak's non-blocking reads of 1 GiB: 1.6–3 GB/s on the H200, where one read
    /// of 1 GiB waited for on its own runs at 21).
    /// Only one row goes by the engines that way: rectangles would import the application's
    /// memory, about 100 ms per GiB on NVIDIA.
    pub fn reads_on_host(&self, device: &Device, region: [usize; 3]) -> bool {
        let (large, linear) = (region.iter().product::<usize>() >= PIPELINED_READ, region[1] * region[2] == 1);
        large && self.buffer.as_ref().is_some_and(|b| b.host_cached() || (linear && device.gpu.copy_engine.is_some()))
    }

    /// The read of a host command (see [`Mem::reads_on_host`]): from the mapping or by the
    /// copy engines, as a blocking read on an idle queue; should both fail, through a batch of
    /// its own, as every command it follows has completed.
    ///
    /// # Safety
    /// `dst` has room for the host rectangle, which the caller has checked.
    pub unsafe fn read_on_host(self: &Arc<Self>, device: &Arc<Device>, buf: Rect, host: Rect, region: [usize; 3], dst: HostPtr) -> CLResult<()> {
        if self.read_mapped(buf, host, region, dst.get()) || self.read_by_engine(device, buf, host, region, dst.get()) {
            return Ok(());
        }
        let work = self.read_rect(device, buf, host, region, dst)?;
        let mut step = None;
        run_now(device, |batch| {
            step = work(batch)?;
            Ok(())
        })?;
        step.into_iter().for_each(|s| s());
        Ok(())
    }

    /// A large read by the copy engines through two staging buffers (see
    /// `CopyEngine::read_through`).
    ///
    /// # Safety
    /// `dst` has room for `len` bytes.
    unsafe fn read_pipelined(&self, device: &Device, engine: &CopyEngine, offset: u64, dst: *mut u8, len: usize, after: u64) -> bool {
        let Some(buffer) = &self.buffer else { return false };
        let chunk = READ_CHUNK.min(len);
        let (Ok(a), Ok(b)) = (staging(device, chunk, Placement::Readback), staging(device, chunk, Placement::Readback)) else { return false };
        let (Ok(pa), Ok(pb)) = (mapped(&a), mapped(&b)) else { return false };
        let bounce = Bounce { buffers: [(a.raw, pa.cast_const()), (b.raw, pb.cast_const())], chunk: chunk as u64 };
        engine.read_through(&device.gpu, (buffer.raw, offset), dst, len as u64, &bounce, after).is_ok()
    }

    /// `clEnqueueWriteBuffer(Rect)`: the data is copied into staging now, so the application's
    /// memory is free when the call returns; the copy into the buffer runs in order.
    ///
    /// # Safety
    /// `src` holds the host rectangle, which the caller has checked.
    pub unsafe fn write_rect(self: &Arc<Self>, device: &Arc<Device>, buf: Rect, host: Rect, region: [usize; 3], src: *const u8) -> CLResult<Work> {
        let row = region[0];
        let upload = staging(device, row * region[1] * region[2], Placement::Upload)?;
        let dst = mapped(&upload)?;
        for (i, h) in host.rows(region).enumerate() {
            // SAFETY: the API checked the host rectangle; staging holds every row.
            unsafe { copy_bytes(src.add(h), dst.add(i * row), row) };
        }
        let regions = per_row(region, buf.rows(region).enumerate().map(|(i, b)| region_in(self, i * row, b, row, true)))?;
        let (mem, device) = (self.clone(), device.clone());
        Ok(Box::new(move |batch| {
            copy_regions(&device, batch, &upload, mem.buf()?, &regions)?;
            batch.keep((upload, mem));
            Ok(None)
        }))
    }

    /// `clEnqueueReadBuffer(Rect)`: copied into staging in queue order, then out to the
    /// application on the completion thread. Even a host-readable buffer is copied first: by
    /// the time the completion thread runs, later commands may have written it.
    pub fn read_rect(self: &Arc<Self>, device: &Arc<Device>, buf: Rect, host: Rect, region: [usize; 3], dst: HostPtr) -> CLResult<Work> {
        let row = region[0];
        let host_rows = per_row(region, host.rows(region))?;
        let readback = staging(device, row * host_rows.len(), Placement::Readback)?;
        let regions = per_row(region, buf.rows(region).enumerate().map(|(i, b)| region_in(self, i * row, b, row, false)))?;
        let (mem, device) = (self.clone(), device.clone());
        Ok(Box::new(move |batch| {
            copy_regions(&device, batch, mem.buf()?, &readback, &regions)?;
            batch.keep(mem);
            let src = HostPtr(mapped(&readback)?);
            Ok(Some(Box::new(move || {
                for (i, h) in host_rows.iter().enumerate() {
                    // SAFETY: staging holds every row; the host rectangle was checked.
                    unsafe { copy_bytes(src.get().add(i * row), dst.get().add(*h), row) };
                }
                drop(readback);
            })))
        }))
    }

    /// `clEnqueueCopyBuffer(Rect)` from `self` into `dst`.
    pub fn copy_rect(self: &Arc<Self>, device: &Arc<Device>, dst: &Arc<Mem>, src_rect: Rect, dst_rect: Rect, region: [usize; 3]) -> CLResult<Work> {
        let rows = src_rect.rows(region).zip(dst_rect.rows(region));
        let regions = per_row(region, rows.map(|(s, d)| span(self.base + s as u64, dst.base + d as u64, region[0] as u64)))?;
        let (src, dst, device) = (self.clone(), dst.clone(), device.clone());
        Ok(Box::new(move |batch| {
            copy_regions(&device, batch, src.buf()?, dst.buf()?, &regions)?;
            batch.keep((src, dst));
            Ok(None)
        }))
    }

    /// `clEnqueueFillBuffer`: the fill kernel when the pattern repeats every 16 bytes on 16-byte
    /// boundaries, else `vkCmdFillBuffer` when it repeats a 32-bit word on 4-byte boundaries,
    /// otherwise copies of the pattern replicated in staging.
    pub fn fill(self: &Arc<Self>, device: &Arc<Device>, pattern: &[u8], offset: usize, size: usize) -> CLResult<Work> {
        let start = self.base + offset as u64;
        let mem = self.clone();
        let aligned = (start | size as u64).is_multiple_of(ELEMENT);
        if let (Some(value), true, Some(_)) = (fill_element(pattern), aligned, device.builtins()) {
            let device = device.clone();
            return Ok(Box::new(move |batch| {
                if let Some(b) = device.builtins() {
                    b.fill(&device, batch, (mem.buf()?, start), size as u64, value)?;
                }
                batch.keep(mem);
                Ok(None)
            }));
        }
        if let Some(word) = fill_word(pattern).filter(|_| start.is_multiple_of(4) && size.is_multiple_of(4)) {
            return Ok(Box::new(move |batch| {
                // SAFETY: recording; the range is 4-byte aligned and inside the buffer.
                unsafe { batch.gpu().device.cmd_fill_buffer(batch.cmd(), mem.buf()?.raw, start, size as u64, word) };
                batch.keep(mem);
                Ok(None)
            }));
        }
        const CHUNK: usize = 1 << 16;
        let chunk = size.min((CHUNK / pattern.len()).max(1) * pattern.len());
        let upload = staging(device, chunk, Placement::Upload)?;
        let dst = mapped(&upload)?;
        for i in (0..chunk).step_by(pattern.len()) {
            // SAFETY: `chunk` is a multiple of the pattern's length and fits in staging.
            unsafe { copy_bytes(pattern.as_ptr(), dst.add(i), pattern.len()) };
        }
        let regions: Vec<_> = (0..size).step_by(chunk).map(|at| span(0, start + at as u64, chunk.min(size - at) as u64)).collect();
        let device = device.clone();
        Ok(Box::new(move |batch| {
            copy_regions(&device, batch, &upload, mem.buf()?, &regions)?;
            batch.keep((upload, mem));
            Ok(None)
        }))
    }

    /// A blocking map for reading of memory the host reads slowly, done now by the copy engines:
    /// into staging, or for a `CL_MEM_USE_HOST_PTR` buffer straight into the application's
    /// memory; the pointer, or `None` to map the usual way. Only for a command that may execute
    /// now (see `Queue::execute_now`).
    pub fn map_by_engine(&self, device: &Device, flags: cl_map_flags, offset: usize, size: usize) -> Option<*mut c_void> {
        let gpu = &device.gpu;
        let engine = gpu.copy_engine.as_ref()?;
        let buffer = self.buffer.as_ref()?;
        if flags & CL_MAP_READ == 0 || buffer.host_cached() || self.svm {
            return None;
        }
        let after = gpu.tracker.executed_signal(gpu).ok()?;
        let write = flags & CL_MAP_WRITE != 0;
        if !self.host_ptr.is_null() {
            let (imported, at) = self.host_import(device, engine)?;
            let region = [span(self.base + offset as u64, at + offset as u64, size as u64)];
            engine.copy_and_wait(gpu, buffer.raw, imported.buffer, &region, after).ok()?;
            let ptr = self.host_ptr.wrapping_byte_add(offset);
            self.maps().push(Mapping { ptr: ptr as usize, offset, size, write, staging: None, image: None });
            return Some(ptr);
        }
        let readback = staging(device, size, Placement::Readback).ok()?;
        let region = [span(self.base + offset as u64, 0, size as u64)];
        engine.copy_and_wait(gpu, buffer.raw, readback.raw, &region, after).ok()?;
        let ptr = mapped(&readback).ok()?;
        self.maps().push(Mapping { ptr: ptr as usize, offset, size, write, staging: Some(readback), image: None });
        Some(ptr.cast())
    }

    /// The application's memory of a `CL_MEM_USE_HOST_PTR` buffer as a buffer the copy engines
    /// write, imported once for the buffer's life: an import costs about 100 ms per GiB on
    /// NVIDIA, and a copy into staging followed by one on the host ran at 20 GB/s there.
    fn host_import(&self, device: &Device, engine: &CopyEngine) -> Option<&(HostBuffer, u64)> {
        self.host_import.get_or_init(|| engine.import(&device.gpu, self.host_ptr.cast(), self.size)).as_ref()
    }

    /// `clEnqueueMapBuffer`: decides now where the application will see the region and returns
    /// that pointer with the command that makes the data valid there.
    pub fn map(self: &Arc<Self>, device: &Arc<Device>, flags: cl_map_flags, offset: usize, size: usize) -> CLResult<(*mut c_void, Work)> {
        let write = flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION) != 0;
        let invalidate = flags & CL_MAP_WRITE_INVALIDATE_REGION != 0;
        // Reads of uncached mappings (a GPU's VRAM seen through the BAR) crawl: map those for
        // reading through cached staging memory; writes go straight to the mapping. A buffer
        // in shared virtual memory maps at its SVM address, as the specification requires.
        let buffer = self.buf()?;
        let slow_reads = flags & CL_MAP_READ != 0 && !buffer.host_cached() && !self.svm;
        let direct = self.host_ptr.is_null() && buffer.mapped().is_some() && !slow_reads;
        let staging_buf = if direct { None } else { Some(staging(device, size, Placement::Readback)?) };
        let ptr = match (&staging_buf, self.host_ptr.is_null()) {
            (None, _) => mapped(buffer)?.wrapping_add(self.base as usize + offset),
            (Some(_), false) => self.host_ptr.cast::<u8>().wrapping_add(offset),
            (Some(s), true) => mapped(s)?,
        };
        self.maps().push(Mapping { ptr: ptr as usize, offset, size, write, staging: staging_buf.clone(), image: None });
        let (mem, device) = (self.clone(), device.clone());
        let host = HostPtr(ptr);
        let work: Work = Box::new(move |batch| {
            let Some(s) = staging_buf.filter(|_| !invalidate) else { return Ok(None) };
            copy_regions(&device, batch, mem.buf()?, &s, &[span(mem.base + offset as u64, 0, size as u64)])?;
            let into_host_ptr = !mem.host_ptr.is_null();
            batch.keep(mem);
            let src = HostPtr(mapped(&s)?);
            // A USE_HOST_PTR map shows the application's own memory: refresh it from the buffer.
            Ok(into_host_ptr.then(|| -> HostStep {
                Box::new(move || {
                    // SAFETY: the mapped region lies in the application's host_ptr allocation.
                    unsafe { copy_bytes(src.get(), host.get(), size) };
                    drop(s);
                })
            }))
        });
        Ok((ptr.cast(), work))
    }

    /// `clEnqueueUnmapMemObject`: forgets the mapping and writes mapped data back when needed.
    pub fn unmap(self: &Arc<Self>, device: &Arc<Device>, ptr: *mut c_void) -> CLResult<Work> {
        let mapping = {
            let mut maps = self.maps();
            let i = maps.iter().position(|m| m.ptr == ptr as usize).ok_or(CL_INVALID_VALUE)?;
            maps.remove(i)
        };
        let (mem, device) = (self.clone(), device.clone());
        if let Some(region) = mapping.image {
            return mem.unmap_image(device, mapping, region);
        }
        let source = match mapping.staging {
            _ if !mapping.write => None,
            Some(s) if self.host_ptr.is_null() => Some(s),
            None if self.host_ptr.is_null() => None,
            // The application's memory (through staging or not): upload what it wrote.
            _ => {
                let upload = staging(&device, mapping.size, Placement::Upload)?;
                // SAFETY: the application has finished writing the mapped region.
                unsafe { copy_bytes(ptr as *const u8, mapped(&upload)?, mapping.size) };
                Some(upload)
            }
        };
        Ok(Box::new(move |batch| {
            if let Some(s) = source {
                copy_regions(&device, batch, &s, mem.buf()?, &[span(0, mem.base + mapping.offset as u64, mapping.size as u64)])?;
                batch.keep(s);
            }
            batch.keep(mem);
            Ok(None)
        }))
    }
}

/// A copy region between staging (`staging_offset`) and a buffer row at `offset` in `mem`.
fn region_in(mem: &Mem, staging_offset: usize, offset: usize, len: usize, into_mem: bool) -> vk::BufferCopy {
    let (s, m) = (staging_offset as u64, mem.base + offset as u64);
    if into_mem {
        span(s, m, len as u64)
    } else {
        span(m, s, len as u64)
    }
}

/// The 16 bytes a pattern of 1, 2, 4, 8 or 16 bytes repeats, if it is one.
pub(super) fn fill_element(pattern: &[u8]) -> Option<[u8; 16]> {
    (16 % pattern.len() == 0).then(|| std::array::from_fn(|i| pattern[i % pattern.len()]))
}

/// The 32-bit word a pattern of 1, 2 or 4 bytes repeats, if it is one.
fn fill_word(pattern: &[u8]) -> Option<u32> {
    let word: [u8; 4] = match *pattern {
        [a] => [a; 4],
        [a, b] => [a, b, a, b],
        [a, b, c, d] => [a, b, c, d],
        _ => return None,
    };
    Some(u32::from_le_bytes(word))
}

/// Fills a new buffer with initial data before any queue can use it.
fn upload_now(device: &Device, buffer: &Arc<Buffer>, offset: u64, data: &[u8]) -> CLResult<()> {
    if let Some(p) = buffer.mapped() {
        // SAFETY: the buffer is new, mapped and at least `offset + data.len()` long.
        unsafe { copy_bytes(data.as_ptr(), p.as_ptr().add(offset as usize), data.len()) };
        return Ok(());
    }
    let upload = staging(device, data.len(), Placement::Upload)?;
    // SAFETY: staging holds `data.len()` bytes.
    unsafe { copy_bytes(data.as_ptr(), mapped(&upload)?, data.len()) };
    run_now(device, |batch| {
        copy_regions(device, batch, &upload, buffer, &[span(0, offset, data.len() as u64)])?;
        batch.keep((upload, buffer.clone()));
        Ok(())
    })
}

/// Records one command into a batch of its own, submits it and waits until it has executed:
/// the set-up of a new memory object, before any queue can use it. The wait completes nothing:
/// an event's callback may create memory objects, and it runs where batches are completed.
pub(super) fn run_now(device: &Device, record: impl FnOnce(&mut Batch) -> CLResult<()>) -> CLResult<()> {
    let gpu = &device.gpu;
    let mut batch = Batch::new(gpu, false).map_err(device_error)?;
    batch.begin_command(true);
    record(&mut batch)?;
    batch.end_command(Box::new(|_| {}));
    match batch.submit() {
        Ok((value, _)) => crate::vk::completion::spin_then_wait(gpu, value).map_err(|_| CL_OUT_OF_RESOURCES),
        Err(unsubmitted) => {
            unsubmitted.fail();
            Err(CL_OUT_OF_RESOURCES)
        }
    }
}

impl Drop for Mem {
    fn drop(&mut self) {
        // Before the callbacks, which may free the imported memory.
        drop(self.host_import.take());
        let handle = self as *mut Mem as cl_mem;
        let callbacks = std::mem::take(self.destructors.get_mut().unwrap_or_else(|e| e.into_inner()));
        for cb in callbacks.into_iter().rev() {
            if let Some(f) = cb.func {
                // SAFETY: the application's destructor callback, called once, last first.
                unsafe { f(handle, cb.user_data) };
            }
        }
    }
}
