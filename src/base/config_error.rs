//! The error of a rejected experiment description: the dotted key at fault and why. Base
//! vocabulary, so that the limits on untrusted input ([`crate::limits`]) and every layer's
//! validation can name the key without importing the experiment layer.

use std::fmt;

/// A rejected experiment description.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigError {
    /// Dotted path of the offending key (`transforms.load_factor`), empty if unknown.
    pub key: String,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.key.is_empty() || self.key == "." {
            write!(f, "experiment: {}", self.message)
        } else {
            write!(f, "experiment: {}: {}", self.key, self.message)
        }
    }
}

impl std::error::Error for ConfigError {}
