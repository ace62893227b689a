//! Contest input formats: parse a whole input, answer every case.

use crate::grid_game::GridGame;
use crate::yeetzhee::Yeetzhee;
use crate::GameError;

/// Reads an input line by line: each line of a format holds a fixed count of integers, so a
/// missing or extra number is reported on its own line. Blank lines are skipped.
struct Lines<'a> {
    lines: Vec<(usize, Vec<&'a str>)>,
    at: usize,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Self {
        let lines = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.split_whitespace().collect::<Vec<_>>()))
            .filter(|(_, tokens)| !tokens.is_empty())
            .collect();
        Lines { lines, at: 0 }
    }

    /// The next line, which must hold `count` integers in `lo..=hi`: `what` names them
    /// ("N, M and K", "a group size").
    fn numbers(
        &mut self,
        what: &str,
        count: usize,
        lo: i64,
        hi: i64,
    ) -> Result<(usize, Vec<i64>), GameError> {
        let Some((line, tokens)) = self.lines.get(self.at) else {
            let line = self.lines.last().map_or(1, |(l, _)| l + 1);
            return Err(GameError::Input {
                line,
                message: format!("the input ends where {what} was expected"),
            });
        };
        let line = *line;
        self.at += 1;
        let error = |message| GameError::Input { line, message };
        if tokens.len() > count {
            return Err(error(format!(
                "extra input '{}' after {what} ({count} number{} on this line)",
                tokens[count],
                if count == 1 { "" } else { "s" }
            )));
        }
        if tokens.len() < count {
            return Err(error(format!(
                "expected {what}: {count} numbers on this line, got {}",
                tokens.len()
            )));
        }
        let values = tokens
            .iter()
            .map(|t| match t.parse::<i64>() {
                Ok(v) if (lo..=hi).contains(&v) => Ok(v),
                Ok(_) => Err(error(format!("{what}: {t} is out of range {lo}..={hi}"))),
                Err(_) if crate::params::is_integer(t) => {
                    Err(error(format!("{what}: {t} is out of range {lo}..={hi}")))
                }
                Err(_) => Err(error(format!("expected {what} (integers), got '{t}'"))),
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok((line, values))
    }

    /// The number of cases on the first line: zero cases is an empty input, in every format.
    fn cases(&mut self, most: i64) -> Result<i64, GameError> {
        Ok(self.numbers("the number of cases T", 1, 0, most)?.1[0])
    }

    /// Fails if anything follows the `cases` cases.
    fn finish(&self, cases: i64) -> Result<(), GameError> {
        match self.lines.get(self.at) {
            Some((line, tokens)) => Err(GameError::Input {
                line: *line,
                message: format!(
                    "unexpected extra input '{}' after the T = {cases} cases",
                    tokens[0]
                ),
            }),
            None => Ok(()),
        }
    }
}

/// Kick Start 2020 Round F "Yeetzhee": `T`, then per case a line `N M K` and `K` lines of one
/// group size each. One model per case, in order.
pub fn yeetzhee_cases(input: &str) -> Result<Vec<Yeetzhee>, GameError> {
    let mut t = Lines::new(input);
    let cases = t.cases(1000)?;
    let mut out = Vec::new();
    for _ in 0..cases {
        let (line, nmk) = t.numbers("N, M and K", 3, 1, 50)?;
        let mut groups = Vec::new();
        for _ in 0..nmk[2] {
            groups.push(t.numbers("a group size", 1, 1, 50)?.1[0] as u32);
        }
        // The case's numbers are the input's, not parameters: say what is wrong with them.
        let game =
            Yeetzhee::new(nmk[0] as u32, nmk[1] as u32, &groups).map_err(|e| GameError::Input {
                line,
                message: match e {
                    GameError::Param { message, .. } => message,
                    other => other.to_string(),
                },
            })?;
        out.push(game);
    }
    t.finish(cases)?;
    Ok(out)
}

/// UVa 11553 "Grid Game": `t`, then per case a line `n` and `n` lines of `n` integers.
pub fn grid_game_cases(input: &str) -> Result<Vec<GridGame>, GameError> {
    let mut t = Lines::new(input);
    let cases = t.cases(10_000)?;
    let mut out = Vec::new();
    for _ in 0..cases {
        let n = t.numbers("n", 1, 1, 1000)?.1[0] as usize;
        let mut grid = Vec::with_capacity(n);
        for r in 1..=n {
            let what = format!("row {r} of the grid (n = {n} numbers)");
            let m = crate::grid_game::MAX_ABS;
            grid.push(t.numbers(&what, n, -m, m)?.1);
        }
        out.push(GridGame::new(grid)?);
    }
    t.finish(cases)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_input_names_the_line() {
        let e = |r: Result<Vec<Yeetzhee>, GameError>| r.err().unwrap().to_string();
        assert_eq!(
            e(yeetzhee_cases("1\n3 6 2\n1\n")),
            "input line 4: the input ends where a group size was expected"
        );
        assert_eq!(
            e(yeetzhee_cases("1\n3 6 2\n2\n1\n")),
            "input line 2: group sizes must be non-decreasing"
        );
        // An extra number on the line of N, M and K is that, not a group size.
        assert_eq!(
            e(yeetzhee_cases("1\n3 6 2 7\n1\n2\n")),
            "input line 2: extra input '7' after N, M and K (3 numbers on this line)"
        );
        assert_eq!(
            e(yeetzhee_cases("1\n3 6\n1\n2\n")),
            "input line 2: expected N, M and K: 3 numbers on this line, got 2"
        );
        assert_eq!(
            e(yeetzhee_cases("2\n3 6 2\n1\n2\n")),
            "input line 5: the input ends where N, M and K was expected"
        );
        assert_eq!(
            e(yeetzhee_cases("1\n3 6 2\n1\n2\n5 2 1\n5\n")),
            "input line 5: unexpected extra input '5' after the T = 1 cases"
        );
        let g = |r: Result<Vec<GridGame>, GameError>| r.err().unwrap().to_string();
        assert_eq!(
            g(grid_game_cases("1\n2\n1 2\n3 x\n")),
            "input line 4: expected row 2 of the grid (n = 2 numbers) (integers), got 'x'"
        );
        assert_eq!(
            g(grid_game_cases("1\n2\n1 2\n3\n")),
            "input line 4: expected row 2 of the grid (n = 2 numbers): 2 numbers on this line, got 1"
        );
        assert_eq!(
            g(grid_game_cases("1\n1\n5\n7\n")),
            "input line 4: unexpected extra input '7' after the T = 1 cases"
        );
        assert_eq!(
            g(grid_game_cases("2\n1\n5\n")),
            "input line 4: the input ends where n was expected"
        );
    }

    /// No cases is an empty input in every format; a negative count is an error in every one.
    #[test]
    fn zero_cases_are_an_empty_input() {
        assert!(yeetzhee_cases("0\n").unwrap().is_empty());
        assert!(grid_game_cases("0\n").unwrap().is_empty());
        for e in [
            yeetzhee_cases("-1\n").err().unwrap().to_string(),
            grid_game_cases("-1\n").err().unwrap().to_string(),
        ] {
            assert!(
                e.starts_with("input line 1: the number of cases T: -1 is out of range 0..="),
                "{e}"
            );
        }
    }

    #[test]
    fn the_samples_parse() {
        let y = yeetzhee_cases("2\n3 6 2\n1\n2\n5 2 1\n5\n").unwrap();
        assert_eq!(y.len(), 2);
        let g = grid_game_cases("3\n2\n10 10\n-5 -5\n2\n10 -5\n10 -5\n2\n10 -5\n-5 10\n").unwrap();
        assert_eq!(g.len(), 3);
    }
}
