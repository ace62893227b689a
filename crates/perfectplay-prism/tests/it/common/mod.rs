//! What the QVBS tests share: the cases and their constants.

// Each test file uses a part of this.
#![allow(dead_code)]

pub mod mdp;

use std::path::{Path, PathBuf};

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
