//! `explain`, `play`, `distribution` and `strategy`: queries on a solved game, printed as text,
//! JSON or CSV. The numbers come from the library's [`Solved`] interface; this module only
//! formats them and talks to the terminal.

use crate::say::{out, outln, say};
use std::collections::BTreeMap;
use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;

use crate::{files, render};
use anyhow::{anyhow, bail, Context, Result};
use clap::{Arg, ArgAction, ArgMatches, Command};
use perfectplay::dynamic::{Explained, Solved, Value};
use perfectplay::export::{distribution_json, write_strategy, ExportError, StrategyFormat};
use perfectplay::{DistributionOptions, NodeKind, Player, Rng, Simulation};
use serde::Serialize;

fn flag(name: &'static str, help: &'static str) -> Arg {
    Arg::new(name)
        .long(name)
        .action(ArgAction::SetTrue)
        .help(help)
}

fn json_flag(help: &'static str) -> Arg {
    flag("json", help)
}

pub fn explain_args(cmd: Command) -> Command {
    cmd.arg(
        Arg::new("state")
            .long("state")
            .value_name("STATE")
            .help("The state to explain, in the game's notation ('perfectplay games' shows it); default: the start"),
    )
    .arg(json_flag(
        "Print {\"state\", \"value\", \"moves\": [{\"move\", \"value\", \"loss\", \"optimal\"}]} (\"outcomes\" with \"probability\" at a chance state)",
    ))
}

pub fn play_args(cmd: Command) -> Command {
    cmd.arg(
        Arg::new("seed")
            .long("seed")
            .value_name("S")
            .value_parser(clap::value_parser!(u64))
            .default_value("1")
            .help("Seed of the dice"),
    )
    .arg(
        Arg::new("side")
            .long("side")
            .value_name("SIDE")
            .value_parser(["auto", "max", "min"])
            .default_value("auto")
            .conflicts_with("auto")
            .help("Which player you are: max, min, or auto (whoever decides first)"),
    )
    .arg(
        Arg::new("auto")
            .long("auto")
            .value_name("N")
            .value_parser(crate::positive)
            .help("Play N games with optimal play on every side and print the mean total with a 95% confidence interval"),
    )
    .arg(json_flag(
        "With --auto: print {\"games\", \"mean\", \"std\", \"ci95\": [low, high] (null for one game), \"interval\": \"wilson\" (two outcomes) or \"normal\", \"value\"}",
    ))
}

pub fn distribution_args(cmd: Command) -> Command {
    cmd.arg(flag("csv", "Print 'total,probability,cumulative' lines").conflicts_with("json"))
        .arg(json_flag(
            "Print {\"value\", \"mean\", \"std\", \"tail\", \"quantiles\", \"pmf\": [[total, probability], ...], \"cdf\": [...]}",
        ))
        .arg(
            Arg::new("plot")
                .long("plot")
                .value_name("FILE")
                .help("Also draw the distribution to FILE.svg or FILE.png"),
        )
        .arg(
            flag("cdf", "Draw P(total <= t) in --plot rather than the probability of each total")
                .requires("plot"),
        )
        .arg(
            Arg::new("tail")
                .long("tail")
                .value_name("EPS")
                .value_parser(clap::value_parser!(f64))
                .allow_negative_numbers(true)
                .default_value("1e-12")
                .help("Games whose plays can go round a cycle for ever: leave out at most EPS of probability (reported as the tail)"),
        )
}

pub fn strategy_args(cmd: Command) -> Command {
    cmd.arg(
        Arg::new("out")
            .long("out")
            .value_name("FILE")
            .required(true)
            .help("Write to FILE.json or FILE.csv ('-' for JSON on stdout)"),
    )
}

pub fn explain(solved: &dyn Solved, m: &ArgMatches) -> Result<ExitCode> {
    let id = match m.get_one::<String>("state") {
        Some(text) => solved.find(text).context("--state")?,
        None => 0,
    };
    let e = solved.explain(id)?;
    if m.get_flag("json") {
        outln!("{}", to_json(&e));
    } else {
        out!("{}", render::explanation_text(&e));
    }
    Ok(ExitCode::SUCCESS)
}

pub fn play(solved: &dyn Solved, m: &ArgMatches) -> Result<ExitCode> {
    let seed = *m.get_one::<u64>("seed").expect("has a default");
    let value = solved.report().value;
    if let Some(&games) = m.get_one::<u64>("auto") {
        // A bar on a terminal for runs long enough to watch.
        let bar = (!m.get_flag("quiet") && std::io::stderr().is_terminal()).then(|| {
            let bar = indicatif::ProgressBar::new(games);
            bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{bar:40} {pos}/{len} games, {per_sec}, {eta} left",
                )
                .expect("a valid template"),
            );
            bar
        });
        let s = solved.simulate_watched(games as usize, seed, &mut |done| {
            if let Some(bar) = &bar {
                bar.set_position(done as u64);
            }
            std::ops::ControlFlow::Continue(())
        });
        if let Some(bar) = &bar {
            bar.finish_and_clear();
        }
        let s = s?;
        if m.get_flag("json") {
            #[derive(Serialize)]
            struct Played<'a> {
                #[serde(flatten)]
                simulation: &'a Simulation,
                value: f64,
            }
            outln!(
                "{}",
                to_json(&Played {
                    simulation: &s,
                    value
                })
            );
        } else {
            let ci = match s.ci95 {
                Some((lo, hi)) => {
                    let (lo, hi) = render::interval_text(lo, hi);
                    format!("95% CI [{lo}, {hi}], {}", s.interval)
                }
                None => "one game has no confidence interval".to_string(),
            };
            outln!(
                "games: {}, mean total: {} ({ci}), value: {}",
                s.games,
                render::float_text(s.mean),
                render::float_text(value)
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    if m.get_flag("json") {
        bail!("--json: interactive play has no JSON output; use it with --auto N");
    }
    let side = match m.get_one::<String>("side").map(String::as_str) {
        Some("max") => Some(Player::Max),
        Some("min") => Some(Player::Min),
        _ => None,
    };
    interactive(solved, side, seed)
}

/// One game in the terminal: the user's moves read from stdin, the other side optimal, chance
/// from the seeded generator. The position is shown after every step, the sides are named as
/// the game names them, and the end is told in the game's terms.
fn interactive(solved: &dyn Solved, mut side: Option<Player>, seed: u64) -> Result<ExitCode> {
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let mut out = std::io::stdout();
    let mut rng = Rng::new(seed);
    let mut id = 0;
    let mut total = perfectplay::Rat::ZERO;
    let two_players = has_two_players(solved);
    outln!(
        "value of the game: {}. Type a move's number or name (or its first letters); 'hint' \
         shows every move's value, 'quit' ends.",
        render::float_text(solved.report().value)
    );
    let mut e = solved.explain(id)?;
    if let NodeKind::Decision(p) = e.explanation.kind {
        side.get_or_insert(p);
    }
    if let (Some(you), true) = (side, two_players) {
        say_sides(solved, you);
    }
    outln!("\n{}", e.explanation.state);
    loop {
        let x = &e.explanation;
        let pick = match x.kind {
            NodeKind::Terminal => {
                // A terminal state's value is its payoff.
                let end = x.value.to_rat().map(|payoff| total + payoff);
                match end.and_then(|t| solved.show_end(id, t)) {
                    Some(end) => outln!("game over: {end}"),
                    None => outln!(
                        "game over: {}, {} {}",
                        x.state,
                        solved.total_name(),
                        render::float_text(total.to_f64() + x.value.float)
                    ),
                }
                if let (Some(you), true) = (side, two_players) {
                    outln!("(you were {})", solved.player_label(you));
                }
                return Ok(ExitCode::SUCCESS);
            }
            NodeKind::Chance => rng.pick(x.branches.iter().map(|b| b.probability)),
            NodeKind::Decision(p) => {
                let you = match side {
                    Some(you) => you,
                    None => {
                        side = Some(p);
                        if two_players {
                            say_sides(solved, p);
                        }
                        p
                    }
                };
                if p != you {
                    let i = x.branches.iter().position(|b| b.chosen).unwrap_or(0);
                    outln!(
                        "  {} plays: {}",
                        solved.player_label(p),
                        x.branches[i].label
                    );
                    i
                } else if x.branches.len() == 1 {
                    outln!("  you play: {} (the only move)", x.branches[0].label);
                    0
                } else {
                    if !total.is_zero() {
                        outln!("  [{} so far: {total}]", solved.total_name());
                    }
                    for (i, b) in x.branches.iter().enumerate() {
                        outln!("  {}. {}", i + 1, b.label);
                    }
                    match ask(&mut lines, &mut out, &e)? {
                        Some(i) => i,
                        None => {
                            outln!("quit");
                            return Ok(ExitCode::SUCCESS);
                        }
                    }
                }
            }
            NodeKind::Unset => bail!("the model left a state without a kind"),
        };
        let b = &x.branches[pick];
        let step = e.follow(pick, &mut rng);
        if matches!(x.kind, NodeKind::Chance) {
            outln!("  chance: {} (probability {})", b.label, b.probability);
        }
        if let Some(i) = step.outcome {
            // A random move: chance drew its outcome.
            let o = &b.outcomes[i];
            outln!("  chance: {} (probability {})", o.label, o.probability);
        }
        total = total + step.reward;
        id = step.next;
        e = solved.explain(id)?;
        if !matches!(e.explanation.kind, NodeKind::Terminal) {
            outln!("\n{}", e.explanation.state);
        }
    }
}

/// Whether the game names its two players apart (a one-player game names its player only).
fn has_two_players(solved: &dyn Solved) -> bool {
    solved.player_label(Player::Max) != solved.player_label(Player::Min)
}

/// Says which side the user plays and which the computer plays.
fn say_sides(solved: &dyn Solved, you: Player) {
    outln!(
        "you are {}; the computer plays {}, optimally",
        solved.player_label(you),
        solved.player_label(you.other())
    );
}

/// Reads the user's move: a number, a move name or the first letters of one, `hint` or `quit`
/// (`None`). Anything else is asked again.
fn ask(
    lines: &mut impl Iterator<Item = std::io::Result<String>>,
    out: &mut impl Write,
    e: &Explained,
) -> Result<Option<usize>> {
    let branches = &e.explanation.branches;
    loop {
        write!(out, "your move> ")?;
        out.flush()?;
        let Some(line) = lines.next() else {
            outln!();
            return Ok(None);
        };
        let line = line.context("cannot read standard input")?;
        let answer = line.trim();
        match answer {
            "" => continue,
            "q" | "quit" | "exit" => return Ok(None),
            "hint" | "?" => {
                out!("{}", render::explanation_text(e));
                continue;
            }
            _ => {}
        }
        if let Ok(n) = answer.parse::<usize>() {
            if (1..=branches.len()).contains(&n) {
                return Ok(Some(n - 1));
            }
        }
        let lower = answer.to_lowercase();
        if let Some(i) = branches
            .iter()
            .position(|b| b.label.to_lowercase() == lower)
        {
            return Ok(Some(i));
        }
        let starts: Vec<usize> = (0..branches.len())
            .filter(|&i| branches[i].label.to_lowercase().starts_with(&lower))
            .collect();
        match starts[..] {
            [i] => return Ok(Some(i)),
            [] => outln!(
                "'{answer}' is not a move here: type 1 to {}, a move's name, 'hint' or 'quit'",
                branches.len()
            ),
            _ => outln!(
                "'{answer}' starts {} moves: type more of the name, or the number",
                starts.len()
            ),
        }
    }
}

/// `distribution`: `title` names the game and its parameters, for `--plot`.
pub fn distribution(solved: &dyn Solved, m: &ArgMatches, title: &str) -> Result<ExitCode> {
    let tail = *m.get_one::<f64>("tail").expect("has a default");
    // Zero cannot be met where a cycle has rewards (plays there can last for ever), and no
    // answer needs it: every other play is followed to its end whatever EPS is.
    if !(tail > 0.0 && tail < 1.0) {
        bail!("--tail: {tail} is not in (0, 1): some plays can go round a cycle for ever");
    }
    // A bar on a terminal: the mass moves set by set (turn by turn in Yahtzee), for minutes
    // in the largest games.
    let bar = (!m.get_flag("quiet") && std::io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new(0);
        bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "distribution {bar:40} {pos}/{len} components, {eta} left",
            )
            .expect("a valid template"),
        );
        std::sync::Arc::new(bar)
    });
    let options = DistributionOptions {
        tail,
        progress: bar.clone().map(|bar| {
            std::sync::Arc::new(move |done: usize, all: usize| {
                bar.set_length(all as u64);
                bar.set_position(done as u64);
            }) as std::sync::Arc<perfectplay::DistributionProgress>
        }),
        ..DistributionOptions::default()
    };
    let d = solved.distribution(&options);
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let d = d?;
    if let Some(file) = m.get_one::<String>("plot") {
        let plot = crate::plot::Plot {
            distribution: &d,
            title,
            total: &solved.total_name(),
            view: if m.get_flag("cdf") {
                crate::plot::View::Cumulative
            } else {
                crate::plot::View::Probability
            },
        };
        crate::plot::draw(&plot, file).with_context(|| format!("--plot {file}"))?;
    }
    let value = &solved.report().value;
    if m.get_flag("json") {
        let value = Value {
            float: *value,
            exact: solved.report().exact.clone(),
        };
        outln!("{}", distribution_json(&value, &d));
    } else if m.get_flag("csv") {
        out!("{}", render::distribution_csv(&d));
    } else {
        let value = Value {
            float: *value,
            exact: solved.report().exact.clone(),
        };
        out!("{}", render::distribution_text(&value, &d));
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes the strategy of `solved`; the JSON names the game (or model file) and its
/// parameters.
pub fn strategy(
    game: &str,
    params: &BTreeMap<&str, &str>,
    solved: &dyn Solved,
    m: &ArgMatches,
) -> Result<ExitCode> {
    let out = m.get_one::<String>("out").expect("required");
    let lower = out.to_ascii_lowercase();
    let json = out == "-" || lower.ends_with(".json");
    if !json && !lower.ends_with(".csv") {
        bail!("--out: '{out}' must end in .json or .csv (or be '-')");
    }
    // Rows are written as they are made: a strategy of millions of states is never held
    // whole, as text or as JSON values. A file replaces the target only once complete.
    if files::is_folder(out) {
        bail!("--out: '{out}' is a folder");
    }
    let file = (out != "-")
        .then(|| files::Replacement::create(out))
        .transpose()
        .with_context(|| format!("--out: cannot write '{out}'"))?;
    let sink: Box<dyn Write + '_> = match &file {
        Some(f) => Box::new(f.file()),
        None => Box::new(std::io::stdout().lock()),
    };
    let mut w = std::io::BufWriter::new(sink);
    let format = match json {
        true => StrategyFormat::Json,
        false => StrategyFormat::Csv,
    };
    let count = match write_strategy(solved, game, params, format, &mut w) {
        Ok(count) => count,
        Err(ExportError::Io(e)) => bail!("--out: cannot write '{out}': {e}"),
        Err(ExportError::Solve(e)) => return Err(e.into()),
    };
    drop(w);
    if let Some(f) = file {
        f.commit()
            .map_err(|e| anyhow!("--out: cannot write '{out}': {e}"))?;
        say!("wrote {count} decision states to {out}");
    }
    Ok(ExitCode::SUCCESS)
}

/// A report as one line of JSON.
fn to_json(value: &impl Serialize) -> String {
    crate::say::json(value)
}
