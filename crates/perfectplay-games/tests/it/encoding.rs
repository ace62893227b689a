//! Every built-in game writes its states as bytes (`Model::encode_state`) that read back to
//! the same state, and different states to different bytes: checked on every reachable state
//! of small instances, found by a search over the typed states.

use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt::Debug;
use std::hash::Hash;

use perfectplay::{Model, Node};
use perfectplay_games::gold_pots::{GoldPots, Variant};
use perfectplay_games::grid_game::GridGame;
use perfectplay_games::perfect_memory::PerfectMemory;
use perfectplay_games::pig::{Opponent, Pig};
use perfectplay_games::subset_sum_extreme::SubsetSumExtreme;
use perfectplay_games::yahtzee::{Rules, Yahtzee};
use perfectplay_games::yeetzhee::Yeetzhee;

/// Searches every reachable state (at most `limit`), checking the round trip and that no two
/// states share bytes; returns how many states were checked.
fn round_trips<M>(model: &M, limit: usize) -> usize
where
    M: Model,
    M::State: Hash + Eq + Clone + Debug,
{
    assert!(model.encodes_states());
    let mut seen: HashSet<M::State> = HashSet::new();
    let mut owner: HashMap<Vec<u8>, M::State> = HashMap::new();
    let mut queue = VecDeque::from([model.start()]);
    seen.insert(model.start());
    let mut node = Node::new();
    while let Some(s) = queue.pop_front() {
        let mut bytes = Vec::new();
        model.encode_state(&s, &mut bytes);
        assert_eq!(model.decode_state(&bytes).as_ref(), Some(&s), "{s:?}");
        if let Some(other) = owner.insert(bytes, s.clone()) {
            panic!("{other:?} and {s:?} have the same bytes");
        }
        let mut longer = Vec::new();
        model.encode_state(&s, &mut longer);
        longer.push(0);
        assert_eq!(model.decode_state(&longer), None, "{s:?} with a byte more");
        if seen.len() >= limit {
            continue;
        }
        node.clear();
        model.expand(&s, &mut node);
        for b in node.branches() {
            if seen.insert(b.next.clone()) {
                queue.push_back(b.next.clone());
            }
        }
    }
    assert_eq!(model.decode_state(&[]), None);
    owner.len()
}

#[test]
fn every_game_encodes_its_states() {
    assert!(round_trips(&Pig::new(15, Opponent::Optimal).unwrap(), 100_000) > 1000);
    assert!(round_trips(&Pig::new(12, Opponent::HoldAt(5)).unwrap(), 100_000) > 100);
    for variant in [
        Variant::CompetitiveKnown,
        Variant::CooperativeKnown,
        Variant::CompetitiveUnknown,
        Variant::CooperativeUnknown,
    ] {
        assert!(round_trips(&GoldPots::new(&[4, 1, 2, 10, 3, 7], variant).unwrap(), 1000) > 5);
    }
    let grid = vec![vec![3, -1, 4], vec![1, 5, -9], vec![2, 6, 5]];
    assert!(round_trips(&GridGame::new(grid).unwrap(), 1000) > 10);
    assert!(round_trips(&PerfectMemory::new(4, 4).unwrap(), 10_000) > 10);
    assert!(
        round_trips(
            &SubsetSumExtreme::new(&[1, 2, 3, 4], &[6, 5, 3]).unwrap(),
            10_000
        ) > 10
    );
    assert!(round_trips(&Yeetzhee::new(5, 6, &[1, 2, 2]).unwrap(), 10_000) > 10);
    let yahtzee = Yahtzee::with_boxes(Rules::FreeJoker, &["1s", "3k", "y"]).unwrap();
    assert!(round_trips(&yahtzee, 1_000_000) > 1000);
    let forced = Yahtzee::with_boxes(Rules::ForcedJoker, &["6s", "fh", "y"]).unwrap();
    assert!(round_trips(&forced, 1_000_000) > 1000);
}
