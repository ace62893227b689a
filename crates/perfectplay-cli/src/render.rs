//! The text and CSV renderers of the reports (JSON is the reports' own serialisation): one
//! function per report and format, each returning the whole text.

use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use clap::{Arg, ArgMatches};

use perfectplay::dynamic::{player_name, DistributionReport, Explained, Value};
use perfectplay::{BranchValue, NodeKind, Player};

/// Significant digits of the decimals in text output, unless `--digits` says otherwise: a float
/// solve is exact up to rounding in its last few bits, so twelve digits say what is known
/// (`4.7`, not `4.699999999999999`). JSON keeps every digit.
pub const DEFAULT_DIGITS: usize = 12;

/// A fraction longer than this many characters is shortened in text output unless
/// `--digits all` asks for every digit.
pub const LONG_FRACTION: usize = 60;

/// `--digits`: `Some(n)` significant digits, `None` for every digit.
static DIGITS: OnceLock<Option<usize>> = OnceLock::new();

/// The `--digits` option's definition.
pub fn digits_arg() -> Arg {
    Arg::new("digits")
        .long("digits")
        .value_name("N|all")
        .value_parser(|s: &str| -> Result<Option<usize>, String> {
            match s {
                "all" => Ok(None),
                _ => match s.parse::<usize>() {
                    Ok(n) if (1..=17).contains(&n) => Ok(Some(n)),
                    _ => Err("give a number of significant digits from 1 to 17, or 'all'".into()),
                },
            }
        })
        .help(
            "Significant digits of decimals in text output (default 12, fewer where the solve's \
             certified error bound leaves fewer known; JSON keeps every digit and the bound); \
             'all' prints every digit of decimals and of long fractions",
        )
}

/// Takes `--digits` from the command's options, if it has one.
pub fn configure(m: &ArgMatches) {
    if let Ok(Some(d)) = m.try_get_one::<Option<usize>>("digits") {
        let _ = DIGITS.set(*d);
    }
}

fn digits() -> Option<usize> {
    *DIGITS.get().unwrap_or(&Some(DEFAULT_DIGITS))
}

/// The solve's bound on the absolute error of its values, as `f64` bits (zero: exact up to
/// float rounding).
static ERROR_BOUND: AtomicU64 = AtomicU64::new(0);

/// Tells the renderers the solve's error bound ([`perfectplay::Stats::error_bound`]): unless
/// `--digits` is given, no float is printed with more digits than the bound leaves known.
pub fn know_error_bound(bound: f64) {
    if bound.is_finite() && bound > 0.0 {
        ERROR_BOUND.store(bound.to_bits(), Ordering::Relaxed);
    }
}

/// The significant digits to print `x` with: `--digits` when given; otherwise the default,
/// cut to the digits the error bound leaves known (at least one). `None`: every digit.
fn digits_for(x: f64) -> Option<usize> {
    let bound = f64::from_bits(ERROR_BOUND.load(Ordering::Relaxed));
    match DIGITS.get() {
        Some(asked) => *asked,
        None if bound > 0.0 && x.is_finite() && x != 0.0 => {
            let known = (x.abs() / bound).log10().floor();
            Some((known.max(1.0) as usize).min(DEFAULT_DIGITS))
        }
        None => Some(DEFAULT_DIGITS),
    }
}

/// A float as text, rounded to the significant digits of `--digits` (by default those the
/// solve's error bound leaves known, at most [`DEFAULT_DIGITS`]) and then in the fewest digits
/// that read back to that: in scientific notation when tiny or huge (a probability of 1e-300
/// is not three hundred zeros).
pub fn float_text(x: f64) -> String {
    significant_text(x, digits_for(x))
}

/// `x` rounded to `digits` significant digits (`None`: all), in the fewest digits that read
/// back to that, in scientific notation when tiny or huge.
pub fn significant_text(x: f64, digits: Option<usize>) -> String {
    let x = match digits {
        Some(d) if x.is_finite() && x != 0.0 => format!("{:.*e}", d - 1, x).parse().unwrap_or(x),
        _ => x,
    };
    if x != 0.0 && (x.abs() < 1e-4 || x.abs() >= 1e21) && x.is_finite() {
        format!("{x:e}")
    } else {
        x.to_string()
    }
}

/// A value known to within `bound` (absolute) as text: its known digits and the bound,
/// `0.12345679 (± 3.0e-9)`; where the bound is as large as the value, no digit of it is known,
/// and the text says what is: `≤ 4.0e-35` (or `≥ -4.0e-35` below zero). Without a bound, the
/// value as [`float_text`] prints it; with a bound that leaves all [`DEFAULT_DIGITS`] known (a
/// float solve's rounding, usually), the value to that many digits, without the bound.
pub fn bounded_text(x: f64, bound: f64) -> String {
    if bound.is_nan() || bound <= 0.0 || !x.is_finite() {
        return float_text(x);
    }
    if bound.is_infinite() {
        // A float solve whose rounding could not be bounded (a pivot lost in its own doubt).
        return format!("{} (error not bounded)", float_text(x));
    }
    let up = |b: f64| {
        // Rounded up to two significant digits: never below what is certain. A subnormal
        // bound is scaled up first, as its digit's power of ten is below the floats.
        let shift = if b < 1e-290 { 300 } else { 0 };
        let b = b * 10f64.powi(shift);
        let e = b.log10().floor() - 1.0;
        let step = 10f64.powf(e);
        let text = format!("{:.1e}", (b / step).ceil() * step);
        match text.split_once('e') {
            Some((digits, exp)) if shift > 0 => {
                format!("{digits}e{}", exp.parse::<i32>().unwrap_or(0) - shift)
            }
            _ => text,
        }
    };
    if x.abs() <= bound {
        return match x >= 0.0 {
            true => format!("≤ {}", up(x + bound)),
            false => format!("≥ -{}", up(bound - x)),
        };
    }
    let known = (x.abs() / bound).log10().floor().max(1.0) as usize;
    let digits = match DIGITS.get() {
        // Every digit shown is known: the bound (rounding, usually) changes nothing.
        Some(Some(asked)) if known >= *asked => return significant_text(x, Some(*asked)),
        Some(asked) => *asked,
        None if known >= DEFAULT_DIGITS => return significant_text(x, Some(DEFAULT_DIGITS)),
        None => Some(known),
    };
    format!("{} (± {})", significant_text(x, digits), up(bound))
}

/// A confidence interval as text: both ends to two significant digits of its width (more
/// would be noise), in the fewest digits that read back to them.
pub fn interval_text(lo: f64, hi: f64) -> (String, String) {
    let width = hi - lo;
    if !(width > 0.0 && width.is_finite()) {
        return (float_text(lo), float_text(hi));
    }
    let decimals = (1.0 - width.log10().floor()).clamp(0.0, 17.0) as usize;
    let round = |x: f64| -> String {
        let t = format!("{x:.decimals$}");
        match t.parse::<f64>() {
            Ok(v) if v != 0.0 && v.abs() < 1e-4 => format!("{v:e}"),
            Ok(v) => v.to_string(),
            Err(_) => t,
        }
    };
    (round(lo), round(hi))
}

/// A fraction as text: whole, or (beyond [`LONG_FRACTION`] characters, unless `--digits all`)
/// its leading digits and the lengths of numerator and denominator.
pub fn fraction_text(q: &str) -> String {
    if digits().is_none() || q.len() <= LONG_FRACTION {
        return q.to_string();
    }
    let (n, d) = q.split_once('/').unwrap_or((q, "1"));
    let lead = |s: &str| -> String { s.chars().take(12).collect() };
    let count = |s: &str| s.trim_start_matches('-').len();
    format!(
        "{}…/{}… ({} and {} digits; --digits all prints them)",
        lead(n),
        lead(d),
        count(n),
        count(d)
    )
}

/// A value as text: the float (see `float_text`), and ` = p/q` in exact mode.
pub fn show(v: &Value) -> String {
    show_as(v, float_text(v.float))
}

/// A probability of a distribution as text: to the `--digits` asked (twelve by default). The
/// solve's error bound is a bound on values, not on these.
fn show_probability(v: &Value) -> String {
    show_as(v, probability_text(v.float))
}

/// A probability of a distribution as a float (see [`show_probability`]).
fn probability_text(x: f64) -> String {
    significant_text(x, digits())
}

/// `v` as `float`, and ` = p/q` in exact mode.
fn show_as(v: &Value, float: String) -> String {
    match &v.exact {
        Some(q) if *q != float => format!("{float} = {}", fraction_text(q)),
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
            probability_text(p.float),
            probability_text(c.float)
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
    writeln!(out, "std: {}", float_text(d.std)).expect("writing to a string");
    if d.tail.float == 0.0 && d.tail.exact.as_deref().is_none_or(|q| q == "0") {
        writeln!(out, "tail: 0 (every play was followed to its end)").expect("writing to a string");
    } else {
        writeln!(
            out,
            "tail: {} (probability of plays cut short in a cycle that can repeat for ever, \
                 after up to {} rounds of it; see --tail)",
            show_probability(&d.tail),
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
        let (p, c) = (show_probability(p), show_probability(c));
        writeln!(out, "{:>12}  {:<24}  {}", t.to_string(), p, c).expect("writing to a string");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An interval shows two digits of its width.
    #[test]
    fn intervals_show_two_digits_of_their_width() {
        let (lo, hi) = interval_text(0.527582030342, 0.531956826077);
        assert_eq!((lo.as_str(), hi.as_str()), ("0.5276", "0.532"));
        let (lo, hi) = interval_text(4699.864496, 4729.075504);
        assert_eq!((lo.as_str(), hi.as_str()), ("4700", "4729"));
    }

    /// Without `--digits`, a value known to within `bound` shows only its known digits.
    #[test]
    fn the_error_bound_cuts_the_digits() {
        assert_eq!(float_text(4.699999999999999), "4.7");
        know_error_bound(3e-9);
        // 0.123456789012 ± 3e-9: seven digits are known.
        assert_eq!(float_text(0.123456789012), "0.1234568");
        // 2451.00000017 ± 3e-9: eleven.
        assert_eq!(float_text(2451.000000173), "2451.0000002");
        // A value below the bound keeps one digit.
        assert_eq!(float_text(1.234e-10), "1e-10");
    }

    /// A value shows the digits its own bound leaves known, and no digit where the bound is
    /// as large as the value.
    #[test]
    fn a_bounded_value_shows_what_is_known() {
        assert_eq!(
            bounded_text(8.3977682056e-53, 3.9e-35),
            "≤ 3.9e-35",
            "a value below its bound"
        );
        assert_eq!(bounded_text(-1e-40, 3.9e-35), "≥ -4.0e-35");
        // Among the subnormals too.
        assert_eq!(bounded_text(1.5e-323, 2e-323), "≤ 3.5e-323");
        assert_eq!(bounded_text(0.123456789012, 3e-9), "0.1234568 (± 3.0e-9)");
        assert_eq!(bounded_text(0.5, 0.0), "0.5");
        assert_eq!(bounded_text(0.5, f64::INFINITY), "0.5 (error not bounded)");
        // Rounding far below the digits shown is not worth a word.
        assert_eq!(bounded_text(1.0 / 3.0, 5e-16), "0.333333333333");
        assert_eq!(
            bounded_text(2016.6207229777658, 2.6e-9),
            "2016.620723 (± 2.6e-9)"
        );
        // The bound is rounded up, never down.
        assert_eq!(bounded_text(12.5, 1.01e-6), "12.5 (± 1.1e-6)");
    }
}
