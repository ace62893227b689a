//! `check` across processes: a property's queries solved by the processes in turn (each a
//! run of its own, see [`super::run`]), its nested formulas and its filter's states first, and
//! in process 0 its answer read from their values, printed as one process prints it. Several
//! properties are checked one after another by the same processes.

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Result;
use clap::ArgMatches;
use perfectplay::dynamic::DynModel;
use perfectplay_dist::{DistReport, DistValue, Options};
use perfectplay_prism::{AcrossAnswer, AcrossProperty, AcrossQuery, AcrossStep, Found};
use serde::Serialize;

use super::{breaks_the_run, failed_exit_code, launch_if_asked, print_stats, prints, run, setup};
use crate::say::say;

/// The figures of a check's runs across processes in `--json`.
#[derive(Serialize)]
struct RunJson<'a> {
    processes: usize,
    workers: usize,
    rounds: u64,
    messages: u64,
    bytes: u64,
    peak_memory: &'a [u64],
    seconds: f64,
}

impl<'a> RunJson<'a> {
    fn of(report: &'a DistReport) -> RunJson<'a> {
        RunJson {
            processes: report.processes,
            workers: report.workers,
            rounds: report.rounds,
            messages: report.messages,
            bytes: report.bytes,
            peak_memory: &report.peak_memory,
            seconds: report.seconds,
        }
    }
}

/// What `check --json` prints for the properties checked across processes (one, or several
/// one after another by the same processes): each property's answer or error in `results`,
/// as one process prints them, and the runs' figures (none where no property was answered).
#[derive(Serialize)]
struct AllJson<'a> {
    model: &'a str,
    constants: BTreeMap<&'a str, &'a str>,
    results: Vec<OneJson>,
    #[serde(flatten)]
    run: Option<RunJson<'a>>,
}

/// One property's result in [`AllJson`], as one process gives it, with its certified bounds.
#[derive(Serialize)]
struct OneJson {
    name: Option<String>,
    property: String,
    #[serde(flatten)]
    answer: Option<perfectplay_prism::Answer>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lower: Option<JsonFloat>,
    #[serde(skip_serializing_if = "Option::is_none")]
    upper: Option<JsonFloat>,
    seconds: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// A float in JSON, which has no infinity: a number, or `"inf"` and `"-inf"`.
struct JsonFloat(f64);

impl Serialize for JsonFloat {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            f64::INFINITY => s.serialize_str("inf"),
            f64::NEG_INFINITY => s.serialize_str("-inf"),
            x => s.serialize_f64(x),
        }
    }
}

/// One property to check across processes (see [`check_all`]).
pub struct Asked {
    /// The property's name, where it has one.
    pub name: Option<String>,
    /// The property as written.
    pub text: String,
    /// The model file's program, the constants and the property, for the fingerprint.
    pub what: String,
    /// Its queries' games and how its answer reads from their values (see
    /// `perfectplay_prism::across_property`), or why it cannot be checked across processes.
    pub property: Result<AcrossProperty>,
}

/// A property's answer across processes, in process 0.
struct Checked {
    answer: perfectplay_prism::Answer,
    /// Certified bounds on the exact value, where the answer is a number.
    bounds: Option<[f64; 2]>,
    /// The property's runs as one; `None` where it needed none (a property of the initial
    /// states' variables alone).
    report: Option<DistReport>,
}

/// Runs `check` of properties across processes, one after another by the same processes (a
/// local run's are started first, unless every property is refused before). As in one
/// process, a property that cannot be answered is an error of its own (printed by process 0)
/// and the others go on; a run that breaks (a process lost, processes that disagree) ends
/// them all.
pub fn check(
    asked: Vec<Asked>,
    m: &ArgMatches,
    constants: &[(String, String)],
) -> Result<ExitCode> {
    // Properties that are all refused across processes start none: each is an error here.
    if asked.iter().any(|a| a.property.is_ok()) {
        if let Some(code) = launch_if_asked(m)? {
            return Ok(code);
        }
    }
    let first = prints(m);
    let json = m.get_flag("json");
    let mut results = Vec::new();
    let mut reports = Vec::new();
    let mut worst_bound: f64 = 0.0;
    let mut failed = false;
    // The model's states that a filter's condition finds are the same for every property.
    let mut found = FoundStates::new(m);
    for asked in asked {
        let started = std::time::Instant::now();
        let checked = asked
            .property
            .and_then(|property| answer(property, m, &asked.what, &mut found));
        let name = asked.name.clone();
        let label = name.as_deref().unwrap_or(&asked.text);
        let (answer, bounds, error) = match checked {
            Ok(None) => continue,
            Ok(Some(checked)) => {
                if !json {
                    crate::prism::print_answer(label, &checked.answer);
                }
                worst_bound = worst_bound.max(checked.answer.error_bound);
                reports.extend(checked.report);
                (Some(checked.answer), checked.bounds, None)
            }
            Err(e) if breaks_the_run(&e) => return Err(e),
            Err(e) => {
                failed = true;
                if !first {
                    continue;
                }
                let error = said_of_property(&e);
                say!(
                    "error: {label}: {error}{}",
                    crate::say::flag_hint(e.as_ref())
                );
                (None, None, Some(error))
            }
        };
        results.push(OneJson {
            name,
            property: asked.text,
            answer,
            lower: bounds.map(|[lo, _]| JsonFloat(lo)),
            upper: bounds.map(|[_, hi]| JsonFloat(hi)),
            seconds: started.elapsed().as_secs_f64(),
            error,
        });
    }
    let report = merged(reports);
    if first && json {
        let out = AllJson {
            model: model_path(m),
            constants: given_constants(constants),
            results,
            run: report.as_ref().map(RunJson::of),
        };
        println!("{}", crate::say::json(&out));
    }
    if let Some(report) = &report {
        print_stats(report, worst_bound, m);
    }
    if failed && !first {
        say!("error: some of the properties could not be answered: process 0 says which");
    }
    Ok(match failed {
        true => failed_exit_code(m),
        false => ExitCode::SUCCESS,
    })
}

/// `e`'s message, without the property's text where it names it first (as an error of a
/// property checked alone does).
fn said_of_property(e: &anyhow::Error) -> String {
    match e.downcast_ref::<perfectplay_prism::Error>() {
        Some(perfectplay_prism::Error::Analysis(perfectplay_prism::AnalysisError::Property {
            error,
            ..
        })) => error.to_string(),
        _ => format!("{e:#}"),
    }
}

fn model_path(m: &ArgMatches) -> &str {
    m.get_one::<String>("model").expect("required")
}

/// The constants as `--const` gave them, by name.
fn given_constants(constants: &[(String, String)]) -> BTreeMap<&str, &str> {
    constants
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect()
}

/// This process's part of checking `property` across processes: its nested formulas and
/// queries solved by the processes in turn, and in process 0 the answer read from their
/// values. `what` is its fingerprint's text (see [`Asked`]); `found` holds the states found
/// so far, by this property's runs or an earlier property's. Process 0's answer; `None` in
/// the others, whose part is done.
fn answer(
    mut property: AcrossProperty,
    m: &ArgMatches,
    what: &str,
    found: &mut FoundStates,
) -> Result<Option<Box<Checked>>> {
    let mut reports = Vec::new();
    let mut answers = Vec::new();
    // State formulas nested in the property, innermost first: each checked in every
    // reachable state, then the property again with it a set of states.
    let mut formula = 0;
    while let Some(mut nested) = property.nested.take() {
        let every = format!("{what}: every state");
        let states = found.find("", &nested.model, every, &mut reports)?;
        let query = nested.query(states)?;
        let asked = asked(&query, true);
        let what = format!("{what}: nested formula {formula}");
        let (model, run, options) = setup(Arc::from(query.model), m, &what, asked)?;
        let solved = perfectplay_dist::solve_everywhere(model, &run, &options)?;
        reports.extend(solved.report);
        let bounds: Vec<[f64; 3]> = solved.outcomes.iter().map(DistValue::bounds).collect();
        property = nested.lifted(&bounds)?;
        formula += 1;
    }
    let several = property.queries.len() > 1;
    for (i, step) in std::mem::take(&mut property.queries)
        .into_iter()
        .enumerate()
    {
        // Each query's run has a fingerprint of its own, so that processes at different
        // queries refuse each other.
        let what = match several {
            true => format!("{what} query {i}"),
            false => what.to_string(),
        };
        let query = match step {
            AcrossStep::Solve(query) => *query,
            AcrossStep::Answered(answer) => {
                answers.push(*answer);
                continue;
            }
            AcrossStep::Find(step) => {
                // A filter's states, found first.
                let what = format!("{what}: the filter's states");
                let states = found.find(&step.condition, &step.model, what, &mut reports)?;
                match step.found(states)? {
                    Found::Solve(query) => query,
                    Found::Answered(answer) => {
                        answers.push(answer);
                        continue;
                    }
                }
            }
        };
        let asked = asked(&query, query.each_initial);
        let Some(report) = run(query.model, m, &what, asked)? else {
            continue;
        };
        let at: Vec<[f64; 3]> = match query.each_initial {
            true => report.outcomes.iter().map(DistValue::bounds).collect(),
            false => vec![report.start.bounds()],
        };
        // An error of one query is the property's only where it uses the query's value;
        // the runs of the others go on in every process.
        answers.push(query.reading.answer(&at));
        reports.push(report);
    }
    if !prints(m) {
        return Ok(None);
    }
    let report = merged(reports);
    let AcrossAnswer {
        mut answer, bounds, ..
    } = property.answer(answers)?;
    if let Some(report) = &report {
        answer.method = report.method;
        answer.states = report.states as usize;
    }
    Ok(Some(Box::new(Checked {
        answer,
        bounds,
        report,
    })))
}

/// The states found by the explorations of a check across processes, by the filter
/// condition that found them (empty for every reachable state): each condition's states are
/// found once, by a run of its own, for every query and property of the model that asks.
struct FoundStates<'a> {
    states: BTreeMap<String, Vec<Vec<u8>>>,
    m: &'a ArgMatches,
}

impl<'a> FoundStates<'a> {
    /// None found yet.
    fn new(m: &'a ArgMatches) -> FoundStates<'a> {
        FoundStates {
            states: BTreeMap::new(),
            m,
        }
    }

    /// The states `model` finds for `condition` (see [`reach`] for `what`), found now or
    /// earlier, with the run's report added to `reports`.
    fn find(
        &mut self,
        condition: &str,
        model: &Arc<dyn DynModel>,
        what: String,
        reports: &mut Vec<DistReport>,
    ) -> Result<&[Vec<u8>]> {
        if !self.states.contains_key(condition) {
            let reached = reach(model.clone(), self.m, &what)?;
            reports.extend(reached.report);
            self.states.insert(condition.to_string(), reached.states);
        }
        Ok(&self.states[condition])
    }
}

/// The states an exploration across processes of `model` reaches
/// ([`perfectplay_dist::reach`]; see [`run`] for `what`).
fn reach(
    model: Arc<dyn DynModel>,
    m: &ArgMatches,
    what: &str,
) -> Result<perfectplay_dist::Reached> {
    let (model, run, options) = setup(model, m, what, Options::default())?;
    Ok(perfectplay_dist::reach(model, &run, &options)?)
}

/// What a query's solve across processes is asked to decide (see [`run`]), its start's
/// outcomes' values where `outcomes`.
fn asked(query: &AcrossQuery, outcomes: bool) -> Options {
    Options {
        endless_is_infinite: query.reward,
        total: query.total,
        long_run: query.long_run,
        reached_only: query.reached_only,
        outcomes,
        qualitative: query.zero_one,
        ..Options::default()
    }
}

/// The reports of the runs of one property's queries as one: their states, rounds, messages
/// and times added, each process's greatest peak memory, and the method where all share it
/// (an exploration that found a filter's states first is said first);
/// `None` for none (a process other than the first, which gets no report).
fn merged(reports: Vec<DistReport>) -> Option<DistReport> {
    let found_first = reports
        .iter()
        .any(|r| r.method == perfectplay_dist::REACH_METHOD);
    let mut all = reports.into_iter();
    let mut total = all.next()?;
    for r in all {
        if total.method == perfectplay_dist::REACH_METHOD {
            total.method = r.method;
        } else if r.method != total.method && r.method != perfectplay_dist::REACH_METHOD {
            total.method = "distributed: each query as its own game, combined";
        }
        total.states += r.states;
        total.rounds += r.rounds;
        total.messages += r.messages;
        total.bytes += r.bytes;
        total.seconds += r.seconds;
        for (peak, p) in total.peak_memory.iter_mut().zip(r.peak_memory) {
            *peak = (*peak).max(p);
        }
    }
    if found_first {
        total.method = match total.method {
            "distributed: retrograde analysis" => {
                "distributed: states found first, then retrograde analysis"
            }
            "distributed: retrograde analysis, then interval iteration" => {
                "distributed: states found first, then retrograde analysis and \
                 interval iteration"
            }
            perfectplay_dist::REACH_METHOD => "distributed: the filter's states found (none)",
            "distributed: retrograde analysis, interval iteration, then the open states solved \
             directly in one worker" => {
                "distributed: states found first, then retrograde analysis, \
                 interval iteration and the open states solved directly in one worker"
            }
            _ => "distributed: states found first, then each query's own solve",
        };
    }
    Some(total)
}
