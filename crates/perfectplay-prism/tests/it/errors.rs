//! Every phase's errors are typed: a caller tells a build's errors from an analysis's, and
//! each kind from the others, by matching, never by reading the message; the messages say
//! what is wrong and where.

use perfectplay_prism::build::{BuildError, CommandProblem, InitProblem, StateProblem};
use perfectplay_prism::program::props::PropsError;
use perfectplay_prism::{check_prop, AnalysisError, Error, Loaded, Props};

const COIN: &str = "mdp
module m
  x : [0..3] init 0;
  [] x=0 -> 0.5 : (x'=1) + 0.5 : (x'=2);
  [] x>0 -> true;
endmodule
rewards \"r\" x=0 : 1; endrewards
";

fn load(model: &str) -> Result<Loaded, Error> {
    Loaded::new("m.prism", model, &[], 1000)
}

fn answer(model: &str, prop: &str, exact: bool) -> Result<perfectplay_prism::Answer, Error> {
    let loaded = load(model)?;
    let props = Props::new(&loaded.program, "m.props", prop, &[])?;
    check_prop(&loaded, &props, &props.props[0], exact)
}

#[test]
fn build_errors_name_the_command_and_the_state() {
    let e = load(&COIN.replace("(x'=2)", "(x'=x+4)")).err().unwrap();
    let Error::Build(BuildError::Command {
        command,
        state,
        problem: CommandProblem::OutOfRange { var, value, lo, hi },
    }) = &e
    else {
        panic!("{e:?}")
    };
    assert_eq!((var.as_str(), *value, *lo, *hi), ("x", 4, 0, 3));
    assert_eq!(state, "(x=0)");
    assert!(command.contains("x=0 ->"), "{command}");
    assert!(
        e.to_string()
            .contains("it sets x to 4, outside its range [0..3]"),
        "{e}"
    );

    let e = load(&COIN.replace("0.5 : (x'=2)", "0.4 : (x'=2)"))
        .err()
        .unwrap();
    assert!(
        matches!(&e, Error::Build(BuildError::Command { problem: CommandProblem::Sum(s), .. }) if s == "9/10"),
        "{e:?}"
    );
    let e = load(&COIN.replace("0.5 : (x'=1)", "(x-x)/(x-x) : (x'=1)"))
        .err()
        .unwrap();
    assert!(
        matches!(
            &e,
            Error::Build(BuildError::Command {
                problem: CommandProblem::Eval(_),
                ..
            })
        ),
        "{e:?}"
    );
    // 1/0 is infinite, as in PRISM: no probability.
    let e = load(&COIN.replace("0.5 : (x'=1)", "1/(x-x) : (x'=1)"))
        .err()
        .unwrap();
    assert!(
        matches!(
            &e,
            Error::Build(BuildError::Command {
                problem: CommandProblem::ProbabilityOutside(p),
                ..
            }) if p == "Infinity"
        ),
        "{e:?}"
    );
    // Probabilities computed in floating point that sum to one within the rounding allowed,
    // but only by moving the largest by more than a relative 1e-9 (0.5 by 9e-10).
    let e = load(&COIN.replace(
        "0.5 : (x'=1) + 0.5",
        "pow(0.25, 0.5) : (x'=1) + 0.4999999991*pow(1, 0.5)",
    ))
    .err()
    .unwrap();
    assert!(
        matches!(
            &e,
            Error::Build(BuildError::State {
                problem: StateProblem::Rounding { .. },
                ..
            })
        ),
        "{e:?}"
    );
    let e = Loaded::new("m.prism", COIN, &[], 2).err().unwrap();
    assert_eq!(
        e,
        Error::Build(BuildError::StateLimit {
            limit: 2,
            initial: false
        })
    );
    let e =
        load("dtmc\nmodule m\n  x : [0..3];\n  [] true -> true;\nendmodule\ninit x>5 endinit\n")
            .err()
            .unwrap();
    assert_eq!(e, Error::Build(BuildError::Init(InitProblem::NoState)));
    assert_eq!(e.to_string(), "init … endinit holds in no state");
}

#[test]
fn analysis_errors_say_which_kind() {
    let e = answer(COIN, "P=? [ F x=1 ]", false).unwrap_err();
    assert!(
        matches!(&e, Error::Analysis(AnalysisError::Unsupported(_))),
        "{e:?}"
    );
    assert!(e.to_string().contains("an MDP needs Pmin/Pmax"), "{e}");

    let e = answer(COIN, "R{\"nope\"}max=? [ F x=1 ]", false).unwrap_err();
    assert_eq!(
        e,
        Error::Analysis(AnalysisError::NoRewardStructure(Some("nope".into())))
    );

    let inexact = COIN.replace("0.5 : (x'=1) + 0.5", "pow(0.25, 0.5) : (x'=1) + 0.5");
    assert!(answer(&inexact, "Pmax=? [ F x=1 ]", false).is_ok());
    let e = answer(&inexact, "Pmax=? [ F x=1 ]", true).unwrap_err();
    assert_eq!(e, Error::Analysis(AnalysisError::Inexact));

    // A part of a property that fails is named, then why.
    let e = answer(COIN, "Pmax=? [ F x=1 ] + P=? [ F x=2 ]", false).unwrap_err();
    let Error::Analysis(AnalysisError::Part { part, error }) = &e else {
        panic!("{e:?}")
    };
    assert_eq!(part, "P=? [ F x = 2 ]");
    assert!(
        matches!(**error, AnalysisError::Unsupported(_)),
        "{error:?}"
    );
    let e = answer(
        COIN,
        "(Pmax=? [ F x=1 ] - 1/2) / (Pmax=? [ F x=1 ] - 1/2)",
        false,
    )
    .unwrap_err();
    assert!(
        matches!(&e, Error::Analysis(AnalysisError::Arithmetic(_))),
        "{e:?}"
    );

    let e = answer(COIN, "filter(state, Pmax=? [ F x=1 ], x>0)", false).unwrap_err();
    assert!(
        matches!(&e, Error::Analysis(AnalysisError::Filter(_))),
        "{e:?}"
    );
    let e = answer(COIN, "Pmax=? [ F>=5 x=1 ] + Pmax=? [ F<=c x=1 ]", false).unwrap_err();
    assert!(
        matches!(&e, Error::Analysis(AnalysisError::Part { error, .. }) if matches!(**error, AnalysisError::Text(_))),
        "{e:?}"
    );
    let e = answer(COIN, "Pmax=? [ F[5,2] x=1 ]", false).unwrap_err();
    assert!(
        matches!(&e, Error::Analysis(AnalysisError::StepBound(_))),
        "{e:?}"
    );
    // A variable where a constant must stand is named as one, not as an unknown name.
    for prop in ["Pmax=? [ F<=x x=1 ]", "R{\"r\"}max=? [ C<=x+1 ]"] {
        let e = answer(COIN, prop, false).unwrap_err();
        assert!(
            e.to_string()
                .contains("'x' is a variable of the model, and this must be a constant"),
            "{e}"
        );
    }
    let e = answer(COIN, "Pmax=? [ F<=y x=1 ]", false).unwrap_err();
    assert!(e.to_string().contains("unknown name 'y'"), "{e}");
}

#[test]
fn properties_and_formulas_errors() {
    let loaded = load(COIN).unwrap();
    let props = Props::new(
        &loaded.program,
        "m.props",
        "const int k;\nPmax=? [ F x=k ]",
        &[],
    )
    .unwrap();
    let e = check_prop(&loaded, &props, &props.props[0], false).unwrap_err();
    assert_eq!(e, Error::Props(PropsError::Undefined(vec!["k".into()])));

    // An error inside nested formulas is named by the formula where it is used and the one
    // where it arose.
    let model = COIN
        .replace(
            "module m",
            "formula a = 0/0;\nformula b = a + 1;\nformula c = b * 2;\nmodule m",
        )
        .replace("[] x>0 -> true;", "[] x>0 -> (x'=c);");
    let e = load(&model).err().unwrap();
    let Error::Text(d) = &e else { panic!("{e:?}") };
    assert_eq!(
        d.message,
        "in formula 'c' (through 'a'): 0/0 is not a real number"
    );
    let model = COIN
        .replace("module m", "formula a = 0/0;\nmodule m")
        .replace("[] x>0 -> true;", "[] x>0 -> (x'=a);");
    let Error::Text(d) = load(&model).err().unwrap() else {
        panic!()
    };
    assert_eq!(d.message, "in formula 'a': 0/0 is not a real number");
}
