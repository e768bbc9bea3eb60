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

/// Byte views of float data in private and `__local` memory, written and read back.
#[test]
fn byte_views_of_floats_in_every_space() {
    let s = Suite::new(
        "kernel void k(global const float *in, global uint *out) {
             int i = get_global_id(0), l = get_local_id(0);
             local float tile[64];
             float priv[4];
             for (int k = 0; k < 4; k++) priv[k] = in[4 * i + k];
             tile[l] = in[4 * i];
             barrier(CLK_LOCAL_MEM_FENCE);
             private uchar *pb = (private uchar *)priv;
             local uchar *lb = (local uchar *)tile + 4 * l;
             uint sum = 0;
             for (int k = 0; k < 16; k++) sum = sum * 31 + pb[k];
             for (int k = 0; k < 4; k++) sum = sum * 31 + lb[k];
             pb[0] ^= 0xff;
             out[2 * i] = sum;
             out[2 * i + 1] = as_uint(priv[0]);
         }",
    );
    let input: Vec<f32> = (0..256).map(|x| x as f32 * 1.37 - 50.0).collect();
    let (inp, out) = (s.buf(&input), s.zeros::<u32>(128));
    s.run("k", &[Arg::Buf(&inp), Arg::Buf(&out)], &[64], Some(&[64]));
    let want: Vec<u32> = (0..64)
        .flat_map(|i| {
            let bytes: Vec<u8> = input[4 * i..4 * i + 4].iter().flat_map(|f| f.to_le_bytes()).collect();
            let sum = bytes.iter().chain(&bytes[..4]).fold(0u32, |s, &b| s.wrapping_mul(31).wrapping_add(u32::from(b)));
            [sum, input[4 * i].to_bits() ^ 0xff]
        })
        .collect();
    s.check("byte sums and flipped bits", &s.get::<u32>(&out, 128), &want);
    s.finish();
}

/// Two `__local` buffers swapped in a loop (a ping-pong prefix sum), and a pointer chosen
/// between them by `?:`.
#[test]
fn ping_pong_local_buffers_swapped_in_a_loop() {
    let s = Suite::new(
        "kernel void k(global const int *in, global int *out, global int *pick) {
             local int a[64], b[64];
             int l = get_local_id(0), g = get_global_id(0);
             local int *src = a, *dst = b;
             src[l] = in[g];
             barrier(CLK_LOCAL_MEM_FENCE);
             for (int d = 1; d < 64; d <<= 1) {
                 dst[l] = src[l] + (l >= d ? src[l - d] : 0);
                 barrier(CLK_LOCAL_MEM_FENCE);
                 local int *t = src; src = dst; dst = t;
             }
             out[g] = src[l];
             local int *either = (l & 1) ? a : b;
             pick[g] = either[l] - (src == a ? 1000 : 0);
         }",
    );
    let input: Vec<i32> = (0..128).map(|x| (x * 7919) % 97 - 40).collect();
    let (inp, out, pick) = (s.buf(&input), s.zeros::<i32>(128), s.zeros::<i32>(128));
    s.run("k", &[Arg::Buf(&inp), Arg::Buf(&out), Arg::Buf(&pick)], &[128], Some(&[64]));
    let mut scans = Vec::new();
    let mut picks = Vec::new();
    for group in input.chunks(64) {
        // Six rounds: the result ends in `a` (src after an even number of swaps).
        let (mut a, mut b) = (group.to_vec(), vec![0; 64]);
        for r in 0..6 {
            let d = 1 << r;
            let (src, dst) = if r % 2 == 0 { (&a, &mut b) } else { (&b, &mut a) };
            for l in 0..64 {
                dst[l] = src[l] + if l >= d { src[l - d] } else { 0 };
            }
        }
        scans.extend(&a);
        picks.extend((0..64).map(|l| if l & 1 == 1 { a[l] } else { b[l] } - 1000));
    }
    s.check("scan", &s.get::<i32>(&out, 128), &scans);
    s.check("picked", &s.get::<i32>(&pick, 128), &picks);
    s.finish();
}

/// A `__local` argument reinterpreted (`float2` data read as floats), next to a `__local`
/// variable in the same arena, and `uintptr_t` alignment arithmetic on pointers of every space.
#[test]
fn local_arguments_reinterpreted_and_aligned_pointer_integers() {
    let s = Suite::new(
        "kernel void k(global const float2 *in, local float2 *pairs, global float *out, global uint *align) {
             local int counter[3];
             int l = get_local_id(0), g = get_global_id(0);
             pairs[l] = in[g];
             if (l < 3) counter[l] = l;
             barrier(CLK_LOCAL_MEM_FENCE);
             local float *flat = (local float *)pairs;
             out[g] = flat[2 * get_local_size(0) - 1 - 2 * l] + counter[l % 3];
             float4 p4;
             double d;
             uint a = ((uintptr_t)&p4 & 15) | ((uintptr_t)(flat + 4) & 15) << 4
                    | ((uintptr_t)(in + 2) & 15) << 8 | ((uintptr_t)&d & 7) << 12
                    | ((uintptr_t)&counter[2] & 3) << 16;
             global const float *aligned = (global const float *)(((uintptr_t)((global const float *)in + 1) + 15) & ~(uintptr_t)15);
             align[g] = a | (uint)(aligned - (global const float *)in) << 20;
         }",
    );
    let input: Vec<[f32; 2]> = (0..64).map(|x| [x as f32, -(x as f32) * 0.5]).collect();
    let (inp, out, align) = (s.buf(&input), s.zeros::<f32>(64), s.zeros::<u32>(64));
    s.run("k", &[Arg::Buf(&inp), Arg::Local(32 * 8), Arg::Buf(&out), Arg::Buf(&align)], &[64], Some(&[32]));
    let want: Vec<f32> = (0..64)
        .map(|g| {
            let (group, l) = (g / 32, g % 32);
            let flat: Vec<f32> = input[group * 32..group * 32 + 32].iter().flatten().copied().collect();
            flat[63 - 2 * l] + (l % 3) as f32
        })
        .collect();
    s.check("reversed floats of pairs", &s.get::<f32>(&out, 64), &want);
    // `aligned` is the first 16-byte boundary after in + 1 float: in + 4 floats.
    s.check("alignments", &s.get::<u32>(&align, 64), &[4 << 20; 64]);
    s.finish();
}

/// A pointer chosen between two `__global` arguments per work-item, a pointer variable that is
/// given different buffers, and a struct of floats stepped through as an array.
#[test]
fn pointers_chosen_between_buffers_and_stepped_over_struct_members() {
    let s = Suite::new(
        "typedef struct { float x, y, z, w; } acc_t;
         kernel void k(global const float *a, global const float *b, global float *out) {
             int g = get_global_id(0);
             global const float *src = (g & 1) ? a : b;
             global const float *p = &a[g];
             float s = *p;
             if (g % 3 == 0) p = &b[g];
             s += *p;
             acc_t acc = { 1.0f, 2.0f, 3.0f, 4.0f };
             for (int i = 0; i < 4; i++) (&acc.x)[i] *= src[g];
             out[g] = s + acc.x + acc.y + acc.z + acc.w;
         }",
    );
    let a: Vec<f32> = (0..64).map(|x| x as f32).collect();
    let b: Vec<f32> = (0..64).map(|x| 100.0 + x as f32).collect();
    let (ba, bb, out) = (s.buf(&a), s.buf(&b), s.zeros::<f32>(64));
    s.run("k", &[Arg::Buf(&ba), Arg::Buf(&bb), Arg::Buf(&out)], &[64], Some(&[16]));
    let want: Vec<f32> = (0..64)
        .map(|g| {
            let src = if g & 1 == 1 { a[g] } else { b[g] };
            let second = if g % 3 == 0 { b[g] } else { a[g] };
            a[g] + second + 10.0 * src
        })
        .collect();
    s.check("chosen buffers", &s.get::<f32>(&out, 64), &want);
    s.finish();
}

/// Program-scope `__global` variables (OpenCL C 3.0): initialised once per program object,
/// kept from launch to launch, reached by name and through pointers of any type.
#[test]
fn program_scope_global_variables_keep_their_values() {
    let s = Suite::with_options(
        "global int counter = 5;
         global float table[4] = { 1.5f, 2.5f, 3.5f, 4.5f };
         global uchar bytes[6];
         extern global int later;
         kernel void k(global int *out) {
             int g = get_global_id(0);
             if (g == 0) {
                 counter += 1;
                 later += 10;
             }
             global uchar *b = (global uchar *)&table[1];
             out[g] = counter * 1000 + (int)table[g % 4] + b[3] + later;
             bytes[g % 6] = (uchar)g;
         }
         global int later = 7;",
        "-cl-std=CL3.0",
    );
    let out = s.zeros::<i32>(8);
    // Two launches: the second sees what the first left (one work-item bumps, all read before
    // the bump is visible only in the next launch).
    for round in 0..2 {
        s.run("k", &[Arg::Buf(&out)], &[1], Some(&[1]));
        let got = s.get::<i32>(&out, 1);
        let b3 = 2.5f32.to_le_bytes()[3] as i32;
        s.check(&format!("launch {round}"), &got, &[(6 + round) * 1000 + 1 + b3 + 17 + 10 * round]);
    }
    s.finish();
}

/// Generic pointers (OpenCL C 3.0): one helper called with pointers into all three spaces,
/// `to_global`/`to_local`/`to_private` and `get_fence` on each.
#[test]
fn generic_pointers_passed_to_one_helper_from_every_space() {
    let s = Suite::with_options(
        "int sum3(const int *p) { return p[0] + p[1] + p[2]; }
         uint kind(int *p) {
             return (to_global(p) ? 1u : 0u) | (to_local(p) ? 2u : 0u) | (to_private(p) ? 4u : 0u) | get_fence(p) << 4;
         }
         kernel void k(global int *g, global uint *out) {
             local int l[3];
             int p[3];
             int i = get_global_id(0);
             if (get_local_id(0) == 0) { l[0] = 10; l[1] = 20; l[2] = 30; }
             barrier(CLK_LOCAL_MEM_FENCE);
             for (int k = 0; k < 3; k++) p[k] = i * k;
             out[4 * i] = sum3(g + i) + sum3(l) + sum3(p);
             out[4 * i + 1] = kind(g);
             out[4 * i + 2] = kind(l + 1);
             out[4 * i + 3] = kind(&p[2]);
         }",
        "-cl-std=CL3.0",
    );
    let g: Vec<i32> = (0..40).map(|x| x * 3 - 7).collect();
    let (gb, out) = (s.buf(&g), s.zeros::<u32>(4 * 32));
    s.run("k", &[Arg::Buf(&gb), Arg::Buf(&out)], &[32], Some(&[16]));
    let want: Vec<u32> = (0..32)
        .flat_map(|i| {
            let sum = g[i] + g[i + 1] + g[i + 2] + 60 + 3 * i as i32;
            [sum as u32, 1 | 2 << 4, 2 | 1 << 4, 4]
        })
        .collect();
    s.check("sums and spaces", &s.get::<u32>(&out, 4 * 32), &want);
    s.finish();
}

/// A generic pointer variable given objects in every space in turn, a `?:` between a
/// `__local` and a private object, and `static` variables in a function (OpenCL C 3.0).
#[test]
fn generic_pointers_switching_spaces_at_run_time() {
    let s = Suite::with_options(
        "global int g = 100;
         int bump(void) { static int calls; return ++calls; }
         kernel void k(global int *out) {
             local int l;
             int p = 3, i = get_global_id(0);
             if (get_local_id(0) == 0) l = 20;
             barrier(CLK_LOCAL_MEM_FENCE);
             int *q = &g;
             int acc = *q + (to_global(q) != 0);
             q = &l;
             acc += *q + 10 * (to_local(q) != 0) + (int)get_fence(q);
             q = (i & 1) ? &l : &p;
             acc += *q * 1000 + 100000 * (to_private(q) != 0);
             out[i] = acc;
             if (i == 0) out[64] = bump() + bump();
         }",
        "-cl-std=CL3.0",
    );
    let out = s.zeros::<i32>(65);
    s.run("k", &[Arg::Buf(&out)], &[64], Some(&[16]));
    let want: Vec<i32> = (0..64).map(|i| 101 + 31 + if i & 1 == 1 { 20_000 } else { 3000 + 100_000 }).chain([3]).collect();
    s.check("sums", &s.get::<i32>(&out, 65), &want);
    s.finish();
}

/// Pointers held in a private struct and a private array of pointers, a program-scope
/// pointer variable kept across launches, and a linked list threaded through a buffer by
/// offsets.
#[test]
fn pointers_held_in_memory_and_a_linked_list_by_offsets() {
    let s = Suite::with_options(
        "typedef struct { global const int *data; local int *scratch; int n; } view_t;
         global int table[4] = { 5, 6, 7, 8 };
         global int *cursor = &table[1];
         kernel void k(global const int *next, global const int *val, global int *out) {
             local int tmp[8];
             int i = get_global_id(0);
             view_t v = { val, tmp, 3 };
             global const int *picks[2] = { val + 1, next };
             v.scratch[get_local_id(0)] = v.data[i] * 2;
             barrier(CLK_LOCAL_MEM_FENCE);
             int sum = 0;
             for (int at = i; at >= 0; at = next[at]) sum += val[at];
             out[i] = sum + v.scratch[get_local_id(0)] + picks[i & 1][0] * 1000;
             if (i == 0) { out[16] = *cursor; cursor++; }
         }",
        "-cl-std=CL3.0",
    );
    // A list per start: at -> next[at] until -1.
    let next: Vec<i32> = (0..16).map(|i| if i % 4 == 0 { -1 } else { i - 1 }).collect();
    let val: Vec<i32> = (0..16).map(|i| i * 10 + 1).collect();
    let (nb, vb, out) = (s.buf(&next), s.buf(&val), s.zeros::<i32>(17));
    for launch in 0..2 {
        s.run("k", &[Arg::Buf(&nb), Arg::Buf(&vb), Arg::Buf(&out)], &[16], Some(&[8]));
        let want: Vec<i32> = (0..16)
            .map(|i| {
                let (mut sum, mut at) = (0, i as i32);
                while at >= 0 {
                    sum += val[at as usize];
                    at = next[at as usize];
                }
                sum + 2 * val[i] + 1000 * if i & 1 == 1 { next[0] } else { val[1] }
            })
            .chain([6 + launch])
            .collect();
        s.check(&format!("launch {launch}"), &s.get::<i32>(&out, 17), &want);
    }
    s.finish();
}

/// A pointer variable that nothing assigns is a null pointer of its space (CTS
/// `max_number_of_params` passes such pointers on and asks for their fence).
#[test]
fn pointers_never_assigned_keep_their_space() {
    let s = Suite::with_options(
        "uint fence(int *p) { return get_fence(p); }
         kernel void k(global uint *out) {
             global int *g;
             local int *l;
             out[0] = fence(g) | fence(l) << 4 | (g == NULL) << 8;
         }",
        "-cl-std=CL3.0",
    );
    let out = s.zeros::<u32>(1);
    s.run("k", &[Arg::Buf(&out)], &[1], Some(&[1]));
    s.check("fences", &s.get::<u32>(&out, 1), &[2 | 1 << 4 | 1 << 8]);
    s.finish();
}

/// A pointer to a member of a struct inside an array, stepped by arithmetic (pyopencl's scan
/// kernels: `(__local int *)&ldata[i][j].value` then `src[r]`): in `__local` and private
/// arrays of structs, and in a buffer of structs (also held in a variable and stepped).
#[test]
fn pointers_stepped_off_members_of_struct_arrays() {
    let s = Suite::new(
        "typedef struct { int v; int pad; } wrapped;
         typedef struct { int a, b, c; } triple;
         int second(global const int *p) { return p[1]; }
         kernel void k(global const triple *t, global int *out) {
             int i = get_global_id(0), l = get_local_id(0);
             local wrapped ld[3][17];
             wrapped pd[4];
             ld[l % 3][l].v = i;
             ld[l % 3][l].pad = 100 + i;
             for (int k = 0; k < 4; k++) { pd[k].v = k * i; pd[k].pad = -k; }
             barrier(CLK_LOCAL_MEM_FENCE);
             local int *src = (local int *)&(ld[(15 - l) % 3][15 - l].v);
             int *pp = &pd[2].v;
             global const int *g = &t[i].a;
             out[4 * i] = src[l & 1];
             out[4 * i + 1] = pp[1] + pp[2];
             out[4 * i + 2] = g[2] + second(&t[i].a);
             g += 1;
             out[4 * i + 3] = *g;
         }",
    );
    let n = 32;
    let t: Vec<i32> = (0..3 * n as i32).map(|x| x * 7).collect();
    let (tb, out) = (s.buf(&t), s.zeros::<i32>(4 * n));
    s.run("k", &[Arg::Buf(&tb), Arg::Buf(&out)], &[n], Some(&[16]));
    let want: Vec<i32> = (0..n)
        .flat_map(|i| {
            let (l, i32_) = (i % 16, i as i32);
            // The work-item whose slot this one reads: 15 - l in the same group.
            let j = ((i / 16) * 16 + 15 - l) as i32;
            [if l % 2 == 0 { j } else { 100 + j }, -2 + 3 * i32_, t[3 * i + 2] + t[3 * i + 1], t[3 * i + 1]]
        })
        .collect();
    s.check("values", &s.get::<i32>(&out, 4 * n), &want);
    s.finish();
}

/// Pointers into unions (pyopencl's `cfloat_t`, a union of two anonymous structs): to members
/// of private, `__local` and buffer unions, passed to a helper and stepped; a union of pointer
/// members (CTS `test_generic_address_space language_union`), which all share one integer.
#[test]
fn pointers_into_unions_and_unions_of_pointers() {
    let s = Suite::with_options(
        "typedef union { struct { float x, y; }; struct { float real, imag; }; uint bits[2]; } cf;
         void scale(float *v, float k) { *v *= k; }
         global int g = 1;
         kernel void k(global cf *z, global float *out, global uint *bits, global int *ptrs) {
             int i = get_global_id(0), l = get_local_id(0);
             cf u;
             u.real = z[i].real;
             u.imag = z[i].imag;
             scale(&u.real, 2.0f);
             scale(&u.imag, 3.0f);
             uint *w = &u.bits[1];
             bits[i] = *w;
             local cf lu[16];
             lu[l] = u;
             local float *li = &lu[l].imag;
             *li += 1.0f;
             barrier(CLK_LOCAL_MEM_FENCE);
             global float *zr = &z[i].real;
             zr[1] = lu[15 - l].imag;
             out[i] = u.x + u.y;
             local int lv;
             lv = 2;
             int pv = 3;
             union { global int *gp; local int *lp; private int *pp; } p;
             p.gp = &g;
             int sum = *p.gp + (to_global(p.gp) != 0);
             p.lp = &lv;
             sum += *p.lp * 10 + (to_local(p.lp) != 0) * 10;
             p.pp = &pv;
             sum += *p.pp * 100 + (to_private(p.pp) != 0) * 100;
             ptrs[i] = sum;
         }",
        "-cl-std=CL3.0",
    );
    let n = 32;
    let z: Vec<f32> = (0..n).flat_map(|i| [i as f32 + 0.5, i as f32 - 3.0]).collect();
    let (zb, out, bits, ptrs) = (s.buf(&z), s.zeros::<f32>(n), s.zeros::<u32>(n), s.zeros::<i32>(n));
    s.run("k", &[Arg::Buf(&zb), Arg::Buf(&out), Arg::Buf(&bits), Arg::Buf(&ptrs)], &[n], Some(&[16]));
    let (re, im): (Vec<f32>, Vec<f32>) = (0..n).map(|i| (z[2 * i] * 2.0, z[2 * i + 1] * 3.0)).unzip();
    s.check("members through pointers", &s.get::<f32>(&out, n), &re.iter().zip(&im).map(|(r, i)| r + i).collect::<Vec<_>>());
    s.check("a word of the union", &s.get::<u32>(&bits, n), &im.iter().map(|f| f.to_bits()).collect::<Vec<_>>());
    let want_z: Vec<f32> = (0..n).flat_map(|i| [z[2 * i], im[(i / 16) * 16 + 15 - i % 16] + 1.0]).collect();
    s.check("buffer unions", &s.get::<f32>(&zb, 2 * n), &want_z);
    s.check("pointer members", &s.get::<i32>(&ptrs, n), &vec![2 + 30 + 400; n]);
    s.finish();
}

/// Helpers too large to copy into every caller are called as functions of their own
/// (`docs/compiler.md`, "Functions"): one hashing helper takes pointers to private arrays, to a
/// private struct's member (through a pointer to the struct), to a buffer, to a struct member
/// in a buffer, to `__local` memory and to a private array seen as bytes, and another returns a
/// value; one takes the same array as its input and its output.
#[test]
fn large_helpers_called_with_pointers_of_every_kind() {
    let s = Suite::new(
        "#define ROUND(i) h[(i) & 3] = rotate(h[(i) & 3] ^ w[(i) & 7], (uint)((i) % 31 + 1)) + h[((i) + 1) & 3] * 0x9E3779B1u;
         #define R4(i) ROUND(i) ROUND(i + 1) ROUND(i + 2) ROUND(i + 3)
         #define R16(i) R4(i) R4(i + 4) R4(i + 8) R4(i + 12)
         #define R64 R16(0) R16(16) R16(32) R16(48)
         typedef struct { uint h[4]; uint len; } ctx_t;
         typedef struct { uint pad; uint w[8]; } blk_t;
         void mix(const uint *w, uint *h) { R64 }
         void mix_g(global const uint *w, uint *h) { R64 }
         void mix_l(local const uint *w, uint *h) { R64 }
         #define SWAP(i) out[(i) & 3] = rotate(out[(i) & 3] ^ in[((i) + 2) & 3], (uint)((i) % 29 + 1)) + 0x7F4A7C15u;
         #define S4(i) SWAP(i) SWAP(i + 1) SWAP(i + 2) SWAP(i + 3)
         #define S16(i) S4(i) S4(i + 4) S4(i + 8) S4(i + 12)
         void scramble(const uint *in, uint *out) { S16(0) S16(16) S16(32) S16(48) S16(64) }
         void update(ctx_t *c, const uint *w) { mix(w, c->h); c->len += 8; }
         uint fold(uint a, uint b) {
             uint h[4] = { a, b, a ^ b, a + b };
             uint w[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
             mix(w, h);
             if (a == b) return 0;
             return h[0] ^ h[1] ^ h[2] ^ h[3];
         }
         kernel void k(global const uint *in, global const blk_t *blks, global uint *out) {
             local uint tile[64 * 8];
             int i = get_global_id(0), l = get_local_id(0);
             for (int k = 0; k < 8; k++) tile[l * 8 + k] = in[i * 8 + k] ^ 0x55u;
             barrier(CLK_LOCAL_MEM_FENCE);
             ctx_t c = { { 1, 2, 3, 4 }, 0 };
             uint w[8], v[8];
             for (int k = 0; k < 8; k++) { w[k] = in[i * 8 + k]; v[k] = w[k] + 1; }
             update(&c, w);
             mix_g(in + i * 8, c.h);
             mix_g(blks[i].w, c.h);
             mix_l(tile + l * 8, c.h);
             ((uchar *)v)[1] ^= 0xff;
             update(&c, v);
             scramble(c.h, c.h);
             for (int k = 0; k < 4; k++) out[i * 6 + k] = c.h[k];
             out[i * 6 + 4] = c.len;
             out[i * 6 + 5] = fold(c.h[0], c.h[1]) + fold(7, 7);
         }",
    );
    let n = 128;
    let input: Vec<u32> = (0..n as u32 * 8).map(|x| x.wrapping_mul(0x2545_f491) ^ (x >> 3)).collect();
    let blks: Vec<u32> = (0..n as u32 * 9).map(|x| x.wrapping_mul(0x9e37_79b9).rotate_left(5)).collect();
    let (inp, bl, out) = (s.buf(&input), s.buf(&blks), s.zeros::<u32>(n * 6));
    s.run("k", &[Arg::Buf(&inp), Arg::Buf(&bl), Arg::Buf(&out)], &[n], Some(&[64]));
    fn mix(w: &[u32], h: &mut [u32; 4]) {
        for i in 0..64 {
            h[i & 3] = (h[i & 3] ^ w[i & 7]).rotate_left((i % 31 + 1) as u32).wrapping_add(h[(i + 1) & 3].wrapping_mul(0x9e37_79b1));
        }
    }
    let fold = |a: u32, b: u32| {
        let mut h = [a, b, a ^ b, a.wrapping_add(b)];
        mix(&[1, 2, 3, 4, 5, 6, 7, 8], &mut h);
        if a == b { 0 } else { h[0] ^ h[1] ^ h[2] ^ h[3] }
    };
    let mut want = Vec::new();
    for i in 0..n {
        let w = &input[i * 8..i * 8 + 8];
        let mut v: Vec<u32> = w.iter().map(|x| x + 1).collect();
        v[0] ^= 0xff00;
        let tile: Vec<u32> = w.iter().map(|x| x ^ 0x55).collect();
        let mut h = [1, 2, 3, 4];
        mix(w, &mut h);
        mix(w, &mut h);
        mix(&blks[i * 9 + 1..i * 9 + 9], &mut h);
        mix(&tile, &mut h);
        mix(&v, &mut h);
        for i in 0..80 {
            h[i & 3] = (h[i & 3] ^ h[(i + 2) & 3]).rotate_left((i % 29 + 1) as u32).wrapping_add(0x7f4a_7c15);
        }
        want.extend(h);
        want.extend([16, fold(h[0], h[1]).wrapping_add(fold(7, 7))]);
    }
    s.check("hashes", &s.get::<u32>(&out, n * 6), &want);
    s.finish();
}

/// A helper that returns pointers into different buffers (early returns from both arms), as
/// node allocators do: the pointer it returns is chosen at run time.
#[test]
fn helpers_returning_pointers_into_different_buffers() {
    let s = Suite::new(
        "global int *pick(global int *a, global int *b, int i) {
             if (i % 3 == 0) return a + i;
             if (i % 3 == 1) return b + 2 * i;
             return a + 64 + (i ^ 1);
         }
         kernel void k(global int *a, global int *b, global int *out) {
             int i = get_global_id(0);
             global int *p = pick(a, b, i);
             out[i] = *p;
             *p += 1000;
         }",
    );
    let n = 48usize;
    let a: Vec<i32> = (0..64 + n as i32).collect();
    let b: Vec<i32> = (0..2 * n as i32).map(|x| -x).collect();
    let (ab, bb, out) = (s.buf(&a), s.buf(&b), s.zeros::<i32>(n));
    s.run("k", &[Arg::Buf(&ab), Arg::Buf(&bb), Arg::Buf(&out)], &[n], Some(&[16]));
    let (mut wa, mut wb, mut wo) = (a.clone(), b.clone(), vec![0; n]);
    for i in 0..n {
        let target = match i % 3 {
            0 => &mut wa[i],
            1 => &mut wb[2 * i],
            _ => &mut wa[64 + (i ^ 1)],
        };
        wo[i] = *target;
        *target += 1000;
    }
    s.check("values read", &s.get::<i32>(&out, n), &wo);
    s.check("a", &s.get::<i32>(&ab, 64 + n), &wa);
    s.check("b", &s.get::<i32>(&bb, 2 * n), &wb);
    s.finish();
}

/// Pointers held in a private array, stored and read through pointers to pointers
/// (`*q = …`, `pp[i][j]`): the array's pointers are chosen among the buffers stored there.
#[test]
fn pointers_stored_and_read_through_pointers_to_pointers() {
    let s = Suite::with_options(
        "kernel void k(global int *a, global int *b, global int *out) {
             int i = get_global_id(0);
             global int *rows[3] = { a + i, b + 2 * i, a };
             global int **pp = rows;
             global int **q = &rows[1];
             if (i % 2) *q = b + i;
             q[1] = pp[0] + 64;
             out[i] = pp[0][0] + *pp[1] * 100 + rows[2][0] * 10000;
             pp[(i % 3 == 0) ? 1 : 0][0] += 1000;
         }",
        "-cl-std=CL3.0",
    );
    let n = 48usize;
    let a: Vec<i32> = (0..64 + n as i32).map(|x| x * 3).collect();
    let b: Vec<i32> = (0..2 * n as i32).map(|x| 7 - x).collect();
    let (ab, bb, out) = (s.buf(&a), s.buf(&b), s.zeros::<i32>(n));
    s.run("k", &[Arg::Buf(&ab), Arg::Buf(&bb), Arg::Buf(&out)], &[n], Some(&[16]));
    // Each work-item reads elements no other one writes, and writes its own.
    let (mut wa, mut wb, mut wo) = (a.clone(), b.clone(), vec![0; n]);
    for i in 0..n {
        let second = if i % 2 == 1 { i } else { 2 * i };
        wo[i] = a[i] + b[second] * 100 + a[64 + i] * 10000;
        if i % 3 == 0 {
            wb[second] += 1000;
        } else {
            wa[i] += 1000;
        }
    }
    s.check("values read", &s.get::<i32>(&out, n), &wo);
    s.check("a", &s.get::<i32>(&ab, 64 + n), &wa);
    s.check("b", &s.get::<i32>(&bb, 2 * n), &wb);
    s.finish();
}

/// A helper reads and writes pointers where its pointer-to-pointer parameter points, called
/// with two private arrays of pointers into different buffers.
#[test]
fn helpers_read_and_write_pointers_through_their_parameters() {
    let s = Suite::with_options(
        "int sum_rows(global int **rows, int n, int j) { int s = 0; for (int r = 0; r < n; r++) s += rows[r][j]; return s; }
         void shift(global int **rows, int by) { rows[0] += by; }
         kernel void k(global int *a, global int *b, global int *out) {
             int i = get_global_id(0);
             global int *x[2] = { a, b };
             global int *y[3] = { b + 64, a + 64, b };
             shift(y, i % 4);
             out[i] = sum_rows(x, 2, i) * 1000 + sum_rows(y, 3, i);
         }",
        "-cl-std=CL3.0",
    );
    let n = 32usize;
    let a: Vec<i32> = (0..128).map(|x| x * 2 + 1).collect();
    let b: Vec<i32> = (0..128).map(|x| 50 - x).collect();
    let (ab, bb, out) = (s.buf(&a), s.buf(&b), s.zeros::<i32>(n));
    s.run("k", &[Arg::Buf(&ab), Arg::Buf(&bb), Arg::Buf(&out)], &[n], Some(&[16]));
    let want: Vec<i32> = (0..n).map(|i| (a[i] + b[i]) * 1000 + b[64 + i % 4 + i] + a[64 + i] + b[i]).collect();
    s.check("sums", &s.get::<i32>(&out, n), &want);
    s.finish();
}
