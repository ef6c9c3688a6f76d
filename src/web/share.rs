//! Share links of the flat mode (`#x=`): the decoding and encoding live in the core,
//! [`crate::modes::flat::link`], so that they are tested and fuzzed natively; this module keeps the old
//! path for the pages.

pub use crate::modes::flat::link::*;
