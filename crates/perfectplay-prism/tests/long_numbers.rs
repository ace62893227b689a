//! Probabilities whose exact fractions do not fit the engine's 64-bit ones (a probability
//! written with 25 digits): answered in floating point, said so, and refused in exact mode
//! with the reason.

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
fn long_decimal_probabilities_are_answered_in_floating_point() {
    let loaded = Loaded::new("m.prism", MODEL, &[], 100).unwrap();
    let props = Props::new(&loaded.program, "m.props", "P=? [ F \"one\" ]", &[]).unwrap();
    let a = check_prop(&loaded, &props, &props.props[0], false).unwrap();
    assert!(
        (a.value - 0.123_456_789_012_345_68).abs() < 1e-15,
        "{}",
        a.value
    );
    assert!(
        a.method.contains("from floating-point inputs"),
        "{}",
        a.method
    );
    let e = check_prop(&loaded, &props, &props.props[0], true).unwrap_err();
    assert!(
        e.to_string()
            .contains("a probability whose fraction does not fit in 64 bits"),
        "{e}"
    );
    assert_eq!(loaded.space.rounded, 1);
}
