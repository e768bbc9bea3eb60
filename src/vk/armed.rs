//! Armed batches: a launch submitted ahead of the application's command for it, parked on the
//! GPU behind an event (its *gate*) until the host sets it. Setting an event the GPU waits for
//! starts work sooner than a submission does (NVIDIA's Vulkan driver: 3.4–4.1 µs from
//! `vkSetEvent` to the host seeing a write, against 9.7–10.0 µs from `vkQueueSubmit2`).
//! The dispatch is indirect, from group counts that stay zero unless the batch is released, so
//! a batch cancelled by setting its gate runs nothing. See docs/design.md, "Armed launches".

use super::batch::{Batch, Done};
use super::device::Gpu;
use super::memory::{Buffer, Placement};
use crate::cl::clock::now_ns;
use ash::vk;
use std::sync::{Arc, MutexGuard};
use std::time::Instant;

/// An armed batch's event and indirect group counts.
pub struct Gate {
    gpu: Arc<Gpu>,
    event: vk::Event,
    counts: Buffer,
    /// The counts the one dispatch will run with once released.
    held: Option<[u32; 3]>,
}

impl Gate {
    fn new(gpu: &Arc<Gpu>) -> Result<Gate, vk::Result> {
        let counts = Buffer::new(gpu, 16, Placement::Upload)?;
        let zeros = counts.mapped().ok_or(vk::Result::ERROR_MEMORY_MAP_FAILED)?;
        // SAFETY: the new buffer is mapped and 16 bytes long.
        unsafe { std::ptr::write_bytes(zeros.as_ptr(), 0, 16) };
        // SAFETY: valid create info.
        let event = unsafe { gpu.device.create_event(&vk::EventCreateInfo::default(), None) }?;
        Ok(Gate { gpu: gpu.clone(), event, counts, held: None })
    }

    /// The buffer a dispatch of `counts` reads its group counts from: an armed batch holds one
    /// dispatch only.
    pub(super) fn hold(&mut self, counts: [u32; 3]) -> Result<vk::Buffer, vk::Result> {
        if self.held.replace(counts).is_some() {
            return Err(vk::Result::ERROR_FEATURE_NOT_PRESENT);
        }
        Ok(self.counts.raw)
    }

    /// Lets the batch go: with its counts (`run`), or with zeros, so that it runs nothing.
    fn open(&self, run: bool) {
        if let (true, Some(counts), Some(p)) = (run, self.held, self.counts.mapped()) {
            // SAFETY: the mapping is 16 bytes long; the GPU reads it only after the event.
            unsafe { std::ptr::copy_nonoverlapping(counts.as_ptr(), p.as_ptr().cast::<u32>(), 3) };
        }
        // SAFETY: a live event of this device; setting it from the host is allowed while a
        // submitted command buffer waits for it (with the host stage in its wait).
        let result = unsafe { self.gpu.device.set_event(self.event) };
        if let Err(e) = result {
            super::batch::lost_if(&self.gpu, e);
        }
    }
}

impl Drop for Gate {
    fn drop(&mut self) {
        // SAFETY: the batch that waited for the event has retired (or was never submitted).
        self.gpu.unless_abandoned(|| unsafe { self.gpu.device.destroy_event(self.event, None) });
    }
}

/// The device's armed batch, submitted as timeline `value` for the queue `owner`.
pub struct Armed {
    batch: Batch,
    value: u64,
    owner: usize,
    since: Instant,
}

impl Batch {
    /// A batch to arm: before anything else it waits for its gate, which the host sets; what
    /// the host wrote before setting it (the group counts) is visible to its commands.
    pub fn new_armed(gpu: &Arc<Gpu>, profiling: bool) -> Result<Batch, vk::Result> {
        let mut batch = Batch::new(gpu, profiling)?;
        let gate = Gate::new(gpu)?;
        let host_writes = [vk::MemoryBarrier::default().src_access_mask(vk::AccessFlags::HOST_WRITE).dst_access_mask(vk::AccessFlags::MEMORY_READ)];
        // SAFETY: the batch is recording; the event lives as long as the batch.
        unsafe { gpu.device.cmd_wait_events(batch.cmd(), &[gate.event], vk::PipelineStageFlags::HOST, vk::PipelineStageFlags::ALL_COMMANDS, &host_writes, &[], &[]) };
        batch.gate = Some(gate);
        Ok(batch)
    }

    /// Submits this armed batch (its one command recorded) for `owner`, a queue; it replaces
    /// the device's armed batch, which is cancelled.
    pub fn arm(self, owner: usize) -> Result<(), vk::Result> {
        if self.gate.as_ref().is_none_or(|g| g.held.is_none()) {
            return Err(vk::Result::ERROR_FEATURE_NOT_PRESENT);
        }
        let gpu = self.gpu().clone();
        let queue = gpu.queue.lock().unwrap_or_else(|e| e.into_inner());
        // This cancels the batch armed before (`submit_as`).
        let value = self.end_and_submit(&queue, false)?;
        *gpu.armed.lock().unwrap_or_else(|e| e.into_inner()) = Some(Armed { batch: self, value, owner, since: Instant::now() });
        drop(queue);
        gpu.tracker.armed();
        Ok(())
    }
}

impl Gpu {
    /// Releases the batch armed for `owner` to run its command, whose completion step becomes
    /// `done`; returns its timeline value and the host time of release, or `None` when none is
    /// armed for `owner` (it was cancelled).
    pub fn release_armed(self: &Arc<Self>, owner: usize, done: Done) -> Option<(u64, u64)> {
        let _queue = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        let Armed { mut batch, value, .. } = self.take_armed(owner)?;
        batch.done = vec![done];
        batch.submitted_at = now_ns();
        if let Some(gate) = &batch.gate {
            gate.open(true);
        }
        let at = batch.submitted_at;
        self.tracker.push(self, value, batch);
        Some((value, at))
    }

    /// Takes the batch armed for `owner` out of its slot. The slot's lock is held for no
    /// longer: it is a leaf lock, which the completion thread takes holding the tracker's, so
    /// holding it across `Tracker::push` deadlocked (the benchmark hung in CI, 2026-11-28).
    fn take_armed(&self, owner: usize) -> Option<Armed> {
        let mut armed = self.armed.lock().unwrap_or_else(|e| e.into_inner());
        armed.take_if(|a| a.owner == owner)
    }

    /// Whether a batch is armed for `owner`.
    pub fn armed_for(&self, owner: usize) -> bool {
        self.armed.lock().unwrap_or_else(|e| e.into_inner()).as_ref().is_some_and(|a| a.owner == owner)
    }

    /// Cancels the armed batch, if any.
    pub fn disarm(self: &Arc<Self>) {
        let queue = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        self.disarm_locked(&queue);
    }

    /// Cancels the armed batch: it runs nothing and enters the tracker in timeline order. The
    /// caller holds the queue's lock.
    pub(super) fn disarm_locked(self: &Arc<Self>, _queue: &MutexGuard<'_, vk::Queue>) {
        let armed = self.armed.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(Armed { batch, value, .. }) = armed {
            if let Some(gate) = &batch.gate {
                gate.open(false);
            }
            self.tracker.push(self, value, batch);
        }
    }

    /// How long the armed batch has waited, if there is one.
    pub(super) fn armed_for_how_long(&self) -> Option<std::time::Duration> {
        self.armed.lock().unwrap_or_else(|e| e.into_inner()).as_ref().map(|a| a.since.elapsed())
    }
}
