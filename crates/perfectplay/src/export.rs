//! The texts front ends hand to users, written once for all of them: the JSON line of a report
//! (as `--json` prints it and the web explorer's API answers), and the strategy as a JSON or
//! CSV document (as `strategy --out` writes it and the explorer offers it for download).

use std::collections::BTreeMap;
use std::io::Write;

use serde::Serialize;

use crate::dynamic::{DistributionReport, Solved, Value};
use crate::SolveError;

/// `value` as one line of JSON whose strings hold no control character raw: JSON escapes
/// those below 0x20 itself; DEL and the C1 controls (which some terminals act on) are written
/// `\u007f` and the like here, as JSON allows.
pub fn json_line(value: &impl Serialize) -> String {
    let text = serde_json::to_string(value).expect("reports serialise");
    if !text.chars().any(char::is_control) {
        return text;
    }
    text.chars()
        .map(|c| match c.is_control() {
            true => format!("\\u{:04x}", c as u32),
            false => c.to_string(),
        })
        .collect()
}

/// A CSV field: quoted (with quotes doubled) where it holds a comma, a quote or a line break.
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The distribution of the total as `distribution --json` prints it: the `value` (and
/// `value_exact`) of the state the play starts from first, then the fields of
/// [`DistributionReport`].
pub fn distribution_json(value: &Value, distribution: &DistributionReport) -> String {
    #[derive(Serialize)]
    struct WithValue<'a> {
        value: f64,
        #[serde(skip_serializing_if = "Option::is_none")]
        value_exact: Option<&'a String>,
        #[serde(flatten)]
        distribution: &'a DistributionReport,
    }
    json_line(&WithValue {
        value: value.float,
        value_exact: value.exact.as_ref(),
        distribution,
    })
}

/// The two formats of a strategy file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StrategyFormat {
    /// One document: `{"game", "params", "states": [rows], "value", "value_exact"}`.
    Json,
    /// A header `state,value,value_exact,optimal,chosen`, then a line per decision state.
    Csv,
}

/// Why a strategy could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The solved game failed to give a row (a turn too large to solve again, say).
    #[error(transparent)]
    Solve(#[from] SolveError),
    /// The writer failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// Writes every decision state of `solved` with its value and optimal moves, a row at a time
/// (a strategy of millions of states is never held whole); the JSON names the game (or model
/// file) and its parameters. Returns the number of rows.
pub fn write_strategy(
    solved: &dyn Solved,
    game: &str,
    params: &BTreeMap<&str, &str>,
    format: StrategyFormat,
    w: &mut dyn Write,
) -> Result<usize, ExportError> {
    let mut count = 0usize;
    match format {
        StrategyFormat::Json => {
            write!(
                w,
                "{{\"game\":{},\"params\":{},\"states\":[",
                json_line(&game),
                json_line(params)
            )?;
            for r in solved.strategy_rows() {
                let comma = if count > 0 { "," } else { "" };
                write!(w, "{comma}{}", json_line(&r?))?;
                count += 1;
            }
            writeln!(
                w,
                "],\"value\":{},\"value_exact\":{}}}",
                json_line(&solved.report().value),
                json_line(&solved.report().exact)
            )?;
        }
        StrategyFormat::Csv => {
            writeln!(w, "state,value,value_exact,optimal,chosen")?;
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
                )?;
                count += 1;
            }
        }
    }
    w.flush()?;
    Ok(count)
}
