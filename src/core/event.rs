//! Events: the status of a command (or a user event), its profiling times and callbacks, and
//! the queues waiting for it.

use super::context::{Callback, Context};
use super::queue::Queue;
use crate::cl::object::{handle_of, object, Header, Kind};
use crate::cl::types::*;
use crate::cl::clock::now_ns;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, Weak};

#[repr(C)]
pub struct Event {
    header: Header,
    pub context: Arc<Context>,
    /// The queue of a command event; `None` for user events.
    pub queue: Option<Arc<Queue>>,
    pub command_type: cl_command_type,
    state: Mutex<State>,
    changed: Condvar,
    /// Held while callbacks run: two threads moving the event on (the submitting one and the
    /// completion thread) still call them in status order.
    notifying: Mutex<()>,
}
object!(Event, Event, CL_INVALID_EVENT);

/// Profiling times, host nanoseconds.
#[derive(Clone, Copy, Default)]
pub struct Times {
    pub queued: u64,
    pub submit: u64,
    pub start: u64,
    pub end: u64,
}

struct State {
    status: cl_int,
    /// Recorded into a command buffer: later commands of the same device are ordered after it.
    recorded: bool,
    /// The device timeline value that signals the command's batch has executed.
    timeline: Option<u64>,
    times: Times,
    callbacks: Vec<(cl_int, Callback<EventCallback>)>,
    /// Queues holding commands until this event completes.
    waiters: Vec<Weak<Queue>>,
    /// Threads blocked in `wait`: only then does completion pay for a wake-up.
    sleepers: u32,
}

/// What a dependent command needs to know about an event, read at once.
pub struct Snapshot {
    pub status: cl_int,
    pub recorded: bool,
}

impl Event {
    fn new(context: Arc<Context>, queue: Option<Arc<Queue>>, command_type: cl_command_type, status: cl_int) -> Arc<Event> {
        let state = State { status, recorded: false, timeline: None, times: Times { queued: now_ns(), ..Times::default() }, callbacks: Vec::new(), waiters: Vec::new(), sleepers: 0 };
        Arc::new(Event { header: Header::new(Kind::Event), context, queue, command_type, state: Mutex::new(state), changed: Condvar::new(), notifying: Mutex::new(()) })
    }

    pub fn new_user(context: Arc<Context>) -> Arc<Event> {
        Self::new(context, None, CL_COMMAND_USER, CL_SUBMITTED)
    }

    pub fn new_command(queue: &Arc<Queue>, command_type: cl_command_type) -> Arc<Event> {
        Self::new(queue.context.clone(), Some(queue.clone()), command_type, CL_QUEUED)
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn status(&self) -> cl_int {
        self.lock().status
    }

    pub fn snapshot(&self) -> Snapshot {
        let s = self.lock();
        Snapshot { status: s.status, recorded: s.recorded }
    }

    pub fn times(&self) -> Times {
        self.lock().times
    }

    pub fn mark_recorded(&self) {
        self.lock().recorded = true;
    }

    /// The command's batch was submitted at host time `at`, to signal timeline `value`.
    pub fn set_submitted(&self, value: u64, at: u64) {
        let mut s = self.lock();
        s.timeline = Some(value);
        s.times.submit = at;
    }

    /// Moves the event to `status` (never backwards), then runs the callbacks that became due
    /// and wakes the queues waiting for it. Called with no driver lock held.
    pub fn set_status(self: &Arc<Self>, status: cl_int) {
        let notifying = self.notifying.lock().unwrap_or_else(|e| e.into_inner());
        let (mut due, waiters, wake): (Vec<_>, _, _) = {
            let mut s = self.lock();
            if status >= s.status || s.status <= CL_COMPLETE {
                return;
            }
            s.status = status;
            let now = now_ns();
            if status <= CL_SUBMITTED && s.times.submit == 0 {
                s.times.submit = now;
            }
            let (due, keep) = std::mem::take(&mut s.callbacks).into_iter().partition(|(on, _)| status <= *on);
            s.callbacks = keep;
            let waiters = if status <= CL_COMPLETE { std::mem::take(&mut s.waiters) } else { Vec::new() };
            (due, waiters, status <= CL_COMPLETE && s.sleepers > 0)
        };
        if wake {
            self.changed.notify_all();
        }
        let handle = handle_of(self);
        // A jump over several statuses calls SUBMITTED, then RUNNING, then COMPLETE callbacks.
        due.sort_by_key(|(on, _)| std::cmp::Reverse(*on));
        for (on, cb) in due {
            let reported = if status < 0 { status } else { on };
            if let Some(f) = cb.func {
                // SAFETY: the application's callback, called as the spec prescribes.
                unsafe { f(handle, reported, cb.user_data) };
            }
        }
        drop(notifying);
        waiters.iter().filter_map(Weak::upgrade).for_each(|q| q.dependency_done());
    }

    /// Records the execution times and completes the event.
    pub fn complete(self: &Arc<Self>, gpu_times: Option<[u64; 2]>) {
        {
            let mut s = self.lock();
            let submit = s.times.submit.max(s.times.queued);
            let [start, end] = gpu_times.unwrap_or([now_ns(); 2]);
            // Batches align their times after submission (`Batch::read_times`); this keeps the
            // spec's order for commands completed without device times.
            s.times.submit = submit;
            s.times.start = start.max(submit);
            s.times.end = end.max(s.times.start);
        }
        self.set_status(CL_RUNNING);
        self.set_status(CL_COMPLETE);
    }

    /// Registers a callback for `on` (CL_SUBMITTED, CL_RUNNING or CL_COMPLETE); it runs at once if
    /// that status was already reached.
    pub fn add_callback(self: &Arc<Self>, on: cl_int, cb: Callback<EventCallback>) {
        let status = {
            let mut s = self.lock();
            if s.status > on {
                s.callbacks.push((on, cb));
                return;
            }
            s.status
        };
        let reported = if status < 0 { status } else { on };
        if let Some(f) = cb.func {
            // SAFETY: the application's callback.
            unsafe { f(handle_of(self), reported, cb.user_data) };
        }
    }

    /// Asks to be told (through `Queue::dependency_done`) when the event completes; false if it
    /// already has.
    pub fn add_waiter(&self, queue: &Arc<Queue>) -> bool {
        let mut s = self.lock();
        if s.status <= CL_COMPLETE {
            return false;
        }
        s.waiters.push(Arc::downgrade(queue));
        true
    }

    /// Blocks until the event has completed or failed; returns its final status. A submitted
    /// command is waited for on the device's timeline by this thread, which then completes it.
    pub fn wait(&self) -> cl_int {
        let timeline = self.lock().timeline;
        if let (Some(value), Some(q)) = (timeline, &self.queue) {
            q.device.gpu.tracker.wait_for(&q.device.gpu, value);
        }
        let mut s = self.lock();
        while s.status > CL_COMPLETE {
            s.sleepers += 1;
            s = self.changed.wait(s).unwrap_or_else(|e| e.into_inner());
            s.sleepers -= 1;
        }
        s.status
    }
}

