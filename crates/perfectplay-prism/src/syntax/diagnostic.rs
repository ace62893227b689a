//! Diagnostics: an error with the place it refers to, rendered as `FILE:LINE:COL: message`
//! with the line and a caret under the place, as rustc does.

use std::fmt;

/// A place in a source text: byte offsets `start..end`.
#[derive(Clone, Copy, Debug, Default, Eq)]
pub struct Span {
    /// The first byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl Span {
    /// The bytes `start..end`.
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }

    /// The smallest span that covers both.
    pub fn to(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }
}

/// Spans are where a construct was written, not what it says: two syntax trees that say the
/// same thing are equal wherever they were written (the round trip of the printer relies on it).
impl PartialEq for Span {
    fn eq(&self, _: &Span) -> bool {
        true
    }
}

/// An error in a model or property text, with where it is.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.render())]
pub struct Diagnostic {
    /// The file's name as the user gave it (or a description such as `--prop`).
    pub file: String,
    /// The 1-based line (0: the file as a whole).
    pub line: usize,
    /// The 1-based column, in characters (0: the file as a whole).
    pub column: usize,
    /// What is wrong.
    pub message: String,
    /// The text of the line, for the caret.
    pub source_line: String,
    /// How many characters the caret underlines (at least one).
    pub width: usize,
}

impl Diagnostic {
    /// A diagnostic at `span` of `source`, which was read from `file`.
    pub fn at(file: &str, source: &str, span: Span, message: impl Into<String>) -> Diagnostic {
        let start = span.start.min(source.len());
        let line_start = source[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = source[start..]
            .find('\n')
            .map_or(source.len(), |i| start + i);
        let line = source[..start].matches('\n').count() + 1;
        let column = source[line_start..start].chars().count() + 1;
        let end = span.end.clamp(start, line_end);
        let width = source[start..end].chars().count().max(1);
        Diagnostic {
            file: file.to_string(),
            line,
            column,
            message: message.into(),
            source_line: source[line_start..line_end]
                .trim_end_matches('\r')
                .to_string(),
            width,
        }
    }

    /// A diagnostic about `file` as a whole, at no particular place (line and column 0,
    /// shown as `FILE: message`).
    pub fn plain(file: &str, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            file: file.to_string(),
            line: 0,
            column: 0,
            message: message.into(),
            source_line: String::new(),
            width: 1,
        }
    }

    /// `FILE:LINE:COL: message`, then the line and carets under the place, as rustc does; of
    /// a long line only `CONTEXT` characters on either side.
    pub fn render(&self) -> String {
        let mut out = self.headline();
        if !self.source_line.trim().is_empty() {
            let gutter = self.line.to_string().len();
            // A long line is shown around the place only, with `…` where it is cut.
            let chars: Vec<char> = self.source_line.chars().collect();
            let at = self.column.saturating_sub(1).min(chars.len());
            let from = at.saturating_sub(CONTEXT);
            let to = (at + self.width.max(1) + CONTEXT).min(chars.len());
            let before = if from > 0 { "…" } else { "" };
            let after = if to < chars.len() { "…" } else { "" };
            // A control character shows as its escape (`\u{1b}`), never acted on by a
            // terminal; the caret keeps under the place.
            let text = |c: char| match c.is_control() && c != '\t' {
                true => c.escape_default().to_string(),
                false => c.to_string(),
            };
            let shown: String = chars[from..to].iter().map(|&c| text(c)).collect();
            let pad: String = before
                .chars()
                .chain(chars[from..at].iter().copied())
                .flat_map(|c| match c {
                    '\t' => vec!['\t'],
                    c => vec![' '; text(c).chars().count()],
                })
                .collect();
            let underlined: usize = chars[at..(at + self.width.min(to - at)).min(to)]
                .iter()
                .map(|&c| text(c).chars().count())
                .sum();
            out.push_str(&format!(
                "\n{:gutter$} |\n{} | {before}{shown}{after}\n{:gutter$} | {}{}",
                "",
                self.line,
                "",
                pad,
                "^".repeat(underlined.max(1))
            ));
        }
        out
    }

    /// The first line of [`render`](Diagnostic::render), for one-line error output.
    pub fn headline(&self) -> String {
        let text: String = match self.line {
            0 => format!("{}: {}", self.file, self.message),
            _ => format!(
                "{}:{}:{}: {}",
                self.file, self.line, self.column, self.message
            ),
        }
        .chars()
        .flat_map(|c| match c.is_control() {
            true => c.escape_default().collect::<Vec<_>>(),
            false => vec![c],
        })
        .collect();
        text
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

/// Characters of a long source line shown on either side of an error's place.
pub const CONTEXT: usize = 60;
