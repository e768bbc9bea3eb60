//! Command-queue entry points.

use super::entry::entry;
use crate::cl::CLResult;
use crate::cl::object::{get, handle_of, publish, release, retain, Object};
use super::info::{self, Info};
use crate::cl::types::*;
use super::util::properties;
use crate::core::context::Context;
use crate::core::device::Device;
use crate::core::queue::Queue;
use std::sync::Arc;

const SUPPORTED: cl_command_queue_properties = CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE;

fn create(context: cl_context, device: cl_device_id, props: cl_command_queue_properties, raw: Vec<cl_queue_properties>) -> CLResult<cl_command_queue> {
    let c = get::<Context>(context)?;
    let d = get::<Device>(device)?;
    if !c.has_device(&d) {
        return Err(CL_INVALID_DEVICE);
    }
    if props & !(SUPPORTED | CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT) != 0 {
        return Err(CL_INVALID_VALUE);
    }
    if props & !SUPPORTED != 0 {
        // On-device queues: CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES is 0.
        return Err(CL_INVALID_QUEUE_PROPERTIES);
    }
    Ok(publish(Queue::new(c, d, props, raw)))
}

entry! {
    fn clCreateCommandQueue(context: cl_context, device: cl_device_id, props: cl_command_queue_properties; errcode_ret) -> CLResult<cl_command_queue> {
        create(context, device, props, Vec::new())
    }
}

entry! {
    fn clCreateCommandQueueWithProperties(context: cl_context, device: cl_device_id, props: *const cl_queue_properties; errcode_ret) -> CLResult<cl_command_queue> {
        let (pairs, raw) = properties(props);
        let mut flags = 0;
        for (name, value) in pairs {
            match name as cl_uint {
                CL_QUEUE_PROPERTIES => flags = value,
                // A queue size only applies to on-device queues, which are unsupported.
                CL_QUEUE_SIZE => return Err(CL_INVALID_QUEUE_PROPERTIES),
                _ => return Err(CL_INVALID_VALUE),
            }
        }
        create(context, device, flags, raw)
    }
}

entry! {
    fn clRetainCommandQueue(queue: cl_command_queue) -> CLResult<()> {
        retain::<Queue>(queue)
    }
}

entry! {
    fn clReleaseCommandQueue(queue: cl_command_queue) -> CLResult<()> {
        // Releasing a queue flushes it.
        get::<Queue>(queue)?.flush();
        release::<Queue>(queue).map(drop)
    }
}

entry! {
    fn clGetCommandQueueInfo(queue: cl_command_queue, param: cl_command_queue_info, size: usize, value: *mut c_void, size_ret: *mut usize) -> CLResult<()> {
        let q = get::<Queue>(queue)?;
        let answer = match param {
            CL_QUEUE_CONTEXT => Ok(handle_of(&q.context).into()),
            CL_QUEUE_DEVICE => Ok(handle_of(&q.device).into()),
            CL_QUEUE_REFERENCE_COUNT => Ok(q.header().ref_count().into()),
            CL_QUEUE_PROPERTIES => Ok(Info::value(q.props)),
            CL_QUEUE_PROPERTIES_ARRAY => Ok(Info::slice(&q.properties)),
            CL_QUEUE_SIZE => Err(CL_INVALID_COMMAND_QUEUE),
            CL_QUEUE_DEVICE_DEFAULT => Ok(std::ptr::null_mut::<c_void>().into()),
            _ => Err(CL_INVALID_VALUE),
        };
        info::write(answer, size, value, size_ret)
    }
}

entry! {
    fn clSetCommandQueueProperty(queue: cl_command_queue, props: cl_command_queue_properties, enable: cl_bool, old: *mut cl_command_queue_properties) -> CLResult<()> {
        let _ = (props, enable, old);
        get::<Queue>(queue)?;
        // Deprecated since OpenCL 1.1; queue properties are fixed at creation here.
        Err(CL_INVALID_OPERATION)
    }
}

entry! {
    fn clFlush(queue: cl_command_queue) -> CLResult<()> {
        get::<Queue>(queue)?.flush();
        Ok(())
    }
}

entry! {
    fn clFinish(queue: cl_command_queue) -> CLResult<()> {
        get::<Queue>(queue)?.finish()
    }
}

/// The queue of an enqueue call, checked.
pub fn queue(handle: cl_command_queue) -> CLResult<Arc<Queue>> {
    get::<Queue>(handle)
}
