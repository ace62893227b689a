//! The `perfectplay` command: thin glue over `perfectplay` (the engine) and
//! `perfectplay-games` (the built-in games). It parses arguments, runs, prints, and picks the
//! exit code: 0 on success, 2 on any error (one line on stderr starting with `error:`).

use std::io::IsTerminal;
use std::process::ExitCode;

use anyhow::{anyhow, Result};
use clap::{Arg, ArgAction, ArgMatches, Command};
use perfectplay::dynamic::{Report, SolveOptions};
use perfectplay::Progress;
use perfectplay_games::{catalog, GameSpec, Params};

mod contest;

const ABOUT: &str = "Solves finite games of chance and strategy exactly: the value under optimal \
play, computed by one engine for every game (cycles, two players, chance).";

const AFTER_HELP: &str = "Examples:
  perfectplay games
  perfectplay solve perfect-memory --rows 4 --cols 4
  perfectplay solve perfect-memory --rows 4 --cols 4 --exact --json
  perfectplay contest grid-game < input.txt

Exit codes: 0 success, 2 error (one line on stderr starting with 'error:').";

fn game_command(g: &'static GameSpec) -> Command {
    let mut cmd = Command::new(g.name)
        .about(g.summary)
        .after_help(format!("Example:\n  perfectplay {}", g.example));
    for p in g.params {
        let mut arg = Arg::new(p.name)
            .long(p.name)
            .value_name(p.value)
            .help(p.help)
            .allow_hyphen_values(true);
        if let Some(d) = p.default {
            arg = arg.default_value(d);
        }
        arg = arg.required(p.required);
        cmd = cmd.arg(arg);
    }
    cmd.arg(
        Arg::new("exact")
            .long("exact")
            .action(ArgAction::SetTrue)
            .help("Compute in exact rationals and print the value as p/q too"),
    )
    .arg(
        Arg::new("json")
            .long("json")
            .action(ArgAction::SetTrue)
            .help("Print one JSON object: game, params, value, exact, states, seconds, ..."),
    )
    .arg(
        Arg::new("max-states")
            .long("max-states")
            .value_name("N")
            .value_parser(clap::value_parser!(u64).range(1..))
            .help("Stop with an error once more than N states are explored"),
    )
    .arg(
        Arg::new("quiet")
            .long("quiet")
            .short('q')
            .action(ArgAction::SetTrue)
            .help("No progress and no statistics on stderr"),
    )
}

fn cli() -> Command {
    let solve = Command::new("solve")
        .about("Solve a built-in game: the value of its start under optimal play")
        .subcommand_required(true)
        .subcommand_value_name("GAME")
        .subcommands(catalog().iter().map(game_command));
    Command::new("perfectplay")
        .version(env!("CARGO_PKG_VERSION"))
        .about(ABOUT)
        .after_help(AFTER_HELP)
        .subcommand_required(true)
        .subcommand(solve)
        .subcommand(Command::new("games").about("List the built-in games with their options"))
        .subcommand(contest::command())
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
        }
        out.push_str(&format!("  example: perfectplay {}\n\n", g.example));
    }
    out.push_str(
        "Every 'solve' also takes --exact, --json, --max-states N and --quiet.\n\
         Contest input formats: 'perfectplay contest --help'.\n",
    );
    out
}

fn solve(game: &'static GameSpec, m: &ArgMatches) -> Result<ExitCode> {
    let mut params = Params::new();
    for p in game.params {
        if let Some(v) = m.get_one::<String>(p.name) {
            params.set(p.name, v.clone());
        }
    }
    let model = (game.build)(&params)?;
    let quiet = m.get_flag("quiet");
    let exact = m.get_flag("exact");
    let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new_spinner();
        bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        bar
    });
    let mut on_progress = |p: &Progress| {
        if let Some(bar) = &bar {
            bar.set_message(format!(
                "{} states explored ({:.0}/s), {} components solved",
                p.states,
                p.states as f64 / p.seconds.max(1e-9),
                p.components
            ));
            bar.tick();
        }
    };
    let options = SolveOptions {
        exact,
        max_states: m.get_one::<u64>("max-states").map(|&n| n as usize),
        progress: Some(&mut on_progress),
    };
    let result = model.solve_report(options);
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let report = result?;
    if m.get_flag("json") {
        println!("{}", json(game, &params, &report));
    } else {
        match &report.exact {
            Some(q) => println!("{} = {}", report.value, q),
            None => println!("{}", report.value),
        }
    }
    if !quiet {
        let s = &report.stats;
        eprintln!(
            "states: {}, components: {} (cyclic: {}, largest: {}), time: {:.3} s, numbers: {}",
            s.states,
            s.components,
            s.cyclic_components,
            s.largest_component,
            s.seconds,
            if exact { "exact" } else { "f64" }
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn json(game: &GameSpec, params: &Params, r: &Report) -> serde_json::Value {
    let mut p = serde_json::Map::new();
    for spec in game.params {
        if let Some(v) = params.get(spec.name) {
            p.insert(spec.name.to_string(), v.into());
        }
    }
    serde_json::json!({
        "game": game.name,
        "params": p,
        "value": r.value,
        "exact": r.exact,
        "states": r.stats.states,
        "components": r.stats.components,
        "cyclic_components": r.stats.cyclic_components,
        "largest_component": r.stats.largest_component,
        "seconds": r.stats.seconds,
    })
}

fn run(args: Vec<String>) -> Result<ExitCode> {
    let matches = match cli().try_get_matches_from(args) {
        Ok(m) => m,
        Err(e) => {
            use clap::error::ErrorKind::*;
            if matches!(e.kind(), DisplayHelp | DisplayVersion) {
                print!("{e}");
                return Ok(ExitCode::SUCCESS);
            }
            if e.kind() == DisplayHelpOnMissingArgumentOrSubcommand {
                eprint!("{e}");
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
            return Err(anyhow!("{message} (see --help)"));
        }
    };
    match matches.subcommand() {
        Some(("games", _)) => {
            print!("{}", games_text());
            Ok(ExitCode::SUCCESS)
        }
        Some(("solve", sm)) => {
            let (name, gm) = sm.subcommand().expect("a game is required");
            let game = perfectplay_games::find(name)?;
            solve(game, gm)
        }
        Some(("contest", cm)) => contest::run(cm),
        _ => unreachable!("a subcommand is required"),
    }
}

fn main() -> ExitCode {
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        eprintln!("error: internal error (please report it): {msg}");
    }));
    match run(std::env::args().collect()) {
        Ok(code) => code,
        Err(e) => {
            let chain: Vec<String> = e.chain().map(|c| c.to_string()).collect();
            eprintln!("error: {}", chain.join(": ").replace('\n', " "));
            ExitCode::from(2)
        }
    }
}
