//! `explain`, `play`, `distribution` and `strategy`: queries on a solved game, printed as text,
//! JSON or CSV. The numbers come from the library's [`Solved`] interface; this module only
//! formats them and talks to the terminal.

use std::io::{BufRead, Write};
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context, Result};
use clap::{Arg, ArgAction, ArgMatches, Command};
use perfectplay::dynamic::{Explained, Solved, Value};
use perfectplay::{BranchValue, DistributionOptions, NodeKind, Player, Rng};
use perfectplay_games::{GameSpec, Params};
use serde_json::json;

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
            .help("Which player you are: max, min, or auto (whoever decides first)"),
    )
    .arg(
        Arg::new("auto")
            .long("auto")
            .value_name("N")
            .value_parser(clap::value_parser!(u64).range(1..))
            .help("Play N games with optimal play on every side and print the mean total with a 95% confidence interval"),
    )
    .arg(json_flag(
        "With --auto: print {\"games\", \"mean\", \"ci95\": [low, high], \"value\"}",
    ))
}

pub fn distribution_args(cmd: Command) -> Command {
    cmd.arg(flag("csv", "Print 'total,probability,cumulative' lines"))
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

/// A float as text, in the fewest digits that read back to it: in scientific notation when
/// tiny (a probability of 1e-300 is not three hundred zeros).
fn float_text(x: f64) -> String {
    if x != 0.0 && x.abs() < 1e-4 {
        format!("{x:e}")
    } else {
        x.to_string()
    }
}

/// A value as text: the float (see `float_text`), and ` = p/q` in exact mode.
fn show(v: &Value) -> String {
    let float = float_text(v.float);
    match &v.exact {
        Some(q) if *q != float => format!("{float} = {q}"),
        _ => float,
    }
}

/// A value as JSON fields: `name` (a number) and `name_exact` (`"p/q"` or absent).
fn put(obj: &mut serde_json::Map<String, serde_json::Value>, name: &str, v: &Value) {
    obj.insert(name.to_string(), json!(v.float));
    if let Some(q) = &v.exact {
        obj.insert(format!("{name}_exact"), json!(q));
    }
}

fn player_name(p: Player) -> &'static str {
    match p {
        Player::Max => "max",
        Player::Min => "min",
    }
}

/// An outcome (of chance or of a random move) as JSON fields.
fn outcome_json(b: &BranchValue<Value>) -> serde_json::Map<String, serde_json::Value> {
    let mut o = serde_json::Map::new();
    o.insert("outcome".into(), json!(b.label));
    o.insert("probability".into(), json!(b.probability.to_f64()));
    o.insert("probability_exact".into(), json!(b.probability.to_string()));
    put(&mut o, "value", &b.value);
    o
}

fn explain_json(e: &Explained) -> serde_json::Value {
    let x = &e.explanation;
    let mut obj = serde_json::Map::new();
    obj.insert("state".into(), json!(x.state));
    put(&mut obj, "value", &x.value);
    let items: Vec<serde_json::Value> = x
        .branches
        .iter()
        .map(|b| {
            let mut o = serde_json::Map::new();
            match x.kind {
                NodeKind::Chance => o = outcome_json(b),
                _ => {
                    o.insert("move".into(), json!(b.label));
                    put(&mut o, "value", &b.value);
                    put(&mut o, "loss", &b.loss);
                    o.insert("optimal".into(), json!(b.optimal));
                    o.insert("chosen".into(), json!(b.chosen));
                    if !b.outcomes.is_empty() {
                        let outs: Vec<serde_json::Value> = b
                            .outcomes
                            .iter()
                            .map(|c| {
                                let mut oc = outcome_json(c);
                                oc.insert("reward".into(), json!(c.reward.to_f64()));
                                oc.insert("next".into(), json!(c.next));
                                serde_json::Value::Object(oc)
                            })
                            .collect();
                        o.insert("outcomes".into(), json!(outs));
                    }
                }
            }
            o.insert("reward".into(), json!(b.reward.to_f64()));
            o.insert("next".into(), json!(b.next));
            serde_json::Value::Object(o)
        })
        .collect();
    match x.kind {
        NodeKind::Terminal => {
            obj.insert("kind".into(), json!("terminal"));
        }
        NodeKind::Chance => {
            obj.insert("kind".into(), json!("chance"));
            obj.insert("outcomes".into(), json!(items));
        }
        NodeKind::Decision(p) => {
            obj.insert("kind".into(), json!("decision"));
            obj.insert("player".into(), json!(player_name(p)));
            obj.insert("moves".into(), json!(items));
        }
        NodeKind::Unset => {}
    }
    serde_json::Value::Object(obj)
}

fn explain_text(e: &Explained) -> String {
    let x = &e.explanation;
    let mut out = format!("state: {}\nvalue: {}\n", x.state, show(&x.value));
    let reward = |r: perfectplay::Rat| {
        if r.is_zero() {
            String::new()
        } else {
            format!("  (scores {r})")
        }
    };
    // An outcome line, indented by `pad` spaces.
    let outcome = |b: &BranchValue<Value>, pad: usize| {
        format!(
            "{:pad$}{:>8}  {}  ->  value {}{}\n",
            "",
            b.probability.to_string(),
            b.label,
            show(&b.value),
            reward(b.reward)
        )
    };
    match x.kind {
        NodeKind::Terminal => out.push_str("the game is over\n"),
        NodeKind::Chance => {
            out.push_str("chance:\n");
            for b in &x.branches {
                out.push_str(&outcome(b, 2));
            }
        }
        NodeKind::Decision(p) => {
            let aim = match p {
                Player::Max => "maximises",
                Player::Min => "minimises",
            };
            out.push_str(&format!(
                "{} to move ({aim}); * marks optimal moves:\n",
                player_name(p)
            ));
            for (i, b) in x.branches.iter().enumerate() {
                out.push_str(&format!(
                    "  {} {}. {}  ->  value {}, loss {}{}\n",
                    if b.optimal { '*' } else { ' ' },
                    i + 1,
                    b.label,
                    show(&b.value),
                    show(&b.loss),
                    reward(b.reward)
                ));
                for o in &b.outcomes {
                    out.push_str(&outcome(o, 9));
                }
            }
        }
        NodeKind::Unset => {}
    }
    out
}

pub fn explain(solved: &dyn Solved, m: &ArgMatches) -> Result<ExitCode> {
    let id = match m.get_one::<String>("state") {
        Some(text) => solved.find(text).context("--state")?,
        None => 0,
    };
    let e = solved.explain(id)?;
    if m.get_flag("json") {
        println!("{}", explain_json(&e));
    } else {
        print!("{}", explain_text(&e));
    }
    Ok(ExitCode::SUCCESS)
}

pub fn play(solved: &dyn Solved, m: &ArgMatches) -> Result<ExitCode> {
    let seed = *m.get_one::<u64>("seed").expect("has a default");
    let value = solved.report().value;
    if let Some(&games) = m.get_one::<u64>("auto") {
        let s = solved.simulate(games as usize, seed)?;
        if m.get_flag("json") {
            println!(
                "{}",
                json!({"games": s.games, "mean": s.mean, "std": s.std,
                       "ci95": [s.ci95.0, s.ci95.1], "value": value})
            );
        } else {
            println!(
                "games: {}, mean total: {} (95% CI [{}, {}]), value: {}",
                s.games, s.mean, s.ci95.0, s.ci95.1, value
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
/// from the seeded generator.
fn interactive(solved: &dyn Solved, mut side: Option<Player>, seed: u64) -> Result<ExitCode> {
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let mut out = std::io::stdout();
    let mut rng = Rng::new(seed);
    let mut id = 0;
    let mut total = perfectplay::Rat::ZERO;
    println!(
        "value of the game: {}. Type a move's number or name; 'hint' shows every move's value, \
         'quit' ends.",
        solved.report().value
    );
    loop {
        let e = solved.explain(id)?;
        let x = &e.explanation;
        let pick = match x.kind {
            NodeKind::Terminal => {
                // A terminal state's value is its payoff.
                println!(
                    "\n{}\ngame over: total {}",
                    x.state,
                    total.to_f64() + x.value.float
                );
                return Ok(ExitCode::SUCCESS);
            }
            NodeKind::Chance => {
                let i = rng.pick(x.branches.iter().map(|b| b.probability));
                println!(
                    "  chance: {} (probability {})",
                    x.branches[i].label, x.branches[i].probability
                );
                i
            }
            NodeKind::Decision(p) => {
                let you = *side.get_or_insert(p);
                if p == you {
                    println!("\n{}  [total so far {total}]", x.state);
                    for (i, b) in x.branches.iter().enumerate() {
                        println!("  {}. {}", i + 1, b.label);
                    }
                    match ask(&mut lines, &mut out, &e)? {
                        Some(i) => i,
                        None => {
                            println!("quit");
                            return Ok(ExitCode::SUCCESS);
                        }
                    }
                } else {
                    let i = x.branches.iter().position(|b| b.chosen).unwrap_or(0);
                    println!("  {} plays: {}", player_name(p), x.branches[i].label);
                    i
                }
            }
            NodeKind::Unset => bail!("the model left a state without a kind"),
        };
        let overflow = || anyhow!("the total does not fit in a 64-bit fraction");
        let b = &x.branches[pick];
        total = total.checked_add(b.reward).ok_or_else(overflow)?;
        let next = &e.next[pick];
        id = if b.outcomes.is_empty() {
            next[0].1
        } else {
            // A random move: chance draws its outcome.
            let i = rng.pick(next.iter().map(|o| o.0));
            let o = &b.outcomes[i];
            println!("  chance: {} (probability {})", o.label, o.probability);
            total = total.checked_add(o.reward).ok_or_else(overflow)?;
            next[i].1
        };
    }
}

/// Reads the user's move: a number, a move name, `hint` or `quit` (`None`). Anything else is
/// asked again.
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
            println!();
            return Ok(None);
        };
        let line = line.context("cannot read standard input")?;
        let answer = line.trim();
        match answer {
            "" => continue,
            "q" | "quit" | "exit" => return Ok(None),
            "h" | "hint" | "?" => {
                print!("{}", explain_text(e));
                continue;
            }
            _ => {}
        }
        if let Ok(n) = answer.parse::<usize>() {
            if (1..=branches.len()).contains(&n) {
                return Ok(Some(n - 1));
            }
        }
        if let Some(i) = branches
            .iter()
            .position(|b| b.label.eq_ignore_ascii_case(answer))
        {
            return Ok(Some(i));
        }
        println!(
            "'{answer}' is not a move here: type 1 to {}, a move's name, 'hint' or 'quit'",
            branches.len()
        );
    }
}

pub fn distribution(solved: &dyn Solved, m: &ArgMatches) -> Result<ExitCode> {
    let tail = *m.get_one::<f64>("tail").expect("has a default");
    // Zero cannot be met where a cycle has rewards (plays there can last for ever), and no
    // answer needs it: every other play is followed to its end whatever EPS is.
    if !(tail > 0.0 && tail < 1.0) {
        bail!("--tail: {tail} is not in (0, 1): some plays can go round a cycle for ever");
    }
    let options = DistributionOptions {
        tail,
        ..DistributionOptions::default()
    };
    let d = solved.distribution(&options)?;
    if let Some(file) = m.get_one::<String>("plot") {
        crate::plot::distribution(&d, file).with_context(|| format!("--plot {file}"))?;
    }
    let value = &solved.report().value;
    const QUANTILES: [f64; 7] = [0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99];
    if m.get_flag("json") {
        let mut obj = serde_json::Map::new();
        obj.insert("value".into(), json!(value));
        if let Some(q) = &solved.report().exact {
            obj.insert("value_exact".into(), json!(q));
        }
        put(&mut obj, "mean", &d.mean);
        obj.insert("std".into(), json!(d.std));
        put(&mut obj, "tail", &d.tail);
        obj.insert("steps".into(), json!(d.steps));
        let q: serde_json::Map<String, serde_json::Value> = QUANTILES
            .iter()
            .map(|&q| (q.to_string(), json!(d.quantile(q).map(|t| t.to_f64()))))
            .collect();
        obj.insert("quantiles".into(), json!(q));
        obj.insert(
            "pmf".into(),
            json!(d
                .pmf
                .iter()
                .map(|(t, p, _)| json!([t.to_f64(), p.float]))
                .collect::<Vec<_>>()),
        );
        obj.insert(
            "cdf".into(),
            json!(d
                .pmf
                .iter()
                .map(|(t, _, c)| json!([t.to_f64(), c.float]))
                .collect::<Vec<_>>()),
        );
        if d.pmf.iter().any(|(_, p, _)| p.exact.is_some()) {
            obj.insert(
                "pmf_exact".into(),
                json!(d
                    .pmf
                    .iter()
                    .map(|(t, p, _)| json!([t.to_string(), p.exact]))
                    .collect::<Vec<_>>()),
            );
        }
        println!("{}", serde_json::Value::Object(obj));
    } else if m.get_flag("csv") {
        let exact = d.pmf.iter().any(|(_, p, _)| p.exact.is_some());
        let mut out = String::from("total,probability,cumulative");
        if exact {
            out.push_str(",probability_exact,cumulative_exact");
        }
        out.push('\n');
        for (t, p, c) in &d.pmf {
            out.push_str(&format!(
                "{t},{},{}",
                float_text(p.float),
                float_text(c.float)
            ));
            if exact {
                out.push_str(&format!(
                    ",{},{}",
                    p.exact.as_deref().unwrap_or(""),
                    c.exact.as_deref().unwrap_or("")
                ));
            }
            out.push('\n');
        }
        print!("{out}");
    } else {
        println!(
            "value: {}",
            show(&Value {
                float: *value,
                exact: solved.report().exact.clone(),
            })
        );
        println!("mean: {}", show(&d.mean));
        println!("std: {}", d.std);
        if d.tail.float == 0.0 && d.tail.exact.as_deref().is_none_or(|q| q == "0") {
            println!("tail: 0 (every play was followed to its end)");
        } else {
            println!(
                "tail: {} (probability of plays cut short in a cycle that can repeat for ever, \
                 after up to {} rounds of it; see --tail)",
                show(&d.tail),
                d.steps
            );
        }
        let qs: Vec<String> = QUANTILES
            .iter()
            .map(|&q| {
                let t = d
                    .quantile(q)
                    .map_or("beyond the tail".to_string(), |t| t.to_string());
                format!("{}%: {t}", q * 100.0)
            })
            .collect();
        println!("quantiles: {}", qs.join(", "));
        println!("{:>12}  {:<24}  P(total <= t)", "total t", "probability");
        for (t, p, c) in &d.pmf {
            println!("{:>12}  {:<24}  {}", t.to_string(), show(p), show(c));
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn strategy(
    game: &GameSpec,
    params: &Params,
    solved: &dyn Solved,
    m: &ArgMatches,
) -> Result<ExitCode> {
    let out = m.get_one::<String>("out").expect("required");
    let json = out == "-" || out.ends_with(".json");
    if !json && !out.ends_with(".csv") {
        bail!("--out: '{out}' must end in .json or .csv (or be '-')");
    }
    // Rows are written as they are made: a strategy of millions of states is never held
    // whole, as text or as JSON values.
    let sink: Box<dyn Write> = if out == "-" {
        Box::new(std::io::stdout().lock())
    } else {
        let file =
            std::fs::File::create(out).with_context(|| format!("--out: cannot write '{out}'"))?;
        Box::new(file)
    };
    let mut w = std::io::BufWriter::new(sink);
    let written = |e: std::io::Error| anyhow!("--out: cannot write '{out}': {e}");
    let mut count = 0usize;
    if json {
        let mut p = serde_json::Map::new();
        for spec in game.params {
            if let Some(v) = params.get(spec.name) {
                p.insert(spec.name.to_string(), v.into());
            }
        }
        // The keys in the order of a JSON map (sorted), as one document.
        write!(
            w,
            "{{\"game\":{},\"params\":{},\"states\":[",
            json!(game.name),
            json!(p)
        )
        .map_err(written)?;
        for r in solved.strategy_rows() {
            let r = r?;
            let mut o = serde_json::Map::new();
            o.insert("state".into(), json!(r.state));
            put(&mut o, "value", &r.value);
            o.insert("optimal".into(), json!(r.optimal));
            o.insert("chosen".into(), json!(r.chosen));
            let comma = if count > 0 { "," } else { "" };
            write!(w, "{comma}{}", serde_json::Value::Object(o)).map_err(written)?;
            count += 1;
        }
        writeln!(
            w,
            "],\"value\":{},\"value_exact\":{}}}",
            json!(solved.report().value),
            json!(solved.report().exact)
        )
        .map_err(written)?;
    } else {
        writeln!(w, "state,value,value_exact,optimal,chosen").map_err(written)?;
        for r in solved.strategy_rows() {
            let r = r?;
            writeln!(
                w,
                "{},{},{},{},{}",
                csv_field(&r.state),
                r.value.float,
                r.value.exact.as_deref().unwrap_or(""),
                csv_field(&r.optimal.join(" | ")),
                csv_field(&r.chosen)
            )
            .map_err(written)?;
            count += 1;
        }
    }
    w.flush().map_err(written)?;
    if out != "-" {
        eprintln!("wrote {count} decision states to {out}");
    }
    Ok(ExitCode::SUCCESS)
}

/// A CSV field, quoted when it holds a comma, a quote or a line break.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}
