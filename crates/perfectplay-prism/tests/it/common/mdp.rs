//! Random MDPs for the property tests: positions 0..n, two moves at each, and two sets of
//! positions, `phi` and `psi`, as labels.

use proptest::prelude::*;

/// A random MDP on positions 0..n: two moves at each, each to two positions; `phi` and `psi`
/// are sets of positions.
#[derive(Clone, Debug)]
pub struct Mdp {
    pub moves: Vec<[[(u32, usize); 2]; 2]>,
    pub phi: Vec<bool>,
    pub psi: Vec<bool>,
}

impl Mdp {
    pub fn prism(&self) -> String {
        let n = self.moves.len();
        let mut s = format!("mdp\nmodule m\n  x : [0..{}] init 0;\n", n - 1);
        for (x, moves) in self.moves.iter().enumerate() {
            for (i, outs) in moves.iter().enumerate() {
                let b: Vec<String> = outs
                    .iter()
                    .map(|(w, t)| format!("{w}/4 : (x'={t})"))
                    .collect();
                s.push_str(&format!("  [a{i}] x={x} -> {};\n", b.join(" + ")));
            }
        }
        s.push_str("endmodule\n");
        s.push_str(&labels(&self.phi, &self.psi));
        s
    }
}

/// The labels `"phi"` and `"psi"` over a variable `x`, holding at the positions set in `phi`
/// and `psi`.
pub fn labels(phi: &[bool], psi: &[bool]) -> String {
    let set = |v: &[bool]| {
        let xs: Vec<String> = (0..v.len())
            .filter(|&x| v[x])
            .map(|x| format!("x={x}"))
            .collect();
        if xs.is_empty() {
            "false".to_string()
        } else {
            xs.join(" | ")
        }
    };
    format!(
        "label \"phi\" = {};\nlabel \"psi\" = {};\n",
        set(phi),
        set(psi)
    )
}

impl Mdp {
    /// The value of each position under `step`, applied `rounds` times (or until it settles
    /// when `rounds` is `None`) from `from`: `step(x, q)` is the position's new value given
    /// `q(m)`, the mean of the current values after move `m`.
    pub fn iterate(
        &self,
        from: Vec<f64>,
        rounds: Option<usize>,
        step: impl Fn(usize, &dyn Fn(usize) -> f64) -> f64,
    ) -> Vec<f64> {
        let n = self.moves.len();
        let mut v = from;
        for _ in 0..rounds.unwrap_or(400_000) {
            let old = v.clone();
            let mut change = 0.0f64;
            for x in 0..n {
                let q = |m: usize| -> f64 {
                    self.moves[x][m]
                        .iter()
                        .map(|&(w, t)| w as f64 / 4.0 * old[t])
                        .sum()
                };
                v[x] = step(x, &q);
                change = change.max((v[x] - old[x]).abs());
            }
            if rounds.is_none() && change < 1e-15 {
                break;
            }
        }
        v
    }
}

/// A random MDP of 2 to 5 positions.
pub fn mdp() -> impl Strategy<Value = Mdp> {
    (2usize..=5).prop_flat_map(|n| {
        let outs = [(1u32..=3, 0..n), (0u32..=0, 0..n)];
        (
            prop::collection::vec([outs.clone(), outs], n),
            prop::collection::vec(any::<bool>(), n),
            prop::collection::vec(any::<bool>(), n),
        )
            .prop_map(|(moves, phi, psi)| Mdp {
                moves: moves
                    .into_iter()
                    .map(|m| m.map(|[(w, t), (_, u)]| [(w, t), (4 - w, u)]))
                    .collect(),
                phi,
                psi,
            })
    })
}
