//! [`Hosted`]: a [`Solved`] kept on a thread of its own.

use super::{player_name, DistributionReport, Explained, Report, Solved, Value};
use crate::{DistributionOptions, Rat, Simulation, SolveError, StrategyRow};

/// A question put to a [`Hosted`] game, run on its thread.
type Job = Box<dyn FnOnce(&dyn Solved) + Send>;

/// A [`Solved`] that lives on a thread of its own: for a game whose model borrows data that
/// only that thread owns (a PRISM model's property is a model over the built state space), so
/// that a front end can still hold the answer as long as it likes and ask it from any thread.
/// Each query is sent to the thread and answered there, one at a time.
pub struct Hosted {
    jobs: std::sync::Mutex<std::sync::mpsc::Sender<Job>>,
    report: Report,
}

impl Hosted {
    /// Runs `solve` on a new thread. It builds what the game needs, solves it, and hands the
    /// result to the function it is given, which answers queries until the `Hosted` is
    /// dropped; an error before that is returned here.
    pub fn start<F>(solve: F) -> Result<Hosted, SolveError>
    where
        F: FnOnce(&mut dyn FnMut(&dyn Solved)) -> Result<(), SolveError> + Send + 'static,
    {
        let (ready_tx, ready_rx) = std::sync::mpsc::channel::<Result<Report, SolveError>>();
        let (job_tx, job_rx) = std::sync::mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("perfectplay-hosted".into())
            .spawn(move || {
                let ready = ready_tx.clone();
                let mut serve = |solved: &dyn Solved| {
                    let _ = ready.send(Ok(solved.report().clone()));
                    for job in job_rx.iter() {
                        job(solved);
                    }
                };
                if let Err(e) = solve(&mut serve) {
                    let _ = ready_tx.send(Err(e));
                }
            })
            .map_err(|e| SolveError::Unsupported(format!("cannot start a thread: {e}")))?;
        let report = ready_rx.recv().map_err(|_| gone())??;
        Ok(Hosted {
            jobs: std::sync::Mutex::new(job_tx),
            report,
        })
    }

    /// Runs `ask` on the game's thread and returns its answer.
    fn ask<T: Send + 'static>(
        &self,
        ask: impl FnOnce(&dyn Solved) -> T + Send + 'static,
    ) -> Result<T, SolveError> {
        let (tx, rx) = std::sync::mpsc::channel();
        let job: Job = Box::new(move |solved| {
            let _ = tx.send(ask(solved));
        });
        self.jobs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .send(job)
            .map_err(|_| gone())?;
        rx.recv().map_err(|_| gone())
    }
}

/// The error of a query whose game's thread has ended (a panic in the game's code).
fn gone() -> SolveError {
    SolveError::Unsupported("the thread that holds the solved game has stopped".into())
}

impl Solved for Hosted {
    fn report(&self) -> &Report {
        &self.report
    }

    fn states(&self) -> usize {
        self.ask(|s| s.states()).unwrap_or(0)
    }

    fn find(&self, text: &str) -> Result<usize, SolveError> {
        let text = text.to_string();
        self.ask(move |s| s.find(&text))?
    }

    fn explain(&self, id: usize) -> Result<Explained, SolveError> {
        self.ask(move |s| s.explain(id))?
    }

    fn strategy_rows(
        &self,
    ) -> Box<dyn Iterator<Item = Result<StrategyRow<Value>, SolveError>> + '_> {
        match self.ask(|s| s.strategy_rows().collect::<Vec<_>>()) {
            Ok(rows) => Box::new(rows.into_iter()),
            Err(e) => Box::new(std::iter::once(Err(e))),
        }
    }

    fn distribution_from(
        &self,
        id: usize,
        options: &DistributionOptions,
    ) -> Result<DistributionReport, SolveError> {
        let options = options.clone();
        self.ask(move |s| s.distribution_from(id, &options))?
    }

    fn simulate_watched(
        &self,
        games: usize,
        seed: u64,
        played: &mut dyn FnMut(usize) -> std::ops::ControlFlow<()>,
    ) -> Result<Simulation, SolveError> {
        let result = self.ask(move |s| s.simulate(games, seed))?;
        let _ = played(games);
        result
    }

    fn player_label(&self, player: crate::Player) -> String {
        self.ask(move |s| s.player_label(player))
            .unwrap_or_else(|_| player_name(player).to_string())
    }

    fn total_name(&self) -> String {
        self.ask(|s| s.total_name())
            .unwrap_or_else(|_| "total".to_string())
    }

    fn show_end(&self, id: usize, total: Rat) -> Option<String> {
        self.ask(move |s| s.show_end(id, total)).ok().flatten()
    }
}
