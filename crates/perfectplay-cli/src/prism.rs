//! `perfectplay check`: models in the PRISM language (`perfectplay-prism`) and their
//! properties, printed as text or JSON.

use crate::say::{outln, say};
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::process::ExitCode;
use std::rc::Rc;
use std::time::Instant;

use anyhow::{anyhow, bail, Result};
use clap::{Arg, ArgAction, ArgMatches, Command};
use perfectplay_prism::program::parse_constants;
use perfectplay_prism::program::Program;
use perfectplay_prism::{analysis_model, check_prop, parse_program, Loaded, Props};
use perfectplay_prism::{Answer, Listed, StateValueText};
use serde::Serialize;

pub fn command() -> Command {
    Command::new("check")
        .about("Check properties of a model in the PRISM language (dtmc, mdp, smg): P and R queries (=?, min, max, bounds, <<coalitions>>) of every path operator with step bounds, filters, CTL's E and A, nested state formulas and arithmetic over queries; ranges of constants; exact with --exact")
        .arg(Arg::new("model").value_name("MODEL").required(true).help("The model file (.prism, .pm, .nm)"))
        .arg(Arg::new("props").value_name("PROPS").help("A properties file (.props); without --prop every property in it is checked"))
        .arg(
            Arg::new("prop")
                .long("prop")
                .value_name("TEXT|NAME|N")
                .action(ArgAction::Append)
                // A property may begin with a minus (`-1 + P=? [ … ]`).
                .allow_hyphen_values(true)
                .help("A property's text ('Pmax=? [ F \"goal\" ]'), or the name or number (from 1, as PRISM's -prop) of one in PROPS; may be repeated"),
        )
        .arg(const_arg())
        .arg(Arg::new("exact").long("exact").action(ArgAction::SetTrue).help("Exact values, printed as p/q too (an error where the model computes pow with an exponent that is not whole, or log: those are floating point)"))
        .arg(Arg::new("json").long("json").action(ArgAction::SetTrue).help("Print one JSON object: model, type, constants, states, transitions, choices, unexpanded, build_seconds, seconds, results (one a line for each combination of --const ranges)"))
        .arg(Arg::new("full").long("full").action(ArgAction::SetTrue).help("Build every reachable state; by default a state where every property asked is decided (its target reached, or its until broken) is not expanded, as in Storm"))
        .arg(
            Arg::new("max-states")
                .long("max-states")
                .value_name("N")
                .value_parser(crate::positive)
                .help("Stop with an error once the model has more than N states"),
        )
        .arg(Arg::new("quiet").long("quiet").short('q').action(ArgAction::SetTrue).help("No statistics on stderr"))
        .arg(crate::render::digits_arg())
        .after_help(
            "Examples:\n  perfectplay check brp.prism brp.props --const N=16,MAX=2\n  \
             perfectplay check coin.prism --prop 'P=? [ F \"heads\" ]' --exact --json\n\n\
             Supported: dtmc and mdp models, and smg games ('<<p1>> Pmax=? [ F φ ]', \
             '<<*>>' for every player; without <<…>> every player optimises alike, as in an MDP), \
             constants (--const gives the model's and the properties file's), formulas, labels, globals, modules and \
             renaming, synchronisation, system...endsystem (||, |||, |[a]|, hiding, renaming), \
             rewards, init...endinit. P queries of F, U, G, W, R (one \
             minus an F or U query), X, and a state formula alone ('P=? [ s=0 ]': it holds at the start), with step bounds (<=k, <k, >=k, >k, =k, [a,b]) on F, U, G, W and R, and Storm's reward bounds on F and U ('P=? [ F^{rew{\"r\"}<=5} φ ]': φ reached with the reward earned within the bound). R[ F φ ] is +∞ where φ may be \
             missed; R[ Fc φ ] counts what a play that misses φ earns (R[ C ]: the whole play's \
             total); R[ F0 φ ] counts it zero (exact where the reward earned is bounded, \
             else a certified interval: the answer ± error_bound). Bounds ('<<p1>> P>=0.5 \
             [ … ]': can the coalition ensure it) and arithmetic over queries ('1 - Pmin=? [ F φ \
             ]', '(1/2) * <<p1,p2>> Rmax=? [ … ]', comparisons, min, max) are checked too, \
             and so are state formulas nested in paths ('P=? [ F P>=0.5 [ X φ ] ]'), CTL's \
             E [ … ] and A [ … ], and filters with every operator (max, min, avg, sum, count, \
             forall, exists, first, state, print, printall, argmin, argmax, range). On a \
             DTMC, the long run: S=? [ φ ] (the fraction of steps in φ-states) and R=? [ S ] \
             (the average reward per step). Storm's T=? [ F φ ] (Tmin, Tmax): the expected \
             number of steps. Not supported: CTMCs and timed models, LTL \
             (F G φ), S on an MDP or a game, multi-objective queries.\n\n\
             Across processes (--processes N, or --hostfile FILE --process I): one P query \
             of F, U, X, G, W or R (step bounds of every form included; reward bounds on F and U), or an R query of F, \
             C, Fc, C<=k or I=k, asked or compared with a bound, at the initial states \
             (without a filter, as in one process), or under any filter (filter(op, …, \
             states): its states found first by an exploration across processes), in floats with a certified error bound; each process expands and holds its share of the states, \
             and no state space is built.\n\n\
             explain, play, distribution and strategy take a model file in place of a game, \
             with --prop saying what is optimised: \
             'perfectplay explain MODEL.prism --help'.",
        )
}

/// One result in `--json`.
#[derive(Serialize)]
struct ResultJson {
    name: Option<String>,
    property: String,
    /// The answer as the PRISM crate gives it (`value`, `exact`, `method`, `states`,
    /// `error_bound`, `listed`); after an error, none of it.
    #[serde(flatten)]
    answer: Option<Answer>,
    seconds: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// One state's value of a filter's listing as text: `true`, `inf`, `-inf`, `0.5`, `0.333… = 1/3`.
fn state_value_text(v: &StateValueText, bound: f64) -> String {
    let float = match v.holds {
        Some(b) => return b.to_string(),
        // `inf` or `-inf`, without digits or a bound.
        None if v.value.is_infinite() => v.value.to_string(),
        None => crate::render::float_text(v.value),
    };
    match &v.exact {
        Some(q) if *q != float => format!("{float} = {}", crate::render::fraction_text(q)),
        Some(_) => float,
        // Only the digits the answer's bound (which holds for each state) leaves known.
        None => crate::render::bounded_text(v.value, bound),
    }
}

/// A property's answer as text on stdout, `label: value` (a listing's states on the lines
/// after it): what `check` prints in one process and across processes alike.
pub fn print_answer(label: &str, a: &Answer) {
    let value = match a.holds {
        Some(b) => b.to_string(),
        None if a.value.is_infinite() => a.value.to_string(),
        None => crate::render::float_text(a.value),
    };
    match &a.listed {
        Some(Listed::Range { min, max }) => outln!(
            "{label}: [{}, {}]",
            state_value_text(min, a.error_bound),
            state_value_text(max, a.error_bound)
        ),
        Some(Listed::Printed(states)) => {
            let n = states.len();
            outln!("{label}: {n} state{}", if n == 1 { "" } else { "s" });
            for v in states {
                outln!("  {}: {}", v.state, state_value_text(v, a.error_bound));
            }
        }
        Some(Listed::Extremes(states)) => {
            outln!("{label}: {}", state_value_text(&states[0], a.error_bound));
            for v in states {
                outln!("  {}", v.state);
            }
        }
        None => match (&a.exact, a.holds) {
            (Some(q), None) if *q != value => {
                outln!("{label}: {value} = {}", crate::render::fraction_text(q))
            }
            (None, None) if a.error_bound > 0.0 && a.value.is_finite() => {
                outln!(
                    "{label}: {}",
                    crate::render::bounded_text(a.value, a.error_bound)
                )
            }
            _ => outln!("{label}: {value}"),
        },
    }
}

#[derive(Serialize)]
struct CheckJson {
    model: String,
    #[serde(rename = "type")]
    model_type: String,
    constants: serde_json::Map<String, serde_json::Value>,
    states: usize,
    transitions: usize,
    choices: usize,
    /// States where every property was decided, left unexpanded (0 with `--full`).
    unexpanded: usize,
    build_seconds: f64,
    seconds: f64,
    results: Vec<ResultJson>,
}

fn read(path: &str) -> Result<String> {
    Ok(perfectplay_prism::read_source(path)?)
}

/// The options of `explain`, `play`, `distribution` and `strategy` for a model file: the
/// property that says what is optimised, and the constants.
pub fn query_args(cmd: Command) -> Command {
    cmd.arg(
        Arg::new("props")
            .value_name("PROPS")
            .help("A properties file whose named property --prop may give"),
    )
    .arg(
        Arg::new("prop")
            .long("prop")
            .value_name("TEXT|NAME|N")
            .required(true)
            .allow_hyphen_values(true)
            .help("What is optimised: a property's text ('Pmax=? [ F \"goal\" ]'), or the name or number (from 1) of one in PROPS"),
    )
    .arg(const_arg())
}

/// `--const N=3,p=0.1,b=true`, repeatable.
fn const_arg() -> Arg {
    Arg::new("const")
        .long("const")
        .value_name("N=3,p=0.1,b=true")
        .action(ArgAction::Append)
        .help(
            "Values of constants the model or properties leave undefined; for check, a range \
             (K=1:4, p=0:0.25:1) checks every property for each value, as PRISM's experiments",
        )
}

/// The constants of `--const`, as given (a range's text included).
fn given(m: &ArgMatches) -> Result<Vec<(String, String)>> {
    let mut constants = Vec::new();
    for text in m.get_many::<String>("const").into_iter().flatten() {
        constants.extend(parse_constants(text).map_err(|e| anyhow!("--const: {e}"))?);
    }
    Ok(constants)
}

/// The model file `model_path` parsed and checked with the constants of `m` (one value each:
/// ranges are for `check`), and the constants.
fn load(m: &ArgMatches, model_path: &str) -> Result<(Program, Vec<(String, String)>)> {
    let mut runs = crate::ranges::combinations(&given(m)?)?;
    if runs.len() > 1 {
        bail!("--const: a range of values (K=1:4) is for check; give one value of each");
    }
    let constants = runs.pop().expect("one combination");
    Ok((parse(model_path, &constants)?, constants))
}

/// The model file `model_path` parsed and checked with the constants `constants`.
fn parse(model_path: &str, constants: &[(String, String)]) -> Result<Program> {
    Ok(parse_program(model_path, &read(model_path)?, constants)?)
}

/// `program` built for the properties `asked` (in full if none), showing the build's progress
/// on a terminal unless `--quiet`; `started` is when its parsing began.
fn build(
    m: &ArgMatches,
    program: Program,
    asked: &[(Rc<Props>, usize)],
    started: Instant,
) -> Result<Loaded> {
    let max_states = m
        .get_one::<u64>("max-states")
        .map_or(usize::MAX, |&n| n as usize);
    // Progress of a long build on a terminal, as `solve` shows it.
    let bar = (!m.get_flag("quiet") && std::io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new_spinner();
        bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        bar
    });
    let asked: Vec<(&Props, usize)> = asked.iter().map(|(p, i)| (p.as_ref(), *i)).collect();
    let built = Loaded::for_properties(program, &asked, max_states, &mut |done, found| {
        crate::interrupt::progress(found);
        if let Some(bar) = &bar {
            bar.set_message(format!(
                "building: {done} states expanded, {found} found ({:.0}/s)",
                done as f64 / started.elapsed().as_secs_f64().max(1e-9)
            ));
            bar.tick();
        }
        std::ops::ControlFlow::Continue(())
    });
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let mut built = built?;
    built.build_seconds = started.elapsed().as_secs_f64();
    Ok(built)
}

/// The properties `m` asks for: each `--prop` (the name of a property of the props file, or a
/// property's text), else every property of the file.
fn asked(
    m: &ArgMatches,
    program: &Program,
    constants: &[(String, String)],
) -> Result<Vec<(Rc<Props>, usize)>> {
    let props_path = m.get_one::<String>("props");
    let props_text = match props_path {
        Some(path) => Some(read(path)?),
        None => None,
    };
    let file = props_path.map(String::as_str).zip(props_text.as_deref());
    let wanted: Vec<&String> = m.get_many::<String>("prop").into_iter().flatten().collect();
    let mut asked: Vec<(Rc<Props>, usize)> = Vec::new();
    if wanted.is_empty() {
        let Some(file) = file else {
            bail!("give a properties file or --prop");
        };
        let props = Rc::new(perfectplay_prism::all_properties(program, file, constants)?);
        for i in 0..props.props.len() {
            asked.push((props.clone(), i));
        }
    }
    for w in wanted {
        // The same lookup as every front end's: a name, a number, or a property written out.
        let (props, i) = perfectplay_prism::find_property(program, file, w, "--prop", constants)
            .map_err(|e| match e {
                perfectplay_prism::Error::Lookup(e) => anyhow!("--prop {e}"),
                e => e.into(),
            })?;
        asked.push((Rc::new(props), i));
    }
    let files: Vec<&Props> = asked.iter().map(|(p, _)| p.as_ref()).collect();
    perfectplay_prism::check_constants(program, &files)?;
    Ok(asked)
}

/// `perfectplay check`: every property asked, for each combination of the constants' values
/// where `--const` gives ranges (each headed by its constants in text, one JSON object a line).
pub fn run(m: &ArgMatches) -> Result<ExitCode> {
    let runs = crate::ranges::combinations(&given(m)?)?;
    let [constants] = &runs[..] else {
        // Across processes on this machine, the processes are started once, for every
        // combination; process 0 prints.
        if let Some(code) = crate::distributed::launch_if_asked(m)? {
            return Ok(code);
        }
        let prints = crate::distributed::prints(m);
        let mut failed = false;
        for (k, constants) in runs.iter().enumerate() {
            let shown: Vec<String> = constants.iter().map(|(c, v)| format!("{c}={v}")).collect();
            let shown = shown.join(", ");
            if !m.get_flag("json") && prints {
                outln!("{}{shown}:", if k > 0 { "\n" } else { "" });
            }
            match check(m, constants) {
                Ok(code) => failed |= code != ExitCode::SUCCESS,
                Err(e) if crate::distributed::breaks_the_run(&e) => return Err(e),
                // One combination's error (a model that does not build with them) does not
                // stop the others.
                Err(e) => {
                    if prints {
                        let e: &(dyn std::error::Error + 'static) = e.as_ref();
                        say!(
                            "error: {shown}: {}{}",
                            crate::say::causes(e),
                            crate::say::flag_hint(e)
                        );
                    }
                    failed = true;
                }
            }
        }
        return Ok(match failed {
            true => crate::distributed::failed_exit_code(m),
            false => ExitCode::SUCCESS,
        });
    };
    check(m, constants)
}

/// `check` with the constants `constants`.
fn check(m: &ArgMatches, constants: &[(String, String)]) -> Result<ExitCode> {
    let started = Instant::now();
    let model_path = m.get_one::<String>("model").expect("required");
    let program = parse(model_path, constants)?;
    let asked = asked(m, &program, constants)?;
    if crate::distributed::wanted(m) {
        return across(m, program, constants, &asked);
    }
    // Built as far as the properties need, unless --full.
    let directed = if m.get_flag("full") {
        &[][..]
    } else {
        &asked[..]
    };
    let loaded = build(m, program, directed, started)?;
    report(m, &loaded, model_path, constants, asked, started)
}

/// `check` across processes (`--processes`, `--hostfile`): each property's game over the
/// model's own states, each process holding its share of them; several properties one after
/// another by the same processes.
fn across(
    m: &ArgMatches,
    program: Program,
    constants: &[(String, String)],
    asked: &[(Rc<Props>, usize)],
) -> Result<ExitCode> {
    // Every process must have read the same model, properties, constants and property.
    let model_path = m.get_one::<String>("model").expect("required");
    let props_text = match m.get_one::<String>("props") {
        Some(path) => read(path)?,
        None => String::new(),
    };
    let model_text = read(model_path)?;
    let all: Vec<crate::distributed::Asked> = asked
        .iter()
        .map(|(props, i)| {
            let prop = &props.props[*i];
            crate::distributed::Asked {
                name: prop.name.clone(),
                text: prop.text.clone(),
                what: format!("{model_text} {props_text} {constants:?} {}", prop.text),
                property: perfectplay_prism::across_property(program.clone(), props, prop)
                    .map_err(Into::into),
            }
        })
        .collect();
    crate::distributed::check(all, m, constants)
}

/// `perfectplay explain|play|distribution|strategy MODEL --prop …`: the game the property
/// optimises, solved by the engine, then queried as a built-in game is. `m` has the options
/// of [`query_args`] and the command's own.
pub fn analyse(command: &str, model_path: &str, m: &ArgMatches) -> Result<ExitCode> {
    let started = Instant::now();
    let (program, constants) = load(m, model_path)?;
    let asked = asked(m, &program, &constants)?;
    // Built in full: every state can be asked about.
    let loaded = build(m, program, &[], started)?;
    let [(props, i)] = &asked[..] else {
        bail!("--prop: one property says what is optimised");
    };
    let prop = &props.props[*i];
    let model = analysis_model(&loaded, props, prop, m.get_flag("exact"))
        .map_err(|e| anyhow!("--prop: {e}"))?;
    let solved = crate::solving::solve_model(model.as_ref(), m)?;
    if command == "serve" {
        if !m.get_flag("quiet") {
            crate::solving::print_stats(solved.report(), m.get_flag("exact"));
        }
        let name = std::path::Path::new(model_path)
            .file_name()
            .map_or(model_path.into(), |n| n.to_string_lossy());
        let start = solved.explain(0)?.explanation.state;
        let mut details = vec![
            (
                "model".to_string(),
                format!("{name} ({})", loaded.program.model_type),
            ),
            ("property".to_string(), prop.text.clone()),
            ("initial state".to_string(), start),
        ];
        for (k, v) in &constants {
            details.push((format!("constant {k}"), v.clone()));
        }
        let mut params: BTreeMap<String, String> = constants.iter().cloned().collect();
        params.insert("prop".into(), prop.text.clone());
        let about = perfectplay_serve::About {
            name: "prism".into(),
            title: format!("{name}: {}", prop.text),
            summary: "The game that a property of a model in the PRISM language optimises.".into(),
            notation: Some("as PRISM prints states: (x=1,b=true)".into()),
            details,
            params,
            labels: Some(Box::new(|state: &str| {
                loaded.labels_at(state).unwrap_or_default()
            })),
        };
        return crate::serve::run(solved.as_ref(), about, m);
    }
    let code = match command {
        "explain" => crate::analysis::explain(solved.as_ref(), m),
        "play" => crate::analysis::play(solved.as_ref(), m),
        "distribution" => {
            let name = std::path::Path::new(model_path)
                .file_name()
                .map_or(model_path.into(), |n| n.to_string_lossy());
            let title = format!("{name}: {}", prop.text);
            crate::analysis::distribution(solved.as_ref(), m, &title)
        }
        "strategy" => {
            let mut params: BTreeMap<&str, &str> = constants
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect();
            params.insert("prop", &prop.text);
            crate::analysis::strategy(model_path, &params, solved.as_ref(), m)
        }
        _ => unreachable!("the commands that take a model"),
    }?;
    if !m.get_flag("quiet") {
        crate::solving::print_stats(solved.report(), m.get_flag("exact"));
    }
    Ok(code)
}

fn report(
    m: &ArgMatches,
    loaded: &Loaded,
    model_path: &str,
    constants: &[(String, String)],
    asked: Vec<(Rc<Props>, usize)>,
    started: Instant,
) -> Result<ExitCode> {
    let exact = m.get_flag("exact");
    let json = m.get_flag("json");
    let mut results = Vec::new();
    let mut failed = false;
    for (props, i) in &asked {
        {
            let p = &props.props[*i];
            let t = Instant::now();
            let label = p.name.clone().unwrap_or_else(|| p.text.clone());
            let a = match check_prop(loaded, props, p, exact) {
                Ok(a) => a,
                Err(e) => {
                    // One property's error does not stop the others.
                    say!("error: {label}: {e}{}", crate::say::flag_hint(&e));
                    failed = true;
                    results.push(ResultJson {
                        name: p.name.clone(),
                        property: p.text.clone(),
                        answer: None,
                        seconds: t.elapsed().as_secs_f64(),
                        error: Some(e.to_string()),
                    });
                    continue;
                }
            };
            let seconds = t.elapsed().as_secs_f64();
            if !json {
                print_answer(&label, &a);
            }
            results.push(ResultJson {
                name: p.name.clone(),
                property: p.text.clone(),
                answer: Some(a),
                seconds,
                error: None,
            });
        }
    }
    let space = &loaded.space;
    if json {
        let out = CheckJson {
            model: model_path.to_string(),
            model_type: loaded.program.model_type.to_string(),
            constants: constants
                .iter()
                .map(|(k, v)| (k.clone(), constant_json(v)))
                .collect(),
            states: space.len(),
            transitions: space.transitions(),
            choices: space.choices.len(),
            unexpanded: space.stopped,
            build_seconds: loaded.build_seconds,
            seconds: started.elapsed().as_secs_f64(),
            results,
        };
        outln!("{}", crate::say::json(&out));
    }
    if !m.get_flag("quiet") {
        let unexpanded = match space.stopped {
            0 => String::new(),
            n => format!(" ({n} decided, not expanded)"),
        };
        say!(
            "states: {}{unexpanded}, transitions: {}, choices: {}, build: {:.3} s, total: {:.3} s",
            space.len(),
            space.transitions(),
            space.choices.len(),
            loaded.build_seconds,
            started.elapsed().as_secs_f64()
        );
    }
    Ok(if failed {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}

/// A constant's value as given on the command line, as JSON: a boolean, a number (an integer
/// exactly), or the text itself (a fraction or an expression).
fn constant_json(text: &str) -> serde_json::Value {
    let t = text.trim();
    match t {
        "true" => return true.into(),
        "false" => return false.into(),
        _ => {}
    }
    if let Ok(n) = t.parse::<i64>() {
        return n.into();
    }
    match t.parse::<f64>() {
        Ok(x) if x.is_finite() => x.into(),
        _ => t.into(),
    }
}
