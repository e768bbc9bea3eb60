//! printf end to end. The kernels of `kernels/printf.cl` run in a child process of this test
//! binary whose standard output is a pipe: the driver writes to it as it would to a terminal,
//! and the parent compares the text between two markers with what the C library's `snprintf`
//! makes of the same formats and values (glibc, as the CTS does). Values the parent cannot
//! know (return values, addresses) come back on the child's standard error.
mod common;
#[path = "kernels/harness.rs"]
#[allow(dead_code)]
mod harness;

use common::*;
use harness::*;
use std::ffi::{c_char, c_int, c_long, c_void, CString};
use std::process::Command;

const SOURCE: &str = include_str!("kernels/printf.cl");
const CASE: &str = "FERROCL_PRINTF_CASE";
const BEGIN: &str = "<<ferrocl printf begin>>";
const END: &str = "<<ferrocl printf end>>";
/// Prefix of the lines of data the child reports on standard error.
const DATA: &str = "printf-data:";

extern "C" {
    fn snprintf(buf: *mut c_char, n: usize, format: *const c_char, ...) -> c_int;
}

/// `snprintf(format, args...)`, as a `String`.
macro_rules! c_format {
    ($format:expr $(, $arg:expr)* $(,)?) => {{
        let f = CString::new($format).expect("no NUL");
        let mut buf = vec![0u8; 8192];
        // SAFETY: the buffer's length is passed; the caller gives the arguments the format takes.
        let n = unsafe { snprintf(buf.as_mut_ptr().cast(), buf.len(), f.as_ptr() $(, $arg)*) };
        buf.truncate(n.max(0) as usize);
        String::from_utf8_lossy(&buf).into_owned()
    }};
}

/// What a child run of `case` printed between the markers, and the data it reported.
fn run_child(case: &str) -> (String, Vec<String>) {
    init();
    let exe = std::env::current_exe().expect("test binary");
    let out = Command::new(exe).args(["--exact", "child", "--nocapture", "--test-threads=1"]).env(CASE, case).output().expect("child runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "child '{case}' failed:\n{stdout}\n{stderr}");
    let text = stdout.split_once(&format!("{BEGIN}\n")).and_then(|(_, rest)| rest.split_once(END)).map(|(t, _)| t.to_string());
    let text = text.unwrap_or_else(|| panic!("no markers in the child's output:\n{stdout}"));
    let data = stderr.lines().filter_map(|l| l.strip_prefix(DATA)).map(str::to_string).collect();
    (text, data)
}

/// The child: runs the case its environment names, between the markers.
#[test]
fn child() {
    let Ok(case) = std::env::var(CASE) else { return };
    use std::io::Write;
    println!("{BEGIN}");
    std::io::stdout().flush().expect("flush");
    let s = Suite::new(SOURCE);
    let report = |values: &[String]| eprintln!("{DATA}{}", values.join(" "));
    match case.as_str() {
        "scalars" => {
            let (i, l, f) = (s.buf(&ints()), s.buf(&longs()), s.buf(&floats()));
            let ret = s.zeros::<i32>(4);
            s.run("scalars", &[Arg::Buf(&i), Arg::Buf(&l), Arg::Buf(&f), Arg::Buf(&ret)], &[1], None);
            report(&s.get::<i32>(&ret, 4).iter().map(i32::to_string).collect::<Vec<_>>());
        }
        "vectors" => {
            let (i, c, sh, l) = (s.buf(&ints()[..4]), s.buf(&bytes8()), s.buf(&ints16()[..2]), s.buf(&longs()[..2]));
            let (f, u) = (s.buf(&floats()[..4]), s.buf(&uints()[..16]));
            s.run("vectors", &[Arg::Buf(&i), Arg::Buf(&c), Arg::Buf(&sh), Arg::Buf(&l), Arg::Buf(&f), Arg::Buf(&u)], &[1], None);
        }
        "pointers" => {
            let (g, addr) = (s.buf(&[3i32, 4, 0, 0]), s.zeros::<u64>(4));
            s.run("pointers", &[Arg::Buf(&g), Arg::Buf(&addr)], &[1], Some(&[1]));
            report(&s.get::<u64>(&addr, 4).iter().map(u64::to_string).collect::<Vec<_>>());
        }
        "many" => {
            let v = s.buf(&ints_n(MANY));
            s.run("many", &[Arg::Buf(&v)], &[MANY], Some(&[64]));
        }
        "ordered" => {
            // Two launches: each prints in one piece, in its records' order, the first first.
            let k = kernel(s.program, "ordered");
            for tag in [1i32, 2] {
                set_arg(k, 0, &ORDERED);
                set_arg(k, 1, &tag);
                ok(unsafe { clEnqueueNDRangeKernel(s.env.queue, k, 1, std::ptr::null(), &1usize, std::ptr::null(), 0, std::ptr::null(), std::ptr::null_mut()) });
            }
            s.env.finish();
            unsafe { clReleaseKernel(k) };
        }
        "overflow" => {
            let ret = s.zeros::<i32>(OVERFLOW_ITEMS * PER_ITEM);
            s.run("overflow", &[Arg::Buf(&ret), val(PER_ITEM as i32)], &[OVERFLOW_ITEMS], Some(&[64]));
            let ret = s.get::<i32>(&ret, OVERFLOW_ITEMS * PER_ITEM);
            report(&ret.iter().map(i32::to_string).collect::<Vec<_>>());
        }
        "calls" => {
            let o = s.buf(&[-1i32, 5, -1, 0, 20]);
            s.run("calls", &[Arg::Buf(&o)], &[1], None);
            report(&s.get::<i32>(&o, 5).iter().map(i32::to_string).collect::<Vec<_>>());
        }
        "doubles" => {
            let d = s.buf(&doubles());
            s.run("doubles", &[Arg::Buf(&d)], &[1], None);
        }
        other => panic!("no case {other}"),
    }
    drop(s);
    println!("{END}");
    std::io::stdout().flush().expect("flush");
}

const MANY: usize = 256;
const ORDERED: i32 = 1000;
const OVERFLOW_ITEMS: usize = 4096;
const PER_ITEM: usize = 32;

fn ints_n(n: usize) -> Vec<i32> {
    values::<i32>(n, 11)
}

/// Integers, some of them small and negative (for `%hhd`, `%c`).
fn ints() -> Vec<i32> {
    let mut v = ints_n(12);
    v[3] = 42;
    v[7] = -100;
    v[9] = 'A' as i32;
    v[10] = 0;
    v
}

fn longs() -> Vec<i64> {
    let mut v = values::<i64>(3, 12);
    v[1] = -1;
    v
}

fn uints() -> Vec<u32> {
    values::<u32>(16, 13)
}

fn ints16() -> Vec<i16> {
    values::<i16>(2, 14)
}

fn bytes8() -> Vec<u8> {
    let mut v = values::<u8>(8, 15);
    v[0] = 0;
    v
}

/// Floats of every size, with an infinity and a NaN.
fn floats() -> Vec<f32> {
    vec![3.25, -1234.5678, 0.0001234, 2.5, 0.1, -7.0e10, 1.0e-3, 2.5e-2, f32::INFINITY, 123456.79, f32::NAN, -0.0]
}

fn doubles() -> Vec<f64> {
    vec![0.1, -1.0 / 3.0, 6.02214076e23, 2.5, 1.0e-300, 0.5]
}

#[test]
fn scalars_print_as_the_c_library_prints_them() {
    let (text, data) = run_child("scalars");
    let (i, l, f) = (ints(), longs(), floats());
    let d = |k: usize| f64::from(f[k]);
    let mut want = c_format!(
        "%d|%5i|%-+6d|%05u|%x|%#X|%#o|%hhd|%hx|%ld|%lu|%#lx|%c|% d|%.0d|%+.3i\n",
        i[0], i[1], i[2], i[3], i[4], i[5], i[6], i[7], i[8], l[0] as c_long, l[1] as c_long, l[2] as c_long, i[9], i[10], 0, i[11]
    );
    want += &c_format!("%f|%.3e|%g|%#.0f|%a|%.2A|%+G|%08.3f|%-10e|%.13a|%E|%.1g\n", d(0), d(1), d(2), d(3), d(4), d(5), d(6), d(7), d(8), d(9), d(10), d(11));
    let (text_arg, x) = (CString::new("text").expect("text"), CString::new("x").expect("x"));
    want += &c_format!("%s|%.2s|%6s|%-4s|%%|%c|%5c\n", text_arg.as_ptr(), text_arg.as_ptr(), c"ab".as_ptr(), x.as_ptr(), 'z' as c_int, 'q' as c_int);
    want += "no conversions\n";
    assert_eq!(text, want);
    assert_eq!(data, ["0 0 0 0"], "printf returns 0 when it printed");
}

/// `%vn...`: the elements as the scalar conversion prints them, separated by commas.
#[test]
fn vectors_print_their_elements_separated_by_commas() {
    let (text, _) = run_child("vectors");
    let join = |parts: Vec<String>| parts.join(",");
    let (i, c, s, l, f, u) = (ints(), bytes8(), ints16(), longs(), floats(), uints());
    let want = [
        join(i[..4].iter().map(|&x| c_format!("%d", x)).collect()),
        join(c.iter().map(|&x| c_format!("%#hhx", c_int::from(x))).collect()),
        join(s.iter().map(|&x| c_format!("%+hd", c_int::from(x))).collect()),
        join(l[..2].iter().map(|&x| c_format!("%ld", x as c_long)).collect()),
        join(f[..4].iter().map(|&x| c_format!("%.2f", f64::from(x))).collect()),
        join(u.iter().map(|&x| c_format!("%u", x)).collect()),
        join(f[..3].iter().map(|&x| c_format!("%e", f64::from(x))).collect()),
    ];
    assert_eq!(text, want.join("|") + "\n");
}

/// `%p` prints the pointer's integer, as `(uintptr_t)p` gives it, in every address space.
#[test]
fn pointers_print_as_their_integers() {
    let (text, data) = run_child("pointers");
    let addr: Vec<usize> = data[0].split(' ').map(|a| a.parse().expect("address")).collect();
    let mut want: Vec<String> = addr.iter().map(|&a| c_format!("%p", a as *const c_void)).collect();
    want.push(c_format!("%p", std::ptr::null::<c_void>()));
    assert_eq!(text, want.join("|") + "\n");
}

/// Every work-item's line, each whole (the order between work-items is unspecified).
#[test]
fn work_items_print_whole_lines() {
    let (text, _) = run_child("many");
    let v = ints_n(MANY);
    let mut got: Vec<&str> = text.lines().collect();
    let mut want: Vec<String> = (0..MANY).map(|g| c_format!("item %u of %u: %d", g as u32, MANY as u32, v[g])).collect();
    got.sort_unstable();
    want.sort_unstable();
    assert_eq!(got, want);
}

#[test]
fn each_launch_prints_in_one_piece_in_order() {
    let (text, _) = run_child("ordered");
    let want: String = [1, 2].iter().flat_map(|t| (0..ORDERED).map(move |k| format!("{t}:{k}\n"))).collect();
    assert_eq!(text, want);
}

/// A full buffer drops the records that do not fit (printf returns -1 for them) and keeps
/// every other one intact.
#[test]
fn a_full_buffer_drops_records_whole() {
    let (text, data) = run_child("overflow");
    let ret: Vec<i32> = data[0].split(' ').map(|r| r.parse().expect("return value")).collect();
    assert!(ret.iter().all(|&r| r == 0 || r == -1));
    // 4 words a record, 2^18 - 1 words of records.
    let capacity = ((1usize << 18) - 1) / 4;
    assert_eq!(ret.iter().filter(|&&r| r == 0).count(), capacity);
    let mut got: Vec<&str> = text.lines().collect();
    let mut want: Vec<String> = (0..OVERFLOW_ITEMS * PER_ITEM)
        .filter(|&n| ret[n] == 0)
        .map(|n| c_format!("%u %d %d", (n / PER_ITEM) as u32, (n % PER_ITEM) as c_int, -((n % PER_ITEM) as c_int)))
        .collect();
    got.sort_unstable();
    want.sort_unstable();
    assert_eq!(got.len(), want.len());
    assert!(got == want, "the printed records are those that returned 0");
}

#[test]
fn helpers_print_and_unused_arguments_are_evaluated() {
    let (text, data) = run_child("calls");
    assert_eq!(text, "show 5\n7\n");
    assert_eq!(data, ["0 5 0 11 21"]);
}

#[test]
fn doubles_print_with_full_precision() {
    if !has_fp64() {
        return;
    }
    let (text, _) = run_child("doubles");
    let d = doubles();
    assert_eq!(text, c_format!("%.17g|%a|%le|%10.4f|%G|%.0e\n", d[0], d[1], d[2], d[3], d[4], d[5]));
}

#[test]
fn the_device_reports_a_printf_buffer_of_one_mib() {
    assert!(device_info::<usize>(CL_DEVICE_PRINTF_BUFFER_SIZE) >= 1 << 20);
}

/// Bad formats fail the build with the position of the call's argument.
#[test]
fn bad_formats_are_build_errors() {
    let env = Env::new();
    for (call, col, message) in [
        ("printf(\"%*d\\n\", 2, o[0])", 12, "the '*' field width is not supported by OpenCL C"),
        ("printf(\"%v4hd\\n\", v)", 23, "must be a short or ushort vector of 4"),
        ("printf(\"%s\\n\", s)", 20, "the argument of '%s' must be a string literal"),
        ("printf(s)", 12, "must be a string literal"),
    ] {
        let source = format!("kernel void k(global int *o, constant char *s, int4 v) {{\n    {call};\n}}\n");
        let (program, code) = try_build(env.context, env.device, &source);
        let log = build_log(program, env.device);
        unsafe { clReleaseProgram(program) };
        assert_eq!(code, CL_BUILD_PROGRAM_FAILURE, "{call}");
        assert!(log.contains(&format!(":2:{col}: error: ")) && log.contains(message), "{call}: {log}");
    }
}
