//! The PRISM support table of the user guide (`docs/prism.md`) is the list of what the
//! language front end takes, checked here: every row of the table has a case below and every
//! case a row, and each case runs `perfectplay check` on a small model whose answer was worked
//! out by hand, or, for a row that says `no`, is refused with an error naming it.

use std::path::Path;

use crate::common::{file, run, text};

/// The model most cases use: from state 0, a fair coin to state 1 or 2, then state 3 for ever;
/// one reward a step before state 3.
const BASE: &str = "dtmc
const int N = 3;
formula done = s=N;
module m
  s : [0..3] init 0;
  [] s=0 -> 0.5 : (s'=1) + 0.5 : (s'=2);
  [] s=1 -> (s'=3);
  [] s=2 -> (s'=3);
  [] s=3 -> (s'=3);
endmodule
label \"goal\" = done;
rewards \"steps\" s<3 : 1; endrewards
";

/// A game (the one of the prism crate's tests): Max stops (1/2) or lets Min flip a coin of
/// 3/4 or 2/3; Min takes 2/3, which beats stopping, so the value is 2/3.
const GAME: &str = "smg
player maxi [go], [stop] endplayer
player mini [three_quarters], [two_thirds] endplayer
module m
  x : [0..3] init 0;
  [go] x=0 -> (x'=1);
  [stop] x=0 -> 1/2 : (x'=2) + 1/2 : (x'=3);
  [three_quarters] x=1 -> 3/4 : (x'=2) + 1/4 : (x'=3);
  [two_thirds] x=1 -> 2/3 : (x'=2) + 1/3 : (x'=3);
endmodule
";

/// Two modules taking a step together on `go`: after one step `y` is 1 with probability 1/2.
const SYNC: &str = "dtmc
module a
  x : [0..1] init 0;
  [go] x=0 -> (x'=1);
  [go] x=1 -> true;
endmodule
module b
  y : [0..2] init 0;
  [go] y<2 -> 0.5 : (y'=y+1) + 0.5 : (y'=y);
  [go] y=2 -> true;
endmodule
";

/// What a case expects.
enum Want {
    /// The last line of the answer ends with this.
    Answer(&'static str),
    /// The run fails with an error line containing this.
    Refused(&'static str),
}

use Want::{Answer, Refused};

/// A case: the start of its row's first cell, the model, the properties, whether `--exact`,
/// and what it gives.
type Case = (&'static str, String, &'static str, bool, Want);

fn cases() -> Vec<Case> {
    let base = || BASE.to_string();
    vec![
        (
            "`dtmc` (`probabilistic`), `mdp`",
            "nondeterministic\nmodule m\n s : [0..2] init 0;\n [] s=0 -> (s'=1);\n [] s=0 -> (s'=2);\n [] s>0 -> true;\nendmodule\n".into(),
            "Pmin=? [ F s=2 ]",
            false,
            Answer(": 0"),
        ),
        ("`smg`", GAME.into(), "<<maxi>> Pmax=? [ F x=2 ]", true, Answer("= 2/3")),
        (
            "`ctmc`",
            "ctmc\nmodule m\n s : [0..1] init 0;\n [] s=0 -> 2 : (s'=1);\nendmodule\n".into(),
            "P=? [ F s=1 ]",
            false,
            Refused("model type 'ctmc' is not supported"),
        ),
        ("constants", base(), "N - 1", false, Answer(": 2")),
        (
            "formulas, labels",
            base(),
            "P=? [ F done & \"goal\" & !\"init\" & !\"deadlock\" ]",
            false,
            Answer(": 1"),
        ),
        (
            "global and module variables",
            "dtmc\nglobal g : [0..1] init 0;\nmodule m\n b : bool init false;\n [] !b -> 0.25 : (b'=true) & (g'=1) + 0.75 : (b'=true);\n [] b -> true;\nendmodule\n".into(),
            "P=? [ F g=1 ]",
            true,
            Answer("= 1/4"),
        ),
        (
            "modules, module renaming",
            "dtmc\nmodule a\n x : [0..1] init 0;\n [] x=0 -> 0.5 : (x'=1) + 0.5 : (x'=0);\n [] x=1 -> true;\nendmodule\nmodule b = a [x=y] endmodule\n".into(),
            "P=? [ F x=1 & y=1 ]",
            false,
            Answer(": 1"),
        ),
        ("synchronisation on actions", SYNC.into(), "P=? [ F<=1 y=1 ]", false, Answer(": 0.5")),
        (
            "`system … endsystem`",
            // a's [go] hidden: a and b each take their own step, one of the two at a time.
            format!("{SYNC}system (a / {{go}}) || b endsystem\n"),
            "P=? [ F<=1 y=1 ]",
            true,
            Answer("= 1/4"),
        ),
        (
            "probabilistic updates",
            "dtmc\nmodule m\n s : [0..3] init 0;\n [] s=0 -> 1/3 : (s'=1) + 1/6 : (s'=2) + 0.5 : (s'=3);\n [] s>0 -> true;\nendmodule\n".into(),
            "P=? [ F s=2 ]",
            true,
            Answer("= 1/6"),
        ),
        (
            "`init … endinit`",
            "dtmc\nmodule m\n s : [0..3];\n [] s<3 -> (s'=s+1);\n [] s=3 -> true;\nendmodule\ninit s=1 | s=2 endinit\n".into(),
            "filter(count, s>0, \"init\")",
            false,
            Answer(": 2"),
        ),
        ("reward structures", base(), "R{\"steps\"}=? [ F \"goal\" ]", false, Answer(": 2")),
        ("expressions", base(), "pow(2, 10) + mod(7, 3) + floor(2.5) + 2^3", false, Answer(": 1035")),
        (
            "deadlocks",
            "dtmc\nmodule m\n s : [0..1] init 0;\n [] s=0 -> (s'=1);\nendmodule\nrewards [] true : 1; endrewards\n".into(),
            "R=? [ C ]",
            false,
            Answer(": 1"),
        ),
        ("`P=?`, `Pmin=?`, `Pmax=?` of `F`, `U`", base(), "P=? [ s!=2 U s=3 ]", false, Answer(": 0.5")),
        ("step bounds", base(), "P=? [ F=1 s=1 ]", false, Answer(": 0.5")),
        ("`G`, `G<=k`, `W`, `R`", base(), "P=? [ G s!=1 ]", false, Answer(": 0.5")),
        ("`X`", base(), "P=? [ X s=2 ]", false, Answer(": 0.5")),
        ("a state formula alone as the path", base(), "filter(count, E [ s>=2 ])", false, Answer(": 2")),
        ("a path in parentheses or negated", base(), "P<0.5 [ !(F s=2) ]", false, Answer(": false")),
        ("`R=?`, `Rmin=?`, `Rmax=?` of `F`", base(), "R{\"steps\"}=? [ F s=1 ]", false, Answer(": inf")),
        ("`R` of `Fc`, `C`", base(), "R{\"steps\"}=? [ C<=1 ]", false, Answer(": 1")),
        ("`R` of `F0`", base(), "R{\"steps\"}=? [ F0 \"goal\" ]", false, Answer(": 2")),
        ("bounds `P>=b", base(), "P>=0.5 [ F s=1 ]", false, Answer(": true")),
        ("`<<p1,p2>>` coalitions", GAME.into(), "<<mini>> Pmin=? [ F x=2 ]", true, Answer("= 2/3")),
        ("`filter(op, prop, states)`", base(), "filter(sum, s, true)", false, Answer(": 6")),
        ("`{φ}`, `{φ}{min}`", base(), "P=? [ F s=3 {s=1} ]", false, Answer(": 1")),
        ("state formulas nested", base(), "P=? [ F P>=1 [ X s=3 ] ]", false, Answer(": 1")),
        ("CTL `E [ … ]`", base(), "E [ F s=1 ]", false, Answer(": true")),
        ("arithmetic over queries", base(), "1 - P=? [ F s=1 ]", false, Answer(": 0.5")),
        ("a named property used in another", base(), "\"a\": P=? [ F s=1 ]\n\"b\": 1 - \"a\"", false, Answer("b: 0.5")),
        ("an expression over variables and labels", base(), "s + 1", false, Answer(": 1")),
        (
            "a property without a filter over several initial states",
            "dtmc\nmodule m\n s : [0..4];\n [] s<3 -> 1/2 : (s'=s+1) + 1/2 : (s'=4);\nendmodule\ninit s=1 | s=2 endinit\n".into(),
            "P=? [ F s=3 ]",
            true,
            Answer(": [0.25 = 1/4, 0.5 = 1/2]"),
        ),
        (
            "`T=?`, `Tmin=?`, `Tmax=?`",
            base(),
            "T=? [ F \"goal\" ]",
            true,
            Answer(": 2"),
        ),
        (
            "`F^{rew{\"r\"}<=b} φ`",
            // From 0 (reward 1) to 1 or 2; 1 to the end, 2 (a step of reward 2) to 0 or the
            // end: within 3, 1/2 by 1 and 1/4 by 2.
            "dtmc\nmodule w\n s : [0..3] init 0;\n [go] s=0 -> 0.5:(s'=1) + 0.5:(s'=2);\n [go] s=1 -> (s'=3);\n [go] s=2 -> 0.5:(s'=0) + 0.5:(s'=3);\n [] s=3 -> true;\nendmodule\nrewards \"r\"\n s=0 : 1;\n [go] s=2 : 2;\nendrewards\n".into(),
            "P=? [ F^{rew{\"r\"}<=3} s=3 ]",
            true,
            Answer(": 0.75 = 3/4"),
        ),
        (
            "`S=? [ φ ]`, `R=? [ S ]`",
            "dtmc\nmodule m\n s : [0..1] init 0;\n [] s=0 -> 1/3 : (s'=1) + 2/3 : true;\n [] s=1 -> 1/2 : (s'=0) + 1/2 : true;\nendmodule\n".into(),
            "S=? [ s=1 ]",
            true,
            Answer("= 2/5"),
        ),
        ("LTL, multi-objective", base(), "P=? [ G F s=3 ]", false, Refused("(LTL, such as F G")),
    ]
}

/// The first cells of the support table's rows.
fn table_rows() -> Vec<String> {
    let guide = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/prism.md");
    let text = std::fs::read_to_string(guide).unwrap();
    text.lines()
        .skip_while(|l| !l.starts_with("| construct | supported |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            l.trim_start_matches("| ")
                .split(" | ")
                .next()
                .unwrap()
                .to_string()
        })
        .collect()
}

#[test]
fn every_row_of_the_support_table_has_a_case_and_every_case_a_row() {
    let rows = table_rows();
    let cases = cases();
    assert!(rows.len() >= 30, "{rows:?}");
    for row in &rows {
        let n = cases.iter().filter(|c| row.starts_with(c.0)).count();
        assert_eq!(n, 1, "row {row:?} has {n} cases");
    }
    for case in &cases {
        assert!(
            rows.iter().any(|r| r.starts_with(case.0)),
            "no row for case {:?}",
            case.0
        );
    }
}

#[test]
fn every_case_gives_its_answer() {
    for (i, (row, model, props, exact, want)) in cases().into_iter().enumerate() {
        let model = file(&format!("case{i}.prism"), &model);
        let props = file(&format!("case{i}.props"), props);
        let mut args = vec!["check", &model, &props, "-q"];
        if exact {
            args.push("--exact");
        }
        let o = run(&args);
        let (stdout, stderr) = (text(&o.stdout), text(&o.stderr));
        match want {
            Answer(end) => {
                assert!(o.status.success(), "{row}: {stderr}");
                let last = stdout.lines().last().unwrap_or_default();
                assert!(last.ends_with(end), "{row}: {stdout}");
            }
            Refused(words) => {
                assert_eq!(o.status.code(), Some(2), "{row}: {stdout}");
                assert!(
                    stderr.starts_with("error: ") && stderr.contains(words),
                    "{row}: {stderr}"
                );
            }
        }
    }
}
