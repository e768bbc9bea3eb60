//! Command batches: commands are recorded into one command buffer, submitted together, and
//! completed in order, each command's completion step run with its (profiling) start and end
//! times.
//!
//! A batch is complete in two steps. It has *executed* once the progress word holds its
//! timeline value (`progress`): its events complete then, by the thread waiting for it or the
//! device's completion thread. It is *retired* once the timeline semaphore has reached its
//! value: only then are the objects it used released and its pools reused, as Vulkan requires.
//! Only every `RETIRE_EVERY`th batch signals the semaphore, because each signal costs an
//! interrupt; the completion thread signals the rest once the queue is quiet.

use super::device::Gpu;
use crate::cl::clock::now_ns;
use ash::vk;
use std::any::Any;
use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

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
    done: Vec<Done>,
    keep: Vec<Box<dyn Any + Send + Sync>>,
    /// A command that touched memory was recorded since the last barrier. A batch starts
    /// ordered: every batch that touched memory ends with a full barrier, and a barrier orders
    /// all that is submitted to the queue after it, later batches included.
    unordered: bool,
    /// Some command touched memory: its writes must be made visible to the host.
    touched: bool,
    /// Host time just before submission: no command of the batch starts earlier.
    submitted_at: u64,
    /// Commands recorded (each wrote two timestamps).
    recorded: u32,
}

impl Batch {
    pub fn new(gpu: &Arc<Gpu>, profiling: bool) -> Result<Batch, vk::Result> {
        let d = &gpu.device;
        let (pool, cmd) = match gpu.recycled.lock().unwrap_or_else(|e| e.into_inner()).take_commands(gpu) {
            Some(pc) => pc,
            None => new_command_buffer(gpu)?,
        };
        let mut batch = Batch { gpu: gpu.clone(), pool, cmd, queries: None, done: Vec::new(), keep: Vec::new(), unordered: false, touched: false, submitted_at: 0, recorded: 0 };
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

    pub fn is_full(&self) -> bool {
        self.commands() >= MAX_COMMANDS
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
            // SAFETY: the query index is below the pool's size (`is_full` bounds the batch).
            unsafe { self.gpu.device.cmd_write_timestamp2(self.cmd, stage, q, 2 * self.commands() + which) };
        }
    }

    /// Keeps `object` (a buffer, a pipeline, staging memory) alive until the batch has executed.
    pub fn keep(&mut self, object: impl Any + Send + Sync) {
        self.keep.push(Box::new(object));
    }

    /// Submits the batch and returns the timeline value that signals its completion, and the
    /// host time of submission; the device's completion thread (or a thread waiting for it)
    /// completes it.
    pub fn submit(mut self) -> Option<(u64, u64)> {
        let gpu = self.gpu.clone();
        let queue = gpu.queue.lock().unwrap_or_else(|e| e.into_inner());
        self.submitted_at = now_ns();
        match self.end_and_submit(*queue, false) {
            Ok(value) => {
                let at = self.submitted_at;
                // Still under the queue lock, so the tracker sees batches in timeline order.
                gpu.tracker.push(&gpu, value, self);
                Some((value, at))
            }
            // The batch never reached the GPU: fail its commands now.
            Err(e) => {
                drop(queue);
                self.complete(Err(e));
                None
            }
        }
    }

    /// Ends recording and submits as the next timeline value, which it returns; it signals the
    /// timeline semaphore if `signal` is set or `RETIRE_EVERY` batches have not.
    /// The caller holds the queue's lock.
    pub(super) fn end_and_submit(&self, queue: vk::Queue, signal: bool) -> Result<u64, vk::Result> {
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
        let signal = signal || value >= self.gpu.signalled.load(Ordering::Acquire) + RETIRE_EVERY;
        // SAFETY: recording state; the queue is externally synchronised by its mutex.
        unsafe {
            if self.touched {
                d.cmd_pipeline_barrier2(self.cmd, &vk::DependencyInfo::default().memory_barriers(&barrier));
            }
            self.gpu.progress.record(d, self.cmd, value);
            d.end_command_buffer(self.cmd)?;
            let cmds = [vk::CommandBufferSubmitInfo::default().command_buffer(self.cmd)];
            let signals = [vk::SemaphoreSubmitInfo::default()
                .semaphore(self.gpu.timeline)
                .value(value)
                .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)];
            let submit = vk::SubmitInfo2::default().command_buffer_infos(&cmds);
            let submit = if signal { submit.signal_semaphore_infos(&signals) } else { submit };
            d.queue_submit2(queue, &[submit], vk::Fence::null()).inspect_err(|e| lost_if(&self.gpu, *e))?;
        }
        self.gpu.submitted.store(value, Ordering::Release);
        if signal {
            self.gpu.signalled.store(value, Ordering::Release);
        }
        Ok(value)
    }

    /// Runs the commands' completion steps: the batch has executed, or failed.
    fn complete(&mut self, result: Result<(), vk::Result>) {
        let times = match (&result, self.queries) {
            (Ok(()), Some(q)) => self.read_times(q),
            _ => Vec::new(),
        };
        for (i, done) in std::mem::take(&mut self.done).into_iter().enumerate() {
            done(result.map(|()| times.get(i).copied()));
        }
    }

    fn read_times(&self, pool: vk::QueryPool) -> Vec<[u64; 2]> {
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

impl Recycled {
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
    fn reset_spent(&mut self, gpu: &Gpu, at_most: usize) {
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

/// Batches in flight on a device. They are completed in submission order by the device's
/// completion thread, or sooner by an application thread that waits for one of them; then
/// retired by the completion thread once the timeline semaphore covers them.
#[derive(Default)]
pub struct Tracker {
    state: Mutex<TrackerState>,
    wake: Condvar,
    /// Held while completing batches, so they complete one at a time and in order.
    completing: Mutex<()>,
}

#[derive(Default)]
struct TrackerState {
    in_flight: VecDeque<(u64, Batch)>,
    /// Executed batches, waiting for the semaphore to retire them.
    executed: VecDeque<(u64, Batch)>,
    running: bool,
    /// The completion thread sleeps for want of batches: a new one must wake it.
    idle: bool,
}

/// At most this many batches in a row go without a signal of the timeline semaphore: they are
/// retired (their objects released) together, by the next one that signals.
pub const RETIRE_EVERY: u64 = 16;

/// How long the queue stays quiet before the completion thread signals the semaphore itself
/// to retire the executed batches left unsignalled.
const QUIET: Duration = Duration::from_millis(1);

impl Tracker {
    fn push(&self, gpu: &Arc<Gpu>, value: u64, batch: Batch) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.in_flight.push_back((value, batch));
        if !state.running {
            state.running = true;
            let gpu = gpu.clone();
            std::thread::Builder::new()
                .name("ferrocl-completion".into())
                .spawn(move || gpu.tracker.run(&gpu))
                .map(drop)
                .unwrap_or_else(|_| state.running = false);
        }
        // A busy thread finds the batch when it looks again; waking costs a system call.
        if state.idle {
            self.wake.notify_one();
        }
    }

    fn run(&self, gpu: &Gpu) {
        // The batch at the front, and since when it has been there: it runs from then at the
        // latest, so the submission timeout counts from it.
        let mut head = (0, Instant::now());
        loop {
            match self.next_work() {
                Some(value) => {
                    if head.0 != value {
                        head = (value, Instant::now());
                    }
                    let result = wait_executed(gpu, value, gpu.timeout.map(|t| head.1 + t));
                    self.complete_through(gpu, value, result);
                }
                None => self.retire_when_quiet(gpu),
            }
            self.retire(gpu);
            gpu.recycled.lock().unwrap_or_else(|e| e.into_inner()).reset_spent(gpu, usize::MAX);
        }
    }

    /// The next batch to wait for, or `None` when only retirement is left; sleeps while there
    /// is neither.
    fn next_work(&self) -> Option<u64> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        while state.in_flight.is_empty() && state.executed.is_empty() {
            state = self.sleep(state, None);
        }
        state.in_flight.front().map(|(v, _)| *v)
    }

    /// Sleeps until a batch is pushed, or `timeout` passes.
    fn sleep<'a>(&self, mut state: MutexGuard<'a, TrackerState>, timeout: Option<Duration>) -> MutexGuard<'a, TrackerState> {
        state.idle = true;
        state = match timeout {
            Some(t) => self.wake.wait_timeout(state, t).unwrap_or_else(|e| e.into_inner()).0,
            None => self.wake.wait(state).unwrap_or_else(|e| e.into_inner()),
        };
        state.idle = false;
        state
    }

    /// Every submitted batch has executed, some are not retired: once the queue has been quiet
    /// for `QUIET`, signals the semaphore past them (one interrupt) and waits for it.
    fn retire_when_quiet(&self, gpu: &Gpu) {
        let submitted = gpu.submitted.load(Ordering::Acquire);
        let newest = {
            let state = self.sleep(self.state.lock().unwrap_or_else(|e| e.into_inner()), Some(QUIET));
            if !state.in_flight.is_empty() || gpu.submitted.load(Ordering::Acquire) != submitted {
                return;
            }
            let Some(&(newest, _)) = state.executed.back() else { return };
            newest
        };
        // A failure has marked the device lost where it means that (`lost_if`, `wait_until`),
        // and `retire` then lets every batch go; while the process exits they stay.
        if let Ok(value) = signal_through(gpu, newest) {
            let _ = wait_signalled(gpu, value, gpu.timeout.map(|t| Instant::now() + t));
        }
    }

    /// Retires every executed batch now, on this thread: for an allocation that failed while
    /// executed batches may still hold memory. The caller holds no lock of the driver's: the
    /// batches' objects are dropped here, and a memory object's destructor callbacks may call
    /// back into OpenCL.
    pub fn retire_executed(&self, gpu: &Gpu) {
        let newest = self.state.lock().unwrap_or_else(|e| e.into_inner()).executed.back().map(|&(v, _)| v);
        let Some(newest) = newest else { return };
        if let Ok(value) = signal_through(gpu, newest) {
            let _ = wait_signalled(gpu, value, gpu.timeout.map(|t| Instant::now() + t));
        }
        self.retire(gpu);
    }

    /// Releases the executed batches the semaphore covers (all of them on a lost device).
    fn retire(&self, gpu: &Gpu) {
        if self.state.lock().unwrap_or_else(|e| e.into_inner()).executed.is_empty() {
            return;
        }
        let reached = if gpu.is_lost() { Some(u64::MAX) } else { timeline_value(gpu).ok() };
        let Some(reached) = reached else { return };
        gpu.completed.fetch_max(reached.min(gpu.submitted.load(Ordering::Acquire)), Ordering::AcqRel);
        let retired: Vec<(u64, Batch)> = {
            let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            let n = state.executed.iter().take_while(|(v, _)| *v <= reached).count();
            state.executed.drain(..n).collect()
        };
        // Dropped here, out of the lock: each returns its pools to `Recycled`.
        drop(retired);
    }

    /// Blocks until the batch of timeline `value` has executed, then completes the batches up
    /// to it here, sparing the waiter a hop through the completion thread.
    pub fn wait_for(&self, gpu: &Gpu, value: u64) {
        let result = spin_then_wait(gpu, value);
        self.complete_through(gpu, value, result);
    }

    /// Completes, in order, every batch up to `value`, and leaves them to be retired.
    /// On a lost device, every batch fails.
    fn complete_through(&self, gpu: &Gpu, value: u64, result: Result<(), vk::Result>) {
        let value = if gpu.is_lost() { u64::MAX } else { value };
        let _completing = self.completing.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            let batch = {
                let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
                match state.in_flight.front() {
                    Some((v, _)) if *v <= value => state.in_flight.pop_front(),
                    _ => None,
                }
            };
            let Some((v, mut batch)) = batch else { return };
            batch.complete(result);
            // The completion thread is not asleep without a timeout: this batch was in flight.
            self.state.lock().unwrap_or_else(|e| e.into_inner()).executed.push_back((v, batch));
        }
    }
}

impl Tracker {
    /// A timeline value for a submission on another queue to wait for, so that it follows
    /// every batch that has executed: one the semaphore reaches, or will once signalled.
    pub fn executed_signal(&self, gpu: &Gpu) -> Result<u64, vk::Result> {
        let newest = self.state.lock().unwrap_or_else(|e| e.into_inner()).executed.back().map(|&(v, _)| v);
        match newest {
            Some(value) => signal_through(gpu, value),
            None => Ok(gpu.completed.load(Ordering::Acquire)),
        }
    }
}

/// Submits a signal of the timeline semaphore, without commands, and returns its value: every
/// batch up to `value` is retired once the semaphore reaches it. Returns the last signalled
/// value instead where that already covers `value`.
pub(super) fn signal_through(gpu: &Gpu, value: u64) -> Result<u64, vk::Result> {
    let queue = gpu.queue.lock().unwrap_or_else(|e| e.into_inner());
    let signalled = gpu.signalled.load(Ordering::Acquire);
    if signalled >= value {
        return Ok(signalled);
    }
    let Some(_held) = super::teardown::hold_exit() else { return Err(vk::Result::ERROR_DEVICE_LOST) };
    let next = gpu.submitted.load(Ordering::Acquire) + 1;
    let signal = [vk::SemaphoreSubmitInfo::default().semaphore(gpu.timeline).value(next).stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)];
    let submit = [vk::SubmitInfo2::default().signal_semaphore_infos(&signal)];
    // SAFETY: the queue is externally synchronised by its mutex, held.
    unsafe { gpu.device.queue_submit2(*queue, &submit, vk::Fence::null()) }.inspect_err(|e| lost_if(gpu, *e))?;
    gpu.submitted.store(next, Ordering::Release);
    gpu.signalled.store(next, Ordering::Release);
    Ok(next)
}

/// How long an application thread polls the progress word before it sleeps between looks: a
/// GPU finishes short commands in microseconds, far sooner than a sleeping thread is woken.
const SPIN: std::time::Duration = std::time::Duration::from_micros(200);

fn spin_then_wait(gpu: &Gpu, value: u64) -> Result<(), vk::Result> {
    // On a CPU device (lavapipe) the spinning thread would steal the core doing the work.
    if gpu.props.base.device_type != vk::PhysicalDeviceType::CPU {
        let start = std::time::Instant::now();
        while start.elapsed() < SPIN {
            if executed(gpu, value)? {
                return Ok(());
            }
            std::hint::spin_loop();
        }
    }
    wait_executed(gpu, value, None)
}

/// Waits until the batch of timeline `value` has executed; past `deadline` the device is given
/// up as lost.
pub(super) fn wait_executed(gpu: &Gpu, value: u64, deadline: Option<Instant>) -> Result<(), vk::Result> {
    // The semaphore is read too, for the error of a lost device.
    wait_until(gpu, deadline, || Ok(executed(gpu, value)? || timeline_value(gpu)? >= value))
}

/// Waits until the timeline semaphore reaches `value` (which must be signalled); past
/// `deadline` the device is given up as lost.
pub(super) fn wait_signalled(gpu: &Gpu, value: u64, deadline: Option<Instant>) -> Result<(), vk::Result> {
    wait_until(gpu, deadline, || Ok(timeline_value(gpu)? >= value))
}

/// Waits until `reached`. It looks and sleeps a 32nd of the time waited so far in between (a
/// wait ends at most about 3 % late), rather than block in `vkWaitSemaphores`: NVIDIA's driver
/// (580) woke such a thread up to 10 ms after the value signalled (waits for a 0.5 ms kernel
/// took 7 ms on average).
fn wait_until(gpu: &Gpu, deadline: Option<Instant>, reached: impl Fn() -> Result<bool, vk::Result>) -> Result<(), vk::Result> {
    let start = Instant::now();
    loop {
        // (`timeline_value` and `executed` end the wait once the process exits.)
        if gpu.is_lost() {
            return Err(vk::Result::ERROR_DEVICE_LOST);
        }
        match reached() {
            Ok(true) => return Ok(()),
            Ok(false) if deadline.is_some_and(|d| Instant::now() >= d) => gpu.lose(),
            Ok(false) => std::thread::sleep((start.elapsed() / 32).clamp(MIN_NAP, MAX_NAP)),
            Err(e) => {
                // Not lost for the exit's sake (see `timeline_value`).
                if !super::teardown::exiting() {
                    lost_if(gpu, e);
                }
                return Err(e);
            }
        }
    }
}

/// Whether the batch of timeline `value` has executed, by the progress word. While the process
/// exits, an error, as `timeline_value` gives.
fn executed(gpu: &Gpu, value: u64) -> Result<bool, vk::Result> {
    let Some(_held) = super::teardown::hold_exit() else { return Err(vk::Result::ERROR_DEVICE_LOST) };
    Ok(gpu.progress.reached(value))
}

/// The value the timeline has reached. While the process exits, no value: the Vulkan drivers
/// are torn down then (a completion thread still polling crashed lavapipe's validation layer
/// at exit), and the wait ends as if the device were lost.
fn timeline_value(gpu: &Gpu) -> Result<u64, vk::Result> {
    let Some(_held) = super::teardown::hold_exit() else { return Err(vk::Result::ERROR_DEVICE_LOST) };
    // SAFETY: reading our own timeline semaphore, the device alive (held above).
    unsafe { gpu.device.get_semaphore_counter_value(gpu.timeline) }
}

/// The shortest and longest sleep between two looks at the timeline.
const MIN_NAP: Duration = Duration::from_micros(10);
const MAX_NAP: Duration = Duration::from_micros(250);

/// How long one wait on the GPU lasts before looking whether the device was lost meanwhile.
pub(super) const WAIT_SLICE_NS: u64 = 250_000_000;

/// Gives the device up when a Vulkan call says it is lost.
pub(super) fn lost_if(gpu: &Gpu, e: vk::Result) {
    if e == vk::Result::ERROR_DEVICE_LOST {
        gpu.lose();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vk::instance::Instance;
    use std::sync::atomic::AtomicBool;

    fn open() -> Arc<Gpu> {
        std::env::set_var("FERROCL_VALIDATION", "1");
        // The instance outlives the device, whose completion thread never ends.
        let instance = Box::leak(Box::new(Instance::new().expect("a Vulkan instance")));
        // SAFETY: plain enumeration on a live instance.
        let physical = unsafe { instance.raw.enumerate_physical_devices() }.expect("devices")[0];
        Gpu::open(instance, physical).expect("a Vulkan device")
    }

    /// A batch of one command that keeps `kept` and sets `done` when it completes.
    fn submit_one(gpu: &Arc<Gpu>, kept: &Arc<()>, done: &Arc<AtomicBool>) -> u64 {
        let mut batch = Batch::new(gpu, false).expect("batch");
        batch.begin_command(false);
        let done = done.clone();
        batch.end_command(Box::new(move |result| done.store(result.is_ok(), Ordering::Release)));
        batch.keep(kept.clone());
        batch.submit().expect("submitted").0
    }

    /// A batch that does not signal the semaphore completes by the progress word; what it
    /// keeps is released only once the semaphore passes it, which the completion thread
    /// arranges when the queue is quiet.
    #[test]
    fn unsignalled_batches_complete_at_once_and_retire_when_the_queue_is_quiet() {
        let gpu = open();
        let (kept, done) = (Arc::new(()), Arc::new(AtomicBool::new(false)));
        let value = submit_one(&gpu, &kept, &done);
        assert!(gpu.signalled.load(Ordering::Acquire) < value, "the first batch goes without a signal");
        gpu.tracker.wait_for(&gpu, value);
        assert!(done.load(Ordering::Acquire), "completed once executed");
        let start = Instant::now();
        while Arc::strong_count(&kept) > 1 {
            assert!(start.elapsed() < Duration::from_secs(30), "the batch was never retired");
            std::thread::sleep(Duration::from_millis(1));
        }
        assert!(gpu.signalled.load(Ordering::Acquire) >= value);
        assert!(gpu.completed.load(Ordering::Acquire) >= value);
    }

    /// An allocation that fails retires the executed batches at once (`retire_executed`),
    /// rather than wait for the queue to be quiet.
    #[test]
    fn executed_batches_can_be_retired_at_once() {
        let gpu = open();
        let (kept, done) = (Arc::new(()), Arc::new(AtomicBool::new(false)));
        let value = submit_one(&gpu, &kept, &done);
        gpu.tracker.wait_for(&gpu, value);
        gpu.tracker.retire_executed(&gpu);
        assert_eq!(Arc::strong_count(&kept), 1, "released by the time retire_executed returns");
        assert!(gpu.completed.load(Ordering::Acquire) >= value);
    }

    /// However fast batches come, no more than `RETIRE_EVERY` in a row go unsignalled, and all
    /// of them complete and retire.
    #[test]
    fn every_retire_every_th_batch_signals() {
        let gpu = open();
        let kept = Arc::new(());
        let dones: Vec<Arc<AtomicBool>> = (0..3 * RETIRE_EVERY).map(|_| Arc::new(AtomicBool::new(false))).collect();
        let mut last = 0;
        for done in &dones {
            last = submit_one(&gpu, &kept, done);
            assert!(last - gpu.signalled.load(Ordering::Acquire) < RETIRE_EVERY, "batch {last} follows too many unsignalled ones");
        }
        gpu.tracker.wait_for(&gpu, last);
        assert!(dones.iter().all(|d| d.load(Ordering::Acquire)), "every batch completed");
        let start = Instant::now();
        while Arc::strong_count(&kept) > 1 {
            assert!(start.elapsed() < Duration::from_secs(30), "batches were never retired");
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}
