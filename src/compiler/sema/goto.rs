//! Goto elimination: naga's IR (and SPIR-V's structured control flow) has no jumps, so the
//! `goto`s and labels of a function body become loops, switches and flags before the body
//! enters the model.
//!
//! Labels are items of statement lists (a plain `{ }` block is spliced into the list around
//! it, since locals are already resolved: that changes no meaning). A list whose labels are
//! targets of gotos inside the list becomes a *region*:
//!
//! ```text
//! state = 0; leave = 0;
//! while (1) {
//!     switch (state) { case 0: <before L1> case 1: <L1 up to L2> case 2: ... }
//!     if (leave == GOTO) { leave = 0; continue; }
//!     break;
//! }
//! if (leave == BREAK) break;        (only where a break left the region)
//! if (leave == CONTINUE) continue;  (only where a continue left the region)
//! ```
//!
//! The cases fall through, so without jumps the list runs in order. `goto Li` becomes
//! `state = i; leave = GOTO; break;`: the `break` leaves the innermost loop or switch of the
//! region, and after every loop or switch that contains such a jump, `if (leave) break;`
//! carries it outwards, up to the region's switch; the region's loop then dispatches to case
//! `i`. Forward and backward jumps, jumps out of any nesting of loops and switches, and many
//! gotos to one label all take this path. A `break` or `continue` of the original code that
//! leaves the region (its loop or switch encloses the region) would now stop at the region's
//! loop or switch, so it leaves the same way with its own code and is repeated after the
//! region. Lists are processed innermost first; an inner region's loop and switch are
//! ordinary nesting for an outer one.
//!
//! A goto into a statement from outside it (into a loop body, an `if` branch or a switch
//! case) first *opens* that statement: it is rewritten in place as labels and gotos (`if (c)
//! goto T; else goto E; T: … goto End; E: … End:`, a loop as `Top: if (!c) goto End; …
//! goto Top; End:` with its own `break`/`continue` turned into gotos, a switch as a chain of
//! comparisons with gotos to its cases), until the label is an item of a list that holds the
//! goto. The dispatch loop then runs the opened statement as a state machine, so even jumps
//! into the middle of a loop work. A `case` label nested inside a statement of its switch's
//! body (Duff's device) is such a label, with a case of the switch that jumps to it.

use super::model::{CmpOp, Expr, ExprKind, LocalId, Place, PlaceKind, Scalar, Space, Stmt, SwitchCase, Type};
use super::Sema;
use crate::compiler::parse::ast::{self, StmtKind};
use crate::compiler::source::Loc;

/// A label of the function being analysed.
pub(super) struct LabelInfo {
    name: String,
    defined: Option<Loc>,
}

/// A `case` or `default` label inside a statement of a switch body (Duff's device, miniz's
/// coroutines): a label where it stands, and a case of the switch that jumps to it.
pub(super) struct NestedCase {
    /// The value and its bits in the selector's type; `None` for `default`.
    value: Option<(i128, u64)>,
    label: u32,
    loc: Loc,
}

/// Why a jump left a region's switch (`leave`).
const GOTO: u64 = 1;
const BREAK: u64 = 2;
const CONTINUE: u64 = 3;

const INT: Type = Type::Scalar(Scalar::Int);

/// A list being turned into a dispatch loop.
struct Region {
    state: LocalId,
    leave: LocalId,
    /// The labels of the list that gotos inside it target; label `labels[i]` is case `i + 1`.
    labels: Vec<u32>,
    /// Jumps rewritten so far (to tell whether a nested statement had any).
    jumps: usize,
    breaks: bool,
    continues: bool,
    loc: Loc,
}

fn int(v: u64, loc: Loc) -> Expr {
    Expr { kind: ExprKind::Int(v), ty: INT, loc }
}

fn local(id: LocalId, ty: &Type, loc: Loc) -> Place {
    Place { kind: PlaceKind::Local(id), ty: ty.clone(), space: Space::Private, is_const: false, loc }
}

fn set(id: LocalId, v: u64, loc: Loc) -> Stmt {
    let value = Box::new(int(v, loc));
    Stmt::Expr(Expr { kind: ExprKind::Assign { place: Box::new(local(id, &INT, loc)), value, yields_old: false }, ty: INT, loc })
}

fn get(id: LocalId, ty: &Type, loc: Loc) -> Expr {
    Expr { kind: ExprKind::Load(Box::new(local(id, ty, loc))), ty: ty.clone(), loc }
}

/// Plain blocks spliced into the list that holds them.
fn splice(list: Vec<Stmt>) -> Vec<Stmt> {
    let mut out = Vec::with_capacity(list.len());
    for s in list {
        match s {
            Stmt::Block(inner) => out.extend(splice(inner)),
            s => out.push(s),
        }
    }
    out
}

/// Which nested list of a statement a step of a [`Path`] enters.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Child {
    Then,
    Else,
    Body,
    Case(usize),
}

/// Where a list lies: from the function body, item `i`'s nested list, and so on.
type Path = Vec<(usize, Child)>;

/// `list` with plain blocks spliced and every branch and loop body a block.
fn normalize(list: Vec<Stmt>) -> Vec<Stmt> {
    splice(list).into_iter().map(normalize_stmt).collect()
}

fn as_block(s: Stmt) -> Box<Stmt> {
    let list = match s {
        Stmt::Block(list) => list,
        s => vec![s],
    };
    Box::new(Stmt::Block(normalize(list)))
}

fn normalize_stmt(s: Stmt) -> Stmt {
    match s {
        Stmt::If { cond, then, otherwise } => Stmt::If { cond, then: as_block(*then), otherwise: otherwise.map(|o| as_block(*o)) },
        Stmt::While { cond, body } => Stmt::While { cond, body: as_block(*body) },
        Stmt::DoWhile { body, cond } => Stmt::DoWhile { body: as_block(*body), cond },
        Stmt::For { init, cond, step, body, unroll } => Stmt::For { init, cond, step, body: as_block(*body), unroll },
        Stmt::Switch { selector, cases } => {
            Stmt::Switch { selector, cases: cases.into_iter().map(|c| SwitchCase { body: normalize(c.body), ..c }).collect() }
        }
        s => s,
    }
}

/// The nested lists of a normalized statement.
fn children(s: &Stmt) -> Vec<(Child, &Vec<Stmt>)> {
    fn block(s: &Stmt) -> Option<&Vec<Stmt>> {
        match s {
            Stmt::Block(list) => Some(list),
            _ => None,
        }
    }
    match s {
        Stmt::If { then, otherwise, .. } => {
            let then = block(then).map(|l| (Child::Then, l));
            then.into_iter().chain(otherwise.as_deref().and_then(block).map(|l| (Child::Else, l))).collect()
        }
        Stmt::While { body, .. } | Stmt::DoWhile { body, .. } | Stmt::For { body, .. } => block(body).map(|l| (Child::Body, l)).into_iter().collect(),
        Stmt::Switch { cases, .. } => cases.iter().enumerate().map(|(j, c)| (Child::Case(j), &c.body)).collect(),
        _ => vec![],
    }
}

fn child_mut(s: &mut Stmt, which: Child) -> Option<&mut Vec<Stmt>> {
    let target = match (s, which) {
        (Stmt::If { then, .. }, Child::Then) => then,
        (Stmt::If { otherwise: Some(o), .. }, Child::Else) => o,
        (Stmt::While { body, .. } | Stmt::DoWhile { body, .. } | Stmt::For { body, .. }, Child::Body) => body,
        (Stmt::Switch { cases, .. }, Child::Case(j)) => return cases.get_mut(j).map(|c| &mut c.body),
        _ => return None,
    };
    match &mut **target {
        Stmt::Block(list) => Some(list),
        _ => None,
    }
}

/// The list at `path`.
fn list_at<'a>(list: &'a mut Vec<Stmt>, path: &[(usize, Child)]) -> Option<&'a mut Vec<Stmt>> {
    match path.split_first() {
        None => Some(list),
        Some((&(i, which), rest)) => list_at(child_mut(list.get_mut(i)?, which)?, rest),
    }
}

/// The paths of the lists holding each label and each goto.
fn places(list: &[Stmt], path: &mut Path, labels: &mut Vec<(u32, Path)>, gotos: &mut Vec<(u32, Path, Loc)>) {
    for (i, s) in list.iter().enumerate() {
        match s {
            Stmt::Label(l) => labels.push((*l, path.clone())),
            Stmt::Goto(l, loc) => gotos.push((*l, path.clone(), *loc)),
            _ => {}
        }
        for (which, inner) in children(s) {
            path.push((i, which));
            places(inner, path, labels, gotos);
            path.pop();
        }
    }
}

/// A goto whose label lies inside a statement that does not hold the goto: the path of the
/// innermost list holding both, the index there of the statement to open, and the goto's loc.
fn jump_inwards(body: &[Stmt]) -> Option<(Path, usize, Loc)> {
    let (mut labels, mut gotos) = (Vec::new(), Vec::new());
    places(body, &mut Vec::new(), &mut labels, &mut gotos);
    gotos.into_iter().find_map(|(l, from, loc)| {
        let (_, to) = labels.iter().find(|(m, _)| *m == l)?;
        let common = from.iter().zip(to).take_while(|(a, b)| a == b).count();
        (common < to.len()).then(|| (to[..common].to_vec(), to[common].0, loc))
    })
}

/// `s` with the `break`s and `continue`s that leave the statement being opened (`depth`
/// loops and switches, `loops` loops inside it) turned into gotos.
fn exits(s: Stmt, to_break: u32, to_continue: Option<u32>, depth: u32, loops: u32, loc: Loc) -> Stmt {
    let inner = |s: Box<Stmt>, is_loop: bool| Box::new(exits(*s, to_break, to_continue, depth + 1, loops + u32::from(is_loop), loc));
    match s {
        Stmt::Break if depth == 0 => Stmt::Goto(to_break, loc),
        Stmt::Continue if loops == 0 => to_continue.map_or(Stmt::Continue, |c| Stmt::Goto(c, loc)),
        Stmt::Block(list) => Stmt::Block(list.into_iter().map(|s| exits(s, to_break, to_continue, depth, loops, loc)).collect()),
        Stmt::If { cond, then, otherwise } => Stmt::If {
            cond,
            then: Box::new(exits(*then, to_break, to_continue, depth, loops, loc)),
            otherwise: otherwise.map(|o| Box::new(exits(*o, to_break, to_continue, depth, loops, loc))),
        },
        Stmt::While { cond, body } => Stmt::While { cond, body: inner(body, true) },
        Stmt::DoWhile { body, cond } => Stmt::DoWhile { body: inner(body, true), cond },
        Stmt::For { init, cond, step, body, unroll } => Stmt::For { init, cond, step, body: inner(body, true), unroll },
        Stmt::Switch { selector, cases } => {
            let case = |c: SwitchCase| SwitchCase { body: c.body.into_iter().map(|s| exits(s, to_break, to_continue, depth + 1, loops, loc)).collect(), ..c };
            Stmt::Switch { selector, cases: cases.into_iter().map(case).collect() }
        }
        s => s,
    }
}

/// The items of a normalized branch or body.
fn items(s: Stmt) -> Vec<Stmt> {
    match s {
        Stmt::Block(list) => list,
        s => vec![s],
    }
}

/// `if (!cond) goto to;`
fn unless(cond: Expr, to: u32, loc: Loc) -> Stmt {
    Stmt::If { cond, then: Box::new(Stmt::Block(vec![])), otherwise: Some(Box::new(Stmt::Goto(to, loc))) }
}

/// Calls `f` on every goto's label inside `s`.
fn each_goto(s: &Stmt, f: &mut dyn FnMut(u32, Loc)) {
    match s {
        Stmt::Goto(l, loc) => f(*l, *loc),
        Stmt::Block(list) => list.iter().for_each(|s| each_goto(s, f)),
        Stmt::If { then, otherwise, .. } => {
            each_goto(then, f);
            otherwise.iter().for_each(|o| each_goto(o, f));
        }
        Stmt::While { body, .. } | Stmt::DoWhile { body, .. } => each_goto(body, f),
        Stmt::For { init, body, .. } => {
            init.iter().for_each(|s| each_goto(s, f));
            each_goto(body, f);
        }
        Stmt::Switch { cases, .. } => cases.iter().flat_map(|c| &c.body).for_each(|s| each_goto(s, f)),
        _ => {}
    }
}

impl Sema<'_> {
    /// The index of label `name`, which a `goto` names.
    pub(super) fn label(&mut self, name: &str) -> u32 {
        let Some(cur) = self.cur.as_mut() else { return 0 };
        let found = cur.labels.iter().position(|l| l.name == name);
        let index = found.unwrap_or_else(|| {
            cur.labels.push(LabelInfo { name: name.to_string(), defined: None });
            cur.labels.len() - 1
        });
        index as u32
    }

    /// `name:` at `loc`: the label statement, or nothing after the error of a second one.
    pub(super) fn define_label(&mut self, name: &str, loc: Loc) -> Option<Stmt> {
        let index = self.label(name);
        let info = self.cur.as_mut()?.labels.get_mut(index as usize)?;
        if info.defined.is_some() {
            return self.err(loc, format!("redefinition of label '{name}'"));
        }
        info.defined = Some(loc);
        Some(Stmt::Label(index))
    }

    /// A label no goto names by name.
    fn hidden_label(&mut self, loc: Loc) -> Option<u32> {
        let labels = &mut self.cur.as_mut()?.labels;
        labels.push(LabelInfo { name: String::new(), defined: Some(loc) });
        Some(labels.len() as u32 - 1)
    }

    /// A `case`/`default` label below the top level of the innermost switch's body.
    pub(super) fn nested_case(&mut self, s: &ast::Stmt) -> Option<Stmt> {
        let (value, inner) = match &s.kind {
            StmtKind::Case(v, inner) => (Some(v), inner),
            StmtKind::Default(inner) => (None, inner),
            _ => return None,
        };
        let Some(ty) = self.cur.as_ref().and_then(|c| c.switches.last()).map(|s| s.0.clone()) else {
            return self.err(s.loc, "case label outside a switch");
        };
        let value = match value {
            Some(v) => Some(self.case_value(v, &ty)?),
            None => None,
        };
        let label = self.hidden_label(s.loc)?;
        self.cur.as_mut()?.switches.last_mut()?.1.push(NestedCase { value, label, loc: s.loc });
        let inner = self.stmt(inner)?;
        Some(Stmt::Block(vec![Stmt::Label(label), inner]))
    }

    /// Appends a case jumping to each nested label (after the switch's own cases, the last of
    /// which does not fall through).
    pub(super) fn add_nested_cases(&mut self, cases: &mut Vec<SwitchCase>, nested: Vec<NestedCase>) -> Option<()> {
        for n in nested {
            match n.value {
                Some((v, bits)) if cases.iter().any(|c| c.values.contains(&bits)) => {
                    return self.err(n.loc, format!("duplicate case value {v}"));
                }
                None if cases.iter().any(|c| c.is_default) => return self.err(n.loc, "multiple default labels in one switch"),
                _ => {}
            }
            let values = n.value.map(|v| v.1).into_iter().collect();
            cases.push(SwitchCase { values, is_default: n.value.is_none(), body: vec![Stmt::Goto(n.label, n.loc)], falls_through: false });
        }
        Some(())
    }

    /// A function body without gotos and labels, or `None` after reporting a goto to an
    /// undeclared label.
    pub(super) fn eliminate_gotos(&mut self, body: Vec<Stmt>) -> Option<Vec<Stmt>> {
        let mut labels = match self.cur.as_mut() {
            Some(c) if !c.labels.is_empty() => std::mem::take(&mut c.labels),
            _ => return Some(body),
        };
        let mut undeclared = false;
        body.iter().for_each(|s| {
            each_goto(s, &mut |l, loc| {
                if let Some(info) = labels.get(l as usize).filter(|i| i.defined.is_none()) {
                    undeclared = true;
                    self.diags.error(loc, format!("use of undeclared label '{}'", info.name));
                }
            })
        });
        if undeclared {
            return None;
        }
        let mut body = normalize(body);
        while let Some((path, i, loc)) = jump_inwards(&body) {
            let Some(list) = list_at(&mut body, &path).filter(|l| i < l.len()) else {
                return self.err(loc, "internal compiler error: the statement a goto jumps into was not found");
            };
            let opened = self.open(list.remove(i), &mut labels, loc)?;
            list.splice(i..i, opened);
        }
        Some(self.structure_list(body))
    }

    /// `s` as labels, gotos and the statements of its branches or body (see the module
    /// comment); new labels are added to `labels`.
    fn open(&mut self, s: Stmt, labels: &mut Vec<LabelInfo>, loc: Loc) -> Option<Vec<Stmt>> {
        let mut fresh = || {
            labels.push(LabelInfo { name: String::new(), defined: Some(loc) });
            labels.len() as u32 - 1
        };
        let goto = |l: u32| Stmt::Goto(l, loc);
        Some(match s {
            Stmt::If { cond, then, otherwise } => {
                let (t, e, end) = (fresh(), fresh(), fresh());
                let mut out = vec![Stmt::If { cond, then: Box::new(goto(t)), otherwise: Some(Box::new(goto(e))) }, Stmt::Label(t)];
                out.extend(items(*then));
                out.extend([goto(end), Stmt::Label(e)]);
                out.extend(otherwise.map(|o| items(*o)).unwrap_or_default());
                out.push(Stmt::Label(end));
                out
            }
            Stmt::While { cond, body } => {
                let (top, end) = (fresh(), fresh());
                let mut out = vec![Stmt::Label(top), unless(cond, end, loc)];
                out.extend(items(*body).into_iter().map(|s| exits(s, end, Some(top), 0, 0, loc)));
                out.extend([goto(top), Stmt::Label(end)]);
                out
            }
            Stmt::DoWhile { body, cond } => {
                let (top, next, end) = (fresh(), fresh(), fresh());
                let mut out = vec![Stmt::Label(top)];
                out.extend(items(*body).into_iter().map(|s| exits(s, end, Some(next), 0, 0, loc)));
                out.extend([Stmt::Label(next), Stmt::If { cond, then: Box::new(goto(top)), otherwise: None }, Stmt::Label(end)]);
                out
            }
            // Opened into labels and gotos, the loop is no longer a counted one to unroll.
            Stmt::For { init, cond, step, body, .. } => {
                let (top, next, end) = (fresh(), fresh(), fresh());
                let mut out = init;
                out.push(Stmt::Label(top));
                out.extend(cond.map(|c| unless(c, end, loc)));
                out.extend(items(*body).into_iter().map(|s| exits(s, end, Some(next), 0, 0, loc)));
                out.push(Stmt::Label(next));
                out.extend(step.map(Stmt::Expr));
                out.extend([goto(top), Stmt::Label(end)]);
                out
            }
            Stmt::Switch { selector, cases } => {
                let ty = selector.ty.clone();
                let value = self.add_local("goto.switch", ty.clone(), loc)?;
                let targets: Vec<u32> = cases.iter().map(|_| fresh()).collect();
                let end = fresh();
                let mut out = vec![Stmt::Decl { local: value, init: Some(selector) }];
                for (c, &t) in cases.iter().zip(&targets) {
                    for &v in &c.values {
                        let case = Expr { kind: ExprKind::Int(v), ty: ty.clone(), loc };
                        let eq = Expr { kind: ExprKind::Compare(CmpOp::Eq, Box::new(get(value, &ty, loc)), Box::new(case)), ty: INT, loc };
                        let cond = self.convert(eq, &Type::Scalar(Scalar::Bool));
                        out.push(Stmt::If { cond, then: Box::new(goto(t)), otherwise: None });
                    }
                }
                let default = cases.iter().zip(&targets).find(|(c, _)| c.is_default).map_or(end, |(_, &t)| t);
                out.push(goto(default));
                for (c, t) in cases.into_iter().zip(targets) {
                    out.push(Stmt::Label(t));
                    out.extend(c.body.into_iter().map(|s| exits(s, end, None, 0, 0, loc)));
                    if !c.falls_through {
                        out.push(goto(end));
                    }
                }
                out.push(Stmt::Label(end));
                out
            }
            s => vec![s],
        })
    }

    /// A list with its nested lists structured first, then its own labels.
    fn structure_list(&mut self, list: Vec<Stmt>) -> Vec<Stmt> {
        let list: Vec<Stmt> = splice(list).into_iter().map(|s| self.structure_stmt(s)).collect();
        let mut targets = Vec::new();
        list.iter().for_each(|s| each_goto(s, &mut |l, loc| targets.push((l, loc))));
        let labels: Vec<u32> = list.iter().filter_map(|s| match s {
            Stmt::Label(l) if targets.iter().any(|t| t.0 == *l) => Some(*l),
            _ => None,
        }).collect();
        let first_jump = targets.iter().find(|t| labels.contains(&t.0));
        let Some(&(_, loc)) = first_jump else {
            // Labels no goto inside the list names: a goto from outside is reported later.
            return list.into_iter().filter(|s| !matches!(s, Stmt::Label(_))).collect();
        };
        self.dispatch(list, labels, loc).unwrap_or_default()
    }

    fn structure_stmt(&mut self, s: Stmt) -> Stmt {
        let branch = |me: &mut Self, s: Box<Stmt>| Box::new(Stmt::Block(me.structure_list(vec![*s])));
        match s {
            Stmt::Block(list) => Stmt::Block(self.structure_list(list)),
            Stmt::If { cond, then, otherwise } => {
                let then = branch(self, then);
                Stmt::If { cond, then, otherwise: otherwise.map(|o| branch(self, o)) }
            }
            Stmt::While { cond, body } => Stmt::While { cond, body: branch(self, body) },
            Stmt::DoWhile { body, cond } => Stmt::DoWhile { body: branch(self, body), cond },
            Stmt::For { init, cond, step, body, unroll } => Stmt::For { init, cond, step, body: branch(self, body), unroll },
            Stmt::Switch { selector, cases } => {
                let cases = cases.into_iter().map(|c| SwitchCase { body: self.structure_list(c.body), ..c }).collect();
                Stmt::Switch { selector, cases }
            }
            s => s,
        }
    }

    /// The dispatch loop of a list whose `labels` are targets (see the module comment).
    /// `loc`: the first jump's, for the statements made here.
    fn dispatch(&mut self, list: Vec<Stmt>, labels: Vec<u32>, loc: Loc) -> Option<Vec<Stmt>> {
        let state = self.add_local("goto.state", INT, loc)?;
        let leave = self.add_local("goto.leave", INT, loc)?;
        let mut r = Region { state, leave, labels, jumps: 0, breaks: false, continues: false, loc };
        let mut cases = vec![SwitchCase { values: vec![0], is_default: false, body: vec![], falls_through: true }];
        for s in list {
            match s {
                Stmt::Label(l) => {
                    if let Some(i) = r.labels.iter().position(|&t| t == l) {
                        cases.push(SwitchCase { values: vec![i as u64 + 1], is_default: false, body: vec![], falls_through: true });
                    }
                }
                s => {
                    let s = self.rewrite(s, &mut r, 0, 0);
                    cases.last_mut()?.body.push(s);
                }
            }
        }
        cases.last_mut()?.falls_through = false;
        let switch = Stmt::Switch { selector: get(state, &INT, loc), cases };
        let redispatch = Stmt::If { cond: self.leave_is(&r, CmpOp::Eq, GOTO), then: Box::new(Stmt::Block(vec![set(leave, 0, loc), Stmt::Continue])), otherwise: None };
        let forever = Expr { kind: ExprKind::Int(1), ty: Type::Scalar(Scalar::Bool), loc };
        let mut out = vec![
            Stmt::Decl { local: state, init: Some(int(0, loc)) },
            Stmt::Decl { local: leave, init: Some(int(0, loc)) },
            Stmt::While { cond: forever, body: Box::new(Stmt::Block(vec![switch, redispatch, Stmt::Break])) },
        ];
        for (used, code, jump) in [(r.breaks, BREAK, Stmt::Break), (r.continues, CONTINUE, Stmt::Continue)] {
            if used {
                out.push(Stmt::If { cond: self.leave_is(&r, CmpOp::Eq, code), then: Box::new(jump), otherwise: None });
            }
        }
        Some(out)
    }

    /// `leave <op> code` as a condition.
    fn leave_is(&self, r: &Region, op: CmpOp, code: u64) -> Expr {
        let cmp = Expr { kind: ExprKind::Compare(op, Box::new(get(r.leave, &INT, r.loc)), Box::new(int(code, r.loc))), ty: INT, loc: r.loc };
        self.convert(cmp, &Type::Scalar(Scalar::Bool))
    }

    /// `s` inside region `r`, `depth` loops and switches deep (`loops` of them loops), with
    /// its jumps to the region's labels and its `break`s and `continue`s that leave the region
    /// rewritten to leave through the region's switch.
    fn rewrite(&mut self, s: Stmt, r: &mut Region, depth: u32, loops: u32) -> Stmt {
        let before = r.jumps;
        let inner = |me: &mut Self, r: &mut Region, s: Box<Stmt>, loop_: bool| Box::new(me.rewrite(*s, r, depth + 1, loops + u32::from(loop_)));
        let nested = match s {
            Stmt::Goto(l, loc) => match r.labels.iter().position(|&t| t == l) {
                Some(i) => return self.jump(r, Some((i as u64 + 1, loc)), GOTO),
                None => return Stmt::Goto(l, loc),
            },
            Stmt::Break if depth == 0 => {
                r.breaks = true;
                return self.jump(r, None, BREAK);
            }
            Stmt::Continue if loops == 0 => {
                r.continues = true;
                return self.jump(r, None, CONTINUE);
            }
            Stmt::Block(list) => return Stmt::Block(list.into_iter().map(|s| self.rewrite(s, r, depth, loops)).collect()),
            Stmt::If { cond, then, otherwise } => {
                let then = Box::new(self.rewrite(*then, r, depth, loops));
                let otherwise = otherwise.map(|o| Box::new(self.rewrite(*o, r, depth, loops)));
                return Stmt::If { cond, then, otherwise };
            }
            Stmt::While { cond, body } => Stmt::While { cond, body: inner(self, r, body, true) },
            Stmt::DoWhile { body, cond } => Stmt::DoWhile { body: inner(self, r, body, true), cond },
            Stmt::For { init, cond, step, body, unroll } => Stmt::For { init, cond, step, body: inner(self, r, body, true), unroll },
            Stmt::Switch { selector, cases } => {
                let cases = cases
                    .into_iter()
                    .map(|c| SwitchCase { body: c.body.into_iter().map(|s| self.rewrite(s, r, depth + 1, loops)).collect(), ..c })
                    .collect();
                Stmt::Switch { selector, cases }
            }
            s => return s,
        };
        if r.jumps == before {
            return nested;
        }
        // A jump left this loop or switch: it goes on leaving.
        let cond = self.leave_is(r, CmpOp::Ne, 0);
        Stmt::Block(vec![nested, Stmt::If { cond, then: Box::new(Stmt::Break), otherwise: None }])
    }

    /// Leaves the innermost loop or switch with `leave = code` (and `state = target`).
    fn jump(&mut self, r: &mut Region, target: Option<(u64, Loc)>, code: u64) -> Stmt {
        r.jumps += 1;
        let mut out: Vec<Stmt> = target.map(|(case, loc)| set(r.state, case, loc)).into_iter().collect();
        out.extend([set(r.leave, code, r.loc), Stmt::Break]);
        Stmt::Block(out)
    }
}
