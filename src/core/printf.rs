//! `printf` output (OpenCL C 3.0 §6.15.14): once a launch has completed, the records its
//! work-items left in the printf buffer (`compiler/printf.rs`) are turned into text, in the
//! order the records were reserved, and written to the process's standard output in one
//! piece. The conversions follow C99 as glibc prints them (`inf`, `-nan`, `0x1.8p+1`,
//! `(nil)`...), which is what the CTS compares with. Digits of decimal conversions come from
//! Rust's exact float formatting, correctly rounded with ties to even, as glibc's are.

use super::device::Device;
use super::program::Executable;
use super::queue::HostStep;
use crate::cl::types::*;
use crate::cl::CLResult;
use crate::compiler::printf::{Class, Format, Length, Operand, Piece, Spec, BUFFER_SIZE, CAPACITY_WORDS};
use crate::vk::batch::Batch;
use crate::vk::memory::{Placement, Staging, StagingPool};
use crate::vk::vk;
use std::io::Write;
use std::sync::Arc;

/// The printf buffer of one launch (from the device's staging pool, so launches do not
/// allocate), and the host-cached copy read back where the host cannot read it fast.
pub struct LaunchBuffer {
    buffer: Staging,
    readback: Option<Staging>,
}

impl LaunchBuffer {
    pub fn new(device: &Device) -> CLResult<LaunchBuffer> {
        let get = |placement| StagingPool::get(&device.gpu, u64::from(BUFFER_SIZE), placement).map_err(|_| CL_OUT_OF_RESOURCES);
        let buffer = get(Placement::Device)?;
        let readback = if buffer.mapped().is_some() && buffer.host_cached() { None } else { Some(get(Placement::Readback)?) };
        Ok(LaunchBuffer { buffer, readback })
    }

    pub fn raw(&self) -> vk::Buffer {
        self.buffer.raw
    }

    /// Before the dispatch: the counter set to zero, visible to the kernel.
    pub fn record_reset(&self, batch: &Batch) {
        let d = &batch.gpu().device;
        // SAFETY: the batch is recording; the buffer lives until the host step has run.
        unsafe { d.cmd_fill_buffer(batch.cmd(), self.buffer.raw, 0, 4, 0) };
        batch.barrier(vk::PipelineStageFlags2::COPY, vk::PipelineStageFlags2::COMPUTE_SHADER);
    }

    /// After the dispatch: the copy the host reads, if it needs one, and the host step that
    /// prints the records with `exe`'s formats. (The batch makes the writes visible to the
    /// host at its end.)
    pub fn finish(self, batch: &Batch, exe: Arc<Executable>) -> HostStep {
        if let Some(r) = &self.readback {
            batch.barrier(vk::PipelineStageFlags2::COMPUTE_SHADER, vk::PipelineStageFlags2::COPY);
            let region = [vk::BufferCopy { src_offset: 0, dst_offset: 0, size: u64::from(BUFFER_SIZE) }];
            // SAFETY: recording; both buffers are BUFFER_SIZE long at least.
            unsafe { batch.gpu().device.cmd_copy_buffer(batch.cmd(), self.buffer.raw, r.raw, &region) };
        }
        Box::new(move || {
            let source = self.readback.as_ref().unwrap_or(&self.buffer);
            let Some(p) = source.mapped() else { return };
            // SAFETY: the command has completed and its writes are visible; the mapping is
            // BUFFER_SIZE bytes of u32 words, suitably aligned.
            let words = unsafe { std::slice::from_raw_parts(p.as_ptr().cast::<u32>(), (BUFFER_SIZE / 4) as usize) };
            emit(&render(&exe.program.printf, &words[1..], words[0]));
        })
    }
}

/// The text of the records in `data` (the buffer's words after the counter; `used`: the
/// counter). Records past the capacity were never written; a record that did not fit left
/// `END_MARK` (no format has that index) where it would have begun.
pub fn render(formats: &[Format], data: &[u32], used: u32) -> Vec<u8> {
    let end = (used.min(CAPACITY_WORDS) as usize).min(data.len());
    let data = &data[..end];
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(f) = data.get(i).and_then(|&id| formats.get(id as usize)) {
        let Some(record) = data.get(i..i + f.words as usize) else { break };
        render_record(f, record, &mut out);
        i += f.words as usize;
    }
    out
}

/// Writes one launch's output to standard output and flushes it, through C's `stdout` so
/// that it keeps its place among what a C application printed before (a buffered `stdout`
/// would otherwise show this first). Rust's own buffered output is flushed first.
pub fn emit(text: &[u8]) {
    if text.is_empty() {
        return;
    }
    let _ = std::io::stdout().flush();
    extern "C" {
        static mut stdout: *mut std::ffi::c_void;
        fn fwrite(ptr: *const std::ffi::c_void, size: usize, n: usize, stream: *mut std::ffi::c_void) -> usize;
        fn fflush(stream: *mut std::ffi::c_void) -> i32;
    }
    // SAFETY: the C library's `stdout` stream, read once; fwrite locks the stream itself.
    unsafe {
        let stream = std::ptr::addr_of!(stdout).read();
        if !stream.is_null() {
            fwrite(text.as_ptr().cast(), 1, text.len(), stream);
            fflush(stream);
        }
    }
}

fn render_record(f: &Format, record: &[u32], out: &mut Vec<u8>) {
    for piece in &f.pieces {
        match piece {
            Piece::Text(t) => out.extend_from_slice(t),
            Piece::Literal(spec, s) => string(spec, s, out),
            Piece::Value(spec, op) => {
                for k in 0..usize::from(op.count) {
                    if k > 0 {
                        out.push(b',');
                    }
                    value(spec, op, element(record, op, k), out);
                }
            }
        }
    }
}

/// The bits of element `k` of an operand.
fn element(record: &[u32], op: &Operand, k: usize) -> u64 {
    let at = op.at as usize + k * usize::from(op.words);
    let word = |i: usize| u64::from(record.get(i).copied().unwrap_or(0));
    if op.words == 2 { word(at) | word(at + 1) << 32 } else { word(at) }
}

fn value(spec: &Spec, op: &Operand, bits: u64, out: &mut Vec<u8>) {
    match spec.class() {
        Class::Float => {
            let x = if op.words == 2 { f64::from_bits(bits) } else { f64::from(f32::from_bits(bits as u32)) };
            float(spec, x, out);
        }
        Class::Char => pad(spec, b"", &[bits as u8], false, out),
        Class::Pointer => pointer(spec, bits, out),
        Class::Int | Class::Str => integer(spec, op, bits, out),
    }
}

/// `d i o u x X`: the value converted to the length modifier's type (a scalar `int` stored
/// for `%ld` extends by its own signedness), signed for `d`/`i`.
fn integer(spec: &Spec, op: &Operand, bits: u64, out: &mut Vec<u8>) {
    let width = match spec.length {
        Length::Hh => 8,
        Length::H => 16,
        Length::None | Length::Hl => 32,
        Length::L => 64,
    };
    let bits = if width == 64 && op.words == 1 && op.signed { bits as u32 as i32 as i64 as u64 } else { bits };
    let bits = if width == 64 { bits } else { bits & ((1u64 << width) - 1) };
    let signed = matches!(spec.conversion, b'd' | b'i');
    let negative = signed && bits >> (width - 1) & 1 == 1;
    let magnitude = if negative { (bits | !0u64 << (width - 1) << 1).wrapping_neg() } else { bits };
    let sign = sign_prefix(spec, negative && signed, signed);
    digits_field(spec, sign, magnitude, out);
}

/// The sign a signed conversion writes: `-`, or `+`/space as the flags ask.
fn sign_prefix(spec: &Spec, negative: bool, signed: bool) -> &'static [u8] {
    match (negative, signed && spec.flags.plus, signed && spec.flags.space) {
        (true, _, _) => b"-",
        (false, true, _) => b"+",
        (false, false, true) => b" ",
        _ => b"",
    }
}

/// The digits of an integer conversion with its precision, `#` form and padding.
fn digits_field(spec: &Spec, sign: &[u8], magnitude: u64, out: &mut Vec<u8>) {
    let (base, upper) = match spec.conversion {
        b'o' => (8, false),
        b'x' => (16, false),
        b'X' => (16, true),
        _ => (10, false),
    };
    let mut digits = to_base(magnitude, base, upper);
    if spec.precision == Some(0) && magnitude == 0 {
        digits.clear();
    }
    let min = spec.precision.unwrap_or(1) as usize;
    if digits.len() < min {
        let mut padded = vec![b'0'; min - digits.len()];
        padded.extend(digits);
        digits = padded;
    }
    if spec.flags.alt && base == 8 && digits.first() != Some(&b'0') {
        digits.insert(0, b'0');
    }
    let mut prefix = sign.to_vec();
    if spec.flags.alt && base == 16 && magnitude != 0 {
        prefix.extend_from_slice(if upper { b"0X" } else { b"0x" });
    }
    pad(spec, &prefix, &digits, spec.precision.is_none(), out);
}

fn to_base(mut v: u64, base: u64, upper: bool) -> Vec<u8> {
    let table: &[u8; 16] = if upper { b"0123456789ABCDEF" } else { b"0123456789abcdef" };
    let mut d = Vec::new();
    loop {
        d.push(table[(v % base) as usize]);
        v /= base;
        if v == 0 {
            break;
        }
    }
    d.reverse();
    d
}

/// Writes `prefix` and `body` in the field: spaces to the left, or with `-` to the right, or
/// zeros between prefix and body where the `0` flag applies (`zeros_allowed`).
fn pad(spec: &Spec, prefix: &[u8], body: &[u8], zeros_allowed: bool, out: &mut Vec<u8>) {
    let fill = (spec.width as usize).saturating_sub(prefix.len() + body.len());
    if spec.flags.left {
        out.extend_from_slice(prefix);
        out.extend_from_slice(body);
        out.resize(out.len() + fill, b' ');
    } else if spec.flags.zero && zeros_allowed {
        out.extend_from_slice(prefix);
        out.resize(out.len() + fill, b'0');
        out.extend_from_slice(body);
    } else {
        out.resize(out.len() + fill, b' ');
        out.extend_from_slice(prefix);
        out.extend_from_slice(body);
    }
}

/// `%s`: at most `precision` bytes.
fn string(spec: &Spec, s: &[u8], out: &mut Vec<u8>) {
    let n = spec.precision.map_or(s.len(), |p| (p as usize).min(s.len()));
    pad(spec, b"", &s[..n], false, out);
}

/// `%p` as glibc writes it: `(nil)` for NULL, else as `%#x` (where `+` and space still add
/// a sign).
fn pointer(spec: &Spec, v: u64, out: &mut Vec<u8>) {
    if v == 0 {
        return pad(spec, b"", b"(nil)", false, out);
    }
    let mut hex = spec.clone();
    hex.conversion = b'x';
    hex.flags.alt = true;
    digits_field(&hex, sign_prefix(spec, false, true), v, out);
}

/// `f F e E g G a A`.
fn float(spec: &Spec, x: f64, out: &mut Vec<u8>) {
    let upper = spec.conversion.is_ascii_uppercase();
    let sign = sign_prefix(spec, x.is_sign_negative(), true);
    if !x.is_finite() {
        let word: &[u8] = match (x.is_nan(), upper) {
            (true, false) => b"nan",
            (true, true) => b"NAN",
            (false, false) => b"inf",
            (false, true) => b"INF",
        };
        return pad(spec, sign, word, false, out);
    }
    let a = x.abs();
    let alt = spec.flags.alt;
    let (prefix, body) = match spec.conversion.to_ascii_lowercase() {
        b'f' => (sign.to_vec(), fixed(a, spec.precision.unwrap_or(6) as usize, alt)),
        b'e' => (sign.to_vec(), exponential(a, spec.precision.unwrap_or(6) as usize, alt, upper)),
        b'g' => (sign.to_vec(), general(a, spec.precision, alt, upper)),
        _ => {
            let mut p = sign.to_vec();
            p.extend_from_slice(if upper { b"0X" } else { b"0x" });
            (p, hexadecimal(a, spec.precision, alt, upper))
        }
    };
    pad(spec, &prefix, &body, true, out);
}

/// `%f` of a non-negative finite value.
fn fixed(a: f64, precision: usize, alt: bool) -> Vec<u8> {
    let mut s = format!("{a:.precision$}").into_bytes();
    if precision == 0 && alt {
        s.push(b'.');
    }
    s
}

/// `%e` of a non-negative finite value: one digit, the fraction, an exponent of at least two
/// digits.
fn exponential(a: f64, precision: usize, alt: bool, upper: bool) -> Vec<u8> {
    let (mantissa, exp) = split_exponent(a, precision);
    let mut s = mantissa.into_bytes();
    if precision == 0 && alt {
        s.push(b'.');
    }
    s.push(if upper { b'E' } else { b'e' });
    s.extend_from_slice(format!("{}{:02}", if exp < 0 { '-' } else { '+' }, exp.unsigned_abs()).as_bytes());
    s
}

/// Rust's `{:.p$e}` as (mantissa digits, decimal exponent).
fn split_exponent(a: f64, precision: usize) -> (String, i32) {
    let s = format!("{a:.precision$e}");
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    (m.to_string(), e.parse().unwrap_or(0))
}

/// `%g`: `%e` or `%f` by the exponent, then trailing zeros removed unless `#`.
fn general(a: f64, precision: Option<u32>, alt: bool, upper: bool) -> Vec<u8> {
    let p = match precision {
        None => 6,
        Some(0) => 1,
        Some(p) => p as usize,
    };
    let (_, x) = split_exponent(a, p - 1);
    let mut s = if x < p as i32 && x >= -4 {
        fixed(a, (p as i32 - 1 - x) as usize, alt)
    } else {
        exponential(a, p - 1, alt, upper)
    };
    if !alt {
        let exp_at = s.iter().position(|&c| c == b'e' || c == b'E').unwrap_or(s.len());
        let (mut mantissa, exp) = (s[..exp_at].to_vec(), s[exp_at..].to_vec());
        if mantissa.contains(&b'.') {
            while mantissa.last() == Some(&b'0') {
                mantissa.pop();
            }
            if mantissa.last() == Some(&b'.') {
                mantissa.pop();
            }
        }
        mantissa.extend(exp);
        s = mantissa;
    }
    s
}

/// `%a` after the `0x`: glibc's form, a leading digit of 1 for normal values and 0 for zero
/// and subnormals (whose exponent is -1022), the fraction rounded to nearest even where a
/// precision asks for fewer than 13 digits (the leading digit may round up to 2).
fn hexadecimal(a: f64, precision: Option<u32>, alt: bool, upper: bool) -> Vec<u8> {
    let bits = a.to_bits();
    let (field, fraction) = ((bits >> 52) as i32, bits & ((1 << 52) - 1));
    let (lead, exp) = match (field, fraction) {
        (0, 0) => (0u64, 0),
        (0, _) => (0, -1022),
        _ => (1, field - 1023),
    };
    let v = lead << 52 | fraction;
    let digits = match precision {
        Some(p) if p < 13 => {
            let shift = 52 - 4 * p;
            let (mut kept, rest, half) = (v >> shift, v & ((1 << shift) - 1), 1u64 << (shift - 1));
            if rest > half || (rest == half && kept & 1 == 1) {
                kept += 1;
            }
            (kept >> (4 * p), kept & ((1 << (4 * p)) - 1), p as usize)
        }
        Some(p) => (lead, fraction, p as usize),
        None => {
            let mut n = 13;
            while n > 0 && fraction >> (52 - 4 * n) & 0xf == 0 {
                n -= 1;
            }
            (lead, fraction, n)
        }
    };
    let (lead, frac, n) = digits;
    let table: &[u8; 16] = if upper { b"0123456789ABCDEF" } else { b"0123456789abcdef" };
    let mut s = vec![table[lead as usize & 0xf]];
    if n > 0 || alt {
        s.push(b'.');
    }
    // The fraction's digits: 13 significant ones (then zeros), or `n` after rounding.
    let available = if precision.is_some_and(|p| p < 13) { n } else { 13 };
    for i in 0..n {
        let d = if i < available { frac >> (4 * (available - 1 - i)) & 0xf } else { 0 };
        s.push(table[d as usize]);
    }
    s.push(if upper { b'P' } else { b'p' });
    s.extend_from_slice(format!("{}{}", if exp < 0 { '-' } else { '+' }, exp.unsigned_abs()).as_bytes());
    s
}

#[cfg(test)]
mod tests;
