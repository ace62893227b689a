//! Files as PRISM reads them: properties files with one property per line (`;` optional),
//! formulas and labels of their own, constants needed only where used, unsupported properties
//! that fail alone; properties that compute with the values of queries
//! (`(1/2) * <<p1,p2>> R{"v"}max=? [ F done ]`), each against the same queries answered on
//! their own; coalition bounds; and `system … endsystem` blocks (PRISM's process algebra).

use perfectplay_prism::{check_prop, Loaded, Props};

/// A game whose values are worked out by hand. Max at 0 stops (reaching 2 with probability
/// 1/2, earning 1) or goes to 1, where Min flips a coin of 3/4 or 2/3 for 2 (earning 2).
/// State 3 loses; state 4 is reachable only by Min's choice at 1 and then loops for ever.
const GAME: &str = "smg
player maxi [go], [stop] endplayer
player mini [three_quarters], [two_thirds], [trap] endplayer
module m
  x : [0..4] init 0;
  [go] x=0 -> (x'=1);
  [stop] x=0 -> 1/2 : (x'=2) + 1/2 : (x'=3);
  [three_quarters] x=1 -> 3/4 : (x'=2) + 1/4 : (x'=3);
  [two_thirds] x=1 -> 2/3 : (x'=2) + 1/3 : (x'=3);
  [trap] x=1 -> (x'=4);
endmodule
rewards \"steps\"
  [go] true : 2;
  [stop] true : 1;
endrewards
";

fn load() -> Loaded {
    Loaded::new("game.prism", GAME, &[], 1_000).unwrap_or_else(|e| panic!("{e}"))
}

/// Every property of the properties file `text`: the float value and the exact one.
fn all(loaded: &Loaded, text: &str, exact: bool) -> Vec<Result<(f64, Option<String>), String>> {
    let props =
        Props::new(&loaded.program, "game.props", text, &[]).unwrap_or_else(|e| panic!("{e}"));
    props
        .props
        .iter()
        .map(|p| {
            check_prop(loaded, &props, p, exact)
                .map(|a| match a.holds {
                    Some(b) => (f64::from(u8::from(b)), Some(b.to_string())),
                    None => (a.value, a.exact),
                })
                .map_err(|e| e.to_string())
        })
        .collect()
}

fn exact_of(loaded: &Loaded, text: &str) -> String {
    match &all(loaded, text, true)[..] {
        [Ok((_, Some(q)))] => q.clone(),
        other => panic!("{text}: {other:?}"),
    }
}

#[test]
fn properties_need_no_semicolons_between_them() {
    let loaded = load();
    let text = "<<maxi>> Pmax=? [ F x=2 ]
<<mini>> Pmin=? [ F x=2 ]
\"named\": <<maxi>> Pmin=? [ F x=2 ];
<<*>> Pmax=? [ F x=2 ] // a comment
const int K = 2;
<<maxi>> Pmax=? [ F x=K ]
";
    let props = Props::new(&loaded.program, "game.props", text, &[]).unwrap();
    assert_eq!(props.props.len(), 5);
    assert_eq!(props.props[2].name.as_deref(), Some("named"));
    let got: Vec<_> = all(&loaded, text, true)
        .into_iter()
        .map(|r| r.unwrap().1.unwrap())
        .collect();
    // Max maximising: Min would trap the play (worth 0), so Max stops: 1/2. Min minimising
    // is the same game. Max minimising stops too, as Min would then pick 3/4. Everyone
    // together goes and picks 3/4.
    assert_eq!(got, ["1/2", "1/2", "1/2", "3/4", "1/2"]);
}

#[test]
fn arithmetic_over_queries_matches_the_queries_on_their_own() {
    let loaded = load();
    let p = exact_of(&loaded, "<<*>> Pmax=? [ F x=2 ]");
    let r = exact_of(&loaded, "<<maxi>> R{\"steps\"}min=? [ F x>=2 ]");
    assert_eq!((p.as_str(), r.as_str()), ("3/4", "1"));
    for (text, want) in [
        ("(1/2) * <<*>> Pmax=? [ F x=2 ]", "3/8"),
        ("1 - <<*>> Pmax=? [ F x=2 ]", "1/4"),
        (
            "<<*>> Pmax=? [ F x=2 ] + <<maxi>> R{\"steps\"}min=? [ F x>=2 ]",
            "7/4",
        ),
        ("-<<*>> Pmax=? [ F x=2 ] / 3", "-1/4"),
        ("max(<<*>> Pmax=? [ F x=2 ], 0.7)", "3/4"),
        ("min(<<*>> Pmax=? [ F x=2 ], 0.7, 1)", "7/10"),
        ("floor(10 * <<*>> Pmax=? [ F x=2 ])", "7"),
        ("ceil(10 * <<*>> Pmax=? [ F x=2 ])", "8"),
        ("round(2 * <<*>> Pmax=? [ F x=2 ])", "2"),
        ("pow(<<*>> Pmax=? [ F x=2 ], 2)", "9/16"),
        ("pow(<<*>> Pmax=? [ F x=2 ], -1)", "4/3"),
        (
            "<<*>> Pmax=? [ F x=2 ] > 0.5 ? 1 : <<*>> Pmax=? [ F x=2 ]",
            "1",
        ),
        ("<<*>> Pmax=? [ F x=2 ] > 3/4", "false"),
        ("<<*>> Pmax=? [ F x=2 ] >= 3/4", "true"),
        (
            "<<*>> Pmax=? [ F x=2 ] = 0.75 & <<maxi>> Pmax=? [ F x=2 ] < 0.75",
            "true",
        ),
        ("!(<<*>> Pmax=? [ F x=2 ] != 0.75)", "true"),
        ("<<*>> P>=0.75 [ F x=2 ] | false", "true"),
        ("filter(max, <<*>> Pmax=? [ F x=2 ], \"init\") * 4", "3"),
    ] {
        for exact in [false, true] {
            let got = all(&loaded, text, exact);
            let Ok((v, q)) = &got[0] else {
                panic!("{text}: {got:?}")
            };
            match (exact || matches!(want, "true" | "false"), q) {
                (true, Some(q)) => assert_eq!(q, want, "{text}"),
                (true, None) => panic!("{text}: no exact value"),
                // In floats the value is the nearest double of the exact one.
                (false, _) => {
                    let (n, d) = want.split_once('/').unwrap_or((want, "1"));
                    let w = n.parse::<f64>().unwrap() / d.parse::<f64>().unwrap();
                    assert!((v - w).abs() < 1e-12, "{text}: {v} against {want}");
                }
            }
        }
    }
}

#[test]
fn infinite_values_follow_the_rules_and_undefined_ones_are_errors() {
    let loaded = load();
    // Everyone maximising goes and traps the play at 4, where 2 and 3 are never reached: +∞.
    let inf = "<<*>> R{\"steps\"}max=? [ F x=2 | x=3 ]";
    assert_eq!(
        all(&loaded, inf, false)[0].as_ref().unwrap().0,
        f64::INFINITY
    );
    for (text, want) in [
        (format!("{inf} + 1"), Ok(f64::INFINITY)),
        (format!("2 * {inf}"), Ok(f64::INFINITY)),
        (format!("1 / {inf}"), Ok(0.0)),
        (format!("{inf} > 1000000"), Ok(1.0)),
        (format!("min({inf}, 5)"), Ok(5.0)),
        (format!("{inf} - {inf}"), Err("undefined")),
        (format!("0 * {inf}"), Err("undefined")),
        (format!("floor({inf})"), Err("undefined")),
        // x/0 is ±∞ as in PRISM; 0/0 is no number.
        (
            "1 / (1 - <<*>> Pmax=? [ F x<=3 ])".to_string(),
            Ok(f64::INFINITY),
        ),
        (
            "(1 - <<*>> Pmax=? [ F x<=3 ]) / 0".to_string(),
            Err("0/0 is undefined"),
        ),
        (
            "mod(<<*>> Pmax=? [ F x=2 ], 2)".to_string(),
            Err("not supported"),
        ),
        (
            "pow(<<*>> Pmax=? [ F x=2 ], 5000)".to_string(),
            Err("at most 1024"),
        ),
        (format!("pow({inf}, 2)"), Ok(f64::INFINITY)),
        (
            "<<*>> Pmax=? [ F x=2 ] & true".to_string(),
            Err("truth value"),
        ),
    ] {
        for exact in [false, true] {
            match (&all(&loaded, &text, exact)[0], want) {
                (Ok((v, _)), Ok(w)) => assert_eq!(*v, w, "{text}"),
                (Err(e), Err(w)) => assert!(e.contains(w), "{text}: {e}"),
                (got, _) => panic!("{text}: {got:?} against {want:?}"),
            }
        }
    }
    // A power that need not be rational is computed in floating point, as PRISM does, and
    // an exact answer is refused.
    let root = "pow(<<*>> Pmax=? [ F x=2 ], 0.5)";
    let (v, q) = all(&loaded, root, false)[0].clone().unwrap();
    assert!(
        (v - 0.75f64.sqrt()).abs() < 1e-15 && q.is_none(),
        "{v} {q:?}"
    );
    let e = all(&loaded, root, true)[0].clone().unwrap_err();
    assert!(e.contains("no exact answer"), "{e}");
    // So is a logarithm, exact where it is whole (4/3 is (3/4)^-1).
    let log = "log(<<*>> Pmax=? [ F x=2 ], 2)";
    let (v, q) = all(&loaded, log, false)[0].clone().unwrap();
    assert!(
        (v - 0.75f64.log2()).abs() < 1e-15 && q.is_none(),
        "{v} {q:?}"
    );
    assert!(all(&loaded, log, true)[0].is_err());
    let whole = "log(1 / <<*>> Pmax=? [ F x=2 ], 3/4)";
    assert_eq!(
        all(&loaded, whole, true)[0],
        Ok((-1.0, Some("-1".to_string())))
    );
    let e = all(&loaded, "log(<<*>> Pmax=? [ F x=2 ], 1)", false)[0]
        .clone()
        .unwrap_err();
    assert!(e.contains("undefined"), "{e}");
    let e = all(&loaded, "pow(-<<*>> Pmax=? [ F x=2 ], 0.5)", false)[0]
        .clone()
        .unwrap_err();
    assert!(e.contains("no real number"), "{e}");
}

/// The engine's other commands optimise one query; a property that computes with several is
/// refused with a clear error rather than guessed at.
#[test]
fn explain_and_play_need_one_query() {
    let loaded = load();
    let props = Props::new(
        &loaded.program,
        "game.props",
        "1 - <<*>> Pmax=? [ F x=2 ]",
        &[],
    )
    .unwrap();
    let Err(e) = perfectplay_prism::query_model(&loaded, &props, &props.props[0]) else {
        panic!("a model for a compound property");
    };
    assert!(e.to_string().contains("one P or R query"), "{e}");
}

/// `<<C>> P>=b` in a game asks whether the coalition can ensure the bound whatever the others
/// do (PRISM-games), so the coalition maximises against a lower bound and minimises against an
/// upper one.
#[test]
fn a_coalition_bound_asks_what_the_coalition_can_ensure() {
    let loaded = load();
    for (text, want) in [
        // Max ensures 1/2 by stopping, and no more.
        ("<<maxi>> P>=0.5 [ F x=2 ]", "true"),
        ("<<maxi>> P>0.5 [ F x=2 ]", "false"),
        // Min keeps it at 1/2 (Max stops), and no lower.
        ("<<mini>> P<=0.5 [ F x=2 ]", "true"),
        ("<<mini>> P<0.5 [ F x=2 ]", "false"),
        // Min maximising against Max minimising: Max stops rather than let Min pick 3/4.
        ("<<mini>> P>=0.5 [ F x=2 ]", "true"),
        ("<<mini>> P>0.5 [ F x=2 ]", "false"),
        // Max minimising against Min maximising: 1/2 again, which is not below 1/2.
        ("<<maxi>> P<0.5 [ F x=2 ]", "false"),
        // Everyone together: 3/4 at best, 0 at worst (Min traps the play).
        ("<<*>> P>=0.75 [ F x=2 ]", "true"),
        ("<<*>> P<=0 [ F x=2 ]", "true"),
    ] {
        let got = all(&loaded, text, false);
        assert_eq!(got[0].as_ref().unwrap().1.as_deref(), Some(want), "{text}");
    }
}

/// A property written with a construct PRISM has and this front end does not (LTL) is an
/// error of its own, naming the construct and its line;
/// the file's other properties are checked, and a constant the file leaves undefined is needed
/// only by the properties that use it, as in PRISM.
#[test]
fn an_unsupported_property_does_not_stop_the_others() {
    let loaded = load();
    let text = "const int k;
<<maxi>> Pmax=? [ F x=2 ]
filter(max, <<*>> Pmax=? [ G F x=k ], x=0)
\"b\": <<*>> Pmax=? [ X X x=2 ];
<<*>> Pmax=? [ F G x=2 ]
<<maxi>> Pmax=? [ F x=k ]
<<*>> Pmax=? [ F x=2 ]
";
    let parsed = perfectplay_prism::parse_properties("game.props", text).unwrap();
    assert_eq!(parsed.properties.len(), 3);
    assert_eq!(parsed.unsupported.len(), 3);
    assert_eq!(
        parsed.unsupported[0].text,
        "filter(max, <<*>> Pmax=? [ G F x=k ], x=0)"
    );
    let again = perfectplay_prism::parse_properties("printed", &parsed.to_string()).unwrap();
    assert_eq!(again, parsed, "{parsed}");
    // A property kept aside runs on over a line break where it cannot end (after `>>`), as
    // the parse that found it did: it is one property, and it prints and parses back.
    let split = "<<mini>>\n(1/2) * <<maxi>> Pmax=? [ F x=2 ]\n<<*>> Pmax=? [ F x=2 ]\n";
    let parsed = perfectplay_prism::parse_properties("split.props", split).unwrap();
    assert_eq!((parsed.unsupported.len(), parsed.properties.len()), (1, 1));
    let again = perfectplay_prism::parse_properties("printed", &parsed.to_string()).unwrap();
    assert_eq!(again, parsed, "{parsed}");

    let got = all(&loaded, text, true);
    assert_eq!(got.len(), 6);
    let wants = [
        Ok("1/2"),
        Err("game.props:3:30: temporal operators inside a path (LTL"),
        Err("game.props:4:23: temporal operators inside a path (LTL"),
        Err("game.props:5:18: temporal operators inside a path (LTL"),
        Err("undefined constant 'k' of the properties"),
        Ok("3/4"),
    ];
    for (i, (got, want)) in got.iter().zip(wants).enumerate() {
        match (got, want) {
            (Ok((_, q)), Ok(w)) => assert_eq!(q.as_deref(), Some(w), "property {i}"),
            (Err(e), Err(w)) => assert!(e.contains(w), "property {i}: {e}"),
            _ => panic!("property {i}: {got:?} against {want:?}"),
        }
    }
    let props = Props::new(
        &loaded.program,
        "game.props",
        text,
        &[("k".to_string(), "2".to_string())],
    )
    .unwrap();
    assert_eq!(props.props[1].name, None);
    assert_eq!(props.props[2].name.as_deref(), Some("b"));
    let a = check_prop(&loaded, &props, &props.props[4], true).unwrap();
    assert_eq!(a.exact.as_deref(), Some("1/2"));
}

/// A properties file may declare formulas and labels of its own, as in PRISM, built on the
/// model's and on each other; a name defined twice is an error at its place.
#[test]
fn a_properties_file_declares_formulas_and_labels() {
    let loaded = load();
    let text = "const int two = 2;
formula reached = x = two;
label \"win\" = reached;
label \"end\" = \"win\" | x = 3;
<<maxi>> Pmax=? [ F \"win\" ]
<<*>> Pmax=? [ F \"end\" & !\"win\" ]
<<*>> Pmin=? [ !\"end\" U reached ]
";
    let got: Vec<_> = all(&loaded, text, true)
        .into_iter()
        .map(|r| r.unwrap().1.unwrap())
        .collect();
    // Everyone maximising the chance of 3 stops (1/2) rather than go (at best 1/3); everyone
    // minimising the chance of 2 goes and traps the play.
    assert_eq!(got, ["1/2", "1/2", "0"]);
    for (text, place) in [
        (
            "label \"win\" = x=2;\nlabel \"win\" = x=3;\nP=? [ F \"win\" ]",
            "p:2:7",
        ),
        ("formula x = 1;\n<<*>> Pmax=? [ F x=2 ]", "p:1:9"),
        (
            "const int k = 1;\nformula k = 2;\n<<*>> Pmax=? [ F x=k ]",
            "p:2:9",
        ),
    ] {
        let Err(e) = Props::new(&loaded.program, "p", text, &[]) else {
            panic!("{text}")
        };
        assert!(
            e.to_string().starts_with(&format!("{place}: ")) && e.to_string().contains("twice"),
            "{e}"
        );
    }
}

/// A `system … endsystem` block composes the modules by PRISM's process algebra: `||` (on the
/// shared actions, in any order and grouping: what PRISM does without a block), `|||` (on none),
/// `|[…]|` (on those listed), hiding and renaming; every module once.
#[test]
fn a_system_block_composes_the_modules() {
    let model = |system: &str, shared: &str| {
        format!(
            "dtmc
module a
  x : [0..1];
  [s] x=0 -> (x'=1);
endmodule
module b
  y : [0..1];
  [{shared}] y=0 -> 0.5 : (y'=1) + 0.5 : true;
endmodule
{system}
"
        )
    };
    let value = |src: &str| -> Result<String, String> {
        let loaded = Loaded::new("sys.prism", src, &[], 1_000).map_err(|e| e.to_string())?;
        let props = Props::new(&loaded.program, "p", "P=? [ F x=1 & y=1 ]", &[]).unwrap();
        let a = check_prop(&loaded, &props, &props.props[0], true).map_err(|e| e.to_string())?;
        Ok(a.exact.unwrap())
    };
    // Synchronised on [s], the coin is flipped once with x's step: 1/2. Apart, b flips until
    // heads: 1.
    assert_eq!(value(&model("", "s")).unwrap(), "1/2");
    assert_eq!(value(&model("", "t")).unwrap(), "1");
    for (system, shared, want) in [
        ("system a || b endsystem", "s", "1/2"),
        ("system b||a endsystem", "s", "1/2"),
        ("system ((b) || a) endsystem", "s", "1/2"),
        ("system a |[s]| b endsystem", "s", "1/2"),
        // Apart: on no action, or with [s] of one side hidden or renamed.
        ("system a ||| b endsystem", "s", "1"),
        ("system a ||| b endsystem", "t", "1"),
        ("system a |[t]| b endsystem", "s", "1"),
        ("system a/{s} || b endsystem", "s", "1"),
        ("system a || b {s<-u} endsystem", "s", "1"),
        // Renamed to meet: [t] of b becomes [s].
        ("system a || (b {t<-s}) endsystem", "t", "1/2"),
        // Hidden above the synchronisation: still one step together.
        ("system (a || b) / {s} endsystem", "s", "1/2"),
        // Synchronised on an action one side lacks: blocked, so x stays 0.
        ("system a |[s]| b endsystem", "t", "0"),
    ] {
        let src = model(system, shared);
        assert_eq!(value(&src).unwrap(), want, "{system} [{shared}]");
        let parsed = perfectplay_prism::parse_model("m", &src).unwrap();
        let again = perfectplay_prism::parse_model("again", &parsed.to_string()).unwrap();
        assert_eq!(again, parsed, "{system}");
    }
    for (system, why) in [
        ("system a || a endsystem", "module 'a' appears twice"),
        ("system a endsystem", "leaves out module 'b'"),
        ("system a || c endsystem", "no module 'c'"),
        ("system (a || b endsystem", "expected ')'"),
        ("system a || b ||| a endsystem", "expected 'endsystem'"),
        ("system a || b {s<-t, s<-u} endsystem", "renamed twice"),
        (
            "system a || b endsystem\nsystem a || b endsystem",
            "a second system",
        ),
    ] {
        let e = value(&model(system, "s")).unwrap_err();
        assert!(
            e.starts_with("sys.prism:") && e.contains(why),
            "{system}: {e}"
        );
    }
}

/// A renaming of a name the base module does not use renames nothing, as in Storm: the copy
/// is the one the renaming without it gives.
#[test]
fn a_renaming_of_a_name_the_base_lacks_renames_nothing() {
    let check = |extra: &str, prop: &str| -> String {
        let src = format!(
            "mdp
module m1
  x : [0..2];
  [a] x<2 -> (x'=x+1);
  [] x=2 -> (x'=0);
endmodule
module m2 = m1 [ x=y{extra} ] endmodule
"
        );
        let loaded = Loaded::new("copy.prism", &src, &[], 1_000).unwrap();
        let props = Props::new(&loaded.program, "p", prop, &[]).unwrap();
        let a = check_prop(&loaded, &props, &props.props[0], true).unwrap();
        a.exact.unwrap()
    };
    // x and y step together on [a] and reset on their own: x=2 with y=0 is reachable, and
    // resetting x first avoids it.
    for extra in ["", ", b=c", ", z=w, b=a2"] {
        assert_eq!(check(extra, "Pmax=? [ F x=2 & y=0 ]"), "1", "{extra}");
        assert_eq!(check(extra, "Pmin=? [ F x=2 & y=0 ]"), "0", "{extra}");
    }
}

/// Which of three modules take part in each step: `(a ||| b) || c` lets c step with a or with
/// b on [s], never with both; transition rewards go by the name a step has in the end, and a
/// hidden step earns the `[]` rewards.
#[test]
fn a_composition_picks_who_steps_together_and_what_it_earns() {
    let src = |system: &str| {
        format!(
            "dtmc
module a
  x : [0..1];
  [s] x=0 -> (x'=1);
endmodule
module b = a [x=y] endmodule
module c
  z : [0..2];
  [s] z<2 -> (z'=z+1);
endmodule
rewards \"r\"
  [s] true : 1;
  [] true : 10;
endrewards
{system}
"
        )
    };
    let check = |system: &str, prop: &str| -> String {
        let loaded = Loaded::new("three.prism", &src(system), &[], 1_000).unwrap();
        let props = Props::new(&loaded.program, "p", prop, &[]).unwrap();
        let a = check_prop(&loaded, &props, &props.props[0], true).unwrap();
        a.exact.unwrap()
    };
    // All on [s] at once: one step, then nothing can move (x, y are 1).
    assert_eq!(check("", "P=? [ F z=2 ]"), "0");
    // c with a or with b, one at a time (each 1/2 first): z reaches 2 surely, x and y 1.
    assert_eq!(
        check(
            "system (a ||| b) || c endsystem",
            "P=? [ F z=2 & x=1 & y=1 ]"
        ),
        "1"
    );
    assert_eq!(
        check("system (a ||| b) || c endsystem", "R{\"r\"}=? [ C<=2 ]"),
        "2"
    );
    // The same steps hidden earn [] rewards instead.
    assert_eq!(
        check(
            "system ((a ||| b) || c) / {s} endsystem",
            "R{\"r\"}=? [ C<=2 ]"
        ),
        "20"
    );
    // Renamed, [s] earns nothing: the steps are [t] now.
    assert_eq!(
        check(
            "system ((a ||| b) || c) {s<-t} endsystem",
            "R{\"r\"}=? [ C<=2 ]"
        ),
        "0"
    );
}

/// PRISM's built-in labels: `"init"` (the initial states) and `"deadlock"` (no command enabled,
/// synchronisation counted: an action is enabled where every module that has it has an
/// enabled command of it).
#[test]
fn the_built_in_labels_init_and_deadlock() {
    // From (0,0), [s] moves x to 1 or 2 and y to 1 or 0, each with 1/2. (1,0) goes back to
    // (0,0); (1,1) goes to (0,1), where a may take [s] but b may not: a deadlock with x=0;
    // (2,0) is a deadlock, and (2,1) goes to it. So a deadlock with x=0 comes with
    // probability (1/4) / (3/4) = 1/3, and some deadlock surely (Storm agrees).
    let src = "dtmc
module a
  x : [0..2] init 0;
  [s] x=0 -> 0.5:(x'=1) + 0.5:(x'=2);
  [] x=1 -> (x'=0);
endmodule
module b
  y : [0..1] init 0;
  [s] y=0 -> 0.5:(y'=1) + 0.5:(y'=0);
  [] y=1 & x=2 -> (y'=0);
endmodule
";
    let loaded = Loaded::new("dl.prism", src, &[], 1_000).unwrap();
    let text = "P=? [ F \"deadlock\" ]
P=? [ F \"deadlock\" & x=0 ]
P=? [ \"init\" U x=2 ]
P=? [ F \"init\" & x=1 ]";
    let got: Vec<_> = all(&loaded, text, true)
        .into_iter()
        .map(|r| r.unwrap().1.unwrap())
        .collect();
    assert_eq!(got, ["1", "1/3", "1/2", "0"]);
    // With init … endinit, "init" is that condition.
    let src = "mdp
module m
  x : [0..3];
  [] x<3 -> (x'=x+1);
endmodule
init x=1 | x=2 endinit
";
    let loaded = Loaded::new("init.prism", src, &[], 1_000).unwrap();
    let got = all(
        &loaded,
        "filter(min, Pmin=? [ \"init\" U x=3 ], \"init\")\nfilter(max, Pmax=? [ F \"init\" & x=2 ], \"init\")",
        true,
    );
    assert_eq!(got[0].as_ref().unwrap().1.as_deref(), Some("1"));
    assert_eq!(got[1].as_ref().unwrap().1.as_deref(), Some("1"));
}
