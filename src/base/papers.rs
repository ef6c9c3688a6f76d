//! The papers schedlab implements, each with a short stable key — the one glossary behind
//! `docs/papers.md`, `schedlab reproduce --list` and the page's About panel (a test checks
//! that the three agree). Code, page and docs cite a paper by its authors (the `cite` form,
//! e.g. "Mache et al. §3.2") or by its key, never by anything else.

/// One paper of the glossary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Paper {
    /// The stable key: `schedlab reproduce KEY`, headings of docs/reproductions.md.
    pub key: &'static str,
    /// How code and docs cite it in running text.
    pub cite: &'static str,
    /// Every author, as the paper lists them.
    pub authors: &'static str,
    /// The title.
    pub title: &'static str,
    /// What schedlab takes from it, in a few words.
    pub subject: &'static str,
}

/// Every paper, in the order of the About panel.
pub const PAPERS: [Paper; 5] = [
    Paper {
        key: "mc-elongated",
        cite: "Mache et al.",
        authors: "Jens Mache, Virginia Lo and Sharad Garg",
        title: "Job Scheduling that Minimizes Network Contention due to both Communication and I/O",
        subject: "non-contiguous allocation on a 2D mesh with I/O nodes on one side \
                  (MC, MC-Elongated, PLAS, MBS, Paging, Random); contention from communication and I/O",
    },
    Paper {
        key: "binary-tree",
        cite: "Liu et al.",
        authors: "Pangfeng Liu, Chun-Chen Hsu and Jan-Jan Wu",
        title: "I/O Processor Allocation for Mesh Cluster Computers",
        subject: "binary-tree I/O-aware processor allocation (BT, SBT, DBT, ind-/d- variants, \
                  SCBT) and compactness",
    },
    Paper {
        key: "grid-sharing",
        cite: "Ernemann et al.",
        authors: "Carsten Ernemann, Volker Hamscher and Ramin Yahyapour",
        title: "Benefits of Global Grid Computing for Job Scheduling",
        subject: "grid job sharing across time zones; AWRT, AWWT and AWSD",
    },
    Paper {
        key: "window",
        cite: "Ababneh & Bani-Mohammad",
        authors: "Ismail Ababneh and Saad Bani-Mohammad",
        title: "A new window-based job scheduling scheme for 2D mesh multicomputers",
        subject: "window-based scheduling with contiguous submesh allocation (First Fit, Best Fit, \
                  MPL; FCFS, OO, OOCB-k, Window-K, delay-based)",
    },
    Paper {
        key: "moldable",
        cite: "Srinivasan et al.",
        authors: "Sudha Srinivasan, Savitha Krishnamoorthy and P. Sadayappan",
        title: "A Robust Scheduling Strategy for Moldable Scheduling of Parallel Jobs",
        subject: "moldable jobs under Downey's speedup model, fair share, reservations",
    },
];

/// The paper with this key (case-insensitive; `_` reads as `-`).
pub fn paper(key: &str) -> Option<&'static Paper> {
    let key = key.trim().to_ascii_lowercase().replace('_', "-");
    PAPERS.iter().find(|p| p.key == key)
}

/// The keys, comma-separated (for error messages and help).
pub fn keys() -> String {
    PAPERS.iter().map(|p| p.key).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_unique_and_found_in_any_spelling() {
        for (i, p) in PAPERS.iter().enumerate() {
            assert!(PAPERS[..i]
                .iter()
                .all(|q| q.key != p.key && q.cite != p.cite));
            assert_eq!(paper(p.key), Some(p));
            assert_eq!(
                paper(&p.key.to_ascii_uppercase().replace('-', "_")),
                Some(p)
            );
        }
        assert_eq!(paper("nope"), None);
        assert_eq!(
            keys(),
            "mc-elongated, binary-tree, grid-sharing, window, moldable"
        );
    }
}
