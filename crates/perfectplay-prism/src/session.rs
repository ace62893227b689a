//! The front door: a model file loaded and built once, and its properties checked one by one.

use std::collections::HashMap;
use std::time::Instant;

use crate::ast::{BinOp, ExprKind, FilterOp, Item, Opt, Path, PropertiesFile, Query};
use crate::build::{build_with_progress, Space};
use crate::check::{check, prepare, Answer, OverInitial, Prepared, QueryModel};
use crate::error::Diagnostic;
use crate::parser::{parse_model, parse_properties};
use crate::program::{CExpr, Program};
use crate::value::Value;

/// Why a model or property could not be checked.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A syntax or type error, with its place.
    #[error("{}", .0.render())]
    Text(Diagnostic),
    /// An error while building the state space or solving.
    #[error("{0}")]
    Model(String),
}

impl From<Diagnostic> for Error {
    fn from(d: Diagnostic) -> Error {
        Error::Text(d)
    }
}

/// A model, checked and built.
pub struct Loaded {
    /// The checked model.
    pub program: Program,
    /// Its reachable states.
    pub space: Space,
    /// Seconds spent parsing, checking and building.
    pub build_seconds: f64,
}

impl Loaded {
    /// Parses, checks and builds the model `src` read from `file`, with `constants` given as
    /// `(name, value text)`, stopping beyond `max_states` states.
    pub fn new(
        file: &str,
        src: &str,
        constants: &[(String, String)],
        max_states: usize,
    ) -> Result<Loaded, Error> {
        Loaded::with_progress(file, src, constants, max_states, &mut |_, _| {})
    }

    /// [`Loaded::new`], calling `progress(expanded, found)` now and then while it builds.
    pub fn with_progress(
        file: &str,
        src: &str,
        constants: &[(String, String)],
        max_states: usize,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<Loaded, Error> {
        let started = Instant::now();
        let ast = parse_model(file, src)?;
        let program = Program::new(file, src, &ast, constants)?;
        let space =
            build_with_progress(&program, max_states, progress).map_err(|e| Error::Model(e.0))?;
        Ok(Loaded {
            program,
            space,
            build_seconds: started.elapsed().as_secs_f64(),
        })
    }
}

/// A property to check: its name (if any), its text as printed, and where it came from.
pub struct Prop {
    /// Its name in the properties file.
    pub name: Option<String>,
    /// The property as PRISM text.
    pub text: String,
    expr: crate::ast::Expr,
    file: String,
    src: String,
}

/// The properties of a properties file (or of one property's text), with the file's
/// constants evaluated against the model's.
pub struct Props {
    /// The properties in order.
    pub props: Vec<Prop>,
    consts: HashMap<String, Value>,
}

impl Props {
    /// Parses the properties `src` read from `file`; `given` holds values for constants the
    /// file leaves undefined.
    pub fn new(
        loaded: &Loaded,
        file: &str,
        src: &str,
        given: &[(String, String)],
    ) -> Result<Props, Error> {
        let parsed: PropertiesFile = parse_properties(file, src)?;
        let mut consts = HashMap::new();
        for item in &parsed.items {
            match item {
                Item::Const(c) => {
                    let value = match (&c.value, given.iter().find(|(n, _)| *n == c.name.name)) {
                        (_, Some((_, text))) => {
                            let e = crate::parser::parse_expr("--const", text)?;
                            const_value(loaded, "--const", text, &e, &consts)?
                        }
                        (Some(e), None) => const_value(loaded, file, src, e, &consts)?,
                        (None, None) => {
                            return Err(Error::Model(format!(
                                "undefined constant '{}' of the properties (give it with --const)",
                                c.name.name
                            )))
                        }
                    };
                    consts.insert(c.name.name.clone(), value);
                }
                _ => {
                    return Err(Error::Model(
                        "properties files may declare constants; labels and formulas belong in \
                         the model"
                            .into(),
                    ))
                }
            }
        }
        let props = parsed
            .properties
            .into_iter()
            .map(|p| Prop {
                name: p.name.map(|n| n.name),
                text: p.expr.to_string(),
                expr: p.expr,
                file: file.to_string(),
                src: src.to_string(),
            })
            .collect();
        Ok(Props { props, consts })
    }
}

fn const_value(
    loaded: &Loaded,
    file: &str,
    src: &str,
    e: &crate::ast::Expr,
    consts: &HashMap<String, Value>,
) -> Result<Value, Error> {
    match loaded.program.resolve_value(file, src, e, consts)? {
        CExpr::Const(v) => Ok(v),
        _ => Err(Error::Model(
            "a constant must not depend on variables".into(),
        )),
    }
}

/// A property resolved against the model: the query, how it aggregates over the initial
/// states, and its state formulas.
struct Resolved<'p> {
    over: OverInitial,
    query: &'p Query,
    through: Option<CExpr>,
    target: CExpr,
}

/// The game that optimises property `prop` of `props` on `loaded`, for the engine's queries
/// (explanations, the strategy, the distribution, play). A property with a bound, and one whose
/// value at the start is +∞, have none.
pub fn query_model<'a>(
    loaded: &'a Loaded,
    props: &Props,
    prop: &Prop,
) -> Result<QueryModel<'a>, Error> {
    let r = resolve_prop(loaded, props, prop)?;
    if r.query.bound.is_some() {
        return Err(Error::Model(
            "a property with a bound (P>=p) optimises nothing: ask P=? (or Pmax=?, Pmin=?)".into(),
        ));
    }
    match prepare(
        &loaded.program,
        &loaded.space,
        r.query,
        r.through.as_ref(),
        &r.target,
        r.over,
    )
    .map_err(Error::Model)?
    {
        Prepared::Model(model) => Ok(*model),
        Prepared::Infinite => Err(Error::Model(format!(
            "{}: the value at the start is +∞ (the target is missed with positive probability)",
            prop.text
        ))),
    }
}

fn resolve_prop<'p>(loaded: &Loaded, props: &Props, prop: &'p Prop) -> Result<Resolved<'p>, Error> {
    let (over, query) = match &prop.expr.kind {
        ExprKind::Query(q) => (OverInitial::Only, q),
        ExprKind::Filter(op, inner, states) => {
            let over = match op {
                FilterOp::Max => OverInitial::Max,
                FilterOp::Min => OverInitial::Min,
                FilterOp::Avg => OverInitial::Avg,
                _ => {
                    return Err(Error::Model(format!(
                        "filter({}, …) is not supported (max, min and avg are)",
                        op.name()
                    )))
                }
            };
            let init = states
                .as_ref()
                .is_none_or(|s| matches!(&s.kind, ExprKind::Label(l) if l == "init"));
            let ExprKind::Query(q) = &inner.kind else {
                return Err(Error::Model("a filter takes a P or R query".into()));
            };
            if !init {
                return Err(Error::Model(
                    "filters over states other than \"init\" are not supported".into(),
                ));
            }
            (over, q)
        }
        _ => {
            return Err(Error::Model(
                "only P and R queries (and filters of them) are supported".into(),
            ))
        }
    };
    let resolve = |e: &crate::ast::Expr| -> Result<CExpr, Error> {
        Ok(loaded
            .program
            .resolve_property(&prop.file, &prop.src, e, &props.consts)?)
    };
    let (through, target) = match &query.path {
        Path::Eventually(t) => (None, resolve(t)?),
        Path::Until(a, b) => (Some(resolve(a)?), resolve(b)?),
        Path::EventuallyCumulative(t) => (None, resolve(t)?),
        Path::EventuallyZero(_) => {
            return Err(Error::Model(
                "the reward variant F0 is not supported yet (F and Fc are)".into(),
            ))
        }
    };
    Ok(Resolved {
        over,
        query,
        through,
        target,
    })
}

/// Checks property `prop` of `props` on `loaded`; `exact` solves in rationals.
pub fn check_prop(
    loaded: &Loaded,
    props: &Props,
    prop: &Prop,
    exact: bool,
) -> Result<Answer, Error> {
    let Resolved {
        over,
        query,
        through,
        target,
    } = resolve_prop(loaded, props, prop)?;
    let Some((op, bound)) = &query.bound else {
        return check(
            &loaded.program,
            &loaded.space,
            query,
            through.as_ref(),
            &target,
            over,
            exact,
        )
        .map_err(Error::Model);
    };
    // `P>=b` holds when every scheduler meets the bound: the least value is compared (the
    // greatest for `<` and `<=`); a DTMC has the one value.
    let mut numeric = query.clone();
    numeric.bound = None;
    if loaded.program.model_type != crate::ast::ModelType::Dtmc {
        numeric.opt = match op {
            BinOp::Gt | BinOp::Ge => Opt::Min,
            _ => Opt::Max,
        };
    }
    let b = match loaded
        .program
        .resolve_value(&prop.file, &prop.src, bound, &props.consts)?
    {
        CExpr::Const(v) => v
            .number()
            .ok_or_else(|| Error::Model("a bound must be a number".into()))?,
        _ => return Err(Error::Model("a bound must be a constant".into())),
    };
    // Compared exactly: the value is solved in rationals.
    let mut a = check(
        &loaded.program,
        &loaded.space,
        &numeric,
        through.as_ref(),
        &target,
        over,
        true,
    )
    .map_err(Error::Model)?;
    let holds = match &a.exact {
        None => {
            // +∞ (a reward): above every bound.
            matches!(op, BinOp::Gt | BinOp::Ge)
        }
        Some(text) => match parse_fraction(text) {
            Some(v) => match op {
                BinOp::Gt => v > b,
                BinOp::Ge => v >= b,
                BinOp::Lt => v < b,
                _ => v <= b,
            },
            // A fraction beyond 128 bits: its float decides unless it is too close to tell.
            None if (a.value - b.to_f64()).abs() > 1e-9 * b.to_f64().abs().max(1.0) => match op {
                BinOp::Gt | BinOp::Ge => a.value > b.to_f64(),
                _ => a.value < b.to_f64(),
            },
            None => {
                return Err(Error::Model(format!(
                    "the value {text} is too close to the bound to compare here"
                )))
            }
        },
    };
    a.holds = Some(holds);
    Ok(a)
}

/// `p/q` or an integer as a 128-bit fraction.
fn parse_fraction(text: &str) -> Option<crate::value::Q> {
    let (n, d) = text.split_once('/').unwrap_or((text, "1"));
    crate::value::Q::new(n.parse().ok()?, d.parse().ok()?)
}
