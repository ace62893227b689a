//! A position as HTML: the state (drawn where a picture helps: Pig's score line, Yahtzee's
//! score card and dice, a PRISM model's valuation as a table), its value, and every move with
//! its value and what it loses against the best (every outcome with its probability at
//! chance). The explorer's page shows this fragment; Python shows it in notebooks.

use std::collections::BTreeMap;
use std::fmt::Write;

use perfectplay::dynamic::{Explained, Value};
use perfectplay::{NodeKind, Player};

/// Text with `&`, `<`, `>`, `"` and `'` escaped.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The longest fraction written out in full; longer ones are cut (the whole is in the title).
const FRACTION_CHARS: usize = 40;

/// A value: the float to ten significant digits, and the exact fraction where there is one.
fn value(v: &Value) -> String {
    let float = format_float(v.float);
    match &v.exact {
        Some(q) if *q != float => {
            let shown = match q.chars().count() > FRACTION_CHARS {
                true => format!("{}…", q.chars().take(FRACTION_CHARS).collect::<String>()),
                false => q.clone(),
            };
            format!(
                "{float} <span class=\"exact\" title=\"{}\">= {}</span>",
                escape(q),
                escape(&shown)
            )
        }
        _ => float,
    }
}

/// A float with at most ten significant digits, without trailing zeros.
pub fn format_float(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let text = format!("{:.*e}", 9, x);
    let parsed: f64 = text.parse().unwrap_or(x);
    let plain = format!("{parsed}");
    if plain.len() <= 16 {
        plain
    } else {
        format!("{parsed:e}")
    }
}

/// The position `e` of the game `game` (its name, which picks the drawing), with the
/// `labels` that hold there if known; `params` are the game's options (Pig's goal, say) and
/// `player` names a player as the game does.
pub fn position(
    game: &str,
    e: &Explained,
    labels: Option<&[String]>,
    params: &BTreeMap<String, String>,
    player: &dyn Fn(Player) -> String,
) -> String {
    let x = &e.explanation;
    let mut out = String::new();
    let _ = write!(out, "<div class=\"position\" data-id=\"{}\">", e.id);
    if let Some(picture) = drawing(game, &x.state, params) {
        out.push_str(&picture);
    }
    let _ = write!(
        out,
        "<div class=\"state\"><span class=\"caption\">state</span> <code>{}</code></div>",
        escape(&x.state)
    );
    let _ = write!(
        out,
        "<div class=\"value\"><span class=\"caption\">value</span> <b class=\"state-value\">{}</b></div>",
        value(&x.value)
    );
    if let Some(labels) = labels {
        let names: Vec<String> = labels
            .iter()
            .map(|l| format!("<code>\"{}\"</code>", escape(l)))
            .collect();
        let text = match names.is_empty() {
            true => "none".to_string(),
            false => names.join(" "),
        };
        let _ = write!(
            out,
            "<div class=\"labels\"><span class=\"caption\">labels</span> {text}</div>"
        );
    }
    match x.kind {
        NodeKind::Terminal | NodeKind::Unset => {
            out.push_str("<p class=\"kind\">The game is over here.</p>");
        }
        NodeKind::Chance => {
            out.push_str(
                "<p class=\"kind\">Chance moves.</p><table class=\"branches chance\"><thead>\
                 <tr><th>outcome</th><th>probability</th><th>value</th></tr></thead><tbody>",
            );
            for (i, b) in x.branches.iter().enumerate() {
                let _ = write!(
                    out,
                    "<tr data-branch=\"{i}\" data-next=\"{}\"><td class=\"label\">{}</td><td>{}</td><td>{}</td></tr>",
                    next_ids(e, i),
                    escape(&b.label),
                    escape(&b.probability.to_string()),
                    value(&b.value)
                );
            }
            out.push_str("</tbody></table>");
        }
        NodeKind::Decision(p) => {
            let _ = write!(
                out,
                "<p class=\"kind\"><b class=\"player\">{}</b> to move ({}); ★ marks the optimal \
                 moves, ● the one the strategy plays.</p><table class=\"branches decision\">\
                 <thead><tr><th></th><th>move</th><th>value</th><th>loss</th></tr></thead><tbody>",
                escape(&player(p)),
                match p {
                    Player::Max => "maximises",
                    Player::Min => "minimises",
                }
            );
            for (i, b) in x.branches.iter().enumerate() {
                let mark = match (b.chosen, b.optimal) {
                    (true, _) => "●",
                    (false, true) => "★",
                    _ => "",
                };
                let class = match (b.optimal, b.chosen) {
                    (true, true) => "optimal chosen",
                    (true, false) => "optimal",
                    _ => "",
                };
                let mut label = escape(&b.label);
                if !b.outcomes.is_empty() {
                    let outcomes: Vec<String> = b
                        .outcomes
                        .iter()
                        .map(|o| {
                            format!(
                                "{} ({})",
                                escape(&o.label),
                                escape(&o.probability.to_string())
                            )
                        })
                        .collect();
                    let _ = write!(
                        label,
                        "<div class=\"outcomes\">then chance: {}</div>",
                        outcomes.join(", ")
                    );
                }
                let _ = write!(
                    out,
                    "<tr data-branch=\"{i}\" data-next=\"{}\" class=\"{class}\"><td class=\"mark\">{mark}</td>\
                     <td class=\"label\">{label}</td><td>{}</td><td class=\"loss\">{}</td></tr>",
                    next_ids(e, i),
                    value(&b.value),
                    value(&b.loss)
                );
            }
            out.push_str("</tbody></table>");
        }
    }
    out.push_str("</div>");
    out
}

/// The numbers of the states branch `i` leads to, separated by spaces (one per outcome of a
/// random move).
fn next_ids(e: &Explained, i: usize) -> String {
    let ids: Vec<String> = e.next[i].iter().map(|(_, id)| id.to_string()).collect();
    ids.join(" ")
}

/// [`position`] with its own small style sheet, for a page that has none (a notebook).
pub fn standalone(
    game: &str,
    e: &Explained,
    params: &BTreeMap<String, String>,
    player: &dyn Fn(Player) -> String,
) -> String {
    format!(
        "<div class=\"perfectplay\"><style>{}</style>{}</div>",
        NOTEBOOK_STYLE,
        position(game, e, None, params, player)
    )
}

const NOTEBOOK_STYLE: &str = ".perfectplay .branches{border-collapse:collapse}\
.perfectplay .branches td,.perfectplay .branches th{padding:2px 8px;text-align:left}\
.perfectplay tr.optimal{font-weight:bold}.perfectplay .caption{color:#777}\
.perfectplay .exact{color:#555}.perfectplay .outcomes{font-size:85%;color:#555}";

/// A picture of the state where the game has one: Pig's race to the goal, Yahtzee's card
/// and dice, a PRISM valuation's table; `None` for the rest (the state's text says it all).
fn drawing(game: &str, state: &str, params: &BTreeMap<String, String>) -> Option<String> {
    match game {
        "pig" => pig(state, params),
        "yahtzee" => yahtzee(state),
        "gold-pots" => gold_pots(state, params),
        "prism" => valuation(state),
        _ => None,
    }
}

/// `A 12 B 30, A to move, turn 5`: two bars toward the goal, the turn's total on the mover's.
fn pig(state: &str, params: &BTreeMap<String, String>) -> Option<String> {
    let goal: f64 = params.get("goal")?.parse().ok()?;
    let words: Vec<&str> = state.split([' ', ',']).filter(|w| !w.is_empty()).collect();
    let [_, a, _, b, mover, _, _, _, turn] = words[..] else {
        return None;
    };
    let (a, b, turn): (f64, f64, f64) = (a.parse().ok()?, b.parse().ok()?, turn.parse().ok()?);
    let bar = |name: &str, score: f64, moving: bool| {
        let pending = if moving { turn } else { 0.0 };
        format!(
            "<div class=\"pig-row\"><span class=\"pig-name\">{name}{}</span><span class=\"pig-bar\">\
             <span class=\"pig-score\" style=\"width:{:.2}%\"></span><span class=\"pig-turn\" \
             style=\"width:{:.2}%\"></span></span><span class=\"pig-figure\">{score}{}</span></div>",
            if moving { " ▶" } else { "" },
            100.0 * (score / goal).min(1.0),
            100.0 * (pending / goal).min(1.0 - (score / goal).min(1.0)),
            if moving && turn > 0.0 { format!(" + {turn}") } else { String::new() }
        )
    };
    Some(format!(
        "<div class=\"drawing pig\">{}{}<div class=\"pig-goal\">goal {goal}</div></div>",
        bar("A", a, mover == "A"),
        bar("B", b, mover == "B")
    ))
}

/// `pots 1..4`: the line of pots, those taken greyed out.
fn gold_pots(state: &str, params: &BTreeMap<String, String>) -> Option<String> {
    let pots: Vec<&str> = params.get("pots")?.split(',').map(str::trim).collect();
    let range = state.strip_prefix("pots ")?.split(' ').next()?;
    let (from, to) = range.split_once("..")?;
    let (from, to): (usize, usize) = (from.parse().ok()?, to.parse().ok()?);
    let mut out = String::from("<div class=\"drawing pots\">");
    for (i, gold) in pots.iter().enumerate() {
        let class = if (from..to).contains(&i) {
            "pot"
        } else {
            "pot taken"
        };
        let _ = write!(out, "<span class=\"{class}\">{}</span>", escape(gold));
    }
    out.push_str("</div>");
    Some(out)
}

/// The faces of a die as pictures.
const DIE: [&str; 6] = ["⚀", "⚁", "⚂", "⚃", "⚄", "⚅"];

/// The thirteen boxes of Yahtzee in the order of its card, with the names the notation uses.
const BOXES: [(&str, &str); 13] = [
    ("1s", "Aces"),
    ("2s", "Twos"),
    ("3s", "Threes"),
    ("4s", "Fours"),
    ("5s", "Fives"),
    ("6s", "Sixes"),
    ("3k", "Three of a kind"),
    ("4k", "Four of a kind"),
    ("fh", "Full house"),
    ("ss", "Small straight"),
    ("ls", "Large straight"),
    ("ch", "Chance"),
    ("y", "Yahtzee"),
];

/// `filled 1s 3s fh y50, upper 4, dice 1 1 3 5 6 after roll 1`: the card with its boxes
/// filled or open, the upper section's sum so far, and the dice.
fn yahtzee(state: &str) -> Option<String> {
    let mut parts = state.split(", ");
    let filled: Vec<&str> = parts.next()?.strip_prefix("filled ")?.split(' ').collect();
    let upper = parts.next()?.strip_prefix("upper ")?;
    let rest = parts.next().unwrap_or("");
    let mut out = String::from("<div class=\"drawing yahtzee\"><table class=\"card\"><tbody>");
    for (name, title) in BOXES {
        let mark = if filled.contains(&name) {
            "filled"
        } else if name == "y" && filled.contains(&"y50") {
            "filled fifty"
        } else {
            "open"
        };
        let text = match mark {
            "filled" => "✓",
            "filled fifty" => "50",
            _ => "",
        };
        let _ = write!(
            out,
            "<tr class=\"{mark}\"><td>{title}</td><td>{text}</td></tr>"
        );
    }
    let _ = write!(
        out,
        "<tr class=\"upper\"><td>Upper section so far</td><td>{}</td></tr></tbody></table>",
        escape(upper)
    );
    let dice = |list: &str| -> String {
        list.split(' ')
            .filter_map(|d| d.parse::<usize>().ok())
            .filter(|d| (1..=6).contains(d))
            .map(|d| format!("<span class=\"die\" title=\"{d}\">{}</span>", DIE[d - 1]))
            .collect()
    };
    if let Some(d) = rest.strip_prefix("dice ") {
        let (list, when) = d.split_once(" after").unwrap_or((d, ""));
        let _ = write!(
            out,
            "<div class=\"dice\">{}<span class=\"when\">after{}</span></div>",
            dice(list),
            escape(when)
        );
    } else if let Some(k) = rest.strip_prefix("kept ") {
        let (list, when) = k.split_once(" before").unwrap_or((k, ""));
        let _ = write!(
            out,
            "<div class=\"dice\"><span class=\"when\">kept</span>{}<span class=\"when\">before{}</span></div>",
            dice(list),
            escape(when)
        );
    }
    out.push_str("</div>");
    Some(out)
}

/// `(x=1,b=true)`: a table of the variables and their values.
fn valuation(state: &str) -> Option<String> {
    let inner = state.trim().strip_prefix('(')?.strip_suffix(')')?;
    let mut rows = String::new();
    for pair in inner.split(',') {
        let (name, v) = pair.split_once('=')?;
        let _ = write!(
            rows,
            "<tr><td><code>{}</code></td><td>{}</td></tr>",
            escape(name.trim()),
            escape(v.trim())
        );
    }
    Some(format!(
        "<div class=\"drawing valuation\"><table><thead><tr><th>variable</th><th>value</th></tr>\
         </thead><tbody>{rows}</tbody></table></div>"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped() {
        assert_eq!(
            escape("<a href='x'>&\"</a>"),
            "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;"
        );
    }

    #[test]
    fn floats_keep_ten_digits() {
        assert_eq!(format_float(0.5305927252737467), "0.5305927253");
        assert_eq!(format_float(254.5896095), "254.5896095");
        assert_eq!(format_float(3.0), "3");
        assert_eq!(format_float(1e-30), "1e-30");
    }

    #[test]
    fn pictures_read_the_notation() {
        let goal: BTreeMap<String, String> = [("goal".to_string(), "100".to_string())].into();
        let p = pig("A 12 B 30, A to move, turn 5", &goal).unwrap();
        assert!(p.contains("12 + 5") && p.contains("width:12.00%"), "{p}");
        let y = yahtzee("filled 1s fh y50, upper 3, dice 1 1 3 5 6 after roll 1").unwrap();
        assert_eq!(y.matches("class=\"filled").count(), 3, "{y}");
        assert_eq!(y.matches("class=\"die\"").count(), 5, "{y}");
        let pots: BTreeMap<String, String> = [("pots".to_string(), "4,1,2".to_string())].into();
        let g = gold_pots("pots 1..3 (second player to move)", &pots).unwrap();
        assert_eq!(g.matches("class=\"pot taken\"").count(), 1, "{g}");
        assert_eq!(g.matches("class=\"pot\"").count(), 2, "{g}");
        let v = valuation("(x=1,b=true)").unwrap();
        assert!(v.contains("<code>b</code></td><td>true"), "{v}");
        assert_eq!(pig("A wins", &goal), None);
        assert_eq!(valuation("not a valuation"), None);
    }
}
