//! Completion of batches. A batch is complete in two steps:
//! - *executed* once the progress word holds its timeline value (`progress`): its events
//!   complete then, by the thread waiting for it or by the device's completion thread;
//! - *retired* once the timeline semaphore has reached its value: only then are the objects it
//!   used released and its pools reused, as Vulkan requires.
//!
//! Only every `RETIRE_EVERY`th batch signals the semaphore, because each signal costs an
//! interrupt; the completion thread signals the rest once the queue is quiet.

use super::batch::{lost_if, submit_as, Batch};
use super::device::Gpu;
use ash::vk;
use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Batches in flight on a device. They are completed in submission order by the device's
/// completion thread, or sooner by an application thread that waits for one of them; then
/// retired by the completion thread once the timeline semaphore covers them.
#[derive(Default)]
pub struct Tracker {
    state: Mutex<TrackerState>,
    wake: Condvar,
    /// Held while completing batches, so they complete one at a time and in order.
    completing: Mutex<()>,
    /// Signalled when a thread has dropped the batches it retired (`TrackerState::dropping`).
    dropped: Condvar,
}

#[derive(Default)]
struct TrackerState {
    in_flight: VecDeque<(u64, Batch)>,
    /// Executed batches, waiting for the semaphore to retire them.
    executed: VecDeque<(u64, Batch)>,
    running: bool,
    /// The completion thread sleeps for want of batches: a new one must wake it.
    idle: bool,
    /// Threads dropping batches they retired, out of the lock: what those batches keep is not
    /// released yet, though they are no longer listed.
    dropping: usize,
}

thread_local! {
    /// This thread is dropping retired batches: a destructor callback run by that may call
    /// back into OpenCL, and must not wait for the drop it is part of.
    static DROPPING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// At most this many batches in a row go without a signal of the timeline semaphore: they are
/// retired (their objects released) together, by the next one that signals.
pub const RETIRE_EVERY: u64 = 16;

/// How long the queue stays quiet before the completion thread signals the semaphore itself
/// to retire the executed batches left unsignalled.
const QUIET: Duration = Duration::from_millis(1);

impl Tracker {
    pub(super) fn push(&self, gpu: &Arc<Gpu>, value: u64, batch: Batch) {
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

    fn run(&self, gpu: &Arc<Gpu>) {
        // The batch at the front, and since when it has been there: it runs from then at the
        // latest, so the submission timeout counts from it.
        let mut head = (0, Instant::now());
        loop {
            match self.next_work(gpu) {
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
    /// is neither. A batch armed all that time is cancelled once the queue has been quiet for
    /// `QUIET`: the objects it keeps are released then, as they are after a launch.
    fn next_work(&self, gpu: &Arc<Gpu>) -> Option<u64> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        while state.in_flight.is_empty() && state.executed.is_empty() {
            let armed = gpu.armed_for_how_long();
            if armed.is_some_and(|t| t >= QUIET) {
                drop(state);
                gpu.disarm();
                state = self.state.lock().unwrap_or_else(|e| e.into_inner());
                continue;
            }
            state = self.sleep(state, armed.map(|t| QUIET - t));
        }
        state.in_flight.front().map(|(v, _)| *v)
    }

    /// A batch was armed: a thread asleep without a timeout must look again.
    pub(super) fn armed(&self) {
        if self.state.lock().unwrap_or_else(|e| e.into_inner()).idle {
            self.wake.notify_one();
        }
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
    fn retire_when_quiet(&self, gpu: &Arc<Gpu>) {
        let submitted = gpu.submitted.load(Ordering::Acquire);
        let newest = {
            let state = self.sleep(self.state.lock().unwrap_or_else(|e| e.into_inner()), Some(QUIET));
            if !state.in_flight.is_empty() || gpu.submitted.load(Ordering::Acquire) != submitted {
                return;
            }
            let Some(&(newest, _)) = state.executed.back() else { return };
            newest
        };
        retire_through(gpu, newest);
    }

    /// Retires every executed batch now, on this thread: for an allocation that failed while
    /// executed batches may still hold memory. The caller holds no lock of the driver's: the
    /// batches' objects are dropped here, and a memory object's destructor callbacks may call
    /// back into OpenCL.
    pub fn retire_executed(&self, gpu: &Arc<Gpu>) {
        if let Some(newest) = self.newest_executed() {
            retire_through(gpu, newest);
            self.retire(gpu);
        }
        // The completion thread may have taken some of them off the list a moment before and
        // still be dropping them.
        if !DROPPING.get() {
            let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            while state.dropping > 0 {
                state = self.dropped.wait(state).unwrap_or_else(|e| e.into_inner());
            }
        }
    }

    /// The timeline value of the last batch that has executed and is not retired.
    fn newest_executed(&self) -> Option<u64> {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).executed.back().map(|&(v, _)| v)
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
            state.dropping += usize::from(n > 0);
            state.executed.drain(..n).collect()
        };
        if retired.is_empty() {
            return;
        }
        // Dropped here, out of the lock: each returns its pools to `Recycled`.
        let outer = DROPPING.replace(true);
        drop(retired);
        DROPPING.set(outer);
        self.state.lock().unwrap_or_else(|e| e.into_inner()).dropping -= 1;
        self.dropped.notify_all();
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

    /// A timeline value for a submission on another queue to wait for, so that it follows
    /// every batch that has executed: one the semaphore reaches, or will once signalled.
    pub fn executed_signal(&self, gpu: &Arc<Gpu>) -> Result<u64, vk::Result> {
        match self.newest_executed() {
            Some(value) => signal_through(gpu, value),
            None => Ok(gpu.completed.load(Ordering::Acquire)),
        }
    }
}

/// Submits a signal of the timeline semaphore, without commands, and returns its value: every
/// batch up to `value` is retired once the semaphore reaches it. Returns the last signalled
/// value instead where that already covers `value`.
pub(super) fn signal_through(gpu: &Arc<Gpu>, value: u64) -> Result<u64, vk::Result> {
    let queue = gpu.queue.lock().unwrap_or_else(|e| e.into_inner());
    let signalled = gpu.signalled.load(Ordering::Acquire);
    if signalled >= value {
        return Ok(signalled);
    }
    let Some(_held) = super::teardown::hold_exit() else { return Err(vk::Result::ERROR_DEVICE_LOST) };
    let next = gpu.submitted.load(Ordering::Acquire) + 1;
    submit_as(gpu, &queue, &[], next, true)?;
    Ok(next)
}

/// Signals the semaphore past `value` and waits until it gets there. A failure has marked the
/// device lost where it means that (`lost_if`, `wait_until`), and `Tracker::retire` then lets
/// every batch go; while the process exits they stay.
fn retire_through(gpu: &Arc<Gpu>, value: u64) {
    if let Ok(signal) = signal_through(gpu, value) {
        let _ = wait_signalled(gpu, signal, gpu.timeout.map(|t| Instant::now() + t));
    }
}

/// How long an application thread polls the progress word before it sleeps between looks: a
/// GPU finishes short commands in microseconds, far sooner than a sleeping thread is woken.
const SPIN: Duration = Duration::from_micros(200);

/// Blocks until the batch of timeline `value` has executed, and completes nothing (`wait_for`
/// completes too). Alone, for a thread that may be completing batches itself (an event's
/// callback runs inside `complete_through`, holding `completing`) and waits for a batch whose
/// completion step can come later.
pub fn spin_then_wait(gpu: &Gpu, value: u64) -> Result<(), vk::Result> {
    // On a CPU device (lavapipe) the spinning thread would steal the core doing the work.
    if gpu.props.base.device_type != vk::PhysicalDeviceType::CPU {
        let start = Instant::now();
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

/// The shortest and longest sleep between two looks at the progress word or the timeline.
const MIN_NAP: Duration = Duration::from_micros(10);
const MAX_NAP: Duration = Duration::from_micros(250);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vk::batch::Batch;
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
        let Ok((value, _)) = batch.submit() else { panic!("the batch was not submitted") };
        value
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
