//! The JSON of the reports of a type-erased solve: every number as its float and, in exact
//! mode, its fraction beside it (`value`, `value_exact`).

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

use super::{player_name, DistributionReport, Explained, Value};
use crate::StrategyRow;

/// Writes `name` (the float) and, in exact mode, `name_exact` (`"p/q"`): the JSON convention of
/// every report of this module.
fn value_entry<M: SerializeMap>(map: &mut M, name: &str, v: &Value) -> Result<(), M::Error> {
    map.serialize_entry(name, &v.float)?;
    if let Some(q) = &v.exact {
        map.serialize_entry(&format!("{name}_exact"), q)?;
    }
    Ok(())
}

/// An outcome (of chance or of a random move): `outcome`, `probability` (and
/// `probability_exact`), `value`, `reward` and `next`.
struct OutcomeJson<'a>(&'a crate::BranchValue<Value>);

impl Serialize for OutcomeJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let b = self.0;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("outcome", &b.label)?;
        map.serialize_entry("probability", &b.probability.to_f64())?;
        map.serialize_entry("probability_exact", &b.probability.to_string())?;
        value_entry(&mut map, "value", &b.value)?;
        map.serialize_entry("reward", &b.reward.to_f64())?;
        map.serialize_entry("next", &b.next)?;
        map.end()
    }
}

/// A move of a decision: `move`, `value`, `loss`, `optimal`, `chosen`, the `outcomes` of a
/// random move, `reward` and `next`.
struct MoveJson<'a>(&'a crate::BranchValue<Value>);

impl Serialize for MoveJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let b = self.0;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("move", &b.label)?;
        value_entry(&mut map, "value", &b.value)?;
        value_entry(&mut map, "loss", &b.loss)?;
        map.serialize_entry("optimal", &b.optimal)?;
        map.serialize_entry("chosen", &b.chosen)?;
        if !b.outcomes.is_empty() {
            let outcomes: Vec<OutcomeJson<'_>> = b.outcomes.iter().map(OutcomeJson).collect();
            map.serialize_entry("outcomes", &outcomes)?;
        }
        map.serialize_entry("reward", &b.reward.to_f64())?;
        map.serialize_entry("next", &b.next)?;
        map.end()
    }
}

/// `state`, `value`, `kind` (`terminal`, `chance` or `decision`), and the `outcomes` of a chance
/// state or the `player` and `moves` of a decision.
impl Serialize for Explained {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let x = &self.explanation;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("state", &x.state)?;
        value_entry(&mut map, "value", &x.value)?;
        match x.kind {
            crate::NodeKind::Terminal => map.serialize_entry("kind", "terminal")?,
            crate::NodeKind::Chance => {
                map.serialize_entry("kind", "chance")?;
                let items: Vec<OutcomeJson<'_>> = x.branches.iter().map(OutcomeJson).collect();
                map.serialize_entry("outcomes", &items)?;
            }
            crate::NodeKind::Decision(p) => {
                map.serialize_entry("kind", "decision")?;
                map.serialize_entry("player", player_name(p))?;
                let items: Vec<MoveJson<'_>> = x.branches.iter().map(MoveJson).collect();
                map.serialize_entry("moves", &items)?;
            }
            crate::NodeKind::Unset => {}
        }
        map.end()
    }
}

/// `mean`, `std`, `tail`, `steps`, `quantiles` (by [`DistributionReport::QUANTILES`]; null beyond
/// the tail), `pmf` and `cdf` as `[total, probability]` pairs, and in exact mode `pmf_exact` as
/// `["total", "p/q"]` pairs.
impl Serialize for DistributionReport {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        value_entry(&mut map, "mean", &self.mean)?;
        map.serialize_entry("std", &self.std)?;
        value_entry(&mut map, "tail", &self.tail)?;
        map.serialize_entry("steps", &self.steps)?;
        let quantiles: Vec<(String, Option<f64>)> = Self::QUANTILES
            .iter()
            .map(|&q| (q.to_string(), self.quantile(q).map(|t| t.to_f64())))
            .collect();
        map.serialize_entry("quantiles", &Pairs(&quantiles))?;
        let pmf: Vec<(f64, f64)> = self
            .pmf
            .iter()
            .map(|(t, p, _)| (t.to_f64(), p.float))
            .collect();
        map.serialize_entry("pmf", &pmf)?;
        let cdf: Vec<(f64, f64)> = self
            .pmf
            .iter()
            .map(|(t, _, c)| (t.to_f64(), c.float))
            .collect();
        map.serialize_entry("cdf", &cdf)?;
        if self.pmf.iter().any(|(_, p, _)| p.exact.is_some()) {
            let exact: Vec<(String, Option<&String>)> = self
                .pmf
                .iter()
                .map(|(t, p, _)| (t.to_string(), p.exact.as_ref()))
                .collect();
            map.serialize_entry("pmf_exact", &exact)?;
        }
        map.end()
    }
}

/// Key-value pairs written as a map, in their order.
struct Pairs<'a, V>(&'a [(String, V)]);

impl<V: Serialize> Serialize for Pairs<'_, V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// `state`, `value`, `optimal` (every optimal move) and `chosen`.
impl Serialize for StrategyRow<Value> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("state", &self.state)?;
        value_entry(&mut map, "value", &self.value)?;
        map.serialize_entry("optimal", &self.optimal)?;
        map.serialize_entry("chosen", &self.chosen)?;
        map.end()
    }
}
