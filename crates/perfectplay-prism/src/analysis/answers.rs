//! What a property's check answers: a value (a number, +∞, true or false) with its exact
//! fraction where known, the method, the states solved and a certified error bound, and for
//! the filters that list states or give a range, those. One type for every front end: the
//! command line prints it and writes it as JSON, Python wraps it.

/// The answer to one query.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    /// The value as the nearest `f64` (`f64::INFINITY` for +∞).
    pub value: f64,
    /// The exact value `p/q` when solved exactly (or when the value is decided by the graph
    /// analysis alone).
    pub exact: Option<String>,
    /// How it was computed.
    pub method: &'static str,
    /// States the engine solved.
    pub states: usize,
    /// For a query with a bound (`P>=0.5 [ … ]`), whether it holds.
    pub holds: Option<bool>,
    /// A bound on the absolute error of `value`: zero when every part was solved directly
    /// (exactly, or in floats up to rounding), else the certified bound of value iteration.
    pub error_bound: f64,
    /// What a filter that answers with states or an interval gives: `print`, `printall`,
    /// `argmin`, `argmax` and `range` (see [`Listed`]); `None` for every other property.
    pub listed: Option<Listed>,
}

/// The answer of a filter that gives more than one value.
#[derive(Clone, Debug, PartialEq)]
pub enum Listed {
    /// `print` (the states whose value is not zero or false) and `printall` (every state of
    /// the filter): each state as PRISM prints it, in PRISM's order, with its value.
    Printed(Vec<StateValueText>),
    /// `argmin` and `argmax`: the states with the least or the greatest value, in PRISM's
    /// order, each with that value.
    Extremes(Vec<StateValueText>),
    /// `range`: the least and the greatest value.
    Range {
        /// The least value.
        min: StateValueText,
        /// The greatest value.
        max: StateValueText,
    },
}

/// An answer as the front ends give it (JSON on the command line, a dict in Python): `value`
/// (true or false for a property with a bound or CTL, `"inf"` for +∞, else the nearest float),
/// `exact` (`p/q` where known), `method`, `states`, `error_bound`, and `listed` where a filter
/// lists states (`{"states": [...]}`, each `{"state", "value", "exact"}`) or gives a range
/// (`{"min": …, "max": …}`).
impl serde::Serialize for Answer {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("value", &JsonValue(self.value, self.holds))?;
        m.serialize_entry(
            "exact",
            &self.exact.as_ref().filter(|_| self.holds.is_none()),
        )?;
        m.serialize_entry("method", self.method)?;
        m.serialize_entry("states", &self.states)?;
        m.serialize_entry("error_bound", &self.error_bound)?;
        if let Some(listed) = &self.listed {
            m.serialize_entry("listed", listed)?;
        }
        m.end()
    }
}

/// A value as JSON: a boolean where it is true or false, `"inf"` for +∞ (and `"-inf"`), else
/// the number.
struct JsonValue(f64, Option<bool>);

impl serde::Serialize for JsonValue {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match (self.1, self.0) {
            (Some(b), _) => s.serialize_bool(b),
            (None, f64::INFINITY) => s.serialize_str("inf"),
            (None, f64::NEG_INFINITY) => s.serialize_str("-inf"),
            (None, x) => s.serialize_f64(x),
        }
    }
}

impl serde::Serialize for Listed {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(if matches!(self, Listed::Range { .. }) {
            2
        } else {
            1
        }))?;
        match self {
            Listed::Printed(states) | Listed::Extremes(states) => {
                m.serialize_entry("states", states)?
            }
            Listed::Range { min, max } => {
                m.serialize_entry("min", min)?;
                m.serialize_entry("max", max)?;
            }
        }
        m.end()
    }
}

impl serde::Serialize for StateValueText {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("state", &self.state)?;
        m.serialize_entry("value", &JsonValue(self.value, self.holds))?;
        m.serialize_entry("exact", &self.exact)?;
        m.end()
    }
}

/// A state (as PRISM prints it; empty for a value of no one state) and its value.
#[derive(Clone, Debug, PartialEq)]
pub struct StateValueText {
    /// The state, `(x=1,b=true)`.
    pub state: String,
    /// The value as the nearest `f64` (`f64::INFINITY` for +∞; 1 or 0 for true or false).
    pub value: f64,
    /// The exact value `p/q` where it is known.
    pub exact: Option<String>,
    /// For a true-or-false value, which.
    pub holds: Option<bool>,
}

impl Answer {
    /// +∞, decided by the graph analysis.
    pub(crate) fn infinite() -> Answer {
        Answer {
            value: f64::INFINITY,
            exact: None,
            method: "graph",
            states: 0,
            holds: None,
            error_bound: 0.0,
            listed: None,
        }
    }
}
