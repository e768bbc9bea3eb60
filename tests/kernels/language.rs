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

/// `.rgba`, `.s`/`.S` names, and `.hi`/`.lo`/`.even`/`.odd` of every size (3 included) as
/// rvalues and lvalues, in private memory and in a buffer of `int3`.
#[test]
fn vector_component_names() {
    let s = Suite::new(include_str!("language.cl"));
    let a: Vec<i32> = values(16, 21);
    let p3: Vec<i32> = values(12, 22);
    let (ba, o, bp) = (s.buf(&a), s.zeros::<i32>(65), s.buf(&p3));
    s.run("components", &[Arg::Buf(&ba), Arg::Buf(&o), Arg::Buf(&bp)], &[1], None);
    let pick = |v: &[i32], idx: &[usize]| idx.iter().map(|&i| v[i]).collect::<Vec<_>>();
    let c = &a[4..8];
    let t = pick(&a, &[9, 10, 11]);
    let mut want = vec![c[0], c[3]];
    want.extend(pick(c, &[3, 2, 1, 0]));
    want.extend(pick(c, &[0, 1, 2]));
    want.extend(pick(&t, &[0, 1]));
    want.extend(pick(&t, &[0, 2]));
    want.extend([t[2], t[1]]);
    want.extend(&a[8..16]);
    want.extend(pick(&a, &[1, 3, 5, 7, 9, 11, 13, 15]));
    want.extend(pick(&a, &[0, 2, 4, 6]));
    want.push(a[1]);
    want.extend(pick(c, &[1, 3]));
    want.extend(pick(&a, &[15, 14, 13, 12]));
    want.extend([c[1], c[0], 9, 8]);
    want.extend([t[0], 200, 100]);
    let mut big = a.clone();
    for i in (1..16).step_by(2) {
        big[i] = big[i - 1];
    }
    big[8..12].fill(-1);
    want.extend(big);
    s.check("components", &s.get::<i32>(&o, 65), &want);
    // int3 elements take 4 ints; the fourth is padding.
    let got = s.get::<i32>(&bp, 12);
    let mut want = p3.clone();
    want[2] = 5;
    want[5] = 7;
    want[10] = p3[9];
    let xyz = |v: &[i32]| v.chunks(4).flat_map(|e| e[..3].to_vec()).collect::<Vec<_>>();
    s.check("int3 components in a buffer", &xyz(&got), &xyz(&want));
    s.finish();
}
