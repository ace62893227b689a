//! `perfectplay contest`: a contest's input format on stdin, its output format on stdout.

use std::process::ExitCode;

use anyhow::Result;
use clap::{ArgMatches, Command};
use perfectplay::dynamic::{DynModel, SolveOptions};
use perfectplay_games::contest::{grid_game_cases, yeetzhee_cases};

pub fn command() -> Command {
    Command::new("contest")
        .about("Read a contest's input format on stdin and print its answers")
        .subcommand_required(true)
        .subcommand(Command::new("yeetzhee").about(
            "Kick Start 2020 Round F 'Yeetzhee': T, then per case 'N M K' and K group sizes; \
             prints 'Case #x: y'",
        ))
        .subcommand(Command::new("grid-game").about(
            "UVa 11553 'Grid Game': t, then per case n and n rows of n integers; prints one \
             integer per line",
        ))
}

fn stdin_text() -> Result<String> {
    Ok(perfectplay_prism::read_source("-")?)
}

pub fn run(m: &ArgMatches) -> Result<ExitCode> {
    let input = stdin_text()?;
    let mut out = String::new();
    match m.subcommand_name() {
        Some("yeetzhee") => {
            for (i, game) in yeetzhee_cases(&input)?.iter().enumerate() {
                let r = game.solve_report(SolveOptions::default())?;
                out.push_str(&format!("Case #{}: {:.9}\n", i + 1, r.value));
            }
        }
        Some("grid-game") => {
            for game in grid_game_cases(&input)? {
                out.push_str(&format!("{}\n", game.assignment_value()));
            }
        }
        _ => unreachable!("a contest is required"),
    }
    print!("{out}");
    Ok(ExitCode::SUCCESS)
}
