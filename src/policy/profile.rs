//! The free-processor profile used by conservative backfilling (Mu'alem & Feitelson; Srinivasan et al.
//! §1): a step function of the number of free processors over future time, built from running
//! jobs (until start + estimate) and reservations.
//!
//! Two forms of the same steps: a sorted vector while the profile is short —
//! the fastest form then — and, from [`TO_TREE`] steps on, the chunked segment tree of
//! [`super::step_tree`], whose updates and earliest-fit searches do not grow with the number
//! of steps; back to the vector below [`TO_FLAT`]. Both keep the steps coalesced, so they list
//! the same steps and every method answers the same in either form (property tests against
//! each other and a naive reference).

use super::step_tree::StepTree;
use crate::base::Time;

/// A profile with more steps than this becomes a tree.
pub const TO_TREE: usize = 1024;
/// A tree with fewer steps than this becomes a vector again.
pub const TO_FLAT: usize = 256;

/// One step: `free` processors from `start` until the next step's start.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Step {
    start: Time,
    free: u32,
}

/// Free processors over time. The last step extends to infinity.
#[derive(Clone, Debug)]
pub struct Profile {
    total: u32,
    /// The steps, while the profile is short (empty when `tree` is set).
    steps: Vec<Step>,
    /// The steps of a long profile.
    tree: Option<Box<StepTree>>,
    /// Step counts at which the form changes ([`TO_TREE`], [`TO_FLAT`]; tests lower them).
    to_tree: usize,
    to_flat: usize,
}

impl Profile {
    /// An idle machine of `total` processors from time `origin` on.
    pub fn new(total: u32, origin: Time) -> Self {
        Profile {
            total,
            steps: vec![Step {
                start: origin,
                free: total,
            }],
            tree: None,
            to_tree: TO_TREE,
            to_flat: TO_FLAT,
        }
    }

    /// [`Profile::new`] that becomes a tree above `to_tree` steps and a vector again below
    /// `to_flat` (tests: both forms on small profiles; `to_tree = 0` keeps the tree form).
    #[doc(hidden)]
    pub fn with_forms(total: u32, origin: Time, to_tree: usize, to_flat: usize) -> Self {
        let mut p = Profile::new(total, origin);
        p.to_tree = to_tree;
        p.to_flat = to_flat.min(to_tree);
        p.settle();
        p
    }

    /// Moves to the form that suits the number of steps.
    #[inline]
    fn settle(&mut self) {
        match &self.tree {
            None if self.steps.len() > self.to_tree => {
                let tree =
                    StepTree::from_steps(self.total, self.steps.iter().map(|s| (s.start, s.free)));
                self.steps = Vec::new();
                self.tree = Some(Box::new(tree));
            }
            Some(t) if t.len() < self.to_flat => {
                let mut steps = Vec::with_capacity(2 * self.to_flat);
                t.for_each(|start, free| steps.push(Step { start, free }));
                self.steps = steps;
                self.tree = None;
            }
            _ => {}
        }
    }

    /// `true` while the profile is in its tree form (for tests and benchmarks).
    pub fn is_tree(&self) -> bool {
        self.tree.is_some()
    }

    /// Index of the step containing `t` (the first step if `t` precedes it).
    fn index_at(&self, t: Time) -> usize {
        // Number of steps starting at or before t, minus one.
        let n = self.steps.partition_point(|s| s.start <= t);
        n.saturating_sub(1)
    }

    /// Makes sure a step starts exactly at `t`; returns its index.
    fn split_at(&mut self, t: Time) -> usize {
        let i = self.index_at(t);
        if self.steps[i].start == t {
            return i;
        }
        if t < self.steps[i].start {
            // Before the origin: extend the first step backwards.
            self.steps[i].start = t;
            return i;
        }
        let free = self.steps[i].free;
        self.steps.insert(i + 1, Step { start: t, free });
        i + 1
    }

    /// Free processors at time `t`.
    pub fn free_at(&self, t: Time) -> u32 {
        if let Some(tree) = &self.tree {
            return tree.free_at(t);
        }
        self.steps[self.index_at(t)].free
    }

    /// Takes `procs` processors over [start, end). Returns `false` (and changes nothing) if
    /// that would make the free count negative somewhere.
    pub fn reserve(&mut self, start: Time, end: Time, procs: u32) -> bool {
        if end <= start || procs == 0 {
            return true;
        }
        if let Some(tree) = &mut self.tree {
            let ok = tree.reserve(start, end, procs);
            self.settle();
            return ok;
        }
        let a = self.split_at(start);
        let b = self.split_at(end);
        if self.steps[a..b].iter().any(|s| s.free < procs) {
            self.coalesce(a, b);
            return false;
        }
        for s in &mut self.steps[a..b] {
            s.free -= procs;
        }
        self.coalesce(a, b);
        self.settle();
        true
    }

    /// Gives back `procs` processors over [start, end) (capped at the machine size).
    pub fn release(&mut self, start: Time, end: Time, procs: u32) {
        if end <= start || procs == 0 {
            return;
        }
        if let Some(tree) = &mut self.tree {
            tree.release(start, end, procs);
            self.settle();
            return;
        }
        let a = self.split_at(start);
        let b = self.split_at(end);
        for s in &mut self.steps[a..b] {
            s.free = s.free.saturating_add(procs).min(self.total);
        }
        self.coalesce(a, b);
        self.settle();
    }

    /// Merges equal neighbours around the index range [a, b].
    fn coalesce(&mut self, a: usize, b: usize) {
        let lo = a.saturating_sub(1);
        let hi = (b + 1).min(self.steps.len().saturating_sub(1));
        let mut i = hi;
        while i > lo {
            if self.steps[i].free == self.steps[i - 1].free {
                self.steps.remove(i);
            }
            i -= 1;
        }
    }

    /// Earliest time ≥ `from` at which `procs` processors are free for `duration`.
    /// A zero-length job needs the processors free at its start instant.
    /// Returns `None` only if `procs` exceeds the machine.
    pub fn earliest_fit(&self, from: Time, procs: u32, duration: Time) -> Option<Time> {
        if procs > self.total {
            return None;
        }
        // With no limit, the one vector / tree search of `fit_before` (the last step lasts
        // forever, so a job no larger than the machine always fits).
        self.fit_before(from, procs, duration, f64::INFINITY)
    }

    /// Earliest time ≥ `from` and before `limit` at which `procs` processors are free for
    /// `duration`, counting every instant from `limit` on as free enough; `None` if there is
    /// none before `limit` (needs `from < limit`). This is where a waiting job reserved at
    /// `limit` would go if its own reservation were given back first (the compression of
    /// conservative backfilling), without giving it back: its slot [limit, limit + duration)
    /// covers every instant from `limit` to the end of any earlier fit.
    pub fn fit_before(&self, from: Time, procs: u32, duration: Time, limit: Time) -> Option<Time> {
        if let Some(tree) = &self.tree {
            return tree.search(from, procs, duration, limit);
        }
        let mut run: Option<Time> = None;
        for s in &self.steps[self.index_at(from)..] {
            if s.start >= limit {
                return run;
            }
            if let Some(r) = run {
                if s.start >= r + duration {
                    return Some(r);
                }
            }
            if s.free >= procs {
                if run.is_none() {
                    run = Some(if s.start < from { from } else { s.start });
                }
            } else {
                run = None;
            }
        }
        run
    }

    /// Free processors just before `t` (in the last step starting before `t`; the first step
    /// if none does).
    pub fn free_before(&self, t: Time) -> u32 {
        if let Some(tree) = &self.tree {
            return tree.free_before(t);
        }
        let n = self.steps.partition_point(|s| s.start < t);
        self.steps[n.saturating_sub(1)].free
    }

    /// Calls `f(start, free)` for every step starting at or after `from`, in order, until it
    /// returns `false`.
    pub fn walk_on(&self, from: Time, mut f: impl FnMut(Time, u32) -> bool) {
        if let Some(tree) = &self.tree {
            return tree.walk_on(from, f);
        }
        let i = self.steps.partition_point(|s| s.start < from);
        for s in &self.steps[i..] {
            if !f(s.start, s.free) {
                return;
            }
        }
    }

    /// Calls `f(start, free)` for every step starting before `to`, latest first, until it
    /// returns `false`.
    pub fn walk_back(&self, to: Time, mut f: impl FnMut(Time, u32) -> bool) {
        if let Some(tree) = &self.tree {
            return tree.walk_back(to, f);
        }
        let n = self.steps.partition_point(|s| s.start < to);
        for s in self.steps[..n].iter().rev() {
            if !f(s.start, s.free) {
                return;
            }
        }
    }

    /// The most processors free at any instant of [start, end) (0 if the interval is empty).
    pub fn max_free(&self, start: Time, end: Time) -> u32 {
        if end <= start {
            return 0;
        }
        if let Some(tree) = &self.tree {
            return tree.max_free(start, end);
        }
        let mut best = 0;
        for s in &self.steps[self.index_at(start)..] {
            if s.start >= end {
                break;
            }
            best = best.max(s.free);
        }
        best
    }

    /// The free-time blocks from `t` on, as (start, free) pairs: the block containing `t`
    /// (its start moved up to `t`), then every later one; the last lasts forever (Srinivasan et al.
    /// §4.1's list of free-time blocks).
    pub fn blocks_from(&self, t: Time) -> impl Iterator<Item = (Time, u32)> + '_ {
        let (flat, long): (&[Step], Vec<(Time, u32)>) = match &self.tree {
            None => (&self.steps[self.index_at(t)..], Vec::new()),
            Some(tree) => (&[], tree.steps_from(t)),
        };
        flat.iter()
            .map(|s| (s.start, s.free))
            .chain(long)
            .map(move |(start, free)| (if start < t { t } else { start }, free))
    }

    /// Drops steps that ended before `now`.
    pub fn prune(&mut self, now: Time) {
        if let Some(tree) = &mut self.tree {
            tree.prune(now);
            self.settle();
            return;
        }
        let i = self.index_at(now);
        if i > 0 {
            self.steps.drain(..i);
        }
    }

    /// Number of steps (for tests and benchmarks).
    pub fn len(&self) -> usize {
        match &self.tree {
            Some(tree) => tree.len(),
            None => self.steps.len(),
        }
    }

    /// `true` if the profile has no step (never: there is always one).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The steps as (start, free) pairs.
    pub fn steps(&self) -> Vec<(Time, u32)> {
        match &self.tree {
            Some(tree) => {
                let mut v = Vec::with_capacity(tree.len());
                tree.for_each(|t, f| v.push((t, f)));
                v
            }
            None => self.steps.iter().map(|s| (s.start, s.free)).collect(),
        }
    }
}

// proptest is a native-only dev-dependency (Cargo.toml).
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The step function as plain (start, free) pairs and its earliest fit by brute force:
    /// every candidate start in order, every step overlapping the window checked.
    fn naive_fit(
        steps: &[(Time, u32)],
        from: Time,
        procs: u32,
        d: Time,
        limit: Time,
    ) -> Option<Time> {
        let first = steps.partition_point(|s| s.0 <= from).saturating_sub(1);
        let mut cands = vec![from];
        cands.extend(steps[first..].iter().map(|s| s.0).filter(|&t| t > from));
        for s in cands {
            if s >= limit {
                return None;
            }
            let end = s + d;
            let i = steps.partition_point(|x| x.0 <= s).saturating_sub(1);
            let ok = steps[i..]
                .iter()
                .enumerate()
                .take_while(|(k, x)| *k == 0 || (x.0 < end && x.0 < limit))
                .all(|(_, x)| x.1 >= procs);
            if ok {
                return Some(s);
            }
        }
        None
    }

    #[derive(Clone, Debug)]
    enum Op {
        Reserve(u32, u32, u32),
        Release(u32, u32, u32),
        Prune(u32),
        Fit(u32, u32, u32, u32),
        MaxFree(u32, u32),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            6 => (0u32..400, 1u32..60, 1u32..9).prop_map(|(s, d, p)| Op::Reserve(s, d, p)),
            3 => (0u32..400, 1u32..60, 1u32..9).prop_map(|(s, d, p)| Op::Release(s, d, p)),
            1 => (0u32..300).prop_map(Op::Prune),
            4 => (0u32..450, 0u32..10, 0u32..80, 0u32..500)
                .prop_map(|(f, p, d, l)| Op::Fit(f, p, d, l)),
            1 => (0u32..450, 0u32..80).prop_map(|(a, d)| Op::MaxFree(a, d)),
        ]
    }

    /// Long random profiles (hundreds of small reservations on 64 processors, many chunks
    /// and tree levels under test): every kind of fit query, both forms and the reference.
    #[test]
    fn long_profiles_fit_the_same() {
        let mut rng = crate::base::SimRng::new(17);
        for round in 0..60 {
            let mut flat = Profile::with_forms(64, 0.0, usize::MAX, 0);
            let mut tree = Profile::with_forms(64, 0.0, 0, 0);
            let n = 50 + round * 10;
            for _ in 0..n {
                let s = (rng.next_u64() % 2000) as f64 / 4.0;
                let d = 1.0 + (rng.next_u64() % 200) as f64 / 8.0;
                let p = 1 + (rng.next_u64() % 6) as u32;
                assert_eq!(flat.reserve(s, s + d, p), tree.reserve(s, s + d, p));
                if rng.next_u64() % 5 == 0 {
                    flat.release(s, s + d / 2.0, p);
                    tree.release(s, s + d / 2.0, p);
                }
            }
            assert_eq!(flat.steps(), tree.steps());
            let steps = flat.steps();
            for _ in 0..200 {
                let from = (rng.next_u64() % 2100) as f64 / 4.0;
                let p = (rng.next_u64() % 66) as u32;
                let d = match rng.next_u64() % 3 {
                    0 => (rng.next_u64() % 8) as f64 / 4.0,
                    1 => (rng.next_u64() % 100) as f64,
                    _ => (rng.next_u64() % 600) as f64,
                };
                let want = if p > 64 {
                    None
                } else {
                    naive_fit(&steps, from, p, d, f64::INFINITY)
                };
                assert_eq!(flat.earliest_fit(from, p, d), want, "round {round}");
                assert_eq!(tree.earliest_fit(from, p, d), want, "round {round}");
                let limit = from + 0.25 + (rng.next_u64() % 800) as f64 / 2.0;
                let want = naive_fit(&steps, from, p, d, limit);
                assert_eq!(flat.fit_before(from, p, d, limit), want, "round {round}");
                assert_eq!(tree.fit_before(from, p, d, limit), want, "round {round}");
                let b = from + d;
                assert_eq!(flat.max_free(from, b), tree.max_free(from, b));
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        /// The tree form (small chunks under test) and the vector form list the same steps
        /// and answer every query the same after any sequence of updates; both fits match
        /// the brute-force reference.
        #[test]
        fn tree_and_vector_forms_agree(ops in prop::collection::vec(op(), 1..300)) {
            let mut flat = Profile::with_forms(8, 0.0, usize::MAX, 0);
            let mut tree = Profile::with_forms(8, 0.0, 0, 0);
            prop_assert!(tree.is_tree() && !flat.is_tree());
            let mut pruned = 0.0;
            for op in ops {
                match op {
                    Op::Reserve(s, d, p) => {
                        let (a, b) = (pruned + s as f64, pruned + (s + d) as f64);
                        prop_assert_eq!(flat.reserve(a, b, p), tree.reserve(a, b, p));
                    }
                    Op::Release(s, d, p) => {
                        let (a, b) = (pruned + s as f64, pruned + (s + d) as f64);
                        flat.release(a, b, p);
                        tree.release(a, b, p);
                    }
                    Op::Prune(t) => {
                        pruned += t as f64 / 4.0;
                        flat.prune(pruned);
                        tree.prune(pruned);
                    }
                    Op::Fit(f, p, d, l) => {
                        let from = pruned + f as f64 / 2.0;
                        let (d, p) = (d as f64, p);
                        let steps = flat.steps();
                        let want = if p > 8 { None } else { naive_fit(&steps, from, p, d, f64::INFINITY) };
                        prop_assert_eq!(flat.earliest_fit(from, p, d), want);
                        prop_assert_eq!(tree.earliest_fit(from, p, d), want);
                        let limit = from + l as f64 / 2.0 + 0.5;
                        let want = naive_fit(&steps, from, p, d, limit);
                        prop_assert_eq!(flat.fit_before(from, p, d, limit), want);
                        prop_assert_eq!(tree.fit_before(from, p, d, limit), want);
                        prop_assert_eq!(flat.free_at(from), tree.free_at(from));
                    }
                    Op::MaxFree(a, d) => {
                        let a = pruned + a as f64 / 2.0;
                        let b = a + d as f64 / 2.0;
                        prop_assert_eq!(flat.max_free(a, b), tree.max_free(a, b));
                        prop_assert_eq!(flat.free_before(a), tree.free_before(a));
                        // Walks stopping after d / 8 + 1 steps, both ways, against the list.
                        let k = d as usize / 8 + 1;
                        let steps = flat.steps();
                        let on: Vec<_> = steps.iter().copied().filter(|s| s.0 >= a).take(k).collect();
                        let back: Vec<_> =
                            steps.iter().rev().copied().filter(|s| s.0 < a).take(k).collect();
                        for p in [&flat, &tree] {
                            let mut got = Vec::new();
                            p.walk_on(a, |t, f| {
                                got.push((t, f));
                                got.len() < k
                            });
                            prop_assert_eq!(&got, &on);
                            got.clear();
                            p.walk_back(a, |t, f| {
                                got.push((t, f));
                                got.len() < k
                            });
                            prop_assert_eq!(&got, &back);
                        }
                    }
                }
                prop_assert_eq!(flat.steps(), tree.steps());
                prop_assert_eq!(flat.len(), tree.len());
                let t = pruned + 3.0;
                prop_assert_eq!(
                    flat.blocks_from(t).collect::<Vec<_>>(),
                    tree.blocks_from(t).collect::<Vec<_>>()
                );
            }
        }
    }

    #[test]
    fn reserve_and_fit() {
        let mut p = Profile::new(10, 0.0);
        assert!(p.reserve(0.0, 10.0, 6));
        assert!(p.reserve(5.0, 20.0, 3));
        assert_eq!(p.steps(), vec![(0.0, 4), (5.0, 1), (10.0, 7), (20.0, 10)]);
        assert_eq!(p.earliest_fit(0.0, 4, 5.0), Some(0.0));
        assert_eq!(p.earliest_fit(0.0, 4, 6.0), Some(10.0));
        assert_eq!(p.earliest_fit(0.0, 8, 1.0), Some(20.0));
        assert_eq!(p.earliest_fit(0.0, 11, 1.0), None);
        assert!(!p.reserve(6.0, 7.0, 2));
        p.release(5.0, 20.0, 3);
        assert_eq!(p.steps(), vec![(0.0, 4), (10.0, 10)]);
        p.prune(12.0);
        assert_eq!(p.steps(), vec![(10.0, 10)]);
    }

    #[test]
    fn releasing_on_a_machine_of_u32_max_processors_saturates() {
        let mut p = Profile::new(u32::MAX, 0.0);
        assert!(p.reserve(0.0, 10.0, 5));
        assert_eq!(p.free_at(1.0), u32::MAX - 5);
        // More than was taken: capped at the machine size, no overflow.
        p.release(0.0, 10.0, u32::MAX);
        assert_eq!(p.free_at(1.0), u32::MAX);
    }

    #[test]
    fn zero_length_needs_the_start_instant() {
        let mut p = Profile::new(4, 0.0);
        assert!(p.reserve(0.0, 5.0, 4));
        assert_eq!(p.earliest_fit(0.0, 1, 0.0), Some(5.0));
    }
}
