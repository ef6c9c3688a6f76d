//! The experiment designs of `schedlab reproduce`, runnable natively and returning data (the
//! CLI only parses flags and prints):
//!
//! * [`mc_elongated`] — Mache et al. Table 2 and Figs. 9–10, §4: the contention
//!   experiment on the 16 × 22 mesh with I/O nodes on one side;
//! * [`binary_tree`] — Liu et al. §5, Figs. 3–6: binary-tree allocators against
//!   MBS and PLAS on a 16 × 16 mesh under the phase model, and the paper's conclusions checked;
//! * [`window`] — Ababneh & Bani-Mohammad §5.1–5.5, Figs. 2–11 and 15–18: window
//!   scheduling on a 32 × 32 mesh and two SDSC traces;
//! * [`delay_readings`] — Ababneh & Bani-Mohammad §2.3, Figs. 6–7: Delay under the
//!   readings of λ and W the text allows;
//! * [`moldable`] — Srinivasan et al. Figs. 1–11, §3–5:
//!   moldable scheduling on the first 5,000 jobs of SDSC SP2 and CTC SP2, checked claims;
//! * [`parallel`] — the one order-keeping parallel map every reproduction runs its independent
//!   points through;
//! * [`stats`] — sample means, 95 % confidence intervals and ranks that are claimed only when
//!   the intervals separate.
//!
//! Ernemann et al.'s design lives in [`crate::grid::paper`].
//!
//! Not built for wasm32: the reproductions read trace files and run on threads.

pub mod binary_tree;
pub mod delay_readings;
pub mod mc_elongated;
pub mod moldable;
pub mod parallel;
pub mod stats;
pub mod window;
