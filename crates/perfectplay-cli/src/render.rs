//! The text and CSV renderers of the reports (JSON is the reports' own serialisation): one
//! function per report and format, each returning the whole text.

use std::fmt::Write;

use perfectplay::dynamic::{player_name, DistributionReport, Explained, Value};
use perfectplay::{BranchValue, NodeKind, Player};

/// A float as text, in the fewest digits that read back to it: in scientific notation when
/// tiny (a probability of 1e-300 is not three hundred zeros).
pub fn float_text(x: f64) -> String {
    if x != 0.0 && x.abs() < 1e-4 {
        format!("{x:e}")
    } else {
        x.to_string()
    }
}

/// A value as text: the float (see `float_text`), and ` = p/q` in exact mode.
pub fn show(v: &Value) -> String {
    let float = float_text(v.float);
    match &v.exact {
        Some(q) if *q != float => format!("{float} = {q}"),
        _ => float,
    }
}

/// Every move or outcome of a state with its value, loss and probability, as text.
pub fn explanation_text(e: &Explained) -> String {
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

/// The distribution of the total as CSV: `total,probability,cumulative` (and the exact
/// fractions in exact mode).
pub fn distribution_csv(d: &DistributionReport) -> String {
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
    out
}

/// The distribution of the total as text: value, mean, std, tail, quantiles and the table.
pub fn distribution_text(value: &Value, d: &DistributionReport) -> String {
    let mut out = String::new();
    writeln!(out, "value: {}", show(value)).expect("writing to a string");
    writeln!(out, "mean: {}", show(&d.mean)).expect("writing to a string");
    writeln!(out, "std: {}", d.std).expect("writing to a string");
    if d.tail.float == 0.0 && d.tail.exact.as_deref().is_none_or(|q| q == "0") {
        writeln!(out, "tail: 0 (every play was followed to its end)").expect("writing to a string");
    } else {
        writeln!(
            out,
            "tail: {} (probability of plays cut short in a cycle that can repeat for ever, \
                 after up to {} rounds of it; see --tail)",
            show(&d.tail),
            d.steps
        )
        .expect("writing to a string");
    }
    let qs: Vec<String> = DistributionReport::QUANTILES
        .iter()
        .map(|&q| {
            let t = d
                .quantile(q)
                .map_or("beyond the tail".to_string(), |t| t.to_string());
            format!("{}%: {t}", q * 100.0)
        })
        .collect();
    writeln!(out, "quantiles: {}", qs.join(", ")).expect("writing to a string");
    writeln!(
        out,
        "{:>12}  {:<24}  P(total <= t)",
        "total t", "probability"
    )
    .expect("writing to a string");
    for (t, p, c) in &d.pmf {
        writeln!(out, "{:>12}  {:<24}  {}", t.to_string(), show(p), show(c))
            .expect("writing to a string");
    }
    out
}

/// A CSV field, quoted when it holds a comma, a quote or a line break.
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}
