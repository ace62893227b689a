//! Tests of a model's sweep promises. Its window (`Model::sweep_window`), state by state: the
//! numbers of the swept states increase, and every successor's number lies less than the
//! window below its state's (the successors of a transient successor, `Model::transient`,
//! count as its state's). The engine checks the same only where a value is missing from its
//! ring, which is rounded up to a power of two; this checks the promise itself. And its
//! jumps over empty ranks (`Model::sweep_resume`): none passes over a rank that holds a state.

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

/// Panics if `model`'s [`Model::sweep_resume`] jumps over a rank that holds a state; returns
/// how many ranks its jumps pass over.
pub fn check_sweep_resume<M: Model>(model: &M) -> usize {
    let (mut skipped_to, mut passed) = (0, 0);
    for rank in 0..model.sweep_len() {
        let state = model.sweep_state(rank);
        if rank < skipped_to {
            assert!(state.is_none(), "rank {rank} ({state:?}) is jumped over");
            passed += 1;
        }
        if state.is_none() {
            skipped_to = skipped_to.max(model.sweep_resume(rank));
        }
    }
    passed
}
