//! The front door: a model file loaded and built once, and its properties checked one by one.

use crate::analysis::error::{part_in_state, unsupported, AnalysisError};
use std::time::Instant;

mod across;
pub use across::{
    across_property, across_query, AcrossFind, AcrossNested, AcrossProperty, AcrossQuery,
    AcrossStep, Found,
};

pub use crate::analysis::across_answer::{AcrossAnswer, AcrossReading, Bounds};
use crate::analysis::answer::{answer_resolved, complemented};
use crate::analysis::answers::Answer;
use crate::analysis::nested::{is_ctl, is_state_formula};
use crate::analysis::prepared::Prepared;
use crate::analysis::query::QueryModel;
use crate::analysis::resolved::{resolve_prop, Resolved};
use crate::build::{build_until, Loaded};
pub use crate::error::{Error, LookupError};
use crate::program::props::{Prop, Props};
use crate::program::{CExpr, Program};
use crate::syntax::ast::{BinOp, ExprKind, FilterOp, Path};
use crate::syntax::parser::parse_model;

/// The property `asked`, looked up as PRISM's `-prop` does, the same for every front end: the
/// name of a property of the properties file `file` (`(name, text)`, parsed against `program`
/// with `constants`), else its number there (from 1), else a property written out, which
/// messages call `written` (where the front end took it from). Returns the properties it
/// belongs to and its place among them.
pub fn find_property(
    program: &Program,
    file: Option<(&str, &str)>,
    asked: &str,
    written: &str,
    constants: &[(String, String)],
) -> Result<(Props, usize), Error> {
    if let Some((name, text)) = file {
        let props = Props::new(program, name, text, constants)?;
        if let Some(i) = props
            .props
            .iter()
            .position(|p| p.name.as_deref() == Some(asked))
        {
            return Ok((props, i));
        }
        if let Ok(number) = asked.trim().parse::<u64>() {
            let count = props.props.len();
            return match usize::try_from(number) {
                Ok(n) if (1..=count).contains(&n) => Ok((props, n - 1)),
                _ => Err(Error::Lookup(LookupError::NumberOutOfRange {
                    number,
                    file: name.to_string(),
                    count,
                })),
            };
        }
    } else if let Ok(number) = asked.trim().parse::<u64>() {
        // A whole number is the place of a file's property, never a property of its own.
        return Err(Error::Lookup(LookupError::NumberWithoutFile { number }));
    }
    let props = Props::new(program, written, asked, constants)?;
    match props.props.len() {
        1 => Ok((props, 0)),
        count => Err(Error::Lookup(LookupError::NotOne {
            text: asked.to_string(),
            count,
        })),
    }
}

/// Every property of the properties file `file` (`(name, text)`): an error where it has none.
pub fn all_properties(
    program: &Program,
    file: (&str, &str),
    constants: &[(String, String)],
) -> Result<Props, Error> {
    let props = Props::new(program, file.0, file.1, constants)?;
    match props.props.is_empty() {
        true => Err(Error::Lookup(LookupError::EmptyFile {
            file: file.0.to_string(),
        })),
        false => Ok(props),
    }
}

/// The largest source text [`read_source`] reads: 64 MiB, far beyond any model written by
/// hand or generated (the largest QVBS model file is under 100 KiB), and small enough that
/// parsing it fits in memory.
pub const MAX_SOURCE_BYTES: u64 = 64 << 20;

/// The text of file `path` (`-` for standard input): a model, a properties file or any other
/// input. An error names the path and says why: it cannot be read, it is not UTF-8 text, or it
/// is larger than [`MAX_SOURCE_BYTES`] (`/dev/zero` is an error, not a read that never ends).
pub fn read_source(path: &str) -> Result<String, Error> {
    use std::io::Read;
    let name = match path {
        "-" => "standard input".to_string(),
        p => format!("'{}'", p.escape_debug()),
    };
    let fail = |why: String| Error::Read {
        file: name.clone(),
        why,
    };
    let mut bytes = Vec::new();
    let read = match path {
        "-" => std::io::stdin()
            .lock()
            .take(MAX_SOURCE_BYTES + 1)
            .read_to_end(&mut bytes),
        p => std::fs::File::open(p)
            .and_then(|f| f.take(MAX_SOURCE_BYTES + 1).read_to_end(&mut bytes)),
    };
    read.map_err(|e| fail(e.to_string()))?;
    if bytes.len() as u64 > MAX_SOURCE_BYTES {
        return Err(fail(format!(
            "it is larger than {} MiB, the most an input may be",
            MAX_SOURCE_BYTES >> 20
        )));
    }
    String::from_utf8(bytes).map_err(|e| {
        fail(format!(
            "it is not UTF-8 text (byte {} is not)",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// How many bytes reading a model takes per byte of its text, at the most seen (its syntax
/// tree, the checked program and the copies of names they keep).
const READ_BYTES_PER_BYTE: u64 = 40;

/// An error, before the parser starts, where the memory left cannot hold what reading `src`
/// takes: a clear error rather than a process that fails in the middle of a parse.
fn enough_memory_to_read(file: &str, src: &str) -> Result<(), Error> {
    let needs = READ_BYTES_PER_BYTE * src.len() as u64;
    match perfectplay::memory::available() {
        Some(left) if left < needs => Err(Error::Memory {
            file: file.to_string(),
            bytes: src.len() as u64,
            needs,
        }),
        _ => Ok(()),
    }
}

/// Parses and checks the model `src` read from `file`, with `constants` given as
/// `(name, value text)`, without building it.
pub fn parse_program(
    file: &str,
    src: &str,
    constants: &[(String, String)],
) -> Result<Program, Error> {
    enough_memory_to_read(file, src)?;
    let ast = parse_model(file, src)?;
    Ok(Program::new(file, src, &ast, constants)?)
}

/// An error naming the constants given values that neither `program` nor any of the
/// properties files `props` declares (a value for a constant of a properties file goes with
/// the model's, as with PRISM's `-const`).
pub fn check_constants(program: &Program, props: &[&Props]) -> Result<(), Error> {
    let strays: Vec<&str> = program
        .unclaimed
        .iter()
        .filter(|name| !props.iter().any(|p| p.declares(name)))
        .map(String::as_str)
        .collect();
    match strays[..] {
        [] => Ok(()),
        _ => Err(Error::UnknownConstants(
            strays.into_iter().map(String::from).collect(),
        )),
    }
}

impl Loaded {
    /// The model's labels that hold in the state a text starts with, written as PRISM prints
    /// states (`(x=1,b=true)`; an analysis may add to it after the parentheses, as a step
    /// count); `None` where the text names no state of the model.
    pub fn labels_at(&self, text: &str) -> Option<Vec<String>> {
        let end = text.find(')')?;
        let s = self.space.parse_state(&self.program, &text[..=end]).ok()?;
        let mut vals = Vec::new();
        self.space.unpack(&self.program, s, &mut vals);
        self.program
            .labels
            .iter()
            .filter(|(_, e)| e.holds(&vals).unwrap_or(false))
            .map(|(name, _)| Some(name.clone()))
            .collect()
    }

    /// Parses, checks and builds the model `src` read from `file`, with `constants` given as
    /// `(name, value text)`, stopping beyond `max_states` states.
    pub fn new(
        file: &str,
        src: &str,
        constants: &[(String, String)],
        max_states: usize,
    ) -> Result<Loaded, Error> {
        Loaded::with_progress(file, src, constants, max_states, &mut |_, _| {
            std::ops::ControlFlow::Continue(())
        })
    }

    /// [`Loaded::new`], calling `progress(expanded, found)` now and then while it builds
    /// (which stops with an error where it answers `Break`).
    pub fn with_progress(
        file: &str,
        src: &str,
        constants: &[(String, String)],
        max_states: usize,
        progress: &mut dyn FnMut(usize, usize) -> std::ops::ControlFlow<()>,
    ) -> Result<Loaded, Error> {
        let started = Instant::now();
        let program = parse_program(file, src, constants)?;
        let mut loaded = Loaded::for_properties(program, &[], max_states, progress)?;
        loaded.build_seconds = started.elapsed().as_secs_f64();
        Ok(loaded)
    }

    /// Builds `program` for checking the properties `asked` (pairs of a file's properties and
    /// the number of one): a state where all of them are decided (the target of `F φ`, the
    /// target or a state outside ψ of `ψ U φ`) is not expanded, as Storm's builder does, so
    /// that [`crate::build::Space::len`] counts the states the properties need. Other properties cannot be
    /// checked on the result; with none asked (or one that cannot say where it is decided),
    /// the build is full. Calls `progress(expanded, found)` now and then.
    pub fn for_properties(
        program: Program,
        asked: &[(&Props, usize)],
        max_states: usize,
        progress: &mut dyn FnMut(usize, usize) -> std::ops::ControlFlow<()>,
    ) -> Result<Loaded, Error> {
        let started = Instant::now();
        let mut decided: Vec<CExpr> = Vec::new();
        for (props, i) in asked {
            match decided_where(&program, props, &props.props[*i]) {
                Some(c) if !decided.contains(&c) => decided.push(c),
                Some(_) => {}
                None => {
                    decided.clear();
                    break;
                }
            }
        }
        let stop = decided
            .iter()
            .cloned()
            .reduce(|a, b| CExpr::Binary(BinOp::And, Box::new(a), Box::new(b)));
        let space =
            build_until(&program, max_states, stop.as_ref(), progress).map_err(Error::Build)?;
        Ok(Loaded {
            program,
            space,
            build_seconds: started.elapsed().as_secs_f64(),
            decided,
        })
    }

    /// An error unless property `prop`, resolved as `r`, can be answered on this build (a
    /// full one, or one built for it).
    fn built_for(&self, r: &Resolved, prop: &Prop) -> Result<(), AnalysisError> {
        if self.decided.is_empty() || self.decided.contains(&r.decided()) {
            Ok(())
        } else {
            Err(AnalysisError::of(
                &prop.text,
                AnalysisError::PartialBuild(
                    "the model was built for other properties (build it for this one, or in full)"
                        .into(),
                ),
            ))
        }
    }
}

/// Where property `prop` is decided whatever happens next ([`Resolved::decided`]); `None` if
/// the property cannot be resolved (its check then reports why).
fn decided_where(program: &Program, props: &Props, prop: &Prop) -> Option<CExpr> {
    props.defined_for(prop).ok()?;
    // A model with an `init … endinit` block may start in several states, where a property
    // may stand for a filter over them ([`default_filter`]), which needs every state.
    match &prop.expr.kind {
        ExprKind::Filter(..) => {}
        ExprKind::Query(q) if is_state_formula(q) => {}
        _ if program.init.is_some() => return None,
        _ => {}
    }
    Some(
        resolve_prop(program, props, prop, &prop.expr)
            .ok()?
            .decided(),
    )
}

/// The game that optimises property `prop` of `props` on `loaded`, for the engine's queries
/// (explanations, the strategy, the distribution, play). A property with a bound, and one whose
/// value at the start is +∞, have none.
pub fn query_model<'a>(
    loaded: &'a Loaded,
    props: &Props,
    prop: &Prop,
) -> Result<QueryModel<'a>, Error> {
    if !matches!(prop.expr.kind, ExprKind::Query(_) | ExprKind::Filter(..)) {
        return Err(Error::of(
            &prop.text,
            unsupported(
                "explain, play, strategy and distribution optimise one P or R query, not \
             arithmetic over queries",
            ),
        ));
    }
    refuse_ctl(prop, CTL_NOT_PLAYED)?;
    if let Some((props, prop)) = crate::analysis::nested::lift(loaded, props, prop)? {
        return query_model(loaded, &props, &prop);
    }
    let r = resolve_prop(&loaded.program, props, prop, &prop.expr)?;
    loaded.built_for(&r, prop)?;
    refuse_complement(&r, prop)?;
    query_model_of(loaded, r.settle_zero(loaded)?, prop)
}

/// Why explain, play, strategy and distribution refuse CTL's `E [ … ]` and `A [ … ]`.
const CTL_NOT_PLAYED: &str = "E and A are true or false from the graph alone; explain, play, \
     strategy and distribution optimise a P or R query";

/// An error for CTL's `E [ … ]` and `A [ … ]` (outermost, or under a filter), which the
/// caller does not take, saying `why`.
fn refuse_ctl(prop: &Prop, why: &str) -> Result<(), Error> {
    let ctl = match &prop.expr.kind {
        ExprKind::Query(q) => is_ctl(q),
        ExprKind::Filter(_, inner, _) => {
            matches!(&inner.kind, ExprKind::Query(q) if is_ctl(q))
        }
        _ => false,
    };
    if ctl {
        return Err(Error::of(&prop.text, unsupported(why)));
    }
    Ok(())
}

/// An error for `G`, `W` and `R`, which are checked as one minus their dual query (`resolved.rs`): explain and
/// the others would show the dual's values.
fn refuse_complement(r: &Resolved, prop: &Prop) -> Result<(), Error> {
    if r.complement {
        return Err(Error::of(
            &prop.text,
            unsupported(format!(
                "G, W and R are checked as one minus a query with F or U ({}); explain, play, \
             strategy and distribution take that query",
                r.query
            )),
        ));
    }
    Ok(())
}

/// [`query_model`] of property `prop`, resolved as `r` (its `F0` settled).
fn query_model_of<'a>(
    loaded: &'a Loaded,
    r: Resolved,
    prop: &Prop,
) -> Result<QueryModel<'a>, Error> {
    let model = checked_model(loaded, r, prop)?;
    if model.is_total_game() {
        return Err(Error::of(
            &prop.text,
            unsupported(
                "Fc on a stochastic game is solved by strategy iteration over the maximiser's \
             strategies: `analysis_model` gives the game with that strategy found",
            ),
        ));
    }
    Ok(model)
}

/// The query's model after the graph analyses (`Fc` on a stochastic game included) of
/// property `prop`, resolved as `r` (its `F0` settled): an error for a property that is a
/// game of its own, has a bound, or is +∞ at the start.
fn checked_model<'a>(
    loaded: &'a Loaded,
    r: Resolved,
    prop: &Prop,
) -> Result<QueryModel<'a>, Error> {
    if r.steps.is_some() || r.first > 0 || matches!(r.query.path, Path::EventuallyZero(_)) {
        return Err(Error::of(
            &prop.text,
            unsupported(
                "a step-bounded property, and R[ F0 φ ] where some plays reach φ and some miss \
             it, are games of their own (with the steps left, or the reward earned): \
             `analysis_model` gives them",
            ),
        ));
    }
    if r.query.bound.is_some() {
        return Err(Error::of(
            &prop.text,
            unsupported(
                "a property with a bound (P>=p) optimises nothing: ask P=? (or Pmax=?, Pmin=?)",
            ),
        ));
    }
    match r.asked(loaded).prepare().map_err(Error::Analysis)? {
        Prepared::Model(model) => Ok(*model),
        Prepared::Infinite => Err(Error::of(
            &prop.text,
            AnalysisError::Infinite(
                "the value at the start is +∞ (the target is missed with positive probability)"
                    .into(),
            ),
        )),
    }
}

/// The game that optimises property `prop` of `props` on `loaded`, for explain, play, strategy
/// and distribution, as the engine's trait object: [`query_model`]'s game; for a step-bounded
/// property (`F<=k`, `U<=k`, `C<=k`, `I=k`) the space with the steps left; for `F>=k` and
/// `U>=k` the space with the steps taken; for `R[ F0 φ ]`
/// where some plays miss φ, the space with the reward earned; for `R[ Fc φ ]` on an smg, the
/// game with the maximiser's strategy found by strategy iteration (`total.rs`). With `exact`,
/// an error where a number the property depends on is floating point (an exact solve would be
/// no exact answer).
pub fn analysis_model<'a>(
    loaded: &'a Loaded,
    props: &Props,
    prop: &Prop,
    exact: bool,
) -> Result<Box<dyn perfectplay::dynamic::DynModel + 'a>, Error> {
    if !matches!(prop.expr.kind, ExprKind::Query(_) | ExprKind::Filter(..)) {
        // Arithmetic over queries: `query_model` says why there is no game.
        return query_model(loaded, props, prop).map(|m| Box::new(m) as _);
    }
    refuse_ctl(prop, CTL_NOT_PLAYED)?;
    if let Some((props, prop)) = crate::analysis::nested::lift(loaded, props, prop)? {
        return analysis_model(loaded, &props, &prop, exact);
    }
    let r = resolve_prop(&loaded.program, props, prop, &prop.expr)?;
    loaded.built_for(&r, prop)?;
    refuse_complement(&r, prop)?;
    let asked = r.asked(loaded);
    if exact && asked.inexact() {
        return Err(Error::of(&prop.text, AnalysisError::Inexact));
    }
    if let (Some(k), None) = (r.steps, &r.query.bound) {
        let steps = crate::analysis::bounded::Steps {
            last: k,
            first: r.first,
        };
        let model = crate::analysis::bounded::model(asked, steps).map_err(Error::Analysis)?;
        let too_large = |_| Error::Analysis(crate::analysis::bounded::analysis_too_large());
        model.fits().map_err(too_large)?;
        return Ok(Box::new(model));
    }
    if let (None, true, None) = (r.steps, r.first > 0, &r.query.bound) {
        let model =
            crate::analysis::bounded::lower_model(asked, r.first).map_err(Error::Analysis)?;
        let too_large = |_| Error::Analysis(crate::analysis::bounded::analysis_too_large());
        model.fits().map_err(too_large)?;
        return Ok(Box::new(model));
    }
    if let (Some(bound), None) = (&r.reward_bound, &r.query.bound) {
        let model = crate::analysis::reward_bounded::model(asked, bound, exact)
            .map_err(|e| Error::of(&prop.text, e))?;
        return Ok(Box::new(model));
    }
    let r = r.settle_zero(loaded)?;
    if matches!(r.query.path, Path::EventuallyZero(_)) && r.query.bound.is_none() {
        return match crate::analysis::zero::setup(&r.asked(loaded)).map_err(Error::Analysis)? {
            crate::analysis::zero::Setup::Product {
                model,
                bounded: true,
            } => Ok(model),
            crate::analysis::zero::Setup::Product { .. } => Err(Error::of(
                &prop.text,
                unsupported(
                    "a play can earn without bound before it reaches φ or misses it for \
                 good, so the game with the reward earned is infinite (`check` gives the \
                 value, exactly on a DTMC and with a certified error bound otherwise); \
                 explain, play, strategy and distribution need the reward earned bounded",
                ),
            )),
            crate::analysis::zero::Setup::Infinite => Err(Error::of(
                &prop.text,
                AnalysisError::Infinite(
                    "the value at the start is +∞ (a play can earn without end while φ is \
                     still possible)"
                        .into(),
                ),
            )),
        };
    }
    let model = checked_model(loaded, r, prop)?;
    if model.is_total_game() {
        let game = crate::analysis::total::AnalysisModel::new(model, exact)
            .map_err(|e| Error::of(&prop.text, e))?;
        return Ok(Box::new(game));
    }
    Ok(Box::new(model))
}

/// Checks property `prop` of `props` on `loaded`; `exact` solves in rationals. A property that
/// computes with the values of queries (`1 - Pmin=? [ F φ ]`) has each answered at the start
/// and the arithmetic done on the answers (see `compound`).
pub fn check_prop(
    loaded: &Loaded,
    props: &Props,
    prop: &Prop,
    exact: bool,
) -> Result<Answer, Error> {
    props.defined_for(prop)?;
    if let Some((props, prop)) = crate::analysis::nested::lift(loaded, props, prop)? {
        return check_prop(loaded, &props, &prop, exact);
    }
    if let Some(op) = default_filter(loaded, props, prop) {
        let span = prop.expr.span;
        let init = crate::syntax::ast::Expr {
            kind: ExprKind::Label("init".into()),
            span,
        };
        let filtered = prop.with_expr(crate::syntax::ast::Expr {
            kind: ExprKind::Filter(op, Box::new(prop.expr.clone()), Some(Box::new(init))),
            span,
        });
        // Checked as that filter, whose expression's state formulas (`!E [ F φ ]`) are
        // checked in every state first.
        return check_prop(loaded, props, &filtered, exact);
    }
    if matches!(prop.expr.kind, ExprKind::Query(_) | ExprKind::Filter(..)) {
        return Ok(check_query(loaded, props, prop, &prop.expr, exact)?);
    }
    let constant = |e: &crate::syntax::ast::Expr| value_at_start(loaded, props, prop, e);
    let mut query =
        |e: &crate::syntax::ast::Expr, exact: bool| check_query(loaded, props, prop, e, exact);
    Ok(crate::analysis::compound::evaluate(
        &prop.expr,
        &mut crate::analysis::compound::Env {
            query: &mut query,
            constant: &constant,
            exact,
        },
    )?)
}

/// The filter over the initial states that a property without one stands for where the model
/// has several, as PRISM has it: `range` for a number, `forall` for a truth value. `None`
/// where the model has one initial state, the property is a filter, or it is a query with a
/// bound or of CTL (which are true where they hold in every initial state already, found from
/// the least or greatest value; see `check_query`).
fn default_filter(loaded: &Loaded, props: &Props, prop: &Prop) -> Option<FilterOp> {
    if loaded.space.initial.len() <= 1 {
        return None;
    }
    match &prop.expr.kind {
        ExprKind::Filter(..) => None,
        _ if is_number(loaded, props, prop, &prop.expr) => Some(FilterOp::Range),
        ExprKind::Query(_) => None,
        _ => Some(FilterOp::Forall),
    }
}

/// Whether `e`, a property's expression outside any filter, is a number (not a truth value):
/// a query without a bound, arithmetic, a function, a number, or a name of a number. The type
/// of a name is that of its value in the first initial state (a name that does not resolve
/// counts as no number: its error comes from the check).
fn is_number(loaded: &Loaded, props: &Props, prop: &Prop, e: &crate::syntax::ast::Expr) -> bool {
    use crate::syntax::ast::UnOp;
    match &e.kind {
        ExprKind::Int(_) | ExprKind::Real(_) | ExprKind::Call(..) => true,
        ExprKind::Bool(_) | ExprKind::Label(_) | ExprKind::Filter(..) => false,
        ExprKind::Query(q) => !is_state_formula(q),
        ExprKind::Unary(op, _) => !matches!(op, UnOp::Not),
        ExprKind::Binary(op, _, _) => {
            matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div)
        }
        ExprKind::Ite(_, a, _) => is_number(loaded, props, prop, a),
        ExprKind::Name(_) => {
            let Ok((c, _)) = over_states(&loaded.program, props, prop, e) else {
                return false;
            };
            let mut vals = Vec::new();
            loaded
                .space
                .unpack(&loaded.program, loaded.space.initial[0], &mut vals);
            !matches!(
                c.eval(&vals),
                Ok(crate::program::value::Value::Bool(_)) | Err(_)
            )
        }
    }
}

/// `e`, a part of property `prop` that is no query, compiled over the model's states, without
/// the mark of a value computed in floating point, and whether it had the mark.
fn over_states(
    program: &Program,
    props: &Props,
    prop: &Prop,
    e: &crate::syntax::ast::Expr,
) -> Result<(CExpr, bool), AnalysisError> {
    let c = program.resolve_over_states(&prop.file, &prop.src, e, &props.scope)?;
    let inexact = c.inexact();
    Ok(match c {
        CExpr::Inexact(inner) => (*inner, inexact),
        c => (c, inexact),
    })
}

/// The value of `e`, a part of property `prop` that is no query: a constant, or, as in PRISM,
/// an expression over the variables and labels, taken in the initial state (one of several
/// initial states must be picked by a filter), with whether the model computes it in floating
/// point.
fn value_at_start(
    loaded: &Loaded,
    props: &Props,
    prop: &Prop,
    e: &crate::syntax::ast::Expr,
) -> Result<(crate::program::value::Value, bool), AnalysisError> {
    let program = &loaded.program;
    let (c, inexact) = over_states(&loaded.program, props, prop, e)?;
    if let CExpr::Const(v) = c {
        return Ok((v, inexact));
    }
    let initial = &loaded.space.initial;
    let [start] = initial[..] else {
        return Err(unsupported(format!(
            "{e} reads the state, and the model has {} initial states: ask \
             filter(max|min|avg, …, \"init\")",
            initial.len()
        )));
    };
    let mut vals = Vec::new();
    loaded.space.unpack(program, start, &mut vals);
    let v = c
        .eval(&vals)
        .map_err(|error| part_in_state(e, loaded.space.show(program, start), error))?;
    Ok((v, inexact))
}

/// Answers `expr`, one query of property `prop` (or a filter of one), at the start.
pub(crate) fn check_query(
    loaded: &Loaded,
    props: &Props,
    prop: &Prop,
    expr: &crate::syntax::ast::Expr,
    exact: bool,
) -> Result<Answer, AnalysisError> {
    if crate::analysis::filter::is_general(expr) {
        let mut nested =
            |e: &crate::syntax::ast::Expr, exact: bool| check_query(loaded, props, prop, e, exact);
        return crate::analysis::filter::check(loaded, props, prop, expr, exact, &mut nested);
    }
    let mut r = None;
    if let ExprKind::Query(q) = &expr.kind {
        if is_ctl(q) {
            return crate::analysis::nested::at_initial_states(loaded, props, prop, q);
        }
        // True or false over several initial states: true where it holds in every one, as
        // PRISM has it; a lower bound is met by all when the least value meets it, an upper
        // one when the greatest does.
        if let (Some((op, _)), true) = (&q.bound, loaded.space.initial.len() > 1) {
            let over = match op {
                BinOp::Gt | BinOp::Ge => crate::analysis::check::OverInitial::Min,
                _ => crate::analysis::check::OverInitial::Max,
            };
            r = Some(crate::analysis::resolved::resolve_over(
                &loaded.program,
                props,
                prop,
                over,
                q,
            )?);
        }
    }
    let r = match r {
        Some(r) => r,
        None => resolve_prop(&loaded.program, props, prop, expr)?,
    };
    loaded.built_for(&r, prop)?;
    let complement = r.complement;
    let a = answer_resolved(loaded, props, prop, r.settle_zero(loaded)?, exact)?;
    Ok(if complement { complemented(a) } else { a })
}
