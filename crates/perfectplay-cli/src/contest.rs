//! `perfectplay contest`: contest input formats on stdin, answers on stdout.

use std::process::ExitCode;

use anyhow::Result;
use clap::{ArgMatches, Command};

pub fn command() -> Command {
    Command::new("contest")
        .about("Read a contest's input format on stdin and print its answers")
        .subcommand_required(true)
}

pub fn run(_m: &ArgMatches) -> Result<ExitCode> {
    Ok(ExitCode::SUCCESS)
}
