//! Seeded synthetic workload models. STUB: being implemented.
