//! The conversions against the C library's `snprintf` (glibc), which the CTS compares with.

use super::*;
use crate::compiler::printf::{parse, Parsed};
use std::ffi::{c_char, c_int, CString};

extern "C" {
    fn snprintf(buf: *mut c_char, n: usize, format: *const c_char, ...) -> c_int;
}

/// `snprintf(format, arg)` with one argument of any type C's varargs take.
macro_rules! c_format {
    ($format:expr, $arg:expr) => {{
        let f = CString::new($format).expect("no NUL");
        let mut buf = vec![0u8; 4096];
        // SAFETY: the buffer's length is passed; the format takes exactly this argument.
        let n = unsafe { snprintf(buf.as_mut_ptr().cast(), buf.len(), f.as_ptr(), $arg) };
        buf.truncate(n.max(0) as usize);
        String::from_utf8_lossy(&buf).into_owned()
    }};
}

fn spec(format: &str) -> Spec {
    match parse(format.as_bytes()).expect("valid").as_slice() {
        [Parsed::Conversion(s)] => s.clone(),
        other => panic!("{format}: {other:?}"),
    }
}

fn ours(format: &str, op: Operand, bits: u64) -> String {
    let mut out = Vec::new();
    value(&spec(format), &op, bits, &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

const INT: Operand = Operand { at: 0, count: 1, words: 1, float: false, signed: true };
const LONG: Operand = Operand { at: 0, count: 1, words: 2, float: false, signed: true };
const DOUBLE: Operand = Operand { at: 0, count: 1, words: 2, float: true, signed: false };

const INT_SPECS: &[&str] = &[
    "d", "i", "u", "o", "x", "X", "5d", "-5d", "05d", "+5d", "-+5d", ".5i", "6.5i", "-06i", "06.5i", " 10d", "#o", ".0u", "#.0o", "#x",
    "#X", "#08x", "#5x", "+.0d", " .0d", ".0d", "-#10o", "+u", " x", "010o", "04.5o",
];

#[test]
fn integers_as_glibc_prints_them() {
    let values: [i64; 12] = [0, 1, -1, 7, 42, 255, -255, 32767, -32768, 70000, i32::MAX as i64, i32::MIN as i64];
    for s in INT_SPECS {
        for v in values {
            let v32 = v as i32;
            let (flags, conversion) = s.split_at(s.len() - 1);
            for length in ["", "hh", "h"] {
                let f = format!("%{flags}{length}{conversion}");
                assert_eq!(ours(&f, INT, v32 as u32 as u64), c_format!(f.clone(), v32 as c_int), "{f} of {v32}");
            }
            let f = format!("%{flags}l{conversion}");
            for big in [v, v.wrapping_mul(1 << 33) - 3, i64::MIN, i64::MAX] {
                assert_eq!(ours(&f, LONG, big as u64), c_format!(f.clone(), big as std::ffi::c_long), "{f} of {big}");
            }
            // An int argument printed with %ld extends by its signedness.
            assert_eq!(ours(&f, INT, v32 as u32 as u64), c_format!(f.clone(), v32 as std::ffi::c_long), "{f} of int {v32}");
        }
    }
}

#[test]
fn characters_strings_and_pointers() {
    for f in ["%c", "%4c", "%-4c", "%05c", "%.3c"] {
        for c in [b'1', b'A', 200u8] {
            assert_eq!(ours(f, INT, u64::from(c)), c_format!(f, c_int::from(c)), "{f}");
        }
    }
    for f in ["%s", "%4s", "%.1s", "%-6s", "%6.2s", "%05s", "%.0s"] {
        for s in ["", "foo", "foo%%bar"] {
            let mut out = Vec::new();
            string(&spec(f), s.as_bytes(), &mut out);
            let cs = CString::new(s).expect("no NUL");
            assert_eq!(String::from_utf8(out).expect("ASCII"), c_format!(f, cs.as_ptr()), "{f} of {s:?}");
        }
    }
    for f in ["%p", "%10p", "%-10p", "%015p", "%.10p", "%+p", "% p", "%.2p", "%#p"] {
        for v in [0u64, 0x1234, 0x1_0000_0040, u32::MAX as u64] {
            assert_eq!(ours(f, LONG, v), c_format!(f, v as usize as *const std::ffi::c_void), "{f} of {v:#x}");
        }
    }
}

const FLOAT_SPECS: &[&str] = &[
    "f", "F", "e", "E", "g", "G", "a", "A", ".0f", ".1f", ".2f", "8.3f", "08.2f", "-8.2f", "+8.2f", ".0e", "#.0e", "#.0f", "#g", ".0g", "#.0g",
    "4g", "4.2g", "4G", "-#20.15e", "+#21.15E", ".6a", "10.2a", " 10.2f", ".13f", ".13a", ".13A", ".0a", ".1a", ".3a", "#a", "#.0a", "010.3a",
    "-+12a", "012a", ".17g", ".25e", ".40f", "020.10g", "+g", " e", ".1g", ".15g", "#.3g",
];

fn float_values() -> Vec<f64> {
    let mut v = vec![
        0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, 0.1, 10.3456, -10.3456, 0.6, 12345.6789, 0.0000023, 0.023, 789456128.0, 1.99, 5e-324, 1e-310,
        2.2250738585072014e-308, f64::MAX, f64::MIN_POSITIVE, 1e23, 9.9999999, 0.00009999995, 123456.5, 1e15, 1e16, 1e-5, 65504.0,
        f64::INFINITY, f64::NEG_INFINITY, f64::NAN, -f64::NAN, f64::from(0.1f32), f64::from(2.71f32), 1.0 / 3.0,
    ];
    // Pseudo-random bit patterns, every exponent range.
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..300 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v.push(f64::from_bits(x));
        v.push(f64::from(f32::from_bits(x as u32)));
    }
    v
}

#[test]
fn floats_as_glibc_prints_them() {
    for s in FLOAT_SPECS {
        let f = format!("%{s}");
        for &x in &float_values() {
            assert_eq!(ours(&f, DOUBLE, x.to_bits()), c_format!(f.clone(), x), "{f} of {x:e} ({:#x})", x.to_bits());
        }
    }
}

#[test]
fn float_operands_widen_and_vectors_join_with_commas() {
    let op = Operand { at: 1, count: 3, words: 1, float: true, signed: false };
    let format = Format { pieces: vec![Piece::Text(b"v=".to_vec()), Piece::Value(spec("%.1v3hlf"), op), Piece::Text(b"\n".to_vec())], words: 4 };
    let record = [0, 1.25f32.to_bits(), (-0.5f32).to_bits(), f32::INFINITY.to_bits()];
    assert_eq!(render(std::slice::from_ref(&format), &record, 4), b"v=1.2,-0.5,inf\n");
    let op = Operand { at: 1, count: 4, words: 1, float: false, signed: false };
    let format = Format { pieces: vec![Piece::Value(spec("%#v4hhx"), op)], words: 5 };
    assert_eq!(render(std::slice::from_ref(&format), &[0, 0xfa, 0xfb, 0, 0x1fd], 5), b"0xfa,0xfb,0,0xfd");
}

#[test]
fn records_end_at_the_counter_or_at_a_dropped_record() {
    let op = Operand { at: 1, count: 1, words: 1, float: false, signed: true };
    let formats = [
        Format { pieces: vec![Piece::Value(spec("%d"), op), Piece::Text(b";".to_vec())], words: 2 },
        Format { pieces: vec![Piece::Literal(spec("%s"), b"lit".to_vec())], words: 1 },
    ];
    let data = [0, 7, 1, 0, u32::MAX, crate::compiler::printf::END_MARK, 0, 9];
    assert_eq!(render(&formats, &data, 5), b"7;lit-1;");
    assert_eq!(render(&formats, &data, 4), b"7;lit");
    // A record past the counter, or cut by it, is not shown; END_MARK ends the output.
    assert_eq!(render(&formats, &data, 3), b"7;lit");
    assert_eq!(render(&formats, &data, 8), b"7;lit-1;");
    // A counter beyond the data (the buffer full) reads only what is there.
    assert_eq!(render(&formats, &data[..4], u32::MAX), b"7;lit");
}
