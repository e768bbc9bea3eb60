//! Walks every statement and expression of a function body (inside statements, places and
//! other expressions), for the whole-program passes: call graph, renumbering, constant use,
//! atomic `__local` data.

use super::model::{Expr, ExprKind, Place, PlaceKind, Stmt};

/// A statement or an expression met by [`walk_mut`].
pub enum Node<'a> {
    Stmt(&'a mut Stmt),
    Expr(&'a mut Expr),
}

/// Calls `f` on every expression under `stmts`, outer expressions before inner ones.
pub fn exprs_mut(stmts: &mut [Stmt], f: &mut dyn FnMut(&mut Expr)) {
    walk_mut(stmts, &mut |n| {
        if let Node::Expr(e) = n {
            f(e);
        }
    });
}

/// Calls `f` on every statement and expression under `stmts`, outer ones before inner ones.
pub fn walk_mut(stmts: &mut [Stmt], f: &mut dyn FnMut(Node)) {
    for s in stmts {
        stmt_mut(s, f);
    }
}

fn stmt_mut(s: &mut Stmt, f: &mut dyn FnMut(Node)) {
    f(Node::Stmt(s));
    match s {
        Stmt::Block(b) => walk_mut(b, f),
        Stmt::Decl { init, .. } => init.iter_mut().for_each(|e| expr_mut(e, f)),
        Stmt::Expr(e) => expr_mut(e, f),
        Stmt::If { cond, then, otherwise } => {
            expr_mut(cond, f);
            stmt_mut(then, f);
            if let Some(o) = otherwise {
                stmt_mut(o, f);
            }
        }
        Stmt::While { cond, body } | Stmt::DoWhile { body, cond } => {
            expr_mut(cond, f);
            stmt_mut(body, f);
        }
        Stmt::For { init, cond, step, body, .. } => {
            walk_mut(init, f);
            cond.iter_mut().chain(step.iter_mut()).for_each(|e| expr_mut(e, f));
            stmt_mut(body, f);
        }
        Stmt::Switch { selector, cases } => {
            expr_mut(selector, f);
            cases.iter_mut().for_each(|c| walk_mut(&mut c.body, f));
        }
        Stmt::Return(Some(e)) => expr_mut(e, f),
        Stmt::Break | Stmt::Continue | Stmt::Return(None) | Stmt::Label(_) | Stmt::Goto(..) => {}
    }
}

/// Calls `f` on `e`, then on the expressions inside it.
fn expr_mut(e: &mut Expr, f: &mut dyn FnMut(Node)) {
    f(Node::Expr(e));
    match &mut e.kind {
        ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Zero | ExprKind::Current => {}
        ExprKind::Vector(items) | ExprKind::Aggregate(items) | ExprKind::Call(_, items) | ExprKind::Builtin(_, items) => {
            items.iter_mut().for_each(|i| expr_mut(i, f))
        }
        ExprKind::Load(p) | ExprKind::AddrOf(p) | ExprKind::Decay(p) => place_mut(p, f),
        ExprKind::Convert { value: a, .. }
        | ExprKind::Splat(a)
        | ExprKind::Bitcast(a)
        | ExprKind::PtrCast(a)
        | ExprKind::PtrToInt(a)
        | ExprKind::IntToPtr(a)
        | ExprKind::Unary(_, a)
        | ExprKind::Swizzle(a, _)
        | ExprKind::Member(a, _) => expr_mut(a, f),
        ExprKind::Binary(_, a, b)
        | ExprKind::Compare(_, a, b)
        | ExprKind::Logic(_, a, b)
        | ExprKind::PtrAdd(a, b)
        | ExprKind::PtrDiff(a, b)
        | ExprKind::Comma(a, b)
        | ExprKind::Extract(a, b) => {
            expr_mut(a, f);
            expr_mut(b, f);
        }
        ExprKind::Cond(a, b, c) => {
            expr_mut(a, f);
            expr_mut(b, f);
            expr_mut(c, f);
        }
        ExprKind::Assign { place, value, .. } => {
            place_mut(place, f);
            expr_mut(value, f);
        }
    }
}

/// Places hold expressions too (pointers, indices); their root variable is [`place_root`].
fn place_mut(p: &mut Place, f: &mut dyn FnMut(Node)) {
    match &mut p.kind {
        PlaceKind::Local(_) | PlaceKind::Constant(_) | PlaceKind::Workgroup(_) | PlaceKind::Global(_) => {}
        PlaceKind::Deref(e) => expr_mut(e, f),
        PlaceKind::Member(base, _) | PlaceKind::Swizzle(base, _) => place_mut(base, f),
        PlaceKind::Index(base, i) => {
            place_mut(base, f);
            expr_mut(i, f);
        }
    }
}

/// The root variable of a place (for finding which `__constant` variables a function uses).
pub fn place_root(p: &Place) -> Option<&PlaceKind> {
    match &p.kind {
        PlaceKind::Member(base, _) | PlaceKind::Swizzle(base, _) | PlaceKind::Index(base, _) => place_root(base),
        PlaceKind::Deref(_) => None,
        k => Some(k),
    }
}
