//! Image kernels build, and their SPIR-V passes `spirv-val`; the ABI of image and sampler
//! arguments; the sampling arithmetic against a CPU model of the specification's formulas.

use crate::compiler::lower::tests::target;
use crate::compiler::spirv::tests::spirv_val;
use crate::compiler::{build, ArgKind, ImageAccess, ImageDim, Program, Variant};

fn built(src: &str) -> Program {
    build(src, "", &target()).unwrap_or_else(|e| panic!("{e:?}")).1
}

/// Builds `src` and validates every kernel's SPIR-V.
fn validated(src: &str) -> Program {
    let p = built(src);
    for k in &p.kernels {
        let words = k.specialize([8, 1, 1], &[], &[]).unwrap_or_else(|e| panic!("{}: {e}", k.name()));
        spirv_val(&words);
    }
    p
}

#[test]
fn read_image_2d_with_a_constant_sampler() {
    validated(
        "constant sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
         kernel void k(read_only image2d_t img, global float4 *out) {
             int i = get_global_id(0);
             out[i] = read_imagef(img, s, (int2)(i, 0)) + read_imagef(img, s, (float2)(i, 0.5f));
         }",
    );
}

/// (type name, int coordinate, float coordinate, has height, has depth, arrayed)
const SHAPES: [(&str, &str, &str, bool, bool, bool); 5] = [
    ("image1d_t", "int", "float", false, false, false),
    ("image1d_array_t", "int2", "float2", false, false, true),
    ("image2d_t", "int2", "float2", true, false, false),
    ("image2d_array_t", "int4", "float4", true, false, true),
    ("image3d_t", "int4", "float4", true, true, false),
];

#[test]
fn every_read_form_builds_for_every_shape() {
    for (ty, int, float, ..) in SHAPES {
        let src = format!(
            "constant sampler_t c = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_MIRRORED_REPEAT | CLK_FILTER_LINEAR;
             kernel void k(read_only {ty} f, read_only {ty} i, __read_only {ty} u, sampler_t s, global float4 *o, global int4 *oi, global uint4 *ou) {{
                 const sampler_t n = CLK_ADDRESS_CLAMP_TO_EDGE;
                 int g = get_global_id(0);
                 {int} ic = ({int})(g);
                 {float} fc = ({float})(g * 0.25f);
                 o[g] = read_imagef(f, s, fc) + read_imagef(f, s, ic) + read_imagef(f, c, fc) + read_imagef(f, n, ic) + read_imagef(f, ic)
                      + read_imagef(f, CLK_ADDRESS_REPEAT | CLK_NORMALIZED_COORDS_TRUE, fc);
                 oi[g] = read_imagei(i, s, fc) + read_imagei(i, s, ic) + read_imagei(i, ic) + read_imagei(i, c, fc);
                 ou[g] = read_imageui(u, s, fc) + read_imageui(u, n, ic) + read_imageui(u, ic);
             }}"
        );
        let p = validated(&src);
        let args = p.kernels[0].args();
        assert_eq!(args[0].type_name, ty);
        assert!(matches!(args[3].kind, ArgKind::Sampler { .. }), "{:?}", args[3].kind);
        assert_eq!(args[3].type_name, "sampler_t");
    }
}

#[test]
fn every_write_form_and_query_builds_for_every_shape() {
    for (ty, int, _, height, depth, arrayed) in SHAPES {
        let mut queries = String::from("get_image_width(f) + get_image_channel_order(i) + get_image_channel_data_type(u)");
        if height {
            queries += " + get_image_height(f) + get_image_dim(i).y";
        }
        if depth {
            queries += " + get_image_depth(u) + get_image_dim(f).z";
        }
        if arrayed {
            queries += " + (int)get_image_array_size(i)";
        }
        let src = format!(
            "kernel void k(write_only {ty} f, __write_only {ty} i, write_only {ty} u, read_only {ty} r, global int *o) {{
                 int g = get_global_id(0);
                 {int} c = ({int})(g);
                 write_imagef(f, c, (float4)(1.0f, 0.5f, 0.25f, g));
                 write_imagei(i, c, (int4)(-1, 2, -3, g));
                 write_imageui(u, c, (uint4)(1, 2, 3, g));
                 o[g] = {queries} + get_image_width(r){}{};
             }}",
            if arrayed { " + (int)get_image_array_size(r)" } else { "" },
            if height { " + get_image_dim(r).x" } else { "" },
        );
        validated(&src);
    }
}

#[test]
fn image_and_sampler_arguments_in_the_abi() {
    let p = validated(
        "kernel void k(global float4 *o, read_only image2d_t a, float x, write_only image3d_t b, sampler_t s) {
             o[0] = read_imagef(a, s, (float2)(x, 0.0f));
             write_imagef(b, (int4)(0), o[1]);
         }",
    );
    let args = p.kernels[0].args();
    let ArgKind::Image { binding: a, dim: ImageDim::D2, access: ImageAccess::Read, info: ia, uniform: false, .. } = args[1].kind else {
        panic!("{:?}", args[1].kind)
    };
    let ArgKind::Pod { offset: x, .. } = args[2].kind else { panic!() };
    let ArgKind::Image { binding: b, dim: ImageDim::D3, access: ImageAccess::Write, info: ib, uniform: false, .. } = args[3].kind else {
        panic!("{:?}", args[3].kind)
    };
    let ArgKind::Sampler { offset: s, uniform: false } = args[4].kind else { panic!() };
    let ArgKind::Buffer { bindings, .. } = &args[0].kind else { panic!() };
    // Fresh bindings, and value slots after the launch block that do not overlap.
    assert!(a != b && !bindings.contains(&a) && !bindings.contains(&b));
    let info = crate::compiler::IMAGE_INFO_WORDS * 4;
    let mut slots = [(ia, info), (x, 4), (ib, info), (s, 4)];
    slots.sort();
    assert!(slots[0].0 >= crate::compiler::LAUNCH_BLOCK_SIZE);
    assert!(slots.windows(2).all(|w| w[0].0 + w[0].1 <= w[1].0), "{slots:?}");
    assert_eq!(args[1].address, crate::compiler::AddressQualifier::Global);
    assert_eq!(args[1].type_name, "image2d_t");
}

#[test]
fn images_pass_through_functions() {
    validated(
        "float4 get(read_only image2d_t img, sampler_t s, int2 at) { return read_imagef(img, s, at); }
         void put(write_only image2d_t img, int2 at, float4 v) { write_imagef(img, at, v); }
         kernel void k(read_only image2d_t src, write_only image2d_t dst, sampler_t s) {
             int2 at = (int2)(get_global_id(0), get_global_id(1));
             put(dst, at, get(src, s, at) + get(src, CLK_ADDRESS_CLAMP, at));
         }",
    );
}

#[test]
fn an_image_read_as_float_and_as_int_is_an_error() {
    let err = build(
        "kernel void k(read_only image2d_t img, global int4 *o) { o[0] = read_imagei(img, (int2)(0)) + convert_int4(read_imagef(img, (int2)(0))); }",
        "",
        &target(),
    )
    .expect_err("one image, two channel types");
    assert!(format!("{err:?}").contains("image 'img' is read or written both as float and as integer data"), "{err:?}");
}

#[test]
fn half_reads_and_writes_with_fp16() {
    let target = crate::compiler::Target { fp16: true, ..target() };
    let src = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable
        kernel void k(read_only image2d_t r, write_only image2d_t w, sampler_t s) {
            int2 at = (int2)(get_global_id(0), 0);
            write_imageh(w, at, read_imageh(r, s, (float2)(0.5f)) + read_imageh(r, at));
        }";
    let (_, p) = build(src, "", &target).unwrap_or_else(|e| panic!("{e:?}"));
    spirv_val(&p.kernels[0].specialize([1, 1, 1], &[], &[]).unwrap_or_else(|e| panic!("{e}")));
}

/// The `CLK_*` sampler macros combine into `compiler::sampler_bits` of the host's values.
#[test]
fn sampler_macros_are_sampler_bits() {
    use crate::compiler::options::BuildOptions;
    let macros = crate::compiler::preprocess::predefined_macros(&target(), &BuildOptions::default());
    let value = |name: &str| {
        let text = &macros.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("{name}")).1;
        match text.strip_prefix("0x") {
            Some(hex) => u32::from_str_radix(hex, 16).unwrap(),
            None => text.parse::<u32>().unwrap(),
        }
    };
    let addressing = ["NONE", "CLAMP_TO_EDGE", "CLAMP", "REPEAT", "MIRRORED_REPEAT"];
    for (normalized, n) in [(false, "FALSE"), (true, "TRUE")] {
        for (mode, a) in addressing.iter().enumerate() {
            for (filter, f) in ["NEAREST", "LINEAR"].iter().enumerate() {
                let bits = value(&format!("CLK_NORMALIZED_COORDS_{n}")) | value(&format!("CLK_ADDRESS_{a}")) | value(&format!("CLK_FILTER_{f}"));
                // CL_ADDRESS_NONE = 0x1130 ..., CL_FILTER_NEAREST = 0x1140, CL_FILTER_LINEAR = 0x1141.
                assert_eq!(bits, crate::compiler::sampler_bits(normalized, 0x1130 + mode as u32, 0x1140 + filter as u32), "{n} {a} {f}");
            }
        }
    }
    assert_eq!((value("CLK_RGBA"), value("CLK_UNORM_INT8"), value("CLK_ABGR"), value("CLK_UNORM_INT_101010_2")), (0x10B5, 0x10D2, 0x10C3, 0x10E0));
}

/// `image1d_buffer_t` is a texel buffer: uniform for `read_only`, storage for `write_only`.
#[test]
fn texel_buffers() {
    let p = validated(
        "kernel void k(read_only image1d_buffer_t a, read_only image1d_buffer_t b, read_only image1d_t c, write_only image1d_buffer_t w, __write_only image1d_buffer_t wi) {
             int i = get_global_id(0);
             float4 v = read_imagef(a, i) + read_imagef(b, i + 1) + read_imagef(c, i) + (float4)(get_image_width(a) + get_image_width(w));
             write_imagef(w, i, v);
             write_imagei(wi, i, (int4)(get_image_channel_order(wi)));
         }",
    );
    let words = p.kernels[0].specialize([8, 1, 1], &[], &[]).unwrap_or_else(|e| panic!("{e}"));
    // OpTypeImage (25) of dimension Buffer (5): one sampled float, one storage float and one
    // storage int type.
    let insts = crate::compiler::spirv::instructions(&words);
    let buffers: Vec<u32> = insts.iter().filter(|i| i.op == 25 && words[i.at + 3] == 5).map(|i| words[i.at + 7]).collect();
    assert_eq!(buffers.iter().filter(|&&s| s == 1).count(), 1, "{buffers:?}");
    assert_eq!(buffers.iter().filter(|&&s| s == 2).count(), 2, "{buffers:?}");
    let ArgKind::Image { dim: ImageDim::D1Buffer, access: ImageAccess::Write, .. } = p.kernels[0].args()[3].kind else { panic!() };
    let err = build("kernel void k(read_only image1d_buffer_t a, sampler_t s, global float4 *o) { o[0] = read_imagef(a, s, 0); }", "", &target()).expect_err("no sampler");
    assert!(format!("{err:?}").contains("no overload of 'read_imagef'"), "{err:?}");
}

/// The variant for 2D images made from buffers `args`.
fn images(args: &[usize]) -> Variant {
    Variant { buffer_images: args.to_vec(), ..Variant::default() }
}

/// The variant of a kernel for 2D images made from buffers binds those `image2d_t` arguments
/// as texel buffers (the others stay images), keeps every binding, and is made once per set.
#[test]
fn image2d_from_buffer_variants() {
    let p = validated(
        "kernel void k(read_only image2d_t a, sampler_t s, write_only image2d_t b, read_only image2d_t c, global float *o) {
             int2 q = (int2)(get_global_id(0), get_global_id(1));
             float4 v = read_imagef(a, s, (float2)(q.x, q.y) * 0.5f) + read_imagef(c, q);
             write_imagef(b, q, v);
             o[0] = v.x;
         }",
    );
    let k = &p.kernels[0];
    assert!(k.variant(&Variant::default()).unwrap_or_else(|e| panic!("{e}")).is_none());
    assert!(k.variant(&images(&[1, 4])).unwrap_or_else(|e| panic!("{e}")).is_none(), "a sampler and a buffer are no 2D images");
    let v = k.variant(&images(&[2, 0])).unwrap_or_else(|e| panic!("{e}")).expect("a variant");
    let again = k.variant(&images(&[0, 2])).unwrap_or_else(|e| panic!("{e}")).expect("a variant");
    assert!(std::sync::Arc::ptr_eq(&v, &again), "made once per set of arguments");
    let texels = |k: &dyn crate::compiler::Kernel, n: usize| match k.args()[n].kind {
        ArgKind::Image { texels, binding, .. } => (texels, binding),
        _ => panic!("an image"),
    };
    for n in [0, 2, 3] {
        assert_eq!(texels(v.as_ref(), n).1, texels(k.as_ref(), n).1, "argument {n} keeps its binding");
        assert!(!texels(k.as_ref(), n).0);
    }
    assert_eq!([0, 2, 3].map(|n| texels(v.as_ref(), n).0), [true, true, false]);
    let words = v.specialize([8, 8, 1], &[], &[]).unwrap_or_else(|e| panic!("{e}"));
    spirv_val(&words);
    // OpTypeImage (25) of dimension Buffer (5): one sampled, one storage.
    let insts = crate::compiler::spirv::instructions(&words);
    let buffers: Vec<u32> = insts.iter().filter(|i| i.op == 25 && words[i.at + 3] == 5).map(|i| words[i.at + 7]).collect();
    assert_eq!((buffers.iter().filter(|&&s| s == 1).count(), buffers.iter().filter(|&&s| s == 2).count()), (1, 1), "{buffers:?}");
}

/// A kernel that only queries an image never declares it (its view may have any format), and
/// images past the push constants have their words in the POD uniform.
#[test]
fn queried_images_are_not_declared_and_words_spill_to_the_uniform() {
    let p = validated(
        "kernel void k(read_only image2d_array_t a, write_only image3d_t b, global int *o) {
             o[0] = get_image_width(a) + get_image_height(a) + (int)get_image_array_size(a) + get_image_channel_order(a)
                  + get_image_depth(b) + get_image_dim(b).z + get_image_channel_data_type(b);
         }",
    );
    let words = p.kernels[0].specialize([1, 1, 1], &[], &[]).unwrap_or_else(|e| panic!("{e}"));
    let insts = crate::compiler::spirv::instructions(&words);
    assert!(!insts.iter().any(|i| i.op == 25), "no OpTypeImage");
    let args = p.kernels[0].args();
    let (ArgKind::Image { binding: a, .. }, ArgKind::Image { binding: b, .. }) = (&args[0].kind, &args[1].kind) else { panic!() };
    assert!(a != b && *a != u32::MAX && *b != u32::MAX);
    // With 64 bytes of push constants, the second image's words are in the uniform.
    let small = crate::compiler::Target { max_push_constants_size: 64, ..target() };
    let src = "kernel void k(read_only image2d_t a, read_only image2d_t b, sampler_t s, global float4 *o) {
                   o[0] = read_imagef(a, s, (float2)(0.5f)) + read_imagef(b, CLK_ADDRESS_CLAMP, (int2)(get_image_width(b), 0));
               }";
    let (_, p) = build(src, "", &small).unwrap_or_else(|e| panic!("{e:?}"));
    spirv_val(&p.kernels[0].specialize([1, 1, 1], &[], &[]).unwrap_or_else(|e| panic!("{e}")));
    let kinds: Vec<bool> = p.kernels[0].args().iter().filter_map(|a| match a.kind {
        ArgKind::Image { uniform, .. } | ArgKind::Sampler { uniform, .. } => Some(uniform),
        _ => None,
    }).collect();
    assert_eq!(kinds, [false, true, true]);
}

/// A constant sampler passed to a helper folds there as it does in the kernel: no run-time
/// tests of its bits (no `OpSelect`), where a sampler argument needs them.
#[test]
fn constant_samplers_fold_through_helpers() {
    let selects = |sampler: &str| {
        let src = format!(
            "float4 get(read_only image2d_t img, sampler_t s, float2 at) {{ return read_imagef(img, s, at); }}
             float4 pass(read_only image2d_t img, sampler_t s, float2 at) {{ return get(img, s, at); }}
             kernel void k(read_only image2d_t img, sampler_t arg, global float4 *o) {{
                 const sampler_t edge = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_CLAMP_TO_EDGE;
                 o[0] = pass(img, {sampler}, (float2)(0.5f));
             }}"
        );
        let p = validated(&src);
        let words = p.kernels[0].specialize([1, 1, 1], &[], &[]).unwrap_or_else(|e| panic!("{e}"));
        crate::compiler::spirv::instructions(&words).iter().filter(|i| i.op == 169).count()
    };
    assert_eq!(selects("edge"), 0);
    assert_eq!(selects("CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_LINEAR"), 0);
    assert!(selects("arg") > 0);
}
