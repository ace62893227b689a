//! The tokens of the PRISM language: identifiers (keywords are identifiers the parser knows),
//! numbers as written, quoted strings, and punctuation. `//` comments and white space are
//! skipped.

use crate::syntax::diagnostic::Span;

/// A token's kind; the text of identifiers and numbers is in the source at its span.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tok {
    /// A name or keyword.
    Ident,
    /// A whole number.
    Int,
    /// A number with a fraction or an exponent.
    Real,
    /// `"..."`.
    Str,
    /// One of the operators or separators, as written.
    Punct(&'static str),
    /// The end of the text.
    End,
}

/// A token and where it is.
#[derive(Clone, Copy, Debug)]
pub struct Token {
    /// Its kind.
    pub tok: Tok,
    /// Where it is.
    pub span: Span,
}

/// Operators and separators, longest first so that the first match is the longest.
const PUNCT: [&str; 32] = [
    "<=>", "->", "=>", "<=", ">=", "!=", "..", "<<", ">>", "(", ")", "[", "]", "{", "}", ";", ",",
    ":", "=", "<", ">", "+", "-", "*", "/", "^", "!", "&", "|", "?", "'", ".",
];

/// Splits `src` into tokens, ending with [`Tok::End`]; an error is the span of a character
/// that starts no token, or of a string that does not end.
pub fn tokens(src: &str) -> Result<Vec<Token>, (Span, String)> {
    let bytes = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if src[i..].starts_with("//") {
            i = src[i..].find('\n').map_or(bytes.len(), |n| i + n);
            continue;
        }
        let start = i;
        let tok = if c.is_ascii_alphabetic() || c == b'_' {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            Tok::Ident
        } else if c.is_ascii_digit() {
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            let mut real = false;
            // A fraction, but not the `..` of a range.
            if i + 1 < bytes.len() && bytes[i] == b'.' && bytes[i + 1].is_ascii_digit() {
                real = true;
                i += 1;
                while i < bytes.len() && bytes[i].is_ascii_digit() {
                    i += 1;
                }
            }
            if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
                let mut j = i + 1;
                if j < bytes.len() && (bytes[j] == b'+' || bytes[j] == b'-') {
                    j += 1;
                }
                if j < bytes.len() && bytes[j].is_ascii_digit() {
                    real = true;
                    i = j;
                    while i < bytes.len() && bytes[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            if real {
                Tok::Real
            } else {
                Tok::Int
            }
        } else if c == b'"' {
            match src[i + 1..].find(['"', '\n']) {
                Some(n) if bytes[i + 1 + n] == b'"' => i += n + 2,
                _ => {
                    return Err((
                        Span::new(start, start + 1),
                        "this string has no closing quote on its line".to_string(),
                    ))
                }
            }
            Tok::Str
        } else if let Some(p) = PUNCT.iter().find(|p| src[i..].starts_with(**p)) {
            i += p.len();
            Tok::Punct(p)
        } else {
            let ch = src[i..].chars().next().expect("not at the end");
            return Err((
                Span::new(start, start + ch.len_utf8()),
                format!("unexpected character {ch:?}"),
            ));
        };
        out.push(Token {
            tok,
            span: Span::new(start, i),
        });
    }
    out.push(Token {
        tok: Tok::End,
        span: Span::new(src.len(), src.len()),
    });
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<(Tok, &str)> {
        tokens(src)
            .unwrap()
            .into_iter()
            .map(|t| (t.tok, &src[t.span.start..t.span.end]))
            .collect()
    }

    #[test]
    fn numbers_ranges_and_operators() {
        assert_eq!(
            kinds("x : [0..N-1]; // c\n1.5e-3 2e3 3.0 <=> 'a\"l\""),
            vec![
                (Tok::Ident, "x"),
                (Tok::Punct(":"), ":"),
                (Tok::Punct("["), "["),
                (Tok::Int, "0"),
                (Tok::Punct(".."), ".."),
                (Tok::Ident, "N"),
                (Tok::Punct("-"), "-"),
                (Tok::Int, "1"),
                (Tok::Punct("]"), "]"),
                (Tok::Punct(";"), ";"),
                (Tok::Real, "1.5e-3"),
                (Tok::Real, "2e3"),
                (Tok::Real, "3.0"),
                (Tok::Punct("<=>"), "<=>"),
                (Tok::Punct("'"), "'"),
                (Tok::Ident, "a"),
                (Tok::Str, "\"l\""),
                (Tok::End, ""),
            ]
        );
    }

    #[test]
    fn bad_characters_and_open_strings_are_errors() {
        assert_eq!(tokens("x # y").unwrap_err().0, Span::new(2, 3));
        assert!(tokens("label \"a = b;\n")
            .unwrap_err()
            .1
            .contains("closing quote"));
    }
}
