//! From a lowered naga module to SPIR-V words: validation with the capabilities the target
//! allows, override processing (work-group size, `__local` argument lengths), the spv writer
//! options compute needs, and a post-pass for the decorations naga cannot write.

use super::Target;
use naga::back::spv;
use naga::valid::{Capabilities, ModuleInfo, ValidationFlags, Validator};

/// The naga capabilities a module for `target` may use.
pub fn capabilities(target: &Target) -> Capabilities {
    // f16 pack/unpack to and from f32 (vload_half, half buffers) is core GLSL.std.450.
    // `Coherent` buffers (kernels whose atomics order global memory) are core SPIR-V.
    let mut caps = Capabilities::IMMEDIATES | Capabilities::SHADER_FLOAT16_IN_FLOAT32 | Capabilities::MEMORY_DECORATION_COHERENT;
    if target.int64 {
        caps |= Capabilities::SHADER_INT64;
    }
    if target.int64_atomics {
        caps |= Capabilities::SHADER_INT64_ATOMIC_ALL_OPS;
    }
    if target.fp64 {
        caps |= Capabilities::FLOAT64;
    }
    if target.int16 && target.storage_16bit {
        caps |= Capabilities::SHADER_INT16;
    }
    if target.subgroups {
        caps |= Capabilities::SUBGROUP | Capabilities::SUBGROUP_BARRIER;
    }
    caps
}

/// Validates a module; the error text is an internal compiler error.
pub fn validate(module: &naga::Module, target: &Target) -> Result<ModuleInfo, String> {
    let mut validator = Validator::new(ValidationFlags::all(), capabilities(target));
    if target.subgroups {
        validator.subgroup_stages(naga::valid::ShaderStages::COMPUTE).subgroup_operations(naga::valid::SubgroupOperationSet::all());
    }
    validator
        .validate(module)
        .map_err(|e| format!("internal compiler error: invalid IR: {}", e.emit_to_string("")))
}

/// Writer options for OpenCL compute: no injected loop bounds, division checks or workgroup
/// zero-initialisation (OpenCL leaves those undefined), and no `StorageInputOutput16`.
/// With `clamp_array_indices`, indices into `__local` and private arrays are clamped to the
/// array, so an out-of-bounds write cannot reach other memory (on lavapipe it corrupted the
/// host's heap). Buffers are left to the device's robustBufferAccess, which the hardware does
/// for free.
fn writer_options(clamp_array_indices: bool, no_signed_wrap: bool) -> spv::Options<'static> {
    let index = if clamp_array_indices { naga::proc::BoundsCheckPolicy::Restrict } else { naga::proc::BoundsCheckPolicy::Unchecked };
    spv::Options {
        bounds_check_policies: naga::proc::BoundsCheckPolicies { index, ..Default::default() },
        // 1.4 for `NoSignedWrap` (see `decorate`), core there and, as an extension
        // of older SPIR-V, not accepted by Vulkan.
        lang_version: if no_signed_wrap { (1, 4) } else { (1, 3) },
        flags: spv::WriterFlags::empty(),
        force_loop_bounding: false,
        emit_int_div_checks: false,
        zero_initialize_workgroup_memory: spv::ZeroInitializeWorkgroupMemoryMode::None,
        use_storage_input_output_16: false,
        ..spv::Options::default()
    }
}

/// How [`write`] writes and finishes a kernel's SPIR-V.
#[derive(Clone, Debug, Default)]
pub struct Finish {
    /// Buffers are seen through several views: `Aliased` (see [`decorate`]).
    pub aliased: bool,
    /// The bindings of buffers nothing else in the kernel reaches: `Restrict` (see [`decorate`]).
    pub restrict: Vec<u32>,
    /// [`crate::compiler::Target::clamp_array_indices`] of the device it is built for.
    pub clamp_array_indices: bool,
    /// [`crate::compiler::Target::preserve_signed_zeros`] of that device.
    pub preserve_signed_zeros: bool,
    /// [`crate::compiler::Target::no_signed_wrap`] of that device.
    pub no_signed_wrap: bool,
    /// The bindings of `image1d_buffer_t` arguments (see [`texel_buffers`]).
    pub texel_buffers: Vec<u32>,
    /// The kernel writes images (see [`unknown_image_formats`]).
    pub storage_images: bool,
}

/// Resolves the overrides of `module` (`constants` by override name) and writes the SPIR-V of
/// its entry point `main`, finished as `finish` says.
pub fn write(module: &naga::Module, info: &ModuleInfo, constants: &naga::back::PipelineConstants, finish: &Finish) -> Result<Vec<u32>, String> {
    let Finish { aliased, ref restrict, clamp_array_indices, preserve_signed_zeros, no_signed_wrap, texel_buffers: ref buffers, storage_images } = *finish;
    let ep = Some((naga::ShaderStage::Compute, "main"));
    let (module, info) = naga::back::pipeline_constants::process_overrides(module, info, ep, constants)
        .map_err(|e| format!("internal compiler error: specialisation: {}", with_causes(&e)))?;
    let pipeline = spv::PipelineOptions {
        shader_stage: naga::ShaderStage::Compute,
        entry_point: "main".into(),
    };
    // The writer panics on some IR the validator accepts (an expression used but never
    // emitted): an internal error, not a crash of the application.
    let written = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        spv::write_vec(&module, &info, &writer_options(clamp_array_indices, no_signed_wrap), Some(&pipeline))
    }));
    let words = match written {
        Ok(words) => words.map_err(|e| format!("internal compiler error: SPIR-V writer: {}", with_causes(&e)))?,
        Err(_) => return Err("internal compiler error: the SPIR-V writer failed".to_string()),
    };
    // The image passes walk the module only for kernels with such images.
    let words = if storage_images { unknown_image_formats(words) } else { words };
    let words = texel_buffers(words, buffers);
    // Only kernels that call helpers of their own have functions to mark.
    let words = if module.functions.is_empty() { words } else { dont_inline(words) };
    let words = super::atomic_order::apply(decorate(words, aliased, restrict, no_signed_wrap));
    Ok(if preserve_signed_zeros { preserve_float_specials(words) } else { words })
}

/// An error's message followed by those of its causes.
fn with_causes(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text += &format!(": {c}");
        cause = c.source();
    }
    text
}

/// One instruction of a SPIR-V module: where it starts, its length and opcode.
#[derive(Clone, Copy)]
pub struct Inst {
    pub at: usize,
    pub len: usize,
    pub op: u32,
}

/// The instructions of `words`, after the header.
pub fn instructions(words: &[u32]) -> Vec<Inst> {
    let mut list = Vec::new();
    let mut at = HEADER_WORDS;
    while let Some(&head) = words.get(at) {
        let (len, op) = ((head >> 16) as usize, head & 0xffff);
        if len == 0 {
            break;
        }
        list.push(Inst { at, len, op });
        at += len;
    }
    list
}

const OP_VARIABLE: u32 = 59;
const OP_DECORATE: u32 = 71;
const OP_MEMBER_DECORATE: u32 = 72;
/// Float arithmetic: OpFNegate, OpFAdd, OpFSub, OpFMul, OpFDiv, OpFRem, OpFMod,
/// OpVectorTimesScalar, OpDot.
const FLOAT_ARITHMETIC: [u32; 9] = [127, 129, 131, 133, 136, 140, 141, 142, 148];
const STORAGE_CLASS_STORAGE_BUFFER: u32 = 12;
const DECORATION_NO_CONTRACTION: u32 = 42;
const DECORATION_ALIASED: u32 = 20;
const DECORATION_RESTRICT: u32 = 19;
const HEADER_WORDS: usize = 5;

const OP_TYPE_INT: u32 = 21;
const OP_STORE: u32 = 62;
const OP_IADD: u32 = 128;
const OP_ISUB: u32 = 130;
const STORAGE_CLASS_FUNCTION: u32 = 7;
const DECORATION_NO_SIGNED_WRAP: u32 = 4469;

/// Adds the decorations naga cannot write, before its first one, in one walk of the module:
/// - `NoContraction` on every float operation. Without it NVIDIA's compiler fuses and
///   reorders float arithmetic, which breaks the error-compensating steps of the software math
///   (double `exp` was 100 ulp off). OpenCL's contraction of `a * b + c` is done by the
///   lowering instead, as an explicit fused multiply-add (`lower::expr`, FP_CONTRACT).
/// - `Aliased` on every `StorageBuffer` variable when `aliased`: views of different element
///   types on one VkBuffer must not be assumed disjoint by the driver.
/// - `Restrict` on the variables bound at `restrict`: buffer arguments the source declares
///   `restrict`, as clang marks them `noalias`, so the driver may keep their values in
///   registers and read them through its read-only caches.
/// - `NoSignedWrap` on each update `v = v ± x` of a signed integer variable when
///   `no_signed_wrap` ([`crate::compiler::Target::no_signed_wrap`]): the loop counters of
///   OpenCL C, whose overflow is undefined in C, as clang marks them `nsw`. Without it NVIDIA's
///   compiler unrolled `for (int f = 0; f < 16; f++) sum += in[i]` over `float16` data into
///   code that read 1157 GB/s on the H200; with it, 4406 GB/s (its OpenCL, 4132). Only such
///   updates of a variable by itself are marked: arithmetic of the lowering (saturation,
///   `mul24`, the low bits of narrowed 64-bit values) may wrap on purpose.
pub fn decorate(words: Vec<u32>, aliased: bool, restrict: &[u32], no_signed_wrap: bool) -> Vec<u32> {
    let word = |i: &Inst, k: usize| words.get(i.at + k).copied().unwrap_or(0);
    let mut counters = Counters::default();
    let mut first_decoration = None;
    let mut decorations = Vec::new();
    for inst in instructions(&words) {
        let (i, op) = (inst.at, inst.op);
        if matches!(op, OP_DECORATE | OP_MEMBER_DECORATE) && first_decoration.is_none() {
            first_decoration = Some(i);
        }
        let decoration = match op {
            OP_VARIABLE if aliased && words.get(i + 3) == Some(&STORAGE_CLASS_STORAGE_BUFFER) => Some((word(&inst, 2), DECORATION_ALIASED)),
            OP_DECORATE if word(&inst, 2) == DECORATION_BINDING && restrict.contains(&word(&inst, 3)) => Some((word(&inst, 1), DECORATION_RESTRICT)),
            _ if FLOAT_ARITHMETIC.contains(&op) => Some((word(&inst, 2), DECORATION_NO_CONTRACTION)),
            _ if no_signed_wrap => counters.see(op, |k| word(&inst, k)).map(|id| (id, DECORATION_NO_SIGNED_WRAP)),
            _ => None,
        };
        if let Some((id, d)) = decoration {
            decorations.extend([(3 << 16) | OP_DECORATE, id, d]);
        }
    }
    let Some(at) = first_decoration else { return words };
    let mut out = Vec::with_capacity(words.len() + decorations.len());
    out.extend_from_slice(&words[..at]);
    out.extend(decorations);
    out.extend_from_slice(&words[at..]);
    out
}

/// What [`decorate`] tracks to find the updates `v = v ± x` of signed integer variables.
#[derive(Default)]
struct Counters {
    signed_types: std::collections::HashSet<u32>,
    pointer_types: std::collections::HashSet<u32>,
    variables: std::collections::HashSet<u32>,
    /// Load result → the variable loaded.
    loads: std::collections::HashMap<u32, u32>,
    /// Sum result → the variable one of its operands was loaded from.
    sums: std::collections::HashMap<u32, u32>,
}

impl Counters {
    /// Takes in instruction `op` (`word(k)` its k-th word); returns the id to mark at the
    /// store of a sum of a variable back into that variable.
    fn see(&mut self, op: u32, word: impl Fn(usize) -> u32) -> Option<u32> {
        match op {
            OP_TYPE_INT if word(3) == 1 => _ = self.signed_types.insert(word(1)),
            OP_TYPE_POINTER if word(2) == STORAGE_CLASS_FUNCTION && self.signed_types.contains(&word(3)) => _ = self.pointer_types.insert(word(1)),
            OP_VARIABLE if self.pointer_types.contains(&word(1)) => _ = self.variables.insert(word(2)),
            OP_LOAD if self.variables.contains(&word(3)) => _ = self.loads.insert(word(2), word(3)),
            OP_IADD | OP_ISUB if self.signed_types.contains(&word(1)) => {
                let loaded = |operand| self.loads.get(&operand).copied();
                if let Some(var) = loaded(word(3)).or_else(|| if op == OP_IADD { loaded(word(4)) } else { None }) {
                    self.sums.insert(word(2), var);
                }
            }
            OP_STORE if self.sums.get(&word(2)) == Some(&word(1)) => return Some(word(2)),
            _ => {}
        }
        None
    }
}

const OP_FUNCTION: u32 = 54;
const OP_FUNCTION_END: u32 = 56;
const OP_FUNCTION_CALL: u32 = 57;
const FUNCTION_CONTROL_DONT_INLINE: u32 = 0x2;
/// A function of at least this many instructions is large (see [`dont_inline`]).
const LARGE_FUNCTION: usize = 256;

/// Marks the large functions other than the entry point that are called from more than one
/// place `DontInline`: the helpers the lowering calls rather than inlines (`lower/outline.rs`),
/// which a driver inlining them again would compile once per call of the whole call tree
/// (NVIDIA's did not finish hashcat's sha512crypt kernels in minutes). A function called from
/// one place only adds nothing by being inlined and keeps what its pointer arguments point
/// to in registers (hashcat's SHA2-512 transform, called once, ran at 0.58 of NVIDIA's OpenCL
/// as a call). naga's own small wrappers (signed `%`) stay free to inline: kept as calls
/// they halved the bench's sgemm on NVIDIA.
pub fn dont_inline(mut words: Vec<u32>) -> Vec<u32> {
    let list = instructions(&words);
    let entry_points: Vec<u32> = list.iter().filter(|i| i.op == OP_ENTRY_POINT).filter_map(|i| words.get(i.at + 2).copied()).collect();
    let mut calls: std::collections::HashMap<u32, usize> = std::collections::HashMap::new();
    for callee in list.iter().filter(|i| i.op == OP_FUNCTION_CALL).filter_map(|i| words.get(i.at + 3)) {
        *calls.entry(*callee).or_default() += 1;
    }
    let mut start = None;
    for (n, i) in list.iter().enumerate() {
        match i.op {
            OP_FUNCTION => start = Some((n, i.at)),
            OP_FUNCTION_END => {
                let Some((first, at)) = start.take() else { continue };
                let shared = words.get(at + 2).is_some_and(|id| !entry_points.contains(id) && calls.get(id).is_some_and(|&c| c > 1));
                if shared && n - first >= LARGE_FUNCTION {
                    if let Some(control) = words.get_mut(at + 3) {
                        *control |= FUNCTION_CONTROL_DONT_INLINE;
                    }
                }
            }
            _ => {}
        }
    }
    words
}

const OP_TYPE_IMAGE: u32 = 25;
const OP_LOAD: u32 = 61;
const CAPABILITY_STORAGE_IMAGE_WRITE_WITHOUT_FORMAT: u32 = 56;
/// `OpTypeImage`'s Sampled operand for a storage image.
const IMAGE_STORAGE: u32 = 2;

/// Storage images (the `write_only` image arguments) get the `Unknown` format, which naga
/// cannot write: the lowering declares them with a stand-in format of their channels' kind
/// (`lower/abi.rs`), and OpenCL binds images of any format there
/// (`shaderStorageImageWriteWithoutFormat`).
pub fn unknown_image_formats(words: Vec<u32>) -> Vec<u32> {
    let list = instructions(&words);
    let word = |i: &Inst, k: usize| words.get(i.at + k).copied().unwrap_or(0);
    if !list.iter().any(|i| i.op == OP_TYPE_IMAGE && word(i, 7) == IMAGE_STORAGE) {
        return words;
    }
    let has_capability = list.iter().any(|i| i.op == OP_CAPABILITY && word(i, 1) == CAPABILITY_STORAGE_IMAGE_WRITE_WITHOUT_FORMAT);
    let mut out = Vec::with_capacity(words.len() + 2);
    out.extend_from_slice(&words[..HEADER_WORDS.min(words.len())]);
    if !has_capability {
        out.extend([(2 << 16) | OP_CAPABILITY, CAPABILITY_STORAGE_IMAGE_WRITE_WITHOUT_FORMAT]);
    }
    for i in &list {
        let inst = &words[i.at..i.at + i.len];
        match i.op {
            OP_TYPE_IMAGE if word(i, 7) == IMAGE_STORAGE && i.len > 8 => {
                out.extend_from_slice(&inst[..8]);
                out.push(0); // Unknown
                out.extend_from_slice(&inst[9..]);
            }
            _ => out.extend_from_slice(inst),
        }
    }
    out
}

const OP_TYPE_POINTER: u32 = 32;
const OP_IMAGE_FETCH: u32 = 95;
const DECORATION_BINDING: u32 = 33;
const DIM_BUFFER: u32 = 5;
const CAPABILITY_SAMPLED_BUFFER: u32 = 46;
const CAPABILITY_IMAGE_BUFFER: u32 = 47;

/// `image1d_buffer_t` arguments are texel buffers, which naga cannot declare: the lowering
/// declares them as 1D images at `bindings`, and this pass gives each such variable an image
/// type of `Buffer` dimension (of its own, as another 1D image may share the first) with the
/// capability it needs (`SampledBuffer` read, `ImageBuffer` written). Texel buffers have no
/// levels: their fetches lose the `Lod` operand.
pub fn texel_buffers(words: Vec<u32>, bindings: &[u32]) -> Vec<u32> {
    if bindings.is_empty() {
        return words;
    }
    let list = instructions(&words);
    let word = |i: &Inst, k: usize| words.get(i.at + k).copied().unwrap_or(0);
    let vars: Vec<u32> = list.iter().filter(|i| i.op == OP_DECORATE && word(i, 2) == DECORATION_BINDING && bindings.contains(&word(i, 3))).map(|i| word(i, 1)).collect();
    let mut bound = words.get(3).copied().unwrap_or(0);
    let mut fresh = || {
        bound += 1;
        bound - 1
    };
    let var_pointers: Vec<(u32, u32)> = list.iter().filter(|i| i.op == OP_VARIABLE && vars.contains(&word(i, 2))).map(|v| (word(v, 2), word(v, 1))).collect();
    // Per pointer type of such variables: the new image and pointer types (one pair for all
    // variables of one type: SPIR-V forbids declaring a type twice).
    let mut pointers: Vec<u32> = var_pointers.iter().map(|v| v.1).collect();
    pointers.sort_unstable();
    pointers.dedup();
    let retyped: Vec<(u32, u32, u32)> = pointers.into_iter().map(|p| (p, fresh(), fresh())).collect();
    let new_types = |var: u32| var_pointers.iter().find(|v| v.0 == var).and_then(|v| retyped.iter().find(|r| r.0 == v.1)).copied();
    let image_type = |id: u32| list.iter().find(|i| i.op == OP_TYPE_IMAGE && word(i, 1) == id);
    let mut values = Vec::new();
    let mut capabilities = Vec::new();
    let mut out = Vec::with_capacity(words.len() + 16 * retyped.len());
    out.extend_from_slice(&words[..HEADER_WORDS.min(words.len())]);
    if let Some(b) = out.get_mut(3) {
        *b = bound;
    }
    for i in &list {
        let inst = &words[i.at..i.at + i.len];
        match i.op {
            OP_TYPE_POINTER => {
                out.extend_from_slice(inst);
                let new = retyped.iter().find(|r| r.0 == word(i, 1));
                if let (Some(&(_, image, pointer)), Some(t)) = (new, image_type(word(i, 3))) {
                    let mut ty = words[t.at..t.at + t.len].to_vec();
                    ty[1] = image;
                    ty[3] = DIM_BUFFER;
                    ty[8] = 0; // Unknown
                    capabilities.push(if ty[7] == IMAGE_STORAGE { CAPABILITY_IMAGE_BUFFER } else { CAPABILITY_SAMPLED_BUFFER });
                    out.extend(ty);
                    out.extend([(4 << 16) | OP_TYPE_POINTER, pointer, word(i, 2), image]);
                }
            }
            OP_VARIABLE => {
                let mut v = inst.to_vec();
                if let Some((_, _, pointer)) = new_types(word(i, 2)) {
                    v[1] = pointer;
                }
                out.extend(v);
            }
            OP_LOAD => {
                let mut v = inst.to_vec();
                if let Some((_, image, _)) = new_types(word(i, 3)) {
                    v[1] = image;
                    values.push(word(i, 2));
                }
                out.extend(v);
            }
            OP_IMAGE_FETCH if values.contains(&word(i, 3)) => {
                out.extend([(5 << 16) | OP_IMAGE_FETCH, word(i, 1), word(i, 2), word(i, 3), word(i, 4)]);
            }
            _ => out.extend_from_slice(inst),
        }
    }
    capabilities.sort_unstable();
    capabilities.dedup();
    let caps: Vec<u32> = capabilities.into_iter().flat_map(|c| [(2 << 16) | OP_CAPABILITY, c]).collect();
    out.splice(HEADER_WORDS..HEADER_WORDS, caps);
    out
}

const OP_EXTENSION: u32 = 10;
const OP_ENTRY_POINT: u32 = 15;
const OP_EXECUTION_MODE: u32 = 16;
const OP_CAPABILITY: u32 = 17;
const OP_TYPE_FLOAT: u32 = 22;
const CAPABILITY_SIGNED_ZERO_INF_NAN_PRESERVE: u32 = 4466;
const MODE_SIGNED_ZERO_INF_NAN_PRESERVE: u32 = 4461;

/// Asks the driver to keep signed zeros, infinities and NaNs of every float width the module
/// uses (`SignedZeroInfNanPreserve`, from SPV_KHR_float_controls, core in Vulkan 1.2): OpenCL
/// requires them, and without the mode a Vulkan compiler may drop the sign of a zero.
pub fn preserve_float_specials(words: Vec<u32>) -> Vec<u32> {
    let (mut after_capabilities, mut after_modes, mut entry, mut widths) = (None, None, None, Vec::new());
    for Inst { at: i, len, op } in instructions(&words) {
        match op {
            OP_CAPABILITY => after_capabilities = Some(i + len),
            OP_ENTRY_POINT => {
                entry = words.get(i + 2).copied();
                after_modes = Some(i + len);
            }
            OP_EXECUTION_MODE => after_modes = Some(i + len),
            // (16-bit floats would need a property of their own.)
            OP_TYPE_FLOAT => widths.extend(words.get(i + 2).copied().filter(|&w| w != 16)),
            _ => {}
        }
    }
    let (Some(caps_end), Some(modes_end), Some(entry)) = (after_capabilities, after_modes, entry) else { return words };
    if widths.is_empty() {
        return words;
    }
    let mut capability = vec![(2 << 16) | OP_CAPABILITY, CAPABILITY_SIGNED_ZERO_INF_NAN_PRESERVE];
    capability.extend(extension("SPV_KHR_float_controls"));
    let modes: Vec<u32> = widths.iter().flat_map(|&w| [(4 << 16) | OP_EXECUTION_MODE, entry, MODE_SIGNED_ZERO_INF_NAN_PRESERVE, w]).collect();
    let mut out = Vec::with_capacity(words.len() + capability.len() + modes.len());
    out.extend_from_slice(&words[..caps_end]);
    out.extend(capability);
    out.extend_from_slice(&words[caps_end..modes_end]);
    out.extend(modes);
    out.extend_from_slice(&words[modes_end..]);
    out
}

/// An OpExtension instruction naming `name`.
fn extension(name: &str) -> Vec<u32> {
    let mut bytes = name.as_bytes().to_vec();
    bytes.resize((bytes.len() / 4 + 1) * 4, 0);
    let mut out = vec![(((1 + bytes.len() / 4) as u32) << 16) | OP_EXTENSION];
    out.extend(bytes.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])));
    out
}

#[cfg(test)]
pub mod tests {
    use super::*;

    /// Runs `spirv-val --target-env vulkan1.2` on `words` when the tool is installed.
    pub fn spirv_val(words: &[u32]) {
        let tool = std::path::Path::new("/usr/bin/spirv-val");
        if !tool.exists() {
            return;
        }
        let path = std::env::temp_dir().join(format!(
            "ferrocl-{}-{:?}.spv",
            std::process::id(),
            std::thread::current().id()
        ));
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(&path, bytes).unwrap();
        let out = std::process::Command::new(tool)
            .args(["--target-env", "vulkan1.2"])
            .arg(&path)
            .output()
            .unwrap();
        assert!(out.status.success(), "spirv-val {}: {}", path.display(), String::from_utf8_lossy(&out.stderr));
        if std::env::var_os("FERROCL_KEEP_SPV").is_none() {
            let _ = std::fs::remove_file(&path);
        }
    }

    /// A module of `main` (the entry point, large) calling large function 101 twice, large
    /// function 102 once and small function 103 twice: only 101 is kept a call.
    #[test]
    fn only_large_functions_called_from_several_places_stay_calls() {
        let function = |id: u32, len: usize, body: &[u32]| {
            let mut f = vec![(5 << 16) | OP_FUNCTION, 1, id, 0, 2];
            f.extend(std::iter::repeat_n(1 << 16, len)); // OpNop
            f.extend_from_slice(body);
            f.push((1 << 16) | OP_FUNCTION_END);
            f
        };
        let call = |result: u32, callee: u32| [(4 << 16) | OP_FUNCTION_CALL, 1, result, callee];
        let main_body: Vec<u32> = [call(10, 101), call(11, 101), call(12, 102), call(13, 103), call(14, 103)].concat();
        let functions = [function(100, LARGE_FUNCTION, &main_body), function(101, LARGE_FUNCTION, &[]), function(102, LARGE_FUNCTION, &[]), function(103, 10, &[])];
        // header, OpEntryPoint GLCompute %100
        let mut words = vec![0x0723_0203, 0x0001_0300, 0, 200, 0, (3 << 16) | OP_ENTRY_POINT, 5, 100];
        let mut controls = Vec::new();
        for f in &functions {
            controls.push(words.len() + 3);
            words.extend(f);
        }
        let words = dont_inline(words);
        let marked: Vec<u32> = controls.iter().map(|&at| words[at] & FUNCTION_CONTROL_DONT_INLINE).collect();
        assert_eq!(marked, [0, FUNCTION_CONTROL_DONT_INLINE, 0, 0]);
    }

    #[test]
    fn ir_the_writer_cannot_write_is_an_error() {
        // `x = x + 1` with the load never emitted: naga's validator accepts it (it checks
        // only a statement's operands), its spv writer panics.
        use naga::{Expression as E, Literal, Span};
        let mut module = naga::Module::default();
        let int = module.types.insert(naga::Type { name: None, inner: naga::TypeInner::Scalar(naga::Scalar::I32) }, Span::UNDEFINED);
        let mut f = naga::Function::default();
        let x = f.local_variables.append(naga::LocalVariable { name: None, ty: int, init: None }, Span::UNDEFINED);
        let ptr = f.expressions.append(E::LocalVariable(x), Span::UNDEFINED);
        let load = f.expressions.append(E::Load { pointer: ptr }, Span::UNDEFINED);
        let one = f.expressions.append(E::Literal(Literal::I32(1)), Span::UNDEFINED);
        let sum = f.expressions.append(E::Binary { op: naga::BinaryOperator::Add, left: load, right: one }, Span::UNDEFINED);
        f.body.push(naga::Statement::Emit(f.expressions.range_from(sum.index())), Span::UNDEFINED);
        f.body.push(naga::Statement::Store { pointer: ptr, value: sum }, Span::UNDEFINED);
        module.entry_points.push(naga::EntryPoint {
            name: "main".into(),
            stage: naga::ShaderStage::Compute,
            early_depth_test: None,
            workgroup_size: [1, 1, 1],
            workgroup_size_overrides: None,
            function: f,
            mesh_info: None,
            task_payload: None,
            incoming_ray_payload: None,
        });
        let info = validate(&module, &crate::compiler::lower::tests::target()).unwrap_or_else(|e| panic!("{e}"));
        let finish = Finish { preserve_signed_zeros: true, ..Finish::default() };
        let err = write(&module, &info, &Default::default(), &finish).expect_err("the writer cannot write this");
        assert!(err.starts_with("internal compiler error"), "{err}");
    }

    #[test]
    fn decorations_go_before_the_first_one() {
        // header, OpDecorate %9 Binding 0, OpVariable %ptr %9 StorageBuffer, OpVariable Private,
        // OpFAdd %float %11 %a %b, OpIAdd %int %12 %a %b
        let words = vec![
            0x0723_0203, 0x0001_0300, 0, 20, 0,
            (4 << 16) | OP_DECORATE, 9, 33, 0,
            (4 << 16) | OP_VARIABLE, 8, 9, STORAGE_CLASS_STORAGE_BUFFER,
            (4 << 16) | OP_VARIABLE, 8, 10, 6,
            (5 << 16) | 129, 7, 11, 1, 2,
            (5 << 16) | 128, 7, 12, 1, 2,
        ];
        let out = decorate(words.clone(), true, &[], false);
        assert_eq!(&out[5..11], &[(3 << 16) | OP_DECORATE, 9, DECORATION_ALIASED, (3 << 16) | OP_DECORATE, 11, DECORATION_NO_CONTRACTION]);
        assert_eq!(&out[11..], &words[5..]);
        let out = decorate(words.clone(), false, &[], false);
        assert_eq!(&out[5..8], &[(3 << 16) | OP_DECORATE, 11, DECORATION_NO_CONTRACTION]);
        let out = decorate(words.clone(), false, &[0], false);
        assert_eq!(&out[5..11], &[(3 << 16) | OP_DECORATE, 9, DECORATION_RESTRICT, (3 << 16) | OP_DECORATE, 11, DECORATION_NO_CONTRACTION]);
        assert_eq!(decorate(words.clone(), false, &[1], false)[5..8], out[8..11]);
    }
}
