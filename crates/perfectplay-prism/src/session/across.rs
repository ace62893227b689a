//! A property made ready for a solve across processes: its game over the model's own states,
//! written as bytes for the processes to share, and how its answer reads from the game's
//! values ([`AcrossReading`]).

mod zero;

use super::resolve_prop;
use crate::analysis::across_answer::{numbers, truths, AcrossAnswer, Bounds, Each};
use crate::analysis::across_answer::{AcrossReading, Comparison};
use crate::analysis::answers::Answer;
use crate::analysis::error::part_in_state;
use crate::analysis::error::{unsupported, AnalysisError};
use crate::analysis::nested::is_state_formula;
use crate::error::Error;
use crate::program::props::{Prop, Props};
use crate::program::{CExpr, Program};
use crate::syntax::ast::{BinOp, Expr, ExprKind, FilterOp, Measure, ModelType, Opt, Path, Query};
use perfectplay::Player;

/// A property made ready for a solve across processes ([`across_query`]): its game, and how
/// its answer reads from the game's values ([`AcrossReading::answer`]).
pub struct AcrossQuery {
    /// The query's game over the model's own states, expanded when asked and written as
    /// bytes: each process of such a solve holds only its share of the states. It has no
    /// built space and no graph analysis behind it: its solver bounds the values itself.
    pub model: Box<dyn perfectplay::dynamic::DynModel>,
    /// Whether the property is an expected reward, not a probability nor a long-run average:
    /// its value may be +∞,
    /// where the target may be missed, and the game's solver must give an endless play that
    /// worth (the minimiser loses it) rather than leave its bounds open there.
    pub reward: bool,
    /// Whether the reward is the total a play collects, endless plays included (`R [ C ]`,
    /// `R [ Fc φ ]`): the states from which the minimiser can keep every reward at zero for
    /// ever are worth zero, and the game's solver must find them from the graph; every other
    /// endless play is worth +∞ ([`AcrossQuery::reward`]).
    pub total: bool,
    /// Whether the property is a long-run average (`S=? [ φ ]`, `R=? [ S ]` on a DTMC): the
    /// game is the chain, each step earning what the average counts, and its solver must find
    /// the bottom components and their averages first.
    pub long_run: bool,
    /// Whether the reward counts only on plays that reach the target (`R=? [ F0 φ ]` on a
    /// DTMC): the game is the probability of reaching (its target worth 1, a play that misses
    /// it 0) with rewards on its steps, and its solver must weigh each step's reward by the
    /// probability of reaching from where it leads. Its value is finite.
    pub reached_only: bool,
    /// Whether the answer is made of each initial state's value (their range, a bound that
    /// must hold in each, a filter over them): the game's start is then a chance node over
    /// them, and its solver must report the bounds of each of its outcomes, in order.
    pub each_initial: bool,
    /// Whether the property compares a probability with 0 or 1 (`P>0 [ … ]`, `P>=1 [ … ]`):
    /// its solver must then find the values of exactly 0 and 1 from the graph, as bounds that
    /// close in stop a float away from them.
    pub zero_one: bool,
    /// How the answer reads from the game's values.
    pub reading: AcrossReading,
}

/// A step of a solve across processes: a query's game to solve, or, for a filter over states
/// other than the initial ones, the game whose exploration finds those states first.
pub enum AcrossStep {
    /// A query's game, ready (boxed: it holds the reading of its answer).
    Solve(Box<AcrossQuery>),
    /// The states of a filter to be found first (boxed: it holds the program and properties).
    Find(Box<AcrossFind>),
    /// A query's answer known without a run: the refusal of a part that the property uses
    /// only in some cases (`R…[ F0 φ ]` where some plays miss φ and some reach it, see
    /// `zero::f0_as_f`), its error then the property's only where it is used (boxed, as the others).
    Answered(Box<Result<AcrossAnswer, AnalysisError>>),
}

/// The states of a filter over states other than the initial ones (`filter(max, P=? [ F φ ],
/// s=1)`), to be found before the query is solved from them: [`AcrossFind::model`] is a game
/// whose terminals are the reachable states where the filter's condition holds, and an
/// exploration across processes that collects its terminals' bytes finds them; then
/// [`AcrossFind::found`] makes the query over them.
pub struct AcrossFind {
    /// The game whose terminals, as bytes, are the filter's states.
    pub model: std::sync::Arc<dyn perfectplay::dynamic::DynModel>,
    /// The filter's condition as text, empty for every reachable state: finds of one
    /// property with the same condition find the same states (as does a nested formula's
    /// exploration of every state), so one run may serve them all.
    pub condition: String,
    /// The property, for [`AcrossFind::found`]: the filter, or its query alone, or the
    /// property (see `each`).
    program: Program,
    props: Props,
    prop: Prop,
    each: Wanted,
}

/// What [`AcrossFind::found`] makes of the states found.
#[derive(Clone, Copy, PartialEq)]
enum Wanted {
    /// The filter's query over them.
    Filter,
    /// The query's value in each (`prop` is the query alone), for a property that computes
    /// with it under the filter.
    Each,
    /// The states alone, for a property under the filter that solves no query there.
    States,
}

/// A filter's query once its states are found ([`AcrossFind::found`]).
pub enum Found {
    /// The query from the states found, to solve across processes as any other.
    Solve(AcrossQuery),
    /// No state was found: the filter's answer over none (a count of 0, say, or the error of a
    /// maximum over no state), with nothing to solve.
    Answered(Result<AcrossAnswer, AnalysisError>),
}

impl AcrossFind {
    /// The query over `states`, the bytes of the terminals of [`AcrossFind::model`] that an
    /// exploration reached (in any order: the filter takes them in PRISM's).
    pub fn found(self, states: &[Vec<u8>]) -> Result<Found, Error> {
        if self.each == Wanted::States || (states.is_empty() && self.each == Wanted::Each) {
            let (names, values) = crate::analysis::across::states_of(self.program, Some(states))
                .map_err(|e| Error::of(&self.prop.text, e))?;
            return Ok(Found::Answered(Ok(Each::states(names, values))));
        }
        let query = query_at(self.program, &self.props, &self.prop, Some(states))?;
        Ok(match states.is_empty() {
            true => Found::Answered(query.reading.answer(&[])),
            false => Found::Solve(query),
        })
    }
}

/// Property `prop` of `props` on `program` for a solve across processes: a P query of `F`,
/// `U`, `X`, `G`, `W` or `R`, step bounds included, or an R query of `F`, `Fc`, `C`, `C<=k`
/// or `I=k`,
/// asked (`=?`) or compared with a bound (`P>=0.5 [ … ]`), at the initial states (each of
/// several, as PRISM answers such a property: their range, or a bound that must hold in
/// each), or under a filter (`filter(op, …, states)`, every operator) over the initial states,
/// or over other states, which are found first ([`AcrossStep::Find`]). Any other property is
/// refused with an error that says so.
pub fn across_query(program: Program, props: &Props, prop: &Prop) -> Result<AcrossStep, Error> {
    props.defined_for(prop)?;
    if let ExprKind::Filter(_, inner, states) = &prop.expr.kind {
        if !crate::analysis::filter::over_initial(states)
            && matches!(inner.kind, ExprKind::Query(_))
            && !crate::analysis::nested::nests(prop)
        {
            return find_first(program, props, states, prop, Wanted::Filter);
        }
    }
    query_at(program, props, prop, None).map(|q| AcrossStep::Solve(Box::new(q)))
}

/// The step that finds the reachable states where `states` holds (every reachable state where
/// it is left out), then asks `asked` at them as `each` says.
fn find_first(
    program: Program,
    props: &Props,
    states: &Option<Box<Expr>>,
    asked: &Prop,
    each: Wanted,
) -> Result<AcrossStep, Error> {
    let condition = match states {
        Some(e) => Some(
            program
                .resolve_over_states(&asked.file, &asked.src, e, &props.scope)
                .map_err(|e| Error::of(&asked.text, e.into()))?,
        ),
        None => None,
    };
    // What the query cannot take is told before any exploration: the query made over no
    // state is checked as any other.
    if each != Wanted::States {
        query_at(program.clone(), props, asked, Some(&[]))?;
    }
    let model = crate::analysis::across::reach_model(program.clone(), condition)
        .map_err(|e| Error::of(&asked.text, e))?;
    Ok(AcrossStep::Find(Box::new(AcrossFind {
        model: model.into(),
        condition: states.as_ref().map_or(String::new(), |e| e.to_string()),
        program,
        props: props.clone(),
        prop: asked.clone(),
        each,
    })))
}

/// [`across_query`] at the model's initial states, or, for a filter over other states, at
/// the states `at` found for it.
fn query_at(
    program: Program,
    props: &Props,
    prop: &Prop,
    at: Option<&[Vec<u8>]>,
) -> Result<AcrossQuery, Error> {
    props.defined_for(prop)?;
    // CTL's `E` and `A` (alone or under a filter): P queries with a bound on the game of paths.
    let (prop, paths) = ctl_on_paths(&program, prop);
    let prop = &prop;
    let refused = || Error::of(&prop.text, unsupported(crate::analysis::across::NOT_ACROSS));
    if crate::analysis::nested::nests(prop) {
        return Err(refused());
    }
    // The query, and the filter over the initial states that the answer is made of, if any
    // (a filter's max, min or avg is the game's start itself).
    let (asked, filter) = match &prop.expr.kind {
        ExprKind::Query(_) => (&prop.expr, None),
        ExprKind::Filter(op, inner, states) if crate::analysis::filter::is_general(&prop.expr) => {
            match &inner.kind {
                ExprKind::Query(q)
                    if crate::analysis::filter::over_initial(states) || at.is_some() =>
                {
                    let truth = is_state_formula(q);
                    if crate::analysis::filter::takes_truth(*op).is_some_and(|t| t != truth) {
                        let e = crate::analysis::filter::wrong_kind(*op, inner, truth);
                        return Err(Error::of(&prop.text, e));
                    }
                    (inner.as_ref(), Some(*op))
                }
                _ => return Err(refused()),
            }
        }
        ExprKind::Filter(..) => (&prop.expr, None),
        _ => return Err(refused()),
    };
    let mut r = resolve_prop(&program, props, prop, asked)?;
    // A bound is compared with the value the query's bound is checked on (the least over
    // an MDP's schedulers for `>=`, as in one process).
    let compare = match r.query.bound.clone() {
        Some((op, bound)) => {
            let bound = crate::analysis::answer::bound_value(&program, props, prop, &bound)
                .map_err(|e| Error::of(&prop.text, e))?;
            r.query =
                std::borrow::Cow::Owned(crate::analysis::answer::numeric_query(&program, &r.query));
            Some(Comparison { op, bound })
        }
        None => None,
    };
    if compare.is_some() && r.over != crate::analysis::check::OverInitial::Only {
        return Err(refused());
    }
    let complement = r.complement;
    let long_run = matches!(r.query.path, Path::LongRun(_));
    let reached_only = matches!(r.query.path, Path::EventuallyZero(_));
    let reward = matches!(r.query.what, crate::syntax::ast::Measure::Reward(_));
    let total = reward && matches!(r.query.path, Path::Total | Path::EventuallyCumulative(_));
    let game = match at {
        // No state found: a game from the initial states, never solved (see `found`).
        Some([]) => crate::analysis::across::across_model(program, &r, None, paths),
        at => crate::analysis::across::across_model(program, &r, at, paths),
    }
    .map_err(|e| Error::of(&prop.text, e))?;
    let names = match at {
        Some([]) => Vec::new(),
        _ => game.initial,
    };
    let values = game.values;
    // `state` takes one state: told before the solve rather than after it.
    if filter == Some(FilterOp::State) && names.len() > 1 {
        return Err(Error::of(
            &prop.text,
            AnalysisError::Filter(format!(
                "filter(state, …) takes one state, and {} satisfy its condition (the first \
                 two: {} and {})",
                names.len(),
                names[0],
                names[1]
            )),
        ));
    }
    // Several initial states and no filter: their range, or a bound that holds in each.
    let per_state = filter.is_none();
    let filter = filter.or_else(|| {
        game.each_initial.then_some(match compare {
            Some(_) => FilterOp::Forall,
            None => FilterOp::Range,
        })
    });
    let zero_one = !reward
        && !long_run
        && compare
            .as_ref()
            .is_some_and(|c| c.bound == 0 || c.bound == 1);
    Ok(AcrossQuery {
        model: game.model,
        reward: reward && !long_run && !reached_only,
        total,
        long_run,
        reached_only,
        each_initial: game.each_initial,
        zero_one,
        reading: AcrossReading {
            text: prop.text.clone(),
            complement,
            reward,
            compare,
            filter,
            names,
            inner: asked.clone(),
            values,
            per_state,
        },
    })
}

/// A property made ready for a solve across processes ([`across_property`]): the games of its
/// queries, each solved across the processes in turn, and how its answer reads from theirs;
/// or, where a state formula is nested in it, that formula to check in every state first.
pub struct AcrossProperty {
    /// Where a state formula is nested in the property (`P=? [ F P>=0.5 [ X "a" ] ]`), the
    /// innermost to check in every reachable state first ([`AcrossNested`]), which then
    /// gives the property again with that formula a set of states; the queries are then
    /// empty.
    pub nested: Option<Box<AcrossNested>>,
    /// The property's queries, in the order in which every process solves them: the property
    /// itself, or each query that it computes with (`1 - Pmin=? [ F φ ]`).
    pub queries: Vec<AcrossStep>,
    /// Where the property computes with its queries' values, what it computes.
    combined: Option<Combined>,
}

/// A property that computes with the values of its queries, for [`AcrossProperty::answer`].
struct Combined {
    program: Program,
    props: Props,
    prop: Prop,
    /// What the property computes (inside its filter, where it has one).
    expr: Expr,
    /// The queries' expressions, in the order of [`AcrossProperty::queries`].
    parts: Vec<Expr>,
    /// Where `expr` is taken in each initial state (each query's value its own there), the
    /// filter over them: the property's, or `None` for PRISM's default on a model of several
    /// (`range` of a number, `forall` of a truth value).
    per_state: Option<Option<FilterOp>>,
}

impl AcrossProperty {
    /// The property's answer from its queries' answers, each read by its
    /// [`AcrossQuery::reading`] from its solve, in the order of [`AcrossProperty::queries`]: the
    /// one query's answer, or the arithmetic on theirs, with their certified bounds carried
    /// through, in each initial state where the property is taken in each (a filter over
    /// them, or a model of several). A query's error counts only where the property uses its
    /// value (`&`, `|` and `? :` skip what they need not evaluate).
    pub fn answer(
        &self,
        answers: Vec<Result<AcrossAnswer, AnalysisError>>,
    ) -> Result<AcrossAnswer, Error> {
        let Some(c) = &self.combined else {
            let first = answers
                .into_iter()
                .next()
                .unwrap_or(Err(AnalysisError::Internal(
                    "a property across processes was given no answer",
                )));
            return Ok(first?);
        };
        // An error of the property's, or of a query's own (which names the query).
        let fail = |e| match e {
            e @ AnalysisError::Property { .. } => Error::from(e),
            e => Error::of(&c.prop.text, e),
        };
        let each = answers
            .iter()
            .filter_map(|a| a.as_ref().ok()?.each.as_deref());
        let Some(op) = c.per_state else {
            // At the one initial state, whose variables a part may read.
            let one = each.clone().find(|e| e.len() == 1);
            let at = one.map(|e| (0, e.names[0].clone(), e.values[0].as_slice()));
            let answer = c.evaluate(&answers, at).map_err(fail)?;
            let bounds = answer.holds.is_none().then(|| bounds_of(&answer));
            return Ok(AcrossAnswer {
                answer,
                bounds,
                each: None,
            });
        };
        // The states: those of the queries taken in each (every one the same), or those
        // found or initial where no query is.
        let Some(first) = each.clone().next() else {
            // No query has a value in each state: the first query's error, if any.
            let error =
                answers
                    .into_iter()
                    .find_map(Result::err)
                    .unwrap_or(AnalysisError::Internal(
                        "a property across processes has no state to take",
                    ));
            return Err(fail(error));
        };
        if each.clone().any(|e| e.len() != first.len()) {
            return Err(Error::of(
                &c.prop.text,
                AnalysisError::Internal("the queries across processes have other states"),
            ));
        }
        let name = |i: usize| first.names[i].clone();
        let at: Vec<Result<Answer, AnalysisError>> = (0..first.len())
            .map(|i| {
                // Where the bounds do not tell, the state where they do not.
                c.evaluate(&answers, Some((i, name(i), &first.values[i])))
                    .map_err(|e| match e {
                        AnalysisError::TooClose(why) => {
                            AnalysisError::TooClose(format!("in state {}: {why}", name(i)))
                        }
                        e => e,
                    })
            })
            .collect();
        let truth = at
            .iter()
            .find_map(|a| a.as_ref().ok())
            .map(|a| a.holds.is_some());
        let answer = match truth {
            Some(true) => {
                let holds = at.into_iter().map(|a| a.map(|a| a.holds == Some(true)));
                let op = op.unwrap_or(FilterOp::Forall);
                truths(op, &c.expr, &name, holds.collect()).map_err(fail)?
            }
            _ => {
                let values = at
                    .into_iter()
                    .map(|a| a.map(|a| bounds_with_value(&a)))
                    .collect::<Result<Vec<Bounds>, _>>()
                    .map_err(fail)?;
                let op = op.unwrap_or(FilterOp::Range);
                numbers(op, &c.expr, &name, values).map_err(fail)?
            }
        };
        Ok(answer)
    }
}

/// Certified bounds on a number answered with its error bound (rounded outward).
fn bounds_of(answer: &Answer) -> [f64; 2] {
    match answer.error_bound {
        0.0 => [answer.value, answer.value],
        b => [(answer.value - b).next_down(), (answer.value + b).next_up()],
    }
}

/// A number answered with its error bound as `[value, lower, upper]`.
fn bounds_with_value(answer: &Answer) -> Bounds {
    let [lo, hi] = bounds_of(answer);
    [answer.value, lo, hi]
}

impl Combined {
    /// What the property computes from its queries' `answers`: at the start, or, with `at`,
    /// in state `i` (named `name`, its variables' values `vals`), each query taken there where
    /// it has a value in each state, and parts that read the state (`s + P=? [ … ]`) read it.
    fn evaluate(
        &self,
        answers: &[Result<AcrossAnswer, AnalysisError>],
        at: Option<(usize, String, &[i64])>,
    ) -> Result<Answer, AnalysisError> {
        // The query whose error the property meets, which is then the property's error.
        let mut failed = None;
        let mut query = |e: &Expr, _exact: bool| match self.parts.iter().position(|p| p == e) {
            Some(i) => match (answers.get(i), &at) {
                (Some(Ok(a)), Some((state, ..))) => a
                    .each
                    .as_ref()
                    .and_then(|e| e.answer(*state))
                    .unwrap_or(Ok(a.answer.clone())),
                (Some(Ok(a)), None) => Ok(a.answer.clone()),
                (Some(Err(_)), _) => {
                    failed = Some(i);
                    Err(AnalysisError::Internal("a query across processes failed"))
                }
                (None, _) => Err(AnalysisError::Internal(
                    "a property across processes was given too few answers",
                )),
            },
            None => Err(AnalysisError::Internal(
                "a query of a property across processes was not solved",
            )),
        };
        let constant = |e: &Expr| match (
            super::over_states(&self.program, &self.props, &self.prop, e)?,
            &at,
        ) {
            ((CExpr::Const(v), inexact), _) => Ok((v, inexact)),
            ((c, inexact), Some((_, name, vals))) => c
                .eval(vals)
                .map(|v| (v, inexact))
                .map_err(|error| part_in_state(e, name.clone(), error)),
            (_, None) => Err(unsupported(READS_STATE)),
        };
        let answer = crate::analysis::compound::evaluate(
            &self.expr,
            &mut crate::analysis::compound::Env {
                query: &mut query,
                constant: &constant,
                exact: false,
            },
        );
        if let Some(i) = failed {
            if let Some(Err(e)) = answers.get(i) {
                return Err(e.clone());
            }
        }
        answer
    }
}

/// Why a part of a property across processes that reads the state is refused.
const READS_STATE: &str = "across processes, a property computes with the values of queries \
     and constants, not with the variables of the initial state: check this property in one \
     process";

/// Property `prop` of `props` on `program` for a solve across processes: one query as
/// [`across_query`] takes it, or arithmetic over such queries and constants (`1 - Pmin=? [
/// F φ ]`, `Pmax=? [ F a ] / Pmax=? [ F b ]`), each query solved across the processes in turn
/// and the arithmetic done on their answers with their certified bounds. Comparisons and
/// rounding of query values (`P=? [ F a ] > 0.5`, `floor(…)`) are decided from those bounds:
/// where they do not tell, the answer is an error that says so. CTL's `E` and `A` are P
/// queries with a bound on the game of the model's paths (see `ctl_on_paths`), and a state
/// formula nested in the property is checked in every state first
/// ([`AcrossProperty::nested`]). On a model of several initial states, and under a filter
/// over them, such a property is taken in each initial state; a part that reads the state
/// (`s + P=? [ … ]`) reads it there. A property that asks no query (`s + 1`, or one whose
/// nested formulas were checked and stand in it as sets of states) is answered from the
/// states alone: the initial ones, known without a run, or those a filter's exploration finds.
pub fn across_property(
    program: Program,
    props: &Props,
    prop: &Prop,
) -> Result<AcrossProperty, Error> {
    if crate::analysis::nested::nests(prop) {
        return nested_first(program, props, prop);
    }
    // `R…[ F0 φ ]` as the queries that answer it where they can (see `zero::f0_as_f`); on a
    // DTMC, as it is.
    let rewritten = match program.model_type {
        ModelType::Dtmc => prop.expr.clone(),
        _ => zero::f0_as_f(&prop.expr),
    };
    let zero = rewritten != prop.expr;
    // A filter of arithmetic over queries (or of no query): taken in each of its states
    // (found first where they are not the initial ones).
    let (expr, filter, found) = match &rewritten.kind {
        ExprKind::Filter(op, inner, states)
            if !matches!(inner.kind, ExprKind::Query(_) | ExprKind::Filter(..)) =>
        {
            let found = (!crate::analysis::filter::over_initial(states)).then_some(states);
            (inner.as_ref().clone(), Some(*op), found)
        }
        _ => (rewritten.clone(), None, None),
    };
    if filter.is_none()
        && !zero
        && matches!(prop.expr.kind, ExprKind::Query(_) | ExprKind::Filter(..))
    {
        return Ok(AcrossProperty {
            nested: None,
            queries: vec![across_query(program, props, prop)?],
            combined: None,
        });
    }
    props.defined_for(prop)?;
    let mut parts = Vec::new();
    queries_in(&expr, &mut parts);
    let mut queries = Vec::with_capacity(parts.len());
    let mut several = false;
    for part in &parts {
        let asked = prop.with_expr(part.clone());
        let q = match found {
            // F0 where it is not answered across processes (needed only where it is used).
            _ if zero::is_f0(part) && program.model_type != ModelType::Dtmc => {
                AcrossStep::Answered(Box::new(Err(zero::f0_between())))
            }
            // Each query in each of the states found.
            Some(states) if matches!(part.kind, ExprKind::Query(_)) => {
                find_first(program.clone(), props, states, &asked, Wanted::Each)?
            }
            _ => across_query(program.clone(), props, &asked)?,
        };
        several |= matches!(&q, AcrossStep::Solve(q) if q.each_initial);
        queries.push(q);
    }
    // Where no query is asked in each state, the states (after the queries, whose answers
    // are in the order of `parts`): those found, or the initial ones, known without a run.
    if !parts.iter().any(|p| matches!(p.kind, ExprKind::Query(_))) {
        match found {
            Some(states) => queries.push(find_first(
                program.clone(),
                props,
                states,
                prop,
                Wanted::States,
            )?),
            None if parts.is_empty() => {
                let (names, values) = crate::analysis::across::states_of(program.clone(), None)
                    .map_err(|e| Error::of(&prop.text, e))?;
                several = names.len() > 1;
                queries.push(AcrossStep::Answered(Box::new(Ok(Each::states(
                    names, values,
                )))));
            }
            None => {}
        }
    }
    // On a model of several initial states, PRISM's default filter over them.
    let per_state = match filter {
        Some(op) => Some(Some(op)),
        None => several.then_some(None),
    };
    Ok(AcrossProperty {
        nested: None,
        queries,
        combined: Some(Combined {
            program,
            props: props.clone(),
            prop: prop.clone(),
            expr,
            parts,
            per_state,
        }),
    })
}

/// A state formula nested in a property (`P>=0.5 [ X "a" ]` in `P=? [ F P>=0.5 [ X "a" ] ]`),
/// to be checked in every reachable state across processes before the property: an
/// exploration across processes finds every reachable state (the terminals of
/// [`AcrossNested::model`]), [`AcrossNested::query`] is the formula's query from each of them,
/// solved with every process learning each state's value, and [`AcrossNested::lifted`] turns
/// those into the set of states where the formula holds and gives the property again with it.
/// Formulas nested in each other are checked innermost first, one such step each.
pub struct AcrossNested {
    /// The game whose terminals, as bytes, are every reachable state of the model.
    pub model: std::sync::Arc<dyn perfectplay::dynamic::DynModel>,
    program: Program,
    /// The properties' scope, with the sets of the formulas checked so far as labels.
    props: Props,
    prop: Prop,
    /// The formula's text, its own nested formulas already labels: the name of its label.
    name: String,
    /// The formula, a P or R query with a bound or CTL's `E` or `A` (made such a query on
    /// the game of paths where it is solved), its own nested formulas already labels.
    formula: Query,
    /// The states' values and the reading of [`AcrossNested::query`], once made.
    asked: Option<(Vec<Vec<i64>>, AcrossReading)>,
}

impl AcrossNested {
    /// The formula's query from `states`, the bytes of the terminals of
    /// [`AcrossNested::model`] that an exploration reached (every reachable state): to be
    /// solved with its start's outcomes asked, which every process must learn.
    pub fn query(&mut self, states: &[Vec<u8>]) -> Result<AcrossQuery, Error> {
        let expr = Expr {
            kind: ExprKind::Query(Box::new(self.formula.clone())),
            span: self.prop.expr.span,
        };
        let mut query = query_at(
            self.program.clone(),
            &self.props,
            &self.prop.with_expr(expr),
            Some(states),
        )?;
        if !query.each_initial {
            return Err(Error::of(
                &self.prop.text,
                AnalysisError::Internal("a nested formula's game does not start from each state"),
            ));
        }
        let values = std::mem::take(&mut query.reading.values);
        self.asked = Some((values, query.reading.clone()));
        Ok(query)
    }

    /// The property again, with the formula the set of states where it holds, from the
    /// values `[value, lower, upper]` of [`AcrossNested::query`]'s outcomes, in order: ready
    /// for its next step. An error where a state's bounds straddle the formula's bound.
    pub fn lifted(self, outcomes: &[Bounds]) -> Result<AcrossProperty, Error> {
        let at = |e| Error::of(&self.prop.text, e);
        let Some((values, reading)) = self.asked else {
            return Err(at(AnalysisError::Internal(
                "a nested formula's values were given before its query was made",
            )));
        };
        if values.len() != outcomes.len() {
            return Err(at(AnalysisError::Internal(
                "the solve across processes gave other than a value for each state",
            )));
        }
        let holds = reading.each_holds(outcomes).map_err(at)?;
        let set =
            crate::program::eval::StateSet::new(values.len(), |s| holds[s], |s| values[s].clone());
        let mut props = self.props;
        props
            .scope
            .labels
            .insert(self.name, CExpr::States(std::sync::Arc::new(set)));
        across_property(self.program, &props, &self.prop)
    }
}

/// Property `prop` with CTL's `E [ ψ ]` or `A [ ψ ]` (the property itself, or a filter's
/// query) made the P query with a bound that holds in the same states on the game of the
/// model's paths, in which every outcome of every command is a choice of one player (see
/// `AcrossModel::paths`), and that player: a play is then a path, and its probability of ψ is
/// 1 or 0. Some path satisfies ψ exactly where the maximiser gives it a positive probability,
/// `Pmax>0 [ ψ ]`; every path does exactly where the minimiser gives it probability one,
/// `Pmin>=1 [ ψ ]`, for every path formula, of infinite paths (`E [ G φ ]`, `A [ F φ ]`) as
/// of finite ones, and every player alike. Any other property as it is, with no player.
fn ctl_on_paths(program: &Program, prop: &Prop) -> (Prop, Option<Player>) {
    let on_paths = |q: &Query| {
        let (opt, op, bound, player) = match q.what {
            Measure::Exists => (Opt::Max, BinOp::Gt, "0", Player::Max),
            _ => (Opt::Min, BinOp::Ge, "1", Player::Min),
        };
        let bound = Expr {
            kind: ExprKind::Int(bound.to_string()),
            span: q.span,
        };
        let mut p = Query {
            coalition: None,
            what: Measure::Probability,
            opt,
            bound: Some((op, bound)),
            path: q.path.clone(),
            span: q.span,
        };
        // A chain's query names no optimum (its game of paths has the player all the same).
        if crate::analysis::check::model_type(program, &p) == ModelType::Dtmc {
            p.opt = Opt::None;
        }
        let span = p.span;
        let e = Expr {
            kind: ExprKind::Query(Box::new(p)),
            span,
        };
        (e, player)
    };
    let ctl = |e: &Expr| match &e.kind {
        ExprKind::Query(q) if crate::analysis::nested::is_ctl(q) => Some(on_paths(q)),
        _ => None,
    };
    let converted = match &prop.expr.kind {
        ExprKind::Filter(op, inner, states) => ctl(inner).map(|(q, player)| {
            let kind = ExprKind::Filter(*op, Box::new(q), states.clone());
            (
                Expr {
                    kind,
                    span: prop.expr.span,
                },
                player,
            )
        }),
        _ => ctl(&prop.expr),
    };
    match converted {
        Some((expr, player)) => (prop.with_expr(expr), Some(player)),
        None => (prop.clone(), None),
    }
}

/// [`across_property`] of a property with a state formula nested in it: the innermost formula
/// not yet checked ([`AcrossNested`]), or, where every one is (a label of `props`), the
/// property with each replaced by its set.
fn nested_first(program: Program, props: &Props, prop: &Prop) -> Result<AcrossProperty, Error> {
    props.defined_for(prop)?;
    let mut wanted = None;
    let lifted = crate::analysis::nested::lift_with(props, prop, &mut |_, q| {
        wanted = Some(q.clone());
        Err(AnalysisError::Internal("a nested formula is checked first"))
    });
    let wanted = match (lifted, wanted) {
        (Ok((props, prop)), _) => return across_property(program, &props, &prop),
        (Err(_), Some(q)) => q,
        (Err(e), None) => return Err(Error::of(&prop.text, e)),
    };
    // CTL's `E` and `A` are P queries on the game of paths, made so where it is solved.
    let formula = wanted.clone();
    let model = crate::analysis::across::reach_model(program.clone(), None)
        .map_err(|e| Error::of(&prop.text, e))?;
    Ok(AcrossProperty {
        nested: Some(Box::new(AcrossNested {
            model: model.into(),
            program,
            props: props.clone(),
            prop: prop.clone(),
            name: wanted.to_string(),
            formula,
            asked: None,
        })),
        queries: Vec::new(),
        combined: None,
    })
}

/// The queries (and filters of them) in `e`, outermost first, in the order of the text, each
/// once.
fn queries_in(e: &Expr, out: &mut Vec<Expr>) {
    match &e.kind {
        ExprKind::Query(_) | ExprKind::Filter(..) if !out.contains(e) => out.push(e.clone()),
        ExprKind::Query(_) | ExprKind::Filter(..) => {}
        ExprKind::Unary(_, a) => queries_in(a, out),
        ExprKind::Binary(_, a, b) => {
            queries_in(a, out);
            queries_in(b, out);
        }
        ExprKind::Ite(c, a, b) => {
            queries_in(c, out);
            queries_in(a, out);
            queries_in(b, out);
        }
        ExprKind::Call(_, args) => args.iter().for_each(|a| queries_in(a, out)),
        _ => {}
    }
}
