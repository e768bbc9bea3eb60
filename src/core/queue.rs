//! Command queues: enqueued commands are recorded into the queue's open batch as soon as their
//! dependencies allow, and batches are submitted on flush; a launch repeated with a wait in
//! between may run as a batch armed ahead of it (`vk::armed`). See docs/design.md, "Execution
//! model".

use super::context::Context;
use super::device::Device;
use super::event::Event;
use crate::cl::clock::now_ns;
use crate::cl::CLResult;
use crate::cl::object::{object, Header, Kind};
use crate::cl::types::*;
use super::kernel::LaunchKey;
use crate::vk::batch::{Batch, Done, Unsubmitted, MAX_COMMANDS};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

/// Host work that runs on the completion thread after a command has executed (e.g. copying
/// read-back data to the application's pointer).
pub type HostStep = Box<dyn FnOnce() + Send>;

/// Records a command into a batch, returning its host step.
pub type Work = Box<dyn FnOnce(&mut Batch) -> CLResult<Option<HostStep>> + Send>;

/// A kernel launch that an armed batch may record again, and what identifies it: the same
/// launch enqueued next runs as that batch (docs/design.md, "Armed launches").
pub struct Relaunch {
    pub key: LaunchKey,
    pub record: Box<dyn Fn(&mut Batch) -> CLResult<()> + Send + Sync>,
}

/// A command done by the host alone, on a thread of its own, once everything it follows has
/// completed (a large read copied out by the copy engines).
pub type HostWork = Box<dyn FnOnce() -> CLResult<()> + Send>;

enum Action {
    Record(Work),
    Host(HostWork),
}

struct Command {
    event: Arc<Event>,
    deps: Vec<Arc<Event>>,
    /// Reads or writes memory (buffers, constants): it must wait for earlier writers.
    touches_memory: bool,
    action: Action,
}

#[repr(C)]
pub struct Queue {
    header: Header,
    pub context: Arc<Context>,
    pub device: Arc<Device>,
    pub props: cl_command_queue_properties,
    /// The properties array given to `clCreateCommandQueueWithProperties`, zero-terminated.
    pub properties: Vec<cl_queue_properties>,
    /// Locked only while holding `device.sched`.
    state: Mutex<State>,
    /// `clFinish` returned and nothing was enqueued since (a hint, see `finished`).
    finished: AtomicBool,
    me: Weak<Queue>,
}
object!(Queue, Queue, CL_INVALID_COMMAND_QUEUE);

#[derive(Default)]
struct State {
    batch: Option<Batch>,
    /// Events of the open batch, to be marked submitted.
    batch_events: Vec<Arc<Event>>,
    /// Commands waiting for a user event or another device, in enqueue order.
    held: VecDeque<Command>,
    /// In-order queues: the last command; out-of-order queues: the last barrier.
    order: Option<Weak<Event>>,
    /// Every command not known to be complete (for markers, barriers and clFinish), oldest
    /// first.
    outstanding: VecDeque<Weak<Event>>,
    /// Out-of-order queues: the commands recorded into the open batch since its last barrier.
    /// Only a command that waits for one of them needs a barrier of its own.
    since_barrier: Vec<Weak<Event>>,
    /// The last command, when it was a launch that may be armed, and whether the one before it
    /// was the same launch.
    last_launch: Option<(Arc<Relaunch>, bool)>,
    /// The launch armed for this queue, while the device has not cancelled it.
    armed: Option<LaunchKey>,
    /// An in-order queue submits its open batch once it holds this many commands: one where it
    /// began on an idle queue, so that the device starts while the application enqueues the
    /// rest, then twice as many for each batch begun while the queue is busy, up to
    /// `MAX_COMMANDS`, so that submissions stay few.
    submit_at: u32,
}

impl State {
    /// Forgets the oldest commands while they are complete. Commands complete mostly in order,
    /// so this keeps the list short at a constant cost per command.
    fn prune(&mut self) {
        while self.outstanding.front().is_some_and(|w| w.upgrade().is_none_or(|e| e.status() <= CL_COMPLETE)) {
            self.outstanding.pop_front();
        }
    }
}

/// Whether a command may be recorded now.
enum Readiness {
    Now,
    Wait(Arc<Event>),
    Failed,
}

/// What changes once the scheduler lock is released, because callbacks run then and may call
/// back into OpenCL: events' statuses, and the end of what failed commands held.
#[derive(Default)]
struct Updates {
    submitted: Vec<Arc<Event>>,
    failed: Vec<(Arc<Event>, cl_int)>,
    /// Batches that never reached the GPU: their commands fail.
    unsubmitted: Vec<Unsubmitted>,
    /// Commands that will not run, dropped with what they hold once the lock is released: a
    /// memory object's last reference runs its destructor callbacks.
    discarded: Vec<Command>,
}

impl Updates {
    fn apply(self) {
        self.submitted.iter().for_each(|e| e.set_status(CL_SUBMITTED));
        self.unsubmitted.into_iter().for_each(Unsubmitted::fail);
        self.failed.into_iter().for_each(|(e, code)| e.set_status(code));
    }
}

impl Queue {
    pub fn new(context: Arc<Context>, device: Arc<Device>, props: cl_command_queue_properties, properties: Vec<cl_queue_properties>) -> Arc<Queue> {
        Arc::new_cyclic(|me| Queue { header: Header::new(Kind::Queue), context, device, props, properties, state: Mutex::default(), finished: AtomicBool::new(false), me: me.clone() })
    }

    fn arc(&self) -> Arc<Queue> {
        self.me.upgrade().expect("a queue in use is alive")
    }

    pub fn in_order(&self) -> bool {
        self.props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE == 0
    }

    pub fn profiling(&self) -> bool {
        self.props & CL_QUEUE_PROFILING_ENABLE != 0
    }

    fn sched(&self) -> MutexGuard<'_, ()> {
        self.device.sched.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Enqueues a command after `wait_list`; returns its event.
    pub fn enqueue(&self, command_type: cl_command_type, wait_list: Vec<Arc<Event>>, work: Work) -> Arc<Event> {
        self.enqueue_with(command_type, wait_list, false, true, Action::Record(work), None)
    }

    /// Enqueues a command the host does alone (see [`HostWork`]).
    pub fn enqueue_host(&self, command_type: cl_command_type, wait_list: Vec<Arc<Event>>, work: HostWork) -> Arc<Event> {
        self.enqueue_with(command_type, wait_list, false, true, Action::Host(work), None)
    }

    /// Enqueues a kernel launch (`touches_memory`: it has buffer or image arguments, or prints),
    /// which an armed batch may record again (`relaunch`).
    pub fn enqueue_launch(&self, command_type: cl_command_type, wait_list: Vec<Arc<Event>>, touches_memory: bool, work: Work, relaunch: Option<Relaunch>) -> Arc<Event> {
        self.enqueue_with(command_type, wait_list, false, touches_memory, Action::Record(work), relaunch)
    }

    /// Runs the launch `key` as the batch armed for it, if there is one and nothing it must
    /// follow is pending; returns its event, or `None`: enqueue it instead.
    pub fn launch_armed(&self, command_type: cl_command_type, deps: &[Arc<Event>], key: &LaunchKey) -> Option<Arc<Event>> {
        let gpu = &self.device.gpu;
        if !gpu.armed_for(self.owner()) {
            return None;
        }
        let event = Event::new_command(&self.arc(), command_type);
        let done = |e: &Arc<Event>| e.status() == CL_COMPLETE;
        {
            let _sched = self.sched();
            let mut st = self.state();
            st.prune();
            let idle = st.batch.is_none() && st.held.is_empty() && st.outstanding.is_empty();
            if !idle || !deps.iter().all(done) || st.armed.as_ref() != Some(key) {
                return None;
            }
            st.armed = None;
            let (value, at) = gpu.release_armed(self.owner(), completion(event.clone(), None))?;
            self.finished.store(false, Ordering::Relaxed);
            event.mark_recorded();
            event.set_submitted(value, at);
            st.order = Some(Arc::downgrade(&event));
            st.outstanding.push_back(Arc::downgrade(&event));
            if let Some((_, repeated)) = st.last_launch.as_mut() {
                *repeated = true;
            }
        }
        event.set_status(CL_SUBMITTED);
        Some(event)
    }

    /// Whether this queue is in order and the application waited for all of it (`clFinish`)
    /// before the command it enqueues now: a launch then may run as an armed batch, or be armed
    /// later. Launches enqueued behind others (a stream, timed as throughput) are neither, and
    /// spare the bookkeeping, which took about 1 µs of each launch on the H200's host
    /// (2026-11-27) where it took locks.
    pub fn finished(&self) -> bool {
        self.in_order() && self.finished.load(Ordering::Relaxed)
    }

    /// Identifies this queue to the device's armed batch.
    fn owner(&self) -> usize {
        self as *const Queue as usize
    }

    /// A marker or barrier: it waits for `wait_list`, or for every earlier command if empty;
    /// a barrier also orders every later command after it.
    pub fn enqueue_sync_point(&self, command_type: cl_command_type, wait_list: Vec<Arc<Event>>, barrier: bool) -> Arc<Event> {
        self.enqueue_with(command_type, wait_list, barrier, false, Action::Record(Box::new(|_| Ok(None))), None)
    }

    fn enqueue_with(&self, command_type: cl_command_type, mut deps: Vec<Arc<Event>>, barrier: bool, touches_memory: bool, action: Action, relaunch: Option<Relaunch>) -> Arc<Event> {
        let event = Event::new_command(&self.arc(), command_type);
        let mut updates = Updates::default();
        {
            let _sched = self.sched();
            let mut st = self.state();
            st.prune();
            let sync_point = command_type == CL_COMMAND_MARKER || command_type == CL_COMMAND_BARRIER;
            if sync_point && deps.is_empty() && !self.in_order() {
                deps.extend(st.outstanding.iter().filter_map(Weak::upgrade));
            }
            deps.extend(st.order.as_ref().and_then(Weak::upgrade));
            if self.in_order() || barrier {
                st.order = Some(Arc::downgrade(&event));
            }
            st.outstanding.push_back(Arc::downgrade(&event));
            self.finished.store(false, Ordering::Relaxed);
            let repeated = relaunch.as_ref().is_some_and(|r| st.last_launch.as_ref().is_some_and(|(last, _)| last.key == r.key));
            st.last_launch = relaunch.map(|r| (Arc::new(r), repeated));
            st.held.push_back(Command { event: event.clone(), deps, touches_memory, action });
            self.schedule(&mut st, &mut updates);
        }
        updates.apply();
        event
    }

    /// Runs a blocking command on the calling thread when nothing it must follow is pending:
    /// every earlier command of the queue and every event of `deps` has completed. `run` does
    /// the work (false: it cannot) under the scheduler lock, so no later command overtakes it.
    /// Returns the command's completed event, or `None` when it must be enqueued instead.
    pub fn execute_now(&self, command_type: cl_command_type, deps: &[Arc<Event>], run: impl FnOnce() -> bool) -> Option<Arc<Event>> {
        let done = |e: &Arc<Event>| e.status() == CL_COMPLETE;
        {
            let _sched = self.sched();
            let mut st = self.state();
            st.prune();
            if !st.outstanding.is_empty() || !st.held.is_empty() || !deps.iter().all(done) || !run() {
                return None;
            }
        }
        let event = Event::new_command(&self.arc(), command_type);
        event.complete(None);
        Some(event)
    }

    /// Records every held command whose dependencies allow it, in order (an in-order queue stops
    /// at the first that must wait).
    fn schedule(&self, st: &mut State, updates: &mut Updates) {
        let mut i = 0;
        while i < st.held.len() {
            // Taken out for the look (which may submit this queue's batch) and put back.
            let (deps, host) = (std::mem::take(&mut st.held[i].deps), matches!(st.held[i].action, Action::Host(_)));
            let readiness = self.readiness(&deps, host, st, updates);
            st.held[i].deps = deps;
            match readiness {
                Readiness::Now => {
                    let cmd = st.held.remove(i).expect("index in range");
                    self.start(st, cmd, updates);
                }
                Readiness::Failed => {
                    let cmd = st.held.remove(i).expect("index in range");
                    updates.failed.push((cmd.event.clone(), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST));
                    updates.discarded.push(cmd);
                }
                Readiness::Wait(dep) => {
                    if !dep.add_waiter(&self.arc()) {
                        continue; // it completed meanwhile: look again
                    }
                    if self.in_order() {
                        return;
                    }
                    i += 1;
                }
            }
        }
    }

    /// Whether a command may start after `deps`. A recorded one may follow events recorded on
    /// this device: the barriers between commands and at the end of each batch order it after
    /// them, provided their batch is submitted before its own. A host command needs them complete, and gets the
    /// batch that holds them submitted, so that they do.
    fn readiness(&self, deps: &[Arc<Event>], host: bool, st: &mut State, updates: &mut Updates) -> Readiness {
        for dep in deps {
            let snap = dep.snapshot();
            if snap.status < 0 {
                return Readiness::Failed;
            }
            if snap.status == CL_COMPLETE {
                continue;
            }
            let on_device = dep.queue.as_ref().filter(|q| snap.recorded && Arc::ptr_eq(&q.device, &self.device));
            if let Some(q) = on_device.filter(|_| snap.status == CL_QUEUED) {
                if !std::ptr::eq(q.as_ref(), self) {
                    q.submit_locked(&mut q.state(), updates);
                } else if host {
                    self.submit_locked(st, updates);
                }
            }
            if host || on_device.is_none() {
                return Readiness::Wait(dep.clone());
            }
        }
        Readiness::Now
    }

    /// Starts a command whose dependencies allow it: records it, or runs a host command.
    fn start(&self, st: &mut State, cmd: Command, updates: &mut Updates) {
        let Command { event, deps, touches_memory, action } = cmd;
        match action {
            Action::Record(work) => self.record(st, event, &deps, touches_memory, work, updates),
            Action::Host(work) => run_host(event, work, updates),
        }
    }

    fn record(&self, st: &mut State, event: Arc<Event>, deps: &[Arc<Event>], touches_memory: bool, work: Work, updates: &mut Updates) {
        if st.batch.is_none() {
            match Batch::new(&self.device.gpu, self.profiling()) {
                Ok(b) => st.batch = Some(b),
                Err(_) => return updates.failed.push((event, CL_OUT_OF_RESOURCES)),
            }
            st.submit_at = self.submit_at(st);
        }
        let Some(batch) = st.batch.as_mut() else { return };
        if self.in_order() {
            batch.begin_command(touches_memory);
        } else {
            // Out of order, a command follows only what it waits for (its wait list, the last
            // barrier, the commands a marker or barrier waits for).
            let waited = |w: &Weak<Event>| deps.iter().any(|d| std::ptr::eq(w.as_ptr(), Arc::as_ptr(d)));
            if st.since_barrier.iter().any(waited) {
                if batch.begin_command(touches_memory) {
                    st.since_barrier.clear();
                }
            } else {
                batch.begin_unordered_command(touches_memory);
            }
            st.since_barrier.push(Arc::downgrade(&event));
        }
        match work(batch) {
            Ok(step) => {
                event.mark_recorded();
                batch.end_command(completion(event.clone(), step));
                st.batch_events.push(event);
            }
            Err(code) => {
                batch.end_command(Box::new(|_| ()));
                updates.failed.push((event, code));
            }
        }
        if st.batch.as_ref().is_some_and(|b| b.commands() >= st.submit_at) {
            self.submit_locked(st, updates);
        }
    }

    /// How many commands the batch begun now holds before it is submitted (`State::submit_at`).
    /// An out-of-order queue fills its batches: a batch ends with a barrier, and independent
    /// commands run side by side only within one (the bench's 32 kernels of one work-group
    /// took 27 µs each that way on the H200, 138 µs in batches of 1, 2, 4, …).
    fn submit_at(&self, st: &State) -> u32 {
        // Only the command being recorded is incomplete: the device is idle, as far as this
        // queue goes.
        let idle = st.outstanding.len() <= 1;
        match (self.in_order(), idle) {
            (false, _) => MAX_COMMANDS,
            (true, true) => 1,
            (true, false) => (2 * st.submit_at).clamp(1, MAX_COMMANDS),
        }
    }

    /// Submits the open batch. Caller holds the device's scheduler lock.
    fn submit_locked(&self, st: &mut State, updates: &mut Updates) {
        st.since_barrier.clear();
        if let Some(batch) = st.batch.take() {
            match batch.submit() {
                Ok((value, at)) => {
                    st.batch_events.iter().for_each(|e| e.set_submitted(value, at));
                    updates.submitted.append(&mut st.batch_events);
                }
                Err(unsubmitted) => {
                    st.batch_events.clear();
                    updates.unsubmitted.push(unsubmitted);
                }
            }
        }
    }

    /// `clFlush`: submits what is recorded.
    pub fn flush(&self) {
        let mut updates = Updates::default();
        {
            let _sched = self.sched();
            self.submit_locked(&mut self.state(), &mut updates);
        }
        updates.apply();
    }

    /// Called when an event this queue holds commands for has completed.
    pub fn dependency_done(&self) {
        let mut updates = Updates::default();
        {
            let _sched = self.sched();
            let mut st = self.state();
            self.schedule(&mut st, &mut updates);
            // Someone may already be waiting for these commands: submit them now.
            self.submit_locked(&mut st, &mut updates);
        }
        updates.apply();
    }

    /// Flushes before the application waits for this queue's commands. When the last command
    /// was a launch that repeated the one before it, a copy of it is armed meanwhile, for the
    /// next.
    pub fn flush_for_wait(&self) {
        let mut updates = Updates::default();
        {
            let _sched = self.sched();
            let mut st = self.state();
            self.submit_locked(&mut st, &mut updates);
            self.arm_repeated(&mut st);
        }
        updates.apply();
    }

    /// Arms a copy of the last command when it was a launch repeating the one before, unless
    /// one is armed already. Caller holds the device's scheduler lock.
    fn arm_repeated(&self, st: &mut State) {
        let Some((relaunch, true)) = st.last_launch.clone() else { return };
        let gpu = &self.device.gpu;
        let armed = st.armed.as_ref() == Some(&relaunch.key) && gpu.armed_for(self.owner());
        if !self.in_order() || !st.held.is_empty() || armed {
            return;
        }
        st.armed = arm(gpu, self.profiling(), self.owner(), &relaunch).ok().map(|()| relaunch.key.clone());
    }

    /// `clFinish`: flushes and waits until every command has completed.
    pub fn finish(&self) -> CLResult<()> {
        self.flush_for_wait();
        let pending: Vec<Arc<Event>> = {
            let _sched = self.sched();
            self.state().outstanding.iter().filter_map(Weak::upgrade).collect()
        };
        pending.iter().for_each(|e| {
            e.wait();
        });
        if self.device.is_lost() {
            return Err(CL_OUT_OF_RESOURCES);
        }
        // A command another thread enqueued meanwhile makes this hint wrong only for one launch,
        // which then looks for an armed batch in vain (`launch_armed` checks under the lock).
        self.finished.store(true, Ordering::Relaxed);
        Ok(())
    }
}

/// The completion step of `event`'s command: the event completes with its times, after the
/// command's step on the host (a read's copy out of staging), which is part of the command.
fn completion(event: Arc<Event>, step: Option<HostStep>) -> Done {
    Box::new(move |result| match result {
        Ok(times) => {
            let times = match step {
                Some(step) => {
                    step();
                    times.map(|[start, end]| [start, end.max(now_ns())])
                }
                None => times,
            };
            event.complete(times);
        }
        Err(_) => event.set_status(CL_OUT_OF_RESOURCES),
    })
}

/// Records `relaunch` into an armed batch for `owner` and submits it.
fn arm(gpu: &Arc<crate::vk::device::Gpu>, profiling: bool, owner: usize, relaunch: &Relaunch) -> CLResult<()> {
    let mut batch = Batch::new_armed(gpu, profiling).map_err(|_| CL_OUT_OF_RESOURCES)?;
    batch.begin_command(true);
    (relaunch.record)(&mut batch)?;
    batch.end_command(Box::new(|_| ()));
    batch.arm(owner).map_err(|_| CL_OUT_OF_RESOURCES)
}

/// Runs a host command on a thread of its own (it may copy for a while; the scheduler's lock
/// is held here) and completes its event with the host times it took.
fn run_host(event: Arc<Event>, work: HostWork, updates: &mut Updates) {
    updates.submitted.push(event.clone());
    let done = event.clone();
    let run = move || {
        let start = now_ns();
        match work() {
            Ok(()) => done.complete(Some([start, now_ns()])),
            Err(code) => done.set_status(code),
        }
    };
    if std::thread::Builder::new().name("ferrocl-host-command".into()).spawn(run).is_err() {
        updates.failed.push((event, CL_OUT_OF_HOST_MEMORY));
    }
}

impl Drop for Queue {
    fn drop(&mut self) {
        // Commands recorded but never flushed still run: release implies a flush (not once the
        // process is exiting, when Vulkan may be gone).
        if crate::vk::teardown::exiting() {
            return;
        }
        if let Some(batch) = self.state.get_mut().unwrap_or_else(|e| e.into_inner()).batch.take() {
            if let Err(unsubmitted) = batch.submit() {
                unsubmitted.fail();
            }
        }
    }
}
