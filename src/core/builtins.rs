//! The runtime's own kernels (`shaders/builtins.cl`): buffer copies and fills by compute, at
//! memory bandwidth. Ranges they cannot serve (not 16-byte aligned) go to the transfer commands.

use super::device::Device;
use super::kernel::{plan, Bound, LaunchMemory, NdRange};
use super::program::{build_executable, Executable};
use crate::cl::CLResult;
use crate::vk::batch::Batch;
use crate::vk::memory::Buffer;
use std::sync::Arc;

const SOURCE: &str = include_str!("../../shaders/builtins.cl");

/// Bytes each work-item moves: one `uint4`.
pub const ELEMENT: u64 = 16;
const GROUP: usize = 256;

pub struct Builtins {
    exe: Arc<Executable>,
    copy: usize,
    fill: usize,
}

/// A window of a buffer that a descriptor can bind: its aligned start and the first element.
struct Window {
    bind: u64,
    first: u32,
    size: u64,
}

impl Builtins {
    /// Compiles the built-in kernels for `device`; `None` if that fails (the transfer commands
    /// then do all the work).
    pub fn new(device: &Device) -> Option<Builtins> {
        let exe = build_executable(device, SOURCE, "").ok()?;
        let index = |name: &str| exe.program.kernels.iter().position(|k| k.name() == name);
        Some(Builtins { copy: index("copy_uint4")?, fill: index("fill_uint4")?, exe })
    }

    /// Records a copy of `size` bytes if the kernel can do it (16-byte aligned ends and size).
    /// The caller keeps both buffers alive until the batch has executed.
    pub fn copy(&self, device: &Device, batch: &mut Batch, (src, src_at): (&Buffer, u64), (dst, dst_at): (&Buffer, u64), size: u64) -> CLResult<bool> {
        if !(src_at | dst_at | size).is_multiple_of(ELEMENT) {
            return Ok(false);
        }
        for (at, len) in chunks(device, size) {
            let (s, d) = (window(device, src_at + at, len), window(device, dst_at + at, len));
            let count = (len / ELEMENT) as u32;
            let args = vec![
                Bound::Buffer { raw: src.raw, capacity: src.size, offset: s.bind, size: s.size },
                Bound::Buffer { raw: dst.raw, capacity: dst.size, offset: d.bind, size: d.size },
                Bound::Pod(s.first.to_le_bytes().to_vec()),
                Bound::Pod(d.first.to_le_bytes().to_vec()),
                Bound::Pod(count.to_le_bytes().to_vec()),
            ];
            plan(device, &self.exe, self.copy, &range(count), args, LaunchMemory::default())?(batch)?;
        }
        Ok(true)
    }

    /// Records a fill with a 16-byte `value` if the kernel can do it (16-byte aligned range).
    pub fn fill(&self, device: &Device, batch: &mut Batch, (dst, dst_at): (&Buffer, u64), size: u64, value: [u8; 16]) -> CLResult<bool> {
        if !(dst_at | size).is_multiple_of(ELEMENT) {
            return Ok(false);
        }
        for (at, len) in chunks(device, size) {
            let d = window(device, dst_at + at, len);
            let count = (len / ELEMENT) as u32;
            let args = vec![
                Bound::Buffer { raw: dst.raw, capacity: dst.size, offset: d.bind, size: d.size },
                Bound::Pod(d.first.to_le_bytes().to_vec()),
                Bound::Pod(count.to_le_bytes().to_vec()),
                Bound::Pod(value.to_vec()),
            ];
            plan(device, &self.exe, self.fill, &range(count), args, LaunchMemory::default())?(batch)?;
        }
        Ok(true)
    }
}

fn range(count: u32) -> NdRange {
    NdRange { work_dim: 1, offset: [0; 3], global: [(count as usize).next_multiple_of(GROUP), 1, 1], local: [GROUP, 1, 1] }
}

/// Splits `size` bytes into pieces a descriptor can bind, with room for the alignment slack.
fn chunks(device: &Device, size: u64) -> impl Iterator<Item = (u64, u64)> {
    let l = device.limits();
    let max = (l.max_storage_buffer_range as u64 - l.min_storage_buffer_offset_alignment).min(1 << 30) / ELEMENT * ELEMENT;
    (0..size).step_by(max as usize).map(move |at| (at, max.min(size - at)))
}

/// The descriptor window for bytes `at..at + len` of a buffer.
fn window(device: &Device, at: u64, len: u64) -> Window {
    let bind = at / device.limits().min_storage_buffer_offset_alignment * device.limits().min_storage_buffer_offset_alignment;
    Window { bind, first: ((at - bind) / ELEMENT) as u32, size: at - bind + len }
}
