//! Every game's state notation: `parse_state(show_state(s)) == s` for every state a small
//! instance reaches, and malformed text is rejected with a message.

use perfectplay::{solve, Model};
use perfectplay_games::{
    gold_pots::{GoldPots, Variant},
    grid_game::GridGame,
    perfect_memory::PerfectMemory,
    pig::{Opponent, Pig},
    subset_sum_extreme::SubsetSumExtreme,
    yeetzhee::Yeetzhee,
};

fn round_trip<M: Model>(model: &M, bad: &[&str]) {
    let solution = solve(model).unwrap();
    for (state, _) in solution.iter() {
        let text = model.show_state(state);
        let back = model
            .parse_state(&text)
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(&back, state, "{text}");
    }
    for text in bad {
        let e = model.parse_state(text).expect_err(text);
        assert!(!e.is_empty());
    }
}

#[test]
fn every_game_parses_what_it_shows() {
    round_trip(
        &PerfectMemory::new(3, 4).unwrap(),
        &["", "turn", "turn unseen=x known=1", "flip unseen=2 known=0"],
    );
    round_trip(
        &SubsetSumExtreme::new(&[1, 2, 2, 3], &[1, 2, 3, 4]).unwrap(),
        &[
            "blocks [7] to roll",
            "blocks [1,2] rolled",
            "stones [1] final",
        ],
    );
    round_trip(
        &Yeetzhee::new(4, 4, &[1, 1, 2]).unwrap(),
        &[
            "groups [1] rolled",
            "groups [x] to roll",
            "groups [0] to roll",
        ],
    );
    for v in [
        Variant::CompetitiveKnown,
        Variant::CooperativeKnown,
        Variant::CompetitiveUnknown,
        Variant::CooperativeUnknown,
    ] {
        round_trip(
            &GoldPots::new(&[4, 1, 2, 10, 3], v).unwrap(),
            &["pots 3..2", "pots 0..9", "pots a..b", "0..5"],
        );
    }
    let grid = perfectplay_games::grid_game::parse_grid("1 2 3; 4 5 6; 7 8 -9").unwrap();
    round_trip(
        &GridGame::new(grid).unwrap(),
        &[
            "crossed rows {4} columns {}",
            "crossed rows {1}",
            "rows {1} columns {2}",
        ],
    );
    round_trip(
        &Pig::new(7, Opponent::HoldAt(3)).unwrap(),
        &["A 1 B 2, C to move, turn 0", "A wins now"],
    );
}
