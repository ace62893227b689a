//! The `perfectplay` command: thin glue over `perfectplay` (the engine) and
//! `perfectplay-games` (the built-in games). It parses arguments, runs, prints, and picks the
//! exit code: 0 on success, 2 on any error (one line on stderr starting with `error:`, and
//! under it an excerpt of the source for an error in a model or properties file).

use crate::say::{fatal, say_raw};
use std::collections::BTreeMap;
use std::io::Write;
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context, Result};
use clap::{Arg, ArgAction, ArgMatches, Command};
use perfectplay::dynamic::{DynModel, Report};
use perfectplay_games::{catalog, GameError, GameSpec, ParamKind, ParamSpec, Params};
use serde::Serialize;

use solving::{print_stats, solve_model, with_options};

mod alloc;
mod analysis;
mod contest;
mod distributed;
mod files;
mod interrupt;
mod plot;
mod prism;
mod ranges;
mod render;
mod say;
mod serve;
mod solving;

#[global_allocator]
static ALLOCATOR: alloc::Guarded = alloc::Guarded;

const ABOUT: &str = "Solves finite games of chance and strategy exactly: the value under optimal \
play, computed by one engine for every game (cycles, two players, chance).";

const AFTER_HELP: &str = "Examples:
  perfectplay games
  perfectplay solve perfect-memory --rows 4 --cols 4
  perfectplay solve perfect-memory --rows 4 --cols 4 --exact --json
  perfectplay explain pig --goal 20 --state 'A 10 B 15, A to move, turn 8'
  perfectplay play pig --goal 20 --seed 7
  perfectplay play yeetzhee --dice 3 --faces 6 --groups 1,2 --auto 10000 --seed 1
  perfectplay distribution perfect-memory --rows 2 --cols 3 --exact --plot moves.svg
  perfectplay strategy gold-pots --pots 4,1,2,10,3 --out strategy.csv
  perfectplay serve pig --goal 100
  perfectplay contest grid-game < input.txt
  perfectplay check model.prism model.props --const N=3
  perfectplay completions bash > ~/.local/share/bash-completion/completions/perfectplay
  perfectplay man > perfectplay.1
  perfectplay explain model.prism --prop 'Pmax=? [ F \"goal\" ]' --state '(x=1,b=true)'

Every game command ('solve', 'explain', 'play', 'distribution', 'strategy') takes the game's
own options ('perfectplay games' lists them) and --exact, --max-states N, --quiet. In place of
a game, 'explain', 'play', 'distribution' and 'strategy' take a model file in the PRISM
language with --prop, the property whose optimum is played.

From Python: 'pip install ./crates/perfectplay-py' in a clone gives the module 'perfectplay'
(every game here, games written in Python, OpenSpiel's games, PRISM models; help(perfectplay)).

Exit codes: 0 success, 2 error: one line on stderr starting with 'error:' that says what is wrong
and, for an error in a model or properties file, an excerpt of the source under it with a caret at
the place; 130 interrupted (Ctrl-C).";

/// The options every game command takes besides the game's own.
fn common_args(cmd: Command) -> Command {
    cmd.arg(
        Arg::new("exact")
            .long("exact")
            .action(ArgAction::SetTrue)
            .help(
                "Exact values, printed as p/q too (solve: multi-modular for acyclic games, \
                 big rationals otherwise)",
            ),
    )
    .arg(
        Arg::new("max-states")
            .long("max-states")
            .value_name("N")
            .value_parser(positive)
            .help("Stop with an error once more than N states are explored"),
    )
    .arg(
        Arg::new("quiet")
            .long("quiet")
            .short('q')
            .action(ArgAction::SetTrue)
            .help("No progress and no statistics on stderr"),
    )
    .arg(render::digits_arg())
}

/// A count of at least one, with a message that says so (clap's names the largest `u64`).
pub(crate) fn positive(s: &str) -> Result<u64, String> {
    match s.parse::<u64>() {
        Ok(n) if n >= 1 => Ok(n),
        Ok(_) => Err("it must be at least 1".into()),
        Err(_) => Err("it must be a whole number of at least 1".into()),
    }
}

/// The game's example as a command line (after `perfectplay`) for `command`.
fn example(g: &GameSpec, command: &str) -> String {
    let mut line = format!("{command} {}", g.name);
    for (name, value) in g.example {
        let quoted = value.contains([' ', ';']);
        line.push_str(&match quoted {
            true => format!(" --{name} \"{value}\""),
            false => format!(" --{name} {value}"),
        });
    }
    line
}

/// The option that reads a text parameter from a file, `--NAME-file`.
fn file_option(p: &ParamSpec) -> Option<(String, String)> {
    is_file_kind(p).then(|| {
        let help = format!("read --{} from FILE ('-' for stdin) instead", p.name);
        (format!("{}-file", p.name), help)
    })
}

/// Parameters that may come from a file: texts, and lists (which can be longer than a command
/// line holds).
fn is_file_kind(p: &ParamSpec) -> bool {
    matches!(p.kind, ParamKind::Text | ParamKind::IntList { .. })
}

/// A list read from a file: numbers separated by commas, spaces or new lines, as `a,b,c`.
fn list_text(text: &str) -> String {
    text.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join(",")
}

/// `perfectplay <command> <game> [game options] [common options] [command options]`.
fn game_command(g: &'static GameSpec, command: &str, extra: fn(Command) -> Command) -> Command {
    let mut cmd = Command::new(g.name)
        .about(g.summary)
        .after_help(format!("Example:\n  perfectplay {}", example(g, command)));
    for p in g.params {
        let mut arg = Arg::new(p.name)
            .long(p.name)
            .value_name(p.value)
            .help(match p.kind {
                ParamKind::IntList { .. } => {
                    format!(
                        "{} (or @FILE: the list from a file, '@-' for stdin)",
                        p.help
                    )
                }
                _ => p.help.to_string(),
            })
            .allow_hyphen_values(true);
        if let Some(d) = p.default {
            arg = arg.default_value(d);
        }
        // A parameter that may come from a file is checked once both options are read.
        let file = file_option(p);
        arg = arg.required(p.required && file.is_none());
        cmd = cmd.arg(arg);
        if let Some((name, help)) = file {
            cmd = cmd.arg(
                Arg::new(name.clone())
                    .long(name)
                    .value_name("FILE")
                    .help(help)
                    .allow_hyphen_values(true),
            );
        }
    }
    extra(common_args(cmd))
}

fn per_game(name: &'static str, about: &'static str, extra: fn(Command) -> Command) -> Command {
    let cmd = Command::new(name)
        .about(about)
        .subcommand_required(true)
        .subcommand_value_name("GAME")
        .subcommands(catalog().iter().map(|g| game_command(g, name, extra)));
    if name == "solve" {
        return cmd;
    }
    // A model file in the PRISM language where a game's name goes; its options are parsed by
    // `model_command`.
    cmd.subcommand_value_name("GAME|MODEL")
        .allow_external_subcommands(true)
        .after_help(format!(
            "A model in the PRISM language goes where a game's name goes, with --prop saying \
             what is optimised:\n  perfectplay {name} MODEL.prism --prop 'Pmax=? [ F \"goal\" ]' \
             [--const N=3] [options]\n(see 'perfectplay {name} MODEL.prism --help')"
        ))
}

/// Whether the name in a game's place is a model file rather than a game.
fn is_model_file(name: &str) -> bool {
    perfectplay_games::find(name).is_err()
        && (std::path::Path::new(name).is_file()
            || [".prism", ".pm", ".nm", ".sm"]
                .iter()
                .any(|ext| name.ends_with(ext)))
}

/// The command line of `explain|play|distribution|strategy MODEL …`.
fn model_args(command: &str) -> Command {
    let extra: fn(Command) -> Command = match command {
        "explain" => analysis::explain_args,
        "play" => analysis::play_args,
        "distribution" => analysis::distribution_args,
        "serve" => serve::args,
        _ => analysis::strategy_args,
    };
    let cmd = Command::new(format!("perfectplay {command} MODEL"))
        .no_binary_name(true)
        .about("The game that a property of a PRISM model optimises (dtmc, mdp, smg)");
    extra(common_args(prism::query_args(cmd)))
}

/// `explain|play|distribution|strategy MODEL …`: the options after the model file are parsed
/// here, then the model's game is queried as a built-in one is.
fn model_command(command: &str, model: &str, gm: &ArgMatches) -> Result<ExitCode> {
    let args: Vec<std::ffi::OsString> = gm
        .get_many::<std::ffi::OsString>("")
        .into_iter()
        .flatten()
        .cloned()
        .collect();
    let m = match model_args(command).try_get_matches_from(args) {
        Ok(m) => m,
        Err(e) => return clap_error(e),
    };
    render::configure(&m);
    prism::analyse(command, model, &m)
}

/// A command-line error as the one `error:` line (help and version are printed instead).
fn clap_error(e: clap::Error) -> Result<ExitCode> {
    use clap::error::ErrorKind::*;
    if matches!(e.kind(), DisplayHelp | DisplayVersion) {
        print!("{e}");
        return Ok(ExitCode::SUCCESS);
    }
    if e.kind() == DisplayHelpOnMissingArgumentOrSubcommand {
        say_raw!("{e}");
        return Ok(ExitCode::from(2));
    }
    // clap's message without its usage block, on one line, minus "error: ".
    let text = e.render().to_string();
    let message: Vec<&str> = text
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .map(str::trim)
        .collect();
    let message = message.join(" ");
    let message = message.strip_prefix("error: ").unwrap_or(&message);
    Err(anyhow!("{message} (see --help)"))
}

fn json_flag(cmd: Command, help: &'static str) -> Command {
    cmd.arg(
        Arg::new("json")
            .long("json")
            .action(ArgAction::SetTrue)
            .help(help),
    )
}

fn cli() -> Command {
    Command::new("perfectplay")
        .version(env!("CARGO_PKG_VERSION"))
        .about(ABOUT)
        .after_help(AFTER_HELP)
        .subcommand_required(true)
        .subcommand(per_game(
            "solve",
            "Solve a built-in game: the value of its start under optimal play",
            |c| {
                let c = distributed::args(c);
                json_flag(
                    c,
                    "Print one JSON object: game, params, value, exact, states, seconds, ...",
                )
                .arg(
                    Arg::new("threads")
                        .long("threads")
                        .value_name("N")
                        .value_parser(clap::value_parser!(u64).range(1..=1024))
                        .help(
                            "Threads for a game solved by a sweep (float; default every core, up \
                             to 8, for a sweep of a million ranks or more that keeps every value, \
                             else 1) and for the multi-modular evaluation (--exact; default every \
                             core, up to 8); the value is the same on any number",
                        ),
                )
            },
        ))
        .subcommand(per_game(
            "explain",
            "Every move at a state with its value and its loss against the best (every outcome \
             with its probability at a chance state)",
            analysis::explain_args,
        ))
        .subcommand(per_game(
            "play",
            "Play in the terminal against optimal play (seeded dice), or --auto N games with \
             optimal play everywhere",
            analysis::play_args,
        ))
        .subcommand(per_game(
            "distribution",
            "The distribution of the total under optimal play: mean, std, quantiles, P(total <= t)",
            analysis::distribution_args,
        ))
        .subcommand(per_game(
            "strategy",
            "Export every reachable decision state with its value and optimal moves",
            analysis::strategy_args,
        ))
        .subcommand(per_game(
            "serve",
            "Solve once, then explore in the browser: every move's value and loss, play against \
             the strategy, the distribution, the strategy as a file",
            serve::args,
        ))
        .subcommand(Command::new("games").about("List the built-in games with their options"))
        .subcommand(distributed::args(prism::command()))
        .subcommand(contest::command())
        .subcommand(
            Command::new("completions")
                .about("Print the shell completion script for bash, zsh, fish, elvish or powershell")
                .arg(
                    Arg::new("shell")
                        .value_name("SHELL")
                        .required(true)
                        .value_parser(clap::value_parser!(clap_complete::Shell)),
                )
                .after_help(
                    "Example (bash):\n  perfectplay completions bash > ~/.local/share/bash-completion/completions/perfectplay",
                ),
        )
        .subcommand(
            Command::new("man")
                .about("Print the manual page (roff)")
                .after_help("Example:\n  perfectplay man > perfectplay.1 && man ./perfectplay.1"),
        )
}

fn games_text() -> String {
    let mut out = String::new();
    for g in catalog() {
        out.push_str(&format!("{}\n  {}\n", g.name, g.summary));
        for p in g.params {
            let default = p
                .default
                .map(|d| format!(" [default: {d}]"))
                .unwrap_or_default();
            out.push_str(&format!(
                "    --{} <{}>  {}{}\n",
                p.name, p.value, p.help, default
            ));
            if let Some((name, help)) = file_option(p) {
                out.push_str(&format!("    --{name} <FILE>  {help}\n"));
            }
        }
        out.push_str(&format!("  example: perfectplay {}\n", example(g, "solve")));
        if let Some(n) = g.notation {
            out.push_str(&format!("  states (for explain --state): {n}\n"));
        }
        out.push('\n');
    }
    out.push_str(
        "Commands on a game: solve (the value; --json, --threads N), explain (moves and their\n\
         losses at a state), play (interactive, or --auto N simulated games), distribution (of\n\
         the total, with --csv, --json, --plot FILE.svg|png) and strategy (--out\n\
         FILE.json|csv); serve explores the solved game in the browser (--port, --no-open).\n\
         Each takes the game's options above and --exact, --max-states N, --quiet;\n\
         'perfectplay <command> <game> --help' shows the rest.\n\
         Contest input formats: 'perfectplay contest --help'.\n\
         Models in the PRISM language (dtmc, mdp, smg): 'perfectplay check MODEL.prism\n\
         --prop TEXT' checks properties; explain, play, distribution and strategy take\n\
         MODEL.prism where they take a game, with --prop saying what is optimised and states\n\
         written as PRISM prints them, for example\n\
         \x20 perfectplay explain pig.prism --const GOAL=20 --state '(a=3,b=0,t=4,p=1,won=0)' \\\n\
         \x20   --prop '<<first>> Pmax=? [ F \"first_wins\" ]'\n",
    );
    out
}

/// A game's parameter values as given on the command line, with the option each came from
/// (`pots`, or `pots-file` when it was read from a file), for errors to name.
struct GivenParams {
    params: Params,
    options: Vec<(&'static str, String)>,
}

impl GivenParams {
    /// The option parameter `param` was given by, as the user wrote it.
    fn option(&self, param: &str) -> String {
        self.options
            .iter()
            .find(|(p, _)| *p == param)
            .map_or_else(|| param.to_string(), |(_, o)| o.clone())
    }
}

/// The game's parameter values as given on the command line, with those given as files read.
fn params_of(game: &GameSpec, m: &ArgMatches) -> Result<GivenParams> {
    let mut params = Params::new();
    let mut options = Vec::new();
    for p in game.params {
        let text = m.get_one::<String>(p.name);
        let file = file_option(p).and_then(|(name, _)| Some((m.get_one::<String>(&name)?, name)));
        let list = matches!(p.kind, ParamKind::IntList { .. });
        if let Some((_, option)) = &file {
            options.push((p.name, option.clone()));
        }
        let value = match (text, file) {
            (Some(_), Some(_)) => bail!("--{0}: give either --{0} or --{0}-file, not both", p.name),
            // `--pots @FILE` is `--pots-file FILE`.
            (Some(v), None) if list && v.starts_with('@') => {
                list_text(&read_input(&v[1..], p.name)?)
            }
            (Some(v), None) => v.clone(),
            (None, Some((path, option))) if list => list_text(&read_input(path, &option)?),
            (None, Some((path, option))) => read_input(path, &option)?,
            (None, None) if p.required => bail!("--{0}: is required (or --{0}-file)", p.name),
            (None, None) => continue,
        };
        params.set(p.name, value);
    }
    Ok(GivenParams { params, options })
}

/// The text of file `path` ('-' for stdin), given by `--option`.
fn read_input(path: &str, option: &str) -> Result<String> {
    perfectplay_prism::read_source(path).map_err(|e| anyhow!("--{option}: {e}"))
}

/// Builds the game from its parameters; an error names the option the parameter was given
/// by, `--name` or `--name-file`.
fn build(game: &GameSpec, given: &GivenParams) -> Result<Box<dyn DynModel>> {
    (game.build)(&given.params).map_err(|e| match e {
        GameError::Param { param, message } => anyhow!("--{}: {message}", given.option(param)),
        other => other.into(),
    })
}

fn solve(game: &'static GameSpec, m: &ArgMatches) -> Result<ExitCode> {
    let given = params_of(game, m)?;
    let model = build(game, &given)?;
    let params = given.params;
    if distributed::wanted(m) {
        return distributed::solve(game, &params, model, m);
    }
    // Only the value is needed: in exact mode this is the multi-modular evaluation when it
    // applies, and a model that only computes a value (the grid game's assignment method)
    // answers too.
    let report = with_options(m, model.as_ref(), |options| model.solve_report(options))?;
    render::know_error_bound(report.stats.error_bound);
    if m.get_flag("json") {
        println!("{}", json(game, &params, &report));
    } else {
        match &report.exact {
            Some(q) => println!(
                "{} = {}",
                render::float_text(report.value),
                render::fraction_text(q)
            ),
            None if report.stats.error_bound > 0.0 => println!(
                "{}",
                render::bounded_text(report.value, report.stats.error_bound)
            ),
            None => println!("{}", render::float_text(report.value)),
        }
    }
    if !m.get_flag("quiet") {
        print_stats(&report, m.get_flag("exact"));
    }
    Ok(ExitCode::SUCCESS)
}

/// A built-in game as the explorer introduces it.
fn about(game: &GameSpec, params: &Params) -> perfectplay_serve::About<'static> {
    let given: Vec<(&str, &str)> = game
        .params
        .iter()
        .filter_map(|spec| Some((spec.name, params.get(spec.name)?)))
        .collect();
    let options: Vec<String> = given
        .iter()
        .map(|(name, value)| format!("--{name} {value}"))
        .collect();
    perfectplay_serve::About {
        name: game.name.to_string(),
        title: format!("{} {}", game.name, options.join(" "))
            .trim_end()
            .to_string(),
        summary: game.summary.to_string(),
        notation: game.notation.map(str::to_string),
        details: Vec::new(),
        params: given
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        labels: None,
    }
}

/// What `solve --json` prints: the game, its options as given, and the report.
#[derive(Serialize)]
struct SolveJson<'a> {
    game: &'static str,
    params: BTreeMap<&'static str, &'a str>,
    #[serde(flatten)]
    report: &'a Report,
}

fn json(game: &GameSpec, params: &Params, report: &Report) -> String {
    let params = game
        .params
        .iter()
        .filter_map(|spec| Some((spec.name, params.get(spec.name)?)))
        .collect();
    let out = SolveJson {
        game: game.name,
        params,
        report,
    };
    say::json(&out)
}

fn run(args: Vec<String>) -> Result<ExitCode> {
    let matches = match cli().try_get_matches_from(args) {
        Ok(m) => m,
        Err(e) => return clap_error(e),
    };
    match matches.subcommand() {
        Some(("games", _)) => {
            print!("{}", games_text());
            Ok(ExitCode::SUCCESS)
        }
        Some(("completions", cm)) => {
            let shell = *cm
                .get_one::<clap_complete::Shell>("shell")
                .expect("required");
            let mut text = Vec::new();
            clap_complete::generate(shell, &mut cli(), "perfectplay", &mut text);
            write_stdout(&text).context("cannot write the completions")
        }
        Some(("man", _)) => {
            let mut text = Vec::new();
            clap_mangen::Man::new(cli())
                .render(&mut text)
                .context("cannot render the manual page")?;
            write_stdout(&text).context("cannot write the manual page")
        }
        Some((command, sm)) if command != "contest" && command != "check" => {
            let (name, gm) = sm.subcommand().expect("a game is required");
            render::configure(gm);
            if command != "solve" && is_model_file(name) {
                return model_command(command, name, gm);
            }
            let game = perfectplay_games::find(name)?;
            if command == "solve" {
                return solve(game, gm);
            }
            let given = params_of(game, gm)?;
            let model = build(game, &given)?;
            let params = given.params;
            let solved = solve_model(model.as_ref(), gm)?;
            if command == "serve" {
                if !gm.get_flag("quiet") {
                    print_stats(solved.report(), gm.get_flag("exact"));
                }
                return serve::run(solved.as_ref(), about(game, &params), gm);
            }
            let code = match command {
                "explain" => analysis::explain(solved.as_ref(), gm),
                "play" => analysis::play(solved.as_ref(), gm),
                "distribution" => {
                    let options: Vec<String> = game
                        .params
                        .iter()
                        .filter_map(|spec| {
                            Some(format!("--{} {}", spec.name, params.get(spec.name)?))
                        })
                        .collect();
                    let title = format!("{} {}", game.name, options.join(" "));
                    analysis::distribution(solved.as_ref(), gm, title.trim_end())
                }
                "strategy" => {
                    let p = game
                        .params
                        .iter()
                        .filter_map(|spec| Some((spec.name, params.get(spec.name)?)))
                        .collect();
                    analysis::strategy(game.name, &p, solved.as_ref(), gm)
                }
                _ => unreachable!("every command is listed"),
            }?;
            if !gm.get_flag("quiet") {
                print_stats(solved.report(), gm.get_flag("exact"));
            }
            Ok(code)
        }
        Some(("contest", cm)) => contest::run(cm),
        Some(("check", cm)) => {
            render::configure(cm);
            prism::run(cm)
        }
        _ => unreachable!("a subcommand is required"),
    }
}

/// Writes `bytes` to standard output; a reader that went away (`| head`) is no error.
fn write_stdout(bytes: &[u8]) -> Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(ExitCode::SUCCESS),
    }
}

/// An error message on one line, with any control character echoed from the user's input
/// (an escape sequence, a carriage return) written as an escape, not acted on by the terminal.
fn one_line(message: &str) -> String {
    message
        .replace('\n', " ")
        .chars()
        .flat_map(|c| match c.is_control() {
            true => c.escape_default().collect::<Vec<_>>(),
            false => vec![c],
        })
        .collect()
}

fn main() -> ExitCode {
    say::open_fatal();
    interrupt::install();
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        // In a solve across processes, timely's threads that carry messages to and from the
        // other processes fail when one of those ends: the run cannot go on, and the other
        // threads would wait for it for ever.
        let thread = std::thread::current()
            .name()
            .unwrap_or_default()
            .to_string();
        if thread.starts_with("timely:send") || thread.starts_with("timely:recv") {
            fatal!("error: the connection to another process of the run was lost ({msg})");
            std::process::exit(2);
        }
        if thread.starts_with("timely:work") {
            fatal!("error: internal error (please report it): {msg}");
            std::process::exit(2);
        }
        // A reader that went away (`perfectplay ... | head`) is not an error of ours.
        if msg.contains("Broken pipe") {
            std::process::exit(0);
        }
        // Nor is a standard output that cannot be written (a full disk, `> /dev/full`).
        if let Some(why) = msg.strip_prefix("failed printing to stdout: ") {
            fatal!("error: cannot write to standard output: {why}");
            std::process::exit(2);
        }
        fatal!("error: internal error (please report it): {msg}");
    }));
    let code = match run(std::env::args().collect()) {
        Ok(code) => code,
        // A model file's syntax error shows its line and a caret under the place, as rustc
        // does.
        Err(e) if matches!(e.downcast_ref(), Some(perfectplay_prism::Error::Text(_))) => {
            fatal!("error: {e}");
            ExitCode::from(2)
        }
        Err(e) => {
            let e: &(dyn std::error::Error + 'static) = e.as_ref();
            fatal!("error: {}{}", one_line(&say::causes(e)), say::flag_hint(e));
            ExitCode::from(2)
        }
    };
    // Standard output is complete; a line that stderr lost still makes the run fail.
    match say::failed() {
        true => ExitCode::from(2),
        false => code,
    }
}
