//! Contest input formats: parse a whole input, answer every case.

use crate::grid_game::GridGame;
use crate::yeetzhee::Yeetzhee;
use crate::GameError;

/// Reads whitespace-separated integers, remembering the line of each.
struct Tokens<'a> {
    items: Vec<(usize, &'a str)>,
    at: usize,
}

impl<'a> Tokens<'a> {
    fn new(text: &'a str) -> Self {
        let items = text
            .lines()
            .enumerate()
            .flat_map(|(i, l)| l.split_whitespace().map(move |t| (i + 1, t)))
            .collect();
        Tokens { items, at: 0 }
    }

    fn line(&self) -> usize {
        self.items
            .get(self.at)
            .or(self.items.last())
            .map_or(1, |(l, _)| *l)
    }

    fn int(&mut self, what: &str, lo: i64, hi: i64) -> Result<i64, GameError> {
        let line = self.line();
        let Some(&(line, t)) = self.items.get(self.at) else {
            return Err(GameError::Input {
                line,
                message: format!("the input ends where {what} was expected"),
            });
        };
        self.at += 1;
        let v: i64 = t.parse().map_err(|_| GameError::Input {
            line,
            message: if crate::params::is_integer(t) {
                format!("{what} {t} is out of range {lo}..={hi}")
            } else {
                format!("expected {what} (an integer), got '{t}'")
            },
        })?;
        if v < lo || v > hi {
            return Err(GameError::Input {
                line,
                message: format!("{what} {v} is out of range {lo}..={hi}"),
            });
        }
        Ok(v)
    }

    fn finish(&self) -> Result<(), GameError> {
        match self.items.get(self.at) {
            Some(&(line, t)) => Err(GameError::Input {
                line,
                message: format!("unexpected extra input '{t}'"),
            }),
            None => Ok(()),
        }
    }
}

/// Kick Start 2020 Round F "Yeetzhee": `T`, then per case `N M K` and `K` group sizes. One
/// model per case, in order.
pub fn yeetzhee_cases(input: &str) -> Result<Vec<Yeetzhee>, GameError> {
    let mut t = Tokens::new(input);
    let cases = t.int("the number of cases T", 1, 1000)?;
    let mut out = Vec::new();
    for _ in 0..cases {
        let line = t.line();
        let n = t.int("N", 1, 50)? as u32;
        let m = t.int("M", 1, 50)? as u32;
        let k = t.int("K", 1, 50)?;
        let mut groups = Vec::new();
        for _ in 0..k {
            groups.push(t.int("a group size", 1, 50)? as u32);
        }
        // The case's numbers are the input's, not parameters: say what is wrong with them.
        let game = Yeetzhee::new(n, m, &groups).map_err(|e| GameError::Input {
            line,
            message: match e {
                GameError::Param { message, .. } => message,
                other => other.to_string(),
            },
        })?;
        out.push(game);
    }
    t.finish()?;
    Ok(out)
}

/// UVa 11553 "Grid Game": `t`, then per case `n` and `n` rows of `n` integers.
pub fn grid_game_cases(input: &str) -> Result<Vec<GridGame>, GameError> {
    let mut t = Tokens::new(input);
    let cases = t.int("the number of cases t", 0, 10_000)?;
    let mut out = Vec::new();
    for _ in 0..cases {
        let n = t.int("n", 1, 1000)? as usize;
        let mut grid = vec![vec![0i64; n]; n];
        for row in grid.iter_mut() {
            for x in row.iter_mut() {
                *x = t.int(
                    "a grid value",
                    -crate::grid_game::MAX_ABS,
                    crate::grid_game::MAX_ABS,
                )?;
            }
        }
        out.push(GridGame::new(grid)?);
    }
    t.finish()?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_input_names_the_line() {
        let e = yeetzhee_cases("1\n3 6 2\n1\n").unwrap_err().to_string();
        assert_eq!(
            e,
            "input line 3: the input ends where a group size was expected"
        );
        let e = yeetzhee_cases("1\n3 6 2\n2\n1\n").unwrap_err().to_string();
        assert_eq!(e, "input line 2: group sizes must be non-decreasing");
        let e = grid_game_cases("1\n2\n1 2\n3 x\n").unwrap_err().to_string();
        assert_eq!(
            e,
            "input line 4: expected a grid value (an integer), got 'x'"
        );
        let e = grid_game_cases("1\n1\n5\n7\n").unwrap_err().to_string();
        assert_eq!(e, "input line 4: unexpected extra input '7'");
    }
}
