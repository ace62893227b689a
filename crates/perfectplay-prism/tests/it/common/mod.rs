//! What the tests share: the QVBS cases and their constants, and a property's answer or error
//! on a model given as text.

// Each test file uses a part of this.
#![allow(dead_code)]

pub mod mdp;

use std::path::{Path, PathBuf};

/// An MDP whose probabilities are tenths (not binary fractions, so float backups round): from
/// each `s` below 3, step up or fall back to 0 (counting the falls in `t`), or jump to 3 or
/// stay; 3 absorbs, and `"a"` holds below 2.
pub const TENTHS: &str = "mdp
module m
  s : [0..3] init 0;
  t : [0..2] init 0;
  [] s<3 -> 0.5:(s'=s+1) + 0.5:(s'=0)&(t'=min(t+1,2));
  [] s<3 -> 0.3:(s'=3) + 0.7:(s'=s);
  [] s=3 -> true;
endmodule
label \"a\" = s<2;
";

/// The folder of the QVBS test data.
pub fn qvbs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/qvbs")
}

/// Every case of `cases.json`.
pub fn cases() -> Vec<serde_json::Value> {
    serde_json::from_str(&std::fs::read_to_string(qvbs().join("cases.json")).unwrap()).unwrap()
}

/// The given constants of a case as `(name, value text)` pairs.
pub fn constants(case: &serde_json::Value) -> Vec<(String, String)> {
    case["constants"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.to_string()))
        .collect()
}

/// The answer to `prop` on the model `src`: the value, the exact fraction (with `exact`), the
/// method and the error bound.
pub fn answer(src: &str, prop: &str, exact: bool) -> (f64, Option<String>, String, f64) {
    use perfectplay_prism::{check_prop, Loaded, Props};
    let loaded = Loaded::new("m.prism", src, &[], 1_000_000).unwrap_or_else(|e| panic!("{e}"));
    let props = Props::new(&loaded.program, "prop", prop, &[]).unwrap_or_else(|e| panic!("{e}"));
    let a = check_prop(&loaded, &props, &props.props[0], exact)
        .unwrap_or_else(|e| panic!("{prop}: {e}"));
    (a.value, a.exact, a.method.to_string(), a.error_bound)
}

/// The error `prop` gives on `src`.
pub fn error(src: &str, prop: &str, exact: bool) -> String {
    use perfectplay_prism::{check_prop, Loaded, Props};
    let loaded = Loaded::new("m.prism", src, &[], 1_000_000).unwrap_or_else(|e| panic!("{e}"));
    let props = Props::new(&loaded.program, "prop", prop, &[]).unwrap_or_else(|e| panic!("{e}"));
    match check_prop(&loaded, &props, &props.props[0], exact) {
        Ok(a) => panic!("{prop}: answered {a:?}"),
        Err(e) => e.to_string(),
    }
}
