//! Numbers beyond machine words: probabilities of long fractions (a decimal of 25 digits,
//! products of several) kept exactly, numbers of any size in properties, and what floating
//! point cannot hold refused with the reason.

use perfectplay_prism::{check_prop, Loaded, Props};

const MODEL: &str = "dtmc
const double p = 0.1234567890123456789012345;
module m
  x : [0..2] init 0;
  [] x=0 -> p : (x'=1) + (1-p) : (x'=2);
endmodule
label \"one\" = x=1;
";

#[test]
fn long_decimal_probabilities_are_kept_exactly() {
    let loaded = Loaded::new("m.prism", MODEL, &[], 100).unwrap();
    let props = Props::new(&loaded.program, "m.props", "P=? [ F \"one\" ]", &[]).unwrap();
    let a = check_prop(&loaded, &props, &props.props[0], false).unwrap();
    assert_eq!(a.value, 0.123_456_789_012_345_68);
    assert!(!a.method.contains("floating-point inputs"), "{}", a.method);
    let a = check_prop(&loaded, &props, &props.props[0], true).unwrap();
    assert_eq!(
        a.exact.as_deref(),
        Some("246913578024691357802469/2000000000000000000000000")
    );
    // Two synchronised 25-digit probabilities and a third after them: a product of 75
    // digits, exact.
    let chain = "dtmc
const double p = 0.1234567890123456789012345;
const double q = 0.9876543210987654321098765;
module m
  x : [0..3] init 0;
  [a] x=0 -> p : (x'=1) + (1-p) : (x'=3);
  [b] x=1 -> q : (x'=2) + (1-q) : (x'=3);
endmodule
module n
  y : [0..1] init 0;
  [a] y=0 -> p : (y'=1) + (1-p) : (y'=0);
endmodule
label \"two\" = x=2 & y=1;
";
    let loaded = Loaded::new("c.prism", chain, &[], 100).unwrap();
    let props = Props::new(&loaded.program, "c.props", "P=? [ F \"two\" ]", &[]).unwrap();
    for exact in [false, true] {
        let a = check_prop(&loaded, &props, &props.props[0], exact).unwrap();
        assert!(
            (a.value - 0.015053411116003472).abs() < 1e-17,
            "{}",
            a.value
        );
        if exact {
            assert_eq!(a.exact.as_deref(), Some("120427288928027767785925301950885754590827414718695789178022878258917633/8000000000000000000000000000000000000000000000000000000000000000000000000"));
        }
    }
}

/// In a property, numbers of any size (`1e300`, a decimal of any
/// length) are exact rationals of any size, and `x/0` is ±∞ as in PRISM (doubles); `0/0`
/// is an error.
#[test]
fn properties_compute_with_numbers_of_any_size_and_with_infinity() {
    let loaded = Loaded::new(
        "m.prism",
        MODEL
            .replace("0.1234567890123456789012345", "0.25")
            .as_str(),
        &[],
        100,
    )
    .unwrap();
    let answer = |text: &str| {
        let props = Props::new(&loaded.program, "m.props", text, &[]).unwrap();
        check_prop(&loaded, &props, &props.props[0], true)
    };
    let exact = |text: &str| answer(text).unwrap().exact.unwrap();
    assert_eq!(
        exact("P=? [ F \"one\" ] * 4e40"),
        format!("1{}", "0".repeat(40))
    );
    assert_eq!(
        exact("0.1234567890123456789012345678901234567890 * 10"),
        format!(
            "123456789012345678901234567890123456789/1{}",
            "0".repeat(38)
        )
    );
    assert_eq!(answer("3e300 * 1e300 > 2e600").unwrap().holds, Some(true));
    assert_eq!(exact("P=? [ F \"one\" ] * 1e-300 * 1e300"), "1/4");
    let inf = answer("P=? [ F \"one\" ] / 0").unwrap();
    assert_eq!((inf.value, inf.exact), (f64::INFINITY, None));
    assert_eq!(answer("(0 - 1) / 0").unwrap().value, f64::NEG_INFINITY);
    assert_eq!(answer("1/0 > 1e300").unwrap().holds, Some(true));
    let e = answer("0/0").unwrap_err().to_string();
    assert!(e.contains("0/0 is undefined"), "{e}");
    let e = answer("1/0 - 1/0").unwrap_err().to_string();
    assert!(e.contains("undefined"), "{e}");
}

/// A decimal of any length (40 digits, `1e-60`) is the exact fraction it is, in floating
/// point and exactly; a probability of 1e200 is outside [0, 1], and so is one of 1e400, named
/// briefly.
#[test]
fn decimals_of_any_length_are_exact() {
    let model = MODEL.replace(
        "0.1234567890123456789012345",
        "0.1234567890123456789012345678901234567890",
    );
    let loaded = Loaded::new("m.prism", &model, &[], 100).unwrap();
    let props = Props::new(&loaded.program, "m.props", "P=? [ F \"one\" ]", &[]).unwrap();
    let a = check_prop(&loaded, &props, &props.props[0], false).unwrap();
    assert_eq!(a.value, 0.123_456_789_012_345_68);
    let a = check_prop(&loaded, &props, &props.props[0], true).unwrap();
    let want = format!(
        "{}/1{}",
        "123456789012345678901234567890123456789",
        "0".repeat(39)
    );
    assert_eq!(a.exact, Some(want));
    let model = MODEL.replace("0.1234567890123456789012345", "1e-60");
    let loaded = Loaded::new("m.prism", &model, &[], 100).unwrap();
    let props = Props::new(&loaded.program, "m.props", "P=? [ F \"one\" ]", &[]).unwrap();
    let a = check_prop(&loaded, &props, &props.props[0], true).unwrap();
    assert_eq!(a.exact, Some(format!("1/1{}", "0".repeat(60))));
    for (p, says) in [
        ("1e200", "probability about 1e200 is outside [0, 1]"),
        ("1e400", "probability about 1e400 is outside [0, 1]"),
        ("1/0", "probability Infinity is outside [0, 1]"),
    ] {
        let model = MODEL.replace("0.1234567890123456789012345", p);
        let e = Loaded::new("m.prism", &model, &[], 100)
            .err()
            .unwrap_or_else(|| panic!("{p}: built"))
            .to_string();
        assert!(e.contains(says), "{p}: {e}");
    }
}

/// Numbers beyond 128 bits (`1e300`, `1e-60`) compute exactly wherever they stand: guards,
/// probabilities and rewards that come back within range, and constants read by properties.
/// A constant beyond the size a fraction may have (`pow(1.0000001, 1000000)`, a numerator of
/// some 23 million bits) is computed in floating point, as in PRISM, and exact solves refuse
/// what it touches.
#[test]
fn numbers_beyond_128_bits_compute_exactly() {
    let model = "dtmc
const double big = 1e300;
const double tiny = 1e-60;
const half = big / (2 * big);
const double e = pow(1.0000001, 1000000);
module m
  s : [0..3] init 0;
  [] s=0 & s < big & tiny > 0 -> half : (s'=1) + (1-half) : (s'=2);
  [] s=1 -> (tiny * big > 1 ? 1/4 : 1/3) : (s'=3) + (tiny * big > 1 ? 3/4 : 2/3) : (s'=0);
  [] s>=2 -> true;
endmodule
rewards \"r\" s=0 : big / 1e299 + tiny; endrewards
rewards \"huge\" s=0 : big; endrewards
rewards \"e\" s=0 : e; endrewards
";
    let loaded = Loaded::new("m.prism", model, &[], 100).unwrap();
    let text = "P=? [ F s=3 ]\nR{\"r\"}=? [ C<=1 ]\nbig * tiny\nhalf\nR{\"huge\"}=? [ C<=1 ]\ne\nR{\"e\"}=? [ C<=1 ]";
    let props = Props::new(&loaded.program, "m.props", text, &[]).unwrap();
    let check = |i: usize, exact: bool| check_prop(&loaded, &props, &props.props[i], exact);
    // From s=0 half the plays go to s=1, a quarter of those on to s=3, the rest back: 1/5.
    assert_eq!(check(0, true).unwrap().exact.as_deref(), Some("1/5"));
    assert!((check(0, false).unwrap().value - 0.2).abs() < 1e-15);
    let r = check(1, true).unwrap().exact.unwrap();
    assert_eq!(
        r,
        format!("10{}1", "0".repeat(59)) + &format!("/1{}", "0".repeat(60))
    );
    assert_eq!(
        check(2, true).unwrap().exact,
        Some(format!("1{}", "0".repeat(240)))
    );
    let half = check(3, true).unwrap();
    assert_eq!(
        (half.exact.as_deref(), half.method),
        (Some("1/2"), "constant")
    );
    assert_eq!(
        check(4, true).unwrap().exact,
        Some(format!("1{}", "0".repeat(300)))
    );
    assert_eq!(check(4, false).unwrap().value, 1e300);
    // Beyond the size a fraction may have: floating point, said so, refused exactly.
    let e = check(5, false).unwrap();
    assert!(
        (e.value - 1.0000001f64.powf(1e6)).abs() < 1e-12,
        "{}",
        e.value
    );
    assert_eq!(e.method, "constant, from floating-point inputs");
    assert!(loaded.program.inexact.contains("e"));
    assert!(check(5, true).is_err());
    assert!((check(6, false).unwrap().value - e.value).abs() < 1e-12);
    assert!(check(6, true).is_err());
}

/// A probability computed in floating point that fractions of 2^-60 cannot hold to nine
/// digits (`pow(0.3, 40.5)`) is kept as the binary fraction the float is, never rounded to
/// another value: the answer is that float (and no exact answer, the input being floating
/// point); a small one they hold well enough is answered, and an exact one (`1e-30`,
/// `pow(0.3, 40)`) is exact.
#[test]
fn probabilities_too_small_to_round_are_kept_as_their_floats() {
    for p in ["pow(0.3, 40.5)", "pow(0.3, 40.0 + 0.5)"] {
        let model = MODEL.replace("0.1234567890123456789012345", p);
        let loaded =
            Loaded::new("m.prism", &model, &[], 100).unwrap_or_else(|e| panic!("{p}: {e}"));
        let props = Props::new(&loaded.program, "m.props", "P=? [ F \"one\" ]", &[]).unwrap();
        let a = check_prop(&loaded, &props, &props.props[0], false).unwrap();
        assert_eq!(a.value, 0.3f64.powf(40.5), "{p}");
        assert!(
            check_prop(&loaded, &props, &props.props[0], true).is_err(),
            "{p}"
        );
    }
    let model = MODEL.replace("0.1234567890123456789012345", "1e-30");
    let loaded = Loaded::new("m.prism", &model, &[], 100).unwrap();
    let props = Props::new(&loaded.program, "m.props", "P=? [ F \"one\" ]", &[]).unwrap();
    let a = check_prop(&loaded, &props, &props.props[0], true).unwrap();
    assert_eq!(
        a.exact.as_deref(),
        Some("1/1000000000000000000000000000000")
    );
    let model = MODEL.replace("0.1234567890123456789012345", "pow(0.3, 40)");
    let loaded = Loaded::new("m.prism", &model, &[], 100).unwrap();
    let props = Props::new(&loaded.program, "m.props", "P=? [ F \"one\" ]", &[]).unwrap();
    let a = check_prop(&loaded, &props, &props.props[0], true).unwrap();
    let want = format!("{}/1{}", 3u128.pow(40), "0".repeat(40));
    assert_eq!(a.exact, Some(want));
    let model = MODEL.replace("0.1234567890123456789012345", "pow(0.3, 10.0)");
    let loaded = Loaded::new("m.prism", &model, &[], 100).unwrap();
    let props = Props::new(&loaded.program, "m.props", "P=? [ F \"one\" ]", &[]).unwrap();
    let a = check_prop(&loaded, &props, &props.props[0], false).unwrap();
    assert!(
        (a.value / 0.3f64.powi(10) - 1.0).abs() < 1e-12,
        "{}",
        a.value
    );
}

/// A bound is a number of any size, exactly (`P>=1/4+1e-300`): compared with an exact value
/// exactly, so a bound past the value by 1e-300 is not met.
#[test]
fn bounds_are_exact_numbers_of_any_size() {
    let model = MODEL.replace("0.1234567890123456789012345", "0.25");
    let loaded = Loaded::new("m.prism", &model, &[], 100).unwrap();
    let holds = |text: &str| {
        let props = Props::new(&loaded.program, "m.props", text, &[]).unwrap();
        check_prop(&loaded, &props, &props.props[0], false)
            .unwrap()
            .holds
            .unwrap()
    };
    assert!(holds("P>=1e-300 [ F \"one\" ]"));
    assert!(holds("P>=1/4 [ F \"one\" ]"));
    assert!(!holds("P>=1/4+1e-300 [ F \"one\" ]"));
    assert!(holds("P<1/4+1e-300 [ F \"one\" ]"));
    assert!(holds("filter(forall, P<=1-1e-40 [ X \"one\" ], x=0)"));
}

/// In the model, `x/0` is ±∞ as in PRISM (doubles), in constants, formulas, guards and
/// `min`/`max`, exactly where it is compared; `0/0` is an error, and so is an infinite
/// probability, reward or integer.
#[test]
fn the_model_computes_with_infinity_as_prism_does() {
    let model = "mdp
const int z = 0;
const double big = 1/z;
formula low = -1/z;
module m
  s : [0..3] init 0;
  [] s=0 & s < big & low < -1000 -> min(big, 1/3) : (s'=1) + max(low, 2/3) : (s'=2);
  [] s=0 & big < 5 -> (s'=3);
  [] s>0 -> true;
endmodule
rewards \"r\" s=0 : min(big, 2); endrewards
label \"one\" = s=1;
";
    let loaded = Loaded::new("m.prism", model, &[], 100).unwrap();
    let text =
        "Pmax=? [ F \"one\" ]\nbig\nbig > 1e300\nfilter(max, big, true)\nRmax{\"r\"}=? [ C<=1 ]";
    let props = Props::new(&loaded.program, "m.props", text, &[]).unwrap();
    let check = |i: usize, exact: bool| check_prop(&loaded, &props, &props.props[i], exact);
    // Only the first command is enabled, and its probabilities are exactly 1/3 and 2/3.
    assert_eq!(loaded.space.len(), 3);
    assert_eq!(check(0, true).unwrap().exact.as_deref(), Some("1/3"));
    assert_eq!(check(1, false).unwrap().value, f64::INFINITY);
    assert_eq!(check(2, true).unwrap().holds, Some(true));
    assert_eq!(check(3, false).unwrap().value, f64::INFINITY);
    assert_eq!(check(4, true).unwrap().exact.as_deref(), Some("2"));

    let fails = |from: &str, to: &str, says: &str| {
        let e = Loaded::new("m.prism", &model.replace(from, to), &[], 100)
            .err()
            .unwrap_or_else(|| panic!("{to}: built"))
            .to_string();
        assert!(e.contains(says), "{to}: {e}");
    };
    fails("min(big, 1/3)", "1/3 + 0*big", "0*big");
    fails("1/z;", "0/z;", "0/0 is not a real number");
    fails(
        "min(big, 1/3)",
        "big",
        "probability Infinity is outside [0, 1]",
    );
    fails(
        "s>0 -> true",
        "s>0 -> (s'=floor(big))",
        "an infinite number",
    );
    let e = Loaded::new("m.prism", &model.replace("min(big, 2)", "big"), &[], 100)
        .ok()
        .map(|loaded| {
            let props =
                Props::new(&loaded.program, "m.props", "Rmax{\"r\"}=? [ C<=1 ]", &[]).unwrap();
            check_prop(&loaded, &props, &props.props[0], false)
                .unwrap_err()
                .to_string()
        })
        .unwrap();
    assert!(e.contains("a reward is Infinity"), "{e}");
}
