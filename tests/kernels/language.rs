//! C declarations as real programs write them (`kernels/language.cl`): enums of every width,
//! anonymous struct and union members, vector component syntax, long operator chains.

use super::harness::*;

/// Enumerators above `INT_MAX` and above 2^63 (hashcat's MD5 and SHA-512 constants), and the
/// types clang gives them and their enums.
#[test]
fn enums_of_every_width() {
    let s = Suite::new(include_str!("language.cl"));
    let o = s.zeros::<u64>(22);
    s.run("enums", &[Arg::Buf(&o)], &[1], None);
    let (md5_a, md5_b) = (0x6745_2301u32, 0xefcd_ab89u32);
    let sha = [0x6a09_e667_f3bc_c908u64, 0xbb67_ae85_84ca_a73b, 0x3c6e_f372_fe94_f82b];
    let want = [
        u64::from(md5_a),
        u64::from(md5_b),
        u64::from(md5_b + 1),
        sha[0],
        sha[1],
        sha[2] + 1,
        -2i64 as u64,
        1 << 31,
        (1 << 31) + 1,
        7 + 1,
        // MD5M_A fits in int, so it is an int: the difference is negative.
        u64::from(i64::from(md5_a as i32) - 0x7000_0000 < 0),
        4,
        4,
        8,
        4,
        8,
        4,
        // uint arithmetic wraps.
        u64::from(md5_b.wrapping_add(0x2000_0000) > md5_b),
        // long comparison: -2 < 2^31.
        1,
        u64::from(md5_b >> 28),
        2,
        8,
    ];
    s.check("enumerator values and types", &s.get::<u64>(&o, 22), &want);
    s.finish();
}

/// A sum of 256 terms in one flat chain of operators.
#[test]
fn long_operator_chains() {
    let s = Suite::new(include_str!("language.cl"));
    let a: Vec<u32> = values(256, 7);
    let (ba, o) = (s.buf(&a), s.zeros::<u32>(1));
    s.run("long_chain", &[Arg::Buf(&ba), Arg::Buf(&o)], &[1], None);
    let want = a.chunks(4).fold(0u32, |sum, t| {
        sum.wrapping_add(t[0].wrapping_mul(3)).wrapping_add(t[1]).wrapping_sub(t[2]).wrapping_add(t[3] ^ 5)
    });
    s.check("255 chained operators", &s.get::<u32>(&o, 1), &[want]);
    s.finish();
}
