//! Parsing of game options given as text (by the command line or any other front end), with
//! errors that name the option.

use std::str::FromStr;

use crate::GameError;

/// The text values given for a game's options, by option name (without `--`).
#[derive(Clone, Debug, Default)]
pub struct Params {
    values: Vec<(String, String)>,
}

impl Params {
    /// No values.
    pub fn new() -> Self {
        Params::default()
    }

    /// Adds (or replaces) the value of option `name`.
    pub fn set(&mut self, name: impl Into<String>, value: impl Into<String>) -> &mut Self {
        let name = name.into();
        let value = value.into();
        match self.values.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = value,
            None => self.values.push((name, value)),
        }
        self
    }

    /// Builds from `(name, value)` pairs.
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let mut p = Params::new();
        for (n, v) in pairs {
            p.set(n, v);
        }
        p
    }

    /// The raw text of option `name`, if given.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.values
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The text of a required option.
    pub fn required(&self, name: &'static str) -> Result<&str, GameError> {
        self.get(name)
            .ok_or_else(|| GameError::param(name, "is required"))
    }

    /// A required integer in `lo..=hi`.
    pub fn int<T>(&self, name: &'static str, lo: T, hi: T) -> Result<T, GameError>
    where
        T: FromStr + PartialOrd + Copy + std::fmt::Display,
    {
        parse_int(name, self.required(name)?, lo, hi)
    }

    /// A required comma-separated list of integers, each in `lo..=hi`, with `min..=max`
    /// elements.
    pub fn int_list<T>(
        &self,
        name: &'static str,
        lo: T,
        hi: T,
        len: (usize, usize),
    ) -> Result<Vec<T>, GameError>
    where
        T: FromStr + PartialOrd + Copy + std::fmt::Display,
    {
        let text = self.required(name)?;
        let items: Vec<&str> = if text.trim().is_empty() {
            Vec::new()
        } else {
            text.split(',').map(str::trim).collect()
        };
        if items.len() < len.0 || items.len() > len.1 {
            return Err(GameError::param(
                name,
                format!(
                    "expected {} to {} comma-separated numbers, got {}",
                    len.0,
                    len.1,
                    items.len()
                ),
            ));
        }
        items.iter().map(|s| parse_int(name, s, lo, hi)).collect()
    }
}

/// Parses one integer in `lo..=hi`, naming the option in the error.
pub fn parse_int<T>(name: &'static str, text: &str, lo: T, hi: T) -> Result<T, GameError>
where
    T: FromStr + PartialOrd + Copy + std::fmt::Display,
{
    let text = text.trim();
    let out_of_range = || GameError::param(name, format!("{text} is out of range {lo}..={hi}"));
    let v: T = text.parse().map_err(|_| {
        // An integer too large (or negative) for the type is out of range, not a non-number.
        if is_integer(text) {
            out_of_range()
        } else {
            GameError::param(name, format!("expected an integer, got '{text}'"))
        }
    })?;
    if v < lo || v > hi {
        return Err(GameError::param(
            name,
            format!("{v} is out of range {lo}..={hi}"),
        ));
    }
    Ok(v)
}

/// Whether `text` is an optional sign and one or more decimal digits: an integer of any size,
/// so that one too large for its type is reported as out of range rather than as not a number.
pub(crate) fn is_integer(text: &str) -> bool {
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_too_large_for_their_type_are_out_of_range() {
        let e = |t: &str| parse_int::<u32>("goal", t, 1, 300).unwrap_err().to_string();
        assert_eq!(e("100000"), "goal: 100000 is out of range 1..=300");
        assert_eq!(
            e("99999999999999999999999"),
            "goal: 99999999999999999999999 is out of range 1..=300"
        );
        assert_eq!(e("-5"), "goal: -5 is out of range 1..=300");
        assert_eq!(e("x"), "goal: expected an integer, got 'x'");
        assert_eq!(e("1.5"), "goal: expected an integer, got '1.5'");
        assert_eq!(e("-"), "goal: expected an integer, got '-'");
        assert_eq!(parse_int::<u32>("goal", " 7 ", 1, 300).unwrap(), 7);
    }
}
