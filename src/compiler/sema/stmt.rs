//! Statements and function-scope declarations (A6, A7, A9 for `__local`/`__constant`
//! variables inside functions).

use super::model::{Expr, Local, LocalId, Space, Stmt, SwitchCase, Type, Unroll, WorkgroupId, WorkgroupVar};
use super::scope::{Symbol, VarInfo, VarRef};
use super::types::Declared;
use super::{Breakable, Sema};
use crate::compiler::parse::ast::{self, StmtKind};
use crate::compiler::source::Loc;

impl Sema<'_> {
    /// Statements of a block in a new scope; a statement with an error is dropped so later
    /// ones are still checked.
    pub(super) fn block(&mut self, stmts: &[ast::Stmt]) -> Vec<Stmt> {
        self.scopes.push();
        let out = self.statements(stmts);
        self.scopes.pop();
        out
    }

    fn statements(&mut self, stmts: &[ast::Stmt]) -> Vec<Stmt> {
        let mut out = Vec::new();
        for mut s in stmts {
            // A label stays an item of this list, so that gotos within the list reach it.
            while let ast::StmtKind::Labeled(name, inner) = &s.kind {
                out.extend(self.define_label(name, s.loc));
                s = inner;
            }
            if let ast::StmtKind::Decl(d) = &s.kind {
                out.extend(self.local_decl(d).unwrap_or_default());
            } else if let Some(s) = self.stmt(s) {
                out.push(s);
            }
        }
        out
    }

    /// The function body's own statements (its scope is the parameters' scope).
    pub(super) fn body(&mut self, stmts: &[ast::Stmt]) -> Vec<Stmt> {
        self.statements(stmts)
    }

    pub(super) fn stmt(&mut self, s: &ast::Stmt) -> Option<Stmt> {
        Some(match &s.kind {
            StmtKind::Compound(b) => Stmt::Block(self.block(b)),
            StmtKind::Decl(d) => Stmt::Block(self.local_decl(d)?),
            StmtKind::Expr(None) => Stmt::Block(vec![]),
            StmtKind::Expr(Some(e)) => Stmt::Expr(self.expr(e)?),
            StmtKind::If(c, then, otherwise) => {
                let cond = self.condition(c);
                let then = self.sub_stmt(then);
                let otherwise = otherwise.as_ref().map(|o| self.sub_stmt(o));
                Stmt::If { cond: cond?, then: Box::new(then?), otherwise: lift(otherwise)?.map(Box::new) }
            }
            StmtKind::While(c, body) => {
                let cond = self.condition(c);
                let body = self.loop_body(body);
                Stmt::While { cond: cond?, body: Box::new(body?) }
            }
            StmtKind::DoWhile(body, c) => {
                let body = self.loop_body(body);
                let cond = self.condition(c);
                Stmt::DoWhile { body: Box::new(body?), cond: cond? }
            }
            StmtKind::For { init, cond, step, body } => {
                self.scopes.push();
                let r = self.for_stmt(init.as_deref(), cond.as_ref(), step.as_ref(), body);
                self.scopes.pop();
                r?
            }
            StmtKind::Switch(value, body) => self.switch(value, body)?,
            StmtKind::Attributed(attrs, inner) => {
                let hint = self.loop_attributes(attrs);
                let mut s = self.stmt(inner)?;
                // Only `for` loops are unrolled; a hint on another loop changes nothing.
                if let Stmt::For { unroll, .. } = &mut s {
                    *unroll = hint?;
                }
                s
            }
            StmtKind::Case(..) | StmtKind::Default(_) => self.nested_case(s)?,
            StmtKind::Break => {
                if self.cur.as_ref().is_none_or(|c| c.breakables.is_empty()) {
                    return self.err(s.loc, "'break' outside a loop or switch");
                }
                Stmt::Break
            }
            StmtKind::Continue => {
                if !self.cur.as_ref().is_some_and(|c| c.breakables.contains(&Breakable::Loop)) {
                    return self.err(s.loc, "'continue' outside a loop");
                }
                Stmt::Continue
            }
            StmtKind::Return(value) => self.return_stmt(value.as_ref(), s.loc)?,
            StmtKind::Goto(name) => Stmt::Goto(self.label(name), s.loc),
            StmtKind::Labeled(..) => Stmt::Block(self.statements(std::slice::from_ref(s))),
        })
    }

    /// A nested statement gets its own scope, as in C99.
    fn sub_stmt(&mut self, s: &ast::Stmt) -> Option<Stmt> {
        self.scopes.push();
        let r = self.stmt(s);
        self.scopes.pop();
        r
    }

    fn with_breakable<T>(&mut self, b: Breakable, f: impl FnOnce(&mut Self) -> T) -> T {
        if let Some(c) = self.cur.as_mut() {
            c.breakables.push(b);
        }
        let r = f(self);
        if let Some(c) = self.cur.as_mut() {
            c.breakables.pop();
        }
        r
    }

    fn loop_body(&mut self, s: &ast::Stmt) -> Option<Stmt> {
        self.with_breakable(Breakable::Loop, |me| me.sub_stmt(s))
    }

    /// The unrolling asked for by a loop's attributes (`opencl_unroll_hint`, OpenCL C 2.0 and
    /// later); other attributes are ignored with a warning, as clang does.
    fn loop_attributes(&mut self, attrs: &[ast::Attribute]) -> Option<Unroll> {
        let mut hint = Unroll::Auto;
        for a in attrs {
            if a.name != "opencl_unroll_hint" {
                self.diags.warning(a.loc, format!("attribute '{}' ignored on a loop", a.name));
                continue;
            }
            hint = match a.args.as_slice() {
                [] => Unroll::Full,
                [ast::AttrArg::Expr(e)] => match self.const_int(e).map(u32::try_from) {
                    Some(Ok(n)) if n > 0 => Unroll::Count(n),
                    Some(_) => return self.err(e.loc, "opencl_unroll_hint needs a positive integer constant"),
                    None => return None,
                },
                _ => return self.err(a.loc, "opencl_unroll_hint takes at most one integer constant"),
            };
        }
        Some(hint)
    }

    fn condition(&mut self, e: &ast::Expr) -> Option<Expr> {
        let v = self.expr(e)?;
        self.truth_value(v)
    }

    fn for_stmt(
        &mut self,
        init: Option<&ast::Stmt>,
        cond: Option<&ast::Expr>,
        step: Option<&ast::Expr>,
        body: &ast::Stmt,
    ) -> Option<Stmt> {
        let init = match init.map(|s| &s.kind) {
            Some(StmtKind::Decl(d)) => self.local_decl(d),
            Some(_) => init.and_then(|s| self.stmt(s)).map(|s| vec![s]),
            None => Some(vec![]),
        };
        let cond = lift(cond.map(|c| self.condition(c)));
        let step = lift(step.map(|e| self.expr(e)));
        let body = self.loop_body(body);
        Some(Stmt::For { init: init?, cond: cond?, step: step?, body: Box::new(body?), unroll: Unroll::Auto })
    }

    fn return_stmt(&mut self, value: Option<&ast::Expr>, loc: Loc) -> Option<Stmt> {
        let ret = self.cur.as_ref()?.ret.clone();
        match (value, &ret) {
            (None, Type::Void) => Some(Stmt::Return(None)),
            (None, _) => self.err(loc, format!("non-void function must return a value of type '{}'", self.type_str(&ret))),
            (Some(v), Type::Void) => {
                let e = self.expr(v)?;
                if e.ty != Type::Void {
                    return self.err(loc, "a void function cannot return a value");
                }
                Some(Stmt::Block(vec![Stmt::Expr(e), Stmt::Return(None)]))
            }
            (Some(v), _) => {
                let e = self.expr(v)?;
                Some(Stmt::Return(Some(self.assign_convert(e, &ret, "a return statement")?)))
            }
        }
    }

    /// `switch`: case labels directly in the body's block; each case runs on into the next
    /// unless its body ends with `break` (or leaves otherwise).
    fn switch(&mut self, value: &ast::Expr, body: &ast::Stmt) -> Option<Stmt> {
        let selector = self.expr(value)?;
        if !selector.ty.scalar().is_some_and(|s| s.is_integer() || s == super::model::Scalar::Bool) {
            return self.err(value.loc, format!("switch needs an integer, not '{}'", self.type_str(&selector.ty)));
        }
        let selector = self.promote(selector);
        let StmtKind::Compound(items) = &body.kind else {
            return self.err(body.loc, "the body of a switch must be a block");
        };
        self.scopes.push();
        if let Some(c) = self.cur.as_mut() {
            c.switches.push((selector.ty.clone(), vec![]));
        }
        let cases = self.with_breakable(Breakable::Switch, |me| me.switch_cases(&selector.ty, items));
        let nested = self.cur.as_mut().and_then(|c| c.switches.pop()).map(|s| s.1).unwrap_or_default();
        self.scopes.pop();
        let mut cases = cases?;
        self.add_nested_cases(&mut cases, nested)?;
        Some(Stmt::Switch { selector, cases })
    }

    fn switch_cases(&mut self, ty: &Type, items: &[ast::Stmt]) -> Option<Vec<SwitchCase>> {
        let mut cases: Vec<SwitchCase> = Vec::new();
        let mut ok = true;
        for item in items {
            let mut s = item;
            // Peel `case a: case b: default: stmt` into labels of one case.
            let mut labels = Vec::new();
            loop {
                match &s.kind {
                    StmtKind::Case(v, inner) => {
                        labels.push((Some(v), s.loc));
                        s = inner;
                    }
                    StmtKind::Default(inner) => {
                        labels.push((None, s.loc));
                        s = inner;
                    }
                    _ => break,
                }
            }
            if !labels.is_empty() {
                let reuse = cases.last().is_some_and(|c| c.body.is_empty());
                if !reuse {
                    cases.push(SwitchCase { values: vec![], is_default: false, body: vec![], falls_through: true });
                }
                for (v, loc) in labels {
                    ok &= self.case_label(v, loc, ty, &mut cases).is_some();
                }
            }
            let nested_before = self.nested_cases();
            let stmts = match &s.kind {
                StmtKind::Decl(d) => self.local_decl(d),
                _ => self.stmt(s).map(|s| vec![s]),
            };
            if cases.is_empty() {
                if self.nested_cases() == nested_before {
                    self.diags.warning(s.loc, "statement before the first case label is never executed");
                    continue;
                }
                // Entered only through the case labels nested inside it.
                cases.push(SwitchCase { values: vec![], is_default: false, body: vec![], falls_through: true });
            }
            match (stmts, cases.last_mut()) {
                (Some(st), Some(c)) => c.body.extend(st),
                _ => ok = false,
            }
        }
        if !ok {
            return None;
        }
        for c in cases.iter_mut() {
            match c.body.last() {
                Some(Stmt::Break) => {
                    c.body.pop();
                    c.falls_through = false;
                }
                Some(Stmt::Return(_) | Stmt::Continue) => c.falls_through = false,
                _ => {}
            }
        }
        if let Some(last) = cases.last_mut() {
            last.falls_through = false;
        }
        Some(cases)
    }

    fn case_label(&mut self, value: Option<&ast::Expr>, loc: Loc, ty: &Type, cases: &mut [SwitchCase]) -> Option<()> {
        let Some(v) = value else {
            if cases.iter().any(|c| c.is_default) {
                return self.err(loc, "multiple default labels in one switch");
            }
            cases.last_mut()?.is_default = true;
            return Some(());
        };
        let (n, bits) = self.case_value(v, ty)?;
        if cases.iter().any(|c| c.values.contains(&bits)) {
            return self.err(loc, format!("duplicate case value {n}"));
        }
        cases.last_mut()?.values.push(bits);
        Some(())
    }

    /// How many case labels nested inside statements the innermost switch has so far.
    fn nested_cases(&self) -> usize {
        self.cur.as_ref().and_then(|c| c.switches.last()).map_or(0, |s| s.1.len())
    }

    /// A case label's value and its bits in the selector's type.
    pub(super) fn case_value(&mut self, v: &ast::Expr, ty: &Type) -> Option<(i128, u64)> {
        let n = self.const_int(v)?;
        Some((n, super::consteval::int_bits(n, ty.scalar()?)))
    }

    /// A declaration inside a function: private locals (with their initialisation as a
    /// statement), kernel-scope `__local` (workgroup) and `__constant` variables, typedefs.
    pub(super) fn local_decl(&mut self, d: &ast::Declaration) -> Option<Vec<Stmt>> {
        let base = self.spec_type(&d.spec)?;
        let mut out = Vec::new();
        for id in &d.declarators {
            if matches!(id.declarator.derived.first(), Some(ast::Derived::Function(..))) {
                let at = id.declarator.loc;
                self.err::<()>(at, "functions cannot be declared inside a function");
                continue;
            }
            let Some(decl) = self.declared(&d.spec, base.clone(), &id.declarator, false) else { continue };
            let Some((name, loc)) = decl.name.clone() else { continue };
            if self.scopes.lookup_here(&name).is_some() {
                self.err::<()>(loc, format!("redefinition of '{name}'"));
                continue;
            }
            if d.spec.storage.is_typedef {
                let align = self.declared_align(&d.spec, &id.declarator.attrs).unwrap_or_default();
                self.declare_typedef(&name, decl.ty, align);
                continue;
            }
            if let Some(s) = self.local_var(d, decl, id.init.as_ref(), &name, loc) {
                out.extend(s);
            }
        }
        Some(out)
    }

    fn local_var(
        &mut self,
        d: &ast::Declaration,
        mut decl: Declared,
        init: Option<&ast::Initializer>,
        name: &str,
        loc: Loc,
    ) -> Option<Option<Stmt>> {
        if d.spec.storage.is_static && self.is_cl2() {
            return self.static_local(decl, init, name, loc).map(|_| None);
        }
        if d.spec.storage.is_static || d.spec.storage.is_extern {
            return self.err(loc, "static variables inside functions need OpenCL C 2.0 or 3.0; extern ones are not supported");
        }
        if let Some(i) = init.filter(|_| decl.unsized_array) {
            decl.ty = self.sized_by_initializer(&decl.ty, i)?;
        } else if decl.unsized_array {
            return self.err(loc, format!("array '{name}' needs a size or an initializer"));
        }
        if decl.ty == Type::Void {
            return self.err(loc, format!("variable '{name}' has type 'void'"));
        }
        match decl.ty {
            Type::Image(..) => return self.err(loc, format!("'{name}': an image can only be a function parameter")),
            Type::Sampler => return self.sampler_var(decl.space, init, name, loc).map(|_| None),
            _ => {}
        }
        self.check_half_value(&decl.ty, loc)?;
        match decl.space.map(|s| s.0) {
            None | Some(Space::Private) => self.private_var(decl, init, name, loc).map(Some),
            Some(Space::Local) => self.workgroup_var(decl, init, name, loc).map(|_| None),
            Some(Space::Constant) => {
                self.kernel_constant(decl, init, name, loc)?;
                Some(None)
            }
            Some(Space::Global) => self.err(
                decl.space.map_or(loc, |s| s.1),
                format!("variable '{name}' inside a function cannot be declared __global"),
            ),
            Some(Space::Generic) => self.err(decl.space.map_or(loc, |s| s.1), format!("variable '{name}' cannot be declared in the generic address space")),
        }
    }

    fn private_var(&mut self, decl: Declared, init: Option<&ast::Initializer>, name: &str, loc: Loc) -> Option<Stmt> {
        if init.is_some() && self.contains_atomic(&decl.ty) {
            return self.err(loc, format!("atomic variable '{name}' can be initialized only in the __global address space (at program scope); use atomic_init"));
        }
        let init = match init {
            Some(i) => self.initializer_value(i, &decl.ty).map(Some),
            None if decl.is_const => {
                self.diags.warning(loc, format!("const variable '{name}' is never initialized"));
                Some(None)
            }
            None => Some(None),
        };
        // Declared even when its initializer is in error, so that its uses are not errors too.
        let local = self.add_local(name, decl.ty.clone(), loc)?;
        let info = VarInfo { var: VarRef::Local(local), ty: decl.ty, space: Space::Private, is_const: decl.is_const };
        self.scopes.declare(name, Symbol::Var(info));
        Some(Stmt::Decl { local, init: init? })
    }

    pub(super) fn add_local(&mut self, name: &str, ty: Type, loc: Loc) -> Option<LocalId> {
        let cur = self.cur.as_mut()?;
        cur.locals.push(Local { name: name.to_string(), ty, loc });
        Some(LocalId(cur.locals.len() as u32 - 1))
    }

    /// A6: only at the outermost scope of a kernel; A7: never initialised.
    fn workgroup_var(&mut self, decl: Declared, init: Option<&ast::Initializer>, name: &str, loc: Loc) -> Option<()> {
        let space_loc = decl.space.map_or(loc, |s| s.1);
        let (is_kernel, outermost, entry) = match &self.cur {
            Some(c) => (c.is_kernel, self.scopes.depth() == c.body_depth, c.entry),
            None => (false, false, 0),
        };
        if !is_kernel {
            return self.err(space_loc, format!("__local variable '{name}' can only be declared in a kernel function, not in a non-kernel function"));
        }
        if !outermost {
            return self.err(space_loc, format!("__local variable '{name}' must be declared at the outermost scope of the kernel, not in a nested block"));
        }
        if init.is_some() {
            return self.err(loc, format!("__local variable '{name}' cannot be initialized"));
        }
        let id = WorkgroupId(self.workgroup_vars.len() as u32);
        self.workgroup_vars.push(WorkgroupVar {
            name: name.to_string(),
            ty: decl.ty.clone(),
            kernel: super::model::FuncId(entry as u32),
            loc,
        });
        if let Some(c) = self.cur.as_mut() {
            c.workgroup_vars.push(id);
        }
        let info = VarInfo { var: VarRef::Workgroup(id), ty: decl.ty, space: Space::Local, is_const: decl.is_const };
        self.scopes.declare(name, Symbol::Var(info));
        Some(())
    }

    /// A `__constant` variable inside a kernel: at its outermost scope only, initialised.
    fn kernel_constant(&mut self, decl: Declared, init: Option<&ast::Initializer>, name: &str, loc: Loc) -> Option<()> {
        let space_loc = decl.space.map_or(loc, |s| s.1);
        let ok = self.cur.as_ref().is_some_and(|c| c.is_kernel && self.scopes.depth() == c.body_depth);
        if !ok {
            return self.err(
                space_loc,
                format!("__constant variable '{name}' inside a function must be at the outermost scope of a kernel"),
            );
        }
        let id = self.constant_var(decl, init, name, loc)?;
        if let Some(c) = self.cur.as_mut() {
            c.own_constants.push(id);
        }
        Some(())
    }
}

/// An optional part that failed is an error (`None`); an absent part is fine (`Some(None)`).
fn lift<T>(part: Option<Option<T>>) -> Option<Option<T>> {
    match part {
        None => Some(None),
        Some(v) => v.map(Some),
    }
}
