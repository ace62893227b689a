//! Numbers that need not be rational: `pow` with an exponent that is not whole and `log`, as
//! QVBS's oscillators compute an order parameter `pow(x² + y², 0.5)` in their target. They are
//! computed in floating point, as PRISM and Storm do; an exact solve that depends on one is an
//! error that says so, and everything else stays exact.

use perfectplay_prism::{check_prop, Loaded, Props};

/// A chain that picks a point on the unit circle's axes or its diagonal, then stops. The
/// target compares a distance (a square root) with a bound, as the oscillators do.
const MODEL: &str = "dtmc
const double lambda;
formula radius = pow(pow(x, 2) + pow(y, 2), 0.5);
module m
  s : [0..1];
  x : [-1..1] init 0;
  y : [-1..1] init 0;
  [] s=0 -> 1/4 : (s'=1) & (x'=1) + 1/4 : (s'=1) & (y'=-1)
          + 1/2 : (s'=1) & (x'=1) & (y'=1);
endmodule
rewards
  s=0 : pow(2, 0.5);
endrewards
rewards \"whole\"
  s=0 : pow(9, 1.0) + log(8, 2);
endrewards
";

fn answer(
    props: &str,
    i: usize,
    exact: bool,
    lambda: &str,
) -> Result<(f64, Option<String>), String> {
    let loaded = Loaded::new(
        "circle.prism",
        MODEL,
        &[("lambda".into(), lambda.into())],
        100,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let props =
        Props::new(&loaded.program, "circle.props", props, &[]).unwrap_or_else(|e| panic!("{e}"));
    check_prop(&loaded, &props, &props.props[i], exact)
        .map(|a| match a.holds {
            Some(b) => (f64::from(u8::from(b)), None),
            None => (a.value, a.exact),
        })
        .map_err(|e| e.to_string())
}

#[test]
fn irrational_functions_are_floating_point_and_exact_solves_refuse_them() {
    // Radius 1 on the axes (probability 1/2); the diagonal's radius is √2.
    for (lambda, want) in [("1", 1.0), ("1.2", 0.5), ("1.5", 0.0)] {
        let (v, exact) = answer("P=? [ F radius >= lambda ]", 0, false, lambda).unwrap();
        assert_eq!((v, exact), (want, None), "lambda = {lambda}");
        let err = answer("P=? [ F radius >= lambda ]", 0, true, lambda).unwrap_err();
        assert!(err.contains("no exact answer can be given"), "{err}");
    }
    // A reward of √2 in floating point, and the answer says where it came from.
    let (v, _) = answer("R=? [ F s=1 ]", 0, false, "1").unwrap();
    assert_eq!(v, 2f64.sqrt());
    let loaded = Loaded::new("circle.prism", MODEL, &[("lambda".into(), "1".into())], 100).unwrap();
    let props = Props::new(&loaded.program, "p", "R=? [ F s=1 ]\nP=? [ F x=1 ]", &[]).unwrap();
    let method = |i: usize| {
        check_prop(&loaded, &props, &props.props[i], false)
            .unwrap()
            .method
    };
    assert!(
        method(0).ends_with("from floating-point inputs"),
        "{}",
        method(0)
    );
    assert!(!method(1).contains("floating-point"), "{}", method(1));
    assert!(answer("R=? [ F s=1 ]", 0, true, "1").is_err());
    // A bound on such a value is decided in floating point, clear of the bound.
    let (holds, _) = answer("P>0.4 [ F radius > 1 ]", 0, false, "1").unwrap();
    assert_eq!(holds, 1.0, "P = 1/2");
    let (holds, _) = answer("P>0.6 [ F radius > 1 ]", 0, false, "1").unwrap();
    assert_eq!(holds, 0.0, "P = 1/2");
    // A whole exponent and a logarithm that is a whole number stay exact.
    let (_, exact) = answer("R{\"whole\"}=? [ F s=1 ]", 0, true, "1").unwrap();
    assert_eq!(exact.as_deref(), Some("12"));
    // A property that does not touch them is exact.
    let (_, exact) = answer("P=? [ F x=1 ]", 0, true, "1").unwrap();
    assert_eq!(exact.as_deref(), Some("3/4"));
}

#[test]
fn constants_defined_by_irrational_functions_carry_the_mark() {
    let props = "const double r = pow(2, 0.5);\nP=? [ F x+y >= r ]\nP=? [ F x+y >= 1.5 ]";
    assert_eq!(answer(props, 0, false, "1").unwrap(), (0.5, None));
    assert!(answer(props, 0, true, "1")
        .unwrap_err()
        .contains("no exact answer"));
    assert_eq!(
        answer(props, 1, true, "1").unwrap().1.as_deref(),
        Some("1/2")
    );
    // In the model too, and through a formula.
    let model = MODEL.replace("const double lambda;", "const double lambda = log(3, 2);");
    let loaded = Loaded::new("m.prism", &model, &[], 100).unwrap();
    assert!(loaded.program.inexact.contains("lambda"));
    let props = Props::new(&loaded.program, "p", "P=? [ F radius >= lambda ]", &[]).unwrap();
    assert!(check_prop(&loaded, &props, &props.props[0], true).is_err());
    let a = check_prop(&loaded, &props, &props.props[0], false).unwrap();
    assert_eq!(a.value, 0.0, "log₂ 3 ≈ 1.58 exceeds every radius");
}

#[test]
fn what_is_no_real_number_is_an_error() {
    let model = "dtmc\nmodule m\n  x : [0..1];\n  [] x=0 -> (x'=1);\nendmodule\nlabel \"bad\" = pow(x - 1, 0.5) > 0;\n";
    let loaded = Loaded::new("m.prism", model, &[], 100).unwrap();
    let props = Props::new(&loaded.program, "p", "P=? [ F \"bad\" ]", &[]).unwrap();
    let err = check_prop(&loaded, &props, &props.props[0], false)
        .unwrap_err()
        .to_string();
    assert!(err.contains("is not a real number"), "{err}");
}

/// A whole number rounded from a floating-point value is exact where the value is clear of
/// the rounding boundary (`ceil(log(5, 2))` is 3), and stays marked where it is not
/// (`floor(√2 · √2)`, whose float is a hair above 2).
#[test]
fn rounding_clear_of_the_boundary_is_exact() {
    let model = |k: &str| {
        format!("dtmc\nconst int N = 5;\nconst int K = {k};\nmodule m\n  x : [0..10];\n  [] x < K -> (x'=x+1);\nendmodule\n")
    };
    for (k, value, exact) in [
        ("4 + ceil(log(N, 2))", 7, true),
        ("floor(log(1000, 10))", 3, true),
        ("round(pow(N, 0.5))", 2, true),
        ("floor(pow(2, 0.5) * pow(2, 0.5))", 2, false),
    ] {
        let loaded = Loaded::new("k.prism", &model(k), &[], 100).unwrap_or_else(|e| panic!("{e}"));
        let (_, v) = loaded
            .program
            .constants
            .iter()
            .find(|(n, _)| n == "K")
            .unwrap();
        assert_eq!(v.to_string(), value.to_string(), "{k}");
        assert_eq!(!loaded.program.inexact.contains("K"), exact, "{k}");
        let props = Props::new(&loaded.program, "p", "P=? [ F x=K ]", &[]).unwrap();
        assert_eq!(
            check_prop(&loaded, &props, &props.props[0], true).is_ok(),
            exact,
            "{k}"
        );
    }
}

/// A constant whose exact fraction outgrows 128 bits (`pow(0.99, 40)`) is exact; one beyond
/// the size a fraction may have (`pow(1.0000001, 1000000)`) is computed in floating point, as
/// PRISM and Storm compute it, and marked; an integer that outgrows 64 bits stays an error,
/// and a power of 1 or -1 with a huge exponent is quick.
#[test]
fn constants_beyond_the_size_of_fractions_are_floating_point() {
    let model = |p: &str| {
        format!("dtmc\nconst double p = {p};\nmodule m\n  x : [0..2];\n  [] x=0 -> p : (x'=1) + 1-p : (x'=2);\nendmodule\n")
    };
    let loaded = Loaded::new("p.prism", &model("pow(0.99, 40)"), &[], 100).unwrap();
    assert!(loaded.program.inexact.is_empty());
    let props = Props::new(&loaded.program, "p", "P=? [ F x=1 ]", &[]).unwrap();
    let a = check_prop(&loaded, &props, &props.props[0], true).unwrap();
    // 99^40 / 100^40.
    let numerator =
        "66897175856968051393833859880371221146543227691483931958981106325809049127796001";
    assert_eq!(a.exact, Some(format!("{numerator}/1{}", "0".repeat(80))));
    let p = "pow(1.0000001, 1000000) / 2";
    let loaded = Loaded::new("p.prism", &model(p), &[], 100).unwrap();
    assert!(loaded.program.inexact.contains("p"));
    let props = Props::new(&loaded.program, "p", "P=? [ F x=1 ]", &[]).unwrap();
    let a = check_prop(&loaded, &props, &props.props[0], false).unwrap();
    assert!(
        (a.value - 1.0000001f64.powf(1e6) / 2.0).abs() < 1e-12,
        "{}",
        a.value
    );
    assert!(check_prop(&loaded, &props, &props.props[0], true).is_err());
    for p in [
        "pow(-1, 1000000000000000000) / 2",
        "pow(1, 1000000000000000001) / 3",
    ] {
        let loaded = Loaded::new("p.prism", &model(p), &[], 100).unwrap();
        assert!(loaded.program.inexact.is_empty(), "{p}");
    }
    let text = "dtmc\nconst int n = pow(2, 100);\nmodule m\n  x : [0..1];\nendmodule\n";
    let err = Loaded::new("n.prism", text, &[], 100)
        .err()
        .map(|e| e.to_string());
    assert!(err.is_some_and(|e| e.contains("too large")));
}

/// Probabilities computed in floating point in commands, as PRISM-games' collective decision
/// models compute `pow(quality, eta) / (pow(…) + pow(…))`: each branch is computed on its own,
/// so they sum to one only up to rounding, and the product of two synchronised commands'
/// fractions outgrows the engine's. They are accepted within rounding and rounded to the
/// engine's fractions (far below the floats' own rounding); exact solves refuse them.
#[test]
fn floating_point_probabilities_in_commands() {
    let src = "dtmc
const double e;
module m
  x : [0..2] init 0;
  [go] x=0 -> pow(2, e)/(pow(2, e)+1) : (x'=1) + 1/(pow(2, e)+1) : (x'=2);
  [] x>0 -> true;
endmodule
module n
  y : [0..1] init 0;
  [go] y=0 -> log(3, 2)/2 : (y'=1) + 1 - log(3, 2)/2 : (y'=0);
endmodule
";
    let loaded = Loaded::new("float.prism", src, &[("e".into(), "0.5".into())], 100)
        .unwrap_or_else(|e| panic!("{e}"));
    let props = Props::new(&loaded.program, "p", "P=? [ F x=1 & y=1 ]", &[]).unwrap();
    let a = check_prop(&loaded, &props, &props.props[0], false).unwrap();
    let root = 2f64.sqrt();
    let want = root / (root + 1.0) * (3f64.log2() / 2.0);
    assert!((a.value - want).abs() <= 1e-15, "{} vs {want}", a.value);
    assert!(
        a.method.ends_with("from floating-point inputs"),
        "{}",
        a.method
    );
    let e = check_prop(&loaded, &props, &props.props[0], true).unwrap_err();
    assert!(e.to_string().contains("no exact answer"), "{e}");
    // Probabilities that miss one by more than rounding are still an error.
    let off = src.replace("1/(pow(2, e)+1)", "1.001/(pow(2, e)+1)");
    let Err(e) = Loaded::new("float.prism", &off, &[("e".into(), "0.5".into())], 100) else {
        panic!("probabilities that sum to 1.0004");
    };
    assert!(e.to_string().contains("sum to"), "{e}");
}

/// A probability computed in floating point below what fractions of 2^-60 hold to a relative
/// 1e-9 (`pow(0.3, 40.5)`, about 6e-22) is kept as the binary fraction the float is, its
/// complement made the rest of one exactly: the answer is that float, to the bit, where a
/// second coin multiplies it (a fraction of the engine longer than a machine word).
#[test]
fn a_tiny_floating_point_probability_is_kept() {
    let src = "dtmc
module m
  x : [0..2] init 0;
  [] x=0 -> pow(0.3, 40.5) : (x'=1) + 1-pow(0.3, 40.5) : (x'=2);
  [] x>0 -> true;
endmodule
module n
  y : [0..1] init 0;
  [] y=0 -> 1/3 : (y'=1) + 2/3 : (y'=0);
  [] y=1 -> true;
endmodule
";
    let loaded = Loaded::new("tiny.prism", src, &[], 100).unwrap_or_else(|e| panic!("{e}"));
    let tiny = 0.3f64.powf(40.5);
    for (prop, want) in [
        ("P=? [ F x=1 ]", tiny),
        ("P=? [ F x=2 ]", 1.0 - tiny),
        ("P=? [ X x=1 ]", tiny / 2.0),
    ] {
        let props = Props::new(&loaded.program, "p", prop, &[]).unwrap();
        let a = check_prop(&loaded, &props, &props.props[0], false).unwrap();
        assert!(
            (a.value - want).abs() <= 4.0 * f64::EPSILON * want,
            "{prop}: {} vs {want}",
            a.value
        );
    }
}

/// `pow` of two integers is an integer, so a negative exponent is an error, as in PRISM; a
/// double base gives the fraction.
#[test]
fn an_integer_power_with_a_negative_exponent_is_an_error() {
    let model = |c: &str| {
        format!("dtmc\nconst double c = {c};\nmodule m\n  x : [0..1] init 0;\n  [] x=0 -> c : (x'=1) + 1-c : (x'=0);\nendmodule\n")
    };
    for c in ["pow(2, -1)", "2^-1", "pow(-1, -3)"] {
        let e = Loaded::new("pow.prism", &model(c), &[], 100)
            .err()
            .unwrap_or_else(|| panic!("{c} is refused"))
            .to_string();
        assert!(
            e.contains("pow of two integers with a negative exponent"),
            "{e}"
        );
    }
    let loaded = Loaded::new("pow.prism", &model("pow(2.0, -2)"), &[], 100).unwrap();
    let props = Props::new(&loaded.program, "--prop", "P=? [ X x=1 ]", &[]).unwrap();
    let a = check_prop(&loaded, &props, &props.props[0], true).unwrap();
    assert_eq!(a.exact.as_deref(), Some("1/4"));
}

/// `&`, `|`, `=>` and `? :` look at a part only when they must, as PRISM evaluates them: a
/// part that would be an error (`pow(2, -1)`) is none where it is skipped, in a constant, a
/// guard, a property, and a filter over the states.
#[test]
fn connectives_short_circuit_where_a_part_would_be_an_error() {
    let model = "dtmc
const int c = 0;
const bool ok = c=0 | pow(2, c-1) > 0;
const int k = c > 0 ? pow(2, c-1) : 7;
module m
  s : [0..3] init 0;
  [] s<3 & (c!=0 => pow(2, c-1) > 0) & !(c!=0 & pow(2, c-1) > 0) -> 1/2 : (s'=s+1) + 1/2 : (s'=3);
endmodule
";
    let loaded = Loaded::new("short.prism", model, &[], 100).unwrap();
    let text =
        "ok\nk\nc=0 | pow(2,c-1)>0\nc!=0 & pow(2,c-1)>0\nfilter(sum, s>0 ? pow(2,s-1) : 0)\n\
                filter(forall, s=0 | pow(2,s-1)>0)\nP=? [ F s=2 ] > 0 | pow(2,c-1)>0\npow(2,c-1)";
    let props =
        Props::new(&loaded.program, "short.props", text, &[]).unwrap_or_else(|e| panic!("{e}"));
    let check = |i: usize| check_prop(&loaded, &props, &props.props[i], true);
    let truth = |i: usize| check(i).unwrap().holds;
    assert_eq!(truth(0), Some(true));
    assert_eq!(check(1).unwrap().exact.as_deref(), Some("7"));
    assert_eq!((truth(2), truth(3)), (Some(true), Some(false)));
    // s = 0, 1, 2, 3: 0 + 1 + 2 + 4.
    assert_eq!(check(4).unwrap().exact.as_deref(), Some("7"));
    assert_eq!(truth(5), Some(true));
    assert_eq!(truth(6), Some(true));
    // Where the part is evaluated, it is the error it is.
    let e = check(7).unwrap_err().to_string();
    assert!(e.contains("negative exponent"), "{e}");
    // The model's states: s goes 0 → 1 → 2 → 3, each step a half to 3.
    let p = Props::new(&loaded.program, "--prop", "P=? [ F s=2 ]", &[]).unwrap();
    let a = check_prop(&loaded, &p, &p.props[0], true).unwrap();
    assert_eq!(a.exact.as_deref(), Some("1/4"));
}

/// A power whose exponent is a double but whole by its shape (`d - 1.0` for an integer `d`) is
/// a fraction: exact solves answer it, equal to the float answer.
#[test]
fn a_power_with_a_whole_exponent_of_any_type_is_exact() {
    let src = "dtmc
module m
  d : [1..4] init 1;
  s : [0..2] init 0;
  [] s=0 & d<4 -> (d'=d+1);
  [] s=0 & d=4 -> pow(0.5, d-1.0) : (s'=1) + 1-pow(0.5, max(d, 2)-1.0) : (s'=2);
  [] s>0 -> true;
endmodule
label \"one\" = s=1;
";
    let loaded = Loaded::new("pow.prism", src, &[], 100).unwrap_or_else(|e| panic!("{e}"));
    let props = Props::new(&loaded.program, "p", "P=? [ F \"one\" ]", &[]).unwrap();
    let exact =
        check_prop(&loaded, &props, &props.props[0], true).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(exact.exact.as_deref(), Some("1/8"));
    let float = check_prop(&loaded, &props, &props.props[0], false).unwrap();
    assert_eq!(float.value, 0.125);
    assert!(
        !float.method.contains("floating-point inputs"),
        "{}",
        float.method
    );
    // An exponent not whole by its shape stays floating point, and exact solves refuse it.
    let halves = src.replace("-1.0", "/2.0");
    let loaded = Loaded::new("pow.prism", &halves, &[], 100).unwrap_or_else(|e| panic!("{e}"));
    let props = Props::new(&loaded.program, "p", "P=? [ F \"one\" ]", &[]).unwrap();
    let e = check_prop(&loaded, &props, &props.props[0], true).unwrap_err();
    assert!(e.to_string().contains("no exact answer"), "{e}");
}
