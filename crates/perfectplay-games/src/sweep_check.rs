//! A test of a model's sweep window (`Model::sweep_window`), state by state: the numbers of the
//! swept states increase, and every successor's number lies less than the window below its
//! state's (the successors of a transient successor, `Model::transient`, count as its
//! state's). The engine checks the same only where a value is missing from its ring, which is
//! rounded up to a power of two; this checks the promise itself.

use perfectplay::{Model, Node};

/// Panics unless `model`'s sweep keeps the promise of its window; returns the largest
/// distance from a state's number down to a successor's.
pub fn check_sweep_window<M: Model>(model: &M) -> usize {
    let window = model.sweep_window();
    assert!(window > 0, "the model has no window");
    let number = |s: &M::State| model.dense_index(s).expect("a numbered state");
    let (mut last, mut farthest) = (None, 0);
    for rank in 0..model.sweep_len() {
        let Some(state) = model.sweep_state(rank) else {
            continue;
        };
        let at = number(&state);
        assert!(last < Some(at), "{state:?}: number {at} after {last:?}");
        last = Some(at);
        let mut reached = vec![state.clone()];
        while let Some(from) = reached.pop() {
            let mut node = Node::new();
            model.expand(&from, &mut node);
            for b in node.branches() {
                if model.transient(&b.next) {
                    reached.push(b.next.clone());
                    continue;
                }
                let to = number(&b.next);
                assert!(
                    to < at && at - to < window,
                    "{state:?} ({at}) -> {:?} ({to})",
                    b.next
                );
                farthest = farthest.max(at - to);
            }
        }
    }
    farthest
}
