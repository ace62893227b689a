//! Constants given as ranges, PRISM's experiments: `--const K=1:4` (1, 2, 3, 4) or
//! `--const p=0:0.25:1` (from 0 to 1 in steps of a quarter); `check` answers each property for
//! every combination of the values.

use anyhow::{bail, Result};

/// At most so many combinations: each is a build and a check of its own.
pub const MAX_RUNS: usize = 100_000;

/// A plain decimal `text` (`3`, `-0.25`) as `(digits, places)`: the number is
/// `digits / 10^places`; `None` for anything else.
fn decimal(text: &str) -> Option<(i128, u32)> {
    let t = text.trim();
    let (int, frac) = t.split_once('.').unwrap_or((t, ""));
    let plain = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let unsigned = int.strip_prefix('-').unwrap_or(int);
    if !plain(unsigned) || !plain(frac) || (unsigned.is_empty() && frac.is_empty()) {
        return None;
    }
    if frac.len() > 18 {
        return None;
    }
    let digits: i128 = format!("{int}{frac}").parse().ok()?;
    Some((digits, frac.len() as u32))
}

fn gcd(a: i128, b: i128) -> i128 {
    match b {
        0 => a.abs(),
        _ => gcd(b, a % b),
    }
}

/// A plain number `text`, a decimal (`-0.25`) or a fraction of two (`1/3`), as the exact
/// fraction `(numerator, denominator)` in lowest terms; `None` for anything else.
fn fraction(text: &str) -> Option<(i128, i128)> {
    let (n, d) = match text.split_once('/') {
        Some((a, b)) => {
            let ((a, pa), (b, pb)) = (decimal(a)?, decimal(b)?);
            (
                a.checked_mul(10i128.pow(pb))?,
                b.checked_mul(10i128.pow(pa))?,
            )
        }
        None => {
            let (a, p) = decimal(text)?;
            (a, 10i128.pow(p))
        }
    };
    if d == 0 {
        return None;
    }
    let g = gcd(n, d) * d.signum();
    Some((n / g, d / g))
}

/// The fraction `n / d` (lowest terms, `d > 0`) written out: a decimal where it has one of
/// at most 18 places (`0.25`, `-3`), else `n/d` (`1/3`), which constants take exactly.
fn written(n: i128, d: i128) -> String {
    let places = (0..=18u32).find(|&p| 10i128.pow(p) % d == 0);
    let Some(places) = places else {
        return format!("{n}/{d}");
    };
    let digits = n * (10i128.pow(places) / d);
    if places == 0 {
        return digits.to_string();
    }
    let scale = 10i128.pow(places);
    let sign = if digits < 0 { "-" } else { "" };
    let (int, frac) = (digits.abs() / scale, digits.abs() % scale);
    format!("{sign}{int}.{frac:0width$}", width = places as usize)
}

/// The values a constant's text stands for: those of a range `a:b` or `a:step:b`, or the
/// text itself where it is no range (an expression, checked later as any value is). The
/// numbers are decimals or fractions (`0:1/3:1`), stepped exactly.
pub fn values(name: &str, text: &str) -> Result<Vec<String>> {
    let parts: Vec<&str> = text.split(':').collect();
    if !(2..=3).contains(&parts.len()) || text.contains('?') {
        return Ok(vec![text.to_string()]);
    }
    let Some(numbers) = parts
        .iter()
        .map(|p| fraction(p))
        .collect::<Option<Vec<_>>>()
    else {
        bail!(
            "--const {name}={text}: a range is two or three plain numbers or fractions, \
             from:to or from:step:to (1:4, 0:0.25:1, 0:1/3:1)"
        );
    };
    // Over a common denominator, exactly: 0.1 + 0.2 is 0.3 here.
    let too_fine = || anyhow::anyhow!("--const {name}={text}: the numbers are too fine to step");
    let mut den: i128 = 1;
    for &(_, d) in &numbers {
        den = (den / gcd(den, d)).checked_mul(d).ok_or_else(too_fine)?;
    }
    let scaled = numbers
        .iter()
        .map(|&(n, d)| n.checked_mul(den / d))
        .collect::<Option<Vec<i128>>>()
        .ok_or_else(too_fine)?;
    let (from, to) = (scaled[0], scaled[scaled.len() - 1]);
    let step = if scaled.len() == 3 { scaled[1] } else { den };
    if step <= 0 {
        bail!("--const {name}={text}: the step must be positive");
    }
    if to < from {
        bail!("--const {name}={text}: the range ends before it starts");
    }
    let count = (to - from) / step + 1;
    if count > MAX_RUNS as i128 {
        bail!("--const {name}={text}: more than {MAX_RUNS} values");
    }
    Ok((0..count)
        .map(|i| {
            let v = from + i * step;
            let g = gcd(v, den).max(1);
            written(v / g, den / g)
        })
        .collect())
}

/// Every combination of the constants' values (`values` of each), the first constant's
/// changing slowest, as PRISM lists its experiments.
pub fn combinations(constants: &[(String, String)]) -> Result<Vec<Vec<(String, String)>>> {
    let mut runs: Vec<Vec<(String, String)>> = vec![Vec::new()];
    for (name, text) in constants {
        let values = values(name, text)?;
        if runs.len().saturating_mul(values.len()) > MAX_RUNS {
            bail!("--const: more than {MAX_RUNS} combinations of the ranges' values");
        }
        runs = runs
            .iter()
            .flat_map(|run| {
                values.iter().map(move |v| {
                    let mut run = run.clone();
                    run.push((name.clone(), v.clone()));
                    run
                })
            })
            .collect();
    }
    Ok(runs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_list_their_values_exactly() {
        assert_eq!(values("K", "1:4").unwrap(), ["1", "2", "3", "4"]);
        assert_eq!(values("K", "2:3:9").unwrap(), ["2", "5", "8"]);
        assert_eq!(
            values("p", "0.1:0.1:0.5").unwrap(),
            ["0.1", "0.2", "0.3", "0.4", "0.5"]
        );
        assert_eq!(values("p", "-1:0.5:0").unwrap(), ["-1", "-0.5", "0"]);
        assert_eq!(values("K", "3:3").unwrap(), ["3"]);
        // Fractions step exactly and are written as fractions where no decimal ends.
        assert_eq!(values("p", "0:1/3:1").unwrap(), ["0", "1/3", "2/3", "1"]);
        assert_eq!(
            values("p", "1/4:1/4:1").unwrap(),
            ["0.25", "0.5", "0.75", "1"]
        );
        assert_eq!(
            values("p", "-1/2:1/6:0").unwrap(),
            ["-0.5", "-1/3", "-1/6", "0"]
        );
        // No range: the text itself, an expression checked later.
        assert_eq!(values("K", "2*3").unwrap(), ["2*3"]);
        assert_eq!(values("K", "b ? 1 : 2").unwrap(), ["b ? 1 : 2"]);
        for (bad, says) in [
            ("1:x", "plain numbers"),
            ("0:1/0:1", "plain numbers"),
            ("1:0:3", "step must be positive"),
            ("4:1", "ends before it starts"),
            ("0:1000000", "more than 100000 values"),
        ] {
            let e = values("K", bad).unwrap_err().to_string();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    #[test]
    fn every_combination_is_a_run() {
        let given = [
            ("A".to_string(), "1:2".to_string()),
            ("B".into(), "x:y".into()),
        ];
        assert!(combinations(&given).is_err());
        let given = [
            ("A".to_string(), "1:2".to_string()),
            ("B".into(), "true".into()),
            ("C".into(), "0:0.5:1".into()),
        ];
        let runs = combinations(&given).unwrap();
        let shown: Vec<String> = runs
            .iter()
            .map(|r| {
                r.iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .collect();
        assert_eq!(
            shown,
            [
                "A=1,B=true,C=0",
                "A=1,B=true,C=0.5",
                "A=1,B=true,C=1",
                "A=2,B=true,C=0",
                "A=2,B=true,C=0.5",
                "A=2,B=true,C=1"
            ]
        );
        let huge = [
            ("A".to_string(), "1:1000".to_string()),
            ("B".into(), "1:1000".into()),
        ];
        assert!(combinations(&huge)
            .unwrap_err()
            .to_string()
            .contains("combinations"));
    }
}
