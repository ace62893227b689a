//! The solve of a perfectplay model partitioned over many processes, on
//! [timely dataflow](https://docs.rs/timely): each process holds the states that a hash of
//! their bytes gives it, so memory grows with the states per process, not with the game.
//!
//! The core knows nothing of this crate: a model takes part through its states' bytes
//! ([`Model::encode_state`](perfectplay::Model::encode_state), seen by this crate as
//! [`EncodedModel`](perfectplay::encoded::EncodedModel)); a model that does not write them is
//! refused with an error that says so.
//!
//! # Method
//! Every worker (a thread of a process) runs the same rounds, each a timely epoch in which
//! every worker sends what it has for the others and learns every worker's summary of the
//! round (so all take the same decision next):
//! 1. **Exploration**, breadth first, a layer a round: a state goes to the worker its bytes hash
//!    to, which keeps it once, expands it, and keeps for each of its states the predecessors'
//!    *links* (worker, link) where its value is wanted: a worker sends each distinct
//!    successor of its states once, and every outcome that leads there reads its link, so a
//!    value crosses to a worker once however many of its outcomes wait for it. (The table
//!    that finds a successor's link again is let go whenever it outgrows the worker's own
//!    states; a successor met after that gets a second link.)
//! 2. **Endless plays**. Where the value is a total reward ([`Options::total`]), the states from
//!    which the minimiser can keep every reward at zero for ever are found first, as a greatest
//!    fixed point in rounds, and are worth zero. Where a play that never ends is worth
//!    infinitely much ([`Options::endless_is_infinite`]): the states from which the player it is against cannot
//!    make the play end with probability one, found in rounds as a nested fixed point, take
//!    that worth as their final value.
//!    Where the game is one of probabilities instead (no reward on a move, every terminal
//!    worth 0 or 1, an endless play worth 0) and the run asks ([`Options::qualitative`]),
//!    the states of probability 0 and 1 are found
//!    from the graph the same way (a least fixed point, and the maximiser's almost-sure
//!    reachability of the terminals worth 1) and take those values exactly.
//!    Where the value is a chain's long-run average ([`Options::long_run`]), the states that
//!    end in one bottom component for sure are found first, from labels that flow back in
//!    rounds (the least key a state reaches), and made final at the component's average,
//!    bounded by the least and greatest excess of one backup over the component's states
//!    while the values iterate the lazy chain (or, where that closes slowly and the
//!    component's states are few, by renewal in one worker, as step 5 gathers open
//!    states); then no step earns, and the other states
//!    weigh those averages by the steps below.
//!    Where a reward counts only on the plays that reach ([`Options::reached_only`]), the
//!    probability of reaching is solved first by the steps below (with its values of 0 and 1
//!    from the graph), every open state's bounds closed, and every reward is then weighed by
//!    the probability of reaching from where it leads, with the width of those bounds in its
//!    error; the states that cannot reach, and the terminals, are worth zero, and the steps
//!    below solve the weighed reward.
//! 3. **Retrograde analysis**: a state whose successors' values have all arrived is final;
//!    its value goes back to its predecessors' links. Acyclic games end here.
//! 4. **Interval iteration** for the states on (or leading to) cycles: lower and upper bounds
//!    closing in round after round until the start's bounds are within the precision asked
//!    (each of its outcomes' where it stands for them, [`Options::outcomes`]).
//!    Where no move on a cycle collects a reward, both start from the final values the cycles
//!    can be left for. Where the rewards on cycles (and the values they are left for) are all of
//!    one sign, one side starts at zero and the other is guessed and checked: a guess from
//!    which one backup stays inside it is a pre-fixed point, hence a bound, provided the players
//!    cannot keep the play going for ever at no cost, alone or together (a trap analysis, in
//!    rounds, decides that first). Where they can, but an endless play is worth infinitely much
//!    against the minimiser (PRISM's expected rewards), the guess is checked on the strategy
//!    of step 2 that ends the play surely, which bounds the value from its side; the side the
//!    free cycles hold down is guessed and checked in turn once the bounds stand still.
//!    Otherwise the run refuses. Rewards of both signs on cycles are refused. Bounds that stop
//!    closing are an error.
//! 5. **The open states in one piece**, where the bounds close too slowly (16 rounds, or 32
//!    backups of each open state on average, or bounds that stop moving; or a step above
//!    refuses) and at most [`Options::gather`] states are open, and no more than a worker's
//!    share of all the states or 262,144 (so that no worker holds much more than its share):
//!    they go to
//!    worker 0, which
//!    solves them with the core's method for cycles ([`perfectplay::graph`]) three times, with
//!    the ways out at the lower bounds of their values, at the upper ones and at the float
//!    values (the values are monotone in them, so the first two solves, less and plus their own
//!    error bounds, bound the values), or once where the ways out are known closely (a value
//!    moves no more than they do), and sends each value back to its owner.
//!
//! Every value is computed in `f64` with its bounds widened by the rounding of each sum, so
//! the report's [`DistValue::error_bound`] bounds the distance from the printed value to the
//! exact value of the model, rounding included.
//!
//! # Processes
//! [`solve`] runs one process of a run: alone, or process `process` of a list of hosts (as in
//! timely's host files), every process running the same command. The processes connect to each
//! other first and compare a fingerprint of their command and model; a process started
//! otherwise is refused, and a process that does not come is an error after a timeout.
//! [`local::run`] starts the processes of a run on this machine and gathers the answer.
//!
//! A run holds everything in memory; nothing is written to disk. A restart would need each
//! worker's part (its states' bytes, nodes and bounds) written at the end of a round, and the
//! round to resume from.

mod net;
mod part;
mod round;
mod table;
mod work;

pub mod local;

use std::sync::Arc;
use std::time::{Duration, Instant};

use perfectplay::dynamic::DynModel;
use serde::Serialize;
use timely::communication::allocator::zero_copy::initialize::initialize_networking_from_sockets;
use timely::communication::allocator::ProcessBuilder;
use timely::communication::{AllocatorBuilder, Hooks};
use timely::CommunicationConfig;

/// What can end a distributed run.
#[derive(Debug, thiserror::Error)]
pub enum DistError {
    /// The solve failed in some worker (an invalid model, a state limit, bounds that do not
    /// close); every process ends with the same message.
    #[error("{0}")]
    Solve(String),
    /// The model or the game cannot be solved this way.
    #[error("{0}")]
    Unsupported(String),
    /// The run explored more states than [`Options::max_states`] allows.
    #[error(
        "state limit reached: {explored} states explored (limit {limit}); raise the limit to go on"
    )]
    StateLimit {
        /// The states explored in all when the run stopped.
        explored: u64,
        /// The limit.
        limit: usize,
    },
    /// The processes could not connect, or lost each other.
    #[error("{0}")]
    Network(String),
    /// The processes were started with different commands or models.
    #[error("{0}")]
    Mismatch(String),
    /// A host file that cannot be used.
    #[error("{0}")]
    Hostfile(String),
}

/// How to run the solve.
#[derive(Clone, Debug)]
pub struct Options {
    /// Worker threads in each process.
    pub workers: usize,
    /// The gap between the start's bounds at which interval iteration stops, relative to the
    /// value (absolute below 1).
    pub precision: f64,
    /// Stop with an error beyond this many states in all.
    pub max_states: Option<usize>,
    /// How long a process waits for the others to connect.
    pub connect_timeout: Duration,
    /// Stop with an error after this many rounds of interval iteration (a value that is
    /// infinite, or bounds that close too slowly).
    pub max_rounds: u64,
    /// Whether a play that never ends is worth infinitely much against the model's
    /// [`endless_play_loser`](perfectplay::Model::endless_play_loser): +∞ where that is the
    /// minimiser (PRISM's expected reward to reach a target, +∞ wherever the target may be
    /// missed), −∞ where it is the maximiser. The states from which that player cannot make
    /// the play end with probability one then take that value. Otherwise the values there are
    /// left to the bounds, which do not close, and the run ends with an error.
    pub endless_is_infinite: bool,
    /// Whether the value is the total reward a play collects, endless plays included (PRISM's
    /// `R [ C ]`; rewards must be at least zero): the states from which the minimiser can keep
    /// every reward at zero for ever are worth exactly zero, found from the graph before any
    /// value flows back. With [`Options::endless_is_infinite`] (against the minimiser), every
    /// other endless play collects a reward infinitely often and is worth +∞, provided the
    /// players together cannot keep a play going for nothing among those states; where they
    /// can, the run refuses. Without it, as for a reward to reach a target.
    pub total: bool,
    /// Whether the start stands for the states asked about, its outcomes (a model's initial
    /// states, as a chance node over them): the run then reports each of their values
    /// ([`DistReport::outcomes`]), each within the precision, rather than the start's own.
    pub outcomes: bool,
    /// Whether the values of exactly 0 and 1 of a game of probabilities are found from the
    /// graph before any value flows back (see the method), at the price of a few more rounds
    /// and messages for each state's predecessors: bounds that close in leave such a value a
    /// float away, too close to compare it with 0 or 1.
    pub qualitative: bool,
    /// The most open states that are gathered into one worker and solved there in one piece
    /// where interval iteration closes too slowly (0: never); never more than a worker's
    /// share of all the states or 262,144.
    pub gather: usize,
    /// Whether the value is the long-run average of what a step earns (PRISM's `S` and
    /// `R [ S ]` on a DTMC): the model must be a chain (chance nodes and terminals, a terminal
    /// earning its value at every step for ever; a decision only where no step leads, such as
    /// a choice over the initial states). The states that end in one bottom
    /// component for sure are found from the graph and made final at its average, and the
    /// others weigh those averages (see the method).
    pub long_run: bool,
    /// Whether a reward counts only on plays that end at a terminal worth 1 (PRISM-games'
    /// `R [ F0 φ ]` on a chain): the terminals' values say which plays reach (0 or 1, every
    /// other play counting 0), the moves' rewards are what a play earns, and the value is the
    /// expected reward earned times the worth of where the play ends. The probability of
    /// reaching is solved first, every state's, and every reward then weighed by it from where
    /// it leads (see the method). Meant for a chain (chance nodes and terminals; a decision
    /// only where no reward is earned, such as a choice over the initial states): where a
    /// player chooses, optimal play would depend on the reward earned so far, which the states
    /// do not count.
    pub reached_only: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            workers: 1,
            precision: 1e-9,
            max_states: None,
            connect_timeout: Duration::from_secs(60),
            max_rounds: 1_000_000,
            endless_is_infinite: false,
            total: false,
            outcomes: false,
            qualitative: false,
            gather: 1 << 20,
            long_run: false,
            reached_only: false,
        }
    }
}

/// Which process of which run this is.
#[derive(Clone, Debug, Default)]
pub struct Run {
    /// Every process's address (`host:port`), in process order; empty for a run of this
    /// process alone.
    pub hosts: Vec<String>,
    /// This process's place in `hosts`.
    pub process: usize,
    /// A hash of the command and model, which every process of the run must share.
    pub fingerprint: u64,
}

/// The answer of a distributed solve, as process 0 reports it.
#[derive(Clone, Debug, Serialize)]
pub struct DistReport {
    /// The start's value (+∞ where an endless play is worth that and the start cannot avoid
    /// one), within the precision asked unless the run asks for its outcomes'. In JSON, its
    /// fields stand at the top.
    #[serde(flatten)]
    pub start: DistValue,
    /// How the values were found.
    pub method: &'static str,
    /// Processes in the run.
    pub processes: usize,
    /// Worker threads per process.
    pub workers: usize,
    /// States explored, in all processes.
    pub states: u64,
    /// Rounds of messages (timely epochs).
    pub rounds: u64,
    /// Messages exchanged between workers.
    pub messages: u64,
    /// Their bytes.
    pub bytes: u64,
    /// Each process's peak memory (resident), in bytes; 0 where the system does not say.
    pub peak_memory: Vec<u64>,
    /// Seconds from the start of the solve to the answer, in process 0.
    pub seconds: f64,
    /// Where the run asks for them ([`Options::outcomes`]), the values of the start's
    /// outcomes, in the order the model gives them; empty otherwise. Not in JSON: what they
    /// answer is the caller's to say.
    #[serde(skip)]
    pub outcomes: Vec<DistValue>,
}

/// A value found by a run, with its certified bounds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct DistValue {
    /// The value as computed in floats (in JSON, `"inf"` for +∞).
    #[serde(serialize_with = "number_or_infinity")]
    pub value: f64,
    /// A bound on the distance from `value` to the exact value, rounding included.
    pub error_bound: f64,
    /// The certified lower bound on the exact value.
    #[serde(serialize_with = "number_or_infinity")]
    pub lower: f64,
    /// The certified upper bound.
    #[serde(serialize_with = "number_or_infinity")]
    pub upper: f64,
}

impl DistValue {
    /// `[value, lower, upper]`: the value with its certified bounds.
    pub fn bounds(&self) -> [f64; 3] {
        [self.value, self.lower, self.upper]
    }
}

impl DistValue {
    /// A value and its bounds, with the bound on the distance between them.
    pub fn new(value: f64, lower: f64, upper: f64) -> DistValue {
        // One rounding in each difference: the next float up covers it.
        let gap = (value - lower).max(upper - value);
        let error_bound = if gap > 0.0 { gap.next_up() } else { 0.0 };
        DistValue {
            value,
            error_bound,
            lower,
            upper,
        }
    }
}

/// A float in JSON, which has no infinity: a number, or `"inf"` and `"-inf"` (as the
/// one-process answers write +∞).
fn number_or_infinity<S: serde::Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
    match x.is_infinite() {
        true => s.serialize_str(if *x > 0.0 { "inf" } else { "-inf" }),
        false => s.serialize_f64(*x),
    }
}

/// Parses a host file: one `host:port` a line, in process order (blank lines and lines
/// starting with `#` skipped). Each process needs an address of its own with a fixed port: a
/// port that is not a number in 1..=65535, or an address given twice, is an error naming its
/// line.
pub fn parse_hostfile(text: &str) -> Result<Vec<String>, DistError> {
    let mut hosts: Vec<String> = Vec::new();
    let mut lines: Vec<usize> = Vec::new();
    for (at, line) in text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let port = line
            .rsplit_once(':')
            .and_then(|(_, p)| p.parse::<u16>().ok());
        if !matches!(port, Some(p) if p > 0) {
            return Err(DistError::Hostfile(format!(
                "line {at} of the host file, '{line}', is not host:port (a port in 1..=65535)"
            )));
        }
        if let Some(first) = hosts.iter().position(|h| h.eq_ignore_ascii_case(line)) {
            return Err(DistError::Hostfile(format!(
                "line {at} of the host file repeats '{line}' of line {}: each process needs an \
                 address of its own",
                lines[first]
            )));
        }
        hosts.push(line.to_string());
        lines.push(at);
    }
    if hosts.is_empty() {
        return Err(DistError::Hostfile(
            "the host file lists no process".to_string(),
        ));
    }
    Ok(hosts)
}

/// Runs this process's part of a distributed solve of `model`; process 0 returns the report,
/// the others `None`. Every process must be started with the same model, options and hosts.
pub fn solve(
    model: Arc<dyn DynModel>,
    run: &Run,
    options: &Options,
) -> Result<Option<DistReport>, DistError> {
    Ok(solve_everywhere(model, run, options)?.report)
}

/// What a process of a distributed solve learns ([`solve_everywhere`]).
pub struct Solved {
    /// Where the run asks for them ([`Options::outcomes`]), the values of the start's
    /// outcomes, in the order the model gives them, the same in every process; empty
    /// otherwise.
    pub outcomes: Vec<DistValue>,
    /// Process 0's report of the run; `None` in the others.
    pub report: Option<DistReport>,
}

/// [`solve`], where every process learns the values of the start's outcomes too (where the
/// run asks for them): a front end that goes on from them (to solve a property over the
/// states where a formula holds, say) needs them in every process.
pub fn solve_everywhere(
    model: Arc<dyn DynModel>,
    run: &Run,
    options: &Options,
) -> Result<Solved, DistError> {
    let started = Instant::now();
    let workers = options.workers.max(1);
    let processes = run.hosts.len().max(1);
    let results = execute(model, run, options, move |worker, model, options| {
        work::run(worker, model, options, workers)
    })?;
    let mut outcomes = Vec::new();
    let mut report = None;
    for (i, (bounds, outcome)) in results.into_iter().enumerate() {
        if i == 0 {
            outcomes = bounds;
        }
        if outcome.is_some() {
            report = outcome;
        }
    }
    let value = |[v, lo, hi]: [f64; 3]| DistValue::new(v, lo, hi);
    let outcomes = outcomes.into_iter().map(value).collect();
    let report = report.map(|o| {
        let method = match (o.iterated, o.direct) {
            _ if options.long_run => {
                "distributed: long-run averages of the bottom components by a lazy iteration, \
                 then their weights by retrograde analysis and interval iteration"
            }
            (true, true) => {
                "distributed: retrograde analysis, interval iteration, then the open states \
                 solved directly in one worker"
            }
            (true, false) => "distributed: retrograde analysis, then interval iteration",
            _ => "distributed: retrograde analysis",
        };
        report_of(o, method, processes, workers, started)
    });
    Ok(Solved { outcomes, report })
}

/// The report of a run from worker 0's outcome.
fn report_of(
    o: work::Outcome,
    method: &'static str,
    processes: usize,
    workers: usize,
    started: Instant,
) -> DistReport {
    let value = |[v, lo, hi]: [f64; 3]| DistValue::new(v, lo, hi);
    DistReport {
        start: value([o.v, o.lo, o.hi]),
        outcomes: o.outcomes.into_iter().map(value).collect(),
        method,
        processes,
        workers,
        states: o.states,
        rounds: o.rounds,
        messages: o.messages,
        bytes: o.bytes,
        peak_memory: o.peaks,
        seconds: started.elapsed().as_secs_f64(),
    }
}

/// What an exploration across processes found ([`reach`]).
pub struct Reached {
    /// The bytes of every terminal state reached, sorted: the same in every process.
    pub states: Vec<Vec<u8>>,
    /// Process 0's report of the run: its states, rounds, messages, memory and time (its
    /// start's value is not solved, and its method is [`REACH_METHOD`]); `None` in the others.
    pub report: Option<DistReport>,
}

/// The method of an exploration's report ([`Reached::report`]).
pub const REACH_METHOD: &str = "distributed: exploration";

/// Runs this process's part of a distributed exploration of `model` that collects the
/// terminal states it reaches: every process returns the bytes of all of them, sorted (the
/// same list in each), and process 0 the run's figures. Nothing is solved; of `options`, the workers, the state limit and the
/// connection's timeout count. Every process must be started with the same model, options
/// and hosts. A front end uses it to find states of interest first (a filter's states, say,
/// made terminal by a game of its own), then solves from them.
pub fn reach(model: Arc<dyn DynModel>, run: &Run, options: &Options) -> Result<Reached, DistError> {
    let started = Instant::now();
    let workers = options.workers.max(1);
    let processes = run.hosts.len().max(1);
    let results = execute(model, run, options, move |worker, model, options| {
        work::reach(worker, model, options, workers)
    })?;
    let mut reached = Reached {
        states: Vec::new(),
        report: None,
    };
    for (i, (states, outcome)) in results.into_iter().enumerate() {
        if i == 0 {
            reached.states = states;
        }
        if let Some(o) = outcome {
            reached.report = Some(report_of(o, REACH_METHOD, processes, workers, started));
        }
    }
    Ok(reached)
}

/// Runs `each` in every worker of this process, connected to the other processes of `run`,
/// and returns every worker's result, or the first error of any.
fn execute<T: Send + 'static>(
    model: Arc<dyn DynModel>,
    run: &Run,
    options: &Options,
    each: impl Fn(
            &mut timely::worker::Worker,
            &dyn perfectplay::encoded::EncodedModel,
            &Options,
        ) -> Result<T, DistError>
        + Send
        + Sync
        + 'static,
) -> Result<Vec<T>, DistError> {
    model
        .encoded()
        .start()
        .map_err(|e| DistError::Unsupported(e.to_string()))?;
    let workers = options.workers.max(1);
    let processes = run.hosts.len().max(1);
    if run.process >= processes {
        return Err(DistError::Hostfile(format!(
            "process {} does not exist: the host file lists {processes}",
            run.process
        )));
    }
    let (builders, others): (Vec<AllocatorBuilder>, Box<dyn std::any::Any + Send>) = if processes
        == 1
    {
        CommunicationConfig::Process(workers)
            .try_build()
            .map_err(DistError::Network)?
    } else {
        let sockets = net::connect(
            &run.hosts,
            run.process,
            run.fingerprint,
            options.connect_timeout,
        )?;
        let hooks = Hooks::default();
        let local =
            ProcessBuilder::new_typed_vector(workers, hooks.refill.clone(), hooks.spill.clone());
        let (tcp, guard) =
            initialize_networking_from_sockets(local, sockets, run.process, workers, hooks)
                .map_err(|e| DistError::Network(e.to_string()))?;
        (
            tcp.into_iter().map(AllocatorBuilder::Tcp).collect(),
            Box::new(guard),
        )
    };
    let shared = options.clone();
    let guards = timely::execute::execute_from(
        builders,
        others,
        timely::WorkerConfig::default(),
        move |worker| each(worker, model.encoded(), &shared),
    )
    .map_err(DistError::Network)?;
    let mut results = Vec::new();
    let mut first_error = None;
    for result in guards.join() {
        match result {
            Ok(Ok(r)) => results.push(r),
            Ok(Err(e)) => {
                first_error.get_or_insert(e);
            }
            Err(panic) => {
                first_error.get_or_insert(DistError::Network(format!("a worker failed: {panic}")));
            }
        }
    }
    match first_error {
        Some(e) => Err(e),
        None => Ok(results),
    }
}

/// A 64-bit hash of `bytes` that is the same in every process and on every machine (FNV-1a):
/// what decides which worker owns a state, and a run's [`Run::fingerprint`] from its command.
pub fn fingerprint(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// This process's peak resident memory in bytes, where the system says (Linux).
pub fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::parse_hostfile;

    /// A host file's processes in order, comments and blank lines skipped; each fault names
    /// the file's own line.
    #[test]
    fn host_files_parse_and_their_faults_name_the_line() {
        let hosts = parse_hostfile("# two\n\n10.0.0.1:7000\n  host-b:7001  \n").unwrap();
        assert_eq!(hosts, ["10.0.0.1:7000", "host-b:7001"]);
        let error = |text: &str| parse_hostfile(text).unwrap_err().to_string();
        assert!(error("# a\n127.0.0.1:1\nno-port\n").contains("line 3 of the host file"));
        assert!(error("127.0.0.1:0\n").contains("is not host:port (a port in 1..=65535)"));
        assert!(error("127.0.0.1:65536\n").contains("is not host:port"));
        let repeated = error("a:1\n# b\nA:1\n");
        assert!(
            repeated.contains("line 3 of the host file repeats 'A:1' of line 1"),
            "{repeated}"
        );
        assert!(error("# none\n\n").contains("lists no process"));
    }
}
