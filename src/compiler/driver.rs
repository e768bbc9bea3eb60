//! The compile driver: options → preprocessor → semantic analysis → lowering, for
//! `clBuildProgram` ([`build`]), `clCompileProgram` ([`compile`]) and `clLinkProgram`
//! ([`link`]). A compiled [`Object`] keeps its preprocessed text; linking analyses the objects'
//! texts together as one program, so a kernel defined twice or a function called but defined
//! nowhere is reported there like in a single source.

use super::diag::Diagnostics;
use super::options::{BuildOptions, Stage};
use super::preprocess::{predefined_macros, preprocess, Preprocessed};
use super::source::SourceMap;
use super::token::Token;
use super::{lower, sema, BuildError, Kernel, Object, Program, Target};
use std::sync::Arc;

/// `clBuildProgram`: compiles and links one source in a single pass, returning with the
/// program the object (its preprocessed text) that program binaries hold.
pub fn build(source: &str, options: &str, target: &Target) -> Result<(Object, Program), BuildError> {
    on_stack(|| build_here(source, options, target))
}

/// `clCompileProgram`: preprocesses `source` (with the given headers) and checks its syntax.
/// Semantic checks run at link time, when every function the object calls is known.
pub fn compile(source: &str, headers: &[(String, String)], options: &str, target: &Target) -> Result<Object, BuildError> {
    on_stack(|| compile_here(source, headers, options, target))
}

/// `clLinkProgram`: analyses and lowers the objects together.
pub fn link(objects: &[Object], options: &str, target: &Target) -> Result<Program, BuildError> {
    on_stack(|| link_here(objects, options, target))
}

/// Runs a build on the compiler's own stack ([`super::stack`]).
fn on_stack<T: Send>(build: impl FnOnce() -> Result<T, BuildError> + Send) -> Result<T, BuildError> {
    super::stack::run(build).unwrap_or_else(|e| Err(BuildError::Failed(e)))
}

fn build_here(source: &str, options: &str, target: &Target) -> Result<(Object, Program), BuildError> {
    let opts = BuildOptions::parse(options, Stage::Compile).map_err(BuildError::InvalidOptions)?;
    let mut unit = Unit::new(&opts);
    let main = unit.sources.add("<source>", source);
    let pre = unit.preprocess(main, &opts, target, &[]);
    let object = Object { preprocessed: pre.text, options: options.to_string(), log: String::new() };
    unit.finish(vec![pre.tokens], pre.fp_contract, &opts, target).map(|program| (object, program))
}

fn compile_here(
    source: &str,
    headers: &[(String, String)],
    options: &str,
    target: &Target,
) -> Result<Object, BuildError> {
    let opts = BuildOptions::parse(options, Stage::Compile).map_err(BuildError::InvalidOptions)?;
    let mut unit = Unit::new(&opts);
    let main = unit.sources.add("<source>", source);
    let pre = unit.preprocess(main, &opts, target, headers);
    if !unit.diags.has_errors() {
        let types = sema::predeclared_types(sema::Options::from_build(&opts).cl_std, target);
        super::parse::parse(&pre.tokens, &types, &mut unit.diags);
    }
    let log = unit.diags.render(&unit.sources);
    if unit.diags.has_errors() {
        return Err(BuildError::Failed(log));
    }
    Ok(Object { preprocessed: pre.text, options: options.to_string(), log })
}

fn link_here(objects: &[Object], options: &str, target: &Target) -> Result<Program, BuildError> {
    let link_opts = BuildOptions::parse(options, Stage::Link).map_err(BuildError::InvalidOptions)?;
    // The language options (-cl-std, ...) are those the objects were compiled with.
    let compile_opts = match objects.first() {
        Some(o) => BuildOptions::parse(&o.options, Stage::Compile).map_err(BuildError::InvalidOptions)?,
        None => BuildOptions::default(),
    };
    // The objects' -D and -I are applied in their text already; their language and math options
    // hold, and the linker may relax the math further.
    let opts = BuildOptions {
        defines: Vec::new(),
        include_dirs: Vec::new(),
        create_library: link_opts.create_library,
        enable_link_options: link_opts.enable_link_options,
        fast_relaxed_math: compile_opts.fast_relaxed_math || link_opts.fast_relaxed_math,
        finite_math_only: compile_opts.finite_math_only || link_opts.finite_math_only,
        unsafe_math_optimizations: compile_opts.unsafe_math_optimizations || link_opts.unsafe_math_optimizations,
        no_signed_zeros: compile_opts.no_signed_zeros || link_opts.no_signed_zeros,
        denorms_are_zero: compile_opts.denorms_are_zero || link_opts.denorms_are_zero,
        ..compile_opts
    };
    let mut unit = Unit::new(&opts);
    let mut files = Vec::new();
    let mut contract = true;
    for (i, object) in objects.iter().enumerate() {
        let file = unit.sources.add(format!("<object {i}>"), object.preprocessed.as_str());
        let pre = unit.preprocess(file, &opts, target, &[]);
        contract &= pre.fp_contract;
        files.push(pre.tokens);
    }
    unit.finish(files, contract, &opts, target)
}

/// One compilation: its files and diagnostics.
struct Unit {
    sources: SourceMap,
    diags: Diagnostics,
}

impl Unit {
    fn new(opts: &BuildOptions) -> Self {
        let diags = Diagnostics {
            suppress_warnings: opts.suppress_warnings,
            warnings_are_errors: opts.warnings_are_errors,
            ..Diagnostics::default()
        };
        Unit { sources: SourceMap::default(), diags }
    }

    fn preprocess(&mut self, file: u32, opts: &BuildOptions, target: &Target, headers: &[(String, String)]) -> Preprocessed {
        let predefined = predefined_macros(target, opts);
        preprocess(&mut self.sources, file, opts, &predefined, headers, &mut self.diags)
    }

    /// Analyses and lowers a whole program, the tokens of each of its translation units;
    /// `contract`: FP_CONTRACT is on.
    fn finish(mut self, files: Vec<Vec<Token>>, contract: bool, opts: &BuildOptions, target: &Target) -> Result<Program, BuildError> {
        if self.diags.has_errors() {
            return Err(BuildError::Failed(self.diags.render(&self.sources)));
        }
        let sema_opts = sema::Options { cl_std: opts.c_version(), single_precision_constant: opts.single_precision_constant };
        let program = sema::analyze(&files, target, &sema_opts, &mut self.diags);
        let (kernels, globals, printf) = match program {
            Some(p) if !self.diags.has_errors() => {
                let options = lower::LowerOptions { fast_math: opts.fast_relaxed_math || opts.unsafe_math_optimizations, contract };
                // Kernels keep the analysed program to lower variants of themselves later.
                let p = Arc::new(p);
                (lower::lower_program(&p, target, options), p.globals_image(), p.printf.clone())
            }
            _ => return Err(BuildError::Failed(self.diags.render(&self.sources))),
        };
        match kernels {
            Ok(kernels) => Ok(Program {
                kernels: kernels.into_iter().map(|k| Arc::new(k) as Arc<dyn Kernel>).collect(),
                log: self.diags.render(&self.sources),
                globals,
                printf,
            }),
            Err(e) => {
                self.diags.error(e.loc, e.message);
                Err(BuildError::Failed(self.diags.render(&self.sources)))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compiler::lower::tests::target;
    use crate::compiler::spirv::tests::spirv_val;
    use crate::compiler::{ArgKind, DescriptorKind};

    fn specialize_all(p: &Program, local_args: &[u32]) {
        for k in &p.kernels {
            let words = k.specialize([32, 1, 1], local_args, &[]).unwrap_or_else(|e| panic!("{e}"));
            spirv_val(&words);
        }
    }

    fn built(src: &str) -> Program {
        build(src, "", &target()).unwrap_or_else(|e| panic!("{e:?}")).1
    }

    /// The number of `OpLoopMerge` instructions (one per structured loop) in a kernel.
    fn loops(words: &[u32]) -> usize {
        opcodes(words, 246)
    }

    /// The instructions of a SPIR-V module (after its header), each as its words.
    fn instructions(words: &[u32]) -> impl Iterator<Item = &[u32]> {
        let mut rest = words.get(5..).unwrap_or_default();
        std::iter::from_fn(move || {
            let w = *rest.first()?;
            let (inst, next) = rest.split_at(((w >> 16).max(1) as usize).min(rest.len()));
            rest = next;
            Some(inst)
        })
    }

    /// The number of instructions with opcode `op` in a SPIR-V module.
    fn opcodes(words: &[u32], op: u32) -> usize {
        instructions(words).filter(|i| i[0] & 0xffff == op).count()
    }

    /// The result ids of a SPIR-V module's 64-bit integer types (`OpTypeInt 64`, opcode 21).
    fn int64_types(words: &[u32]) -> Vec<u32> {
        instructions(words).filter(|i| i[0] & 0xffff == 21 && i.get(2) == Some(&64)).filter_map(|i| i.get(1).copied()).collect()
    }

    /// The `OpLoad`s (opcode 61) of a SPIR-V module whose result is a 64-bit integer.
    fn loads_of_64_bit_integers(words: &[u32]) -> usize {
        let wide = int64_types(words);
        instructions(words).filter(|i| i[0] & 0xffff == 61 && i.get(1).is_some_and(|ty| wide.contains(ty))).count()
    }

    #[test]
    fn size_t_variables_used_as_indexes_are_read_as_32_bit() {
        // `offset` is 64-bit at 64-bit addresses; its uses as an index read its 32-bit copy.
        let src = "kernel void k(global const float *in, global float *out) {
            size_t offset = get_group_id(0) * 256;
            for (int j = 0; j < 4; j++)
                out[offset + get_local_id(0) + j * 64] = in[offset + j];
        }";
        let words = built(src).kernels[0].specialize([64, 1, 1], &[], &[]).unwrap_or_else(|e| panic!("{e}"));
        spirv_val(&words);
        assert_eq!(loads_of_64_bit_integers(&words), 0);
    }

    #[test]
    fn signed_counters_alone_are_marked_no_signed_wrap() {
        // `f++`, `i += step` and `j++` are marked; the `uint` counter, the hash that wraps on
        // purpose, `mul24`'s product and the low bits of a `long` sum (which may wrap as an
        // `int`) are not. (Loops of a constant trip
        // count would be unrolled by the lowering, so the bounds are arguments.)
        let src = "kernel void k(global const float *in, global int *out, int step, int n) {
            float s = 0; uint h = 0; int m = 1;
            for (int f = 0; f < n; f++) s += in[f];
            for (int i = get_global_id(0); i < 1024; i += step) m = mul24(m, i);
            for (uint u = 0; u < n; u++) h = h * 31 + u;
            for (int j = 0; j < n; j++) m += (long)step * 0x10001;
            out[0] = (int)s + m + h;
        }";
        let words = built(src).kernels[0].specialize([64, 1, 1], &[], &[]).unwrap_or_else(|e| panic!("{e}"));
        spirv_val(&words);
        let marked: Vec<u32> = instructions(&words).filter(|i| i[0] & 0xffff == 71 && i.get(2) == Some(&4469)).map(|i| i[1]).collect();
        let int_type = instructions(&words).find(|i| i[0] & 0xffff == 21 && i[2] == 32 && i[3] == 1).map(|i| i[1]);
        let adds: Vec<u32> = instructions(&words).filter(|i| i[0] & 0xffff == 128 && Some(i[1]) == int_type).map(|i| i[2]).collect();
        assert_eq!(marked.len(), 3, "{marked:?}");
        assert!(marked.iter().all(|id| adds.contains(id)), "{marked:?} {adds:?}");
    }

    /// Buffer arguments declared `restrict` are marked `Restrict`, the others not; nor are
    /// they where one argument is seen through several views (all are `Aliased` then).
    #[test]
    fn restrict_arguments_alone_are_marked_restrict() {
        let restricted = |src: &str| {
            let words = built(src).kernels[0].specialize([64, 1, 1], &[], &[]).unwrap_or_else(|e| panic!("{e}"));
            spirv_val(&words);
            instructions(&words).filter(|i| i[0] & 0xffff == 71 && i.get(2) == Some(&19)).count()
        };
        let src = "kernel void k(global const float *restrict a, global float *restrict b, global float *c) {
            int i = get_global_id(0); b[i] = a[i]; c[i] = a[i] * 2.0f; }";
        assert_eq!(restricted(src), 2);
        let views = "kernel void k(global const float *restrict a, global float *restrict b) {
            int i = get_global_id(0); b[i] = a[i] + ((global const int *)a)[i]; }";
        assert_eq!(restricted(views), 0);
    }

    /// Pointers held where a pointer variable points are followed, also where the variable
    /// is a helper's parameter; where it may point anywhere (its address is taken) they are
    /// refused, with the place.
    #[test]
    fn pointers_through_pointers_that_may_point_anywhere_are_refused_with_a_diagnostic() {
        let helper = "int first(global int **pp) { return pp[0][0]; }\n\
            kernel void k(global int *a, global int *out) { global int *rows[1] = { a }; out[0] = first(rows); }";
        build(helper, "-cl-std=CL3.0", &target()).unwrap_or_else(|e| panic!("{e:?}"));
        let anywhere = "kernel void k(global int *a, global int *out) {\n\
            global int *rows[1] = { a }; global int **pp = rows; global int ***ppp = &pp;\n\
            out[0] = pp[0][0]; }";
        let Err(BuildError::Failed(log)) = build(anywhere, "-cl-std=CL3.0", &target()) else { panic!("expected a failure") };
        assert!(log.contains("<source>:3:") && log.contains("may point anywhere"), "{log}");
    }

    /// A pointer chosen among buffers names them by bits of a u64: past the 64th, the build
    /// fails with a diagnostic rather than lose the buffer.
    #[test]
    fn pointers_chosen_among_more_than_64_buffers_are_refused() {
        let args: Vec<String> = (0..66).map(|n| format!("global int *b{n}")).collect();
        let src = format!("kernel void k({}) {{ int i = get_global_id(0); global int *p = i ? b0 : b65; p[0] = 1; }}", args.join(", "));
        let Err(BuildError::Failed(log)) = build(&src, "", &target()) else { panic!("expected a failure") };
        assert!(log.contains("first 64 buffers"), "{log}");
    }

    /// A helper that returns what it is given, called with two buffers, leaves each result a
    /// pointer into its own buffer; one that returns pointers into either of two makes its
    /// callers choose at run time (a `switch` over the buffers).
    #[test]
    fn only_helpers_returning_different_pointers_make_their_callers_choose() {
        const OP_SWITCH: u32 = 251;
        let given = "global float *row(global float *m, int r) { return m + r * 4; }
            kernel void k(global float *a, global float *b) { int i = get_global_id(0); global float *x = row(a, i), *y = row(b, i); y[0] = x[1]; }";
        let either = "global float *pick(global float *a, global float *b, int i) { if (i & 1) return a + i; return b + i; }
            kernel void k(global float *a, global float *b) { int i = get_global_id(0); global float *p = pick(a, b, i); p[0] += 1.0f; }";
        for (src, switches) in [(given, 0), (either, 1)] {
            let words = built(src).kernels[0].specialize([64, 1, 1], &[], &[]).unwrap_or_else(|e| panic!("{e}"));
            spirv_val(&words);
            assert_eq!(opcodes(&words, OP_SWITCH).min(1), switches, "{src}");
        }
    }

    #[test]
    fn counted_loops_with_more_in_their_step_are_unrolled_unless_they_read_wide_vectors() {
        let src = |ty: &str| {
            format!(
                "kernel void k(global const {ty} *in, global {ty} *out) {{
                    size_t i = get_global_id(0);
                    {ty} sum = 0;
                    for (int f = 0; f < 16; f++, i += get_global_size(0)) sum += in[i];
                    out[get_global_id(0)] = sum;
                }}"
            )
        };
        for (ty, kept) in [("float", 0), ("float4", 0), ("float8", 1), ("float16", 1), ("double4", 1)] {
            let words = built(&src(ty)).kernels[0].specialize([64, 1, 1], &[], &[]).unwrap_or_else(|e| panic!("{e}"));
            spirv_val(&words);
            assert_eq!(loops(&words), kept, "{ty}");
        }
        // Counters stepped by multiplication, shifts and division are unrolled too.
        let geometric = "kernel void k(global float *out) {
            float sum = 0;
            for (int p = 1; p < 1024; p *= 4) sum += out[p];
            for (uint s = 128; s > 0; s >>= 1) sum += out[s];
            for (int s = 1; s <= 64; s <<= 3) sum += out[s];
            for (int s = 1000; s > 0; s /= 10) sum += out[s];
            out[0] = sum;
        }";
        assert_eq!(loops(&built(geometric).kernels[0].specialize([1, 1, 1], &[], &[]).unwrap_or_else(|e| panic!("{e}"))), 0);
        // A step whose other part reads the counter is not unrolled.
        let reads = "kernel void k(global const float *in, global float *out) {
            int i = 0; float sum = 0;
            for (int f = 0; f < 16; f++, i += f) sum += in[i];
            out[0] = sum;
        }";
        assert_eq!(loops(&built(reads).kernels[0].specialize([1, 1, 1], &[], &[]).unwrap_or_else(|e| panic!("{e}"))), 1);
    }

    #[test]
    fn half_arithmetic_counts_its_software_rounding_in_the_unroll_budget() {
        // clpeak's half8 test: 16 steps of 64 multiply-adds, unrolled, were 900 KB of SPIR-V.
        // Over half they stay a loop; over float8 they unroll, and so does a small half loop.
        let src = |ty: &str, steps: u32, mads: usize| {
            format!(
                "#pragma OPENCL EXTENSION cl_khr_fp16 : enable
                kernel void k(global {ty} *out, {ty} a) {{
                    {ty} x = a, y = ({ty})(get_local_id(0));
                    for (int i = 0; i < {steps}; i++) {{ {} }}
                    out[get_global_id(0)] = y;
                }}",
                "x = mad(y, x, y); y = mad(x, y, x); ".repeat(mads / 2)
            )
        };
        for (ty, steps, mads, kept) in [("float8", 16, 64, 0), ("half8", 16, 64, 1), ("half", 16, 64, 1), ("half8", 4, 2, 0)] {
            let words = built(&src(ty, steps, mads)).kernels[0].specialize([64, 1, 1], &[], &[]).unwrap_or_else(|e| panic!("{e}"));
            spirv_val(&words);
            assert_eq!(loops(&words), kept, "{ty}, {steps} steps of {mads}");
        }
    }

    #[test]
    fn long_vector_variables_keep_no_32_bit_copy() {
        // Vectors of 64-bit integers initialised with narrowable values (CTS
        // progvar_prog_scope_uninit): only scalars get a copy, else the IR is invalid.
        let src = "kernel void k(global long *out) {
            const long4 zero = (long4)0;
            ulong2 w = (ulong2)(get_global_id(0), 3);
            out[0] = zero.y + w.x + w.y;
        }";
        let words = built(src).kernels[0].specialize([1, 1, 1], &[], &[]).unwrap_or_else(|e| panic!("{e}"));
        spirv_val(&words);
    }

    #[test]
    fn size_t_arithmetic_narrowed_back_stays_32_bit() {
        // With 64-bit addresses, `i += get_global_size(0)` widens `i`, adds in 64 bits and
        // narrows; the low 32 bits need only the operands' low 32 bits.
        let grid_stride = "kernel void k(global const int *in, int n, global int *o) {
            int acc = 0;
            for (int i = get_global_id(0); i < n; i += get_global_size(0))
                acc += in[i];
            o[get_global_id(0) + get_local_id(0) * 2] = acc;
        }";
        let words = built(grid_stride).kernels[0].specialize([32, 1, 1], &[], &[]).unwrap_or_else(|e| panic!("{e}"));
        spirv_val(&words);
        assert!(int64_types(&words).is_empty());
    }

    #[test]
    fn halves_copied_through_vector_literals_convert_nothing() {
        // A half16 literal of loaded halves, stored: each half's loaded bits are stored, with
        // no unpacking to float and packing again (CTS vector_creation's kernels were 3.8 MB
        // of SPIR-V with it, and took NVIDIA's compiler minutes).
        let src = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable
            kernel void k(global half *d, global const half *s) {
                vstore16((half16)((half4)(s[0], vload2(0, s + 1), s[3]), vload4(1, s), vload8(1, s)), 0, d);
                d[16] = s[16];
            }";
        let words = built(src).kernels[0].specialize([1, 1, 1], &[], &[]).unwrap_or_else(|e| panic!("{e}"));
        spirv_val(&words);
        assert_eq!(opcodes(&words, 12), 0, "OpExtInst (GLSL.std.450 PackHalf2x16 / UnpackHalf2x16)");
    }

    #[test]
    fn source_products_fuse_and_other_float_operations_do_not() {
        let fmas = |src: &str| {
            let words = built(src).kernels[0].specialize([1, 1, 1], &[], &[]).unwrap_or_else(|e| panic!("{e}"));
            spirv_val(&words);
            // OpExtInst (12) with GLSL.std.450 Fma (50) as its fourth operand word
            let n = instructions(&words).filter(|i| i[0] & 0xffff == 12 && i.get(4) == Some(&50)).count();
            (n, opcodes(&words, 133))
        };
        let body = "kernel void k(global float4 *o, float4 a, float4 b, float c) {
            o[0] = a * b + o[1]; o[1] -= a * b; o[2] = c * c - a.x; o[3] = a * b; o[4] = mad(a, b, a); }";
        // Three source expressions fuse (two with a negation) and mad does; one product stays.
        let (fused, products) = fmas(body);
        assert_eq!((fused, products), (4, 1));
        let (fused, products) = fmas(&format!("#pragma OPENCL FP_CONTRACT OFF\n{body}"));
        assert_eq!((fused, products), (1, 4), "only mad fuses");
    }

    #[test]
    fn buffers_are_coherent_where_global_memory_is_ordered() {
        let coherent = |body: &str| {
            let src = format!("kernel void k(global int *o, global atomic_int *a) {{ {body} }}");
            let program = build(&src, "-cl-std=CL3.0", &target()).unwrap_or_else(|e| panic!("{e:?}")).1;
            let words = program.kernels[0].specialize([1, 1, 1], &[], &[]).unwrap_or_else(|e| panic!("{e}"));
            spirv_val(&words);
            // OpDecorate (71) with Coherent (23)
            let coherent = instructions(&words).any(|i| i[0] & 0xffff == 71 && i.get(2) == Some(&23));
            coherent
        };
        assert!(!coherent("o[0] = atomic_load_explicit(a, memory_order_relaxed);"));
        assert!(coherent("o[0] = atomic_load_explicit(a, memory_order_acquire);"));
        assert!(coherent("o[0] = 1; atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_release, memory_scope_device);"));
        assert!(coherent("o[0] = 1; mem_fence(CLK_GLOBAL_MEM_FENCE);"));
        assert!(!coherent("o[0] = 1; atomic_work_item_fence(CLK_LOCAL_MEM_FENCE, memory_order_release, memory_scope_work_group);"));
    }

    #[test]
    fn counted_loops_are_unrolled_and_others_kept() {
        let kernel = |body: &str| {
            let src = format!("kernel void k(global float *o, int n) {{ float acc[4][4]; {body} }}");
            let words = built(&src).kernels[0].specialize([16, 1, 1], &[], &[]).unwrap_or_else(|e| panic!("{e}"));
            spirv_val(&words);
            loops(&words)
        };
        let nested = "for (int i = 0; i < 4; i++) for (uint j = 6; j > 0; j -= 2) acc[i][j / 2 - 1] = mad(o[i], o[j], 1.0f);
                      for (int i = 3; i >= 0; --i) o[i] = acc[i][i];";
        assert_eq!(kernel(nested), 0);
        // A run-time bound, a break, a write to the counter, too many iterations: loops stay.
        assert_eq!(kernel("for (int i = 0; i < n; i++) o[i] = 0.0f;"), 1);
        assert_eq!(kernel("for (int i = 0; i < 4; i++) { if (o[i] > 0.0f) break; o[i] = 1.0f; }"), 1);
        assert_eq!(kernel("for (int i = 0; i < 4; i++) { o[i] = 1.0f; i += (int)o[0]; }"), 1);
        assert_eq!(kernel("for (int i = 0; i < 100; i++) o[i] = 1.0f;"), 1);
        // Nested counted loops unroll while all their copies stay small: 2 × 4 yes; of
        // 16 × 16 × 16, the inner 16 × 16 only.
        assert_eq!(kernel("for (int i = 0; i < 2; i++) for (int j = 0; j < 4; j++) o[4 * i + j] = 1.0f;"), 0);
        let cube = "for (int i = 0; i < 16; i++) for (int j = 0; j < 16; j++) for (int k = 0; k < 16; k++) o[i + j + k] += 1.0f;";
        assert_eq!(kernel(cube), 1);
        // A break of an inner loop does not keep the outer one.
        assert_eq!(kernel("for (int i = 0; i < 2; i++) while (o[i] > 0.0f) { if (o[i] > 1.0f) break; o[i] -= 1.0f; }"), 2);
    }

    #[test]
    fn unroll_hints_are_honoured() {
        // (loops, float products) of a kernel.
        let kernel = |body: &str| {
            let src = format!("kernel void k(global float *o, int n) {{\n{body}\n}}");
            let words = built(&src).kernels[0].specialize([16, 1, 1], &[], &[]).unwrap_or_else(|e| panic!("{e}"));
            spirv_val(&words);
            (loops(&words), opcodes(&words, 133))
        };
        let hundred = "for (int i = 0; i < 100; i++) o[i] *= 3.0f;";
        assert_eq!(kernel(hundred), (1, 1), "too long to unroll without a hint");
        assert_eq!(kernel(&format!("#pragma unroll\n{hundred}")), (0, 100));
        assert_eq!(kernel(&format!("__attribute__((opencl_unroll_hint)) {hundred}")), (0, 100));
        assert_eq!(kernel(&format!("#define UNROLL _Pragma(\"unroll\")\nUNROLL {hundred}")), (0, 100));
        assert_eq!(kernel("__attribute__((opencl_unroll_hint(128))) for (size_t i = 0; i < 100; ++i) o[i] *= 3.0f;"), (0, 100));
        // Past the hinted budget (1024 iterations) the loop stays.
        assert_eq!(kernel("#pragma unroll\nfor (int i = 0; i < 2000; i++) o[i] *= 3.0f;"), (1, 1));
        // A count unrolls by that much, whatever the bound; a count of 1 or nounroll keeps the loop.
        assert_eq!(kernel("#pragma unroll 4\nfor (int i = 0; i < n; i++) o[i] *= 3.0f;"), (1, 4));
        assert_eq!(kernel("#pragma unroll(4)\nfor (int i = 0; i < 100; i++) { if (o[i] > 1.0f) break; o[i] *= 3.0f; }"), (1, 4));
        assert_eq!(kernel("#pragma unroll 4\nfor (int i = 0; i < n; i++) { if (o[i] > 1.0f) continue; o[i] *= 3.0f; }"), (1, 1), "a continue would skip copies");
        assert_eq!(kernel("#pragma unroll 1\nfor (int i = 0; i < 4; i++) o[i] *= 3.0f;"), (1, 1));
        assert_eq!(kernel("#pragma nounroll\nfor (int i = 0; i < 4; i++) o[i] *= 3.0f;"), (1, 1));
        // A hint on a while loop is accepted (only `for` loops are unrolled).
        assert_eq!(kernel("int i = 0;\n#pragma unroll 2\nwhile (i < n) { o[i] *= 3.0f; i++; }"), (1, 1));
    }

    #[test]
    fn misplaced_unroll_hints_are_diagnosed() {
        let t = target();
        for (src, message) in [
            ("kernel void k(global int *o) {\n#pragma unroll\n o[0] = 1;\n}", "<source>:3:2: error: attribute 'opencl_unroll_hint' must be followed by a 'for', 'while' or 'do' loop"),
            ("kernel void k(global int *o) { __attribute__((opencl_unroll_hint(0))) for (;;) {} }", "<source>:1:66: error: opencl_unroll_hint needs a positive integer constant"),
            ("kernel void k(global int *o, int n) { __attribute__((opencl_unroll_hint(n))) for (;;) {} }", "<source>:1:73:"),
        ] {
            let Err(BuildError::Failed(log)) = build(src, "", &t) else { panic!("{src} built") };
            assert!(log.contains(message), "{log}");
        }
    }

    #[test]
    fn vector_add_from_source() {
        for ty in ["int", "float", "uint4", "float3", "long", "double2", "char", "ushort"] {
            let src = format!(
                "__kernel void add(__global const {ty} *a, __global const {ty} *b, __global {ty} *c) {{\n\
                 size_t i = get_global_id(0);\n c[i] = a[i] + b[i];\n}}\n"
            );
            let p = built(&src);
            assert_eq!(p.kernels.len(), 1);
            let k = &p.kernels[0];
            assert_eq!(k.name(), "add");
            assert_eq!(k.args()[0].type_name, format!("{ty}*"));
            assert!(matches!(k.args()[2].kind, ArgKind::Buffer { descriptor: DescriptorKind::Storage, .. }));
            specialize_all(&p, &[]);
        }
    }

    #[test]
    fn clinfo_style_kernels() {
        let p = built("kernel void sum(global float *a) { }\nkernel void empty(void) {}\n");
        assert_eq!(p.kernels.len(), 2);
        specialize_all(&p, &[]);
    }

    #[test]
    fn local_memory_reduction() {
        let src = "
            #define N 64
            kernel void reduce(global const float *in, global float *out, local float *scratch, uint n) {
                local float partial[N];
                uint l = get_local_id(0);
                scratch[l] = get_global_id(0) < n ? in[get_global_id(0)] : 0.0f;
                barrier(CLK_LOCAL_MEM_FENCE);
                for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {
                    if (l < s) scratch[l] += scratch[l + s];
                    barrier(CLK_LOCAL_MEM_FENCE);
                }
                partial[l % N] = scratch[0];
                barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
                if (l == 0) out[get_group_id(0)] = partial[0];
            }";
        let p = built(src);
        assert_eq!(p.kernels[0].args()[2].kind, ArgKind::Local { elem_size: 4 });
        assert_eq!(p.kernels[0].args()[3].kind, ArgKind::Pod { offset: 40, size: 4, uniform: false });
        assert_eq!(p.kernels[0].local_mem_size(), 256);
        specialize_all(&p, &[128]);
    }

    #[test]
    fn control_flow_helpers_structs_and_constants() {
        let src = "
            typedef struct { float x; int n; float4 v; } item_t;
            constant int table[4] = { 1, 2, 3, 5 };
            int pick(int k) {
                switch (k & 3) {
                case 0: return table[0];
                case 1:
                case 2: k += 1;
                default: break;
                }
                return k;
            }
            void bump(global int *p, int by) { for (int i = 0; i < by; ++i) { if (i == 7) break; p[i] += i; } }
            kernel void k(global item_t *items, global int *out, int count) {
                int i = get_global_id(0);
                item_t it = items[i];
                int acc = 0;
                while (acc < count) { acc += pick(acc) + table[acc & 3]; if (acc > 100) continue; }
                do { acc--; } while (acc > 50);
                items[i].n = acc;
                items[i].v.yz = (float2)(it.x, 2.0f);
                bump(out + 1, count);
                out[0] = acc > 3 && it.n != 0 ? (int)it.v.w : -1;
            }";
        let p = built(src);
        assert_eq!(p.kernels[0].constant_data().len(), 1);
        specialize_all(&p, &[]);
    }

    #[test]
    fn compile_then_link_and_link_errors() {
        let t = target();
        let lib = compile("int twice(int x) { return 2 * x; }", &[], "", &t).unwrap();
        let main = compile(
            "int twice(int x);\nkernel void k(global int *p) { p[0] = twice(p[0]); }",
            &[],
            "",
            &t,
        )
        .unwrap();
        let p = link(&[lib.clone(), main.clone()], "", &t).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(p.kernels.len(), 1);
        specialize_all(&p, &[]);
        // A kernel defined twice.
        assert!(matches!(link(&[main.clone(), main.clone(), lib], "", &t), Err(BuildError::Failed(_))));
        // A function called but defined nowhere.
        assert!(matches!(link(&[main], "", &t), Err(BuildError::Failed(_))));
    }

    /// Each level calls the one below it eight times: 8^8 copies of the innermost body if
    /// every call were inlined. `level` makes level n's body from level n-1's name.
    fn exponential_calls(innermost: &str, ret: &str, level: impl Fn(&str) -> String, kernel: &str) -> String {
        let mut src = String::from(innermost);
        for n in 1..=8 {
            src += &format!("{ret} f{n}(global int *p) {{ return {}; }}\n", level(&format!("f{}", n - 1)));
        }
        src + kernel
    }

    #[test]
    fn exponential_calls_of_large_helpers_are_calls() {
        let sum = |lower: &str| (0..8).map(|k| format!("{lower}(p + {k})")).collect::<Vec<_>>().join(" + ");
        let src = exponential_calls("int f0(global int *p) { return p[1] * 3 + 1; }\n", "int", sum, "kernel void k(global int *p) { p[0] = f8(p); }");
        let (_, program) = build(&src, "", &target()).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(program.kernels.len(), 1);
    }

    #[test]
    fn exponential_inlining_ends_in_a_diagnostic() {
        // Helpers returning pointers are always inlined.
        let nest = |lower: &str| (0..8).fold("p".to_string(), |inner, _| format!("{lower}({inner})"));
        let src = exponential_calls("global int *f0(global int *p) { return p + 1; }\n", "global int *", nest, "kernel void k(global int *p) { p[0] = *f8(p); }");
        let Err(BuildError::Failed(log)) = build(&src, "", &target()) else { panic!("expected a failure") };
        assert!(log.contains("too large"), "{log}");
    }

    /// The longest operator chain the parser accepts, inside deep nesting, goes through every
    /// pass on the compiler thread's stack, in linear time (folding once looked down the whole
    /// chain at each operator).
    #[test]
    fn the_longest_operator_chain_builds() {
        let terms: Vec<String> = (0..4000).map(|i| format!("p[{}]", i % 7)).collect();
        let (open, close) = ("(p[1] + ".repeat(60), ")".repeat(60));
        let p = built(&format!("kernel void k(global int *p) {{ p[0] = {open}{}{close}; }}", terms.join(" + ")));
        specialize_all(&p, &[]);
    }

    #[test]
    fn half_limits_are_defined_with_fp16() {
        let p = built(
            "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n\
             kernel void k(global half *h, global int *n) { n[0] = HALF_DIG + HALF_MANT_DIG + HALF_RADIX + HALF_MAX_EXP;\
             h[0] = HALF_MAX; h[1] = HALF_MIN; h[2] = HALF_EPSILON; h[3] = M_PI_H; h[4] = M_SQRT1_2_H; }",
        );
        specialize_all(&p, &[]);
    }

    #[test]
    fn bitselect_on_half_and_double_vectors_validates() {
        let p = built(
            "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n\
             kernel void k(global half *h, global double4 *d) { vstore_half3(bitselect(vload_half3(0, h), vload_half3(1, h), vload_half3(2, h)), 3, h);\
             d[0] = bitselect(d[1], d[2], d[3]); h[0] = bitselect(h[1], h[2], h[3]); }",
        );
        specialize_all(&p, &[]);
    }

    /// Pointers held in memory are 8 bytes with 64-bit addresses: arrays of pointers, struct
    /// members, unions of pointers and program-scope pointer variables build and validate.
    #[test]
    fn pointers_held_in_memory_build_with_64_bit_addresses() {
        let p = build(
            "typedef struct { global int *p; int n; } S;
             typedef union { global int *g; local int *l; } U;
             global int table[2];
             global int *cursor = &table[1];
             kernel void k(global int *o) { local int t[4]; global int *ps[2]; ps[0] = o; S s; s.p = o + 1; s.n = 2;
                 U u; u.l = t; u.g = o; *ps[0] = *s.p + sizeof(S) + *u.g; *cursor = 1; cursor++; }",
            "-cl-std=CL3.0",
            &target(),
        );
        let p = p.unwrap_or_else(|e| panic!("{e:?}")).1;
        specialize_all(&p, &[]);
    }

    #[test]
    fn unsupported_pointer_uses_are_diagnosed_at_their_position() {
        let t = target();
        for (src, at, message) in [
            ("kernel void k(global int *o) { global int *p = o; global int **pp = &p; pp[1] = o; }", "1:73", "not on a pointer to a single variable"),
            ("kernel void k(global int *o) { global int *p = o, *q = o; global int **pp = &p; pp = &q; }", "1:84", "only point into one object"),
            ("kernel void k(global int *o) { o[0] = *(global int *)(o[1] + 4); }", "1:40", "an integer can only become a pointer"),
            ("typedef struct { int n; } C; kernel void k() { local C c; atomic_inc(&c.n); }", "1:59", "members of __local structs"),
            // One error: `q` is still declared.
            ("kernel void k(global int *o) { global int *q = (global int *)o[0]; q[0] = 1; }", "1:48", "an integer can only become a pointer"),
        ] {
            let Err(BuildError::Failed(log)) = build(src, "", &t) else { panic!("expected a failure for {src}") };
            assert!(log.contains(&format!("<source>:{at}: error: ")) && log.contains(message), "{src}\n{log}");
            assert_eq!(log.matches("error:").count(), 1, "{log}");
            assert!(!log.contains("internal"), "{log}");
        }
    }

    #[test]
    fn only_local_data_reached_by_atomics_is_atomic() {
        let p = built(
            "void add(local int *p) { atomic_inc(p); }
             kernel void none(global int *o) { local int a[4]; local uint b; a[0] = 1; b = 2; o[0] = a[0] + b; }
             kernel void one(global int *o) { local int a[4]; local int b[4]; a[1] = 0; b[1] = 0; atomic_add(&a[1], 2); o[0] = a[1] + b[1]; }
             kernel void through_a_helper(global int *o) { local int a[4]; local int b; a[0] = b = 0; local int *p = a + 1; add(p); o[0] = a[0] + b; }
             kernel void argument(local int *p, global int *o) { local int a[2]; a[0] = 0; p[0] = 0; atomic_inc(p); o[0] = a[0] + p[0]; }
             kernel void unknown(global int *o) { local int a[2]; local int b; local int *p = a; local int **pp = &p; *pp = a + 1; a[0] = b = 0; atomic_inc(p); o[0] = a[0] + b; }",
        );
        // (OpAtomicLoad, OpAtomicStore) instructions: the plain accesses of atomic variables.
        let atomic_accesses = |name: &str| {
            let k = p.kernels.iter().find(|k| k.name() == name).unwrap_or_else(|| panic!("no kernel {name}"));
            let locals = k.args().iter().filter(|a| matches!(a.kind, ArgKind::Local { .. })).count();
            let words = k.specialize([4, 1, 1], &vec![16; locals], &[]).unwrap_or_else(|e| panic!("{e}"));
            (opcodes(&words, 227), opcodes(&words, 228))
        };
        assert_eq!(atomic_accesses("none"), (0, 0));
        // Only `a`: one store and one load.
        assert_eq!(atomic_accesses("one"), (1, 1));
        // Through a pointer variable and a helper's parameter: still only `a`.
        assert_eq!(atomic_accesses("through_a_helper"), (1, 1));
        // The __local argument, not `a`.
        assert_eq!(atomic_accesses("argument"), (1, 1));
        // A pointer changed through a pointer to it: every __local integer.
        assert_eq!(atomic_accesses("unknown"), (2, 2));
    }

    /// The C11 atomics on every kind of pointer: buffers (paths and program variables),
    /// `__local` variables and arguments, regions chosen at run time, private memory.
    #[test]
    fn c11_atomics_build_in_every_space() {
        let src = r#"
            global atomic_uint counter = ATOMIC_VAR_INIT(0);
            global atomic_long wide[2] = { ATOMIC_VAR_INIT(1), ATOMIC_VAR_INIT(2) };
            int bump(volatile atomic_int *p, int v) { return atomic_fetch_add_explicit(p, v, memory_order_acq_rel, memory_scope_device); }
            kernel void every(global atomic_int *g, global atomic_float *f, global atomic_double *d, local atomic_int *la,
                              global int *out, int n) {
                local atomic_int l[4];
                local atomic_float lf;
                int i = get_global_id(0);
                if (get_local_id(0) == 0) { atomic_init(&l[0], 0); atomic_store_explicit(&lf, 1.0f, memory_order_relaxed); atomic_init(la, 0); }
                barrier(CLK_LOCAL_MEM_FENCE);
                out[i] = atomic_fetch_add(&g[0], 1) + atomic_fetch_sub(&g[1], 2) + atomic_fetch_or(&g[2], i) + atomic_fetch_xor(&g[2], i)
                       + atomic_fetch_and(&g[3], ~i) + atomic_fetch_min(&g[4], i) + atomic_fetch_max(&g[5], i) + atomic_exchange(&g[6], i);
                out[i] += atomic_load(&l[0]) + atomic_fetch_min_explicit(&l[1], i, memory_order_acquire, memory_scope_work_group);
                out[i] += bump(&g[7], 1) + bump(&l[2], 1) + bump(la, 1) + (int)atomic_fetch_add(&counter, 1u);
                float old = atomic_exchange_explicit(f, 2.0f, memory_order_release, memory_scope_device) + atomic_load(&lf);
                double dd = atomic_load(d);
                atomic_store(d, dd + old);
                int e = 5;
                out[i] += atomic_compare_exchange_strong(&g[8], &e, i) + e;
                local int le;
                out[i] += atomic_compare_exchange_weak_explicit(&l[3], &le, 7, memory_order_seq_cst, memory_order_relaxed, memory_scope_work_group);
                float fe = 1.0f;
                out[i] += atomic_compare_exchange_strong(&lf, &fe, 3.0f);
                out[i] += atomic_flag_test_and_set(&g[9]) + atomic_flag_test_and_set_explicit(&l[3], memory_order_acquire);
                atomic_flag_clear_explicit(&g[9], memory_order_release, memory_scope_device);
                out[i] += (int)atomic_fetch_add(&wide[1], 3);
                // A pointer chosen at run time between a buffer and __local memory.
                generic atomic_int *p = g + 10;
                if (n & 1) p = la;
                out[i] += atomic_fetch_add_explicit(p, 1, memory_order_relaxed, memory_scope_work_group) + atomic_fetch_max(p, i);
                int pe = 0;
                out[i] += atomic_compare_exchange_strong(p, &pe, 1) + atomic_load(p);
                atomic_store(p, 4);
                // An order known only at run time is seq_cst, and still evaluated.
                memory_order o = n & 2 ? memory_order_acquire : memory_order_relaxed;
                out[i] += atomic_load_explicit(&g[11], o);
                atomic_store_explicit(&g[11], 3, n & 4 ? memory_order_release : memory_order_relaxed, memory_scope_device);
                atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE, memory_order_seq_cst, memory_scope_device);
                atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_relaxed, memory_scope_work_item);
                // Private atomics: no other work-item sees them.
                atomic_int mine;
                atomic_init(&mine, i);
                out[i] += atomic_fetch_add(&mine, 2) + atomic_load(&mine);
            }
        "#;
        let (_, p) = build(src, "-cl-std=CL3.0", &target()).unwrap_or_else(|e| panic!("{e:?}"));
        specialize_all(&p, &[64]);
        // Orders are the atomics' own semantics (AcquireRelease | UniformMemory |
        // WorkgroupMemory among them); the one barrier left is the seq_cst fence.
        let words = p.kernels[0].specialize([32, 1, 1], &[64], &[]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(opcodes(&words, 225), 1);
        assert!(words.windows(4).any(|w| w[0] == (4 << 16) | 43 && w[3] == 0x148));
        // Where read-modify-writes keep orders (lavapipe), no barrier at all.
        let lavapipe = Target { ordering_by_rmw: true, ..target() };
        let (_, p) = build(src, "-cl-std=CL3.0", &lavapipe).unwrap_or_else(|e| panic!("{e:?}"));
        specialize_all(&p, &[64]);
        let words = p.kernels[0].specialize([32, 1, 1], &[64], &[]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(opcodes(&words, 225), 0);
    }

    /// How many instructions of `opcode` the first kernel of `src`, built for `t`, has once
    /// specialised for 32 work-items.
    fn specialized_opcodes(src: &str, t: &Target, opcode: u32) -> usize {
        let (_, p) = build(src, "", t).unwrap_or_else(|e| panic!("{e:?}"));
        opcodes(&p.kernels[0].specialize([32, 1, 1], &[], &[]).unwrap_or_else(|e| panic!("{e}")), opcode)
    }

    #[test]
    fn float_trig_reduces_by_multiply_adds_where_they_round_once() {
        let src = "kernel void k(global float *o) { float c; o[0] = sin(o[1]) + cos(o[2]) + tan(o[3]) + sincos(o[4], &c) + c; }";
        const FSUB: u32 = 131;
        let subtractions = |t: &Target| specialized_opcodes(src, t, FSUB);
        let fused = Target { fused_fma: true, ..target() };
        // sin, cos and sincos reduce in float (tan in double): each four exact products and
        // subtractions, or three multiply-adds.
        assert_eq!(subtractions(&target()) - subtractions(&fused), 12);
    }

    #[test]
    fn float_fma_is_the_devices_where_it_rounds_once() {
        let src = "kernel void k(global float4 *o) { o[0] = fma(o[1], o[2], o[3]); o[4].x = fma(o[5].x, o[5].y, o[5].z); }";
        // OpFConvert: the exact software fma works in double.
        const FCONVERT: u32 = 115;
        let conversions = |t: &Target| specialized_opcodes(src, t, FCONVERT);
        assert!(conversions(&target()) > 0);
        assert_eq!(conversions(&Target { fused_fma: true, ..target() }), 0);
    }

    #[test]
    fn oversized_data_and_unsupported_atomics_end_in_diagnostics() {
        let t = target();
        for (src, message) in [
            ("typedef struct { int a[100000000]; } big; kernel void k(global big *p, big v) { p[0] = v; }", "value argument"),
            ("typedef struct { char c[100000]; } big; kernel void k(global big *p, global big *q) { p[0] = q[0]; }", "64 KiB"),
            // Not an internal error from naga's validator.
            ("typedef struct { int a, b; } P; kernel void k(global int *o) { local P p; o[0] = atomic_add(&p.b, 1); }", "members of __local structs are not supported"),
        ] {
            let Err(BuildError::Failed(log)) = build(src, "", &t) else { panic!("expected a failure for {src}") };
            assert!(log.contains(message), "{log}");
        }
    }

    #[test]
    fn operations_on_constants_build_and_specialise() {
        // Each was rejected by naga: the spv writer panicked ("Expression [N] is not cached",
        // the vector literals), the validator or the constant evaluator at specialisation
        // rejected undefined operations in code that never runs, a constant index out of
        // bounds, a shift out of a char's range, a float constant rounding to infinity, and
        // math on a constant double8.
        let t = target();
        for src in [
            "kernel void k(global uchar *o) { vstore4((uchar4)(1), 0, o); }",
            "kernel void k(global uchar *o) { vstore2((uchar2)(3), 1, o); vstore8((uchar8)(2), 1, o); }",
            "kernel void k(global int *a) { if (a[0]) a[1] = 1/0; }",
            "kernel void k(global int *a) { if (a[0]) a[1] = a[2] % 0; }",
            "kernel void k(global int4 *a) { if (a[0].x) a[1] = a[2] / (int4)(1, 0, 1, 1); }",
            "kernel void k(global long *a) { for (int i = 0; i < 2; i++) a[i] = (LONG_MIN + i) / -1; }",
            "kernel void k(global int *a) { for (int i = 0; i < 4; i++) a[i] = 12 / i + (1 << (i + 29)); }",
            "kernel void k(global char *a) { for (int i = 0; i < 4; i++) a[i] = (char)(i * 100); }",
            "kernel void k(global int *a) { a[0] = a[1] / (get_local_size(0) - 1); }",
            "kernel void k(global int *a) { int t[4]; if (a[0] > 100) a[1] = t[7] + t[-1]; }",
            "kernel void k(global int *a) { int t[4]; t[0] = 1; int *p = t; if (a[0] > 100) a[1] = p[7]; }",
            "kernel void k(global int *a) { int t[4]; for (int i = 0; i < 8; i++) if (i < 4) t[i] = i; a[0] = t[3]; }",
            "kernel void k(global int *a) { int4 v = (int4)(1); if (a[0] > 100) a[1] = v[7]; }",
            "kernel void k(global float *a) { for (int i = 0; i < 4; i++) a[i] = 1.0f / i + sqrt(-1.0f * i) + log((float)i); }",
            "kernel void k(global float *a) { for (int i = 0; i < 2; i++) a[i] = (float)(1e300 * (i + 1)); }",
            "kernel void k(global double *a) { a[0] = exp(1000.0) + fabs((double8)(-1.0)).s3; }",
        ] {
            let (_, p) = build(src, "", &t).unwrap_or_else(|e| panic!("{src}: {e:?}"));
            specialize_all(&p, &[]);
        }
        // A constant index into a __local argument (its length is known at specialisation).
        let p = built("kernel void k(global int *a, local int *l) { l[5] = 1; a[0] = l[0]; }");
        specialize_all(&p, &[4]);
    }

    #[test]
    fn unterminated_and_enormous_programs_end() {
        let t = target();
        for (src, at, message) in [
            ("kernel void k() {\n/* never closed", "2:1", "unterminated /* comment"),
            ("kernel void k(global char *a) { a[0] = \"abc", "1:40", "missing terminating \""),
            ("#if 1\nkernel void k() {}", "1:2", "unterminated conditional directive"),
            ("kernel void k() {", "1:18", "expected '}' before the end of input"),
            ("#define F(x) x\nkernel void k() { F(1, ", "2:19", "unterminated invocation of macro 'F'"),
        ] {
            let Err(BuildError::Failed(log)) = build(src, "", &t) else { panic!("expected a failure for {src}") };
            assert!(log.contains(&format!("<source>:{at}: error: {message}")), "{src}\n{log}");
        }
        // A 4 MiB string literal (exponentially growing macros and inlining: tests of their own).
        let src = format!("kernel void k(global int *a) {{ a[0] = sizeof(\"{}\"); }}", "a".repeat(4 << 20));
        build(&src, "", &t).unwrap_or_else(|e| panic!("{e:?}"));
    }

    #[test]
    fn bad_options_and_diagnostics() {
        let t = target();
        assert!(matches!(build("kernel void k() {}", "-cl-no-such-option", &t), Err(BuildError::InvalidOptions(_))));
        let Err(BuildError::Failed(log)) = build("kernel void k() { undeclared = 1; }", "", &t) else {
            panic!("expected a build failure")
        };
        assert!(log.contains("<source>:1:"), "{log}");
    }
    /// Typical kernels: vectors, atomics, conversions, pointers, constants, doubles, halves.
    const CORPUS: &[&str] = &[
        r#"kernel void vec_ops(global float4 *a, global float4 *b, global float *out) {
    int i = get_global_id(0);
    float4 x = a[i], y = b[i];
    float4 z = x * y + (float4)(1.0f, 2.0f, 3.0f, 4.0f);
    z.xy = z.yx;
    z.w += dot(x, y);
    out[i] = z.x + z.y + z.z + z.w + length(x) + fmax(x.x, y.y) + mad(x.z, y.z, 1.0f);
    b[i] = select(x, y, x > y);
    a[i] = clamp(z, 0.0f, 1.0f);
}
"#,
        r#"kernel void atomics(global int *counter, global uint *hist, global const uchar *data, local uint *lh) {
    uint l = get_local_id(0);
    lh[l] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_inc(&lh[data[get_global_id(0)] % get_local_size(0)]);
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_add(&hist[l], lh[l]);
    if (atomic_cmpxchg(counter, 0, 1) == 0) atom_add(counter + 1, 2);
    atomic_max(counter + 2, (int)l);
}
"#,
        r#"kernel void convert_sat(global float *in, global uchar *out, global short4 *s, global int *iout) {
    size_t i = get_global_id(0);
    out[i] = convert_uchar_sat(in[i] * 255.0f);
    s[i] = convert_short4_sat(vload4(i, in));
    iout[i] = convert_int_rte(in[i]) + as_int(in[i]) + (int)rint(in[i]) + mul_hi((int)i, 77) + rotate((int)i, 3);
    vstore4(convert_float4(s[i]), i, in);
}
"#,
        r#"typedef struct { int a; float b; } pair;
pair make(int x) { pair p; p.a = x; p.b = x * 0.5f; return p; }
void set(global int *p, int i, int v) { p[i] = v; }
int sum(const global int *p, int n) { int s = 0; for (int i = 0; i < n; i++) s += p[i]; return s; }
kernel void ptrs(global int *a, global pair *ps, int n) {
    global int *p = a + 4;
    global int *q = p;
    q += 2;
    *q = sum(a, n);
    set(p, 1, (int)(q - p));
    ps[get_global_id(0)] = make(n);
    int priv[8];
    for (int i = 0; i < 8; i++) priv[i] = i * n;
    int *pp = priv;
    a[0] = pp[3] + *(pp + 2);
    ulong big = (ulong)n << 40;
    a[1] = (int)(big >> 38) + popcount(big) + clz(big);
}
"#,
        r#"__constant float coeffs[] = { 0.5f, 0.25f, 0.125f, 1.0f/0.0f };
__constant char msg[] = {104, 105, 0};
__kernel void conv(__global const float *in, __global float *out, __constant float *w, const int width) {
    int x = get_global_id(0), y = get_global_id(1);
    float acc = 0.0f;
    #pragma unroll
    for (int k = 0; k < 4; ++k) acc += in[y * width + x + k] * w[k] * coeffs[k];
    out[y * width + x] = acc + msg[1];
}
"#,
        r#"kernel void doubles(global double *d, global long *l, global half *h) {
    size_t i = get_global_id(0);
    d[i] = sqrt(d[i]) + fabs(d[i]) + floor(d[i]) + (double)l[i];
    l[i] = abs(l[i]) + mul_hi(l[i], 3L) + l[i] / 3 + l[i] % 5;
    float f = vload_half(i, h);
    vstore_half(f * 2.0f, i, h);
}
"#,
        r#"kernel void wide(global float8 *a, global int16 *b, global uchar16 *c, global double8 *d, float16 f, short8 s) {
    size_t i = get_global_id(0);
    a[i] = a[i] * 2.0f + f.lo;
    b[i] = b[i] + (int16)(1) + convert_int16(c[i]) + (b[i] > 3);
    c[i] = convert_uchar16_sat(f) + c[i].s0123456789abcdef;
    float8 v = vload8(i, (global float *)a);
    v.s7 = f.sf + v.s0;
    v.hi = v.lo;
    vstore8(fmax(v, 0.5f), i + 1, (global float *)a);
    d[i] = d[i] * convert_double8(s) + (double8)(v.s0);
    b[i].s3 = a[i].s2 > 0.0f ? b[i].sa : b[i][2];
}
"#,
        r#"__kernel void sample_test(__global int *dst, __global uint *wi) {
    int tid = get_global_id(0);
    dst[tid] = (int)get_work_dim();
    wi[tid*8+0] = get_global_size(0); wi[tid*8+1] = get_local_size(0);
    wi[tid*8+2] = get_num_groups(0); wi[tid*8+3] = get_group_id(0);
    wi[tid*8+4] = get_local_id(0); wi[tid*8+5] = get_global_offset(0);
    wi[tid*8+6] = get_enqueued_local_size(0); wi[tid*8+7] = get_global_id(5);
}
"#,
        r#"typedef struct { char c; int i; short s; float f; } mixed;
__kernel void structs(__global int *out) {
    mixed m;
    m.c = 'a'; m.i = 5; m.s = -3; m.f = 2.5f;
    mixed n = m;
    n.c += 1;
    out[0] = n.c + n.i + n.s + (int)n.f + sizeof(mixed);
}
"#,
        r#"float4 blend(float4 a, float4 b, float t) { return mix(a, b, t); }
void swap(__private float *x, __private float *y) { float t = *x; *x = *y; *y = t; }
__kernel void helpers(__global float4 *img, __global float *vals, float t) {
    int i = get_global_id(0);
    float a = vals[2*i], b = vals[2*i+1];
    swap(&a, &b);
    vals[2*i] = a; vals[2*i+1] = b;
    img[i] = blend(img[i], (float4)(a, b, 0.0f, 1.0f), t);
}
"#,
        r#"__kernel void bytes(__global char *s, __global uchar4 *px, __global ushort *h, __global ulong *u) {
    int i = get_global_id(0);
    s[i] = s[i] - 'a' + 'A';
    uchar4 p = px[i];
    px[i] = (uchar4)(p.z, p.y, p.x, p.w);
    h[i] = (ushort)(h[i] * 3u);
    u[i] = u[i] * 0x100000001UL + (ulong)h[i];
    char t = s[i] > 0 ? s[i] : -s[i];
    s[i+1] = abs(t) + clz(t) + popcount(t);
}
"#,
        r#"__kernel void local_tile(__global const float *in, __global float *out, __local float *tile, __local int *flags) {
    __local float sums[16][16];
    int lx = get_local_id(0), ly = get_local_id(1);
    tile[ly * get_local_size(0) + lx] = in[get_global_id(1) * get_global_size(0) + get_global_id(0)];
    sums[ly % 16][lx % 16] = 0.0f;
    if (lx == 0) flags[ly] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_or(&flags[ly], 1 << (lx & 31));
    mem_fence(CLK_LOCAL_MEM_FENCE);
    sums[ly % 16][lx % 16] += tile[lx * get_local_size(1) + ly];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(1) * get_global_size(0) + get_global_id(0)] = sums[ly % 16][lx % 16] + flags[ly];
}
"#,
        r#"__kernel void math(__global float *x, __global float4 *v) {
    int i = get_global_id(0);
    float a = x[i];
    x[i] = sin(a) + cos(a) + exp(a) + log(fabs(a) + 1.0f) + pow(a, 2.0f) + sqrt(fabs(a)) + native_sin(a) + half_cos(a)
         + round(a) + trunc(a) + ceil(a) + floor(a) + fmod(a, 3.0f) + atan2(a, 1.0f) + hypot(a, a) + fma(a, a, a)
         + copysign(1.0f, a) + (isnan(a) ? 1.0f : 0.0f) + native_divide(a, 3.0f) + native_recip(a + 2.0f);
    v[i] = normalize(v[i]) + cross(v[i], v[i]) + (float4)(distance(v[i], v[i]));
    int4 m = v[i] > (float4)0.5f;
    v[i] = select(v[i], -v[i], m);
}
"#,
        r#"kernel void bitonic(global uint *data, uint stage, uint pass) {
    uint i = get_global_id(0);
    uint pair_distance = 1 << (stage - pass);
    uint block_width = 2 * pair_distance;
    uint left = (i % pair_distance) + (i / pair_distance) * block_width;
    uint right = left + pair_distance;
    uint l = data[left], r = data[right];
    uint same_dir = (i >> stage) & 1 ? 0 : 1;
    uint greater = l > r ? l : r, lesser = l > r ? r : l;
    data[left] = same_dir ? lesser : greater;
    data[right] = same_dir ? greater : lesser;
}
"#,
        r#"kernel void mandel(global uchar4 *img, float x0, float y0, float scale, int maxIt, int width) {
    int px = get_global_id(0), py = get_global_id(1);
    float cr = x0 + px * scale, ci = y0 + py * scale;
    float zr = 0, zi = 0;
    int it = 0;
    while (zr*zr + zi*zi < 4.0f && it < maxIt) { float t = zr*zr - zi*zi + cr; zi = 2*zr*zi + ci; zr = t; it++; }
    uchar c = (uchar)(255 * it / maxIt);
    img[py * width + px] = (uchar4)(c, c / 2, 255 - c, 255);
}
"#,
        r#"kernel void nbody(global float4 *pos, global float4 *vel, int n, float dt, float eps) {
    int i = get_global_id(0);
    float4 p = pos[i], a = (float4)(0.0f);
    for (int j = 0; j < n; j++) {
        float4 d = pos[j] - p;
        float inv = rsqrt(d.x*d.x + d.y*d.y + d.z*d.z + eps);
        a += d * (pos[j].w * inv * inv * inv);
    }
    vel[i] += a * dt;
    pos[i] = p + vel[i] * dt;
    pos[i].w = p.w;
}
"#,
        r#"typedef struct { uint count; float sum; } bin_t;
kernel void hist(global const float *x, global uint *bins, int nbins, local uint *lbins) {
    for (int b = get_local_id(0); b < nbins; b += get_local_size(0)) lbins[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    float v = x[get_global_id(0)];
    int b = clamp((int)(v * nbins), 0, nbins - 1);
    atomic_inc(lbins + b);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int b = get_local_id(0); b < nbins; b += get_local_size(0)) atomic_add(&bins[b], lbins[b]);
}
"#,
        r#"inline float3 shade(float3 n, float3 l) { return max(dot(n, l), 0.0f) * (float3)(1.0f, 0.9f, 0.8f); }
kernel void vec3s(global float3 *n, global float *o, const float3 light) {
    size_t i = get_global_id(0);
    float3 c = shade(normalize(n[i]), light);
    vstore3(c, i, o);
    n[i] = cross(n[i], light);
    int3 ic = convert_int3(c * 255.0f);
    o[3 * get_global_size(0) + i] = (float)(ic.x + ic.y + ic.z) + any(ic > 100) + all(ic >= 0);
}
"#,
    ];

    #[test]
    fn corpus_builds_and_validates() {
        for src in CORPUS {
            let (_, p) = build(src, "-cl-std=CL3.0", &target()).unwrap_or_else(|e| panic!("{e:?}"));
            for k in &p.kernels {
                let locals = k.args().iter().filter(|a| matches!(a.kind, ArgKind::Local { .. })).count();
                let words = k.specialize([16, 4, 1], &vec![64; locals], &[]).unwrap_or_else(|e| panic!("{e}"));
                spirv_val(&words);
            }
        }
    }
    /// Each printf call gets a format and a record layout; only kernels that reach a call
    /// (through a helper too) bind the printf buffer.
    #[test]
    fn printf_calls_record_formats_and_bind_a_buffer() {
        use crate::compiler::printf::{Operand, Piece};
        let src = r#"
            void helper(int x) { printf("x=%d %s %v2hlf\n", x, "lit", (float2)(1.0f, 2.0f)); }
            kernel void a(global int *o, global long *l) {
                o[0] = printf("%ld %c %p %hhx %#v4hhx\n", l[0], 'A', o, 300, (uchar4)(1, 2, 3, 4), o[2]);
                helper(o[1]);
            }
            kernel void b(global int *o) { o[0] = 1; }"#;
        let p = built(src);
        assert_eq!(p.printf.len(), 2);
        let operand = |at, count, words, float, signed| Operand { at, count, words, float, signed };
        let values: Vec<Operand> = p.printf[0].pieces.iter().filter_map(|x| if let Piece::Value(_, o) = x { Some(*o) } else { None }).collect();
        assert_eq!(values, [operand(1, 1, 1, false, true), operand(2, 2, 1, true, false)]);
        assert!(p.printf[0].pieces.iter().any(|x| matches!(x, Piece::Literal(_, t) if t == b"lit")));
        // long (2 words), 'A' as int, a 64-bit pointer, 300 as int, four uchar words.
        assert_eq!(p.printf[1].words, 1 + 2 + 1 + 2 + 1 + 4);
        assert_eq!(p.printf[0].words, 1 + 1 + 2);
        let a = p.kernels.iter().find(|k| k.name() == "a").expect("a");
        let b = p.kernels.iter().find(|k| k.name() == "b").expect("b");
        assert!(a.printf_binding().is_some() && b.printf_binding().is_none());
        specialize_all(&p, &[]);
    }
}


/// Regressions the fuzzer (`tests/fuzz.rs`) found, checked on a thread with a small stack as an
/// application's may be.
#[cfg(test)]
mod fuzz_regressions {
    use super::*;
    use crate::compiler::lower::tests::target;

    fn builds_on_a_small_stack(src: String) {
        let thread = std::thread::Builder::new().stack_size(256 << 10).spawn(move || {
            let (_, p) = build(&src, "", &target()).unwrap_or_else(|e| panic!("{e:?}"));
            p.kernels.iter().for_each(|k| drop(k.specialize([64, 1, 1], &[], &[]).unwrap_or_else(|e| panic!("{e}"))));
        });
        thread.expect("thread").join().expect("the build succeeds");
    }

    /// Deeply nested counted loops: the unroller judged each nested loop by scanning its body
    /// again (time exponential in the depth: 100 loops never ended), and the passes' recursion
    /// overflowed a 2 MiB stack at 80 loops.
    #[test]
    fn deeply_nested_loops_build_in_linear_time() {
        let loops: String = (0..120).map(|i| format!("for (int i{i} = 0; i{i} < 2; i{i}++) ")).collect();
        let start = std::time::Instant::now();
        builds_on_a_small_stack(format!("kernel void k(global int *o) {{ int x = 0; {loops} x++; o[0] = x; }}"));
        assert!(start.elapsed() < std::time::Duration::from_secs(30), "took {:?}", start.elapsed());
    }
}
