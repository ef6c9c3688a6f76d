//! The experiment designs of `schedlab reproduce`, runnable natively and returning data (the
//! CLI only parses flags and prints):
//!
//! * [`seed000`] — seed 000 (Mache, Lo and Garg) Table 2 and Figs. 9–10, §4: the contention
//!   experiment on the 16 × 22 mesh with I/O nodes on one side;
//! * [`seed001`] — seed 001 (Liu, Hsu and Wu) §5, Figs. 3–6: binary-tree allocators against
//!   MBS and PLAS on a 16 × 16 mesh under the phase model, and the paper's conclusions checked;
//! * [`seed003`] — seed 003 (Ababneh and Bani-Mohammad) §5.1–5.5, Figs. 2–11 and 15–18: window
//!   scheduling on a 32 × 32 mesh and two SDSC traces;
//! * [`seed004`] — seed 004 (Srinivasan, Krishnamoorthy and Sadayappan) Figs. 1–11, §3–5:
//!   moldable scheduling on the first 5,000 jobs of SDSC SP2 and CTC SP2, checked claims;
//! * [`parallel`] — the one order-keeping parallel map every reproduction runs its independent
//!   points through;
//! * [`stats`] — sample means, 95 % confidence intervals and ranks that are claimed only when
//!   the intervals separate.
//!
//! Seed 002's design lives in [`crate::grid::paper`].
//!
//! Not built for wasm32: the reproductions read trace files and run on threads.

pub mod parallel;
pub mod seed000;
pub mod seed001;
pub mod seed003;
pub mod seed004;
pub mod stats;
