//! The QVBS conformance suite (`tests/qvbs/`, CC-BY 4.0, see its `LICENSE-NOTE.md`): every
//! case of up to about 50,000 states gives the published reference value, in floats (within
//! 1e-6 relative; the references come from Storm's exact mode) and, where the reference is an
//! exact fraction, exactly; and the float answers lie within their error bounds of the exact
//! references.

use std::collections::HashMap;

use crate::common::{cases, constants, qvbs};

use malachite_q::Rational;
use perfectplay::{Exact, Number};
use perfectplay_prism::{check_prop, parse_program, Loaded, Props};

const MAX_STATES: u64 = 50_000;

/// Runs `f` on every small case with its loaded model: each model built once in full, or,
/// if `directed`, once per case for its property (as `perfectplay check` does).
fn each_small_case(
    directed: bool,
    mut f: impl FnMut(&serde_json::Value, &Loaded, &Props),
) -> usize {
    let root = qvbs();
    let mut loaded: HashMap<(String, String), Loaded> = HashMap::new();
    let mut count = 0;
    let mut smaller = 0;
    for case in cases() {
        let full = case["states_full"].as_u64().unwrap();
        if full > MAX_STATES {
            continue;
        }
        let model = case["model"].as_str().unwrap().to_string();
        let text = std::fs::read_to_string(root.join(&model)).unwrap();
        let program =
            parse_program(&model, &text, &constants(&case)).unwrap_or_else(|e| panic!("{e}"));
        let prop = case["property"].as_str().unwrap();
        let props = Props::new(&program, "case", prop, &[]).unwrap_or_else(|e| panic!("{e}"));
        let key = (model.clone(), case["constants"].to_string());
        let l = if directed {
            let l = Loaded::for_properties(program, &[(&props, 0)], 10_000_000, &mut |_, _| {
                std::ops::ControlFlow::Continue(())
            })
            .unwrap_or_else(|e| panic!("{e}"));
            assert!(l.space.len() as u64 <= full, "{}", case["id"]);
            smaller += usize::from((l.space.len() as u64) < full);
            loaded.insert(key.clone(), l);
            &loaded[&key]
        } else {
            loaded.entry(key).or_insert_with(|| {
                Loaded::new(&model, &text, &constants(&case), 10_000_000)
                    .unwrap_or_else(|e| panic!("{e}"))
            })
        };
        f(&case, l, &props);
        count += 1;
    }
    // Building up to the targets leaves states out of a good share of the cases.
    assert!(!directed || smaller >= 10, "{smaller} cases built smaller");
    count
}

/// Each on a model built for its property, as `perfectplay check` builds it.
#[test]
fn small_cases_give_the_reference_values_in_floats() {
    let mut failures = Vec::new();
    let mut bounded = 0;
    let n = each_small_case(true, |case, l, props| {
        let id = case["id"].as_str().unwrap();
        let answer = match check_prop(l, props, &props.props[0], false) {
            Ok(a) => a,
            Err(e) => {
                failures.push(format!("{id}: {e}"));
                return;
            }
        };
        let ok = match &case["reference"] {
            serde_json::Value::String(s) if s == "inf" => answer.value == f64::INFINITY,
            r => {
                let r = r.as_f64().unwrap();
                (answer.value - r).abs() <= 1e-6 * r.abs().max(1e-3)
            }
        };
        if !ok {
            failures.push(format!(
                "{id}: {} against {}",
                answer.value, case["reference"]
            ));
        }
        // Where the reference is exact, the float is within its error bound of it, compared
        // exactly: consensus.2 K=16 `c2` among them, whose strategy ties the optimal one
        // within rounding at many decisions and ends 7e-13 from it.
        if let (Some(reference), true) =
            (case["reference_exact"].as_str(), answer.value.is_finite())
        {
            let exact = Exact(reference.parse::<Rational>().unwrap());
            let error = Exact::of_float(answer.value).unwrap().sub(&exact).abs();
            let within = error <= Exact::of_float(answer.error_bound).unwrap();
            bounded += 1;
            if !within {
                failures.push(format!(
                    "{id}: {} is {:e} from the reference, beyond its bound {:e}",
                    answer.value,
                    error.to_f64(),
                    answer.error_bound
                ));
            }
            // The bound is the start value's own, so it leaves 8 digits known even where
            // the value is small beside others of the model (zeroconf's probabilities of
            // 1e-9, beside values near one, whose roundings and ties bound nothing here).
            if answer.error_bound > 1e-8 * answer.value.abs() {
                failures.push(format!(
                    "{id}: the bound {:e} leaves fewer than 8 digits of {} known",
                    answer.error_bound, answer.value
                ));
            }
        }
    });
    assert!(n >= 60, "{n} cases");
    assert!(bounded >= 60, "{bounded} cases with an exact reference");
    assert!(
        failures.is_empty(),
        "{} of {n} cases:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// In exact mode every small case with an exact reference gives that fraction, to the digit.
/// herman.11 (one component of 2,048 states with dense rows) is solved by refinement and a
/// checked guess (`linear.rs`); herman.15 is left out: its fractions are too long for the guess,
/// and its exact elimination in big rationals takes hours (floats solve it by value iteration
/// with a certified bound, in the test above).
#[test]
fn small_cases_give_the_exact_references() {
    let mut failures = Vec::new();
    let mut checked = 0;
    each_small_case(false, |case, l, props| {
        let Some(reference) = case["reference_exact"].as_str() else {
            return;
        };
        // Whole numbers are written as `n/1` there.
        let reference = reference.strip_suffix("/1").unwrap_or(reference);
        let id = case["id"].as_str().unwrap();
        if id.starts_with("herman/herman.15") {
            return;
        }
        checked += 1;
        match check_prop(l, props, &props.props[0], true) {
            Ok(a) if a.exact.as_deref() == Some(reference) => {}
            Ok(a) => failures.push(format!(
                "{id}: {:?}",
                a.exact.map(|e| e.chars().take(60).collect::<String>())
            )),
            Err(e) => failures.push(format!("{id}: {e}")),
        }
    });
    assert!(checked >= 60, "{checked} cases");
    assert!(
        failures.is_empty(),
        "{} of {checked} cases:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
