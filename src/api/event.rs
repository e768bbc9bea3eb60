//! Event entry points, markers and barriers.

use super::entry::entry;
use crate::cl::CLResult;
use crate::cl::object::{get, get_list, handle_of, publish, release, retain, Object};
use super::info::{self, Info};
use super::queue::queue;
use crate::cl::types::*;
use super::util::{finish_enqueue, wait_list};
use crate::core::context::{Callback, Context};
use crate::core::event::Event;
use std::sync::Arc;

entry! {
    fn clWaitForEvents(num_events: cl_uint, list: *const cl_event) -> CLResult<()> {
        if num_events == 0 || list.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let events = get_list::<Event>(num_events, list, CL_INVALID_VALUE)?;
        if events.iter().any(|e| !Arc::ptr_eq(&e.context, &events[0].context)) {
            return Err(CL_INVALID_CONTEXT);
        }
        // Waiting implies flushing the queues the commands are in.
        events.iter().filter_map(|e| e.queue.as_ref()).for_each(|q| q.flush_for_wait());
        let failed = events.iter().map(|e| e.wait()).any(|s| s < 0);
        if failed { Err(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST) } else { Ok(()) }
    }
}

entry! {
    fn clGetEventInfo(event: cl_event, param: cl_event_info, size: usize, value: *mut c_void, size_ret: *mut usize) -> CLResult<()> {
        let e = get::<Event>(event)?;
        let answer = match param {
            CL_EVENT_COMMAND_QUEUE => Ok(e.queue.as_ref().map_or(std::ptr::null_mut(), handle_of).into()),
            CL_EVENT_CONTEXT => Ok(handle_of(&e.context).into()),
            CL_EVENT_COMMAND_TYPE => Ok(e.command_type.into()),
            CL_EVENT_COMMAND_EXECUTION_STATUS => {
                // Someone polling a command's status expects it to make progress.
                if e.status() == CL_QUEUED {
                    e.queue.iter().for_each(|q| q.flush());
                }
                Ok(Info::value(e.status()))
            }
            CL_EVENT_REFERENCE_COUNT => Ok(e.header().ref_count().into()),
            _ => Err(CL_INVALID_VALUE),
        };
        info::write(answer, size, value, size_ret)
    }
}

entry! {
    fn clRetainEvent(event: cl_event) -> CLResult<()> {
        retain::<Event>(event)
    }
}

entry! {
    fn clReleaseEvent(event: cl_event) -> CLResult<()> {
        release::<Event>(event).map(drop)
    }
}

entry! {
    fn clGetEventProfilingInfo(event: cl_event, param: cl_profiling_info, size: usize, value: *mut c_void, size_ret: *mut usize) -> CLResult<()> {
        let e = get::<Event>(event)?;
        let profiled = e.queue.as_ref().is_some_and(|q| q.profiling());
        if !profiled || e.status() != CL_COMPLETE {
            return Err(CL_PROFILING_INFO_NOT_AVAILABLE);
        }
        let t = e.times();
        let answer = match param {
            CL_PROFILING_COMMAND_QUEUED => Ok(t.queued.into()),
            CL_PROFILING_COMMAND_SUBMIT => Ok(t.submit.into()),
            CL_PROFILING_COMMAND_START => Ok(t.start.into()),
            CL_PROFILING_COMMAND_END | CL_PROFILING_COMMAND_COMPLETE => Ok(t.end.into()),
            _ => Err(CL_INVALID_VALUE),
        };
        info::write(answer, size, value, size_ret)
    }
}

entry! {
    fn clSetEventCallback(event: cl_event, on: cl_int, func: EventCallback, user_data: *mut c_void) -> CLResult<()> {
        let e = get::<Event>(event)?;
        if func.is_none() || ![CL_SUBMITTED, CL_RUNNING, CL_COMPLETE].contains(&on) {
            return Err(CL_INVALID_VALUE);
        }
        e.add_callback(on, Callback { func, user_data });
        Ok(())
    }
}

entry! {
    fn clCreateUserEvent(context: cl_context; errcode_ret) -> CLResult<cl_event> {
        Ok(publish(Event::new_user(get::<Context>(context)?)))
    }
}

entry! {
    fn clSetUserEventStatus(event: cl_event, status: cl_int) -> CLResult<()> {
        let e = get::<Event>(event)?;
        if e.command_type != CL_COMMAND_USER {
            return Err(CL_INVALID_EVENT);
        }
        if status > CL_COMPLETE {
            return Err(CL_INVALID_VALUE);
        }
        if e.status() != CL_SUBMITTED {
            // The status of a user event can be set only once.
            return Err(CL_INVALID_OPERATION);
        }
        e.set_status(status);
        Ok(())
    }
}

unsafe fn sync_point(q: cl_command_queue, n: cl_uint, list: *const cl_event, out: *mut cl_event, ty: cl_command_type, barrier: bool) -> CLResult<()> {
    let q = queue(q)?;
    let deps = wait_list(&q, n, list)?;
    let event = q.enqueue_sync_point(ty, deps, barrier);
    finish_enqueue(&q, event, false, out)
}

entry! {
    fn clEnqueueMarkerWithWaitList(q: cl_command_queue, n: cl_uint, list: *const cl_event, event: *mut cl_event) -> CLResult<()> {
        sync_point(q, n, list, event, CL_COMMAND_MARKER, false)
    }
}

entry! {
    fn clEnqueueBarrierWithWaitList(q: cl_command_queue, n: cl_uint, list: *const cl_event, event: *mut cl_event) -> CLResult<()> {
        sync_point(q, n, list, event, CL_COMMAND_BARRIER, true)
    }
}

entry! {
    fn clEnqueueMarker(q: cl_command_queue, event: *mut cl_event) -> CLResult<()> {
        if event.is_null() {
            queue(q)?;
            return Err(CL_INVALID_VALUE);
        }
        sync_point(q, 0, std::ptr::null(), event, CL_COMMAND_MARKER, false)
    }
}

entry! {
    fn clEnqueueBarrier(q: cl_command_queue) -> CLResult<()> {
        sync_point(q, 0, std::ptr::null(), std::ptr::null_mut(), CL_COMMAND_BARRIER, true)
    }
}

entry! {
    fn clEnqueueWaitForEvents(q: cl_command_queue, n: cl_uint, list: *const cl_event) -> CLResult<()> {
        if n == 0 || list.is_null() {
            queue(q)?;
            return Err(CL_INVALID_VALUE);
        }
        sync_point(q, n, list, std::ptr::null_mut(), CL_COMMAND_BARRIER, true)
    }
}
