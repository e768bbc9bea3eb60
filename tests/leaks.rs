//! Leak check: a workload that makes and releases every kind of object, from several threads,
//! with commands still running at release, is run under valgrind; no block the driver itself
//! allocated may be definitely lost. (Losses inside the Vulkan loader, the validation layer or
//! lavapipe are theirs and are counted, not failed.)
mod common;

use common::*;
use std::process::Command;
use std::time::Duration;

/// The workload takes about 20 s under valgrind on two cores.
const TIME_LIMIT: Duration = Duration::from_secs(600);
use std::ptr::{null, null_mut};

const SOURCE: &str = "kernel void k(global int *p, local int *t) { t[get_local_id(0)] = 1; p[get_global_id(0)] += t[0]; }";

/// A 16 × 16 RGBA image holding `value` in every byte, and a sampler.
fn image_and_sampler(context: cl_context, value: u8) -> (cl_mem, cl_sampler) {
    let format = cl_image_format { image_channel_order: CL_RGBA, image_channel_data_type: CL_UNORM_INT8 };
    let desc = image2d_desc(16, 16);
    let texels = vec![value; 16 * 16 * 4];
    let mut err = 0;
    let image = unsafe { clCreateImage(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, &format, &desc, texels.as_ptr() as *mut _, &mut err) };
    ok(err);
    let sampler = unsafe { clCreateSampler(context, CL_TRUE, CL_ADDRESS_REPEAT, CL_FILTER_LINEAR, &mut err) };
    ok(err);
    (image, sampler)
}

/// Every object kind, made, used and released (some while their commands run).
fn workload() {
    let device = device();
    for round in 0..3 {
        let context = context(device);
        let q = queue(context, device, 0);
        let ooo = queue(context, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE);
        let program = build(context, device, SOURCE);
        let k = kernel(program, "k");
        let clone = unsafe { clCloneKernel(k, null_mut()) };
        let mem = create_buffer(context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, 4096, null_mut());
        let region = cl_buffer_region { origin: 0, size: 1024 };
        let mut err = 0;
        let sub = unsafe { clCreateSubBuffer(mem, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, (&region as *const cl_buffer_region).cast(), &mut err) };
        ok(err);
        let gate = user_event(context);
        let (n, local) = (256usize, 64usize);
        let mut events = [null_mut(); 3];
        let (image, sampler) = image_and_sampler(context, round as u8);
        let (origin, texels) = ([0usize; 3], [16usize, 16, 1]);
        let (mut image_events, mut row_pitch) = ([null_mut(); 2], 0usize);
        unsafe {
            ok(clEnqueueFillBuffer(q, mem, (&round as *const i32).cast(), 4, 0, 4096, 1, &gate, &mut events[0]));
            set_arg(clone, 0, &sub);
            ok(clSetKernelArg(clone, 1, 256, null()));
            ok(clEnqueueNDRangeKernel(ooo, clone, 1, null(), &n, &local, 1, &events[0], &mut events[1]));
            let p = clEnqueueMapBuffer(ooo, mem, CL_FALSE, CL_MAP_READ, 0, 4096, 1, &events[1], &mut events[2], &mut err);
            ok(err);
            let colour = [0.5f32; 4];
            ok(clEnqueueFillImage(q, image, colour.as_ptr().cast(), origin.as_ptr(), texels.as_ptr(), 1, &gate, &mut image_events[0]));
            let ip = clEnqueueMapImage(q, image, CL_FALSE, CL_MAP_READ, origin.as_ptr(), texels.as_ptr(), &mut row_pitch, null_mut(), 0, null(), &mut image_events[1], &mut err);
            ok(err);
            ok(clFlush(q));
            ok(clFlush(ooo));
            // Everything released while the commands wait for the gate.
            for object in [k, clone] {
                ok(clReleaseKernel(object));
            }
            ok(clReleaseProgram(program));
            ok(clReleaseMemObject(sub));
            ok(clReleaseSampler(sampler));
            ok(clSetUserEventStatus(gate, CL_COMPLETE));
            ok(clWaitForEvents(1, &image_events[1]));
            ok(clEnqueueUnmapMemObject(q, image, ip, 0, null(), null_mut()));
            ok(clReleaseMemObject(image));
            image_events.iter().for_each(|&e| ok(clReleaseEvent(e)));
            ok(clWaitForEvents(1, &events[2]));
            ok(clEnqueueUnmapMemObject(ooo, mem, p, 0, null(), null_mut()));
            ok(clReleaseMemObject(mem));
            ok(clReleaseCommandQueue(q));
            ok(clReleaseCommandQueue(ooo));
            events.iter().chain([&gate]).for_each(|&e| ok(clReleaseEvent(e)));
            ok(clReleaseContext(context));
        }
    }
}

/// The definitely-lost records of a valgrind log, split into those whose allocation the driver
/// made and how many other libraries made.
fn definite_losses(log: &str) -> (Vec<String>, usize) {
    // malloc and Rust's standard library (its frames name their sources under `library/`).
    let allocator = ["malloc", "calloc", "realloc", "memalign", "library/", "alloc::", "core::", "std::", "__rust_", "__rdl_"];
    let (mut ours, mut theirs) = (Vec::new(), 0);
    for record in log.split("== \n").filter(|r| r.contains("are definitely lost")) {
        let frames = record.lines().filter(|l| l.contains(" at 0x") || l.contains(" by 0x"));
        // The first frame past the allocator says whose allocation it is.
        // Frames of other libraries read `??? (in /path/lib.so)`; the driver's have symbols.
        let owner = frames.filter(|f| !allocator.iter().any(|a| f.contains(a))).find(|f| !f.ends_with("???"));
        match owner {
            Some(f) if f.contains("ferrocl") && !f.contains("(in /usr") => ours.push(record.to_string()),
            _ => theirs += 1,
        }
    }
    (ours, theirs)
}

#[test]
fn no_definite_loss_in_the_driver() {
    if std::env::var_os("FERROCL_LEAK_CHILD").is_some() {
        // The loader first, on one thread: ocl-icd's first clGetPlatformIDs spins on threads
        // that call it at once, which valgrind's one-at-a-time scheduling let run for minutes.
        device();
        std::thread::scope(|s| {
            (0..4).for_each(|_| drop(s.spawn(workload)));
        });
        return;
    }
    let log = std::env::temp_dir().join(format!("ferrocl-leaks-{}.log", std::process::id()));
    let exe = std::env::current_exe().expect("test binary");
    let mut valgrind = Command::new("valgrind");
    valgrind
        .args(["--leak-check=full", "--show-leak-kinds=definite", "--num-callers=40", "--error-exitcode=0", "--fair-sched=yes"])
        .arg(format!("--log-file={}", log.display()))
        .arg(&exe)
        .args(["--exact", "no_definite_loss_in_the_driver", "--test-threads=1"])
        .env("FERROCL_LEAK_CHILD", "1");
    let status = output_within(&mut valgrind, TIME_LIMIT).expect("valgrind runs (tests/run.sh installs it)").status;
    assert!(status.success(), "the workload failed under valgrind: {status:?}");
    let text = std::fs::read_to_string(&log).expect("valgrind's log");
    let _ = std::fs::remove_file(&log);
    let (ours, theirs) = definite_losses(&text);
    assert!(ours.is_empty(), "{} blocks the driver allocated are definitely lost:\n{}", ours.len(), ours.join("\n"));
    println!("leaks: none definitely lost in the driver; {theirs} records in other libraries");
}
