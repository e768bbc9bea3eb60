//! Shared virtual memory, coarse-grain buffers: allocations carved from a few large buffers of
//! the context (heaps), each mapped into the host for its whole life, so that an allocation's
//! address is the same number on the host and in kernels (`docs/design.md`, "64-bit addresses
//! and shared virtual memory").

use super::memory::GRANULE;
use crate::vk::device::Gpu;
use crate::vk::memory::{Buffer, Placement};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Heaps a context may have: kernels reach each through a binding of its own.
pub const MAX_HEAPS: usize = 4;
/// The first heap's size; each later one is 16 times the previous (within the device's limit).
const FIRST_HEAP: u64 = 64 << 20;

/// One heap: a buffer mapped at host address `base`, and its free byte ranges.
pub struct Heap {
    pub buffer: Arc<Buffer>,
    pub base: usize,
    free: FreeList,
}

/// Free byte ranges of a heap, offset → length, none adjacent to another.
struct FreeList(BTreeMap<u64, u64>);

/// Where an address lies: its heap's buffer, its offset there, and the bytes from it to the end
/// of its allocation.
pub struct Place {
    pub buffer: Arc<Buffer>,
    pub offset: u64,
    pub remaining: u64,
}

/// A context's heaps and live allocations (address → size).
#[derive(Default)]
pub struct Svm {
    heaps: Vec<Heap>,
    allocations: BTreeMap<usize, u64>,
}

impl Heap {
    fn new(gpu: &Arc<Gpu>, size: u64) -> Option<Heap> {
        // Device memory where the host can map all of it, else host memory: mapped either way.
        let placement = if gpu.props.mappable_vram() { Placement::Device } else { Placement::Upload };
        let buffer = Buffer::new(gpu, size, placement).ok()?;
        let base = buffer.mapped()?.as_ptr() as usize;
        Some(Heap { buffer: Arc::new(buffer), base, free: FreeList::new(size) })
    }

    fn take(&mut self, size: u64, align: u64) -> Option<u64> {
        self.free.take(self.base as u64, size, align)
    }

    fn holds(&self, address: usize) -> bool {
        (self.base..self.base + self.buffer.size as usize).contains(&address)
    }
}

impl FreeList {
    fn new(size: u64) -> FreeList {
        FreeList(BTreeMap::from([(0, size)]))
    }

    /// The offset of `size` free bytes whose address (`base` + offset) is a multiple of
    /// `align`, first fit.
    fn take(&mut self, base: u64, size: u64, align: u64) -> Option<u64> {
        let (start, len, at) = self.0.iter().find_map(|(&start, &len)| {
            let at = (base + start).next_multiple_of(align) - base;
            (at + size <= start + len).then_some((start, len, at))
        })?;
        self.0.remove(&start);
        if at > start {
            self.0.insert(start, at - start);
        }
        if at + size < start + len {
            self.0.insert(at + size, start + len - at - size);
        }
        Some(at)
    }

    /// Returns `size` bytes at `offset`, merged with free neighbours.
    fn give_back(&mut self, offset: u64, size: u64) {
        let (mut start, mut end) = (offset, offset + size);
        if let Some((&before, &len)) = self.0.range(..start).next_back() {
            if before + len == start {
                self.0.remove(&before);
                start = before;
            }
        }
        if let Some(len) = self.0.remove(&end) {
            end += len;
        }
        self.0.insert(start, end - start);
    }
}

impl Svm {
    /// The address of `size` new bytes aligned to `align` (a power of two), from a heap of at
    /// most `limit` bytes; None where no heap has room and no new one can be made.
    pub fn alloc(&mut self, gpu: &Arc<Gpu>, size: u64, align: u64, limit: u64) -> Option<usize> {
        let padded = size.next_multiple_of(GRANULE);
        let found = self.heaps.iter_mut().find_map(|h| h.take(padded, align).map(|at| h.base + at as usize));
        let address = match found {
            Some(address) => address,
            None if self.heaps.len() < MAX_HEAPS => {
                let scaled = FIRST_HEAP << (4 * self.heaps.len() as u32);
                let size = scaled.max(padded + align).min(limit / GRANULE * GRANULE);
                let mut heap = Heap::new(gpu, size)?;
                let at = heap.take(padded, align)?;
                let address = heap.base + at as usize;
                self.heaps.push(heap);
                address
            }
            None => return None,
        };
        self.allocations.insert(address, padded);
        Some(address)
    }

    /// Frees the allocation at `address`; false where none starts there.
    pub fn free(&mut self, address: usize) -> bool {
        let Some(size) = self.allocations.remove(&address) else { return false };
        if let Some(heap) = self.heaps.iter_mut().find(|h| h.holds(address)) {
            heap.free.give_back((address - heap.base) as u64, size);
        }
        true
    }

    /// The allocation holding `address`, if any.
    pub fn find(&self, address: usize) -> Option<Place> {
        let (&start, &size) = self.allocations.range(..=address).next_back()?;
        if address >= start + size as usize {
            return None;
        }
        let heap = self.heaps.iter().find(|h| h.holds(address))?;
        Some(Place { buffer: heap.buffer.clone(), offset: (address - heap.base) as u64, remaining: (start + size as usize - address) as u64 })
    }

    /// The heaps' buffers and host bases, in the order kernels bind them.
    pub fn heaps(&self) -> Vec<(Arc<Buffer>, usize)> {
        self.heaps.iter().map(|h| (h.buffer.clone(), h.base)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::FreeList;

    #[test]
    fn free_ranges_are_taken_aligned_and_merged_when_given_back() {
        let mut free = FreeList::new(1024);
        // Base 8: the first 256-aligned address is at offset 248.
        assert_eq!(free.take(8, 64, 256), Some(248));
        assert_eq!(free.take(8, 32, 8), Some(0));
        assert_eq!(free.take(8, 1024, 8), None);
        assert_eq!(free.0, [(32, 216), (312, 712)].into());
        free.give_back(248, 64);
        assert_eq!(free.0, [(32, 992)].into());
        free.give_back(0, 32);
        assert_eq!(free.0, [(0, 1024)].into());
    }
}
