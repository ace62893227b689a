//! `perfectplay serve GAME|MODEL`: the game solved once, then explored in the browser (see
//! the crate `perfectplay-serve`). This module only reads the options, starts the server and
//! opens the page.

use std::net::IpAddr;
use std::process::ExitCode;

use anyhow::{anyhow, Context, Result};
use clap::{Arg, ArgAction, ArgMatches, Command};
use perfectplay::dynamic::Solved;
use perfectplay_serve::{About, Explorer, Server};

use crate::say::say;

/// The options of `serve` besides the game's.
pub fn args(cmd: Command) -> Command {
    cmd.arg(
        Arg::new("port")
            .long("port")
            .value_name("P")
            .value_parser(clap::value_parser!(u16))
            .default_value("8080")
            .help("The port to serve on (0: any free port)"),
    )
    .arg(
        Arg::new("host")
            .long("host")
            .value_name("ADDRESS")
            .value_parser(clap::value_parser!(IpAddr))
            .default_value("127.0.0.1")
            .help(
                "The address to listen on; anything but this machine's loopback lets other \
                 machines see the game (a warning says so)",
            ),
    )
    .arg(
        Arg::new("no-open")
            .long("no-open")
            .action(ArgAction::SetTrue)
            .help("Do not open the page in a browser (print its address only)"),
    )
}

/// Serves `solved`, described by `about`, until the process is stopped (Ctrl-C).
pub fn run<'a>(
    solved: &'a (dyn Solved + Sync),
    about: About<'a>,
    m: &ArgMatches,
) -> Result<ExitCode> {
    let host = *m.get_one::<IpAddr>("host").expect("has a default");
    let port = *m.get_one::<u16>("port").expect("has a default");
    if !host.is_loopback() {
        say!(
            "warning: --host {host}: the explorer is open to every machine that reaches this \
             address; it has no password"
        );
    }
    let server = Server::bind(host, port).map_err(|e| match e.kind() {
        std::io::ErrorKind::AddrInUse => {
            anyhow!("--port {port}: the port is in use; pick another (--port 0 takes any free one)")
        }
        _ => anyhow!("--host {host} --port {port}: cannot listen there: {e}"),
    })?;
    let url = server.url();
    // Serving from here on: an interrupt that follows the address line (a script may send one
    // as soon as it reads it) is the server's normal end.
    crate::interrupt::serving();
    // The address on standard output (a script reads it there), as the first line.
    crate::say::outln!("serving {} at {url} (Ctrl-C stops)", about.title);
    use std::io::Write;
    let _ = std::io::stdout().flush();
    if !m.get_flag("no-open") {
        open(&url);
    }
    let explorer = Explorer::new(solved, about);
    server
        .run(&explorer)
        .with_context(|| format!("serving at {url}"))?;
    Ok(ExitCode::SUCCESS)
}

/// Opens `url` in the desktop's browser, if there is one; says so where it cannot.
fn open(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(target_os = "windows") {
        "explorer"
    } else {
        "xdg-open"
    };
    let started = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if started.is_err() {
        say!("note: cannot open a browser here ({opener}); open {url} yourself");
    }
}
