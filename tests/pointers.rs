//! Pointers as run-time values (`docs/compiler.md`, "Pointers as run-time values"): programs
//! that reinterpret, choose, step and convert pointers in every address space, each checked
//! against the same computation in Rust.
mod common;
#[path = "kernels/harness.rs"]
#[allow(dead_code)]
mod harness;

use harness::{val, Arg, Suite};

/// `(uchar *)((uchar3 *)p + 1)` is `p + 4` (`sizeof(uchar3)` is 4); the byte remainder of
/// such a cast used to be dropped, so it pointed at `p` rounded down to a multiple of 4.
#[test]
fn casts_of_buffer_pointers_keep_every_byte() {
    let s = Suite::new(
        "kernel void k(global const uchar *in, global uchar *out, global int *diff) {
             int i = get_global_id(0);
             global const uchar *p = in + i;
             global const uchar *q = (global const uchar *)((global const uchar3 *)p + 1);
             out[i] = *q;
             diff[i] = (int)(q - p);
         }",
    );
    let input: Vec<u8> = (0..68u8).map(|x| x.wrapping_mul(7)).collect();
    let (inp, out, diff) = (s.buf(&input), s.zeros::<u8>(64), s.zeros::<i32>(64));
    s.run("k", &[Arg::Buf(&inp), Arg::Buf(&out), Arg::Buf(&diff)], &[64], Some(&[16]));
    s.check("byte at p + 4", &s.get::<u8>(&out, 64), &input[4..68]);
    s.check("q - p", &s.get::<i32>(&diff, 64), &[4; 64]);
    s.finish();
}

/// A 3 × 3 box sum over 3-channel bytes reached through `uchar3` pointers into a byte buffer.
#[test]
fn a_filter_over_three_channel_bytes() {
    let (w, h) = (9usize, 7usize);
    let s = Suite::new(
        "kernel void k(global const uchar *img, global uint *out, int w, int h) {
             int x = get_global_id(0), y = get_global_id(1);
             uint3 acc = 0;
             for (int dy = -1; dy <= 1; dy++)
                 for (int dx = -1; dx <= 1; dx++) {
                     int sx = clamp(x + dx, 0, w - 1), sy = clamp(y + dy, 0, h - 1);
                     global const uchar *row = img + sy * w * 3;
                     uchar3 px = vload3(0, row + sx * 3);
                     acc += convert_uint3(px);
                 }
             vstore3(acc, y * w + x, out);
         }",
    );
    let img: Vec<u8> = (0..w * h * 3).map(|i| (i * 37 % 251) as u8).collect();
    let (im, out) = (s.buf(&img), s.zeros::<u32>(w * h * 3));
    s.run("k", &[Arg::Buf(&im), Arg::Buf(&out), val(w as i32), val(h as i32)], &[w, h], Some(&[1, 1]));
    let mut want = vec![0u32; w * h * 3];
    for y in 0..h as i32 {
        for x in 0..w as i32 {
            for dy in -1..=1 {
                for dx in -1..=1 {
                    let (sx, sy) = ((x + dx).clamp(0, w as i32 - 1) as usize, (y + dy).clamp(0, h as i32 - 1) as usize);
                    for c in 0..3 {
                        want[(y as usize * w + x as usize) * 3 + c] += u32::from(img[(sy * w + sx) * 3 + c]);
                    }
                }
            }
        }
    }
    s.check("box sums", &s.get::<u32>(&out, w * h * 3), &want);
    s.finish();
}
