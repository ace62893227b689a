//! Numbers between Python and the engine: what a game gives (ints, `Fraction`s, floats when
//! asked for) read into exact rationals, and the engine's values given back as floats and
//! `Fraction`s.

use perfectplay::dynamic::Value;
use perfectplay::Rat;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyBool, PyFloat, PyInt, PyString};

/// A number as a game gave it, read when its node was made: exact, or a float that the solve
/// accepts only when asked to (see [`Given::to_rat`]).
#[derive(Clone, Copy, Debug)]
pub enum Given {
    /// An int or a rational (`Fraction`).
    Exact(Rat),
    /// A float, kept as given.
    Float(f64),
}

impl Given {
    /// Reads `obj`, an int, a `Fraction` (anything with integer `numerator` and
    /// `denominator`) or a float; `what` names it in errors ("probability", "reward").
    pub fn read(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Given> {
        if obj.is_instance_of::<PyInt>() && !obj.is_instance_of::<PyBool>() {
            return match obj.extract::<i64>() {
                Ok(n) => Ok(Given::Exact(Rat::integer(n))),
                Err(_) => long(obj, None, what).map(Given::Exact),
            };
        }
        if obj.is_instance_of::<PyFloat>() {
            return Ok(Given::Float(obj.extract::<f64>()?));
        }
        if let (Ok(n), Ok(d)) = (obj.getattr("numerator"), obj.getattr("denominator")) {
            if !obj.is_instance_of::<PyBool>() {
                let (Ok(small_n), Ok(small_d)) = (n.extract::<i64>(), d.extract::<i64>()) else {
                    return long(&n, Some(&d), what).map(Given::Exact);
                };
                return Rat::checked_new(small_n, small_d)
                    .map(Given::Exact)
                    .ok_or_else(|| {
                        PyValueError::new_err(format!("{what} {} has denominator 0", show(obj)))
                    });
            }
        }
        Err(PyTypeError::new_err(format!(
            "{what} {} is a {}; give an int or a fractions.Fraction",
            show(obj),
            obj.get_type()
                .name()
                .map_or("?".into(), |n| text(&n).unwrap_or_default())
        )))
    }

    /// The exact rational: a float only when `floats` says to read floats as the binary
    /// fractions they store. `what` names the number in the error.
    pub fn to_rat(self, what: &str, floats: bool) -> Result<Rat, String> {
        match self {
            Given::Exact(r) => Ok(r),
            Given::Float(x) if floats => {
                binary_fraction(x).ok_or_else(|| format!("{what} {x:?} is not a finite float"))
            }
            Given::Float(x) => Err(format!(
                "{what} {x:?} is a float, which is seldom the number meant (0.1 is not 1/10); \
                 give an int or a fractions.Fraction, or solve with accept_floats=True to read \
                 floats as the exact binary fractions they store"
            )),
        }
    }
}

/// The fraction `n / d` (or the integer `n`) of Python ints beyond 64 bits, read through
/// their decimal text.
fn long(n: &Bound<'_, PyAny>, d: Option<&Bound<'_, PyAny>>, what: &str) -> PyResult<Rat> {
    let digits = |x: &Bound<'_, PyAny>| -> PyResult<String> {
        if !x.is_instance_of::<PyInt>() {
            return Err(PyTypeError::new_err(format!(
                "{what}: the numerator and denominator of {} are not ints",
                show(x)
            )));
        }
        // `str` of an int of more than 4,300 digits raises Python's own ValueError.
        text(&x.str()?)
    };
    let text = match d {
        Some(d) => format!("{}/{}", digits(n)?, digits(d)?),
        None => digits(n)?,
    };
    text.parse::<Rat>()
        .map_err(|e| PyValueError::new_err(format!("{what}: {e}")))
}

/// `repr(obj)`, or a placeholder when even that fails.
pub fn show(obj: &Bound<'_, PyAny>) -> String {
    obj.repr()
        .and_then(|r| text(&r))
        .unwrap_or_else(|_| "<unprintable object>".into())
}

/// The text of a Python string. (Not `to_string()`: PyO3's `Display` calls `str()` again,
/// and an error there, such as a Ctrl-C arriving just then, would be printed and lost
/// instead of raised.)
pub fn text(s: &Bound<'_, PyString>) -> PyResult<String> {
    Ok(s.to_cow()?.into_owned())
}

/// The exact value of a finite float.
fn binary_fraction(x: f64) -> Option<Rat> {
    if !x.is_finite() {
        return None;
    }
    if x == 0.0 {
        return Some(Rat::ZERO);
    }
    let bits = x.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i32;
    let mantissa = if exponent == 0 {
        (bits & ((1 << 52) - 1)) << 1
    } else {
        (bits & ((1 << 52) - 1)) | (1 << 52)
    };
    // x = ±mantissa · 2^(exponent - 1075)
    let mut m = mantissa as i128;
    let mut e = exponent - 1075;
    while m % 2 == 0 && e < 0 {
        m /= 2;
        e += 1;
    }
    let sign = if x < 0.0 { -1 } else { 1 };
    // Up or down by 2^62 at a time: at most 18 steps for the largest float or the smallest.
    let (mut r, mut shift) = (Rat::checked_wide(sign * m, 1)?, e.abs());
    while shift > 0 {
        let step = shift.min(62);
        r = r * match e > 0 {
            true => Rat::integer(1 << step),
            false => Rat::new(1, 1 << step),
        };
        shift -= step;
    }
    Some(r)
}

/// `fractions.Fraction`, imported once.
fn fraction_type(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    static FRACTION: GILOnceCell<Py<PyAny>> = GILOnceCell::new();
    FRACTION
        .get_or_try_init(py, || {
            Ok::<_, PyErr>(py.import("fractions")?.getattr("Fraction")?.unbind())
        })
        .map(|f| f.bind(py))
}

/// A `Fraction` from the engine's `p/q` (or integer) text, of any length: Python's limit on
/// converting long digit strings to `int` (4,300 digits by default) does not apply, as the
/// numbers are read in pieces below it.
pub fn fraction(py: Python<'_>, text: &str) -> PyResult<Py<PyAny>> {
    let (n, d) = text.split_once('/').unwrap_or((text, "1"));
    let (negative, n) = match n.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, n),
    };
    let bad = || pyo3::exceptions::PyValueError::new_err(format!("'{text}' is not a fraction"));
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(n) || !digits(d) {
        return Err(bad());
    }
    let mut numerator = integer(py, n)?;
    if negative {
        numerator = numerator.neg()?;
    }
    let denominator = integer(py, d)?;
    Ok(fraction_type(py)?.call1((numerator, denominator))?.unbind())
}

/// The `int` of an engine's integer text (with its sign), of any length.
pub fn whole(py: Python<'_>, text: &str) -> PyResult<Py<PyAny>> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(PyValueError::new_err(format!("'{text}' is not an integer")));
    }
    let n = integer(py, digits)?;
    Ok(if negative { n.neg()? } else { n }.unbind())
}

/// Digits read as a Python `int` by halves, each piece short enough for `int(str)`.
fn integer<'py>(py: Python<'py>, digits: &str) -> PyResult<Bound<'py, PyAny>> {
    const PIECE: usize = 4000;
    if digits.len() <= PIECE {
        return py.get_type::<PyInt>().call1((digits,));
    }
    let low = digits.len() / 2;
    let (high_digits, low_digits) = digits.split_at(digits.len() - low);
    let scale = 10u32.into_pyobject(py)?.pow(low, py.None())?;
    integer(py, high_digits)?
        .mul(scale)?
        .add(integer(py, low_digits)?)
}

/// A `Fraction` of a [`Rat`].
pub fn rat_fraction(py: Python<'_>, r: Rat) -> PyResult<Py<PyAny>> {
    match r.parts() {
        Some((n, d)) => Ok(fraction_type(py)?.call1((n, d))?.unbind()),
        None => fraction(py, &r.to_string()),
    }
}

/// The exact part of a value: a `Fraction`, or `None` in float mode.
pub fn exact(py: Python<'_>, v: &Value) -> PyResult<Option<Py<PyAny>>> {
    v.exact.as_deref().map(|q| fraction(py, q)).transpose()
}
