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

/// `typedef union { struct { float x, y; }; struct { float real, imag; }; } cfloat_t` (pyopencl)
/// in a buffer, a value argument, `__constant`, `__local` and private memory, through function
/// parameters and results and initializers. Small integers keep every product exact.
#[test]
fn anonymous_struct_members() {
    let s = Suite::new(include_str!("language.cl"));
    let n = 16;
    let z: Vec<f32> = values::<u8>(2 * n, 31).iter().map(|&v| f32::from(v % 64)).collect();
    let (wr, wi) = (3.0f32, -2.0f32);
    let bz = s.buf(&z);
    s.run("complex_members", &[Arg::Buf(&bz), Arg::Val(bytes(&[wr, wi])), Arg::Local(8 * 8)], &[n], Some(&[8]));
    let want: Vec<f32> = z
        .chunks(2)
        .flat_map(|a| {
            let (pr, pi) = (a[0] * wr - a[1] * wi, a[0] * wi + a[1] * wr);
            // (a w) i, plus (a.imag, a.real).
            [-pi + a[1], pr + a[0]]
        })
        .collect();
    s.check("complex arithmetic through anonymous members", &s.get::<f32>(&bz, 2 * n), &want);

    let n = 6;
    let (t, o) = (s.zeros::<i32>(4 * n), s.zeros::<i32>(4 * n));
    s.run("tagged_members", &[Arg::Buf(&t), Arg::Buf(&o)], &[n], None);
    // (tag, union, lo, hi, end) of the three table entries; the third is filled by position.
    let table = [(1, 2, 3, 4, 5), (6, 0, 7, 8, 9), (10, 11, 12, 13, 14)];
    let mut want_t = Vec::new();
    let mut want_o = Vec::new();
    for i in 0..n {
        let (tag, u, lo, hi, end) = table[i % 3];
        want_t.extend([tag, u, lo | (hi + i as i32) << 16, end]);
        want_o.extend([tag, u, lo * 100 + hi, end + 3000]);
    }
    s.check("struct with anonymous members copied to a buffer", &s.get::<i32>(&t, 4 * n), &want_t);
    s.check("anonymous members initialized by position and designators", &s.get::<i32>(&o, 4 * n), &want_o);
    s.finish();
}

/// Brace elision, designator lists and unsized arrays sized by their initializers; the
/// expected values follow C99 §6.7.8 by hand (comments name the rule).
#[test]
fn nested_and_designated_initializers() {
    let s = Suite::new(include_str!("language.cl"));
    let o = s.zeros::<i32>(25);
    s.run("initializers", &[Arg::Buf(&o)], &[1], None);
    let want = [
        // s = { 1, { 2, 3 }, 4, 5 }: b's braces left out.
        1, 3, 5,
        // t = { .b = 7, 8, .a = 9 }: the item after a designator goes to the next element.
        9, 7, 8, 0,
        // u = { "ab", 1, 2, 3 }: in.a = 1, in.v = (2, 3) without braces, in.b zero.
        i32::from(b'b'), 1, 3, 0,
        // w = { .in.b[1] = 5, .name[0] = 'x', 'y' }.
        i32::from(b'x'), i32::from(b'y'), 5, 0,
        // arr[] = { 1, 2, 3, 4, 5, s, 6 }: five items fill arr[0], s is arr[1] whole.
        3, 5, 5, 6,
        // grid[2][3] = { 1, 2, 3, 4 }.
        4, 3, 0,
        // sparse[] = { [3] = 1, 2, [1] = 7 }: five elements.
        5, 7, 2,
    ];
    s.check("initializers", &s.get::<i32>(&o, 25), &want);
    s.finish();
}

/// `&(T){...}`, `(int[]){...}` as a pointer and indexed, a member of a literal, a literal in a
/// loop.
#[test]
fn compound_literals_as_lvalues() {
    let s = Suite::new(include_str!("language.cl"));
    let i: Vec<i32> = values::<i16>(6, 41).iter().map(|&v| i32::from(v)).collect();
    let (bi, o) = (s.buf(&i), s.zeros::<i32>(8));
    s.run("compound_literals", &[Arg::Buf(&bi), Arg::Buf(&o)], &[1], None);
    let want = [i[0] + 1, 2, i[1] + 2 * i[2] + i[3], i[4], 20, i[5], 10 + 1 + i[5], i[0] * 2];
    s.check("compound literals", &s.get::<i32>(&o, 8), &want);
    s.finish();
}

/// `{ .real = 5, 6 }` on pyopencl's `cfloat_t` (the second anonymous struct of the union) and
/// a later designator choosing another union member.
#[test]
fn union_designated_initializers() {
    let s = Suite::new(include_str!("language.cl"));
    let (z, o) = (s.zeros::<f32>(4), s.zeros::<i32>(1));
    s.run("union_initializers", &[Arg::Buf(&z), Arg::Buf(&o)], &[1], None);
    s.check("union members chosen by designators", &s.get::<f32>(&z, 4), &[5.0, 6.0, 0.0, -1.0]);
    s.check("the last designator wins", &s.get::<i32>(&o, 1), &[1.5f32.to_bits() as i32]);
    s.finish();
}
