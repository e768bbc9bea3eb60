//! Lowering tests on hand-built models: each kernel is lowered, specialised and checked by
//! naga's validator (inside `specialize`) and by `spirv-val` when installed.

use super::*;
use crate::compiler::sema::model::*;
use crate::compiler::spirv::tests::spirv_val;
use crate::compiler::{ArgKind, DescriptorKind, Kernel};

pub fn target() -> Target {
    Target {
        address_bits: 64,
        int64: true,
        int16: true,
        fp64: true,
        fp16: true,
        storage_8bit: true,
        storage_16bit: true,
        max_push_constants_size: 128,
        max_constant_args: 8,
        max_constant_buffer_size: 65536,
        max_uniform_buffer_range: 65536,
        max_work_group_size: 1024,
        max_work_item_sizes: [1024, 1024, 64],
        local_mem_size: 49152,
        subgroup_size: 32,
        opencl_c_version: 300,
    }
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
        loc: L,
    }
}
pub fn program(functions: Vec<Function>) -> Program {
    Program { types: Types { records: vec![], pointer_size: 8 }, constants: vec![], workgroup_vars: vec![], functions }
}

/// Lowers, specialises with a 64×1×1 work-group and validates.
pub fn build(p: &Program, local_sizes: &[u32]) -> Vec<CompiledKernel> {
    let kernels = lower_program(p, &target()).unwrap_or_else(|e| panic!("lowering failed: {e:?}"));
    for k in &kernels {
        let words = k.specialize([64, 1, 1], local_sizes).unwrap_or_else(|e| panic!("{e}"));
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
        assert!(!k[0].aliased);
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
