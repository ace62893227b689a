//! What the tests of the solve across processes share: loopback addresses for a run, and the
//! exact value of a game from the one-process engine.

use perfectplay::dynamic::{DynModel, SolveOptions};

/// Free loopback addresses for `n` processes.
pub fn hosts(n: usize) -> Vec<String> {
    let listeners: Vec<_> = (0..n)
        .map(|_| std::net::TcpListener::bind("127.0.0.1:0").unwrap())
        .collect();
    listeners
        .iter()
        .map(|l| format!("127.0.0.1:{}", l.local_addr().unwrap().port()))
        .collect()
}

/// The exact value of a game solved in one process, as a float within three units of
/// round-off of it (numerator and denominator each rounded once, then their quotient), or
/// `None` where the engine finds no value (a cycle that never ends, say).
pub fn exact(model: &dyn DynModel) -> Option<f64> {
    let report = model
        .solve_report(SolveOptions {
            exact: true,
            ..SolveOptions::default()
        })
        .ok()?;
    let text = report.exact?;
    let (p, q) = text.split_once('/').unwrap_or((&text, "1"));
    Some(p.parse::<f64>().ok()? / q.parse::<f64>().ok()?)
}
