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
    for (group, size, id) in [("work_group", None, 5), ("sub_group", sub, 1)] {
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
    s.finish();
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
