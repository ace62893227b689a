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
use perfectplay_prism::AcrossQuery;
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
/// `endless_is_infinite` as in [`Options::endless_is_infinite`].
fn run(
    model: Box<dyn DynModel>,
    m: &ArgMatches,
    what: &str,
    endless_is_infinite: bool,
    range: bool,
) -> Result<Ran> {
    if m.get_flag("exact") {
        bail!("--exact is not available across processes yet: the solve there is in floats, with a certified error bound");
    }
    if let Some(&n) = m.get_one::<u64>("processes") {
        return launch(n as usize).map(Ran::Launched);
    }
    let path = m.get_one::<String>("hostfile").expect("required");
    let text = std::fs::read_to_string(path).map_err(|e| anyhow!("cannot read '{path}': {e}"))?;
    let hosts = perfectplay_dist::parse_hostfile(&text)?;
    let process = *m.get_one::<u64>("process").expect("required") as usize;
    let options = Options {
        workers: m.get_one::<u64>("workers").map_or(1, |&w| w as usize),
        precision: m.get_one::<f64>("precision").copied().unwrap_or(1e-9),
        max_states: m.get_one::<u64>("max-states").map(|&n| n as usize),
        endless_is_infinite,
        range,
        ..Options::default()
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
    let model: Arc<dyn DynModel> = Arc::from(model);
    Ok(match perfectplay_dist::solve(model, &run, &options)? {
        Some(report) => Ran::Report(report),
        None => Ran::Done,
    })
}

/// Runs `solve` across processes.
pub fn solve(
    game: &'static GameSpec,
    params: &Params,
    model: Box<dyn DynModel>,
    m: &ArgMatches,
) -> Result<ExitCode> {
    let given = given_params(game, params);
    let report = match run(model, m, &format!("{} {given:?}", game.name), false, false)? {
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
    print_stats(&report, m);
    Ok(ExitCode::SUCCESS)
}

/// What `check --json` prints for a property checked across processes.
#[derive(Serialize)]
struct CheckJson<'a> {
    model: &'a str,
    property: &'a str,
    constants: BTreeMap<&'a str, &'a str>,
    /// Whether the property holds, where it compares its value with a bound.
    #[serde(skip_serializing_if = "Option::is_none")]
    holds: Option<bool>,
    #[serde(flatten)]
    report: &'a DistReport,
}

/// Runs `check` of one property across processes: `query` is its game and how its value reads
/// (see `perfectplay_prism::across_query`), `constants` as `--const` gave them (parsed), `what`
/// the model file's program, the constants and the property, for the fingerprint.
pub fn check(
    query: AcrossQuery,
    m: &ArgMatches,
    (label, property): (&str, &str),
    constants: &[(String, String)],
    what: &str,
) -> Result<ExitCode> {
    let AcrossQuery {
        model,
        complement,
        reward,
        range,
        compare,
    } = query;
    let mut report = match run(model, m, what, reward, range)? {
        Ran::Launched(code) => return Ok(code),
        Ran::Done => return Ok(ExitCode::SUCCESS),
        Ran::Report(report) => report,
    };
    // Whether the property holds, where it compares the game's value with a bound.
    let holds = match &compare {
        // (A probability's bounds, rounded past 0 or 1, say no more than 0 and 1 do.)
        Some(c) => Some(match reward {
            true => c.decide(report.start.lower, report.start.upper)?,
            false => c.decide(report.start.lower.max(0.0), report.start.upper.min(1.0))?,
        }),
        None => None,
    };
    // The property's value from the game's.
    let read = |x: DistValue| {
        let x = match complement {
            // One minus the value: the bounds swap, and each difference rounds once more.
            true => DistValue::new(
                1.0 - x.value,
                (1.0 - x.upper).next_down(),
                (1.0 - x.lower).next_up(),
            ),
            false => x,
        };
        match reward {
            true => x,
            // A probability: bounds rounded past 0 or 1 say no more than 0 and 1 do.
            false => DistValue {
                lower: x.lower.max(0.0),
                upper: x.upper.min(1.0),
                ..x
            },
        }
    };
    // One minus a range swaps its ends.
    report.range = report.range.map(|[least, most]| match complement {
        true => [read(most), read(least)],
        false => [read(least), read(most)],
    });
    report.start = match report.range {
        Some([least, _]) => least,
        None => read(report.start),
    };
    let bound = report.range.map_or(report.start.error_bound, |[a, b]| {
        a.error_bound.max(b.error_bound)
    });
    render::know_error_bound(bound);
    if m.get_flag("json") {
        let model_path = m.get_one::<String>("model").expect("required");
        let constants = constants
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let out = CheckJson {
            model: model_path,
            property,
            constants,
            holds,
            report: &report,
        };
        println!("{}", crate::say::json(&out));
    } else {
        let text = |x: &DistValue| render::bounded_text(x.value, x.error_bound);
        match &report.range {
            _ if holds.is_some() => println!("{label}: {}", holds.unwrap_or_default()),
            Some([least, most]) => println!("{label}: [{}, {}]", text(least), text(most)),
            None => println!(
                "{label}: {}",
                render::bounded_text(report.start.value, report.start.error_bound)
            ),
        }
    }
    print_stats(&report, m);
    Ok(ExitCode::SUCCESS)
}

/// The statistics of a run across processes on stderr, unless `--quiet`.
fn print_stats(report: &DistReport, m: &ArgMatches) {
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
        match report.start.error_bound {
            0.0 => "nothing rounded".to_string(),
            b => format!("error bound {b:.1e}"),
        }
    );
}

/// Starts this same command `n` times as the processes of one run on this machine, and prints
/// what process 0 printed.
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
    Ok(ExitCode::SUCCESS)
}

/// The game's options as given, by name.
fn given_params<'a>(game: &GameSpec, params: &'a Params) -> BTreeMap<&'static str, &'a str> {
    game.params
        .iter()
        .filter_map(|spec| Some((spec.name, params.get(spec.name)?)))
        .collect()
}
