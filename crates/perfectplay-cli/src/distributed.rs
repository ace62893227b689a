//! `solve --processes N` and `solve --hostfile FILE --process I`: the solve across processes
//! (the `perfectplay-dist` crate). `--processes` starts the processes of a run on this machine
//! and prints process 0's answer; `--hostfile` runs one process of a run whose processes the
//! user starts, one per line of the file, each with the same command.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{anyhow, bail, Result};
use clap::{Arg, ArgMatches, Command};
use perfectplay::dynamic::DynModel;
use perfectplay_dist::{DistReport, DistValue, Options, Run};
use perfectplay_games::{GameSpec, Params};
use perfectplay_prism::{AcrossAnswer, AcrossProperty, AcrossQuery, AcrossStep, Found};
use serde::Serialize;

use crate::say::say;
use crate::{positive, render};

/// The options of the solve across processes.
pub fn args(cmd: Command) -> Command {
    cmd.arg(
        Arg::new("processes")
            .long("processes")
            .value_name("N")
            .value_parser(clap::value_parser!(u64).range(1..=256))
            .conflicts_with_all(["hostfile", "process"])
            .help(
                "Solve across N processes on this machine, talking over loopback (float \
                 only; the answer carries a certified error bound)",
            ),
    )
    .arg(
        Arg::new("hostfile")
            .long("hostfile")
            .value_name("FILE")
            .requires("process")
            .help(
                "Run one process of a solve across machines: FILE lists every process as \
                 host:port, one a line; every process runs the same command with its own \
                 --process",
            ),
    )
    .arg(
        Arg::new("process")
            .long("process")
            .value_name("I")
            .value_parser(clap::value_parser!(u64))
            .requires("hostfile")
            .help("This process's line in --hostfile, counted from 0"),
    )
    .arg(
        Arg::new("workers")
            .long("workers")
            .value_name("W")
            .value_parser(positive)
            .help("Worker threads per process of a solve across processes [default: 1]"),
    )
    .arg(
        Arg::new("precision")
            .long("precision")
            .value_name("EPS")
            .value_parser(precision)
            .help(
                "Across processes: stop when the start's bounds are within EPS of each other, \
                 relative to the value (absolute below 1) [default: 1e-9]",
            ),
    )
}

fn precision(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x > 0.0 && x < 1.0 => Ok(x),
        _ => Err("it must be a number between 0 and 1, such as 1e-9".into()),
    }
}

/// Whether the command asks for a solve across processes.
pub fn wanted(m: &ArgMatches) -> bool {
    m.contains_id("processes") || m.contains_id("hostfile")
}

/// What `solve --json` prints for a solve across processes.
#[derive(Serialize)]
struct DistJson<'a> {
    game: &'static str,
    params: BTreeMap<&'static str, &'a str>,
    #[serde(flatten)]
    report: &'a DistReport,
}

/// What this process's part of a run across processes came to.
enum Ran {
    /// This command started the run's processes and printed what process 0 printed.
    Launched(ExitCode),
    /// Process 0's report.
    Report(DistReport),
    /// Another process's part is done.
    Done,
}

/// Runs this process's part of a run across processes of `model`, which every process builds
/// the same from the same command: `what` names the command's model and options for the
/// fingerprint the processes compare.
/// `asked` holds what the query decides ([`Options::endless_is_infinite`],
/// [`Options::outcomes`], [`Options::qualitative`]); the command line the rest.
fn run(model: Box<dyn DynModel>, m: &ArgMatches, what: &str, asked: Options) -> Result<Ran> {
    let (model, run, options) = match setup(Arc::from(model), m, what, asked)? {
        Setup::Launched(code) => return Ok(Ran::Launched(code)),
        Setup::Ready(model, run, options) => (model, run, options),
    };
    Ok(match perfectplay_dist::solve(model, &run, &options)? {
        Some(report) => Ran::Report(report),
        None => Ran::Done,
    })
}

/// How this process takes part in a run across processes.
enum Setup {
    /// This command started the run's processes and printed what process 0 printed.
    Launched(ExitCode),
    /// This is one of the run's processes: the model, the run and its options.
    Ready(Arc<dyn DynModel>, Run, Options),
}

/// The launch of a run across processes of `model` (see [`run`]), or this process's part of
/// it.
fn setup(model: Arc<dyn DynModel>, m: &ArgMatches, what: &str, asked: Options) -> Result<Setup> {
    if m.get_flag("exact") {
        bail!("--exact is not available across processes yet: the solve there is in floats, with a certified error bound");
    }
    if let Some(&n) = m.get_one::<u64>("processes") {
        return launch(n as usize).map(Setup::Launched);
    }
    let path = m.get_one::<String>("hostfile").expect("required");
    let text = std::fs::read_to_string(path).map_err(|e| anyhow!("cannot read '{path}': {e}"))?;
    let hosts = perfectplay_dist::parse_hostfile(&text)?;
    let process = *m.get_one::<u64>("process").expect("required") as usize;
    let options = Options {
        workers: m.get_one::<u64>("workers").map_or(1, |&w| w as usize),
        precision: m.get_one::<f64>("precision").copied().unwrap_or(1e-9),
        max_states: m.get_one::<u64>("max-states").map(|&n| n as usize),
        ..asked
    };
    // The version, the model with its options, and what decides the rounds; the start
    // state's bytes too, in case a model reads something besides its options.
    let start = model.encoded().start()?;
    let fingerprint = perfectplay_dist::fingerprint(
        format!(
            "{} {what} {start:?} {:?} {:?} {}",
            env!("CARGO_PKG_VERSION"),
            options.precision.to_bits(),
            options.max_states,
            options.workers
        )
        .as_bytes(),
    );
    let run = Run {
        hosts,
        process,
        fingerprint,
    };
    Ok(Setup::Ready(model, run, options))
}

/// Runs `solve` across processes.
pub fn solve(
    game: &'static GameSpec,
    params: &Params,
    model: Box<dyn DynModel>,
    m: &ArgMatches,
) -> Result<ExitCode> {
    let given = given_params(game, params);
    let report = match run(
        model,
        m,
        &format!("{} {given:?}", game.name),
        Options::default(),
    )? {
        Ran::Launched(code) => return Ok(code),
        Ran::Done => return Ok(ExitCode::SUCCESS),
        Ran::Report(report) => report,
    };
    render::know_error_bound(report.start.error_bound);
    if m.get_flag("json") {
        let out = DistJson {
            game: game.name,
            params: given,
            report: &report,
        };
        println!("{}", crate::say::json(&out));
    } else {
        println!(
            "{}",
            render::bounded_text(report.start.value, report.start.error_bound)
        );
    }
    print_stats(&report, report.start.error_bound, m);
    Ok(ExitCode::SUCCESS)
}

/// What `check --json` prints for a property checked across processes: the answer as one
/// process prints it, its certified bounds, and the run's figures.
#[derive(Serialize)]
struct CheckJson<'a> {
    model: &'a str,
    property: &'a str,
    constants: BTreeMap<&'a str, &'a str>,
    #[serde(flatten)]
    answer: &'a perfectplay_prism::check::Answer,
    /// Certified bounds on the exact value, where the answer is a number.
    #[serde(skip_serializing_if = "Option::is_none")]
    lower: Option<JsonFloat>,
    #[serde(skip_serializing_if = "Option::is_none")]
    upper: Option<JsonFloat>,
    #[serde(flatten)]
    run: RunJson<'a>,
}

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

/// What `check --json` prints for several properties checked across processes, one after
/// another by the same processes: each property's answer or error, and the runs' figures
/// (none where no property was answered).
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
    answer: Option<perfectplay_prism::check::Answer>,
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
    answer: perfectplay_prism::check::Answer,
    /// Certified bounds on the exact value, where the answer is a number.
    bounds: Option<[f64; 2]>,
    /// The property's runs as one.
    report: DistReport,
}

/// What this process's part of checking one property across processes came to.
enum Checking {
    /// This command started the run's processes and printed what process 0 printed.
    Launched(ExitCode),
    /// Another process than the first, whose part is done: the first prints the answer.
    Elsewhere,
    /// Process 0's answer.
    Answered(Box<Checked>),
}

/// Runs `check` of one property across processes, each of its queries solved by the
/// processes in turn; `constants` as `--const` gave them (parsed).
pub fn check(asked: Asked, m: &ArgMatches, constants: &[(String, String)]) -> Result<ExitCode> {
    let mut found = FoundStates::new(m);
    let checked = match answer(asked.property?, m, &asked.what, &mut found)? {
        Checking::Launched(code) => return Ok(code),
        Checking::Elsewhere => return Ok(ExitCode::SUCCESS),
        Checking::Answered(checked) => checked,
    };
    let Checked {
        answer,
        bounds,
        report,
    } = *checked;
    render::know_error_bound(answer.error_bound);
    if m.get_flag("json") {
        let out = CheckJson {
            model: model_path(m),
            property: &asked.text,
            constants: given_constants(constants),
            answer: &answer,
            lower: bounds.map(|[lo, _]| JsonFloat(lo)),
            upper: bounds.map(|[_, hi]| JsonFloat(hi)),
            run: RunJson::of(&report),
        };
        println!("{}", crate::say::json(&out));
    } else {
        let label = asked.name.as_deref().unwrap_or(&asked.text);
        crate::prism::print_answer(label, &answer);
    }
    print_stats(&report, answer.error_bound, m);
    Ok(ExitCode::SUCCESS)
}

/// Runs `check` of several properties across processes, one after another by the same
/// processes (a local run's are started first). As in one process, a property that cannot be
/// answered is an error of its own (printed by process 0) and the others go on; a run that
/// breaks (a process lost, processes that disagree) ends them all.
pub fn check_all(
    asked: Vec<Asked>,
    m: &ArgMatches,
    constants: &[(String, String)],
) -> Result<ExitCode> {
    if let Some(code) = launch_if_asked(m)? {
        return Ok(code);
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
            Ok(Checking::Launched(code)) => return Ok(code),
            Ok(Checking::Elsewhere) => continue,
            Ok(Checking::Answered(checked)) => {
                if !json {
                    crate::prism::print_answer(label, &checked.answer);
                }
                worst_bound = worst_bound.max(checked.answer.error_bound);
                reports.push(checked.report);
                (Some(checked.answer), checked.bounds, None)
            }
            Err(e) if breaks_the_run(&e) => return Err(e),
            Err(e) => {
                failed = true;
                if !first {
                    continue;
                }
                let error = said_of_property(&e);
                say!("error: {label}: {error}");
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

/// Whether this process prints answers and errors: the only process of a command that is not
/// run across processes, or process 0 of a run across processes (the others are quiet).
pub fn prints(m: &ArgMatches) -> bool {
    match m.get_one::<u64>("process") {
        Some(&i) => i == 0,
        None => true,
    }
}

/// The exit code of a command of several parts (properties, combinations of constants) some
/// of which failed, each with its own error line: 2, or in a process of a local run across
/// processes the code by which its launcher knows that the run itself went well.
pub fn failed_exit_code(m: &ArgMatches) -> ExitCode {
    match m.contains_id("hostfile") {
        true => ExitCode::from(perfectplay_dist::local::finished_with_errors()),
        false => ExitCode::from(2),
    }
}

/// Whether `e` broke the run of the processes (a process lost, processes that disagree, a host
/// file that cannot be used), rather than ending one property's runs alike in every process.
pub fn breaks_the_run(e: &anyhow::Error) -> bool {
    matches!(
        e.downcast_ref::<perfectplay_dist::DistError>(),
        Some(
            perfectplay_dist::DistError::Network(_)
                | perfectplay_dist::DistError::Mismatch(_)
                | perfectplay_dist::DistError::Hostfile(_)
        )
    )
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
/// so far, by this property's runs or an earlier property's.
fn answer(
    mut property: AcrossProperty,
    m: &ArgMatches,
    what: &str,
    found: &mut FoundStates,
) -> Result<Checking> {
    let mut reports = Vec::new();
    let mut answers = Vec::new();
    // State formulas nested in the property, innermost first: each checked in every
    // reachable state, then the property again with it a set of states.
    let mut formula = 0;
    while let Some(mut nested) = property.nested.take() {
        let states = match found.find(
            "",
            &nested.model,
            format!("{what}: every state"),
            &mut reports,
        )? {
            Ok(states) => states,
            Err(code) => return Ok(Checking::Launched(code)),
        };
        let query = nested.query(states)?;
        let asked = asked(&query, true);
        let what = format!("{what}: nested formula {formula}");
        let (model, run, options) = match setup(Arc::from(query.model), m, &what, asked)? {
            Setup::Launched(code) => return Ok(Checking::Launched(code)),
            Setup::Ready(model, run, options) => (model, run, options),
        };
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
            AcrossStep::Find(step) => {
                // A filter's states, found first.
                let what = format!("{what}: the filter's states");
                let states = match found.find(&step.condition, &step.model, what, &mut reports)? {
                    Ok(states) => states,
                    Err(code) => return Ok(Checking::Launched(code)),
                };
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
        let report = match run(query.model, m, &what, asked)? {
            Ran::Launched(code) => return Ok(Checking::Launched(code)),
            Ran::Done => continue,
            Ran::Report(report) => report,
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
    let Some(report) = merged(reports) else {
        return Ok(Checking::Elsewhere);
    };
    let AcrossAnswer {
        mut answer, bounds, ..
    } = property.answer(answers)?;
    answer.method = report.method;
    answer.states = report.states as usize;
    Ok(Checking::Answered(Box::new(Checked {
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
    /// earlier, with the run's report added to `reports`; `Err` with the exit code where this
    /// command launched the run's processes.
    fn find(
        &mut self,
        condition: &str,
        model: &Arc<dyn DynModel>,
        what: String,
        reports: &mut Vec<DistReport>,
    ) -> Result<std::result::Result<&[Vec<u8>], ExitCode>> {
        if !self.states.contains_key(condition) {
            let reached = match reach(model.clone(), self.m, &what)? {
                Ok(reached) => reached,
                Err(code) => return Ok(Err(code)),
            };
            reports.extend(reached.report);
            self.states.insert(condition.to_string(), reached.states);
        }
        Ok(Ok(&self.states[condition]))
    }
}

/// The states an exploration across processes of `model` reaches
/// ([`perfectplay_dist::reach`]); `Err` with the exit code where this command launched the
/// run's processes (see [`run`] for `what`).
fn reach(
    model: Arc<dyn DynModel>,
    m: &ArgMatches,
    what: &str,
) -> Result<std::result::Result<perfectplay_dist::Reached, ExitCode>> {
    Ok(match setup(model, m, what, Options::default())? {
        Setup::Launched(code) => Err(code),
        Setup::Ready(model, run, options) => Ok(perfectplay_dist::reach(model, &run, &options)?),
    })
}

/// What a query's solve across processes is asked to decide (see [`run`]), its start's
/// outcomes' values where `outcomes`.
fn asked(query: &AcrossQuery, outcomes: bool) -> Options {
    Options {
        endless_is_infinite: query.reward,
        total: query.total,
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

/// The statistics of a run across processes on stderr, unless `--quiet`, with the error bound
/// of its answer.
fn print_stats(report: &DistReport, error_bound: f64, m: &ArgMatches) {
    if m.get_flag("quiet") {
        return;
    }
    let peaks: Vec<String> = report
        .peak_memory
        .iter()
        .map(|&b| format!("{:.1} MB", b as f64 / 1e6))
        .collect();
    say!(
        "states: {}, processes: {} × {} worker{}, rounds: {}, messages: {} ({:.1} MB), time: {:.3} s, peak memory: {}, numbers: f64, {}",
        report.states,
        report.processes,
        report.workers,
        if report.workers == 1 { "" } else { "s" },
        report.rounds,
        report.messages,
        report.bytes as f64 / 1e6,
        report.seconds,
        peaks.join(", "),
        match error_bound {
            0.0 => "nothing rounded".to_string(),
            b => format!("error bound {b:.1e}"),
        }
    );
}

/// Where the command asks for a run across processes on this machine (`--processes`): starts
/// its processes (see [`launch`]) and returns the exit code.
pub fn launch_if_asked(m: &ArgMatches) -> Result<Option<ExitCode>> {
    match m.get_one::<u64>("processes") {
        Some(&n) => launch(n as usize).map(Some),
        None => Ok(None),
    }
}

/// Starts this same command `n` times as the processes of one run on this machine, and prints
/// what process 0 printed; exit code 2 where process 0 finished with some of its work failed.
fn launch(n: usize) -> Result<ExitCode> {
    let exe = std::env::current_exe().map_err(|e| anyhow!("cannot find this program: {e}"))?;
    let mut args: Vec<OsString> = Vec::new();
    let mut given = std::env::args_os().skip(1);
    while let Some(a) = given.next() {
        match a.to_str() {
            Some("--processes") => {
                given.next();
            }
            Some(s) if s.starts_with("--processes=") => {}
            _ => args.push(a),
        }
    }
    let printed = perfectplay_dist::local::run(&exe, &args, n)?;
    std::io::stdout().write_all(&printed.stdout)?;
    std::io::stderr().write_all(&printed.stderr)?;
    Ok(match printed.failed {
        true => ExitCode::from(2),
        false => ExitCode::SUCCESS,
    })
}

/// The game's options as given, by name.
fn given_params<'a>(game: &GameSpec, params: &'a Params) -> BTreeMap<&'static str, &'a str> {
    game.params
        .iter()
        .filter_map(|spec| Some((spec.name, params.get(spec.name)?)))
        .collect()
}
