//! Argument helpers shared by the entry points: property lists, wait lists, returned events.

use crate::cl::CLResult;
use crate::cl::object::{get_list, publish};
use crate::cl::types::*;
use crate::core::event::Event;
use crate::core::queue::Queue;
use std::sync::Arc;

/// Reads a zero-terminated list of `(name, value)` properties; returns the pairs and the whole
/// list as given, terminator included (empty when `ptr` is NULL).
pub unsafe fn properties<T: Copy + Default + PartialEq>(ptr: *const T) -> (Vec<(T, T)>, Vec<T>) {
    let mut pairs = Vec::new();
    let mut raw = Vec::new();
    if ptr.is_null() {
        return (pairs, raw);
    }
    let mut p = ptr;
    while *p != T::default() {
        pairs.push((*p, *p.add(1)));
        raw.extend([*p, *p.add(1)]);
        p = p.add(2);
    }
    raw.push(T::default());
    (pairs, raw)
}

/// Validates an event wait list for a command of `queue`. Every enqueue checks one, so it also
/// refuses commands for a lost device.
pub unsafe fn wait_list(queue: &Queue, count: cl_uint, list: *const cl_event) -> CLResult<Vec<Arc<Event>>> {
    if queue.device.is_lost() {
        return Err(CL_OUT_OF_RESOURCES);
    }
    let events = get_list::<Event>(count, list, CL_INVALID_EVENT_WAIT_LIST).map_err(|_| CL_INVALID_EVENT_WAIT_LIST)?;
    if events.iter().any(|e| !Arc::ptr_eq(&e.context, &queue.context)) {
        return Err(CL_INVALID_CONTEXT);
    }
    Ok(events)
}

/// Ends an enqueue: a blocking call flushes and waits; the event is handed out if asked for.
pub unsafe fn finish_enqueue(queue: &Queue, event: Arc<Event>, blocking: bool, out: *mut cl_event) -> CLResult<()> {
    if blocking {
        queue.flush();
        if event.wait() < 0 {
            return Err(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
        }
    }
    if !out.is_null() {
        out.write(publish(event));
    }
    Ok(())
}

/// Checks an optional output pointer and writes through it.
pub unsafe fn write_opt<T>(ptr: *mut T, value: T) {
    if !ptr.is_null() {
        ptr.write(value);
    }
}
