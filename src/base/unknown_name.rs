//! The error of a name that is none of the accepted ones (`unknown policy "eas" (expected
//! fcfs, easy or conservative)`): what was asked and what is known. Base vocabulary, shared by
//! the registry's families and every kind that reads a name from a file, a link or the
//! command line.

use std::fmt;

/// A name that is none of the accepted ones.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownName {
    /// What the name should name: `policy`, `allocator`, `contention model`.
    pub noun: &'static str,
    /// The name as given (repeated shortened, [`crate::limits::echo_quoted`]).
    pub name: String,
    /// The accepted names as a sentence: `fcfs, easy or conservative`.
    pub expected: String,
}

impl fmt::Display for UnknownName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown {} {} (expected {})",
            self.noun,
            crate::limits::echo_quoted(&self.name),
            self.expected
        )
    }
}

impl std::error::Error for UnknownName {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_noun_the_name_quoted_and_the_accepted_ones() {
        let e = UnknownName {
            noun: "contention model",
            name: "worm".into(),
            expected: "flow, separated or wormhole".into(),
        };
        assert_eq!(
            e.to_string(),
            "unknown contention model \"worm\" (expected flow, separated or wormhole)"
        );
        let long = UnknownName {
            noun: "policy",
            name: "x".repeat(100),
            expected: "easy".into(),
        };
        assert!(long
            .to_string()
            .ends_with("… (100 characters) (expected easy)"));
    }
}
