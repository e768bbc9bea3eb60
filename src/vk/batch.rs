//! Command batches: commands are recorded into one command buffer and submitted together;
//! each command's completion step runs, with its (profiling) start and end times, once the batch
//! has executed (`completion`). The last command of a batch writes its timeline value into the
//! progress word (`progress`); only every `RETIRE_EVERY`th batch signals the timeline
//! semaphore.

use super::completion::RETIRE_EVERY;
use super::device::Gpu;
use crate::cl::clock::now_ns;
use ash::vk;
use std::any::Any;
use std::sync::atomic::Ordering;
use std::sync::{Arc, MutexGuard};

/// What runs once a command has executed: `Ok(Some([start, end]))` in host nanoseconds when the
/// batch was profiled, or the Vulkan error that lost the batch.
pub type Done = Box<dyn FnOnce(Result<Option<[u64; 2]>, vk::Result>) + Send>;

/// Commands per batch at most (a profiled batch has two timestamps per command).
pub const MAX_COMMANDS: u32 = 256;

pub struct Batch {
    gpu: Arc<Gpu>,
    pool: vk::CommandPool,
    cmd: vk::CommandBuffer,
    queries: Option<vk::QueryPool>,
    pub(super) done: Vec<Done>,
    keep: Vec<Box<dyn Any + Send + Sync>>,
    /// A command that touched memory was recorded since the last barrier. A batch starts
    /// ordered: every batch that touched memory ends with a full barrier, and a barrier orders
    /// all that is submitted to the queue after it, later batches included.
    unordered: bool,
    /// Some command touched memory: its writes must be made visible to the host.
    touched: bool,
    /// Host time just before submission: no command of the batch starts earlier.
    pub(super) submitted_at: u64,
    /// Commands recorded (each wrote two timestamps).
    recorded: u32,
    /// An armed batch's gate and group counts (`armed`).
    pub(super) gate: Option<super::armed::Gate>,
}

impl Batch {
    pub fn new(gpu: &Arc<Gpu>, profiling: bool) -> Result<Batch, vk::Result> {
        let d = &gpu.device;
        let (pool, cmd) = match gpu.recycled.lock().unwrap_or_else(|e| e.into_inner()).take_commands(gpu) {
            Some(pc) => pc,
            None => new_command_buffer(gpu)?,
        };
        let mut batch = Batch { gpu: gpu.clone(), pool, cmd, queries: None, done: Vec::new(), keep: Vec::new(), unordered: false, touched: false, submitted_at: 0, recorded: 0, gate: None };
        let begin = vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        // SAFETY: the pool is reset and owned by this batch alone.
        unsafe { d.begin_command_buffer(cmd, &begin) }?;
        if profiling {
            let queries = match gpu.recycled.lock().unwrap_or_else(|e| e.into_inner()).take_queries(gpu) {
                Some(q) => q,
                None => {
                    let info = vk::QueryPoolCreateInfo::default().query_type(vk::QueryType::TIMESTAMP).query_count(2 * MAX_COMMANDS);
                    // SAFETY: valid create info.
                    let q = unsafe { d.create_query_pool(&info, None) }?;
                    reset_queries(gpu, q, 2 * MAX_COMMANDS);
                    q
                }
            };
            if !gpu.features.host_query_reset {
                // SAFETY: recording; the pool is owned by this batch.
                unsafe { d.cmd_reset_query_pool(cmd, queries, 0, 2 * MAX_COMMANDS) };
            }
            batch.queries = Some(queries);
        }
        Ok(batch)
    }

    pub(super) fn query_pool(&self) -> Option<vk::QueryPool> {
        self.queries
    }

    pub fn cmd(&self) -> vk::CommandBuffer {
        self.cmd
    }

    pub fn gpu(&self) -> &Arc<Gpu> {
        &self.gpu
    }

    /// Commands recorded so far.
    pub fn commands(&self) -> u32 {
        self.recorded
    }

    /// A memory barrier: writes at `src`, then reads and writes at `dst` (between the stages
    /// of one command, or all commands before and after).
    pub fn barrier(&self, src: vk::PipelineStageFlags2, dst: vk::PipelineStageFlags2) {
        let b = [vk::MemoryBarrier2::default()
            .src_stage_mask(src)
            .src_access_mask(vk::AccessFlags2::MEMORY_WRITE)
            .dst_stage_mask(dst)
            .dst_access_mask(vk::AccessFlags2::MEMORY_READ | vk::AccessFlags2::MEMORY_WRITE)];
        // SAFETY: the batch is recording.
        unsafe { self.gpu.device.cmd_pipeline_barrier2(self.cmd, &vk::DependencyInfo::default().memory_barriers(&b)) };
    }

    /// Starts a command: a full memory barrier orders it after everything recorded before it in
    /// the batch (OpenCL in-order semantics; earlier batches ended with one), then its start
    /// timestamp. Returns whether it recorded the barrier.
    ///
    /// A command that touches no memory (a marker, a kernel without buffers) needs no barrier,
    /// and neither does one after only such commands since the last barrier: a barrier orders
    /// everything after it, so the hazards it resolved stay resolved.
    pub fn begin_command(&mut self, touches_memory: bool) -> bool {
        self.begin(touches_memory, true)
    }

    /// Starts a command of an out-of-order queue that waits for none of the commands recorded
    /// since the last barrier: no barrier, so the device may run it beside them.
    pub fn begin_unordered_command(&mut self, touches_memory: bool) {
        self.begin(touches_memory, false);
    }

    fn begin(&mut self, touches_memory: bool, ordered: bool) -> bool {
        let barrier = ordered && touches_memory && self.unordered;
        if barrier {
            self.barrier(vk::PipelineStageFlags2::ALL_COMMANDS, vk::PipelineStageFlags2::ALL_COMMANDS);
        }
        // Still unordered: this command's accesses, and earlier ones no barrier has covered.
        self.unordered = touches_memory || (self.unordered && !barrier);
        self.touched |= touches_memory;
        // After a barrier the command starts once everything before has finished; otherwise it
        // may start as soon as the queue reaches it.
        let start = if barrier { vk::PipelineStageFlags2::ALL_COMMANDS } else { vk::PipelineStageFlags2::TOP_OF_PIPE };
        self.timestamp(start, 0);
        barrier
    }

    /// Ends the command begun last; `done` runs once it has executed.
    pub fn end_command(&mut self, done: Done) {
        self.timestamp(vk::PipelineStageFlags2::ALL_COMMANDS, 1);
        self.done.push(done);
        self.recorded += 1;
    }

    pub(super) fn timestamp(&self, stage: vk::PipelineStageFlags2, which: u32) {
        if let Some(q) = self.queries {
            // SAFETY: the query index is below the pool's size (queues submit a batch once it
            // holds `MAX_COMMANDS`).
            unsafe { self.gpu.device.cmd_write_timestamp2(self.cmd, stage, q, 2 * self.commands() + which) };
        }
    }

    /// Keeps `object` (a buffer, a pipeline, staging memory) alive until the batch has executed.
    pub fn keep(&mut self, object: impl Any + Send + Sync) {
        self.keep.push(Box::new(object));
    }

    /// Dispatches `counts` work-groups of the bound pipeline; in an armed batch, indirectly
    /// from its gate's counts (see `armed`).
    pub fn dispatch(&mut self, counts: [u32; 3]) -> Result<(), vk::Result> {
        let d = &self.gpu.device;
        match &mut self.gate {
            // SAFETY: the batch is recording; the counts buffer lives as long as the batch.
            Some(gate) => unsafe { d.cmd_dispatch_indirect(self.cmd, gate.hold(counts)?, 0) },
            // SAFETY: the batch is recording.
            None => unsafe { d.cmd_dispatch(self.cmd, counts[0], counts[1], counts[2]) },
        }
        Ok(())
    }

    /// Submits the batch and returns the timeline value that signals its completion, and the
    /// host time of submission; the device's completion thread (or a thread waiting for it)
    /// completes it. A batch that could not be submitted comes back, for the caller to fail
    /// once it holds no lock (its completion steps run the application's callbacks).
    pub fn submit(mut self) -> Result<(u64, u64), Unsubmitted> {
        let gpu = self.gpu.clone();
        let queue = gpu.queue.lock().unwrap_or_else(|e| e.into_inner());
        self.submitted_at = now_ns();
        match self.end_and_submit(&queue, false) {
            Ok(value) => {
                let at = self.submitted_at;
                // Still under the queue lock, so the tracker sees batches in timeline order.
                gpu.tracker.push(&gpu, value, self);
                Ok((value, at))
            }
            Err(error) => Err(Unsubmitted { batch: self, error }),
        }
    }

    /// Ends recording and submits as the next timeline value, which it returns; it signals the
    /// timeline semaphore if `signal` is set or `RETIRE_EVERY` batches have not.
    /// The caller holds the queue's lock.
    pub(super) fn end_and_submit(&self, queue: &MutexGuard<'_, vk::Queue>, signal: bool) -> Result<u64, vk::Result> {
        if self.gpu.is_lost() {
            return Err(vk::Result::ERROR_DEVICE_LOST);
        }
        // A released queue's last batch may be submitted while the process exits: then not.
        let Some(_held) = super::teardown::hold_exit() else { return Err(vk::Result::ERROR_DEVICE_LOST) };
        let d = &self.gpu.device;
        // Make every write visible to the host, and order every later batch on the queue after
        // this one, so that none needs a barrier in front (the one a launch waited for on
        // NVIDIA: about 3 µs of its start). A batch of commands without memory (markers, empty
        // kernels) has none: no later command depends on it.
        let barrier = [vk::MemoryBarrier2::default()
            .src_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
            .src_access_mask(vk::AccessFlags2::MEMORY_WRITE)
            .dst_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS | vk::PipelineStageFlags2::HOST)
            .dst_access_mask(vk::AccessFlags2::MEMORY_READ | vk::AccessFlags2::MEMORY_WRITE)];
        let value = self.gpu.submitted.load(Ordering::Acquire) + 1;
        // An armed batch never signals: nothing may wait for the semaphore to pass a batch that
        // waits for the host (see `armed`).
        let signal = self.gate.is_none() && (signal || value >= self.gpu.signalled.load(Ordering::Acquire) + RETIRE_EVERY);
        // SAFETY: the command buffer is recording.
        unsafe {
            if self.touched {
                d.cmd_pipeline_barrier2(self.cmd, &vk::DependencyInfo::default().memory_barriers(&barrier));
            }
            self.gpu.progress.record(d, self.cmd, value);
            d.end_command_buffer(self.cmd)?;
        }
        submit_as(&self.gpu, queue, &[vk::CommandBufferSubmitInfo::default().command_buffer(self.cmd)], value, signal)?;
        Ok(value)
    }

    /// Runs the commands' completion steps: the batch has executed, or failed.
    pub(super) fn complete(&mut self, result: Result<(), vk::Result>) {
        let times = match (&result, self.queries) {
            (Ok(()), Some(q)) => self.read_times(q),
            _ => Vec::new(),
        };
        for (i, done) in std::mem::take(&mut self.done).into_iter().enumerate() {
            done(result.map(|()| times.get(i).copied()));
        }
    }

    fn read_times(&self, pool: vk::QueryPool) -> Vec<[u64; 2]> {
        // Where reading waits for the device to go idle, no batch may be armed meanwhile.
        let _no_arming = self.gpu.queries_wait_idle.then(|| {
            let queue = self.gpu.queue.lock().unwrap_or_else(|e| e.into_inner());
            self.gpu.disarm_locked(&queue);
            queue
        });
        let mut raw = vec![0u64; 2 * self.recorded as usize];
        // SAFETY: the batch has executed, so every written query is available.
        if raw.is_empty() || unsafe { self.gpu.device.get_query_pool_results(pool, 0, &mut raw, vk::QueryResultFlags::TYPE_64) }.is_err() {
            return Vec::new();
        }
        let clock = self.gpu.clock().to_host();
        let times: Vec<[u64; 2]> = raw.chunks(2).map(|t| [clock.ns(t[0]), clock.ns(t[1])]).collect();
        // Where the mapping of clocks errs early, the whole batch moves later, keeping every
        // duration and the order of its commands.
        let first = times.iter().map(|t| t[0]).min().unwrap_or(self.submitted_at);
        let late = self.submitted_at.saturating_sub(first);
        times.into_iter().map(|[start, end]| [start + late, end.max(start) + late]).collect()
    }
}

/// Submits `cmds` (none: a bare signal) as timeline value `value`, the next one, and signals
/// the timeline semaphore with it if `signal`; an armed batch is cancelled first, since it
/// would hold everything behind it. The caller holds the queue's lock.
pub(super) fn submit_as(gpu: &Arc<Gpu>, queue: &MutexGuard<'_, vk::Queue>, cmds: &[vk::CommandBufferSubmitInfo], value: u64, signal: bool) -> Result<(), vk::Result> {
    gpu.disarm_locked(queue);
    let signals = [vk::SemaphoreSubmitInfo::default().semaphore(gpu.timeline).value(value).stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)];
    let submit = vk::SubmitInfo2::default().command_buffer_infos(cmds);
    let submit = if signal { submit.signal_semaphore_infos(&signals) } else { submit };
    // SAFETY: the queue is externally synchronised by its mutex, which the caller holds.
    unsafe { gpu.device.queue_submit2(**queue, &[submit], vk::Fence::null()) }.inspect_err(|e| lost_if(gpu, *e))?;
    gpu.submitted.store(value, Ordering::Release);
    if signal {
        gpu.signalled.store(value, Ordering::Release);
    }
    Ok(())
}

fn new_command_buffer(gpu: &Gpu) -> Result<(vk::CommandPool, vk::CommandBuffer), vk::Result> {
    let info = vk::CommandPoolCreateInfo::default().queue_family_index(gpu.queue_family).flags(vk::CommandPoolCreateFlags::TRANSIENT);
    // SAFETY: valid create infos.
    unsafe {
        let pool = gpu.device.create_command_pool(&info, None)?;
        let alloc = vk::CommandBufferAllocateInfo::default().command_pool(pool).command_buffer_count(1);
        match gpu.device.allocate_command_buffers(&alloc) {
            Ok(cmds) => Ok((pool, cmds[0])),
            Err(e) => {
                gpu.device.destroy_command_pool(pool, None);
                Err(e)
            }
        }
    }
}

/// Resets a query pool from the host where the device allows it, sparing each batch a reset
/// command on the GPU's timeline.
fn reset_queries(gpu: &Gpu, pool: vk::QueryPool, used: u32) {
    if gpu.features.host_query_reset && used > 0 {
        // SAFETY: no batch using the pool is pending.
        unsafe { gpu.device.reset_query_pool(pool, 0, used) };
    }
}

/// A batch that never reached the GPU (`Batch::submit`): its commands fail when it is failed.
#[must_use = "an unsubmitted batch's commands complete only when it is failed"]
pub struct Unsubmitted {
    batch: Batch,
    error: vk::Result,
}

impl Unsubmitted {
    /// Fails every command of the batch. The caller holds no lock of the driver's: callbacks of
    /// the commands' events run here, and may call back into OpenCL.
    pub fn fail(mut self) {
        self.batch.complete(Err(self.error));
    }
}

/// Command and query pools of executed batches. They are reset by the completion thread, off
/// the path of an application waiting for its commands, or when a new batch needs one at once.
#[derive(Default)]
pub struct Recycled {
    commands: Vec<(vk::CommandPool, vk::CommandBuffer)>,
    queries: Vec<vk::QueryPool>,
    /// Pools of executed batches, not reset yet.
    spent: Vec<Spent>,
}

/// The pools of an executed batch, with the number of queries it used.
type Spent = (vk::CommandPool, vk::CommandBuffer, Option<(vk::QueryPool, u32)>);

/// Spent pools left to the completion thread before a new batch resets them itself. New pools
/// are made meanwhile: a thread launching again as soon as its batch completed (it saw that
/// first, polling) would otherwise pay for the reset, 2 µs on NVIDIA; the completion thread,
/// woken by the driver tens of µs later, resets them off that path.
const SPENT_BEFORE_RESET: usize = 4;

/// Command pools grown at open, and how much command memory each is grown to hold: a full batch
/// of launches (256 at about 1.5 KiB each on NVIDIA's driver 580), one batch recording while
/// the one before executes.
const GROWN_POOLS: usize = 2;
const GROWN_BYTES: usize = 512 << 10;

impl Recycled {
    /// Makes `GROWN_POOLS` command pools ready with their command memory allocated. NVIDIA's
    /// driver (580) allocates command memory as a command buffer first needs it, and each
    /// allocation took 1.1–2.8 ms inside the command that needed it on the H200 (2026-11-27):
    /// the first batch's `vkBeginCommandBuffer`, and the launch that outgrew a batch's first
    /// block (86 to 157 launches in), which cost clFFT's client a fifth of its time for 200
    /// transforms. A pool reset without releasing its resources keeps that memory, so each
    /// pool is grown here once, by recording inline data it never submits. Costs 3.5 ms at
    /// open on the H200.
    pub(super) fn grow(gpu: &Arc<Gpu>) -> Result<(), vk::Result> {
        const CHUNK: usize = 65536; // vkCmdUpdateBuffer's limit
        // Each update writes its own range of the scratch buffer, so that none waits for another.
        let scratch = super::memory::Buffer::new(gpu, GROWN_BYTES as u64, super::memory::Placement::Device)?;
        let zeros = vec![0u8; CHUNK];
        let d = &gpu.device;
        for _ in 0..GROWN_POOLS {
            let (pool, cmd) = new_command_buffer(gpu)?;
            // SAFETY: the pool is new and owned here; the command buffer is reset before the
            // scratch buffer it names is dropped, and never submitted.
            let grown = unsafe {
                d.begin_command_buffer(cmd, &vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT)).and_then(|()| {
                    (0..GROWN_BYTES).step_by(CHUNK).for_each(|at| d.cmd_update_buffer(cmd, scratch.raw, at as u64, &zeros));
                    d.end_command_buffer(cmd)
                }).and_then(|()| d.reset_command_pool(pool, vk::CommandPoolResetFlags::empty()))
            };
            if let Err(e) = grown {
                // SAFETY: the pool is idle and owned here.
                unsafe { d.destroy_command_pool(pool, None) };
                return Err(e);
            }
            gpu.recycled.lock().unwrap_or_else(|e| e.into_inner()).commands.push((pool, cmd));
        }
        Ok(())
    }

    /// A ready command pool, or `None`: the caller makes a new one.
    fn take_commands(&mut self, gpu: &Gpu) -> Option<(vk::CommandPool, vk::CommandBuffer)> {
        if self.commands.is_empty() && self.spent.len() >= SPENT_BEFORE_RESET {
            self.reset_spent(gpu, 1);
        }
        self.commands.pop()
    }

    /// A ready query pool, or `None`: the caller makes a new one.
    fn take_queries(&mut self, gpu: &Gpu) -> Option<vk::QueryPool> {
        if self.queries.is_empty() && self.spent.len() >= SPENT_BEFORE_RESET {
            self.reset_spent(gpu, 1);
        }
        self.queries.pop()
    }

    /// Resets up to `at_most` spent pools, making them ready for new batches (not on a lost
    /// device, whose GPU may still run them). A batch taking one resets only that one: batches
    /// retire up to `RETIRE_EVERY` at a time, and resetting all of them would hold its launch.
    pub(super) fn reset_spent(&mut self, gpu: &Gpu, at_most: usize) {
        gpu.unless_abandoned(|| {
            let keep = self.spent.len().saturating_sub(at_most);
            for (pool, cmd, queries) in self.spent.split_off(keep) {
                // SAFETY: a batch is spent once retired or never submitted, so its pool is idle.
                if unsafe { gpu.device.reset_command_pool(pool, vk::CommandPoolResetFlags::empty()) }.is_ok() {
                    self.commands.push((pool, cmd));
                }
                if let Some((q, used)) = queries {
                    reset_queries(gpu, q, used);
                    self.queries.push(q);
                }
            }
        });
    }
}

impl Drop for Batch {
    fn drop(&mut self) {
        let mut recycled = self.gpu.recycled.lock().unwrap_or_else(|e| e.into_inner());
        let used = 2 * self.commands();
        recycled.spent.push((self.pool, self.cmd, self.queries.map(|q| (q, used))));
    }
}

/// How long one wait on the GPU lasts before looking whether the device was lost meanwhile.
pub(super) const WAIT_SLICE_NS: u64 = 250_000_000;

/// Gives the device up when a Vulkan call says it is lost.
pub(super) fn lost_if(gpu: &Gpu, e: vk::Result) {
    if e == vk::Result::ERROR_DEVICE_LOST {
        gpu.lose();
    }
}
