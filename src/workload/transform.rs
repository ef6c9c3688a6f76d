//! Workload transforms. STUB: being implemented.
