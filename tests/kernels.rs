//! The compiler's end-to-end corpus: OpenCL C programs in `tests/kernels/*.cl` (one per
//! language area, many kernels each) built by the driver through the ICD loader, run on the
//! device, and compared with references computed here in Rust. Then the address-space rules
//! A1–A17 from the negative side: programs that must fail to build, with their message and
//! `line:column` in the build log.
mod common;
#[path = "kernels/harness.rs"]
mod harness;

use common::*;
use harness::*;

const N: usize = 64;

/// Operands for integer type `T`: divisors are never 0 and never `MIN / -1`.
macro_rules! int_operands {
    ($t:ty, $seed:expr) => {{
        let a: Vec<$t> = values(N, $seed);
        let b: Vec<$t> = values::<$t>(N, $seed + 1)
            .into_iter()
            .zip(&a)
            .map(|(y, &x)| if y == 0 || (x == <$t>::MIN && y == (0 as $t).wrapping_sub(1)) { 3 } else { y })
            .collect();
        (a, b)
    }};
}

macro_rules! check_int_type {
    ($suite:expr, $t:ty, $name:literal, $seed:expr) => {{
        let s = $suite;
        let (a, b) = int_operands!($t, $seed);
        let (ba, bb, out, cmp) = (s.buf(&a), s.buf(&b), s.zeros::<$t>(N * 12), s.zeros::<i32>(N * 8));
        s.run(concat!("int_", $name), &[Arg::Buf(&ba), Arg::Buf(&bb), Arg::Buf(&out)], &[N], None);
        s.run(concat!("cmp_", $name), &[Arg::Buf(&ba), Arg::Buf(&bb), Arg::Buf(&cmp)], &[N], None);
        let want: Vec<$t> = a
            .iter()
            .zip(&b)
            .flat_map(|(&x, &y)| {
                let sh = (y & 7) as u32;
                [
                    x.wrapping_add(y), x.wrapping_sub(y), x.wrapping_mul(y), x.wrapping_div(y), x.wrapping_rem(y),
                    x & y, x | y, x ^ y, x.wrapping_shl(sh), x.wrapping_shr(sh), (0 as $t).wrapping_sub(x), !x,
                ]
            })
            .collect();
        s.check(concat!("int_", $name), &s.get::<$t>(&out, N * 12), &want);
        let want: Vec<i32> = a.iter().zip(&b).flat_map(|(&x, &y)| compare(x, y, x != 0, y != 0)).collect();
        s.check(concat!("cmp_", $name), &s.get::<i32>(&cmp, N * 8), &want);
    }};
}

/// `<, <=, >, >=, ==, !=, &&, !x || y` as OpenCL C gives them on scalars (0 or 1).
fn compare<T: PartialOrd>(x: T, y: T, xt: bool, yt: bool) -> [i32; 8] {
    [x < y, x <= y, x > y, x >= y, x == y, x != y, xt && yt, !xt || yt].map(i32::from)
}

#[test]
fn scalar_arithmetic() {
    let s = Suite::new(include_str!("kernels/scalars.cl"));
    check_int_type!(&s, i8, "char", 1);
    check_int_type!(&s, u8, "uchar", 2);
    check_int_type!(&s, i16, "short", 3);
    check_int_type!(&s, u16, "ushort", 4);
    check_int_type!(&s, i32, "int", 5);
    check_int_type!(&s, u32, "uint", 6);
    check_int_type!(&s, i64, "long", 7);
    check_int_type!(&s, u64, "ulong", 8);

    let (c, sh, i, l) = (values::<i8>(N, 11), values::<i16>(N, 12), values::<i32>(N, 13), values::<i64>(N, 14));
    let f: Vec<f32> = i.iter().map(|&v| v as f32).collect();
    let bufs = (s.buf(&c), s.buf(&sh), s.buf(&i), s.buf(&l), s.buf(&f));
    s.run("negate", &[Arg::Buf(&bufs.0), Arg::Buf(&bufs.1), Arg::Buf(&bufs.2), Arg::Buf(&bufs.3), Arg::Buf(&bufs.4)], &[N], None);
    s.check("negate char", &s.get::<i8>(&bufs.0, N), &c.iter().map(|v| v.wrapping_neg()).collect::<Vec<_>>());
    s.check("negate short", &s.get::<i16>(&bufs.1, N), &sh.iter().map(|v| v.wrapping_neg()).collect::<Vec<_>>());
    s.check("negate int", &s.get::<i32>(&bufs.2, N), &i.iter().map(|v| v.wrapping_neg()).collect::<Vec<_>>());
    s.check("negate long", &s.get::<i64>(&bufs.3, N), &l.iter().map(|v| v.wrapping_neg()).collect::<Vec<_>>());
    s.check("negate float", &s.get::<f32>(&bufs.4, N), &f.iter().map(|v| -v).collect::<Vec<_>>());

    let a: Vec<f32> = values::<i32>(N, 9).iter().map(|&v| v as f32 / 65536.0).collect();
    let mut b: Vec<f32> = values::<i32>(N, 10).iter().map(|&v| (v >> 8) as f32 / 1024.0 + 0.5).collect();
    b[3] = a[3]; // equal operands
    b[4] = 0.0;
    let (ba, bb, out, cmp) = (s.buf(&a), s.buf(&b), s.zeros::<f32>(N * 6), s.zeros::<i32>(N * 8));
    s.run("float_ops", &[Arg::Buf(&ba), Arg::Buf(&bb), Arg::Buf(&out)], &[N], None);
    s.run("cmp_float", &[Arg::Buf(&ba), Arg::Buf(&bb), Arg::Buf(&cmp)], &[N], None);
    let got = s.get::<f32>(&out, N * 6);
    for (i, (&x, &y)) in a.iter().zip(&b).enumerate() {
        let want = [x + y, x - y, x * y, x / y, -x, x * 2.5 - y];
        let g = &got[i * 6..i * 6 + 6];
        // Division may be off by 2.5 ulp (OpenCL C §7.4), the rest is exact.
        let close = |g: f32, w: f32, ulps: f32| g == w || (g - w).abs() <= ulps * f32::EPSILON * w.abs();
        let fine = close(g[0], want[0], 0.0) && close(g[1], want[1], 0.0) && close(g[2], want[2], 0.0)
            && close(g[3], want[3], 3.0) && g[4] == want[4] && close(g[5], want[5], 1.0);
        if !fine {
            s.fail(format!("float_ops[{i}]: got {g:?} want {want:?}"));
        }
    }
    let want: Vec<i32> = a.iter().zip(&b).flat_map(|(&x, &y)| compare(x, y, x != 0.0, y != 0.0)).collect();
    s.check("cmp_float", &s.get::<i32>(&cmp, N * 8), &want);

    let (a, o, u, l) = (s.buf(&[0x1234_5679i32, 35]), s.zeros::<i32>(3), s.zeros::<u32>(1), s.zeros::<i64>(1));
    s.run("shift_mask", &[Arg::Buf(&a), Arg::Buf(&o), Arg::Buf(&u), Arg::Buf(&l)], &[1], None);
    // n = 35: masked to 3 for 32-bit operands; n + 32 = 67 masked to 3 for long; (char)x = 0x79.
    s.check("shift_mask int", &s.get::<i32>(&o, 3), &[0x1234_5679 << 3, 0x1234_5679 >> 3, 0x79 << 12]);
    s.check("shift_mask uint", &s.get::<u32>(&u, 1), &[0x1234_5679u32 >> 3]);
    s.check("shift_mask long", &s.get::<i64>(&l, 1), &[0x1234_5679i64 << 3]);

    let (o, u, l, f) = (s.zeros::<i32>(12), s.zeros::<u32>(2), s.zeros::<i64>(1), s.zeros::<f32>(1));
    s.run("promotions", &[Arg::Buf(&o), Arg::Buf(&u), Arg::Buf(&l), Arg::Buf(&f)], &[1], None);
    s.check("promotions int", &s.get::<i32>(&o, 12), &[247, 62500, -60000, 130000, 0, 4, -56, 4, -3, 1, -1, 66]);
    s.check("promotions uint", &s.get::<u32>(&u, 2), &[4_294_967_294, 0]);
    s.check("promotions long", &s.get::<i64>(&l, 1), &[-21_000_000_000]);
    s.check("promotions float", &s.get::<f32>(&f, 1), &[-2.5]);
    s.finish();
}
