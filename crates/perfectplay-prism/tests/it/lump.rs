//! Exact solves of chains lump bisimilar states: a random chain copied several times, each
//! copy's moves landing in random copies, has the values of the chain itself, and its exact
//! solve covers one state per class. Float solves (which do not lump) agree within their
//! bound, and the symmetric ring of herman's protocol gives its known values.

use perfectplay_prism::Answer;
use perfectplay_prism::{check_prop, Loaded, Props};
use proptest::prelude::*;

fn answer(src: &str, prop: &str, exact: bool) -> Answer {
    let loaded = Loaded::new("m.prism", src, &[], 100_000).unwrap_or_else(|e| panic!("{e}"));
    let props = Props::new(&loaded.program, "p", prop, &[]).unwrap_or_else(|e| panic!("{e}"));
    check_prop(&loaded, &props, &props.props[0], exact).unwrap_or_else(|e| panic!("{prop}: {e}"))
}

/// A random chain on positions `0..n`: from each, two outcomes `(w/4 to t, (4-w)/4 to u)`,
/// with a reward per position and the sets `phi` and `psi`.
#[derive(Clone, Debug)]
struct Chain {
    outs: Vec<(u32, usize, usize)>,
    reward: Vec<u32>,
    phi: Vec<bool>,
    psi: Vec<bool>,
}

/// `chain` in the PRISM language, copied `k` times: position `x` of copy `c` moves to the
/// copies `copies[x * k + c]`. With `all_initial`, every state is initial.
fn prism(chain: &Chain, k: usize, copies: &[(usize, usize)], all_initial: bool) -> String {
    let n = chain.outs.len();
    let mut s = format!(
        "dtmc\nmodule m\n  x : [0..{}] init 0;\n  c : [0..{}] init 0;\n",
        n - 1,
        k - 1
    );
    for (x, &(w, t, u)) in chain.outs.iter().enumerate() {
        for c in 0..k {
            let (ct, cu) = copies[x * k + c];
            s.push_str(&format!(
                "  [] x={x} & c={c} -> {w}/4 : (x'={t}) & (c'={ct}) + {}/4 : (x'={u}) & (c'={cu});\n",
                4 - w
            ));
        }
    }
    s.push_str("endmodule\nrewards\n");
    for (x, r) in chain.reward.iter().enumerate() {
        s.push_str(&format!("  x={x} : {r};\n"));
    }
    s.push_str("endrewards\n");
    s.push_str(&crate::common::mdp::labels(&chain.phi, &chain.psi));
    if all_initial {
        // `init` blocks replace the variables' initial values.
        s = s.replace(" init 0;", ";");
        s.push_str("init true endinit\n");
    }
    s
}

fn chain() -> impl Strategy<Value = (Chain, usize, Vec<(usize, usize)>)> {
    (2usize..=5, 2usize..=4).prop_flat_map(|(n, k)| {
        (
            prop::collection::vec((1u32..=3, 0..n, 0..n), n),
            prop::collection::vec(0u32..=3, n),
            prop::collection::vec(any::<bool>(), n),
            prop::collection::vec(any::<bool>(), n),
            Just(k),
            prop::collection::vec((0..k, 0..k), n * k),
        )
            .prop_map(|(outs, reward, phi, psi, k, copies)| {
                (
                    Chain {
                        outs,
                        reward,
                        phi,
                        psi,
                    },
                    k,
                    copies,
                )
            })
    })
}

const PROPS: [&str; 6] = [
    "P=? [ F \"phi\" ]",
    "P=? [ \"psi\" U \"phi\" ]",
    "R=? [ F \"phi\" ]",
    "filter(max, R=? [ F \"phi\" ], \"init\")",
    "filter(avg, P=? [ \"psi\" U \"phi\" ], \"init\")",
    "filter(min, R=? [ F \"phi\" | \"psi\" ], \"init\")",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    #[test]
    fn copies_of_a_chain_have_its_values((chain, k, copies) in chain(), all_initial: bool) {
        let n = chain.outs.len();
        let base: Vec<(usize, usize)> = vec![(0, 0); n];
        let single = prism(&chain, 1, &base, all_initial);
        let copied = prism(&chain, k, &copies, all_initial);
        for prop in PROPS {
            if prop.starts_with("filter") != all_initial {
                continue;
            }
            let want = answer(&single, prop, true);
            let got = answer(&copied, prop, true);
            prop_assert_eq!(&got.exact, &want.exact, "{}\n{}", prop, copied);
            prop_assert_eq!(got.value, want.value);
            // One state per class, besides the virtual start and the states of known value,
            // where lumping halves the chain; where the copies are seldom reached it may not
            // (the classes then number more than half the states: fewer than twice the
            // classes are left as they are).
            prop_assert!(got.states <= n + 3 || got.states < 2 * (n + 3), "{}: {} states for {} positions\n{}", prop, got.states, n, copied);
            let float = answer(&copied, prop, false);
            if want.value.is_infinite() {
                prop_assert!(float.value.is_infinite());
            } else {
                let error = (float.value - want.value).abs();
                prop_assert!(error <= float.error_bound + 1e-12 * want.value.abs().max(1.0),
                    "{}: float {} exact {}", prop, float.value, want.value);
            }
        }
    }
}

#[test]
fn herman_rings_have_their_known_values() {
    // The most expected steps to one token: 4abc/N with three tokens at distances a, b, c
    // as even as N allows.
    for (n, want) in [(5, "16/5"), (7, "48/7"), (9, "12"), (11, "192/11")] {
        let a = answer(
            &herman(n),
            "filter(max, R=? [ F num_tokens=1 ], \"init\")",
            true,
        );
        assert_eq!(a.exact.as_deref(), Some(want), "herman {n}");
        // The rotations and reflections of a ring behave alike.
        assert!(a.states * n < 1 << n, "herman {n}: {} states", a.states);
    }
}

/// herman's protocol on a ring of `n` processes, as QVBS writes it.
fn herman(n: usize) -> String {
    let mut s = String::from("dtmc\nconst double p = 0.5;\nmodule process1\n  x1 : [0..1];\n");
    s.push_str(&format!(
        "  [step] (x1=x{n}) -> p : (x1'=0) + 1-p : (x1'=1);\n  [step] !(x1=x{n}) -> (x1'=x{n});\nendmodule\n"
    ));
    for i in 2..=n {
        s.push_str(&format!(
            "module process{i} = process1 [ x1=x{i}, x{n}=x{} ] endmodule\n",
            i - 1
        ));
    }
    s.push_str("rewards \"steps\"\n  true : 1;\nendrewards\ninit true endinit\n");
    let tokens: Vec<String> = (1..=n)
        .map(|i| format!("(x{i}=x{}?1:0)", if i == n { 1 } else { i + 1 }))
        .collect();
    s.push_str(&format!("formula num_tokens = {};\n", tokens.join("+")));
    s
}
