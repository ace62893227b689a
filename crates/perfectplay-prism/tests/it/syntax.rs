//! The syntax of the PRISM language on the QVBS models (`tests/qvbs/`, CC-BY 4.0, see its
//! `LICENSE-NOTE.md`): every model and properties file parses, prints back to text that parses
//! to the same tree, and every case's property parses; malformed text is an error that names
//! the line and column, never a panic.

use std::path::PathBuf;

use crate::common::{cases, qvbs};

use perfectplay_prism::ast::{ExprKind, Item, ModelType, Opt, Path as QPath};
use perfectplay_prism::{parse_model, parse_properties};
use proptest::prelude::*;

/// Every file under `tests/qvbs/models` with one of these endings.
fn files(endings: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in std::fs::read_dir(qvbs().join("models")).unwrap() {
        for f in std::fs::read_dir(dir.unwrap().path()).unwrap() {
            let p = f.unwrap().path();
            let name = p.to_string_lossy().to_string();
            if endings.iter().any(|e| name.ends_with(e)) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn model_files() -> Vec<PathBuf> {
    files(&[".prism", ".pm", ".nm"])
}

#[test]
fn every_model_parses_and_round_trips() {
    let files = model_files();
    assert_eq!(files.len(), 35, "{files:?}");
    for path in files {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let model = parse_model(&name, &text).unwrap_or_else(|e| panic!("{}", e.render()));
        let printed = model.to_string();
        let again = parse_model("printed", &printed)
            .unwrap_or_else(|e| panic!("{name}: {}\n{printed}", e.render()));
        assert_eq!(again, model, "{name}");
        // Printing is a fixed point after one round.
        assert_eq!(again.to_string(), printed, "{name}");
        assert!(matches!(model.model_type, ModelType::Dtmc | ModelType::Mdp));
        assert!(model.items.iter().any(|i| matches!(i, Item::Module(_))));
    }
}

#[test]
fn every_properties_file_parses_and_round_trips() {
    let files = files(&[".props", ".prctl"]);
    assert_eq!(files.len(), 10);
    for path in files {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        // haddad-monmege's file asks Storm's expected time (T=?) too.
        let props = parse_properties(&name, &text).unwrap();
        assert!(props.unsupported.is_empty(), "{name}");
        assert!(!props.properties.is_empty(), "{name}");
        let again = parse_properties("printed", &props.to_string()).unwrap();
        assert_eq!(again, props, "{name}");
    }
}

#[test]
fn every_case_property_parses_as_its_kind() {
    let cases = cases();
    assert_eq!(cases.len(), 184);
    for case in &cases {
        let text = case["property"].as_str().unwrap();
        let props = parse_properties("case", text).unwrap_or_else(|e| panic!("{}", e.render()));
        assert_eq!(props.properties.len(), 1);
        let mut e = &props.properties[0].expr;
        if let ExprKind::Filter(_, inner, _) = &e.kind {
            e = inner;
        }
        let ExprKind::Query(q) = &e.kind else {
            panic!("{text}: not a query");
        };
        let kind = case["kind"].as_str().unwrap();
        match (kind, &q.path) {
            ("prob-reach", QPath::Eventually(_)) | ("exp-reward", QPath::Eventually(_)) => {}
            ("prob-until", QPath::Until(..)) => {}
            _ => panic!("{text} is not a {kind}"),
        }
        // An MDP's query asks for an optimum; a DTMC's does not.
        let mdp = case["type"] == "mdp";
        assert_eq!(q.opt != Opt::None, mdp, "{text}");
    }
}

#[test]
fn errors_name_the_line_and_column_and_show_a_caret() {
    let e = parse_model(
        "m.prism",
        "dtmc\nmodule m\n  x : [0..1];\n  [] x=0 -> (x'=1)\nendmodule\n",
    )
    .unwrap_err();
    assert_eq!(
        e.render(),
        "m.prism:5:1: expected ';', found 'endmodule'\n  |\n5 | endmodule\n  | ^^^^^^^^^"
    );
    for kind in ["ctmc", "pta", "pomdp", "popta", "imdp", "imc", "lts", "csg"] {
        let e = parse_model("m.prism", &format!("// a model\n{kind}\n")).unwrap_err();
        assert_eq!(
            e.headline(),
            format!("m.prism:2:1: model type '{kind}' is not supported (dtmc, mdp and smg are)")
        );
    }
    // A construct PRISM has and this front end does not keeps its property aside, with the
    // error, so that the file's other properties can still be checked.
    let kept_aside = |text: &str| {
        let file = parse_properties("p", text).unwrap();
        assert!(file.properties.is_empty(), "{text}");
        file.unsupported[0].error.clone()
    };
    let e = kept_aside("L=? [ \"done\" ]");
    assert_eq!(
        e.headline(),
        "p:1:1: the operator 'L' is not supported (P, R, S, T, E and A are)"
    );
    // Several bounds after `^` on one path (Storm's syntax), in a file whose other properties
    // still parse; one reward bound parses.
    let file = parse_properties(
        "p",
        "P=? [ F^{rew{\"t\"}<=5, steps<=2} \"done\" ];\nP=? [ F^{rew{\"t\"}<=5} \"done\" ]",
    )
    .unwrap();
    assert_eq!(file.properties.len(), 1);
    assert_eq!(
        file.unsupported[0].error.headline(),
        "p:1:21: several bounds on one path (F^{steps<=k, rew{\"r\"}<=b}) are not supported: \
         one bound is"
    );
    let e = kept_aside("P=? [ G^{rew{\"t\"}<=5} \"done\" ]");
    assert_eq!(
        e.headline(),
        "p:1:8: bounds after '^' belong to F and U (F^{rew{\"r\"}<=b} φ); G, W and R take \
         step bounds (G<=k)"
    );
    // Storm's long-run average over schedulers, which PRISM does not have; `Smax` is still a
    // name where no `=?` follows.
    let e = kept_aside("Smax=? [ \"done\" ]");
    assert_eq!(
        e.headline(),
        "p:1:1: S takes no min or max: long-run averages (S=? [ φ ], R=? [ S ]) are answered \
         on DTMCs, as in PRISM"
    );
    assert!(parse_properties("p", "const int Smax = 2;\nP=? [ F Smax=2 ]").is_ok());
    let e = kept_aside("<<a>> (R{\"c\"}<=5 [ C ] & P>=0.5 [ F x>1 ])");
    assert_eq!(
        e.headline(),
        "p:1:7: multi-objective queries (<<...>> ( … & … )) are not supported"
    );
    let e = kept_aside("multi(Pmax=? [ F x>1 ], R{\"c\"}<=5 [ C ])");
    assert_eq!(
        e.headline(),
        "p:1:1: multi-objective queries (multi(…)) are not supported"
    );
    let e = kept_aside("P=? [ G F x>1 ]");
    assert_eq!(
        e.headline(),
        "p:1:9: temporal operators inside a path (LTL, such as F G φ or (a U b) U c) are not \
         supported: a P query takes one of F, G, X, U, W or R"
    );
    // Paths joined by a connective are LTL, refused by name wherever a path stands.
    for (text, at) in [
        ("Pmax=? [ (F x>1) & true ]", 18),
        ("P=? [ (G x=0) | (F G x=1) ]", 15),
        ("E [ (F x=1) => (F x=0) ]", 13),
        ("filter(forall, A [ (X x=1) <=> (X x=0) ], x=0)", 28),
    ] {
        assert_eq!(
            kept_aside(text).headline(),
            format!(
                "p:1:{at}: boolean combinations of path formulas (LTL, such as (F a) & (G b)) \
                 are not supported: a query takes one path formula"
            ),
            "{text}"
        );
    }
    let e = kept_aside("P=? [ a U b U c ]");
    assert!(
        e.headline().starts_with("p:1:13: temporal operators"),
        "{}",
        e.headline()
    );
    let e = parse_properties("p", "P!=0.5 [ F x>1 ]").unwrap_err();
    assert_eq!(
        e.headline(),
        "p:1:2: expected '=?' or a bound (such as '>=0.5') after P, found '!='"
    );
    let e = parse_model(
        "m",
        "mdp\nmodule m x : [0..1]; [] sqrt(x)=1 -> true; endmodule",
    )
    .unwrap_err();
    assert!(
        e.headline().contains("unknown function 'sqrt'"),
        "{}",
        e.headline()
    );
    let e = parse_model("m", "mdp\nmodule m x : int; endmodule").unwrap_err();
    assert!(
        e.headline().contains("unbounded variables"),
        "{}",
        e.headline()
    );
}

#[test]
fn the_rest_of_the_language_parses_and_round_trips() {
    let text = r#"smg
const int N;
const double p = 1.5e-1;
const bool b = true;
const k = -3;
formula f = x + 1 > N ? 1 : 0;
formula g = f * 2;
global z : [0..N] init 0;
player p1 m1, [go] endplayer
player p2 m2 endplayer
module m1
  x : [0..2*N] init N;
  y : bool;
  [go] x < N & !y -> p : (x'=x+1) + 1-p : (x'=max(x-1, 0)) & (y'=true);
  [] y => x = 0 <=> b -> (z'=mod(z + 1, N));
  [] true -> true;
endmodule
module m2 = m1 [x=w, y=v, go=stop] endmodule
rewards "r"
  [go] true : 1;
  x > 0 : pow(2, x) / 3;
endrewards
rewards
  true : floor(1.5) + ceil(0.5) + round(2.5) + log(8, 2);
endrewards
init x = 0 endinit
label "done" = x = 2*N & -(-x) >= -1;
"#;
    let model = parse_model("t", text).unwrap_or_else(|e| panic!("{}", e.render()));
    let again = parse_model("printed", &model.to_string()).unwrap();
    assert_eq!(again, model, "{model}");
    // PRISM's older forms: `prob` and `rate` declare doubles, `func(f, …)` calls f, and a file
    // without a model type is an MDP.
    let old = "prob q = 0.25;\nrate r = 2;\nmodule m\n  x : [0..3];\n  [] x < 3 -> q : (x'=func(min, x + 1, 3)) + 1 - q : (x'=func(max, x, 1));\nendmodule\n";
    let model = parse_model("old", old).unwrap_or_else(|e| panic!("{}", e.render()));
    let new = "mdp\nconst double q = 0.25;\nconst double r = 2;\nmodule m\n  x : [0..3];\n  [] x < 3 -> q : (x'=min(x + 1, 3)) + 1 - q : (x'=max(x, 1));\nendmodule\n";
    assert_eq!(model, parse_model("new", new).unwrap());
    assert_eq!(parse_model("printed", &model.to_string()).unwrap(), model);
    for bad in ["x = func(sqrt, 2);", "x = func(min);", "x = func(pow, 2);"] {
        let text = format!("mdp\nformula {bad}");
        assert!(parse_model("bad", &text).is_err(), "{bad}");
    }
    let props = r#"const int K = 2;
"a": <<p1>> Pmax=? [ F "done" ];
<<p1, p2>> R{"r"}min=? [ Fc x = K ];
<<>> Rmax=? [ F0 "done" ];
R{1}max=? [ F "done" ];
R{"r"}min=? [ C ];
P=? [ F<=K+1 x = 1 ];
P=? [ x = 0 U<3 (x = 1) ];
<<p1>> Pmin=? [ F<=K (x = 1) ];
P=? [ F<=K (-x > -2) ];
R{"r"}max=? [ C<=K*2 ];
R=? [ I=3 ];
filter(max, Pmin=? [ !"done" U x > 1 ], "init");
Pmax=? [ F x = 1 ] + 1;
P>=1 [ F "done" ];
R{"r"}<=2.5 [ F "done" ];
Pmin=? [ G x < 3 ];
P>0.5 [ G<=K (x > -1) ];
Pmax=? [ x = 0 W (x = 1 | "done") ];
P=? [ !"done" R x < 2 ];
<<p1>> Pmax=? [ X x = 1 ];
P=? [ F[K,K+3] x = 1 ];
Pmin=? [ x < 2 U[1,K] "done" ];
P>=0.5 [ G[2,4] x != 3 ]"#;
    let p = parse_properties("props", props).unwrap_or_else(|e| panic!("{}", e.render()));
    assert_eq!(p.properties.len(), 23);
    assert_eq!(parse_properties("printed", &p.to_string()).unwrap(), p);
}

/// Generated models write conjunctions and sums of thousands of terms: they parse (as
/// balanced trees, so no pass nests deeply), print and parse back to the same tree, and mean
/// what they say.
#[test]
fn long_chains_parse_round_trip_and_evaluate() {
    let n = 5000;
    let terms = |op: &str, f: &dyn Fn(usize) -> String| (0..n).map(f).collect::<Vec<_>>().join(op);
    let text = format!(
        "dtmc\nmodule m\n  x : [0..1];\n  [] x=0 -> (x'=1);\nendmodule\n\
         label \"all\" = {};\nlabel \"any\" = {};\nlabel \"sum\" = {} = {};\n\
         label \"short\" = x=1 & x=1 & x=1;\n",
        terms(" & ", &|_| "x=1".to_string()),
        terms(" | ", &|i| if i == n - 1 {
            "x=1".into()
        } else {
            "x=2".into()
        }),
        terms(" + ", &|i| format!("{}", i % 3)),
        (0..n).map(|i| i % 3).sum::<usize>(),
    );
    let model = parse_model("long", &text).unwrap_or_else(|e| panic!("{}", e.render()));
    let printed = model.to_string();
    assert_eq!(parse_model("printed", &printed).unwrap(), model);
    // A short chain prints as written.
    assert!(
        printed.contains("label \"short\" = x = 1 & x = 1 & x = 1;"),
        "{printed}"
    );
    let loaded = perfectplay_prism::Loaded::new("long", &text, &[], 10).unwrap();
    for (label, want) in [("all", "1"), ("any", "1"), ("sum", "1")] {
        let props = perfectplay_prism::Props::new(
            &loaded.program,
            "p",
            &format!("P=? [ F \"{label}\" ]"),
            &[],
        )
        .unwrap();
        let a = perfectplay_prism::check_prop(&loaded, &props, &props.props[0], true).unwrap();
        assert_eq!(a.exact.as_deref(), Some(want), "{label}");
    }
}

/// A printed expression, after every operator with every other as an operand, parses back to
/// the same tree.
#[test]
fn precedence_survives_printing() {
    let ops = ["<=>", "=>", "|", "&", "=", "<", "+", "-", "*", "/"];
    for a in ops {
        for b in ops {
            for text in [
                format!("x {a} y {b} z"),
                format!("(x {a} y) {b} z"),
                format!("x {a} (y {b} z)"),
                format!("!x {a} -y {b} z ? 1 : 2"),
            ] {
                let m = format!("mdp\nlabel \"l\" = {text};");
                let Ok(parsed) = parse_model("t", &m) else {
                    continue;
                };
                let again = parse_model("printed", &parsed.to_string()).unwrap();
                assert_eq!(again, parsed, "{text} printed as {parsed}");
            }
        }
    }
}

/// `text` with one mutation at the fraction `at` of its length: `byte` replacing the byte
/// there (`what` 0), `len` bytes cut out (1) or repeated (2), or the rest cut off (3).
fn mutate(text: &str, at: f64, len: usize, what: u8, byte: u8) -> String {
    let mut bytes = text.as_bytes().to_vec();
    let i = ((bytes.len() as f64) * at) as usize;
    let j = (i + len).min(bytes.len());
    match what {
        0 => {
            if i < bytes.len() {
                bytes[i] = byte
            }
        }
        1 => {
            bytes.drain(i..j);
        }
        2 => {
            let part: Vec<u8> = bytes[i..j].to_vec();
            bytes.splice(i..i, part);
        }
        _ => bytes.truncate(i),
    }
    String::from_utf8_lossy(&bytes).to_string()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Mutations of the QVBS files (a byte replaced, a span cut out or repeated) parse or
    /// give a diagnostic inside the text, and what parses loads or gives an error; the front
    /// end never panics or hangs. Inputs worth keeping go to the corpus (`tests/corpus/`).
    #[test]
    fn mutated_models_never_panic(file in 0usize..35, at in 0.0f64..1.0, len in 0usize..40, what in 0u8..4, byte in 32u8..127) {
        let files = model_files();
        let text = mutate(&std::fs::read_to_string(&files[file]).unwrap(), at, len, what, byte);
        match parse_model("mutant", &text) {
            Err(e) => {
                prop_assert!(e.line >= 1 && e.line <= text.lines().count() + 1);
                prop_assert!(!e.message.is_empty());
            }
            // What parses is checked and built too (a few states): an error, never a panic.
            Ok(_) => {
                if let Err(e) = perfectplay_prism::Loaded::new("mutant", &text, &[], 1000) {
                    prop_assert!(!e.to_string().is_empty());
                }
            }
        }
    }
}

/// A game and properties that use what a properties file may hold: constants left undefined,
/// formulas and labels, unsupported properties kept aside, bounds, filters, arithmetic over
/// queries and every reward variant. Its mutations are fuzzed below.
const FUZZ_GAME: &str = "smg
player maxi [go], [stop] endplayer
player mini [left], [right] endplayer
module m
  x : [0..3] init 0;
  [stop] x=0 -> 1/2 : (x'=2) + 1/2 : (x'=3);
  [go] x=0 -> (x'=1);
  [left] x=1 -> 3/4 : (x'=2) + 1/4 : (x'=0);
  [right] x=1 -> (x'=3);
endmodule
rewards \"r\"
  [go] true : 2;
  x=1 : 1;
endrewards
system m endsystem
";
const FUZZ_PROPS: &str = "const int k;
const double h = 0.5;
formula won = x = 2;
label \"end\" = won | x = 3;
\"a\": <<maxi>> Pmax=? [ F won ];
<<mini>> P>=h [ !\"end\" U won ]
(1/2) * <<maxi,mini>> R{\"r\"}max=? [ F \"end\" ] + 1
filter(max, <<*>> Rmin=? [ Fc won ], \"init\") / max(1, <<maxi>> Pmin=? [ F x=k ])
<<maxi>> R{\"r\"}max=? [ F0 \"end\" ] >= 2 ? 1 : floor(3 * <<1>> Pmax=? [ F x>=2 ])
<<mini>> R{\"r\"}min=? [ C ]
<<maxi>> Pmax=? [ F<=k won ];
<<mini>> Pmin=? [ G<k !won ] + <<maxi>> Pmax=? [ x<3 W won ] - (P>0.5 [ won R x>0 ] ? 1 : 0)
<<*>> Pmax=? [ X x=2 ]
filter(range, <<mini>> Pmin=? [ X won ], x=0)
<<maxi>> Pmax=? [ F>=2 won ] + <<mini>> Pmin=? [ x<3 U=k won ]
E [ F A [ G won ] ] & A [ x<3 W>=1 won ]
<<maxi>> Pmax=? [ F <<mini>> P>0.5 [ X won ] ]
filter(argmax, <<maxi>> Pmax=? [ F=2 won ], x<2)
filter(print, E [ x<3 R<=k !won ])
filter(sum, <<maxi>> Pmax=? [ F won ] ^ 2, x<3) + filter(count, won) - 1/0 * 0.5e40
<<mini>> Pmin=? [ F won {x=0}{max} ]
filter(forall, A [ F<=3 \"end\" ]) | filter(exists, <<maxi>> P>=1e-30 [ F[1,3] won ])
filter(avg, <<maxi>> Rmax=? [ I=k ], \"init\") <= 0.1234567890123456789012345678901234567890
<<maxi>> (R{\"r\"}<=5 [ C ] & P>=0.5 [ F won ])
";

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Mutations of a properties file (a byte replaced, a span cut out or repeated) parse or
    /// give a diagnostic inside the text, and every property of what parses is checked or
    /// gives an error, in floats and exactly; nothing panics or hangs.
    #[test]
    fn mutated_properties_never_panic(at in 0.0f64..1.0, len in 0usize..40, what in 0u8..4, byte in 32u8..127, k in 0u8..5) {
        let text = mutate(FUZZ_PROPS, at, len, what, byte);
        match parse_properties("mutant", &text) {
            Err(e) => {
                prop_assert!(e.line >= 1 && e.line <= text.lines().count() + 1);
                prop_assert!(!e.message.is_empty());
            }
            Ok(parsed) => {
                let again = parse_properties("printed", &parsed.to_string());
                prop_assert!(again.is_ok(), "{}", parsed);
                let loaded = perfectplay_prism::Loaded::new("game", FUZZ_GAME, &[], 1000).unwrap();
                let given = [("k".to_string(), k.to_string())];
                if let Ok(props) = perfectplay_prism::Props::new(&loaded.program, "mutant", &text, &given) {
                    for p in &props.props {
                        for exact in [false, true] {
                            if let Err(e) = perfectplay_prism::check_prop(&loaded, &props, p, exact) {
                                prop_assert!(!e.to_string().is_empty());
                            }
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn the_fuzzed_properties_are_checked_unmutated() {
    let loaded = perfectplay_prism::Loaded::new("game", FUZZ_GAME, &[], 1000).unwrap();
    let given = [("k".to_string(), "2".to_string())];
    let props = perfectplay_prism::Props::new(&loaded.program, "p", FUZZ_PROPS, &given).unwrap();
    assert_eq!(props.props.len(), 20);
    let ok = props
        .props
        .iter()
        .filter(|p| perfectplay_prism::check_prop(&loaded, &props, p, true).is_ok())
        .count();
    // The last is kept aside as unsupported.
    assert_eq!(ok, 19);
}

/// `a ^ b` is `pow(a, b)`: tighter than a minus before it, grouped from the right, a minus
/// allowed in the exponent; it prints as the call, which reads back the same.
#[test]
fn the_power_operator_is_pow() {
    let expr = |text: &str| perfectplay_prism::parse_expr("--prop", text).unwrap();
    for (power, call) in [
        ("2^3", "pow(2, 3)"),
        ("-2^2", "-pow(2, 2)"),
        ("2^3^2", "pow(2, pow(3, 2))"),
        ("2^-1", "pow(2, -1)"),
        ("2*3^2", "2 * pow(3, 2)"),
        ("(1+1)^x", "pow(1 + 1, x)"),
    ] {
        assert_eq!(expr(power), expr(call), "{power}");
        assert_eq!(expr(power).to_string(), call.replace("1+1", "1 + 1"));
    }
}
