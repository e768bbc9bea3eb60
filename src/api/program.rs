//! Program entry points: creation, build/compile/link, queries.

use super::entry::{entry, guard, with_errcode_and_value};
use crate::cl::CLResult;
use crate::cl::object::{get, get_list, handle_of, publish, release, retain, Object};
use super::info::{self, Info};
use crate::cl::types::*;
use crate::core::context::Context;
use crate::core::device::Device;
use crate::core::program::{encode_binary, Program};
use std::ffi::{c_char, CStr};
use std::sync::Arc;

type BuildCallback = Option<unsafe extern "system" fn(cl_program, *mut c_void)>;

/// The longest program text, and program binary, the driver takes (far above any real
/// program; a binary holds the preprocessed text). A larger length is refused before anything
/// is read: it is surely an application's error, and where the host overcommits memory,
/// reserving it succeeds and the copy read past the application's data (SIGSEGV on the H200
/// machine).
const MAX_SOURCE_LENGTH: usize = 1 << 30;

/// Joins `count` strings, each NUL-terminated or of the given length. The text's room is
/// reserved before anything is copied: a length no memory can hold, or past
/// [`MAX_SOURCE_LENGTH`], is CL_OUT_OF_HOST_MEMORY.
unsafe fn sources(count: cl_uint, strings: *const *const c_char, lengths: *const usize) -> CLResult<String> {
    if count == 0 || strings.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    let piece = |i: usize| -> CLResult<(*const u8, usize)> {
        let s = *strings.add(i);
        if s.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let len = if lengths.is_null() { 0 } else { *lengths.add(i) };
        Ok((s.cast(), if len == 0 { CStr::from_ptr(s).count_bytes() } else { len }))
    };
    let mut total = 0usize;
    for i in 0..count as usize {
        total = total.checked_add(piece(i)?.1).filter(|t| *t <= MAX_SOURCE_LENGTH).ok_or(CL_OUT_OF_HOST_MEMORY)?;
    }
    let mut text = Vec::new();
    text.try_reserve_exact(total).map_err(|_| CL_OUT_OF_HOST_MEMORY)?;
    for i in 0..count as usize {
        let (start, len) = piece(i)?;
        text.extend_from_slice(std::slice::from_raw_parts(start, len));
    }
    Ok(String::from_utf8(text).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
}

unsafe fn options(options: *const c_char) -> String {
    if options.is_null() {
        String::new()
    } else {
        CStr::from_ptr(options).to_string_lossy().into_owned()
    }
}

/// The devices a build call names (all of the program's when none), checked.
unsafe fn build_devices(p: &Program, n: cl_uint, list: *const cl_device_id) -> CLResult<Vec<usize>> {
    let devices = get_list::<Device>(n, list, CL_INVALID_VALUE)?;
    p.device_indices(&devices)
}

fn callback_args(func: BuildCallback, user_data: *mut c_void) -> CLResult<()> {
    if func.is_none() && !user_data.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    Ok(())
}

/// Builds run synchronously; the callback, if any, is called when done, as the spec allows.
unsafe fn notify(program: cl_program, func: BuildCallback, user_data: *mut c_void) {
    if let Some(f) = func {
        f(program, user_data);
    }
}

entry! {
    fn clCreateProgramWithSource(context: cl_context, count: cl_uint, strings: *const *const c_char, lengths: *const usize; errcode_ret) -> CLResult<cl_program> {
        let c = get::<Context>(context)?;
        Ok(publish(Program::with_source(c, sources(count, strings, lengths)?)))
    }
}

entry! {
    fn clCreateProgramWithBinary(context: cl_context, n: cl_uint, devices: *const cl_device_id, lengths: *const usize, binaries: *const *const u8, status: *mut cl_int; errcode_ret) -> CLResult<cl_program> {
        let c = get::<Context>(context)?;
        if n == 0 || devices.is_null() || lengths.is_null() || binaries.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let list = get_list::<Device>(n, devices, CL_INVALID_VALUE)?;
        if list.iter().any(|d| !c.has_device(d)) {
            return Err(CL_INVALID_DEVICE);
        }
        let lengths = std::slice::from_raw_parts(lengths, n as usize);
        let binaries = std::slice::from_raw_parts(binaries, n as usize);
        if lengths.contains(&0) || binaries.iter().any(|b| b.is_null()) {
            return Err(CL_INVALID_VALUE);
        }
        let result = if lengths.iter().any(|&len| len > MAX_SOURCE_LENGTH) {
            Err(lengths.iter().map(|&len| if len > MAX_SOURCE_LENGTH { CL_INVALID_BINARY } else { CL_SUCCESS }).collect())
        } else {
            let blobs: Vec<&[u8]> = lengths.iter().zip(binaries).map(|(&len, &ptr)| std::slice::from_raw_parts(ptr, len)).collect();
            Program::with_binaries(c, list, &blobs)
        };
        let codes = result.as_ref().err().cloned().unwrap_or_else(|| vec![CL_SUCCESS; n as usize]);
        if !status.is_null() {
            codes.iter().enumerate().for_each(|(i, c)| status.add(i).write(*c));
        }
        result.map(publish).map_err(|_| CL_INVALID_BINARY)
    }
}

entry! {
    fn clCreateProgramWithBuiltInKernels(context: cl_context, n: cl_uint, devices: *const cl_device_id, names: *const c_char; errcode_ret) -> CLResult<cl_program> {
        get::<Context>(context)?;
        get_list::<Device>(n, devices, CL_INVALID_VALUE)?;
        let _ = names;
        // CL_DEVICE_BUILT_IN_KERNELS is empty: no name can be valid.
        Err(CL_INVALID_VALUE)
    }
}

entry! {
    fn clRetainProgram(program: cl_program) -> CLResult<()> {
        retain::<Program>(program)
    }
}

entry! {
    fn clReleaseProgram(program: cl_program) -> CLResult<()> {
        release::<Program>(program).map(drop)
    }
}

entry! {
    fn clBuildProgram(program: cl_program, n: cl_uint, devices: *const cl_device_id, opts: *const c_char, func: BuildCallback, user_data: *mut c_void) -> CLResult<()> {
        let p = get::<Program>(program)?;
        let which = build_devices(&p, n, devices)?;
        callback_args(func, user_data)?;
        if p.kernel_attached() {
            return Err(CL_INVALID_OPERATION);
        }
        let result = p.build(&which, &options(opts));
        notify(program, func, user_data);
        result
    }
}

entry! {
    fn clCompileProgram(program: cl_program, n: cl_uint, devices: *const cl_device_id, opts: *const c_char, num_headers: cl_uint, headers: *const cl_program,
        names: *const *const c_char, func: BuildCallback, user_data: *mut c_void) -> CLResult<()> {
        let p = get::<Program>(program)?;
        let which = build_devices(&p, n, devices)?;
        callback_args(func, user_data)?;
        if (num_headers == 0) != (headers.is_null() && names.is_null()) || (num_headers > 0 && (headers.is_null() || names.is_null())) {
            return Err(CL_INVALID_VALUE);
        }
        let mut included = Vec::new();
        for i in 0..num_headers as usize {
            let h = get::<Program>(*headers.add(i))?;
            if !Arc::ptr_eq(&h.context, &p.context) {
                return Err(CL_INVALID_CONTEXT);
            }
            let name = *names.add(i);
            if name.is_null() {
                return Err(CL_INVALID_VALUE);
            }
            included.push((CStr::from_ptr(name).to_string_lossy().into_owned(), h.source.clone().unwrap_or_default()));
        }
        if p.kernel_attached() {
            return Err(CL_INVALID_OPERATION);
        }
        let result = p.compile(&which, &options(opts), &included);
        notify(program, func, user_data);
        result
    }
}

/// `clLinkProgram`. A link that fails once it has begun still returns its program, with
/// `CL_LINK_PROGRAM_FAILURE`: the program's build status is `CL_BUILD_ERROR` and its build
/// log says what failed (the specification of `clLinkProgram`; CTS `test_compiler
/// link_error_returns_program` queries that log).
#[allow(non_snake_case, clippy::missing_safety_doc, clippy::too_many_arguments)]
pub unsafe extern "system" fn clLinkProgram(context: cl_context, n: cl_uint, devices: *const cl_device_id, opts: *const c_char, num_inputs: cl_uint,
    inputs: *const cl_program, func: BuildCallback, user_data: *mut c_void, errcode_ret: *mut cl_int) -> cl_program {
    let result = guard(move || unsafe { link_program(context, n, devices, opts, num_inputs, inputs, func, user_data) });
    with_errcode_and_value(result, errcode_ret)
}

#[allow(clippy::too_many_arguments)] // the arguments of clLinkProgram
unsafe fn link_program(context: cl_context, n: cl_uint, devices: *const cl_device_id, opts: *const c_char, num_inputs: cl_uint, inputs: *const cl_program,
    func: BuildCallback, user_data: *mut c_void) -> CLResult<(cl_program, cl_int)> {
    let c = get::<Context>(context)?;
    callback_args(func, user_data)?;
    let list = get_list::<Device>(n, devices, CL_INVALID_VALUE)?;
    if list.iter().any(|d| !c.has_device(d)) {
        return Err(CL_INVALID_DEVICE);
    }
    let list = if list.is_empty() { c.devices.clone() } else { list };
    if num_inputs == 0 || inputs.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    let programs = get_list::<Program>(num_inputs, inputs, CL_INVALID_VALUE)?;
    if programs.iter().any(|p| !Arc::ptr_eq(&p.context, &c)) {
        return Err(CL_INVALID_CONTEXT);
    }
    let linked = Program::link(c, list, &programs, &options(opts))?;
    let status = if linked.failed() { CL_LINK_PROGRAM_FAILURE } else { CL_SUCCESS };
    let handle = publish(linked);
    notify(handle, func, user_data);
    Ok((handle, status))
}

entry! {
    fn clGetProgramInfo(program: cl_program, param: cl_program_info, size: usize, value: *mut c_void, size_ret: *mut usize) -> CLResult<()> {
        let p = get::<Program>(program)?;
        if param == CL_PROGRAM_BINARIES {
            return write_binaries(&p, size, value, size_ret);
        }
        let kernels = || p.executable().map(|e| e.program.kernels.iter().map(|k| k.name().to_string()).collect::<Vec<_>>());
        let answer = match param {
            CL_PROGRAM_REFERENCE_COUNT => Ok(p.header().ref_count().into()),
            CL_PROGRAM_CONTEXT => Ok(handle_of(&p.context).into()),
            CL_PROGRAM_NUM_DEVICES => Ok((p.devices.len() as cl_uint).into()),
            CL_PROGRAM_DEVICES => Ok(Info::slice(&p.devices.iter().map(handle_of).collect::<Vec<_>>())),
            CL_PROGRAM_SOURCE => Ok(p.source.as_deref().unwrap_or_default().into()),
            CL_PROGRAM_IL => Ok(Info::bytes(Vec::new())),
            CL_PROGRAM_BINARY_SIZES => Ok(Info::slice(&p.with_builds(|builds| builds.iter().map(|b| encode_binary(b).len()).collect::<Vec<_>>()))),
            CL_PROGRAM_NUM_KERNELS => kernels().map(|k| k.len().into()),
            CL_PROGRAM_KERNEL_NAMES => kernels().map(|k| k.join(";").as_str().into()),
            CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT | CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT => Ok(Info::bool(false)),
            _ => Err(CL_INVALID_VALUE),
        };
        info::write(answer, size, value, size_ret)
    }
}

/// `CL_PROGRAM_BINARIES` is an array of pointers the application allocated, one per device.
unsafe fn write_binaries(p: &Program, size: usize, value: *mut c_void, size_ret: *mut usize) -> CLResult<()> {
    let bytes = p.devices.len() * std::mem::size_of::<*mut u8>();
    if !value.is_null() {
        if size < bytes {
            return Err(CL_INVALID_VALUE);
        }
        let slots = value as *const *mut u8;
        let binaries = p.with_builds(|builds| builds.iter().map(encode_binary).collect::<Vec<_>>());
        for (i, bin) in binaries.iter().enumerate() {
            let dst = *slots.add(i);
            if !dst.is_null() {
                std::ptr::copy_nonoverlapping(bin.as_ptr(), dst, bin.len());
            }
        }
    }
    super::util::write_opt(size_ret, bytes);
    Ok(())
}

entry! {
    fn clGetProgramBuildInfo(program: cl_program, device: cl_device_id, param: cl_program_build_info, size: usize, value: *mut c_void, size_ret: *mut usize) -> CLResult<()> {
        let p = get::<Program>(program)?;
        let d = get::<Device>(device)?;
        let answer = p.with_build_of(&d, |b| match param {
            CL_PROGRAM_BUILD_STATUS => Ok(Info::value(b.status)),
            CL_PROGRAM_BUILD_OPTIONS => Ok(b.options.as_str().into()),
            CL_PROGRAM_BUILD_LOG => Ok(b.log.as_str().into()),
            CL_PROGRAM_BINARY_TYPE => Ok(Info::value(b.binary_type)),
            CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE => Ok(b.program.as_ref().map_or(0, |e| e.program.globals.len()).into()),
            _ => Err(CL_INVALID_VALUE),
        });
        info::write(answer.ok_or(CL_INVALID_DEVICE)?, size, value, size_ret)
    }
}
