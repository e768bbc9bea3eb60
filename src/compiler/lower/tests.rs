//! Lowering tests on hand-built models: each kernel is lowered, specialised and checked by
//! naga's validator (inside `specialize`) and by `spirv-val` when installed.

use super::*;
use crate::compiler::sema::model::*;
use crate::compiler::spirv::tests::spirv_val;
use crate::compiler::{ArgKind, DescriptorKind, Kernel};

/// The shared test target with `double` and `half`, and a small push-constant budget so that
/// value arguments spill into the POD uniform.
pub fn target() -> Target {
    Target { fp64: true, fp16: true, max_push_constants_size: 128, ..crate::compiler::test_target() }
}

const L: Loc = Loc { file: 0, line: 1, col: 1 };

pub fn int() -> Type {
    Type::Scalar(Scalar::Int)
}
pub fn uint() -> Type {
    Type::Scalar(Scalar::UInt)
}
pub fn ulong() -> Type {
    Type::Scalar(Scalar::ULong)
}
pub fn float() -> Type {
    Type::Scalar(Scalar::Float)
}
pub fn gptr(t: Type) -> Type {
    Type::ptr(t, Space::Global)
}

pub fn e(kind: ExprKind, ty: Type) -> Expr {
    Expr { kind, ty, loc: L }
}
pub fn place(kind: PlaceKind, ty: Type, space: Space) -> Place {
    Place { kind, ty, space, is_const: false, loc: L }
}
pub fn local(id: u32, ty: Type) -> Place {
    place(PlaceKind::Local(LocalId(id)), ty, Space::Private)
}
pub fn load(p: Place) -> Expr {
    let ty = p.ty.clone();
    e(ExprKind::Load(Box::new(p)), ty)
}
pub fn int_lit(v: i64, ty: Type) -> Expr {
    e(ExprKind::Int(v as u64), ty)
}
pub fn assign(p: Place, v: Expr) -> Stmt {
    let ty = p.ty.clone();
    Stmt::Expr(e(ExprKind::Assign { place: Box::new(p), value: Box::new(v), yields_old: false }, ty))
}
pub fn bin(op: BinaryOp, a: Expr, b: Expr) -> Expr {
    let ty = a.ty.clone();
    e(ExprKind::Binary(op, Box::new(a), Box::new(b)), ty)
}
/// `p[i]` where `p` is pointer local `ptr_local` to `elem` in `space`.
pub fn index_ptr(ptr_local: u32, elem: Type, space: Space, i: Expr) -> Place {
    let pty = Type::ptr(elem.clone(), space);
    let p = load(local(ptr_local, pty.clone()));
    let add = e(ExprKind::PtrAdd(Box::new(p), Box::new(i)), pty);
    place(PlaceKind::Deref(Box::new(add)), elem, space)
}
pub fn global_id(d: u32) -> Expr {
    e(ExprKind::Builtin(Builtin::WorkItem(WorkItemFn::GlobalId), vec![int_lit(d as i64, uint())]), ulong())
}
pub fn kernel<'a>(name: &str, params: Vec<(&'a str, Type)>, mut extra: Vec<(&'a str, Type)>, body: Vec<Stmt>) -> Function {
    let n = params.len();
    let mut all = params;
    all.append(&mut extra);
    Function {
        name: name.into(),
        kind: FunctionKind::Kernel(Default::default()),
        params: (0..n)
            .map(|i| model::Param { local: LocalId(i as u32), type_name: String::new(), is_restrict: false, is_const: false })
            .collect(),
        ret: Type::Void,
        locals: all.into_iter().map(|(n, ty)| Local { name: n.into(), ty, loc: L }).collect(),
        body,
        own_constants: vec![],
        workgroup_vars: vec![],
        packs_constants: false,
        inlined_size: 0,
        loc: L,
    }
}
pub fn program(functions: Vec<Function>) -> Program {
    Program { types: Types { records: vec![], pointer_size: 8 }, constants: vec![], workgroup_vars: vec![], global_vars: vec![], functions, printf: vec![] }
}

/// Lowers, specialises with a 64×1×1 work-group and validates.
pub fn build(p: &Program, local_sizes: &[u32]) -> Vec<CompiledKernel> {
    let kernels = lower_program(&std::sync::Arc::new(p.clone()), &target(), LowerOptions::default()).unwrap_or_else(|e| panic!("lowering failed: {e:?}"));
    for k in &kernels {
        let words = k.specialize([64, 1, 1], local_sizes, &[]).unwrap_or_else(|e| panic!("{e}"));
        spirv_val(&words);
    }
    kernels
}

/// `c[i] = a[i] + b[i]` with `i = get_global_id(0)`.
fn vector_add(elem: Type) -> Program {
    let i = || load(local(3, ulong()));
    let body = vec![
        Stmt::Decl { local: LocalId(3), init: Some(global_id(0)) },
        assign(
            index_ptr(2, elem.clone(), Space::Global, i()),
            bin(
                BinaryOp::Add,
                load(index_ptr(0, elem.clone(), Space::Global, i())),
                load(index_ptr(1, elem.clone(), Space::Global, i())),
            ),
        ),
    ];
    let params = vec![("a", gptr(elem.clone())), ("b", gptr(elem.clone())), ("c", gptr(elem))];
    program(vec![kernel("add", params, vec![("i", ulong())], body)])
}

#[test]
fn vector_add_int_and_float() {
    for elem in [int(), float(), Type::Vector(Scalar::Float, 4), Type::Vector(Scalar::Int, 3)] {
        let k = build(&vector_add(elem), &[]);
        let args = k[0].args();
        assert_eq!(args.len(), 3);
        // One view per buffer, bindings 0, 1, 2 in argument order of first use.
        let mut bindings: Vec<u32> = args
            .iter()
            .flat_map(|a| match &a.kind {
                ArgKind::Buffer { bindings, descriptor: DescriptorKind::Storage } => bindings.clone(),
                other => panic!("{other:?}"),
            })
            .collect();
        bindings.sort();
        assert_eq!(bindings, vec![0, 1, 2]);
        assert_eq!(k[0].push_constants_size(), crate::compiler::LAUNCH_BLOCK_SIZE);
        assert!(!k[0].finish.aliased);
    }
}

#[test]
fn empty_kernel_and_value_arguments() {
    // kernel void k(int x, float y, global float* out) { out[0] = (float)x + y; }
    let conv = e(
        ExprKind::Convert { value: Box::new(load(local(0, int()))), sat: false, rounding: Rounding::Default },
        float(),
    );
    let body = vec![assign(index_ptr(2, float(), Space::Global, int_lit(0, int())), bin(BinaryOp::Add, conv, load(local(1, float()))))];
    let p = program(vec![
        kernel("empty", vec![], vec![], vec![]),
        kernel("k", vec![("x", int()), ("y", float()), ("out", gptr(float()))], vec![], body),
    ]);
    let k = build(&p, &[]);
    assert_eq!(k[0].push_constants_size(), 40);
    let args = k[1].args();
    assert_eq!(args[0].kind, ArgKind::Pod { offset: 40, size: 4, uniform: false });
    assert_eq!(args[1].kind, ArgKind::Pod { offset: 44, size: 4, uniform: false });
    assert_eq!(k[1].push_constants_size(), 48);
}

fn call(f: u32, args: Vec<Expr>, ty: Type) -> Expr {
    e(ExprKind::Call(FuncId(f), args), ty)
}
fn builtin(b: Builtin, args: Vec<Expr>, ty: Type) -> Expr {
    e(ExprKind::Builtin(b, args), ty)
}
fn cmp(op: CmpOp, a: Expr, b: Expr) -> Expr {
    e(ExprKind::Compare(op, Box::new(a), Box::new(b)), int())
}
fn to_bool(v: Expr) -> Expr {
    e(ExprKind::Convert { value: Box::new(v), sat: false, rounding: Rounding::Default }, Type::Scalar(Scalar::Bool))
}

#[test]
fn local_memory_barrier_and_local_argument() {
    // kernel void k(global int* out, local int* tmp) {
    //   local int buf[64]; uint l = get_local_id(0);
    //   buf[l] = (int)l; tmp[l] = 1; barrier(CLK_LOCAL_MEM_FENCE);
    //   out[l] = buf[63 - l] + tmp[0] + atomic_add(&buf[0], 1); }
    let arr = Type::Array { elem: Box::new(int()), len: 64 };
    let wg = || place(PlaceKind::Workgroup(WorkgroupId(0)), Type::Array { elem: Box::new(int()), len: 64 }, Space::Local);
    let at = |i: Expr| place(PlaceKind::Index(Box::new(wg()), Box::new(i)), int(), Space::Local);
    let l = || load(local(2, uint()));
    let lid = builtin(Builtin::WorkItem(WorkItemFn::LocalId), vec![int_lit(0, uint())], ulong());
    let lid = e(ExprKind::Convert { value: Box::new(lid), sat: false, rounding: Rounding::Default }, uint());
    let as_int = |v: Expr| e(ExprKind::Convert { value: Box::new(v), sat: false, rounding: Rounding::Default }, int());
    let addr = e(ExprKind::AddrOf(Box::new(at(int_lit(0, int())))), Type::ptr(int(), Space::Local));
    let atomic = builtin(Builtin::Atomic(AtomicOp::Add), vec![addr, int_lit(1, int())], int());
    let sum = bin(
        BinaryOp::Add,
        bin(BinaryOp::Add, load(at(bin(BinaryOp::Sub, int_lit(63, uint()), l()))), load(index_ptr(1, int(), Space::Local, int_lit(0, int())))),
        atomic,
    );
    let body = vec![
        Stmt::Decl { local: LocalId(2), init: Some(lid) },
        assign(at(l()), as_int(l())),
        assign(index_ptr(1, int(), Space::Local, l()), int_lit(1, int())),
        Stmt::Expr(builtin(Builtin::Barrier(FenceFlags { local: true, global: false }), vec![], Type::Void)),
        assign(index_ptr(0, int(), Space::Global, l()), sum),
    ];
    let mut k = kernel("k", vec![("out", gptr(int())), ("tmp", Type::ptr(int(), Space::Local))], vec![("l", uint())], body);
    k.workgroup_vars = vec![WorkgroupId(0)];
    let mut p = program(vec![k]);
    p.workgroup_vars.push(WorkgroupVar { name: "buf".into(), ty: arr, kernel: FuncId(0), loc: L });
    let k = build(&p, &[256]);
    assert_eq!(k[0].args()[1].kind, ArgKind::Local { elem_size: 4 });
    assert_eq!(k[0].local_mem_size(), 256);
}

#[test]
fn helper_with_pointer_parameter_loop_return_and_switch() {
    // int find(global int* p, int n) { for (int i = 0; ; i++) { if (p[i] == n) return i; } }
    // kernel void k(global int* a) {
    //   int r = find(a + 1, 7);
    //   switch (r) { case 0: case 1: r = 5; case 2: r += 1; break; default: r = 0; }
    //   do { r -= 1; } while (r > 0);
    //   a[0] = r; }
    let i = || load(local(2, int()));
    let found = to_bool(cmp(CmpOp::Eq, load(index_ptr(0, int(), Space::Global, i())), load(local(1, int()))));
    let inc = e(
        ExprKind::Assign {
            place: Box::new(local(2, int())),
            value: Box::new(bin(BinaryOp::Add, e(ExprKind::Current, int()), int_lit(1, int()))),
            yields_old: true,
        },
        int(),
    );
    let find_body = vec![Stmt::For {
        init: vec![Stmt::Decl { local: LocalId(2), init: Some(int_lit(0, int())) }],
        cond: None,
        step: Some(inc),
        body: Box::new(Stmt::If { cond: found, then: Box::new(Stmt::Return(Some(i()))), otherwise: None }),
        unroll: Unroll::Auto,
    }];
    let find = Function {
        kind: FunctionKind::Helper,
        ret: int(),
        params: (0..2).map(|i| model::Param { local: LocalId(i), type_name: String::new(), is_restrict: false, is_const: false }).collect(),
        ..kernel("find", vec![("p", gptr(int())), ("n", int())], vec![("i", int())], find_body)
    };
    let a1 = e(ExprKind::PtrAdd(Box::new(load(local(0, gptr(int())))), Box::new(int_lit(1, int()))), gptr(int()));
    let r = || local(1, int());
    let case = |values: Vec<u64>, is_default, body, falls_through| SwitchCase { values, is_default, body, falls_through };
    let add_one = e(
        ExprKind::Assign { place: Box::new(r()), value: Box::new(bin(BinaryOp::Add, e(ExprKind::Current, int()), int_lit(1, int()))), yields_old: false },
        int(),
    );
    let body = vec![
        Stmt::Decl { local: LocalId(1), init: Some(call(0, vec![a1, int_lit(7, int())], int())) },
        Stmt::Switch {
            selector: load(r()),
            cases: vec![
                case(vec![0, 1], false, vec![assign(r(), int_lit(5, int()))], true),
                case(vec![2], false, vec![Stmt::Expr(add_one)], false),
                case(vec![], true, vec![assign(r(), int_lit(0, int()))], false),
            ],
        },
        Stmt::DoWhile {
            body: Box::new(assign(r(), bin(BinaryOp::Sub, load(r()), int_lit(1, int())))),
            cond: to_bool(cmp(CmpOp::Gt, load(r()), int_lit(0, int()))),
        },
        assign(index_ptr(0, int(), Space::Global, int_lit(0, int())), load(r())),
    ];
    build(&program(vec![find, kernel("k", vec![("a", gptr(int()))], vec![("r", int())], body)]), &[]);
}

#[test]
fn value_arguments_past_the_push_constant_limit_go_to_the_pod_uniform() {
    let f4 = Type::Vector(Scalar::Float, 4);
    let params: Vec<(&str, Type)> = vec![("out", gptr(f4.clone()))].into_iter().chain((0..6).map(|_| ("v", f4.clone()))).collect();
    let sum = (2..7).fold(load(local(1, f4.clone())), |acc, i| bin(BinaryOp::Add, acc, load(local(i, f4.clone()))));
    let body = vec![assign(index_ptr(0, f4.clone(), Space::Global, int_lit(0, int())), sum)];
    let k = build(&program(vec![kernel("k", params, vec![], body)]), &[]);
    let args = k[0].args();
    // 40-byte launch block, then float4s at 48, 64, 80, 96, 112; the sixth does not fit in 128.
    assert_eq!(args[1].kind, ArgKind::Pod { offset: 48, size: 16, uniform: false });
    assert_eq!(args[5].kind, ArgKind::Pod { offset: 112, size: 16, uniform: false });
    assert_eq!(args[6].kind, ArgKind::Pod { offset: 0, size: 16, uniform: true });
    assert_eq!(k[0].push_constants_size(), 128);
    assert_eq!(k[0].pod_uniform(), Some((0, 16)));
}

#[test]
fn char_and_short_buffers_and_arguments() {
    // kernel void k(global uchar* a, global char4* b, global short* c, char x, ushort2 y) {
    //   ulong i = get_global_id(0);
    //   a[i] = a[i] + x;  b[i] = b[i] * (char4)2;  c[i] = c[i] >> 1;  c[0] = y.y; }
    let (uchar, char, short) = (Type::Scalar(Scalar::UChar), Type::Scalar(Scalar::Char), Type::Scalar(Scalar::Short));
    let char4 = Type::Vector(Scalar::Char, 4);
    let ushort2 = Type::Vector(Scalar::UShort, 2);
    let i = || load(local(5, ulong()));
    let cv = |v: Expr, ty: Type| e(ExprKind::Convert { value: Box::new(v), sat: false, rounding: Rounding::Default }, ty);
    let body = vec![
        Stmt::Decl { local: LocalId(5), init: Some(global_id(0)) },
        assign(
            index_ptr(0, uchar.clone(), Space::Global, i()),
            cv(bin(BinaryOp::Add, cv(load(index_ptr(0, uchar.clone(), Space::Global, i())), int()), cv(load(local(3, char.clone())), int())), uchar.clone()),
        ),
        assign(
            index_ptr(1, char4.clone(), Space::Global, i()),
            bin(BinaryOp::Mul, load(index_ptr(1, char4.clone(), Space::Global, i())), int_lit(2, char4.clone())),
        ),
        assign(
            index_ptr(2, short.clone(), Space::Global, i()),
            cv(bin(BinaryOp::Shr, cv(load(index_ptr(2, short.clone(), Space::Global, i())), int()), int_lit(1, int())), short.clone()),
        ),
        assign(
            index_ptr(2, short.clone(), Space::Global, int_lit(0, int())),
            cv(load(place(PlaceKind::Swizzle(Box::new(local(4, ushort2.clone())), vec![1]), Type::Scalar(Scalar::UShort), Space::Private)), short.clone()),
        ),
    ];
    let params = vec![("a", gptr(uchar)), ("b", gptr(char4)), ("c", gptr(short)), ("x", char), ("y", ushort2)];
    let k = build(&program(vec![kernel("k", params, vec![("i", ulong())], body)]), &[]);
    let args = k[0].args();
    assert_eq!(args[3].kind, ArgKind::Pod { offset: 40, size: 1, uniform: false });
    assert_eq!(args[4].kind, ArgKind::Pod { offset: 44, size: 4, uniform: false });
    // `a` is read through words and written through atomic words: two views, aliased.
    assert!(matches!(&args[0].kind, ArgKind::Buffer { bindings, .. } if bindings.len() == 2));
    assert!(k[0].finish.aliased);
}

/// A kernel evaluating each `(builtin, argument types, result type)` on zero-valued locals.
fn builtin_kernel(calls: Vec<(Builtin, Vec<Type>, Type)>) -> Program {
    let mut locals = Vec::new();
    let mut body = Vec::new();
    for (b, args, ret) in calls {
        let args = args
            .into_iter()
            .map(|t| {
                locals.push(("x", t.clone()));
                load(local(locals.len() as u32 - 1, t))
            })
            .collect();
        locals.push(("r", ret.clone()));
        body.push(assign(local(locals.len() as u32 - 1, ret.clone()), builtin(b, args, ret)));
    }
    program(vec![kernel("k", vec![], locals, body)])
}

#[test]
fn integer_builtins_of_every_width() {
    let mut calls = Vec::new();
    for s in [Scalar::Char, Scalar::UChar, Scalar::Short, Scalar::UShort, Scalar::Int, Scalar::UInt, Scalar::Long, Scalar::ULong] {
        for ty in [Type::Scalar(s), Type::Vector(s, 4)] {
            let un = Type::Scalar(match s.size() {
                1 => Scalar::UChar,
                2 => Scalar::UShort,
                4 => Scalar::UInt,
                _ => Scalar::ULong,
            });
            let un = if ty.width() > 1 { Type::Vector(un.element().unwrap(), 4) } else { un };
            for f in [IntFn::Min, IntFn::Max, IntFn::AddSat, IntFn::SubSat, IntFn::MulHi, IntFn::Hadd, IntFn::Rhadd, IntFn::Rotate] {
                calls.push((Builtin::Int(f), vec![ty.clone(), ty.clone()], ty.clone()));
            }
            calls.push((Builtin::Int(IntFn::MadHi), vec![ty.clone(), ty.clone(), ty.clone()], ty.clone()));
            if s.size() < 8 {
                calls.push((Builtin::Int(IntFn::MadSat), vec![ty.clone(), ty.clone(), ty.clone()], ty.clone()));
            }
            for f in [IntFn::Clz, IntFn::Ctz, IntFn::Popcount] {
                calls.push((Builtin::Int(f), vec![ty.clone()], ty.clone()));
            }
            calls.push((Builtin::Int(IntFn::Abs), vec![ty.clone()], un.clone()));
            calls.push((Builtin::Int(IntFn::AbsDiff), vec![ty.clone(), ty.clone()], un.clone()));
        }
    }
    calls.push((Builtin::Int(IntFn::Upsample), vec![Type::Scalar(Scalar::Char), Type::Scalar(Scalar::UChar)], Type::Scalar(Scalar::Short)));
    calls.push((Builtin::Int(IntFn::Upsample), vec![int(), uint()], Type::Scalar(Scalar::Long)));
    build(&builtin_kernel(calls), &[]);
}

#[test]
fn math_builtins() {
    use MathFn::*;
    let mut calls = Vec::new();
    for ty in [float(), Type::Vector(Scalar::Float, 4), Type::Scalar(Scalar::Double)] {
        let one = [Sqrt, Rsqrt, Fabs, Floor, Ceil, Trunc, Round, Rint, Fract, Sign];
        for f in one {
            calls.push((Builtin::Math(f, Precision::Full), vec![ty.clone()], ty.clone()));
        }
        for f in [Fmin, Fmax, Fmod, Hypot, Copysign, Min, Max, Step] {
            calls.push((Builtin::Math(f, Precision::Full), vec![ty.clone(), ty.clone()], ty.clone()));
        }
        for f in [Fma, Mad, Clamp, Mix, Smoothstep] {
            calls.push((Builtin::Math(f, Precision::Full), vec![ty.clone(), ty.clone(), ty.clone()], ty.clone()));
        }
        let int_ty = if ty == Type::Scalar(Scalar::Double) { int() } else if ty.width() > 1 { Type::Vector(Scalar::Int, 4) } else { int() };
        for f in [IsNan, IsInf, IsFinite, Signbit] {
            calls.push((Builtin::Math(f, Precision::Full), vec![ty.clone()], int_ty.clone()));
        }
    }
    for f in [Exp, Exp2, Exp10, Log, Log2, Log10, Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Tanh, Cbrt, Radians, Degrees] {
        calls.push((Builtin::Math(f, Precision::Full), vec![float()], float()));
    }
    for f in [Pow, Powr, Atan2] {
        calls.push((Builtin::Math(f, Precision::Full), vec![float(), float()], float()));
    }
    let f4 = Type::Vector(Scalar::Float, 4);
    calls.push((Builtin::Math(Cross, Precision::Full), vec![f4.clone(), f4.clone()], f4.clone()));
    calls.push((Builtin::Math(Dot, Precision::Full), vec![f4.clone(), f4.clone()], float()));
    calls.push((Builtin::Math(Length, Precision::Full), vec![f4.clone()], float()));
    calls.push((Builtin::Math(Normalize, Precision::Full), vec![f4.clone()], f4.clone()));
    calls.push((Builtin::Select, vec![f4.clone(), f4.clone(), Type::Vector(Scalar::Int, 4)], f4.clone()));
    calls.push((Builtin::Select, vec![int(), int(), int()], int()));
    calls.push((Builtin::Bitselect, vec![uint(), uint(), uint()], uint()));
    build(&builtin_kernel(calls), &[]);
}

#[test]
fn constant_table_with_non_finite_values() {
    // constant float tbl[3] = {1.0f, INFINITY, NAN};
    // kernel void k(global float* out) { out[get_global_id(0)] = tbl[get_global_id(0) % 3] + INFINITY; }
    let tbl_ty = Type::Array { elem: Box::new(float()), len: 3 };
    let bytes: Vec<u8> = [1.0f32, f32::INFINITY, f32::NAN].iter().flat_map(|f| f.to_le_bytes()).collect();
    let tbl = place(PlaceKind::Constant(ConstId(0)), tbl_ty.clone(), Space::Constant);
    let idx = bin(BinaryOp::Rem, global_id(0), int_lit(3, ulong()));
    let elem = place(PlaceKind::Index(Box::new(tbl), Box::new(idx)), float(), Space::Constant);
    let value = bin(BinaryOp::Add, load(elem), e(ExprKind::Float(f64::INFINITY), float()));
    let body = vec![assign(index_ptr(0, float(), Space::Global, global_id(0)), value)];
    let mut p = program(vec![kernel("k", vec![("out", gptr(float()))], vec![], body)]);
    p.constants.push(ConstantVar { name: "tbl".into(), ty: tbl_ty, bytes: bytes.clone(), loc: L });
    let k = build(&p, &[]);
    let data = k[0].constant_data();
    assert_eq!(data.len(), 1);
    assert_eq!(&data[0].bytes[..12], &bytes[..]);
    assert_eq!(data[0].bytes.len(), 16);
    // The binding is not one of the argument's.
    assert!(matches!(&k[0].args()[0].kind, ArgKind::Buffer { bindings, .. } if !bindings.contains(&data[0].binding)));
}
