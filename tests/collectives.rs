//! Sub-group functions and work-group collectives (`kernels/collectives.cl`) against
//! references computed here from the sub-group size the device reports: work-groups of 44
//! work-items, so that sub-groups of 8 or 32 leave a partial one.
mod common;
#[path = "kernels/harness.rs"]
#[allow(dead_code)]
mod harness;

use common::*;
use harness::{values, Arg, Suite};

const LOCAL: usize = 44;
const GROUPS: usize = 2;
const N: usize = LOCAL * GROUPS;

fn sub_group_size() -> usize {
    device_info::<usize>(CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE)
}

/// The work-items of item `i`'s group: its work-group, or its sub-group of size `s`.
fn group_of(i: usize, s: Option<usize>) -> std::ops::Range<usize> {
    let start = i - i % LOCAL;
    match s {
        None => start..start + LOCAL,
        Some(s) => {
            let first = start + (i - start) / s * s;
            first..(first + s).min(start + LOCAL)
        }
    }
}

/// The ten results per work-item of `COLLECTIVES` in `collectives.cl`, from `combine` (add,
/// min, max), the identities of min and max, and the broadcast local id.
fn reference<T: Copy>(x: &[T], s: Option<usize>, ops: [fn(T, T) -> T; 3], zero: T, top: T, bottom: T, id: usize) -> Vec<T> {
    let mut out = vec![zero; 10 * N];
    for i in 0..N {
        let g = group_of(i, s);
        let fold = |range: std::ops::Range<usize>, op: fn(T, T) -> T, identity: T| x[range].iter().fold(identity, |a, &b| op(a, b));
        for (k, (op, identity)) in ops.iter().zip([zero, top, bottom]).enumerate() {
            out[k * N + i] = fold(g.clone(), *op, identity);
            out[(3 + k) * N + i] = fold(g.start..i + 1, *op, identity);
            out[(6 + k) * N + i] = fold(g.start..i, *op, identity);
        }
        out[9 * N + i] = x[g.start + id];
    }
    out
}

macro_rules! check_int {
    ($s:expr, $t:ty, $cl:expr, $seed:expr) => {{
        let x: Vec<$t> = values(N, $seed);
        let ops: [fn($t, $t) -> $t; 3] = [<$t>::wrapping_add, std::cmp::min, std::cmp::max];
        check_type(&$s, $cl, &x, ops, 0, <$t>::MAX, <$t>::MIN);
    }};
}

macro_rules! check_float {
    ($s:expr, $t:ty, $cl:expr) => {{
        // Small integers: every order of addition gives the same sums.
        let x: Vec<$t> = values::<u8>(N, 7).iter().map(|&b| b as $t - 128.0).collect();
        let ops: [fn($t, $t) -> $t; 3] = [|a, b| a + b, <$t>::min, <$t>::max];
        check_type(&$s, $cl, &x, ops, 0.0, <$t>::INFINITY, <$t>::NEG_INFINITY);
    }};
}

fn check_type<T: Copy + PartialEq + std::fmt::Debug>(s: &Suite, name: &str, x: &[T], ops: [fn(T, T) -> T; 3], zero: T, top: T, bottom: T) {
    let sub = Some(sub_group_size());
    // 8/16-bit types have sub-group collectives only (cl_khr_subgroup_extended_types).
    let groups = if std::mem::size_of::<T>() < 4 { &[("sub_group", sub, 1)][..] } else { &[("work_group", None, 5), ("sub_group", sub, 1)][..] };
    for &(group, size, id) in groups {
        let (input, out) = (s.buf(x), s.zeros::<T>(10 * N));
        s.run(&format!("{group}_{name}"), &[Arg::Buf(&input), Arg::Buf(&out)], &[N], Some(&[LOCAL]));
        let got = s.get::<T>(&out, 10 * N);
        let want = reference(x, size, ops, zero, top, bottom, id);
        let what = ["reduce_add", "reduce_min", "reduce_max", "scan_inclusive_add", "scan_inclusive_min", "scan_inclusive_max", "scan_exclusive_add", "scan_exclusive_min", "scan_exclusive_max", "broadcast"];
        for (k, w) in what.iter().enumerate() {
            s.check(&format!("{group}_{w}({name})"), &got[k * N..(k + 1) * N], &want[k * N..(k + 1) * N]);
        }
    }
}

#[test]
fn collectives_of_every_type() {
    let s = Suite::with_options(include_str!("kernels/collectives.cl"), "-cl-std=CL3.0");
    check_int!(s, i32, "int", 1);
    check_int!(s, u32, "uint", 2);
    check_int!(s, i64, "long", 3);
    check_int!(s, u64, "ulong", 4);
    check_float!(s, f32, "float");
    if device_info::<cl_ulong>(CL_DEVICE_DOUBLE_FP_CONFIG) != 0 {
        check_float!(s, f64, "double");
    }
    // Sums wrap in the type, and exclusive min/max scans start from the type's extremes.
    check_int!(s, i8, "char", 5);
    check_int!(s, u8, "uchar", 6);
    check_int!(s, i16, "short", 8);
    check_int!(s, u16, "ushort", 9);
    s.finish();
}

#[test]
fn sub_groups_broadcast_vectors() {
    let s = Suite::with_options(include_str!("kernels/collectives.cl"), "-cl-std=CL3.0");
    let size = sub_group_size();
    // char3 is 4 bytes in a buffer, short8 16.
    let c: Vec<i8> = values(4 * N, 10);
    let sh: Vec<i16> = values(8 * N, 11);
    let (cb, sb, oc, os) = (s.buf(&c), s.buf(&sh), s.zeros::<i8>(4 * N), s.zeros::<i16>(8 * N));
    s.run("sub_group_broadcast_vectors", &[Arg::Buf(&cb), Arg::Buf(&sb), Arg::Buf(&oc), Arg::Buf(&os)], &[N], Some(&[LOCAL]));
    let (oc, os) = (s.get::<i8>(&oc, 4 * N), s.get::<i16>(&os, 8 * N));
    for i in 0..N {
        let g = group_of(i, Some(size));
        let (from_c, from_s) = (g.start + 2, g.start + 3);
        if from_c < g.end {
            assert_eq!(oc[4 * i..4 * i + 3], c[4 * from_c..4 * from_c + 3], "char3 broadcast at {i}");
        }
        if from_s < g.end {
            assert_eq!(os[8 * i..8 * i + 8], sh[8 * from_s..8 * from_s + 8], "short8 broadcast at {i}");
        }
    }
}

#[test]
fn sub_group_work_item_functions_and_votes() {
    let s = Suite::with_options(include_str!("kernels/collectives.cl"), "-cl-std=CL3.0");
    let size = sub_group_size();
    let o = s.zeros::<u32>(6 * N);
    s.run("sub_group_items", &[Arg::Buf(&o)], &[N], Some(&[LOCAL]));
    let want: Vec<u32> = (0..N)
        .flat_map(|i| {
            let lid = i % LOCAL;
            let g = group_of(i, Some(size));
            let count = LOCAL.div_ceil(size);
            [g.len(), size.min(LOCAL), count, count, lid / size, lid % size].map(|v| v as u32)
        })
        .collect();
    s.check("sub-group work-item functions", &s.get::<u32>(&o, 6 * N), &want);

    // Group 0 all set, group 1 one set, in sub-group terms too.
    let pred: Vec<i32> = (0..N).map(|i| if i < LOCAL || i == LOCAL + 3 { 7 } else { 0 }).collect();
    let (input, out) = (s.buf(&pred), s.zeros::<i32>(4 * N));
    s.run("votes", &[Arg::Buf(&input), Arg::Buf(&out)], &[N], Some(&[LOCAL]));
    let vote = |i: usize, sub: Option<usize>, all: bool| {
        let g = group_of(i, sub);
        i32::from(if all { pred[g].iter().all(|&p| p != 0) } else { pred[g].iter().any(|&p| p != 0) })
    };
    let want: Vec<i32> = [(None, true), (None, false), (Some(size), true), (Some(size), false)]
        .iter()
        .flat_map(|&(sub, all)| (0..N).map(move |i| vote(i, sub, all)))
        .collect();
    s.check("work_group/sub_group all and any", &s.get::<i32>(&out, 4 * N), &want);

    // 2D work-groups of 4 × 3: the value of local id (2, 1) of each.
    let x: Vec<i32> = values(8 * 6, 9);
    let (input, out) = (s.buf(&x), s.zeros::<i32>(8 * 6));
    s.run("broadcast_2d", &[Arg::Buf(&input), Arg::Buf(&out)], &[8, 6], Some(&[4, 3]));
    let want: Vec<i32> = (0..48).map(|i| (i % 8 / 4 * 4 + 2, i / 8 / 3 * 3 + 1)).map(|(x0, y0)| x[y0 * 8 + x0]).collect();
    s.check("work_group_broadcast(x, 2, 1)", &s.get::<i32>(&out, 48), &want);
    s.finish();
}

#[test]
fn sub_group_shuffles_ballots_and_votes() {
    let s = Suite::with_options(include_str!("kernels/collectives.cl"), "-cl-std=CL3.0");
    let size = sub_group_size();
    let x: Vec<i32> = values(N, 11);
    let (input, out) = (s.buf(&x), s.zeros::<u32>(12 * N));
    s.run("sub_group_extensions", &[Arg::Buf(&input), Arg::Buf(&out)], &[N], Some(&[LOCAL]));
    let mut want = Vec::new();
    for i in 0..N {
        let g = group_of(i, Some(size));
        let (lane, n) = (i - g.start, g.len());
        let at = |l: usize| x[g.start + l] as u32;
        let odd = |l: usize| x[g.start + l] & 1 != 0;
        let ballot: Vec<usize> = (0..n).filter(|&l| odd(l)).collect();
        let mask = |range: std::ops::Range<usize>| range.filter(|&l| l < 32).fold(0u32, |m, l| m | 1 << l);
        // Lanes out of the sub-group read an undefined value: those results are not checked.
        let xor = if lane ^ 1 < n { at(lane ^ 1) } else { u32::MAX };
        let down = if lane + 1 < n { at(lane + 1) } else { u32::MAX };
        let lsb_msb = ballot.first().map_or(0, |&l| l as u32) + 100 * ballot.last().map_or(0, |&l| l as u32);
        let elect_group: Vec<usize> = (0..n).filter(|&l| x[g.start + l] & 2 != 0).collect();
        let elect = if x[i] & 2 == 0 { 7 } else { u32::from(elect_group.first() == Some(&lane)) };
        let all_equal = u32::from((0..n).all(|l| (x[g.start + l] > 0) == (x[g.start] > 0)));
        want.extend([
            at(n - 1 - lane),
            xor,
            if lane >= 2 { at(lane - 2) } else { 0 },
            down,
            ballot.len() as u32,
            ballot.iter().filter(|&&l| l <= lane).count() as u32,
            ballot.iter().filter(|&&l| l < lane).count() as u32,
            lsb_msb,
            u32::from(odd(lane)) + 2 * u32::from(odd(0)),
            mask(0..lane) + mask(lane..lane + 1) + (mask(lane + 1..n) & 0xff),
            elect,
            all_equal,
        ]);
    }
    let got = s.get::<u32>(&out, 12 * N);
    let names = ["shuffle", "shuffle_xor", "shuffle_up", "shuffle_down", "ballot_bit_count", "ballot_inclusive_scan", "ballot_exclusive_scan", "find_lsb + 100 find_msb", "inverse_ballot + 2 bit_extract", "lt + eq + gt masks", "elect", "all_equal"];
    for (k, name) in names.iter().enumerate() {
        let pick = |v: &[u32]| -> Vec<u32> { (0..N).map(|i| v[12 * i + k]).collect() };
        let (g, w) = (pick(&got), pick(&want));
        let defined: Vec<usize> = (0..N).filter(|&i| w[i] != u32::MAX).collect();
        s.check(&format!("sub_group {name}"), &defined.iter().map(|&i| g[i]).collect::<Vec<_>>(), &defined.iter().map(|&i| w[i]).collect::<Vec<_>>());
    }
    s.finish();
}

/// The non-uniform reductions and scans combine the active work-items only: the scans those
/// of lower lanes, from the operation's identity.
#[test]
fn sub_group_non_uniform_arithmetic() {
    let s = Suite::with_options(include_str!("kernels/collectives.cl"), "-cl-std=CL3.0");
    let size = sub_group_size();
    let x: Vec<i32> = values(N, 12);
    let c: Vec<u8> = values(N, 13);
    let (input, bytes, out, out_c) = (s.buf(&x), s.buf(&c), s.zeros::<i32>(6 * N), s.zeros::<u8>(N));
    s.run("sub_group_non_uniform", &[Arg::Buf(&input), Arg::Buf(&bytes), Arg::Buf(&out), Arg::Buf(&out_c)], &[N], Some(&[LOCAL]));
    let (mut want, mut want_c) = (Vec::new(), Vec::new());
    for i in 0..N {
        if x[i] & 1 == 0 {
            want.extend([7; 6]);
            want_c.push(7);
            continue;
        }
        let active: Vec<usize> = group_of(i, Some(size)).filter(|&j| x[j] & 1 != 0).collect();
        let below: Vec<usize> = active.iter().copied().filter(|&j| j < i).collect();
        let truth = |j: usize, bit: i32| x[j] & bit != 0;
        want.extend([
            below.iter().map(|&j| x[j]).fold(x[i], i32::min),
            below.iter().map(|&j| x[j]).fold(i32::MIN, i32::max),
            active.iter().fold(0, |a, &j| a ^ x[j]),
            active.iter().fold(1i32, |a, &j| a.wrapping_mul(x[j])),
            i32::from(below.iter().any(|&j| truth(j, 4))),
            i32::from(active.iter().all(|&j| truth(j, 8))),
        ]);
        want_c.push(below.iter().fold(0xff, |a, &j| a & c[j]));
    }
    s.check("sub_group_non_uniform min/max scans, xor/mul reductions, logical or scan, logical and", &s.get::<i32>(&out, 6 * N), &want);
    s.check("sub_group_non_uniform_scan_exclusive_and(uchar)", &s.get::<u8>(&out_c, N), &want_c);
    s.finish();
}

/// Clustered reductions combine the work-items of each cluster of consecutive sub-group ids;
/// rotations read the work-item `delta` ids further, modulo the sub-group's (or cluster's)
/// size. Reads past a partial sub-group's end are undefined and not checked.
#[test]
fn sub_group_clusters_and_rotations() {
    let s = Suite::with_options(include_str!("kernels/collectives.cl"), "-cl-std=CL3.0");
    let size = sub_group_size();
    let x: Vec<i32> = values(N, 14);
    let (input, out) = (s.buf(&x), s.zeros::<i32>(4 * N));
    s.run("sub_group_clusters", &[Arg::Buf(&input), Arg::Buf(&out)], &[N], Some(&[LOCAL]));
    let got = s.get::<i32>(&out, 4 * N);
    let (mut g_all, mut w_all) = (Vec::new(), Vec::new());
    for i in 0..N {
        let g = group_of(i, Some(size));
        let (lane, n) = (i - g.start, g.len());
        let cluster = |c: usize| (lane / c * c..(lane / c * c + c).min(n)).map(|l| x[g.start + l]);
        let read = |from: usize| (from < n).then(|| x[g.start + from]);
        let want = [
            Some(cluster(4).fold(0i32, i32::wrapping_add)),
            cluster(2).max(),
            read((lane + size - 3) % size),
            read(lane / 4 * 4 + (lane + 5) % 4),
        ];
        for (k, w) in want.into_iter().enumerate() {
            if let Some(w) = w {
                g_all.push(got[4 * i + k]);
                w_all.push(w);
            }
        }
    }
    s.check("clustered reduce add/4, max/2, rotate -3, clustered rotate 5/4", &g_all, &w_all);
    s.finish();
}

/// A `half` reduction is a half: its float sum rounded once to half, also seen as a float.
/// Every work-item adds 1 + 2^-10, so each partial sum is exact in float, and the work-group's
/// sum of 44 of them, 44 + 44 · 2^-10, lies between the halves 44 + 2^-5 and 44 + 2^-4.
#[test]
fn half_reductions_are_halves() {
    if !has_extension("cl_khr_fp16") {
        return;
    }
    let src = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable
        kernel void k(global float *o) {
            half x = (half)1.0009765625f;
            o[2 * get_global_id(0)] = (float)work_group_reduce_add(x);
            o[2 * get_global_id(0) + 1] = (float)sub_group_reduce_add(x); }";
    let s = Suite::with_options(src, "-cl-std=CL3.0");
    let o = s.zeros::<f32>(2 * LOCAL);
    s.run("k", &[Arg::Buf(&o)], &[LOCAL], Some(&[LOCAL]));
    let got = s.get::<f32>(&o, 2 * LOCAL);
    let size = sub_group_size();
    // The half nearest n (1 + 2^-10), ties to even: halves in [2^e, 2^(e+1)) are 2^(e-10) apart.
    let half_of = |n: usize| {
        let exact = n as f64 * (1.0 + 2f64.powi(-10));
        let unit = 2f64.powi(exact.log2().floor() as i32 - 10);
        let q = exact / unit;
        let r = if q - q.floor() == 0.5 { if q.floor() % 2.0 == 0.0 { q.floor() } else { q.ceil() } } else { q.round() };
        (r * unit) as f32
    };
    for i in 0..LOCAL {
        assert_eq!(got[2 * i], half_of(LOCAL), "work_group_reduce_add at {i}");
        let g = group_of(i, Some(size));
        assert_eq!(got[2 * i + 1], half_of(g.len()), "sub_group_reduce_add at {i}");
    }
    s.finish();
}
