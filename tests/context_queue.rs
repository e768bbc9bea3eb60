//! Contexts and command queues: creation variants, queries, reference counts, destructor
//! callbacks and the errors of bad arguments.
mod common;

use common::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};
use std::sync::Mutex;

fn context_info<T: Copy>(c: cl_context, param: cl_context_info) -> T {
    info_value(|s, v, r| unsafe { clGetContextInfo(c, param, s, v, r) })
}

fn queue_info<T: Copy>(q: cl_command_queue, param: cl_command_queue_info) -> T {
    info_value(|s, v, r| unsafe { clGetCommandQueueInfo(q, param, s, v, r) })
}

#[test]
fn context_properties_round_trip() {
    let d = device();
    let props = [CL_CONTEXT_PLATFORM as cl_context_properties, platform() as cl_context_properties, 0];
    let mut err = 1;
    let c = unsafe { clCreateContext(props.as_ptr(), 1, &d, None, null_mut(), &mut err) };
    ok(err);
    let back: Vec<cl_context_properties> = info_array(|s, v, r| unsafe { clGetContextInfo(c, CL_CONTEXT_PROPERTIES, s, v, r) });
    assert_eq!(back, props);
    assert_eq!(context_info::<cl_uint>(c, CL_CONTEXT_NUM_DEVICES), 1);
    let devices: Vec<cl_device_id> = info_array(|s, v, r| unsafe { clGetContextInfo(c, CL_CONTEXT_DEVICES, s, v, r) });
    assert_eq!(devices, [d]);
    assert_eq!(context_info::<cl_uint>(c, CL_CONTEXT_REFERENCE_COUNT), 1);
    ok(unsafe { clRetainContext(c) });
    assert_eq!(context_info::<cl_uint>(c, CL_CONTEXT_REFERENCE_COUNT), 2);
    ok(unsafe { clReleaseContext(c) });
    assert_eq!(context_info::<cl_uint>(c, CL_CONTEXT_REFERENCE_COUNT), 1);
    assert_eq!(unsafe { clGetContextInfo(c, 0x1086, 0, null_mut(), null_mut()) }, CL_INVALID_VALUE);
    ok(unsafe { clReleaseContext(c) });

    // Without properties the answer is empty.
    let c = context(d);
    let mut size = 99;
    ok(unsafe { clGetContextInfo(c, CL_CONTEXT_PROPERTIES, 0, null_mut(), &mut size) });
    assert_eq!(size, 0);
    ok(unsafe { clReleaseContext(c) });
}

#[test]
fn context_from_type() {
    let d = device();
    let ty: cl_device_type = device_info(CL_DEVICE_TYPE);
    for request in [CL_DEVICE_TYPE_ALL, CL_DEVICE_TYPE_DEFAULT, ty] {
        let mut err = 1;
        let c = unsafe { clCreateContextFromType(null(), request, None, null_mut(), &mut err) };
        ok(err);
        let devices: Vec<cl_device_id> = info_array(|s, v, r| unsafe { clGetContextInfo(c, CL_CONTEXT_DEVICES, s, v, r) });
        assert!(devices.contains(&d), "type {request:#x}");
        ok(unsafe { clReleaseContext(c) });
    }
    let mut err = 1;
    let c = unsafe { clCreateContextFromType(null(), 0, None, null_mut(), &mut err) };
    assert!(c.is_null());
    assert_eq!(err, CL_INVALID_DEVICE_TYPE);
    let absent = if ty == CL_DEVICE_TYPE_ACCELERATOR { CL_DEVICE_TYPE_CUSTOM } else { CL_DEVICE_TYPE_ACCELERATOR };
    let c = unsafe { clCreateContextFromType(null(), absent, None, null_mut(), &mut err) };
    assert!(c.is_null());
    assert_eq!(err, CL_DEVICE_NOT_FOUND);
}

#[test]
fn bad_context_arguments() {
    let d = device();
    let p = platform() as cl_context_properties;
    let create = |props: &[cl_context_properties], n: cl_uint, devices: *const cl_device_id, user_data: *mut c_void| {
        let mut err = 1;
        let c = unsafe { clCreateContext(if props.is_empty() { null() } else { props.as_ptr() }, n, devices, None, user_data, &mut err) };
        assert!(c.is_null());
        err
    };
    assert_eq!(create(&[0x7777, 1, 0], 1, &d, null_mut()), CL_INVALID_PROPERTY);
    let twice = [CL_CONTEXT_PLATFORM as cl_context_properties, p, CL_CONTEXT_PLATFORM as cl_context_properties, p, 0];
    assert_eq!(create(&twice, 1, &d, null_mut()), CL_INVALID_PROPERTY);
    assert_eq!(create(&[], 0, &d, null_mut()), CL_INVALID_VALUE);
    assert_eq!(create(&[], 1, null(), null_mut()), CL_INVALID_VALUE);
    // user_data without a callback.
    let mut data = 0u8;
    assert_eq!(create(&[], 1, &d, (&mut data as *mut u8).cast()), CL_INVALID_VALUE);
    // A handle of another type where the device should be.
    let other = context(d);
    assert_eq!(create(&[], 1, &other, null_mut()), CL_INVALID_DEVICE);
    // ... and where the platform should be.
    let wrong = [CL_CONTEXT_PLATFORM as cl_context_properties, other as cl_context_properties, 0];
    assert_eq!(create(&wrong, 1, &d, null_mut()), CL_INVALID_PLATFORM);
    ok(unsafe { clReleaseContext(other) });
    assert_eq!(create(&[CL_CONTEXT_PLATFORM as cl_context_properties, 0, 0], 1, &d, null_mut()), CL_INVALID_PLATFORM, "NULL platform");
    for props in bad_property_lists(p) {
        assert_eq!(create(&props, 1, &d, null_mut()), CL_INVALID_PROPERTY, "{props:x?}");
    }
}

/// Property lists with a valid platform first (the loader needs it to find the driver) and an
/// invalid value, a repeated name or an unknown name (one whose low 32 bits are
/// CL_CONTEXT_PLATFORM's).
fn bad_property_lists(platform: cl_context_properties) -> Vec<Vec<cl_context_properties>> {
    let (p, sync) = (CL_CONTEXT_PLATFORM as cl_context_properties, CL_CONTEXT_INTEROP_USER_SYNC as cl_context_properties);
    let bad: [&[cl_context_properties]; 4] = [&[sync, -1], &[sync, 0, sync, 0], &[p, platform], &[p | 1 << 32, platform]];
    bad.iter().map(|tail| [&[p, platform], *tail, &[0]].concat()).collect()
}

#[test]
fn context_properties_from_type() {
    let p = platform() as cl_context_properties;
    let create = |props: &[cl_context_properties]| {
        let mut err = 1;
        let c = unsafe { clCreateContextFromType(props.as_ptr(), CL_DEVICE_TYPE_DEFAULT, None, null_mut(), &mut err) };
        (c, err)
    };
    for props in bad_property_lists(p) {
        let (c, err) = create(&props);
        assert!(c.is_null());
        assert_eq!(err, CL_INVALID_PROPERTY, "{props:x?}");
    }
    for sync in [CL_TRUE, CL_FALSE] {
        let props = [CL_CONTEXT_PLATFORM as cl_context_properties, p, CL_CONTEXT_INTEROP_USER_SYNC as cl_context_properties, sync as cl_context_properties, 0];
        let (c, err) = create(&props);
        ok(err);
        let mut back = [0 as cl_context_properties; 5];
        ok(unsafe { clGetContextInfo(c, CL_CONTEXT_PROPERTIES, std::mem::size_of_val(&back), back.as_mut_ptr().cast(), null_mut()) });
        assert_eq!(back, props);
        ok(unsafe { clReleaseContext(c) });
    }
}

static DESTROYED: Mutex<Vec<usize>> = Mutex::new(Vec::new());

unsafe extern "system" fn record_destruction(_object: *mut c_void, user_data: *mut c_void) {
    DESTROYED.lock().unwrap().push(user_data as usize);
}

#[test]
fn context_destructor_callbacks_run_last_first_when_the_context_goes() {
    let c = context(device());
    for tag in [101usize, 102, 103] {
        ok(unsafe { clSetContextDestructorCallback(c, Some(record_destruction), tag as *mut c_void) });
    }
    assert_eq!(unsafe { clSetContextDestructorCallback(c, None, null_mut()) }, CL_INVALID_VALUE);
    // A buffer keeps its context alive after the context's last release.
    let mem = create_buffer(c, CL_MEM_READ_WRITE, 16, null_mut());
    ok(unsafe { clReleaseContext(c) });
    let mine = || DESTROYED.lock().unwrap().iter().copied().filter(|t| (101..=103).contains(t)).collect::<Vec<_>>();
    assert!(mine().is_empty(), "destroyed while a buffer uses it");
    ok(unsafe { clReleaseMemObject(mem) });
    assert_eq!(mine(), [103, 102, 101]);
}

#[test]
fn queue_variants_and_queries() {
    let d = device();
    let c = context(d);
    let all = [0, CL_QUEUE_PROFILING_ENABLE, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, CL_QUEUE_PROFILING_ENABLE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE];
    for props in all {
        let q = queue(c, d, props);
        assert_eq!(queue_info::<cl_command_queue_properties>(q, CL_QUEUE_PROPERTIES), props);
        assert_eq!(queue_info::<cl_context>(q, CL_QUEUE_CONTEXT), c);
        assert_eq!(queue_info::<cl_device_id>(q, CL_QUEUE_DEVICE), d);
        assert_eq!(queue_info::<cl_uint>(q, CL_QUEUE_REFERENCE_COUNT), 1);
        // Created without a properties array: the array query answers nothing.
        let mut size = 99;
        ok(unsafe { clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES_ARRAY, 0, null_mut(), &mut size) });
        assert_eq!(size, 0);
        ok(unsafe { clRetainCommandQueue(q) });
        assert_eq!(queue_info::<cl_uint>(q, CL_QUEUE_REFERENCE_COUNT), 2);
        ok(unsafe { clReleaseCommandQueue(q) });
        ok(unsafe { clFlush(q) });
        ok(unsafe { clFinish(q) });
        assert_eq!(unsafe { clGetCommandQueueInfo(q, 0x10FF, 0, null_mut(), null_mut()) }, CL_INVALID_VALUE);
        ok(unsafe { clReleaseCommandQueue(q) });
    }
    ok(unsafe { clReleaseContext(c) });
}

#[test]
fn queue_with_properties_round_trips_the_array() {
    let d = device();
    let c = context(d);
    let props = [CL_QUEUE_PROPERTIES as cl_queue_properties, CL_QUEUE_PROFILING_ENABLE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0];
    let mut err = 1;
    let q = unsafe { clCreateCommandQueueWithProperties(c, d, props.as_ptr(), &mut err) };
    ok(err);
    let back: Vec<cl_queue_properties> = info_array(|s, v, r| unsafe { clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES_ARRAY, s, v, r) });
    assert_eq!(back, props);
    assert_eq!(queue_info::<cl_command_queue_properties>(q, CL_QUEUE_PROPERTIES), props[1]);
    ok(unsafe { clReleaseCommandQueue(q) });

    let q = unsafe { clCreateCommandQueueWithProperties(c, d, null(), &mut err) };
    ok(err);
    assert_eq!(queue_info::<cl_command_queue_properties>(q, CL_QUEUE_PROPERTIES), 0, "NULL properties: in order");
    ok(unsafe { clReleaseCommandQueue(q) });
    ok(unsafe { clReleaseContext(c) });
}

#[test]
fn bad_queue_arguments() {
    let d = device();
    let c = context(d);
    let mut err = 1;
    let make = |props: cl_command_queue_properties| {
        let mut err = 1;
        let q = unsafe { clCreateCommandQueue(c, d, props, &mut err) };
        assert!(q.is_null());
        err
    };
    assert_eq!(make(1 << 20), CL_INVALID_VALUE);
    assert_eq!(make(CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE), CL_INVALID_QUEUE_PROPERTIES);
    let with = |props: &[cl_queue_properties]| {
        let mut err = 1;
        let q = unsafe { clCreateCommandQueueWithProperties(c, d, props.as_ptr(), &mut err) };
        assert!(q.is_null());
        err
    };
    assert_eq!(with(&[0x7777, 0, 0]), CL_INVALID_VALUE);
    assert_eq!(with(&[CL_QUEUE_PROPERTIES as cl_queue_properties, 1 << 20, 0]), CL_INVALID_VALUE);
    // A context handle where the device goes, and the other way round.
    let q = unsafe { clCreateCommandQueue(c, c as cl_device_id, 0, &mut err) };
    assert!(q.is_null());
    assert_eq!(err, CL_INVALID_DEVICE);
    let q = unsafe { clCreateCommandQueue(d as cl_context, d, 0, &mut err) };
    assert!(q.is_null());
    assert_eq!(err, CL_INVALID_CONTEXT);
    let q = unsafe { clCreateCommandQueue(null_mut(), d, 0, &mut err) };
    assert!(q.is_null());
    assert_eq!(err, CL_INVALID_CONTEXT);
    ok(unsafe { clReleaseContext(c) });
}

#[test]
fn released_queue_keeps_running_its_commands() {
    // Releasing a queue flushes it: a blocking read on another queue after release sees the write.
    let env = Env::new();
    let q = env.queue(0);
    let mem = env.buffer(CL_MEM_READ_WRITE, 4096);
    let data = pattern(4096, 7);
    let mut done = null_mut();
    ok(unsafe { clEnqueueWriteBuffer(q, mem.0, CL_FALSE, 0, 4096, data.as_ptr().cast(), 0, null(), &mut done) });
    ok(unsafe { clReleaseCommandQueue(q) });
    ok(unsafe { clWaitForEvents(1, &done) });
    ok(unsafe { clReleaseEvent(done) });
    assert_eq!(env.read(&mem, 0, 4096), data);
}
