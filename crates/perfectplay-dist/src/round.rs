//! Rounds of messages between the workers, on one timely dataflow: every worker sends what it
//! has for the others, tagged with the round (timely's epoch), and steps the dataflow until the
//! round has been delivered everywhere. Every round also carries each worker's [`Status`] to
//! every worker, so that all of them learn the same totals (how much was sent, the start's
//! bounds, an error anywhere) and take the same decision next.

use std::cell::RefCell;
use std::rc::Rc;

use serde::{Deserialize, Serialize};
use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::Exchange;
use timely::dataflow::operators::generic::operator::Operator;
use timely::dataflow::operators::{Input, Probe};
use timely::dataflow::{InputHandle, ProbeHandle};
use timely::worker::Worker;

/// How many messages' room a buffer keeps between rounds; beyond it, room left by a burst is
/// given back.
const KEPT_ROOM: usize = 1 << 16;

/// A message for worker `to`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Msg {
    /// The worker it is for.
    pub to: u32,
    /// What it says.
    pub body: Body,
}

/// What a message says.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) enum Body {
    /// A state for the worker that owns it: its bytes, and where its value is wanted (the
    /// sending worker and its link), `None` for the start.
    State {
        /// The state's bytes.
        bytes: Vec<u8>,
        /// The predecessor's worker and link.
        back: Option<(u32, u32)>,
    },
    /// The bounds on a successor's value, for one of the receiver's links.
    Value {
        /// The link.
        link: u32,
        /// The value as computed in floats.
        v: f64,
        /// A lower bound.
        lo: f64,
        /// An upper bound.
        hi: f64,
        /// Whether the value is final (its bounds will not change).
        fin: bool,
    },
    /// A guessed bound on a successor's value, for one of the receiver's links, to be checked.
    Guess {
        /// The link.
        link: u32,
        /// The guess.
        bound: f64,
    },
    /// A mark on one of the receiver's links, in a graph analysis: the successor left (or
    /// joined) the set the analysis computes.
    Mark {
        /// The link.
        link: u32,
    },
    /// A successor's label in the long run's analysis: the least key of the states it
    /// reaches, for one of the receiver's links.
    Label {
        /// The link.
        link: u32,
        /// The label.
        label: u64,
    },
    /// A successor's value in the long run's iteration, for one of the receiver's links.
    Level {
        /// The link.
        link: u32,
        /// The value.
        x: f64,
    },
    /// Bounds on a label's long-run average: a worker's, for the worker of the label's key;
    /// the best so far, back from there.
    Gain {
        /// The label.
        label: u64,
        /// The lower bound.
        lo: f64,
        /// The upper bound.
        hi: f64,
        /// The sending worker.
        from: u32,
    },
    /// A terminal state reached, for every worker (see [`crate::reach`]): its bytes.
    Reached(Vec<u8>),
    /// A worker's summary of the round, for every worker (boxed: there are few, and a message
    /// is as large as its largest kind).
    Status(Box<Status>),
    /// For the worker that solves the gathered open states: link `link` of worker `at` waits
    /// for the value of the sender's open state `state`.
    Name {
        /// The sender.
        owner: u32,
        /// The worker of the link.
        at: u32,
        /// The link.
        link: u32,
        /// The sender's state.
        state: u32,
    },
    /// For the worker that solves the gathered open states: one of the sender's (boxed, as
    /// `Status`).
    Node(Box<Gathered>),
    /// From the worker that solved the gathered open states: the final value of one of the
    /// receiver's.
    Solved {
        /// The receiver's state.
        state: u32,
        /// The value as computed in floats.
        v: f64,
        /// A lower bound.
        lo: f64,
        /// An upper bound.
        hi: f64,
    },
    /// For worker 0, in the last round, from the worker that holds the start where the run
    /// asks for them ([`Options::outcomes`](crate::Options::outcomes)): `[v, lo, hi]` of each
    /// of the start's outcomes, in order.
    Outcomes(Vec<[f64; 3]>),
}

/// An open state as its owner sends it to be solved with the others in one place: its kind and
/// its choices, each outcome leading to another open state (by the sender's link) or out to a
/// final value.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Gathered {
    /// The sender.
    pub owner: u32,
    /// The sender's number of the state.
    pub state: u32,
    /// Whose decision it is: `Some(true)` the maximiser's, `Some(false)` the minimiser's;
    /// `None` for a chance node.
    pub max: Option<bool>,
    /// Each choice's own reward and its bound on its conversion, with its outcomes.
    pub choices: Vec<(f64, f64, Vec<GatheredSlot>)>,
}

/// One outcome of a [`Gathered`] state's choice.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct GatheredSlot {
    /// The probability, and the bound on its distance from the model's fraction.
    pub p: (f64, f64),
    /// The reward, and the same bound.
    pub r: (f64, f64),
    /// Where it leads: `Ok(link)`, another open state by the sender's link; `Err([v, lo,
    /// hi])`, out to a final value.
    pub to: Result<u32, [f64; 3]>,
}

/// What a worker tells every worker at the end of a round.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct Status {
    /// The sending worker.
    pub from: u32,
    /// Messages it sent this round, and those it kept for itself (statuses not counted).
    pub sent: u64,
    /// An error that ends the run.
    pub error: Option<String>,
    /// Numbers whose meaning the phase decides (counts, bounds); combined by the receiver.
    pub figures: Figures,
}

/// How many numbers a worker's [`Status`] carries.
pub(crate) const FIGURES: usize = 8;

/// The numbers of a [`Status`].
pub(crate) type Figures = [f64; FIGURES];

impl Msg {
    /// The size of the message as it travels, for the report.
    fn size(&self) -> u64 {
        4 + match &self.body {
            Body::State { bytes, .. } => 8 + bytes.len() as u64 + 9,
            Body::Value { .. } => 4 + 24 + 1,
            Body::Guess { .. } => 4 + 8,
            Body::Mark { .. } => 4,
            Body::Label { .. } => 4 + 8,
            Body::Level { .. } => 4 + 8,
            Body::Gain { .. } => 8 + 16 + 4,
            Body::Reached(bytes) => 8 + bytes.len() as u64,
            Body::Status(s) => {
                4 + 8 + 8 * FIGURES as u64 + s.error.as_ref().map_or(1, |e| 9 + e.len() as u64)
            }
            Body::Name { .. } => 16,
            Body::Node(g) => {
                8 + 2
                    + g.choices
                        .iter()
                        .map(|(_, _, slots)| 24 + 36 * slots.len() as u64)
                        .sum::<u64>()
            }
            Body::Solved { .. } => 4 + 24,
            Body::Outcomes(bounds) => 8 + 24 * bounds.len() as u64,
        }
    }
}

/// One worker's end of the rounds.
pub(crate) struct Rounds {
    input: InputHandle<u64, CapacityContainerBuilder<Vec<Msg>>>,
    probe: ProbeHandle<u64>,
    /// Messages delivered, with their round; a fast worker's next round can arrive before
    /// this one is complete.
    inbox: Rc<RefCell<Vec<(u64, Msg)>>>,
    /// This worker.
    pub index: u32,
    /// How many workers there are.
    pub peers: u32,
    /// Rounds run so far.
    pub rounds: u64,
    /// Messages sent to other workers (statuses not counted).
    pub messages: u64,
    /// Their bytes.
    pub bytes: u64,
}

impl Rounds {
    /// Builds the dataflow on `worker`.
    pub fn new(worker: &mut Worker) -> Rounds {
        let mut input = InputHandle::new();
        let probe = ProbeHandle::new();
        let inbox: Rc<RefCell<Vec<(u64, Msg)>>> = Rc::default();
        let sink = Rc::clone(&inbox);
        worker.dataflow(|scope| {
            scope
                .input_from(&mut input)
                .container::<Vec<Msg>>()
                .unary_frontier::<CapacityContainerBuilder<Vec<()>>, _, _, _>(
                    Exchange::new(|m: &Msg| m.to as u64),
                    "deliver",
                    move |_, _| {
                        move |(input, _), _output: &mut _| {
                            input.for_each(|time, data| {
                                let t = time.least().copied().unwrap_or(0);
                                sink.borrow_mut().extend(data.drain(..).map(|m| (t, m)));
                            });
                        }
                    },
                )
                .container::<Vec<()>>()
                .probe_with(&probe);
        });
        Rounds {
            input,
            probe,
            inbox,
            index: worker.index() as u32,
            peers: worker.peers() as u32,
            rounds: 0,
            messages: 0,
            bytes: 0,
        }
    }

    /// Sends `out` and this worker's `status`, and returns what the round brought this worker
    /// (in `out`, emptied first) and every worker's status, in worker order. `held` counts
    /// messages this worker keeps for itself to handle next round: they count as sent.
    pub fn round(
        &mut self,
        worker: &mut Worker,
        out: &mut Vec<Msg>,
        held: usize,
        mut status: Status,
    ) -> Vec<Status> {
        status.from = self.index;
        status.sent = (out.len() + held) as u64;
        for m in out.iter().filter(|m| m.to != self.index) {
            self.messages += 1;
            self.bytes += m.size();
        }
        for to in 0..self.peers {
            out.push(Msg {
                to,
                body: Body::Status(Box::new(status.clone())),
            });
        }
        for m in out.drain(..) {
            self.input.send(m);
        }
        out.shrink_to(KEPT_ROOM);
        self.rounds += 1;
        self.input.advance_to(self.rounds);
        while self.probe.less_than(self.input.time()) {
            worker.step_or_park(None);
        }
        let mut statuses = Vec::with_capacity(self.peers as usize);
        let mut inbox = self.inbox.borrow_mut();
        let now = self.rounds;
        inbox.retain_mut(|(t, m)| {
            if *t >= now {
                return true;
            }
            let m = std::mem::replace(&mut m.body, Body::Mark { link: 0 });
            match m {
                Body::Status(s) => statuses.push(*s),
                body => out.push(Msg {
                    to: self.index,
                    body,
                }),
            }
            false
        });
        // A burst of messages (a layer of the exploration, a guess for every state) leaves the
        // inbox as large as it was: give the room back, or it stays held for the rest of the run.
        let wanted = inbox.len() + KEPT_ROOM;
        if inbox.capacity() > 2 * wanted {
            inbox.shrink_to(wanted);
        }
        statuses.sort_by_key(|s| s.from);
        statuses
    }
}

/// The first error of a round's statuses.
pub(crate) fn first_error(statuses: &[Status]) -> Option<String> {
    statuses.iter().find_map(|s| s.error.clone())
}

/// The messages sent in a round by every worker together.
pub(crate) fn total_sent(statuses: &[Status]) -> u64 {
    statuses.iter().map(|s| s.sent).sum()
}
