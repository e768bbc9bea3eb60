//! Programs that must be accepted (with assertions on the model) and one negative test per
//! rule (message and line:column).

use super::model::*;
use super::{analyze, Options};
use crate::compiler::diag::{Diagnostics, Severity};
use crate::compiler::printf::Piece;
use crate::compiler::Target;

use crate::compiler::test_target as target;

/// Source → lexer → preprocessor (with the predefined macros) → analysis, as the driver runs it.
fn run(src: &str, target: &Target, opts: &Options) -> (Option<Program>, Diagnostics) {
    use crate::compiler::options::BuildOptions;
    use crate::compiler::preprocess::{predefined_macros, preprocess};
    use crate::compiler::source::SourceMap;
    let build = BuildOptions::default();
    let mut sources = SourceMap::default();
    let main = sources.add("main.cl", src);
    let mut d = Diagnostics::default();
    let pp = preprocess(&mut sources, main, &build, &predefined_macros(target, &build), &[], &mut d);
    let p = analyze(&[pp.tokens], target, opts, &mut d);
    (p, d)
}

fn run_default(src: &str) -> (Option<Program>, Diagnostics) {
    run(src, &target(), &Options::default())
}

fn ok(src: &str) -> Program {
    let (p, d) = run(src, &target(), &Options::default());
    assert!(!d.has_errors(), "{:?}", d.list);
    p.expect("a program")
}

fn errors_with(src: &str, target: &Target, opts: &Options) -> Vec<(u32, u32, String)> {
    let (p, d) = run(src, target, opts);
    assert!(p.is_none());
    d.list.into_iter().filter(|d| d.severity == Severity::Error).map(|d| (d.loc.line, d.loc.col, d.message)).collect()
}

fn errors(src: &str) -> Vec<(u32, u32, String)> {
    errors_with(src, &target(), &Options::default())
}

/// Asserts the first error's position and that its message contains `text`.
fn first_error(src: &str, line: u32, col: u32, text: &str) {
    let errs = errors(src);
    let (l, c, m) = errs.first().cloned().unwrap_or_default();
    assert!((l, c) == (line, col) && m.contains(text), "expected {line}:{col} '{text}', got {errs:?}");
}

fn kernel<'a>(p: &'a Program, name: &str) -> &'a Function {
    p.functions.iter().find(|f| f.name == name).expect("function")
}

fn local_ty(f: &Function, i: u32) -> &Type {
    &f.locals[i as usize].ty
}

fn stmt_expr(s: &Stmt) -> &Expr {
    match s {
        Stmt::Expr(e) => e,
        other => panic!("not an expression statement: {other:?}"),
    }
}

fn decl_init(s: &Stmt) -> &Expr {
    match s {
        Stmt::Decl { init: Some(e), .. } => e,
        other => panic!("not an initialised declaration: {other:?}"),
    }
}

fn load_local(e: &Expr) -> Option<u32> {
    match &e.kind {
        ExprKind::Load(p) => match p.kind {
            PlaceKind::Local(LocalId(i)) => Some(i),
            _ => None,
        },
        _ => None,
    }
}

const INT: Type = Type::Scalar(Scalar::Int);
const FLOAT: Type = Type::Scalar(Scalar::Float);

#[test]
fn clinfo_sum_kernel() {
    let p = ok("kernel void sum(global int* restrict out, global const int* restrict in1, global const int* restrict in2) { int i = get_global_id(0); out[i] = in1[i] + in2[i]; }");
    let f = kernel(&p, "sum");
    assert!(f.is_kernel());
    assert_eq!(f.params.len(), 3);
    assert_eq!(f.params[1].type_name, "int*");
    assert!(f.params[0].is_restrict);
    assert_eq!(
        local_ty(f, 1),
        &Type::Pointer { pointee: Box::new(INT), space: Space::Global, quals: Quals { is_const: true, is_volatile: false } }
    );
    // int i = (int)get_global_id((uint)0): size_t is ulong with 64-bit addresses.
    let init = decl_init(&f.body[0]);
    assert_eq!(init.ty, INT);
    let ExprKind::Convert { value, .. } = &init.kind else { panic!("{init:?}") };
    assert_eq!(value.ty, Type::Scalar(Scalar::ULong));
    let ExprKind::Builtin(Builtin::WorkItem(WorkItemFn::GlobalId), args) = &value.kind else { panic!() };
    assert_eq!((&args[0].kind, &args[0].ty), (&ExprKind::Int(0), &Type::Scalar(Scalar::UInt)));
    // out[i] = in1[i] + in2[i]: a store through Deref(PtrAdd(out, i)).
    let e = stmt_expr(&f.body[1]);
    let ExprKind::Assign { place, value, yields_old: false } = &e.kind else { panic!() };
    assert_eq!(place.space, Space::Global);
    let PlaceKind::Deref(ptr) = &place.kind else { panic!() };
    let ExprKind::PtrAdd(base, index) = &ptr.kind else { panic!() };
    assert_eq!((load_local(base), load_local(index)), (Some(0), Some(3)));
    let ExprKind::Binary(BinaryOp::Add, l, _) = &value.kind else { panic!() };
    assert!(matches!(&l.kind, ExprKind::Load(p) if matches!(p.kind, PlaceKind::Deref(_)) && p.is_const));
}

#[test]
fn local_memory_reduction_with_barrier() {
    let p = ok("kernel void reduce(global const float* in, global float* out, local float* scratch) {
        __local float tile[64];
        size_t lid = get_local_id(0);
        tile[lid] = in[get_global_id(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint s = 32; s > 0; s >>= 1) {
            if (lid < s) tile[lid] += tile[lid + s];
            barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        }
        if (lid == 0) out[get_group_id(0)] = tile[0] + scratch[0];
    }");
    let f = kernel(&p, "reduce");
    assert_eq!(p.workgroup_vars.len(), 1);
    let w = &p.workgroup_vars[0];
    assert_eq!((w.name.as_str(), &w.ty, w.kernel), ("tile", &Type::Array { elem: Box::new(FLOAT), len: 64 }, FuncId(0)));
    assert_eq!(f.workgroup_vars, vec![WorkgroupId(0)]);
    assert_eq!(local_ty(f, 2), &Type::ptr(FLOAT, Space::Local));
    // The __local declaration emits no statement: size_t lid, store, barrier, for, if.
    assert_eq!(f.body.len(), 5);
    let b = stmt_expr(&f.body[2]);
    assert_eq!(b.kind, ExprKind::Builtin(Builtin::Barrier(FenceFlags { local: true, global: false }), vec![]));
    let Stmt::For { init, cond, step, body, .. } = &f.body[3] else { panic!() };
    assert_eq!(init.len(), 1);
    assert_eq!(cond.as_ref().map(|c| &c.ty), Some(&Type::Scalar(Scalar::Bool)));
    let step = step.as_ref().unwrap();
    // s >>= 1: s = s >> (1 & 31), the count folded.
    let ExprKind::Assign { value, .. } = &step.kind else { panic!() };
    let ExprKind::Binary(BinaryOp::Shr, cur, count) = &value.kind else { panic!("{value:?}") };
    assert_eq!((&cur.kind, &count.kind, &count.ty), (&ExprKind::Current, &ExprKind::Int(1), &Type::Scalar(Scalar::UInt)));
    let Stmt::Block(inner) = &**body else { panic!() };
    let Stmt::Expr(e) = &inner[1] else { panic!() };
    assert_eq!(e.kind, ExprKind::Builtin(Builtin::Barrier(FenceFlags { local: true, global: true }), vec![]));
    // tile[lid] += ...: an Index place of a workgroup variable.
    let Stmt::If { then, .. } = &inner[0] else { panic!() };
    let Stmt::Expr(e) = &**then else { panic!() };
    let ExprKind::Assign { place, .. } = &e.kind else { panic!() };
    assert_eq!(place.space, Space::Local);
    assert!(matches!(&place.kind, PlaceKind::Index(b, _) if b.kind == PlaceKind::Workgroup(WorkgroupId(0))));
}

#[test]
fn constant_arrays_become_bytes() {
    let p = ok("constant float coeffs[4] = {1.0f, 2.0f, 0.5f};
        __constant int n = 3 * 2 - 3;
        constant uchar table[] = {1, 2, 255, 256};
        kernel void k(global float* o) { o[0] = coeffs[n - 1]; }");
    assert_eq!(p.constants.len(), 3);
    let mut expect = Vec::new();
    for f in [1.0f32, 2.0, 0.5, 0.0] {
        expect.extend(f.to_le_bytes());
    }
    assert_eq!(p.constants[0].bytes, expect);
    assert_eq!(p.constants[1].bytes, vec![3, 0, 0, 0]);
    assert_eq!(p.constants[2].ty, Type::Array { elem: Box::new(Type::Scalar(Scalar::UChar)), len: 4 });
    assert_eq!(p.constants[2].bytes, vec![1, 2, 255, 0]);
    let e = stmt_expr(&kernel(&p, "k").body[0]);
    let ExprKind::Assign { value, .. } = &e.kind else { panic!() };
    let ExprKind::Load(place) = &value.kind else { panic!() };
    assert_eq!(place.space, Space::Constant);
    assert!(matches!(&place.kind, PlaceKind::Index(b, _) if b.kind == PlaceKind::Constant(ConstId(0))));
}

#[test]
fn struct_union_layout() {
    let p = ok("typedef struct { char c; float4 v; int i; float3 w; short s; } S;
        struct P { char a; int b; } __attribute__((packed));
        union U { int i; char c[6]; };
        kernel void k(global S* s, global struct P* q, global union U* u) { int n = sizeof(S) + sizeof(struct P) + sizeof(union U); }");
    let s = &p.types.records[0];
    assert_eq!(s.name, "S");
    let offsets: Vec<u32> = s.members.iter().map(|m| m.offset).collect();
    assert_eq!(offsets, vec![0, 16, 32, 48, 64]);
    assert_eq!((s.size, s.align), (80, 16));
    let packed = &p.types.records[1];
    assert_eq!((packed.members[1].offset, packed.size, packed.align), (1, 5, 1));
    let u = &p.types.records[2];
    assert!(u.is_union);
    assert_eq!((u.members[1].offset, u.size, u.align), (0, 8, 4));
    // sizeof folds: 80 + 5 + 8.
    assert_eq!(decl_init(&kernel(&p, "k").body[0]).kind, ExprKind::Int(93));
    assert_eq!(kernel(&p, "k").params[0].type_name, "S*");
    assert_eq!(kernel(&p, "k").params[1].type_name, "struct P*");
}

#[test]
fn swizzles_and_vector_literals() {
    let p = ok("kernel void k(global float4* o) {
        float4 v = (float4)(1.0f, (float2)(2.0f, 3.0f), 4);
        v.xy = v.wz;
        float s = v.s3;
        v.hi = (float2)(s);
        o[0] = v;
    }");
    let f = kernel(&p, "k");
    let init = decl_init(&f.body[0]);
    let ExprKind::Vector(parts) = &init.kind else { panic!() };
    assert_eq!(parts.len(), 3);
    assert_eq!((&parts[1].ty, &parts[2].kind), (&Type::Vector(Scalar::Float, 2), &ExprKind::Float(4.0)));
    let e = stmt_expr(&f.body[1]);
    let ExprKind::Assign { place, value, .. } = &e.kind else { panic!() };
    assert!(matches!(&place.kind, PlaceKind::Swizzle(_, c) if c == &vec![0, 1]));
    let ExprKind::Load(src) = &value.kind else { panic!() };
    assert!(matches!(&src.kind, PlaceKind::Swizzle(_, c) if c == &vec![3, 2]));
    let init = decl_init(&f.body[2]);
    assert_eq!(init.ty, FLOAT);
    let e = stmt_expr(&f.body[3]);
    let ExprKind::Assign { place, value, .. } = &e.kind else { panic!() };
    assert!(matches!(&place.kind, PlaceKind::Swizzle(_, c) if c == &vec![2, 3]));
    assert!(matches!(value.kind, ExprKind::Splat(_)));
}

#[test]
fn switch_fall_through() {
    let p = ok("kernel void k(global int* o, int x) {
        int y = 0;
        switch (x) { case 1: y = 1; case 2: case 3: y += 2; break; default: y = 7; }
        o[0] = y;
    }");
    let Stmt::Switch { selector, cases } = &kernel(&p, "k").body[1] else { panic!() };
    assert_eq!(selector.ty, INT);
    assert_eq!(cases.len(), 3);
    assert_eq!((cases[0].values.clone(), cases[0].falls_through, cases[0].body.len()), (vec![1], true, 1));
    assert_eq!((cases[1].values.clone(), cases[1].falls_through, cases[1].body.len()), (vec![2, 3], false, 1));
    assert!(cases[2].is_default && !cases[2].falls_through);
}

#[test]
fn pointer_arithmetic() {
    let p = ok("kernel void k(global float* p, global long* out) {
        global float* q = p + 4;
        q++;
        out[0] = q - p;
        *(q - 1) = 2.0f;
    }");
    let f = kernel(&p, "k");
    assert!(matches!(decl_init(&f.body[0]).kind, ExprKind::PtrAdd(..)));
    let e = stmt_expr(&f.body[1]);
    let ExprKind::Assign { value, yields_old: true, .. } = &e.kind else { panic!() };
    let ExprKind::PtrAdd(cur, one) = &value.kind else { panic!() };
    assert_eq!((&cur.kind, &one.kind), (&ExprKind::Current, &ExprKind::Int(1)));
    let ExprKind::Assign { value, .. } = &stmt_expr(&f.body[2]).kind else { panic!() };
    assert!(matches!(value.kind, ExprKind::PtrDiff(..)));
    assert_eq!(value.ty, Type::Scalar(Scalar::Long));
    let ExprKind::Assign { place, .. } = &stmt_expr(&f.body[3]).kind else { panic!() };
    let PlaceKind::Deref(ptr) = &place.kind else { panic!() };
    let ExprKind::PtrAdd(_, neg) = &ptr.kind else { panic!() };
    assert!(matches!(neg.kind, ExprKind::Unary(UnaryOp::Neg, _)));
}

#[test]
fn implicit_conversions_are_explicit() {
    let p = ok("kernel void k(global int4* o, global float4* f, char c, uint u) {
        int r = c + 1;
        f[0] = f[0] * 2;
        o[0] = f[0] < f[1];
        int b = f[0].x < 2;
        o[1] = o[1] << u;
        uint w = u << 35;
    }");
    let f = kernel(&p, "k");
    let ExprKind::Binary(BinaryOp::Add, l, r) = &decl_init(&f.body[0]).kind else { panic!() };
    assert!(matches!(&l.kind, ExprKind::Convert { .. }) && l.ty == INT);
    assert_eq!(r.kind, ExprKind::Int(1));
    let ExprKind::Assign { value, .. } = &stmt_expr(&f.body[1]).kind else { panic!() };
    let ExprKind::Binary(BinaryOp::Mul, _, two) = &value.kind else { panic!() };
    let ExprKind::Splat(s) = &two.kind else { panic!() };
    assert_eq!((&s.kind, &s.ty), (&ExprKind::Float(2.0), &FLOAT));
    let ExprKind::Assign { value, .. } = &stmt_expr(&f.body[2]).kind else { panic!() };
    assert!(matches!(value.kind, ExprKind::Compare(CmpOp::Lt, ..)));
    assert_eq!(value.ty, Type::Vector(Scalar::Int, 4));
    let cmp = decl_init(&f.body[3]);
    let ExprKind::Compare(CmpOp::Lt, _, two) = &cmp.kind else { panic!() };
    assert_eq!((&cmp.ty, &two.kind, &two.ty), (&INT, &ExprKind::Float(2.0), &FLOAT));
    assert_eq!(decl_init(&ok("kernel void k() { int b = 1.5f < 2; }").functions[0].body[0]).kind, ExprKind::Int(1));
    // Vector shift by a scalar: the count is splatted, converted and masked by 31.
    let ExprKind::Assign { value, .. } = &stmt_expr(&f.body[4]).kind else { panic!() };
    let ExprKind::Binary(BinaryOp::Shl, _, count) = &value.kind else { panic!() };
    let ExprKind::Binary(BinaryOp::BitAnd, _, mask) = &count.kind else { panic!("{count:?}") };
    assert_eq!(count.ty, Type::Vector(Scalar::Int, 4));
    assert!(matches!(&mask.kind, ExprKind::Splat(m) if m.kind == ExprKind::Int(31)));
    let ExprKind::Binary(BinaryOp::Shl, _, count) = &decl_init(&f.body[5]).kind else { panic!() };
    assert_eq!(count.kind, ExprKind::Int(3));
    // Vector elements are not promoted: a char4 count is masked by 7, a scalar char's by 31.
    let p = ok("kernel void k(global char4 *v, global char *c) { v[0] = v[1] << v[2]; c[0] = c[1] << c[2]; }");
    let f = kernel(&p, "k");
    let ExprKind::Assign { value, .. } = &stmt_expr(&f.body[0]).kind else { panic!() };
    let ExprKind::Binary(BinaryOp::Shl, _, count) = &value.kind else { panic!("{value:?}") };
    let ExprKind::Binary(BinaryOp::BitAnd, _, mask) = &count.kind else { panic!("{count:?}") };
    assert!(matches!(&mask.kind, ExprKind::Splat(m) if m.kind == ExprKind::Int(7)), "{mask:?}");
    let ExprKind::Assign { value, .. } = &stmt_expr(&f.body[1]).kind else { panic!() };
    let ExprKind::Convert { value, .. } = &value.kind else { panic!("{value:?}") };
    let ExprKind::Binary(BinaryOp::Shl, _, count) = &value.kind else { panic!("{value:?}") };
    let ExprKind::Binary(BinaryOp::BitAnd, _, mask) = &count.kind else { panic!("{count:?}") };
    assert_eq!(mask.kind, ExprKind::Int(31));
}

#[test]
fn builtins_resolve_overloads() {
    let p = ok("kernel void k(global float4* o, global int* c, global uint* a) {
        float4 v = o[0];
        float4 m = fmax(v, 0.5f);
        float d = dot(v, m);
        int4 n = convert_int4_sat_rte(v);
        uint bits = as_uint(d);
        float4 l = vload4(1, (global float*)o);
        vstore4(l, 0, (global float*)o);
        uint old = atomic_add(a, 1);
        int mn = min(c[0], 3);
        uint ab = abs(c[0]);
        float4 cl = clamp(v, 0.0f, 1.0f);
        float ns = native_sqrt(d);
        int4 gt = isgreater(v, m);
        int anyg = any(gt);
    }");
    let f = kernel(&p, "k");
    let init = |i: usize| decl_init(&f.body[i]);
    let ExprKind::Builtin(Builtin::Math(MathFn::Fmax, Precision::Full), args) = &init(1).kind else { panic!() };
    assert!(matches!(args[1].kind, ExprKind::Splat(_)));
    assert_eq!(init(2).ty, FLOAT);
    assert!(matches!(init(3).kind, ExprKind::Convert { sat: true, rounding: Rounding::Rte, .. }));
    assert_eq!(init(3).ty, Type::Vector(Scalar::Int, 4));
    assert!(matches!(init(4).kind, ExprKind::Bitcast(_)));
    assert!(matches!(init(5).kind, ExprKind::Builtin(Builtin::Vload(4), _)));
    assert!(matches!(stmt_expr(&f.body[6]).kind, ExprKind::Builtin(Builtin::Vstore(4), _)));
    let ExprKind::Builtin(Builtin::Atomic(AtomicOp::Add), args) = &init(7).kind else { panic!() };
    assert_eq!((&args[1].kind, &args[1].ty), (&ExprKind::Int(1), &Type::Scalar(Scalar::UInt)));
    assert!(matches!(init(8).kind, ExprKind::Builtin(Builtin::Int(IntFn::Min), _)));
    assert!(matches!(init(9).kind, ExprKind::Builtin(Builtin::Int(IntFn::Abs), _)));
    assert_eq!(init(9).ty, Type::Scalar(Scalar::UInt));
    assert!(matches!(init(10).kind, ExprKind::Builtin(Builtin::Math(MathFn::Clamp, _), _)));
    assert!(matches!(init(11).kind, ExprKind::Builtin(Builtin::Math(MathFn::Sqrt, Precision::Native), _)));
    assert!(matches!(init(12).kind, ExprKind::Compare(CmpOp::Gt, ..)));
    assert_eq!(init(12).ty, Type::Vector(Scalar::Int, 4));
    assert!(matches!(init(13).kind, ExprKind::Builtin(Builtin::Any, _)));
}

/// Mixed argument types select the overload clang selects, or are errors where clang finds
/// none or several equally good.
#[test]
fn builtin_overloads_resolve_by_every_argument() {
    let p = ok("kernel void k(global uchar *u, global float4 *f, global uint *w) {
        int a = mul24(u[0], 9798);
        int b = mad24(u[0], 3735, 0);
        float4 c = clamp(f[0], 0, 1);
        int d = upsample((short)1, 2);
        float4 e = fmin(1, f[0]);
        uint g = max(w[0], 1u);
        float h = sqrt(2);
    }");
    let f = kernel(&p, "k");
    let init = |i: usize| decl_init(&f.body[i]);
    let arg_types = |i: usize| match &init(i).kind {
        ExprKind::Builtin(_, args) => args.iter().map(|a| a.ty.clone()).collect::<Vec<_>>(),
        other => panic!("{other:?}"),
    };
    assert_eq!(arg_types(0), [INT, INT], "mul24(uchar, int) is the int overload");
    assert_eq!(init(0).ty, INT);
    assert_eq!(arg_types(1), [INT, INT, INT]);
    let ExprKind::Builtin(_, args) = &init(2).kind else { panic!() };
    assert!(matches!(&args[1].kind, ExprKind::Splat(x) if x.ty == FLOAT), "clamp(float4, float, float)");
    assert_eq!(init(3).ty, INT, "upsample(short, ushort)");
    assert_eq!(arg_types(4), [Type::Vector(Scalar::Float, 4), Type::Vector(Scalar::Float, 4)]);
    assert_eq!(arg_types(5), [Type::Scalar(Scalar::UInt), Type::Scalar(Scalar::UInt)]);
    assert_eq!(arg_types(6), [FLOAT], "only float without cl_khr_fp64");
    let error_at = |call: &str, text: &str| {
        let src = format!("kernel void k(global int *i, global uint *w, global uchar *u, global float *f, global long *l) {{\n  f[0] = {call};\n}}");
        first_error(&src, 2, 10, text);
    };
    error_at("max(i[0], w[0])", "call to 'max' is ambiguous: ('int', 'uint') fits 'max(int, int)' and 'max(uint, uint)' equally well");
    error_at("min(u[0], 3)", "call to 'min' is ambiguous");
    error_at("rotate(w[0], 8)", "call to 'rotate' is ambiguous");
    error_at("add_sat(i[0], l[0])", "call to 'add_sat' is ambiguous");
    error_at("clamp(u[0], 0, 255)", "call to 'clamp' is ambiguous");
    error_at("select(f[0], f[0], l[0])", "call to 'select' is ambiguous");
    error_at("mul24(f, 1)", "no overload of 'mul24' takes ('__global float*', 'int')");
    error_at("max((int2)(1), (uint2)(1))", "no overload of 'max' takes ('int2', 'uint2')");
    // With cl_khr_fp64, an integer or a float with a double fits the float and the double
    // overloads equally well.
    let fp64 = Target { fp64: true, ..target() };
    for (call, name) in [("pow(f[0], 2.0)", "pow"), ("sqrt(2)", "sqrt"), ("fmax(f[0], 0.5)", "fmax"), ("vstore_half(1, 0, (global half *)f)", "vstore_half")] {
        let src = format!("kernel void k(global float *f) {{\n  {call};\n}}");
        let errs = errors_with(&src, &fp64, &Options::default());
        assert!(errs.first().is_some_and(|(l, c, m)| (*l, *c) == (2, 3) && m.contains(&format!("call to '{name}' is ambiguous"))), "{call}: {errs:?}");
    }
}

/// Gotos leave no goto or label in the model; a goto to no label is a diagnostic at the goto.
#[test]
fn goto_elimination_and_its_limits() {
    let p = ok("kernel void k(global int *o) {\n  int i = 0;\nagain:\n  for (;;) { switch (i) { case 3: goto done; default: i++; goto again; } }\ndone:\n  o[0] = i;\n}");
    let mut labels = 0;
    let mut body = kernel(&p, "k").body.clone();
    super::visit::walk_mut(&mut body, &mut |n| {
        if let super::visit::Node::Stmt(Stmt::Label(_) | Stmt::Goto(..)) = n {
            labels += 1;
        }
    });
    assert_eq!(labels, 0, "no goto or label reaches the model");
    first_error("kernel void k(global int *o) {\n  goto nowhere;\n}", 2, 3, "use of undeclared label 'nowhere'");
    first_error("kernel void k(global int *o) {\n  a: o[0] = 1;\n  a: o[1] = 2;\n}", 3, 3, "redefinition of label 'a'");
    // Jumps into a loop and into an if branch open those statements into gotos.
    ok("kernel void k(global int *o) {\n  goto in;\n  for (int i = 0; i < 4; i++) {\n  in:\n    o[i] = i;\n  }\n}");
    ok("kernel void k(global int *o) {\n  if (o[0]) goto b;\n  if (o[1]) { b: o[2] = 0; }\n}");
}

#[test]
fn predefined_constants() {
    let p = ok("kernel void k(global float* o, global uint* u, global long* l) {\n\
        o[0] = M_PI_F; o[1] = -FLT_MAX; o[2] = FLT_MIN; o[3] = FLT_EPSILON; o[4] = INFINITY; o[5] = NAN;\n\
        o[6] = M_SQRT1_2_F; o[7] = M_LOG10E_F; o[8] = MAXFLOAT; o[9] = HUGE_VALF;\n\
        u[0] = UINT_MAX; u[1] = INT_MIN; u[2] = USHRT_MAX; u[3] = CHAR_MIN; u[4] = FLT_DIG;\n\
        l[0] = LONG_MIN; l[1] = ULONG_MAX; }");
    let f = kernel(&p, "k");
    let value = |i: usize| match &stmt_expr(&f.body[i]).kind {
        ExprKind::Assign { value, .. } => value.kind.clone(),
        other => panic!("{other:?}"),
    };
    let float = |v: f32| ExprKind::Float(f64::from(v));
    use std::f32::consts;
    let floats = [consts::PI, -f32::MAX, f32::MIN_POSITIVE, f32::EPSILON, f32::INFINITY];
    for (i, v) in floats.into_iter().enumerate() {
        assert_eq!(value(i), float(v), "o[{i}]");
    }
    assert!(matches!(value(5), ExprKind::Float(v) if v.is_nan()));
    let floats = [consts::FRAC_1_SQRT_2, consts::LOG10_E, f32::MAX, f32::INFINITY];
    for (i, v) in floats.into_iter().enumerate() {
        assert_eq!(value(i + 6), float(v), "o[{}]", i + 6);
    }
    let ints: [u64; 7] = [0xffff_ffff, 0x8000_0000, 65535, (-128i32) as u32 as u64, 6, 1 << 63, u64::MAX];
    for (i, v) in ints.into_iter().enumerate() {
        assert_eq!(value(i + 10), ExprKind::Int(v), "integer {i}");
    }
    first_error("kernel void k(global float* o) { o[0] = M_PI; }", 1, 41, "undeclared identifier 'M_PI'");
    let p = ok("kernel void k(global int* o) { global int* p = NULL; bool b = true; if (p != (global int*)0 && b) o[0] = 1; }");
    let f = kernel(&p, "k");
    assert_eq!(decl_init(&f.body[0]).kind, ExprKind::Zero);
    assert_eq!(decl_init(&f.body[0]).ty, Type::ptr(INT, Space::Global));
    assert_eq!(decl_init(&f.body[1]).kind, ExprKind::Int(1));
}

#[test]
fn double_constants_with_fp64() {
    let fp64 = Target { fp64: true, ..target() };
    let (p, d) = run("kernel void k(global double* o) { o[0] = M_PI; o[1] = DBL_EPSILON; o[2] = HUGE_VAL; }", &fp64, &Options::default());
    assert!(!d.has_errors(), "{:?}", d.list);
    let p = p.expect("a program");
    let f = kernel(&p, "k");
    let values: Vec<ExprKind> = f.body.iter().take(3).map(|s| match &stmt_expr(s).kind {
        ExprKind::Assign { value, .. } => value.kind.clone(),
        other => panic!("{other:?}"),
    }).collect();
    assert_eq!(values, [std::f64::consts::PI, f64::EPSILON, f64::INFINITY].map(ExprKind::Float));
}

#[test]
fn helpers_come_before_callers() {
    let p = ok("float twice(float x) { return x * 2; }
        float quad(float x) { return twice(twice(x)); }
        kernel void k(global float* o) { o[0] = quad(o[0]); }");
    let names: Vec<&str> = p.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, vec!["twice", "quad", "k"]);
    let Stmt::Return(Some(e)) = &p.functions[1].body[0] else { panic!() };
    assert!(matches!(e.kind, ExprKind::Call(FuncId(0), _)));
    let ExprKind::Assign { value, .. } = &stmt_expr(&p.functions[2].body[0]).kind else { panic!() };
    assert!(matches!(value.kind, ExprKind::Call(FuncId(1), _)));
}

// ---- Address-space rules A1–A17 -------------------------------------------------------------

#[test]
fn a1_names_with_and_without_underscores() {
    let p = ok("kernel void k(__global int* a, global int* b, __local int* c, local int* d, __constant int* e, constant int* f) { private int x = 1; __private int y = 2; }");
    let f = kernel(&p, "k");
    let spaces: Vec<Space> = (0..6).map(|i| match local_ty(f, i) {
        Type::Pointer { space, .. } => *space,
        _ => panic!(),
    }).collect();
    use Space::*;
    assert_eq!(spaces, vec![Global, Global, Local, Local, Constant, Constant]);
}

#[test]
fn a2_reserved_names() {
    first_error("kernel void k() {\n  int local = 0;\n}", 2, 7, "'local' is a reserved address-space qualifier");
    first_error("kernel void k(global int* __constant) {}", 1, 27, "'__constant' is a reserved");
}

#[test]
fn a3_parameters_are_private() {
    first_error("void f(global int x) {}", 1, 8, "parameter 'x' cannot be declared in the __global address space");
    first_error("kernel void k(global int* p,\n  local int n) {}", 2, 3, "parameter 'n' cannot be declared in the __local address space");
    ok("void f(private int x) {} kernel void k() { f(1); }");
}

#[test]
fn a4_kernel_pointers_need_a_named_space() {
    first_error("kernel void k(int* p) {}", 1, 20, "pointer argument 'p' must point to __global, __local or __constant memory, not __private (an unqualified pointer points to __private)");
    first_error("kernel void k(private float* p) {}", 1, 30, "must point to __global, __local or __constant");
}

#[test]
fn a5_no_conversion_between_spaces() {
    first_error("kernel void k(global int* g, local int* l) {\n  l = g;\n}", 2, 7, "assignment changes the address space of a pointer: '__global int*' to '__local int*'");
    first_error("kernel void k(global int* g) {\n  local int* l = (local int*)g;\n}", 2, 18, "casting '__global int*' to '__local int*' converts between address spaces");
    first_error("void f(global int* p) {}\nkernel void k(constant int* c) { f(c); }", 2, 36, "argument 1 of 'f' changes the address space");
}

#[test]
fn a6_local_only_at_kernel_outermost_scope() {
    first_error("void f() {\n  local int x;\n}", 2, 3, "can only be declared in a kernel function");
    first_error("kernel void k() {\n  if (1) { __local int x; }\n}", 2, 12, "outermost scope of the kernel, not in a nested block");
}

#[test]
fn a7_local_cannot_be_initialized() {
    first_error("kernel void k() {\n  local float a = 1;\n}", 2, 15, "__local variable 'a' cannot be initialized");
    ok("kernel void k() { local float b; b = 1; }");
}

#[test]
fn a9_constant_needs_initializer_and_is_read_only() {
    first_error("constant int c;", 1, 14, "__constant variable 'c' must be initialized");
    first_error("constant int c = 1;\nkernel void k() { c = 2; }", 2, 21, "cannot write to __constant memory");
    first_error("kernel void k(constant int* p) {\n  p[0] = 1;\n}", 2, 8, "cannot write to __constant memory");
    first_error("kernel void k(global int* o) {\n  int x = o[0];\n  constant int c = x;\n}", 3, 20, "not a compile-time constant");
    let p = ok("kernel void k(global int* o) { constant int c[2] = {5, 6}; o[0] = c[1]; }");
    assert_eq!(kernel(&p, "k").own_constants, vec![ConstId(0)]);
}

#[test]
fn a10_constant_argument_count_and_size() {
    let args: Vec<String> = (0..9).map(|i| format!("constant int* c{i}")).collect();
    let reads: Vec<String> = (0..9).map(|i| format!("c{i}[0]")).collect();
    let src = format!("kernel void k({}) {{ int x = {}; }}", args.join(", "), reads.join(" + "));
    first_error(&src, 1, 13, "kernel 'k' uses 9 constant arguments (__constant pointer arguments and __constant variables), more than the device limit of 8 (CL_DEVICE_MAX_CONSTANT_ARGS)");
    // Arguments the kernel never reads are never bound (CTS get_kernel_arg_info declares 128).
    ok(&format!("kernel void k({}) {{}}", args.join(", ")));
    // Seven arguments, one read through a helper, plus two program-scope constants used there:
    // the constants share one buffer, 8 in all.
    let with_args = |n: usize| {
        let args: Vec<String> = (0..n).map(|i| format!("constant int* c{i}")).collect();
        let reads: Vec<String> = (1..n).map(|i| format!("c{i}[0]")).collect();
        format!(
            "constant int a = 1;\nconstant int b = 2;\nint h(constant int* p) {{ return a + b + p[0]; }}\nkernel void k({}) {{ int x = h(c0) + {}; }}",
            args.join(", "),
            reads.join(" + ")
        )
    };
    assert!(kernel(&ok(&with_args(7)), "k").packs_constants);
    assert!(!kernel(&ok(&with_args(5)), "k").packs_constants);
    first_error(&with_args(8), 4, 13, "uses 9 constant arguments");
    first_error(
        "constant uchar big[40000] = {1};\nconstant uchar big2[40000] = {1};\nkernel void k(global uchar* o) { o[0] = big[0] + big2[0]; }",
        3,
        13,
        "uses 80000 bytes of __constant data, more than the device limit of 65536 bytes",
    );
    first_error("constant uchar big[70000] = {1};", 1, 16, "'big' takes 70000 bytes, more than the device limit of 65536 bytes");
}

#[test]
fn a12_program_scope_variables_are_constant_or_in_opencl_c_3_global() {
    first_error("int g = 1;", 1, 5, "program-scope variable 'g' must be declared in the __constant address space");
    let opts = Options { cl_std: 300, ..Options::default() };
    let (p, d) = run("global int g; int h = 2; extern global int g; kernel void k() { g = h; }", &target(), &opts);
    assert!(p.is_some() && !d.has_errors(), "{:?}", d.list);
    let errs = errors_with("extern global int g; kernel void k() { g = 1; }", &target(), &opts);
    assert_eq!((errs[0].0, errs[0].1, errs[0].2.as_str()), (1, 19, "'g' is declared extern but never defined"));
    let errs = errors_with("global int g = 1; global int g = 2;", &target(), &opts);
    assert_eq!((errs[0].0, errs[0].1, errs[0].2.as_str()), (1, 30, "redefinition of 'g'"));
}

#[test]
fn a13_return_type_qualifiers() {
    first_error("private int f() { return 1; }", 1, 1, "return type of 'f' cannot be qualified with __private");
    first_error("local int * private g(local int* p) { return p; }", 1, 13, "return type of 'g' cannot be qualified with __private");
    ok("local int* f(local int* p) { return p; } kernel void k(local int* l) { f(l)[0] = 1; }");
}

#[test]
fn a16_pointer_size_follows_address_bits() {
    let p = ok("kernel void k(global ulong* o) { o[0] = sizeof(global int*) + sizeof(size_t); }");
    let ExprKind::Assign { value, .. } = &stmt_expr(&kernel(&p, "k").body[0]).kind else { panic!() };
    assert_eq!(value.kind, ExprKind::Int(16));
    let t32 = Target { address_bits: 32, ..target() };
    let (p, d) = run("kernel void k(global uint* o) { o[0] = sizeof(local char*) + sizeof(size_t); }", &t32, &Options::default());
    assert!(!d.has_errors(), "{:?}", d.list);
    let p = p.unwrap();
    let ExprKind::Assign { value, .. } = &stmt_expr(&p.functions[0].body[0]).kind else { panic!() };
    assert_eq!(value.kind, ExprKind::Int(8));
}

#[test]
fn a17_generic_space_in_opencl_c_3() {
    first_error("void f(generic int* p) {}", 1, 8, "the generic address space needs OpenCL C 2.0 or 3.0");
    let opts = Options { cl_std: 300, ..Options::default() };
    let (p, d) = run(
        "int get(int *p) { return *p; }
         kernel void k(global int *g) { local int l; int x = 1; generic int *q = &x; g[0] = get(g) + get(&l) + *q;
             if (to_local(q) || !to_private(q) || get_fence(g) != CLK_GLOBAL_MEM_FENCE) g[1] = 0; }",
        &target(),
        &opts,
    );
    assert!(p.is_some() && !d.has_errors(), "{:?}", d.list);
    let errs = errors_with("kernel void k(int *p) {}", &target(), &opts);
    assert!(errs[0].2.contains("not __generic (an unqualified pointer points to the generic address space)"), "{errs:?}");
    let errs = errors_with("kernel void k(global int *g) { generic int *q = g; constant int *c = (constant int *)q; }", &target(), &opts);
    assert!(errs[0].2.contains("converts between address spaces"), "{errs:?}");
}

// ---- Other checks --------------------------------------------------------------------------

#[test]
fn kernel_signature_rules() {
    first_error("kernel int k() { return 1; }", 1, 12, "kernel function 'k' must return void");
    first_error("kernel void k(bool b) {}", 1, 20, "argument 'b' cannot have type 'bool'");
    first_error("kernel void k(size_t n) {}", 1, 22, "argument 'n' cannot have type 'size_t'");
    first_error("kernel void k(half h) {}", 1, 20, "'half' values require the cl_khr_fp16 extension");
    ok("kernel void k(global half* h) { vstore_half(1.0f, 0, h); }");
    first_error("kernel void k(global half* h, global float* f) {\n  f[0] = h[0];\n}", 2, 10, "'half' values require the cl_khr_fp16 extension");
    let fp16 = Target { fp16: true, ..target() };
    let (p, d) = run("kernel void k(global half* h, half x) { h[0] = h[1] * x; }", &fp16, &Options::default());
    assert!(p.is_some(), "{:?}", d.list);
}

#[test]
fn calls_are_checked() {
    first_error("kernel void k() {\n  foo(1);\n}", 2, 3, "call to undeclared function 'foo'");
    first_error("int f(int a) { return a; }\nkernel void k() { f(1, 2); }", 2, 19, "function 'f' takes 1 argument(s), but 2 were given");
    first_error("int f(int a);\nkernel void k() { f(1); }", 2, 19, "function 'f' is declared but never defined");
    first_error("int f(int a) {\n  return f(a - 1);\n}", 2, 10, "recursion is not supported in OpenCL C: 'f' calls itself");
    first_error(
        "int f(int x);\nint g(int x) { return f(x); }\nint f(int x) { return g(x); }\nkernel void k(global int* o) { o[0] = g(1); }",
        2,
        23,
        "recursion is not supported in OpenCL C: 'g' calls 'f', which is on the call chain",
    );
    first_error("kernel void k(global float4* o) { o[0] = sqrt(o[0], 1); }", 1, 42, "'sqrt' takes 1 argument(s), but 2 were given");
    first_error("kernel void k(global float4* o, global int4* i) { o[0] = fmin(o[0], i[0]); }", 1, 58, "no overload of 'fmin'");
}

#[test]
fn types_and_returns_are_checked() {
    first_error("kernel void k() {\n  double d = 1.0;\n}", 2, 3, "type 'double' requires the cl_khr_fp64 extension");
    first_error("int f() {\n  return;\n}", 2, 3, "non-void function must return a value");
    let (_, d) = run("int f(int x) { if (x) return 1; }", &target(), &Options::default());
    assert_eq!(d.list[0].message, "control may reach the end of non-void function 'f'");
    assert_eq!(d.list[0].severity, Severity::Warning);
    let (_, d) = run("int f(int x) { if (x) { return 1; } else return 2; }", &target(), &Options::default());
    assert!(d.list.is_empty());
    // Statements after a return are never reached (pyopencl-complex.h: `return x; ;`).
    let (_, d) = run("int f(int x) { return x; ; }", &target(), &Options::default());
    assert!(d.list.is_empty());
    first_error("kernel void k(global float4* o, global int4* i) {\n  o[0] = i[0];\n}", 2, 10, "cannot convert 'int4' to 'float4' implicitly");
    first_error("kernel void k() {\n  int x = y;\n}", 2, 11, "use of undeclared identifier 'y'");
    first_error("kernel void k(global const int* p) {\n  p[1] = 2;\n}", 2, 8, "cannot assign to a const-qualified location");
    first_error("kernel void k(const int n) {\n  n++;\n}", 2, 4, "cannot assign to a const-qualified location");
    first_error("kernel void k() {\n  int x;\n  float x;\n}", 3, 9, "redefinition of 'x'");
    first_error("kernel void k() { float4 v; v.xx = (float2)(1.0f, 2.0f); }", 1, 34, "repeats a component");
    first_error("kernel void k() { float2 v; float f = v.z; }", 1, 41, "out of range");
}

#[test]
fn several_errors_are_reported() {
    let errs = errors("kernel void k() {\n  int a = b;\n  int c = d;\n}");
    assert_eq!(errs.len(), 2);
    assert_eq!((errs[0].0, errs[1].0), (2, 3));
}

#[test]
fn preprocessed_programs() {
    let (p, d) = run_default(
        "#define N 64\n\
         #define SQ(x) ((x) * (x))\n\
         typedef struct { float2 pos; uint id; } Item;\n\
         __kernel __attribute__((reqd_work_group_size(N, 1, 1)))\n\
         void k(__global const Item* restrict items, __global float* out, const uint count) {\n\
           const size_t i = get_global_id(0);\n\
           if (i >= count) return;\n\
           float acc = 0.0f;\n\
           for (uint j = 0u; j < count; ++j) { acc += SQ(items[j].pos.x) * 0.5f + (float)items[j].id; }\n\
           out[i] = acc > 1e3f ? 1e3f : acc;\n\
         }\n",
    );
    assert!(!d.has_errors(), "{:?}", d.list);
    let p = p.unwrap();
    let f = kernel(&p, "k");
    let FunctionKind::Kernel(attrs) = &f.kind else { panic!() };
    assert_eq!(attrs.reqd_work_group_size, Some([64, 1, 1]));
    assert_eq!(f.params[0].type_name, "Item*");
    assert_eq!(p.types.records[0].size, 16);

    let (_, d) = run_default("kernel void k(global int* p) {\n  p[0] = 1\n}\n");
    let e = d.list.iter().find(|d| d.severity == Severity::Error).unwrap();
    assert_eq!((e.loc.line, e.loc.col), (3, 1));
    assert!(e.message.contains("expected ';'"), "{}", e.message);
}

#[test]
fn deep_nesting_within_the_limit_is_analysed() {
    let chain = format!("x = 1{};", " + x".repeat(120));
    let parens = format!("x = {}x{};", "(".repeat(60), ")".repeat(60));
    let blocks = format!("{}x = 2;{}", "{".repeat(100), "}".repeat(100));
    let ifs = format!("{}x = 3;", "if (x) ".repeat(60));
    let src = format!("kernel void k(global int* o) {{ int x = 0; {chain} {parens} {blocks} {ifs} o[0] = x; }}");
    let (p, d) = run(&src, &target(), &Options::default());
    assert!(!d.has_errors(), "{:?}", d.list);
    assert!(p.is_some());
}

#[test]
fn huge_types_are_rejected() {
    first_error("kernel void k() { int a[65536][65536][2]; }", 1, 24, "array is too large");
    first_error("kernel void k() { int a[100000] = {1}; }", 1, 35, "arrays of more than 65536 elements");
    let stars = "*".repeat(20);
    let errs = errors(&format!("kernel void k() {{ int {stars}p; }}"));
    assert!(errs[0].2.contains("declarator too complex"), "{errs:?}");
    let typedefs: String = (0..40).map(|i| format!("typedef T{i}* T{};\n", i + 1)).collect();
    let errs = errors(&format!("typedef int T0;\n{typedefs}"));
    assert!(errs[0].2.contains("type nesting too deep"), "{errs:?}");
}

/// Random token soup must give diagnostics, never a panic.
#[test]
fn garbage_never_panics() {
    let words = [
        "kernel", "void", "k", "(", ")", "{", "}", "global", "int", "*", "p", "[", "]", "=", ";", "1",
        "float4", ".", "xyzw", "+", "-", "<<", "?", ":", "struct", "S", "switch", "case", "default",
        "for", "while", "do", "if", "else", "return", "sizeof", "constant", "local", "(float4)",
        "barrier", "get_global_id", ",", "typedef", "__attribute__", "((", "))", "enum", "0x7fffffff",
        "1.5f", "&", "->", "++", "vload4", "atomic_add", "convert_int4", "as_float", "fract", "shuffle2",
        "ldexp", "isordered", "\"s\"", "char", "[]", "nan", "(uint4)", "lgamma_r", "INFINITY", "M_PI_F",
    ];
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..300 {
        let mut src = String::new();
        for _ in 0..60 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            src.push_str(words[(seed % words.len() as u64) as usize]);
            src.push(' ');
        }
        let _ = run(&src, &target(), &Options::default());
        let _ = run(&format!("kernel void k(global int* p) {{ {src} }}"), &target(), &Options::default());
    }
}

#[test]
fn attributes_and_images() {
    let p = ok("__kernel __attribute__((work_group_size_hint(8, 4, 1))) __attribute__((vec_type_hint(float4)))
        void k(global float* o) {}");
    let FunctionKind::Kernel(a) = &p.functions[0].kind else { panic!() };
    assert_eq!((a.work_group_size_hint, a.vec_type_hint.as_deref(), a.reqd_work_group_size), (Some([8, 4, 1]), Some("float4"), None));
    first_error("kernel __attribute__((reqd_work_group_size(2048, 1, 1))) void k() {}", 1, 23, "2048 work-items, more than the device's maximum work-group size 1024");
    let p = ok("kernel void k(image2d_t a, __write_only image3d_t b) {}");
    assert_eq!(local_ty(&p.functions[0], 0), &Type::Image(ImageDim::D2, ImageAccess::Read));
    assert_eq!(local_ty(&p.functions[0], 1), &Type::Image(ImageDim::D3, ImageAccess::Write));
}

/// OpenCL C 1.2 §6.9 (images and samplers only as arguments and constants, no operations on
/// them), §6.12.14 (the image built-ins), and what this device does not have.
#[test]
fn image_and_sampler_rules() {
    let p = ok("constant sampler_t s = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR;
        float4 f(read_only image2d_t i, sampler_t t) { return read_imagef(i, t, (float2)(0.5f)); }
        kernel void k(read_only image2d_t img, global float4 *o) { const sampler_t n = 0; o[0] = f(img, s) + f(img, n) + f(img, 4); }");
    let Stmt::Expr(store) = &kernel(&p, "k").body[0] else { panic!() };
    let ExprKind::Assign { value, .. } = &store.kind else { panic!() };
    let ExprKind::Binary(_, sum, third) = &value.kind else { panic!() };
    let ExprKind::Call(_, args) = &third.kind else { panic!("{third:?}") };
    assert_eq!((&args[1].kind, &args[1].ty), (&ExprKind::Int(4), &Type::Sampler), "an integer constant becomes a sampler");
    let ExprKind::Binary(_, first, _) = &sum.kind else { panic!() };
    let ExprKind::Call(_, args) = &first.kind else { panic!() };
    assert_eq!(args[1].kind, ExprKind::Int(0x1 | 0x6 | 0x10), "a sampler constant is its bits");
    let k = |body: &str| format!("kernel void k(read_only image2d_t img, write_only image2d_t w, sampler_t s, global float4 *o) {{\n{body}\n}}");
    first_error("kernel void k(read_write image2d_t img) {}", 1, 15, "read_write images are not supported");
    first_error("kernel void k(image1d_buffer_t img, sampler_t s, global float4 *o) { o[0] = read_imagef(img, s, 0); }", 1, 77, "no overload of 'read_imagef' takes ('read_only image1d_buffer_t', 'sampler_t', 'int')");
    first_error("kernel void k(image2d_t *img) {}", 1, 25, "a pointer to 'read_only image2d_t' is not allowed");
    first_error("kernel void k(image2d_t img[2]) {}", 1, 28, "an array of 'read_only image2d_t' is not allowed");
    first_error("struct S { sampler_t s; };", 1, 22, "member 's' of type 'sampler_t' is not allowed");
    first_error("image2d_t f(image2d_t i) { return i; }", 1, 11, "function 'f' returning 'read_only image2d_t' is not allowed");
    first_error("constant sampler_t s;", 1, 20, "sampler 's' must be initialized");
    first_error("global sampler_t s = 0;", 1, 1, "sampler 's' cannot be declared in the __global address space");
    first_error("kernel void k(read_only int x) {}", 1, 15, "access qualifiers apply to images, not to 'int'");
    first_error("constant sampler_t s = 0x40;", 1, 24, "0x40 is not a sampler value");
    first_error("constant sampler_t s = 0xe;", 1, 24, "0xe is not a sampler value");
    first_error(&k("image2d_t i2;"), 2, 11, "'i2': an image can only be a function parameter");
    first_error(&k("int n = 2; sampler_t t = n;"), 2, 26, "a sampler is made only from an integer constant");
    first_error(&k("sampler_t t = s;"), 2, 15, "sampler 't' must be initialized with a constant");
    first_error(&k("s = 0;"), 2, 3, "'sampler_t' cannot be assigned or modified");
    first_error(&k("o[0] = (float4)(s);"), 2, 8, "cannot cast 'sampler_t' to 'float4'");
    first_error(&k("img = img;"), 2, 5, "'read_only image2d_t' cannot be assigned or modified");
    first_error(&k("o[0].x = img + 1;"), 2, 10, "an image ('read_only image2d_t') can only be passed to a function");
    first_error(&k("global void *p = &img;"), 2, 18, "the address of 'read_only image2d_t' is not allowed");
    first_error(&k("o[0] = read_imagef(w, s, (int2)(0));"), 2, 8, "'read_imagef' needs a read_only image, not 'write_only image2d_t'");
    first_error(&k("write_imagef(img, (int2)(0), o[0]);"), 2, 1, "'write_imagef' needs a write_only image, not 'read_only image2d_t'");
    first_error(&k("o[0] = read_imagef(img, s, (int4)(0));"), 2, 8, "no overload of 'read_imagef' takes");
    first_error(&k("o[0] = read_imagef(img, (float2)(0));"), 2, 8, "no overload of 'read_imagef' takes");
    first_error(&k("o[0] = read_imagef(img, 1.0f, (int2)(0));"), 2, 8, "no overload of 'read_imagef' takes");
    first_error(&k("o[0] = read_imageh(img, s, (int2)(0));"), 2, 8, "'read_imageh' needs the cl_khr_fp16 extension");
    first_error(&k("o[0].x = get_image_depth(img);"), 2, 10, "no overload of 'get_image_depth' takes ('read_only image2d_t')");
    first_error(&k("write_imageui(w, (int2)(0), o[0]);"), 2, 1, "no overload of 'write_imageui' takes");
    first_error(&k("o[0].x = s == s;"), 2, 12, "invalid operands: 'sampler_t' and 'sampler_t'");
}

#[test]
fn initializers_enums_and_aggregates() {
    let p = ok("typedef struct { int a; float b[2]; } T;
        union U { uint u; float f; };
        enum Mode { A, B = 5, C };
        constant T table[2] = { { 1, { 2.0f } }, [1] = { .b = { [1] = 3.0f }, .a = C } };
        constant union U bits = { 0x3f800000 };
        kernel void k(global T* out) {
            float m[2][3] = { { 1, 2, 3 }, { 4 } };
            T t = (T){ .a = B };
            global T* p = out;
            p->b[1] = m[1][0] + t.a;
            int i = 0;
            do { i++; if (i == 2) continue; } while (i < 4);
        }");
    let mut expect = Vec::new();
    for w in [1u32, 2.0f32.to_bits(), 0, 6, 0, 3.0f32.to_bits()] {
        expect.extend(w.to_le_bytes());
    }
    assert_eq!(p.constants[0].bytes, expect);
    assert_eq!(p.constants[1].bytes, 0x3f80_0000u32.to_le_bytes().to_vec());
    let f = kernel(&p, "k");
    let m = decl_init(&f.body[0]);
    let ExprKind::Aggregate(rows) = &m.kind else { panic!() };
    let ExprKind::Aggregate(second) = &rows[1].kind else { panic!() };
    assert_eq!((&second[0].kind, &second[1].kind), (&ExprKind::Float(4.0), &ExprKind::Zero));
    let ExprKind::Aggregate(fields) = &decl_init(&f.body[1]).kind else { panic!() };
    assert_eq!((&fields[0].kind, &fields[1].kind), (&ExprKind::Int(5), &ExprKind::Zero));
    let ExprKind::Assign { place, .. } = &stmt_expr(&f.body[3]).kind else { panic!() };
    let PlaceKind::Index(member, _) = &place.kind else { panic!() };
    assert!(matches!(&member.kind, PlaceKind::Member(base, 1) if matches!(base.kind, PlaceKind::Deref(_))));
}

#[test]
fn enumerators_past_64_bits_are_diagnosed() {
    first_error("enum { X = 0xffffffffffffffffUL,\n Y };", 2, 2, "enumerator value 18446744073709551616 does not fit in 64 bits");
}

#[test]
fn enums_needing_signed_and_64_bit_unsigned_values_are_diagnosed() {
    first_error("kernel void k() {}\nenum E { N = -1, H = 0x8000000000000000UL };", 2, 1, "no integer type holds them all");
}

#[test]
fn enumerators_above_32_bits_need_64_bit_integers() {
    let t = Target { int64: false, ..target() };
    let errs = errors_with("enum { A = 0xffffffffU, B };", &t, &Options::default());
    assert!(errs[0].0 == 1 && errs[0].1 == 25 && errs[0].2.contains("64-bit integers are not supported"), "{errs:?}");
}

#[test]
fn case_labels_of_64_bit_values_are_exact() {
    ok("kernel void k(global ulong *o) { switch (o[0]) { case 0xcbbb9d5dc1059ed8UL: o[1] = 1; } }");
}

#[test]
fn swizzles_mixing_xyzw_and_rgba_are_diagnosed() {
    first_error("kernel void k(global float4 *p) {\n  p[0].xg = (float2)(1.0f);\n}", 2, 8, "'.xg' mixes the '.xyzw' and '.rgba' component names");
}

#[test]
fn invalid_vector_component_names_are_diagnosed() {
    first_error("kernel void k(global float4 *p) { p[0].s = 1.0f; }", 1, 40, "'.s' selects 0 components");
    first_error("kernel void k(global float4 *p) { p[0].s0g = 1.0f; }", 1, 40, "invalid vector component 'g' in '.s0g'");
}

#[test]
fn components_past_a_3_vector_are_diagnosed() {
    // `.hi` of a float3 may name the fourth slot; `.w` and `.s3` may not.
    ok("kernel void k(global float3 *p) { p[0].hi = p[1].odd; }");
    first_error("kernel void k(global float3 *p) { p[0].w = 1.0f; }", 1, 40, "vector component 3 is out of range for a 3-component vector");
    first_error("kernel void k(global float3 *p) { p[0].a = 1.0f; }", 1, 40, "vector component 3 is out of range for a 3-component vector");
}

#[test]
fn anonymous_members_reach_their_members() {
    let p = ok("typedef union { struct { float x, y; }; struct { float real, imag; }; } cfloat_t;
        kernel void k(global cfloat_t *p) { p[0].imag = p[1].x; }");
    let f = kernel(&p, "k");
    let ExprKind::Assign { place, .. } = &stmt_expr(&f.body[0]).kind else { panic!() };
    // `.imag` is member 1 (the second anonymous struct), then its member 1.
    let PlaceKind::Member(inner, 1) = &place.kind else { panic!("{place:?}") };
    assert!(matches!(inner.kind, PlaceKind::Member(_, 1)), "{inner:?}");
}

#[test]
fn duplicate_members_through_anonymous_members_are_diagnosed() {
    first_error("struct S { int a;\n  union { float b; int a; }; };", 2, 3, "duplicate member 'a'");
}

#[test]
fn a_designator_into_a_part_given_whole_replaces_it() {
    ok("typedef struct { float4 v; } S;
        kernel void k(global float4 *o) { S s = { .v = (float4)((float2)(1.0f, 2.0f), (float2)(3.0f, 4.0f)), .v[3] = 9.0f }; o[0] = s.v; }");
}

#[test]
fn a_union_initializer_takes_one_member() {
    let p = ok("typedef union { int i; float f; } U;
        constant U u = { .i = 1, .f = 2.0f };
        kernel void k(global U *o) { o[0] = u; }");
    assert_eq!(p.constants[0].bytes, 2.0f32.to_bits().to_le_bytes().to_vec());
    first_error("typedef union { int i; float f; } U;\nkernel void k() { U u = { .f = 1.0f, 2 }; }", 2, 38, "too many initializers for 'union U'");
}

#[test]
fn elided_initializers_past_the_object_are_diagnosed() {
    first_error("typedef struct { int a[2]; int b; } S;\nkernel void k() { S s = { 1, 2, 3, 4 }; }", 2, 36, "too many initializers for 'struct S'");
}

#[test]
fn designators_that_do_not_fit_the_type_are_diagnosed() {
    first_error("kernel void k() { int a[2] = { .x = 1 }; }", 1, 32, "member designator '.x' for a value of type 'int[2]'");
    first_error("typedef struct { int a; } S;\nkernel void k() { S s = { [0] = 1 }; }", 2, 28, "array designator for a value of type 'struct S'");
    first_error("typedef struct { int a[2]; } S;\nkernel void k() { S s = { .a[2] = 1 }; }", 2, 30, "array index 2 is out of bounds");
}

#[test]
fn bit_fields_are_diagnosed() {
    let errs = errors("typedef struct { unsigned a : 3;\n  int b[2 ? 1 : 2];\n  unsigned : 0; } B;");
    let at: Vec<(u32, u32)> = errs.iter().map(|e| (e.0, e.1)).collect();
    assert_eq!(at, [(1, 29), (3, 12)], "{errs:?}");
    assert!(errs.iter().all(|e| e.2.contains("bit-field members are not supported")), "{errs:?}");
}

#[test]
fn control_flow_errors() {
    first_error("kernel void k() {\n  break;\n}", 2, 3, "'break' outside a loop or switch");
    first_error("kernel void k(int x) { switch (x) { case 1: case 1: break; } }", 1, 45, "duplicate case value 1");
    first_error("kernel void k(int x) {\n  case 1: x = 2;\n}", 2, 3, "case label outside a switch");
    let (p, d) = run_default("kernel void k(global int *o) {\n  switch (o[0]) { o[1] = 1; case 1: o[2] = 2; }\n}");
    assert!(p.is_some() && d.list.iter().any(|w| w.loc.line == 2 && w.message.contains("never executed")), "{:?}", d.list);
    first_error("kernel void k(int x) {\n  switch (x) { case 1: while (x) { case 1: x--; } }\n}", 2, 36, "duplicate case value 1");
    first_error("kernel void k(int x) { switch (x) { case 1: continue; } }", 1, 45, "'continue' outside a loop");
    let p = ok("kernel void k(global int* o) { for (int i = 0; i < 4; i++) { switch (i) { case 0: continue; default: o[i] = i; } } }");
    let Stmt::For { body, .. } = &p.functions[0].body[0] else { panic!() };
    let Stmt::Block(b) = &**body else { panic!() };
    let Stmt::Switch { cases, .. } = &b[0] else { panic!() };
    assert_eq!((cases[0].body.clone(), cases[0].falls_through), (vec![Stmt::Continue], false));
}

/// Typical kernels, through the preprocessor, must be accepted.
#[test]
fn corpus_of_typical_kernels() {
    let corpus = [
        "#define TILE 16
        __kernel void matmul(const int N, __global const float* A, __global const float* B, __global float* C) {
            __local float As[TILE][TILE];
            __local float Bs[TILE][TILE];
            int row = get_global_id(1), col = get_global_id(0);
            int lr = get_local_id(1), lc = get_local_id(0);
            float acc = 0.0f;
            for (int t = 0; t < N / TILE; ++t) {
                As[lr][lc] = A[row * N + t * TILE + lc];
                Bs[lr][lc] = B[(t * TILE + lr) * N + col];
                barrier(CLK_LOCAL_MEM_FENCE);
                #pragma unroll
                for (int k = 0; k < TILE; k++) acc = mad(As[lr][k], Bs[k][lc], acc);
                barrier(CLK_LOCAL_MEM_FENCE);
            }
            C[row * N + col] = acc;
        }",
        "__kernel void histogram(__global const uchar* data, uint n, __global uint* bins) {
            __local uint local_bins[256];
            for (uint i = get_local_id(0); i < 256; i += get_local_size(0)) local_bins[i] = 0;
            barrier(CLK_LOCAL_MEM_FENCE);
            for (size_t i = get_global_id(0); i < n; i += get_global_size(0)) atomic_inc(&local_bins[data[i]]);
            barrier(CLK_LOCAL_MEM_FENCE);
            for (uint i = get_local_id(0); i < 256; i += get_local_size(0)) atomic_add(&bins[i], local_bins[i]);
        }",
        "typedef struct { float4 pos; float4 vel; } Body;
        __kernel void nbody(__global Body* bodies, const uint count, const float dt, const float eps) {
            uint i = get_global_id(0);
            if (i >= count) return;
            float4 p = bodies[i].pos, a = (float4)(0.0f);
            for (uint j = 0; j < count; j++) {
                float4 d = bodies[j].pos - p;
                d.w = 0.0f;
                float inv = rsqrt(dot(d, d) + eps * eps);
                a += d * (bodies[j].pos.w * inv * inv * inv);
            }
            bodies[i].vel += a * dt;
            bodies[i].pos.xyz += bodies[i].vel.xyz * dt;
        }",
        "__kernel void mandel(__global uchar4* out, int w, int h, int max_iter) {
            int x = get_global_id(0), y = get_global_id(1);
            float cr = 3.0f * x / w - 2.0f, ci = 2.0f * y / h - 1.0f;
            float zr = 0, zi = 0;
            int it = 0;
            while (zr * zr + zi * zi < 4.0f && it < max_iter) {
                float t = zr * zr - zi * zi + cr;
                zi = 2 * zr * zi + ci;
                zr = t;
                ++it;
            }
            uchar c = (uchar)(255 * it / max_iter);
            out[y * w + x] = (uchar4)(c, c, c, 255);
        }",
        "#define BLOCK 16
        __kernel void transpose(__global float* out, __global const float* in, int width, int height, __local float* block) {
            unsigned int x = get_global_id(0), y = get_global_id(1);
            if (x < width && y < height) block[get_local_id(1) * (BLOCK + 1) + get_local_id(0)] = in[y * width + x];
            barrier(CLK_LOCAL_MEM_FENCE);
            x = get_group_id(1) * BLOCK + get_local_id(0);
            y = get_group_id(0) * BLOCK + get_local_id(1);
            if (x < height && y < width) out[y * height + x] = block[get_local_id(0) * (BLOCK + 1) + get_local_id(1)];
        }",
        "inline float lerp1(float a, float b, float t) { return a + (b - a) * t; }
        static float2 cmul(float2 a, float2 b) { return (float2)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
        __constant float weights[5] = { 0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f };
        __kernel void blur(__global const float* src, __global float* dst, int n) {
            int i = get_global_id(0);
            float s = 0.0f;
            #pragma unroll 5
            for (int k = -2; k <= 2; k++) {
                int j = clamp(i + k, 0, n - 1);
                s += weights[k + 2] * src[j];
            }
            float2 z = cmul((float2)(s, 1.0f), (float2)(0.5f, -0.5f));
            dst[i] = lerp1(s, z.x, 0.5f) > 0 ? s : -s;
            dst[i] = select(dst[i], 0.0f, isnan(dst[i]));
            int4 v = convert_int4_rtz(vload4(0, src));
            vstore4(convert_float4(v) * 2.0f, i, dst);
        }",
    ];
    for src in corpus {
        let (p, d) = run_default(src);
        let errors: Vec<_> = d.list.iter().filter(|d| d.severity == Severity::Error).collect();
        assert!(errors.is_empty() && p.is_some(), "{errors:?}\n{src}");
    }
}

#[test]
fn integer_literal_types_depend_on_the_radix() {
    use Scalar::*;
    let cases = [
        ("2147483647", Int),
        ("2147483648", Long),
        ("4294967295", Long),
        ("0xffffffff", UInt),
        ("037777777777", UInt),
        ("0x80000000", UInt),
        ("4294967295u", UInt),
        ("4294967296u", ULong),
        ("9223372036854775807", Long),
        ("9223372036854775808", ULong),
        ("0xffffffffffffffff", ULong),
        ("10l", Long),
        ("0x8000000000000000l", ULong),
    ];
    let body: String = cases.iter().map(|(text, _)| format!("{text};")).collect();
    let p = ok(&format!("kernel void k() {{ {body} }}"));
    let f = kernel(&p, "k");
    for (i, (text, s)) in cases.iter().enumerate() {
        assert_eq!(stmt_expr(&f.body[i]).ty, Type::Scalar(*s), "{text}");
    }
}

#[test]
fn pointer_output_and_shuffle_builtins() {
    let p = ok("kernel void k(global float4 *o, global int4 *e, global uint8 *m) {\n\
        float4 w; o[0] = fract(o[1], &w); o[2] = frexp(o[3], e);\n\
        int8 s = shuffle2(e[0], e[1], m[0]); int2 t = shuffle(e[0], (uint2)(1, 0));\n\
        e[2] = isunordered(o[0], o[1]); }");
    let f = kernel(&p, "k");
    // fract(x, p): (t = x, *p = floor(t), fract(t)).
    let ExprKind::Assign { value, .. } = &stmt_expr(&f.body[1]).kind else { panic!() };
    let ExprKind::Comma(first, rest) = &value.kind else { panic!("{value:?}") };
    assert!(matches!(&first.kind, ExprKind::Assign { place, .. } if matches!(place.kind, PlaceKind::Local(_))));
    let ExprKind::Comma(store, result) = &rest.kind else { panic!() };
    assert!(matches!(&store.kind, ExprKind::Assign { value, .. } if matches!(value.kind, ExprKind::Builtin(Builtin::Math(MathFn::Floor, _), _))));
    assert!(matches!(result.kind, ExprKind::Builtin(Builtin::Math(MathFn::Fract, _), _)));
    assert_eq!(result.ty, Type::Vector(Scalar::Float, 4));
    assert_eq!(decl_init(&f.body[3]).ty, Type::Vector(Scalar::Int, 8));
    assert_eq!(decl_init(&f.body[4]).ty, Type::Vector(Scalar::Int, 2));

    first_error("kernel void k(global float *o, constant float *c) {\n  o[0] = fract(o[1], c);\n}", 2, 10, "must be a pointer to non-const 'float' outside __constant");
    first_error("kernel void k(global float *o, global float *w) {\n  o[0] = frexp(o[1], w);\n}", 2, 10, "no overload of 'frexp' takes ('float', '__global float*')");
    first_error("kernel void k(global int4 *o) {\n  o[0] = shuffle(o[1], (int4)(0));\n}", 2, 10, "no overload of 'shuffle'");
}

#[test]
fn string_literals_live_in_constant_memory() {
    let p = ok("kernel void k(global int *o) {\n  constant char *s = \"ab\\n\";\n  char buf[] = \"xy\";\n  o[0] = sizeof(\"abc\") + s[1] + buf[0];\n  constant char *t = \"ab\\n\";\n}");
    // "ab\n" (twice, one constant) and "abc" (under sizeof); "xy" initializes an array.
    let strings: Vec<&ConstantVar> = p.constants.iter().collect();
    assert_eq!(strings.len(), 2, "one constant per distinct text");
    assert_eq!((strings[0].bytes.as_slice(), strings[1].bytes.as_slice()), (&b"ab\n\0"[..], &b"abc\0"[..]));
    assert_eq!(strings[0].ty, Type::Array { elem: Box::new(Type::Scalar(Scalar::Char)), len: 4 });
    let f = kernel(&p, "k");
    assert_eq!(local_ty(f, 2), &Type::Array { elem: Box::new(Type::Scalar(Scalar::Char)), len: 3 });
    let ExprKind::Aggregate(bytes) = &decl_init(&f.body[1]).kind else { panic!() };
    assert_eq!(bytes.iter().map(|b| b.kind.clone()).collect::<Vec<_>>(), [ExprKind::Int(120), ExprKind::Int(121), ExprKind::Int(0)]);
    first_error("kernel void k() {\n  char s[2] = \"abc\";\n}", 2, 15, "too long for an array of 2");
    first_error("kernel void k() {\n  \"abc\"[0] = 1;\n}", 2, 12, "cannot write to __constant memory");
}

#[test]
fn math_functions_with_integer_operands() {
    let p = ok("kernel void k(global float4 *o, global int4 *e) {\n\
        int4 a = ilogb(o[0]); float4 b = ldexp(o[0], 3); float4 c = ldexp(o[0], e[0]);\n\
        float d = pown(2.0f, 3); float4 n = nan((uint4)(1)); int s; float l = lgamma_r(0.5f, &s);\n\
        float f = log1p(0.5f) + erf(0.1f) + maxmag(1.0f, -2.0f) + atan2pi(1.0f, 1.0f); }");
    let f = kernel(&p, "k");
    let math = |i: usize| match &decl_init(&f.body[i]).kind {
        ExprKind::Builtin(Builtin::Math(m, _), args) => (*m, args.iter().map(|a| a.ty.clone()).collect::<Vec<_>>()),
        ExprKind::Comma(..) => (MathFn::Lgamma, vec![]),
        other => panic!("{other:?}"),
    };
    let (f4, i4) = (Type::Vector(Scalar::Float, 4), Type::Vector(Scalar::Int, 4));
    assert_eq!(math(0), (MathFn::Ilogb, vec![f4.clone()]));
    assert_eq!(decl_init(&f.body[0]).ty, i4);
    assert_eq!(math(1), (MathFn::Ldexp, vec![f4.clone(), i4.clone()]), "a scalar exponent is splatted");
    assert_eq!(math(2), (MathFn::Ldexp, vec![f4.clone(), i4.clone()]));
    assert_eq!(math(3), (MathFn::Pown, vec![FLOAT, INT]));
    assert_eq!(math(4), (MathFn::Nan, vec![Type::Vector(Scalar::UInt, 4)]));
    assert_eq!(decl_init(&f.body[4]).ty, f4);
    first_error("kernel void k(global float4 *o) {\n  o[0] = pown(o[1], (int2)(2));\n}", 2, 10, "no overload of 'pown'");
    first_error("kernel void k(global float4 *o) {\n  o[0] = nan((int4)(1));\n}", 2, 10, "no overload of 'nan'");
    first_error("kernel void k(global float *o) {\n  o[0] = ilogb(o[1], 2);\n}", 2, 10, "takes 1 argument");
}

#[test]
fn unsupported_builtins_say_so() {
    // Work-group collectives are OpenCL C 2.0's (the default is 1.2).
    first_error("kernel void k(global int *o) {\n  o[0] = work_group_reduce_add(o[1]);\n}", 2, 10, "need OpenCL C 2.0 or later");
    first_error("kernel void k(global int *o) {\n  o[0] = frobnicate(1);\n}", 2, 10, "call to undeclared function 'frobnicate'");
}

/// printf: the format must be known at compile time and obey OpenCL C's rules; each
/// argument must fit its conversion; every error points at the offending expression.
#[test]
fn printf_formats_and_arguments_are_checked() {
    let call = |args: &str| format!("kernel void k(global int *o, global char *s, int4 v, float4 f) {{\n  o[0] = printf({args});\n}}");
    for (args, col, text) in [
        ("s", 17, "must be a string literal"),
        ("", 10, "needs a format string"),
        ("\"%*d\", 1, 2", 17, "'*' field width is not supported"),
        ("\"%.*f\", 1, 2.0f", 17, "'*' precision is not supported"),
        ("\"%lld\", 1L", 17, "'ll' is reserved"),
        ("\"%n\", o", 17, "'n' is reserved"),
        ("\"%hld\", 1", 17, "'hl' needs a vector specifier"),
        ("\"%v4d\", v", 17, "needs a length modifier"),
        ("\"%d %d\", 1", 17, "more conversions than arguments: '%d' has none"),
        ("\"%s\", s", 23, "argument of '%s' must be a string literal"),
        ("\"%d\", v", 23, "a vector needs a vector specifier such as '%v4hld'"),
        ("\"%v4hd\", v", 26, "must be a short or ushort vector of 4 (short4), not 'int4'"),
        ("\"%v2hld\", v", 27, "vector of 2"),
        ("\"%v4hlf\", v", 27, "must be a float vector of 4"),
        ("\"%v4ld\", f", 26, "long or ulong vector"),
        ("\"%f\", o", 23, "cannot print a value of type"),
    ] {
        first_error(&call(args), 2, col, text);
    }
    let p = ok(&call("\"%d %c %s %p %f %v4hld %v4hlf %%\\n\", (char)-1, 'x', \"lit\", o, 1.5f, v, f, 7, o[1]++"));
    let f = &p.printf[0];
    // The index; (char)-1 and 'x' as int; "lit" stays in the format; a 64-bit pointer; the
    // float (no fp64 on the test target) stays float; the vectors; 7 and o[1]++ are extra.
    assert_eq!(f.words, 1 + 1 + 1 + 2 + 1 + 4 + 4);
    assert!(matches!(&f.pieces[4], Piece::Literal(_, t) if t == b"lit"));
}

#[test]
fn async_copies_check_their_arguments() {
    let p = ok("kernel void k(global int4 *g, local int4 *l) { event_t e = async_work_group_copy(l, g, 4, 0); wait_group_events(1, &e); g[0].x = sizeof(event_t); }");
    let e = kernel(&p, "k").locals.iter().find(|l| l.name == "e").map(|l| l.ty.clone());
    assert!(matches!(e, Some(Type::Record(_))), "{e:?}");
    first_error("kernel void k(global int *a, global int *b) {\n  async_work_group_copy(a, b, 4, 0);\n}", 2, 3, "copies from a 'const __global T*' to a '__local T*'");
    first_error("kernel void k(global int *g, local float *l) {\n  async_work_group_copy(l, g, 4, 0);\n}", 2, 3, "not from '__global int*' to '__local float*'");
    first_error("kernel void k(global int *g, local int *l) {\n  async_work_group_copy(l, g, 4, 1);\n}", 2, 34, "cannot convert 'int' to 'event_t'");
    first_error("kernel void k(global int *g) {\n  event_t e = 0;\n  wait_group_events(1, e);\n}", 3, 3, "must be an 'event_t *'");
    first_error("kernel void k(local int *l) {\n  prefetch(l, 4);\n}", 2, 3, "must be a '__global' pointer");
}

#[test]
fn int64_atomics_need_the_device_feature() {
    let src = "kernel void k(global long *l) { atom_add(l, 1L); }";
    ok(src);
    let without = Target { int64_atomics: false, ..target() };
    let errs = errors_with(src, &without, &Options::default());
    assert!(errs.first().is_some_and(|(l, c, m)| (*l, *c) == (1, 33) && m.contains("no overload of 'atom_add'")), "{errs:?}");
}

#[test]
fn unsized_compound_literal_arrays() {
    let p = ok("kernel void k(global int *o) { o[0] = sizeof((int[]){ 1, 2, 3 }); o[1] = sizeof((char[]){ \"abcd\" }); }");
    let f = kernel(&p, "k");
    let value = |i: usize| match &stmt_expr(&f.body[i]).kind {
        ExprKind::Assign { value, .. } => value.kind.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!((value(0), value(1)), (ExprKind::Int(12), ExprKind::Int(5)));
}

#[test]
fn c11_atomics_exist_in_opencl_c_3_only() {
    let opts = Options { cl_std: 300, ..Options::default() };
    let (p, d) = run(
        "global atomic_int counter = 5;
         kernel void k(global atomic_uint *u, local atomic_float *f, global int *o) {
             o[0] = atomic_fetch_add(&counter, 1) + atomic_load_explicit(u, memory_order_acquire, memory_scope_device);
             float e = 1.0f;
             o[1] = atomic_compare_exchange_strong_explicit(f, &e, 2.0f, memory_order_acq_rel, memory_order_relaxed);
             atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_release, memory_scope_work_group);
             o[2] = sizeof(atomic_int) + sizeof(atomic_flag) + memory_order_seq_cst + memory_scope_device;
         }",
        &target(),
        &opts,
    );
    assert!(p.is_some() && !d.has_errors(), "{:?}", d.list);
    // OpenCL C 1.2 has none of them: the names are free.
    ok("typedef int atomic_int; kernel void k(global atomic_int *p) { int memory_order_relaxed = 1; p[0] = memory_order_relaxed; }");
    first_error("kernel void k(global int *p) { atomic_fetch_add(p, 1); }", 1, 32, "call to undeclared function 'atomic_fetch_add'");
}

#[test]
fn c11_atomics_misuse_is_diagnosed() {
    let opts = Options { cl_std: 300, ..Options::default() };
    let first = |src: &str, line: u32, col: u32, text: &str| {
        let errs = errors_with(src, &target(), &opts);
        let (l, c, m) = errs.first().cloned().unwrap_or_default();
        assert!((l, c) == (line, col) && m.contains(text), "expected {line}:{col} '{text}', got {errs:?}");
    };
    first("kernel void k(global int *p) { atomic_fetch_add(p, 1); }", 1, 32, "must point to an atomic type (atomic_int, atomic_uint, ...), not '__global int*'");
    first("kernel void k(global atomic_int *p) { atomic_store(p); }", 1, 39, "'atomic_store' takes 2 arguments, but 1 were given");
    first("kernel void k(global atomic_int *p) { atomic_load_explicit(p); }", 1, 39, "takes 2 or 3 arguments");
    first("kernel void k(global atomic_float *p) { atomic_fetch_and(p, 1.0f); }", 1, 41, "takes an integer atomic type, not 'atomic_float'");
    first("kernel void k(global const atomic_int *p, global int *o) { o[0] = atomic_load(p); }", 1, 67, "cannot modify or read atomically through '__global const atomic_int*'");
    first("kernel void k(global atomic_int *p) { atomic_load_explicit(p, 7); }", 1, 63, "7 is not a memory_order");
    first("kernel void k(global atomic_int *p) { atomic_load_explicit(p, memory_order_relaxed, 9); }", 1, 85, "9 is not a memory_scope");
    first("kernel void k(global atomic_int *p, global int *o) { o[0] = *p; }", 1, 61, "'atomic_int' objects are read and written only by the atomic functions");
    first("kernel void k(global atomic_int *p) { *p += 1; }", 1, 42, "only by the atomic functions");
    first("kernel void k() { atomic_int a = 1; }", 1, 30, "atomic variable 'a' can be initialized only in the __global address space");
    first("kernel void k(global atomic_uint *p) { atomic_flag_clear(p); }", 1, 40, "needs a pointer to atomic_flag");
    first("kernel void k(global atomic_int *p, constant int *e) { atomic_compare_exchange_strong(p, e, 1); }", 1, 90, "argument 2 of 'atomic_compare_exchange_strong' changes the address space");
}

#[test]
fn constant_conversions_round_as_their_mode_says() {
    let fp64 = Target { fp64: true, ..target() };
    let (p, d) = run("constant float f[] = { convert_float_rtz(16777219), convert_float_rtp(16777217), convert_float_rtn(-16777217),
            convert_float(0x20000020000001L), convert_float_rtn(0x1.000001p0), convert_float_rtz(-1e39) };
        constant int i[] = { convert_int_rtp(2.5f), convert_int_rte(2.5f), convert_int_rtn(-2.5f), convert_int_sat(3e9f) };
        constant uchar c[] = { convert_uchar_sat(300), convert_uchar_sat(-5), convert_uchar_sat_rtp(254.5f) };
        constant double d[] = { convert_double_rtp(9007199254740993L), convert_double_rtz(-9007199254740995L) };
        kernel void k(global float* o) { o[0] = f[0] + i[0] + c[0] + d[0]; }", &fp64, &Options::default());
    assert!(!d.has_errors(), "{:?}", d.list);
    let p = p.expect("a program");
    let floats: Vec<f32> = p.constants[0].bytes.chunks(4).map(|b| f32::from_le_bytes(b.try_into().unwrap())).collect();
    // 0x20000020000001 = 2^53 + 2^29 + 1 lies just above the midpoint of two floats: rounding
    // it to double first would make it a tie and round it down.
    let above_tie = 2f32.powi(53) + 2f32.powi(30);
    assert_eq!(floats, [16777218.0, 16777218.0, -16777218.0, above_tie, 1.0, -f32::MAX]);
    let ints: Vec<i32> = p.constants[1].bytes.chunks(4).map(|b| i32::from_le_bytes(b.try_into().unwrap())).collect();
    assert_eq!(ints, [3, 2, -3, i32::MAX]);
    assert_eq!(p.constants[2].bytes, vec![255, 0, 255]);
    let doubles: Vec<f64> = p.constants[3].bytes.chunks(8).map(|b| f64::from_le_bytes(b.try_into().unwrap())).collect();
    assert_eq!(doubles, [9007199254740994.0, -9007199254740994.0]);
}

#[test]
fn cluster_sizes_are_constant_powers_of_two() {
    ok("kernel void k(global int *o) { o[0] = sub_group_clustered_reduce_xor(o[1], 8) + sub_group_clustered_rotate(o[2], -1, 2); }");
    first_error("kernel void k(global int *o, uint n) {\n  o[0] = sub_group_clustered_reduce_add(o[1], n); }", 2, 10, "constant power of two");
    first_error("kernel void k(global int *o) {\n  o[0] = sub_group_clustered_rotate(o[1], 1, 3); }", 2, 10, "constant power of two");
    // The bitwise operations take integers only.
    first_error("kernel void k(global float *o) {\n  o[0] = sub_group_non_uniform_reduce_and(o[1]); }", 2, 10, "sub_group_non_uniform_reduce_and");
}
