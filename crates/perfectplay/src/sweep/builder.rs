//! The sweep's own [`NodeBuilder`], which backs a state up as the model names its branches.

use super::values::Values;
use super::Fail;
use crate::model::{Model, NodeBuilder, NodeKind, Player, Shape};
use crate::{Number, Rat};

/// The sweep's own [`NodeBuilder`]: backs a state up from its successors' values as the
/// model describes it, storing no branch, by the same operations in the same order as
/// [`crate::backup::back_up_by`] (so the value is the same, bit for bit).
///
/// Anything out of the ordinary (a node the quick check of [`Shape`] does not show valid, a
/// successor without a number or not solved yet) makes it give up, and the state is solved
/// again from a recorded [`crate::model::Node`], which names the fault; so does a parallel sweep that
/// stopped while it waited.
pub(super) struct Backup<'a, M: Model, N, V, const INNER: bool> {
    model: &'a M,
    table: &'a mut V,
    bound: usize,
    shape: Shape,
    /// A terminal's payoff, or the best move of a decision so far.
    best: Option<N>,
    /// The sum of a chance node's outcomes, or of the open random move's.
    sum: N,
    /// The value of the open random move's first outcome (the move's value if it has one).
    first: Option<N>,
    /// The open random move's outcomes so far.
    outcomes: u32,
    /// The open random move's reward, unless zero.
    move_reward: Option<N>,
    /// Why the builder gave up, if it did.
    hitch: Option<Hitch>,
    /// The transient states solved inside this one, and how many of them are not terminal.
    pub(super) states: usize,
    pub(super) components: usize,
}

/// Another thread of a parallel sweep failed (what [`Backup`] reports instead of a value).
pub(super) struct Stopped;

impl From<Stopped> for Fail {
    fn from(_: Stopped) -> Self {
        Fail::Stopped
    }
}

/// Why [`Backup`] gave up.
enum Hitch {
    /// Solve the state again from a recorded node.
    Redo,
    /// Another thread of a parallel sweep failed.
    Stopped,
}

impl<M: Model, N: Number, V: Values<N>, const INNER: bool> Backup<'_, M, N, V, INNER> {
    #[inline(always)]
    pub(super) fn new<'a>(
        model: &'a M,
        table: &'a mut V,
        bound: usize,
    ) -> Backup<'a, M, N, V, INNER> {
        Backup {
            model,
            table,
            bound,
            shape: Shape::FRESH,
            best: None,
            sum: N::zero(),
            first: None,
            outcomes: 0,
            move_reward: None,
            hitch: None,
            states: 0,
            components: 0,
        }
    }

    /// `reward` plus the value of `next`, or `None` after giving up.
    #[inline(always)]
    fn successor(&mut self, reward: N, next: &M::State) -> Option<N> {
        if self.hitch.is_some() {
            return None;
        }
        if self.model.transient(next) {
            return self.inside(reward, next);
        }
        let number = self.model.dense_index(next).filter(|&at| at < self.bound);
        let at = self.unless_hitch(Ok(number))?;
        let ready = self.table.ready(at);
        let ready = ready.map(|ready| ready.then_some(())).map_err(|_| Stopped);
        self.unless_hitch(ready)?;
        Some(self.table.plus_value(&reward, at))
    }

    /// `reward` plus the value of the transient state `next`, solved here by [`inside`]. A
    /// transient state inside a transient state is left to the recorded node (which solves
    /// any depth).
    #[inline(always)]
    fn inside(&mut self, reward: N, next: &M::State) -> Option<N> {
        if INNER {
            return self.unless_hitch(Ok(None));
        }
        let solved = inside(self.model, &mut *self.table, self.bound, next);
        let (value, decided) = self.unless_hitch(solved)?;
        self.states += 1;
        self.components += decided as usize;
        Some(reward.add(&value))
    }

    /// What `outcome` holds, if anything; otherwise the builder gives up: nothing
    /// (`Ok(None)`) means the state is solved again from a recorded node, an error that
    /// another thread failed.
    #[inline(always)]
    fn unless_hitch<T>(&mut self, outcome: Result<Option<T>, Stopped>) -> Option<T> {
        match outcome {
            Ok(Some(t)) => Some(t),
            Ok(None) => {
                self.hitch = Some(Hitch::Redo);
                None
            }
            Err(_) => {
                self.hitch = Some(Hitch::Stopped);
                None
            }
        }
    }

    /// Counts a move's value at a decision.
    #[inline(always)]
    fn consider(&mut self, v: N) {
        if let NodeKind::Decision(player) = self.shape.kind() {
            crate::backup::consider(player, &mut self.best, v);
        }
    }

    /// Ends the open random move, if any, counting its value.
    #[inline(always)]
    fn close_move(&mut self) {
        if self.outcomes == 0 {
            return;
        }
        let v = match self.outcomes {
            // One outcome (of probability one) is worth its value, as in `back_up_by`.
            1 => self.first.take(),
            _ => Some(std::mem::replace(&mut self.sum, N::zero())),
        };
        self.outcomes = 0;
        self.sum = N::zero();
        if let Some(v) = v {
            self.consider(v);
        }
    }

    /// The state's value, and whether it counts as a component (it is not terminal); `None`
    /// to solve it again from a recorded node.
    #[inline(always)]
    pub(super) fn finish(mut self) -> Result<Option<(N, bool)>, Stopped> {
        match self.hitch {
            Some(Hitch::Stopped) => return Err(Stopped),
            Some(Hitch::Redo) => return Ok(None),
            None if !self.shape.is_plainly_valid() => return Ok(None),
            None => {}
        }
        Ok(match self.shape.kind() {
            NodeKind::Terminal => self.best.map(|v| (v, false)),
            NodeKind::Chance => Some((self.sum, true)),
            _ => {
                self.close_move();
                self.best.map(|v| (v, true))
            }
        })
    }
}

/// The value of the transient state `state`, and whether it is not terminal; `None` to solve
/// the state that reaches it from a recorded node. Not inlined, and given only the table, so
/// that the builder of the state that reaches it stays in registers; the model's `expand` for
/// the inner builder has this one caller, and is inlined here. The result is small enough to
/// come back in registers.
#[inline(never)]
fn inside<M: Model, N: Number, V: Values<N>>(
    model: &M,
    table: &mut V,
    bound: usize,
    state: &M::State,
) -> Result<Option<(N, bool)>, Stopped> {
    let mut inner = Backup::<M, N, V, true>::new(model, table, bound);
    model.expand(state, &mut inner);
    inner.finish()
}

impl<M: Model, N, V, const INNER: bool> crate::model::sealed::Sealed
    for Backup<'_, M, N, V, INNER>
{
}

impl<M: Model, N: Number, V: Values<N>, const INNER: bool> NodeBuilder<M::State, M::Move>
    for Backup<'_, M, N, V, INNER>
{
    #[inline(always)]
    fn terminal(&mut self, payoff: impl Into<Rat>) {
        self.shape.terminal();
        self.best = Some(N::from_rat(payoff.into()));
    }

    #[inline(always)]
    fn decision(&mut self, player: Player) {
        self.shape.decision(player);
    }

    /// Left to the recorded node, which names the reason.
    fn fail(&mut self, _reason: impl Into<String>) {
        self.shape.fail();
    }

    #[inline(always)]
    fn chance(&mut self) {
        self.shape.chance();
    }

    #[inline(always)]
    fn add_move(&mut self, _mv: M::Move, reward: impl Into<Rat>, next: M::State) {
        self.close_move();
        self.shape.add_move();
        if let Some(v) = self.successor(N::from_rat(reward.into()), &next) {
            self.consider(v);
        }
    }

    #[inline(always)]
    fn add_random_move(&mut self, _mv: M::Move, reward: impl Into<Rat>) {
        self.close_move();
        self.shape.add_random_move();
        let reward = reward.into();
        self.move_reward = (!reward.is_zero()).then(|| N::from_rat(reward));
    }

    #[inline(always)]
    fn add_outcome(
        &mut self,
        _label: M::Move,
        probability: Rat,
        reward: impl Into<Rat>,
        next: M::State,
    ) {
        self.shape.add_outcome(probability);
        let mut reward = N::from_rat(reward.into());
        if let Some(r) = &self.move_reward {
            reward = reward.add(r);
        }
        let Some(q) = self.successor(reward, &next) else {
            return;
        };
        let decision = matches!(self.shape.kind(), NodeKind::Decision(_));
        if decision && self.outcomes == 0 {
            self.first = Some(q.clone());
        }
        self.outcomes += decision as u32;
        self.sum.add_mul(&N::from_rat(probability), &q);
    }
}
