//! Building a program of the corpus once and running its kernels through the ICD loader, with
//! typed buffers and a record of every mismatch (one test checks many kernels and reports all
//! that fail, not only the first).

use super::common::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};

/// A kernel argument.
pub enum Arg<'a> {
    Buf(&'a Mem),
    /// A `__local` pointer of this many bytes.
    Local(usize),
    /// A value argument's bytes.
    Val(Vec<u8>),
}

/// The bytes of a value argument.
pub fn val<T: Copy>(v: T) -> Arg<'static> {
    Arg::Val(bytes(&[v]))
}

pub fn bytes<T: Copy>(v: &[T]) -> Vec<u8> {
    // SAFETY: plain data types only (integers, floats and arrays of them).
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(v)) }.to_vec()
}

pub fn from_bytes<T: Copy>(b: &[u8]) -> Vec<T> {
    let n = std::mem::size_of::<T>();
    // SAFETY: each chunk holds one plain `T`.
    b.chunks_exact(n).map(|c| unsafe { std::ptr::read_unaligned(c.as_ptr().cast()) }).collect()
}

/// Deterministic values of type `T` (an LCG's bytes).
pub fn values<T: Copy>(n: usize, seed: u32) -> Vec<T> {
    from_bytes(&pattern(n * std::mem::size_of::<T>(), seed))
}

/// One program of the corpus on the default device.
pub struct Suite {
    pub env: Env,
    pub program: cl_program,
    failures: std::cell::RefCell<Vec<String>>,
}

impl Suite {
    pub fn new(source: &str) -> Suite {
        Suite::with_options(source, "")
    }

    pub fn with_options(source: &str, options: &str) -> Suite {
        let env = Env::new();
        let program = build_with(&env, source, options).unwrap_or_else(|log| panic!("build failed:\n{log}"));
        Suite { env, program, failures: Default::default() }
    }

    pub fn buf<T: Copy>(&self, data: &[T]) -> Mem {
        self.env.buffer_from(&bytes(data))
    }

    /// A zeroed buffer of `n` values of `T`.
    pub fn zeros<T: Copy>(&self, n: usize) -> Mem {
        self.env.buffer_from(&vec![0u8; n * std::mem::size_of::<T>()])
    }

    pub fn get<T: Copy>(&self, mem: &Mem, n: usize) -> Vec<T> {
        from_bytes(&self.env.read(mem, 0, n * std::mem::size_of::<T>()))
    }

    /// Runs kernel `name` over `global` (1 to 3 dimensions) and waits for it.
    pub fn run(&self, name: &str, args: &[Arg], global: &[usize], local: Option<&[usize]>) {
        self.run_at(name, args, None, global, local);
    }

    pub fn run_at(&self, name: &str, args: &[Arg], offset: Option<&[usize]>, global: &[usize], local: Option<&[usize]>) {
        let k = kernel(self.program, name);
        for (i, a) in args.iter().enumerate() {
            let i = i as cl_uint;
            let code = match a {
                Arg::Buf(m) => unsafe { clSetKernelArg(k, i, std::mem::size_of::<cl_mem>(), (&m.0 as *const cl_mem).cast()) },
                Arg::Local(size) => unsafe { clSetKernelArg(k, i, *size, null()) },
                Arg::Val(b) => unsafe { clSetKernelArg(k, i, b.len(), b.as_ptr().cast::<c_void>()) },
            };
            assert_eq!(code, CL_SUCCESS, "{name}: argument {i}: {}", error_name(code));
        }
        let offset_ptr = offset.map_or(null(), |o| o.as_ptr());
        let local_ptr = local.map_or(null(), |l| l.as_ptr());
        let code = unsafe {
            clEnqueueNDRangeKernel(self.env.queue, k, global.len() as cl_uint, offset_ptr, global.as_ptr(), local_ptr, 0, null(), null_mut())
        };
        assert_eq!(code, CL_SUCCESS, "{name}: clEnqueueNDRangeKernel: {}", error_name(code));
        self.env.finish();
        unsafe { clReleaseKernel(k) };
    }

    /// Records a mismatch between `got` and `want` (reported by `finish`).
    #[track_caller]
    pub fn check<T: PartialEq + std::fmt::Debug>(&self, what: &str, got: &[T], want: &[T]) {
        if got.len() != want.len() {
            self.fail(format!("{what}: {} values, expected {}", got.len(), want.len()));
            return;
        }
        let bad: Vec<String> = (0..got.len())
            .filter(|&i| got[i] != want[i])
            .take(4)
            .map(|i| format!("[{i}] got {:?} want {:?}", got[i], want[i]))
            .collect();
        if !bad.is_empty() {
            self.fail(format!("{what}: {}", bad.join(", ")));
        }
    }

    pub fn fail(&self, message: String) {
        self.failures.borrow_mut().push(message);
    }

    /// Panics with every recorded mismatch.
    pub fn finish(self) {
        let failures = self.failures.borrow();
        assert!(failures.is_empty(), "{} check(s) failed:\n{}", failures.len(), failures.join("\n"));
    }
}

impl Drop for Suite {
    fn drop(&mut self) {
        unsafe { clReleaseProgram(self.program) };
    }
}

/// Builds `source` with `options`; the build log on failure.
pub fn build_with(env: &Env, source: &str, options: &str) -> Result<cl_program, String> {
    let text = std::ffi::CString::new(source).expect("source without NUL");
    let opts = std::ffi::CString::new(options).expect("options without NUL");
    let ptr = text.as_ptr();
    let mut err = 0;
    let program = unsafe { clCreateProgramWithSource(env.context, 1, &ptr, null(), &mut err) };
    ok(err);
    let code = unsafe { clBuildProgram(program, 1, &env.device, opts.as_ptr(), None, null_mut()) };
    if code == CL_SUCCESS {
        return Ok(program);
    }
    let log = build_log(program, env.device);
    unsafe { clReleaseProgram(program) };
    Err(format!("{} {log}", error_name(code)))
}

/// Builds `source`, expecting `CL_BUILD_PROGRAM_FAILURE`; returns the build log.
pub fn build_failure(env: &Env, source: &str) -> String {
    let (program, code) = try_build(env.context, env.device, source);
    let log = build_log(program, env.device);
    unsafe { clReleaseProgram(program) };
    assert_eq!(code, CL_BUILD_PROGRAM_FAILURE, "expected a build failure, got {}; log:\n{log}", error_name(code));
    log
}
