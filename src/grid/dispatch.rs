//! The central grid scheduler of Ernemann et al. §III-C: "In the first step the earliest start time
//! of the allocation on all available machines [is] determined and in the second step a
//! machine is selected" by *BestFit*: "the machine on which the job leaves the least number of
//! free nodes if the new job is allocated to that machine".
//!
//! Precisely (see `docs/grid.md`):
//!
//! 1. every machine at least as large as the job offers its earliest start `s_i` and the
//!    number of nodes `left_i` still free at `s_i` once the job is placed (free nodes of the
//!    site's profile at the instant `s_i`, minus the job's size);
//! 2. only the machines with the smallest `s_i` remain (exact equality of times);
//! 3. among them BestFit takes the smallest `left_i`;
//! 4. remaining ties go to the job's home site if it is among them, else to the lowest site
//!    index.

use crate::base::{Choice, Time};

/// What one site offers a job.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Offer {
    /// Site index.
    pub site: usize,
    /// Earliest start time at that site.
    pub start: Time,
    /// Nodes still free at `start` once the job is placed there.
    pub left: u32,
}

/// The site chosen among `offers` (in any order) for a job from `home`; `None` if there is
/// no offer.
pub fn choose_site(offers: &[Offer], home: usize) -> Option<usize> {
    let mut best: Option<&Offer> = None;
    for o in offers {
        best = match best {
            None => Some(o),
            Some(b) => {
                if better(o, b, home) {
                    Some(o)
                } else {
                    Some(b)
                }
            }
        };
    }
    best.map(|o| o.site)
}

/// The best offer other than `chosen`'s site, and the rule by which `chosen` beats it
/// ([`Choice::OnlyOffer`] when there is none) — for the explanation of a dispatch.
pub fn runner_up(offers: &[Offer], chosen: usize, home: usize) -> (Option<Offer>, Choice) {
    let Some(won) = offers.iter().find(|o| o.site == chosen) else {
        return (None, Choice::OnlyOffer);
    };
    let rest: Vec<Offer> = offers
        .iter()
        .filter(|o| o.site != chosen)
        .copied()
        .collect();
    let Some(next) = choose_site(&rest, home).and_then(|s| rest.iter().find(|o| o.site == s))
    else {
        return (None, Choice::OnlyOffer);
    };
    let rule = if won.start != next.start {
        Choice::EarliestStart
    } else if won.left != next.left {
        Choice::BestFit
    } else if won.site == home || next.site == home {
        Choice::Home
    } else {
        Choice::LowerIndex
    };
    (Some(*next), rule)
}

/// `true` when `a` beats `b`: earlier start, then fewer nodes left, then home, then index.
fn better(a: &Offer, b: &Offer, home: usize) -> bool {
    if a.start != b.start {
        return a.start < b.start;
    }
    if a.left != b.left {
        return a.left < b.left;
    }
    let (a_home, b_home) = (a.site == home, b.site == home);
    if a_home != b_home {
        return a_home;
    }
    a.site < b.site
}

#[cfg(test)]
mod tests {
    use super::*;

    fn o(site: usize, start: Time, left: u32) -> Offer {
        Offer { site, start, left }
    }

    #[test]
    fn earliest_start_first_then_best_fit_then_home_then_index() {
        assert_eq!(choose_site(&[o(0, 10.0, 0), o(1, 5.0, 9)], 0), Some(1));
        assert_eq!(choose_site(&[o(0, 5.0, 3), o(1, 5.0, 1)], 0), Some(1));
        assert_eq!(
            choose_site(&[o(0, 5.0, 1), o(1, 5.0, 1), o(2, 5.0, 1)], 2),
            Some(2)
        );
        assert_eq!(choose_site(&[o(2, 5.0, 1), o(1, 5.0, 1)], 0), Some(1));
        assert_eq!(choose_site(&[], 0), None);
    }

    #[test]
    fn the_runner_up_and_the_rule_that_decided() {
        let offers = [o(0, 10.0, 0), o(1, 5.0, 9), o(2, 5.0, 3)];
        // Site 2 wins (start 5, 3 left); site 1 also starts at 5 but leaves 9: BestFit.
        assert_eq!(choose_site(&offers, 0), Some(2));
        assert_eq!(
            runner_up(&offers, 2, 0),
            (Some(o(1, 5.0, 9)), Choice::BestFit)
        );
        assert_eq!(
            runner_up(&[o(0, 10.0, 0), o(1, 5.0, 9)], 1, 0),
            (Some(o(0, 10.0, 0)), Choice::EarliestStart)
        );
        assert_eq!(
            runner_up(&[o(0, 5.0, 1), o(1, 5.0, 1)], 1, 1),
            (Some(o(0, 5.0, 1)), Choice::Home)
        );
        assert_eq!(
            runner_up(&[o(0, 5.0, 1), o(1, 5.0, 1)], 0, 2),
            (Some(o(1, 5.0, 1)), Choice::LowerIndex)
        );
        assert_eq!(runner_up(&[o(3, 5.0, 1)], 3, 0), (None, Choice::OnlyOffer));
    }
}
