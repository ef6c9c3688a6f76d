//! The separated-classes contention model (Mache et al. §2.2, §2.3 and §4.1): a job's
//! communication phase is paced by its own all-to-all links and its I/O phase by its I/O
//! paths, and service time is network time (plus an optional, small computation term), as in
//! the paper's packet-level simulation where service time *is* message-passing time. It runs on
//! the flow engine of `super::flow` (same FCFS loop, same integer link loads, rates constant
//! between starts and finishes); only the rate of a running job differs. Equations and the
//! comparison with the flow model are in `docs/network-model.md` ("Separated-classes model").
//!
//! With A_i(l) and B_i(l) the all-to-all and complete-bipartite-write messages of job i on
//! link l (as in the flow model), ρ the fraction of I/O, and the other running jobs counted at
//! their mean mix O_i(l) = Σ_{k ≠ i} (ρ B_k(l) + (1 − ρ) A_k(l)):
//!
//! * communication bottleneck  b^A_i = max_{l : A_i(l) > 0} (A_i(l) + O_i(l)),
//! * I/O bottleneck            b^B_i = max_{l : B_i(l) > 0} (B_i(l) + O_i(l)),
//! * slowdown                  S_i = σ + κ · (ρ b^B_i + (1 − ρ) b^A_i),
//! * progress                  dp_i/dt = 1 / (C_i · S_i).
//!
//! σ is the weight of the computation term (0 by default: service time is network time), κ
//! the time of one message on a link per unit of the job's length C_i. A job alone takes
//! C_i · (σ + κ (ρ max B_i + (1 − ρ) max A_i)). With σ = 1 and ρ ∈ {0, 1} the model is the
//! flow model exactly (tested).

/// Parameters of the separated-classes model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeparatedConfig {
    /// ρ: fraction of I/O traffic, 0 ..= 1.
    pub traffic_io: f64,
    /// κ: time of one message on a link, per unit of a job's length C.
    pub kappa: f64,
    /// σ: weight of the computation term, 0 ..= 1 (0: service time is network time).
    pub compute: f64,
}

impl SeparatedConfig {
    /// Checks the ranges; the error names the field.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        for (key, v) in [
            ("traffic_io", self.traffic_io),
            ("kappa", self.kappa),
            ("compute", self.compute),
        ] {
            if !(v.is_finite() && (0.0..=1.0).contains(&v)) {
                return Err((
                    key,
                    format!(
                        "must be between 0 and 1 (got {})",
                        crate::limits::echo_number(v)
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The communication and I/O bottlenecks (b^A, b^B) of a job whose links are `links`
    /// ((link, A, B) message counts), under the total loads `load_a` (Σ A_k) and `load_b`
    /// (Σ B_k) of all running jobs, the job included. 0 for a class the job does not send.
    pub fn bottlenecks(
        &self,
        links: &[(usize, u64, u64)],
        load_a: &[u64],
        load_b: &[u64],
    ) -> (f64, f64) {
        let rho = self.traffic_io;
        let (mut ba, mut bb) = (0.0f64, 0.0f64);
        for &(l, a, b) in links {
            // Integer counts of the others first (exact), then the mix.
            let others_a = load_a[l].saturating_sub(a) as f64;
            let others_b = load_b[l].saturating_sub(b) as f64;
            let others = rho * others_b + (1.0 - rho) * others_a;
            if a > 0 {
                ba = ba.max(a as f64 + others);
            }
            if b > 0 {
                bb = bb.max(b as f64 + others);
            }
        }
        (ba, bb)
    }

    /// S = σ + κ (ρ b^B + (1 − ρ) b^A): service time per unit of C at these bottlenecks.
    pub fn slowdown(&self, ba: f64, bb: f64) -> f64 {
        let rho = self.traffic_io;
        self.compute + self.kappa * (rho * bb + (1.0 - rho) * ba)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alloc::node_allocator::NodeAllocatorKind;
    use crate::network::flow::simulate;
    use crate::network::flow::FixedLayouts as Fixed;
    use crate::network::flow::{simulate_separated, FlowConfig, FlowJob};
    use crate::network::Network;

    fn fig2_net() -> Network {
        crate::network::fig2_network()
    }

    fn cfg(rho: f64, kappa: f64, compute: f64) -> SeparatedConfig {
        SeparatedConfig {
            traffic_io: rho,
            kappa,
            compute,
        }
    }

    fn job(submit: f64, size: u32, c: f64) -> FlowJob {
        FlowJob {
            submit,
            size,
            compute: c,
        }
    }

    /// A job alone: S = σ + κ (ρ max B + (1 − ρ) max A), by hand.
    #[test]
    fn alone_the_service_time_is_the_network_time() {
        let net = fig2_net();
        // Fig. 2 block layout (rows 3–4, columns 1–2): its writes put 8 messages on the
        // rung from (1, 4) and on the middle I/O link (max B = 8); its all-to-all puts 2 on
        // every link it uses (max A = 2). Parallel layout (column 1): max B = 4, and the
        // all-to-all of a 4-node line puts 2 · 2 = 4 on the link between rows 2 and 3.
        let block = vec![(1, 3), (2, 3), (1, 4), (2, 4)];
        let parallel = vec![(1, 1), (1, 2), (1, 3), (1, 4)];
        let cases = [
            (block.clone(), 1.0, 0.0, 10.0 * 0.01 * 8.0),
            (block.clone(), 0.0, 0.0, 10.0 * 0.01 * 2.0),
            // ρ = 0.25, σ = 0.5: 10 · (0.5 + 0.01 · (0.25 · 8 + 0.75 · 2)) = 5.35.
            (block, 0.25, 0.5, 5.35),
            (parallel.clone(), 1.0, 0.0, 10.0 * 0.01 * 4.0),
            (parallel.clone(), 0.0, 0.0, 10.0 * 0.01 * 4.0),
            (parallel, 0.5, 0.0, 10.0 * 0.01 * (0.5 * 4.0 + 0.5 * 4.0)),
        ];
        for (layout, rho, sigma, want) in cases {
            let r = simulate_separated(
                &net,
                &[job(0.0, 4, 10.0)],
                &mut Fixed(vec![layout]),
                cfg(rho, 0.01, sigma),
            )
            .unwrap();
            assert!(
                (r[0].service() - want).abs() < 1e-9,
                "ρ {rho} σ {sigma}: {} vs {want}",
                r[0].service()
            );
        }
    }

    /// Two jobs whose writes share the rungs and the I/O line but whose all-to-all patterns
    /// share no link: the I/O phase is slowed by the other job, the communication phase not.
    #[test]
    fn the_io_phase_feels_the_io_line_and_the_communication_phase_does_not() {
        let net = fig2_net();
        // Job 0: column 1, rows 1–2; job 1: column 2, rows 1–2. All-to-all: one message each
        // way on their own vertical link (A = 1). Writes (4 I/O nodes): job 1's go west
        // through (1, y) and share the rungs (1, y)→(0, y) with job 0's (4 + 4) and the I/O
        // line; the busiest links of either alone carry 4 (the rungs, and (0, 2)→(0, 3):
        // rows 1–2 to I/O nodes 3–4, 2 × 2), together 8.
        let layouts = || Fixed(vec![vec![(1, 1), (1, 2)], vec![(2, 1), (2, 2)]]);
        let jobs = [job(0.0, 2, 100.0), job(0.0, 2, 200.0)];
        let run = |rho| simulate_separated(&net, &jobs, &mut layouts(), cfg(rho, 0.01, 0.0));
        // Pure communication: each as if alone, S = κ · 1.
        let r = run(0.0).unwrap();
        assert!((r[0].service() - 1.0).abs() < 1e-9, "{r:?}");
        assert!((r[1].service() - 2.0).abs() < 1e-9, "{r:?}");
        // Pure I/O: together S = κ · 8, so job 0 ends at 100 · 0.08 = 8 with job 1 half done
        // (8 / (200 · 0.08)); alone S = κ · 4: the other half takes 0.5 · 200 · 0.04 = 4.
        let r = run(1.0).unwrap();
        assert!((r[0].end - 8.0).abs() < 1e-9, "{r:?}");
        assert!((r[1].end - 12.0).abs() < 1e-9, "{r:?}");
        // ρ = 0.5: on a rung the other job counts at its mix 0.5 · 4, so b^B = 4 + 2 = 6;
        // b^A = 1 (no writes on the vertical links): S = 0.01 · (0.5 · 6 + 0.5 · 1) = 0.035
        // for both; job 0 ends at 3.5, job 1 then has 1 − 3.5 / 7 = 0.5 left, alone at
        // S = 0.01 · (0.5 · 4 + 0.5 · 1) = 0.025: 0.5 · 200 · 0.025 = 2.5 more.
        let r = run(0.5).unwrap();
        assert!((r[0].end - 3.5).abs() < 1e-9, "{r:?}");
        assert!((r[1].end - 6.0).abs() < 1e-9, "{r:?}");
        // The bottlenecks themselves, from the loads of both jobs.
        let c = cfg(0.5, 0.01, 0.0);
        let mut load_a = vec![0u64; net.link_slots()];
        let mut load_b = vec![0u64; net.link_slots()];
        let l0 = super::super::flow::job_links(&net, &[(1, 1), (1, 2)]);
        let l1 = super::super::flow::job_links(&net, &[(2, 1), (2, 2)]);
        for &(l, a, b) in l0.iter().chain(&l1) {
            load_a[l] += a;
            load_b[l] += b;
        }
        assert_eq!(c.bottlenecks(&l0, &load_a, &load_b), (1.0, 6.0));
        assert_eq!(c.bottlenecks(&l1, &load_a, &load_b), (1.0, 6.0));
    }

    /// σ = 1 at ρ = 0 and ρ = 1 is the flow model: same bottleneck, same slowdown 1 + κ b.
    #[test]
    fn with_full_computation_at_the_extremes_it_is_the_flow_model() {
        let net = Network::mc_elongated();
        let params = crate::workload::synthetic::exponential_jobs::ExponentialJobsParams {
            jobs: 120,
            mean_interarrival: 300.0,
            ..Default::default()
        };
        let jobs: Vec<FlowJob> = params.generate(4).jobs.iter().map(FlowJob::of).collect();
        for rho in [0.0, 1.0] {
            for k in [NodeAllocatorKind::Random, NodeAllocatorKind::McElongated] {
                let flow = FlowConfig {
                    traffic_io: rho,
                    kappa: 0.002,
                };
                let a = simulate(&net, &jobs, k.build(&net, 3).as_mut(), flow).unwrap();
                let b = simulate_separated(
                    &net,
                    &jobs,
                    k.build(&net, 3).as_mut(),
                    cfg(rho, 0.002, 1.0),
                )
                .unwrap();
                assert_eq!(a.len(), b.len());
                for (x, y) in a.iter().zip(&b) {
                    assert_eq!(x.nodes, y.nodes);
                    assert!(
                        (x.end - y.end).abs() <= 1e-9 * x.end.max(1.0),
                        "{x:?} {y:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn deterministic_valid_and_checked() {
        let net = Network::mc_elongated();
        let params = crate::workload::synthetic::exponential_jobs::ExponentialJobsParams {
            jobs: 150,
            mean_interarrival: 40.0,
            ..Default::default()
        };
        let jobs: Vec<FlowJob> = params.generate(3).jobs.iter().map(FlowJob::of).collect();
        let c = cfg(0.6, 0.001, 0.0);
        for k in NodeAllocatorKind::ALL {
            let r1 = simulate_separated(&net, &jobs, k.build(&net, 1).as_mut(), c).unwrap();
            let r2 = simulate_separated(&net, &jobs, k.build(&net, 1).as_mut(), c).unwrap();
            assert_eq!(r1, r2);
            for (i, r) in r1.iter().enumerate() {
                assert!(r.start >= jobs[i].submit && r.end >= r.start);
            }
            assert!(r1.windows(2).all(|w| w[0].start <= w[1].start));
        }
        for (bad, key) in [
            (cfg(1.5, 0.001, 0.0), "traffic_io"),
            (cfg(0.5, -1.0, 0.0), "kappa"),
            (cfg(0.5, 0.001, f64::NAN), "compute"),
        ] {
            assert_eq!(bad.validate().map_err(|e| e.0), Err(key));
            let mut a = NodeAllocatorKind::Mc.build(&net, 1);
            assert!(simulate_separated(&net, &jobs, a.as_mut(), bad).is_err());
        }
    }
}
