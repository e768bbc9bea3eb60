//! The address-space rules A1–A17 from the negative side: programs that must fail to build,
//! with their message and `line:column` in the build log; the `CL_DEVICE_MAX_CONSTANT_ARGS`
//! limit; pointer sizes; `__local` arguments take no value.

use super::common::*;
use super::harness::*;

/// Programs breaking one address-space rule each: `(rule, source, line, column, message)`.
const RULE_VIOLATIONS: &[(&str, &str, u32, u32, &str)] = &[
    ("A1", "kernel void k(__global __local int *p) {\n}\n", 1, 24, "conflicting address-space qualifiers"),
    ("A2", "kernel void k(global int *p) {\n  int global = 1;\n  p[0] = global;\n}\n", 2, 7, "'global' is a reserved address-space qualifier"),
    ("A2", "kernel void k(global int *__private) {\n}\n", 1, 27, "'__private' is a reserved address-space qualifier"),
    ("A3", "void f(global int x) {\n}\nkernel void k(global int *p) { }\n", 1, 8, "parameter 'x' cannot be declared in the __global address space"),
    ("A3", "kernel void k(global int *p) {\n  global int x;\n}\n", 2, 3, "variable 'x' inside a function cannot be declared __global"),
    ("A4", "kernel void k(private int *p) {\n  p[0] = 1;\n}\n", 1, 28, "must point to __global, __local or __constant memory, not __private"),
    ("A4", "kernel void k(int *p) {\n  p[0] = 1;\n}\n", 1, 20, "an unqualified pointer points to __private"),
    ("A5", "kernel void k(global int *g, local int *l) {\n  g = l;\n}\n", 2, 7, "assignment changes the address space of a pointer"),
    ("A5", "kernel void k(global int *g) {\n  local int *l = (local int *)g;\n}\n", 2, 18, "converts between address spaces"),
    ("A5", "kernel void k(global int *g, constant int *c) {\n  global int *p = c;\n}\n", 2, 19, "pointers to __constant and __global are not compatible"),
    ("A6", "kernel void k(global int *p) {\n  if (p[0]) {\n    local int x;\n  }\n}\n", 3, 5, "must be declared at the outermost scope of the kernel"),
    ("A6", "void f(void) {\n  local int x;\n}\nkernel void k(global int *p) { }\n", 2, 3, "only be declared in a kernel function"),
    ("A7", "kernel void k(global int *p) {\n  local float a = 1;\n}\n", 2, 15, "__local variable 'a' cannot be initialized"),
    ("A9", "constant int c;\nkernel void k(global int *p) { p[0] = c; }\n", 1, 14, "must be initialized with a compile-time constant"),
    ("A9", "constant int c = 1;\nkernel void k(global int *p) {\n  c = 2;\n}\n", 3, 5, "cannot write to __constant memory"),
    ("A9", "kernel void k(constant int *c) {\n  c[0] = 2;\n}\n", 2, 8, "cannot write to __constant memory"),
    ("A9", "kernel void k(global int *p) {\n  int v = p[0];\n  constant int c = v;\n}\n", 3, 20, "not a compile-time constant"),
    ("A11", "kernel void k(global int *p) {\n  private char *s = \"abc\";\n}\n", 2, 21, "'__constant char*' to '__private char*'"),
    ("A11", "kernel void k(global int *p) {\n  \"abc\"[0] = 'x';\n}\n", 2, 12, "cannot write to __constant memory"),
    ("A12", "int counter = 0;\nkernel void k(global int *p) { p[0] = counter; }\n", 1, 5, "must be declared in the __constant address space"),
    ("A12", "global int counter;\nkernel void k(global int *p) { p[0] = counter; }\n", 1, 12, "must be declared in the __constant address space"),
    ("A13", "private int f(void) { return 1; }\nkernel void k(global int *p) { }\n", 1, 1, "return type of 'f' cannot be qualified with __private"),
    ("A13", "local int * private f(local int *p) { return p; }\nkernel void k(global int *p) { }\n", 1, 13, "return type of 'f' cannot be qualified with __private"),
    ("A14", "kernel void k(read_only image2d_t img, global float4 *o) {\n  o[0] = img[0];\n}\n", 2, 10, "an image ('read_only image2d_t') can only be passed to a function"),
    ("A14", "kernel void k(read_only image2d_t img, global float4 *o) {\n  global float4 *p = (global float4 *)img;\n}\n", 2, 39, "an image ('read_only image2d_t') can only be passed to a function"),
    ("A14", "kernel void k(local image2d_t img) {\n}\n", 1, 15, "parameter 'img' cannot be declared in the __local address space"),
    ("A15", "kernel void k(const global int *p) {\n  p[0] = 1;\n}\n", 2, 8, "cannot assign to a const-qualified location"),
    ("A17", "kernel void k(global int *p) {\n  int *q = p;\n}\n", 2, 12, "pointers to __global and __private are not compatible"),
];

/// `text` has an error at `line:col` whose message contains `message`.
fn has_error(log: &str, line: u32, col: u32, message: &str) -> bool {
    let at = format!(":{line}:{col}: error: ");
    log.lines().any(|l| l.split_once(&at).is_some_and(|(_, m)| m.contains(message)))
}

#[test]
fn address_space_rule_violations_fail_to_build() {
    let env = Env::new();
    let mut failures = Vec::new();
    for (rule, source, line, col, message) in RULE_VIOLATIONS {
        let log = build_failure(&env, source);
        if !has_error(&log, *line, *col, message) {
            failures.push(format!("{rule}: expected {line}:{col} '{message}' in:\n{log}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A16: `sizeof` of a `__global` pointer agrees with `CL_DEVICE_ADDRESS_BITS`, at run time and
/// in constant expressions (a negative array size fails the build exactly when it does).
#[test]
fn a16_pointer_size_matches_address_bits() {
    let bits: cl_uint = device_info(CL_DEVICE_ADDRESS_BITS);
    let s = Suite::new("kernel void k(global uint *o) { o[0] = sizeof(global int *); o[1] = sizeof(size_t); o[2] = sizeof(local char *); }");
    let o = s.zeros::<u32>(3);
    s.run("k", &[Arg::Buf(&o)], &[1], None);
    s.check("sizeof(global int *), sizeof(size_t)", &s.get::<u32>(&o, 2), &[bits / 8, bits / 8]);
    let check = "kernel void k(global int *p) {\n  int x[sizeof(global int *) * 8 == BITS ? -1 : 1];\n}\n";
    let log = build_failure(&s.env, &check.replace("BITS", &bits.to_string()));
    assert!(has_error(&log, 2, 40, "array size must be a positive integer constant"), "{log}");
    assert!(build_with(&s.env, &check.replace("BITS", &(bits * 2).to_string()), "").is_ok());
    s.finish();
}

/// A10: each `__constant` pointer argument a kernel reads and each `__constant` variable it
/// uses counts toward `CL_DEVICE_MAX_CONSTANT_ARGS`; one past the limit fails with a clear
/// message (arguments never read do not count: see kernel_api.rs).
#[test]
fn a10_constant_arguments_limit() {
    let max: cl_uint = device_info(CL_DEVICE_MAX_CONSTANT_ARGS);
    let program = |args: u32, variables: u32| {
        let decls: String = (0..variables).map(|i| format!("constant int v{i} = {i};\n")).collect();
        let params: String = (0..args).map(|i| format!(", constant int *c{i}")).collect();
        let sum: String = (0..args).map(|i| format!(" + c{i}[0]")).chain((0..variables).map(|i| format!(" + v{i}"))).collect();
        format!("{decls}kernel void k(global int *o{params}) {{\n  o[0] = 0{sum};\n}}\n")
    };
    let env = Env::new();
    let line = |variables: u32| variables + 1;
    // Variables past the limit share one buffer, which counts once.
    for (args, variables) in [(max + 1, 0), (max, 2)] {
        let log = build_failure(&env, &program(args, variables));
        let message = format!("uses {} constant arguments", max + 1);
        assert!(has_error(&log, line(variables), 13, &message) && log.contains("CL_DEVICE_MAX_CONSTANT_ARGS"), "{log}");
    }
    // At the limit it builds and runs, with one variable or with several packed.
    for variables in [1, 5] {
        let s = Suite::new(&program(max - 1, variables));
        let bufs: Vec<Mem> = (0..max - 1).map(|i| s.buf(&[i as i32 * 10])).collect();
        let o = s.zeros::<i32>(1);
        let args: Vec<Arg> = std::iter::once(Arg::Buf(&o)).chain(bufs.iter().map(Arg::Buf)).collect();
        s.run("k", &args, &[1], None);
        let want = (0..max as i32 - 1).map(|i| i * 10).sum::<i32>() + (0..variables as i32).sum::<i32>();
        s.check(&format!("constant arguments at the limit, {variables} variables"), &s.get::<i32>(&o, 1), &[want]);
        s.finish();
    }
}

/// A8, the runtime side: a `__local` pointer argument takes a size and no value.
#[test]
fn a8_local_argument_takes_no_value() {
    let s = Suite::new("kernel void k(global int *o, local int *tmp) { tmp[0] = 1; o[0] = tmp[0]; }");
    let k = kernel(s.program, "k");
    let value = 0u64;
    let code = unsafe { clSetKernelArg(k, 1, 8, (&value as *const u64).cast()) };
    assert_eq!(code, CL_INVALID_ARG_VALUE, "{}", error_name(code));
    let code = unsafe { clSetKernelArg(k, 1, 0, std::ptr::null()) };
    assert_eq!(code, CL_INVALID_ARG_SIZE, "{}", error_name(code));
    unsafe { clReleaseKernel(k) };
    s.finish();
}
