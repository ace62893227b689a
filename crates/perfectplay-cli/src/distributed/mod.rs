//! `solve` and `check` with `--processes N` or `--hostfile FILE --process I`: the solve across
//! processes (the `perfectplay-dist` crate). `--processes` starts the processes of a run on
//! this machine and prints process 0's answer ([`launch_if_asked`], first thing); `--hostfile`
//! runs one process of a run whose processes the user starts, one per line of the file, each
//! with the same command. This module has the options, the run of one game and `solve`;
//! `check.rs` reads a property's answer from the runs of its queries.

mod check;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{anyhow, bail, Result};
use clap::{Arg, ArgMatches, Command};
use perfectplay::dynamic::DynModel;
use perfectplay_dist::{DistReport, Options, Run};
use perfectplay_games::{GameSpec, Params};
use serde::Serialize;

use crate::say::say;
use crate::{positive, render};

pub use check::{check, Asked};

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

/// Runs this process's part of a run across processes of `model`, which every process builds
/// the same from the same command: `what` names the command's model and options for the
/// fingerprint the processes compare.
/// `asked` holds what the query decides ([`Options::endless_is_infinite`],
/// [`Options::outcomes`], [`Options::qualitative`]); the command line the rest.
/// Process 0's report; `None` in the others, whose part is done.
fn run(
    model: Box<dyn DynModel>,
    m: &ArgMatches,
    what: &str,
    asked: Options,
) -> Result<Option<DistReport>> {
    let (model, run, options) = setup(Arc::from(model), m, what, asked)?;
    Ok(perfectplay_dist::solve(model, &run, &options)?)
}

/// This process's part of a run across processes of `model` (see [`run`]): the model, the
/// run and its options. A process of the run: a local run's launcher started it
/// ([`launch_if_asked`]), or the user did with `--hostfile`.
fn setup(
    model: Arc<dyn DynModel>,
    m: &ArgMatches,
    what: &str,
    asked: Options,
) -> Result<(Arc<dyn DynModel>, Run, Options)> {
    refuse_exact(m)?;
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
    Ok((model, run, options))
}

/// The solve across processes is in floats: `--exact` is refused, before any process starts.
fn refuse_exact(m: &ArgMatches) -> Result<()> {
    if m.get_flag("exact") {
        bail!("--exact is not available across processes yet: the solve there is in floats, with a certified error bound");
    }
    Ok(())
}

/// Runs `solve` across processes.
pub fn solve(
    game: &'static GameSpec,
    params: &Params,
    model: Box<dyn DynModel>,
    m: &ArgMatches,
) -> Result<ExitCode> {
    if let Some(code) = launch_if_asked(m)? {
        return Ok(code);
    }
    let given = given_params(game, params);
    let what = format!("{} {given:?}", game.name);
    let Some(report) = run(model, m, &what, Options::default())? else {
        return Ok(ExitCode::SUCCESS);
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
/// its processes (see [`launch`]) and returns the exit code. Every command across processes
/// calls it first, once it has read what it can refuse by itself (a model that does not
/// build, a property that does not parse), so that its processes start once, for every run
/// the command makes.
pub fn launch_if_asked(m: &ArgMatches) -> Result<Option<ExitCode>> {
    match m.get_one::<u64>("processes") {
        Some(&n) => {
            refuse_exact(m)?;
            launch(n as usize).map(Some)
        }
        None => Ok(None),
    }
}

/// Starts this same command `n` times as the processes of one run on this machine, and prints
/// what process 0 prints (its answers as they come); exit code 2 where process 0 finished with some of its work failed.
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
    // Process 0's output is passed on as it comes; the run's files go on an interrupt.
    let printed = perfectplay_dist::local::run(&exe, &args, n, &crate::interrupt::temporary)?;
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
