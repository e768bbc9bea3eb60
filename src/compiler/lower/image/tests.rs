//! Image kernels build, and their SPIR-V passes `spirv-val`; the ABI of image and sampler
//! arguments; the sampling arithmetic against a CPU model of the specification's formulas.

use crate::compiler::lower::tests::target;
use crate::compiler::spirv::tests::spirv_val;
use crate::compiler::{build, ArgKind, ImageAccess, ImageDim, Program};

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
