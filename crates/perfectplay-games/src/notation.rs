//! Small helpers for parsing the games' state notations (the text `show_state` prints).

/// Splits `text` at the first bracketed list `open … close` (for example `[1,2,3]` or
/// `{1,2}`): the text before it, the numbers in it, and the text after it. `None` if there is
/// no such list or an item is not a number.
pub(crate) fn split_list(text: &str, open: char, close: char) -> Option<(&str, Vec<u32>, &str)> {
    let a = text.find(open)?;
    let b = a + text[a..].find(close)?;
    let inner = text[a + open.len_utf8()..b].trim();
    let items = if inner.is_empty() {
        Vec::new()
    } else {
        inner
            .split(',')
            .map(|w| w.trim().parse().ok())
            .collect::<Option<Vec<u32>>>()?
    };
    Some((text[..a].trim(), items, text[b + close.len_utf8()..].trim()))
}

/// The error for a state text that does not follow the notation.
pub(crate) fn bad(text: &str, notation: &str) -> String {
    format!("'{text}' is not a state of this game; write {notation}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists() {
        assert_eq!(
            split_list("blocks [1, 2,3] to roll", '[', ']'),
            Some(("blocks", vec![1, 2, 3], "to roll"))
        );
        assert_eq!(split_list("a {} b", '{', '}'), Some(("a", vec![], "b")));
        assert_eq!(split_list("a [x] b", '[', ']'), None);
        assert_eq!(split_list("a [1 b", '[', ']'), None);
    }
}
