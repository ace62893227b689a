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

/// `digits / 10^places` written out (`0.25`, `-3`), as `decimal` reads it.
fn written(digits: i128, places: u32) -> String {
    if places == 0 {
        return digits.to_string();
    }
    let scale = 10i128.pow(places);
    let sign = if digits < 0 { "-" } else { "" };
    let (int, frac) = (digits.abs() / scale, digits.abs() % scale);
    let frac = format!("{frac:0width$}", width = places as usize);
    let frac = frac.trim_end_matches('0');
    match frac.is_empty() {
        true => format!("{sign}{int}"),
        false => format!("{sign}{int}.{frac}"),
    }
}

/// The values a constant's text stands for: those of a range `a:b` or `a:step:b`, or the
/// text itself where it is no range (an expression, checked later as any value is).
pub fn values(name: &str, text: &str) -> Result<Vec<String>> {
    let parts: Vec<&str> = text.split(':').collect();
    if !(2..=3).contains(&parts.len()) || text.contains('?') {
        return Ok(vec![text.to_string()]);
    }
    let Some(numbers) = parts.iter().map(|p| decimal(p)).collect::<Option<Vec<_>>>() else {
        bail!(
            "--const {name}={text}: a range is two or three plain numbers, \
             from:to or from:step:to (1:4, 0:0.25:1)"
        );
    };
    // On a common scale, exactly: 0.1 + 0.2 is 0.3 here.
    let places = numbers.iter().map(|&(_, p)| p).max().unwrap_or(0);
    let scaled: Vec<i128> = numbers
        .iter()
        .map(|&(d, p)| d * 10i128.pow(places - p))
        .collect();
    let (from, to) = (scaled[0], scaled[scaled.len() - 1]);
    let step = if scaled.len() == 3 {
        scaled[1]
    } else {
        10i128.pow(places)
    };
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
        .map(|i| written(from + i * step, places))
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
        // No range: the text itself, an expression checked later.
        assert_eq!(values("K", "2*3").unwrap(), ["2*3"]);
        assert_eq!(values("K", "b ? 1 : 2").unwrap(), ["b ? 1 : 2"]);
        for (bad, says) in [
            ("1:x", "plain numbers"),
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
