//! The compiler fuzzed in-process: programs mutated from the corpus and hostile programs made
//! up here, each of which must either build, with every kernel turning into SPIR-V, or fail with
//! a diagnostic that has a line and a column — never a panic, an internal compiler error, or a
//! build that does not end within its time budget.
//!
//! Deterministic: program `i` comes from seed `i`, so a failure names a seed that reproduces it.
//! `FERROCL_FUZZ_SECONDS` (default 60) bounds the run; `FERROCL_FUZZ_FIRST` starts elsewhere.
use ferrocl::compiler::{build, BuildError, Target};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const CORPUS: [&str; 17] = [
    include_str!("kernels/builtins.cl"),
    include_str!("kernels/control.cl"),
    include_str!("kernels/conversions.cl"),
    include_str!("kernels/double.cl"),
    include_str!("kernels/goto.cl"),
    include_str!("kernels/half.cl"),
    include_str!("kernels/overloads.cl"),
    include_str!("kernels/language.cl"),
    include_str!("kernels/memory.cl"),
    include_str!("kernels/misc.cl"),
    include_str!("kernels/mixed.cl"),
    include_str!("kernels/printf.cl"),
    include_str!("kernels/programs.cl"),
    include_str!("kernels/scalars.cl"),
    include_str!("kernels/structs.cl"),
    include_str!("kernels/syntax.cl"),
    include_str!("kernels/vectors.cl"),
];

/// Tokens the mutator inserts: punctuation that unbalances, keywords in wrong places, the
/// address spaces, extreme literals, directives.
const VOCABULARY: [&str; 50] = [
    "(", ")", "{", "}", "[", "]", ";", ",", "*", "&", "-", "/", "%", "<<", ">>", "?", ":", "=", "++", "->", ".", "#",
    "__local", "__global", "__constant", "__private", "kernel", "struct", "union", "typedef", "goto", "return",
    "break", "sizeof", "int4", "double", "half", "void", "0", "-1", "0x7fffffff", "0xffffffffffffffffUL", "1e308",
    "1.0f", "'\\0'", "\"s\"", "#define X(a) a a", "#if 1", "printf", "\"%v4hld %s %p %.3a\"",
];

/// Largest build time accepted, and the deadline after which a build counts as hung.
const BUDGET: Duration = Duration::from_secs(20);

fn target() -> Target {
    Target {
        address_bits: 32,
        int64: true,
        int64_atomics: true,
        int16: true,
        fp64: true,
        fp16: true,
        storage_8bit: true,
        storage_16bit: true,
        max_push_constants_size: 128,
        max_constant_args: 8,
        max_constant_buffer_size: 65536,
        max_uniform_buffer_range: 65536,
        max_work_group_size: 256,
        max_work_item_sizes: [256, 256, 64],
        local_mem_size: 32768,
        subgroup_size: 32,
        subgroups: true,
        images: true,
        opencl_c_version: 300,
        clamp_array_indices: true,
        ordering_by_rmw: false,
        preserve_signed_zeros: true,
        fused_fma: true,
        guard_endless_loops: true,
        no_signed_wrap: true,
    }
}

/// xorshift64*: small, deterministic, good enough to pick mutations.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Splits source into rough tokens (words, numbers, single punctuation) with their spacing, so
/// mutations act on tokens and joining them gives back the text.
fn tokens(src: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = src.as_bytes();
    let class = |b: u8| if b.is_ascii_alphanumeric() || b == b'_' || b == b'.' { 1 } else if b.is_ascii_whitespace() { 2 } else { 3 };
    for i in 1..=bytes.len() {
        if i == bytes.len() || class(bytes[i]) != class(bytes[i - 1]) || class(bytes[i]) == 3 {
            out.push(&src[start..i]);
            start = i;
        }
    }
    out
}

/// One to four mutations of a corpus file.
fn mutate(rng: &mut Rng) -> String {
    let src = CORPUS[rng.below(CORPUS.len())];
    let mut toks: Vec<String> = tokens(src).into_iter().map(str::to_string).collect();
    for _ in 0..1 + rng.below(4) {
        let n = toks.len();
        if n == 0 {
            break;
        }
        let at = rng.below(n);
        match rng.below(7) {
            0 => {
                let len = 1 + rng.below(8);
                toks.drain(at..(at + len).min(n));
            }
            1 => toks.insert(at, format!(" {} ", VOCABULARY[rng.below(VOCABULARY.len())])),
            2 => {
                let other = rng.below(n);
                toks.swap(at, other);
            }
            3 => {
                let len = 1 + rng.below(40);
                let copy: Vec<String> = toks[at..(at + len).min(n)].to_vec();
                let to = rng.below(n);
                toks.splice(to..to, copy);
            }
            4 if toks[at].starts_with(|c: char| c.is_ascii_digit()) => {
                toks[at] = ["0", "4294967296", "0x80000000", "-2147483648", "1e-320", "3.4e39f", "07777"][rng.below(7)].into();
            }
            5 => toks.truncate(at),
            _ => {
                let other = rng.below(n);
                toks[at] = toks[other].clone();
            }
        }
    }
    toks.concat()
}

/// Programs no corpus file is close to: deep nesting, long chains, huge arrays, macro bombs.
fn hostile(rng: &mut Rng) -> String {
    let n = 50 + rng.below(400);
    match rng.below(8) {
        0 => format!("kernel void k(global int *o) {{ o[0] = {}1{}; }}", "(".repeat(n), ")".repeat(n)),
        1 => format!("kernel void k(global int *o) {{ o[0] = 1{}; }}", " + o[1]".repeat(n)),
        2 => format!("kernel void k(global int *o) {{ {} o[0] = 1; {} }}", "{ if (o[1]) ".repeat(n), "}".repeat(n)),
        3 => format!("kernel void k(global int *o) {{ int a[{}]; a[o[0]] = 1; o[1] = a[2]; }}", [1usize << 20, 1 << 31, 0, 4096][rng.below(4)]),
        4 => "#define A(x) x x x x\n#define B(x) A(A(A(x)))\n#define C(x) B(B(x))\nkernel void k(global int *o) { C(o[0]++;) }".into(),
        5 => format!("#define R(x) R(x)\n{}kernel void k(global int *o) {{ o[0] = R(1); }}", "#if 1\n".repeat(n.min(200)) + &"#endif\n".repeat(n.min(200))),
        6 => format!("typedef struct {{ {} }} S; kernel void k(global S *s) {{ s[0].f0 = 1; }}", (0..n).map(|i| format!("int f{i};")).collect::<String>()),
        _ => format!("kernel void k(global int *o) {{ int x = 0; {} o[0] = x; }}", (0..n).map(|i| format!("for (int i{i} = 0; i{i} < 2; i{i}++) ")).collect::<String>() + "x++;"),
    }
}

/// What went wrong with one program, if anything.
fn check(source: &str) -> Result<(), String> {
    let target = target();
    let built = catch_unwind(AssertUnwindSafe(|| build(source, "", &target))).map_err(|_| "the build panicked".to_string())?;
    match built {
        Ok((_, program)) => {
            for k in &program.kernels {
                let locals = vec![64u32; k.args().iter().filter(|a| matches!(a.kind, ferrocl::compiler::ArgKind::Local { .. })).count()];
                let spirv = catch_unwind(AssertUnwindSafe(|| k.specialize([64, 1, 1], &locals, &[])))
                    .map_err(|_| format!("specialising kernel {} panicked", k.name()))?;
                spirv.map_err(|e| format!("kernel {}: {e}", k.name()))?;
            }
            Ok(())
        }
        Err(BuildError::InvalidOptions(log)) => Err(format!("options refused: {log}")),
        Err(BuildError::Failed(log)) => diagnosed(&log),
    }
}

/// A failed build's log names each error with a line and a column (`file:line:col: error`),
/// and none is an internal error.
fn diagnosed(log: &str) -> Result<(), String> {
    if log.contains("internal compiler error") {
        return Err(format!("internal compiler error:\n{log}"));
    }
    let located = log.lines().any(|l| {
        let mut parts = l.splitn(4, ':');
        let (_, line, col) = (parts.next(), parts.next(), parts.next());
        [line, col].iter().all(|p| p.is_some_and(|p| !p.is_empty() && p.trim().bytes().all(|b| b.is_ascii_digit())))
            && l.contains("error")
    });
    if located { Ok(()) } else { Err(format!("a failed build without a located error:\n{log}")) }
}

/// Builds `source` on a thread of its own and waits at most `BUDGET` for it.
fn check_in_time(source: String) -> Result<Duration, String> {
    let (tx, rx) = mpsc::channel();
    let start = Instant::now();
    std::thread::spawn(move || {
        let _ = tx.send(check(&source));
    });
    match rx.recv_timeout(BUDGET) {
        Ok(result) => result.map(|()| start.elapsed()),
        Err(_) => Err(format!("the build did not end within {BUDGET:?}")),
    }
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[test]
fn mutated_and_hostile_programs_build_or_fail_with_a_diagnostic() {
    // The compiler's panics this test catches would each print their message: only panics of
    // this test's own thread are printed.
    let default_hook = std::panic::take_hook();
    let this_thread = std::thread::current().id();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().id() == this_thread {
            default_hook(info);
        }
    }));
    let seconds = env_number("FERROCL_FUZZ_SECONDS", 60);
    let first = env_number("FERROCL_FUZZ_FIRST", 0);
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let (mut programs, mut slowest) = (0u64, Duration::ZERO);
    let mut failures = Vec::new();
    let mut seed = first;
    while Instant::now() < deadline && failures.len() < 10 {
        let mut rng = Rng::new(seed);
        let source = if seed % 10 == 9 { hostile(&mut rng) } else { mutate(&mut rng) };
        match check_in_time(source.clone()) {
            Ok(t) => slowest = slowest.max(t),
            Err(e) => failures.push(format!("seed {seed}: {e}\n--- program ---\n{source}\n---")),
        }
        programs += 1;
        seed += 1;
    }
    let _ = std::panic::take_hook();
    println!("fuzz: {programs} programs (seeds {first}..{seed}) in {seconds} s, slowest build {slowest:?}");
    assert!(failures.is_empty(), "{} of {programs} programs failed:\n{}", failures.len(), failures.join("\n"));
}
