//! The grid simulation (seed 002 §III): several sites, each a flat machine with its own local
//! scheduler, under one clock, with the determinism rules of the flat engine
//! ([`crate::sim::engine`]):
//!
//! * completions are ordered by (time, sequence) in one queue for the whole grid — the
//!   sequence number is the order in which completions were scheduled;
//! * at an instant: first all completions at that time, then all arrivals at that time in
//!   arrival order — submit time, ties by site index, then by position in the site's
//!   workload — each sent to a site at once (its own site in [`Sharing::Single`], the grid
//!   scheduler's choice in [`Sharing::JobSharing`], see [`crate::grid::dispatch`]); then every
//!   site's policy decides once, in site order;
//! * every start a local policy asks for is validated (the job waits at that site, the nodes
//!   are free) and refused with a [`GridError`] otherwise;
//! * [`GridSimulation::step`] processes one instant, [`GridSimulation::step_until`] every
//!   instant up to a time, [`GridSimulation::step_instants`] at most n instants.
//!
//! A job sent to a site stays there: the grid scheduler allocates, the local scheduler only
//! decides when to start (§III-A "The local schedulers are only responsible for starting the
//! jobs after their allocation by the grid scheduler").

use serde::{Deserialize, Serialize};

use super::dispatch::{choose_site, Offer};
use super::local::{LocalPolicy, LocalScheduler};
use super::site::{GridError, Sharing, Site};
use crate::machine::{FlatMachine, MachineError};
use crate::policy::Context;
use crate::sim::{EventQueue, JobId, JobOutcome, Time};
use crate::workload::Job;

/// A site without its workload (what results and reports need).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SiteInfo {
    pub name: String,
    pub procs: u32,
    pub tz_offset_hours: f64,
}

/// What one call of [`GridSimulation::step`] did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GridStep {
    pub time: Time,
    pub completions: usize,
    pub arrivals: usize,
    /// Arrivals sent to a site other than their own.
    pub migrations: usize,
    pub starts: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum JobState {
    Future,
    Waiting,
    Running,
    Done,
}

/// Marks a job not (yet) sent to any site.
pub const NO_SITE: usize = usize::MAX;

struct SiteState {
    info: SiteInfo,
    machine: FlatMachine,
    local: LocalScheduler,
}

/// The finished grid run.
#[derive(Clone, Debug, PartialEq)]
pub struct GridResult {
    pub policy: LocalPolicy,
    pub sharing: Sharing,
    pub sites: Vec<SiteInfo>,
    /// All jobs of all sites in arrival order (grid time).
    pub jobs: Vec<Job>,
    /// Site each job was submitted at.
    pub home: Vec<usize>,
    /// Site each job ran at ([`NO_SITE`] if it never arrived, in an interrupted run).
    pub site_of: Vec<usize>,
    pub outcomes: Vec<JobOutcome>,
    /// First reservation the executing site's policy gave each job, where it gives one.
    pub promised: Vec<Option<Time>>,
    /// Job sharing: the earliest start of the offer the grid scheduler chose (`None` in
    /// single mode). Conservative sites never start a job later; EASY sites may.
    pub offered: Vec<Option<Time>>,
    /// Times an EASY site rebuilt its projected profile (a cost measure).
    pub projection_rebuilds: u64,
}

/// A grid simulation of several sites under one local policy and one sharing mode.
pub struct GridSimulation {
    policy: LocalPolicy,
    sharing: Sharing,
    sites: Vec<SiteState>,
    jobs: Vec<Job>,
    home: Vec<usize>,
    site_of: Vec<usize>,
    offered: Vec<Option<Time>>,
    state: Vec<JobState>,
    outcomes: Vec<JobOutcome>,
    completions: EventQueue,
    next_arrival: usize,
    now: Time,
    started: usize,
    completed: usize,
    waiting: usize,
    starts_buf: Vec<JobId>,
    offers: Vec<Offer>,
}

fn valid_time(t: Time, allow_negative: bool) -> bool {
    t.is_finite() && (allow_negative || t >= 0.0)
}

impl GridSimulation {
    /// A grid of `sites` (jobs in grid time, each at most its home machine's size).
    pub fn new(
        sites: Vec<Site>,
        sharing: Sharing,
        policy: LocalPolicy,
    ) -> Result<GridSimulation, GridError> {
        if sites.is_empty() {
            return Err(GridError::NoSites);
        }
        if sites.len() > u32::MAX as usize {
            return Err(GridError::TooManySites(sites.len()));
        }
        // Arrival order: submit time, then site index, then position in the site.
        let mut order: Vec<(Time, usize, usize)> = Vec::new();
        for (s, site) in sites.iter().enumerate() {
            if site.procs == 0 {
                return Err(GridError::EmptyMachine {
                    site: site.name.clone(),
                });
            }
            if !(site.tz_offset_hours.is_finite() && site.tz_offset_hours.abs() <= 168.0) {
                return Err(GridError::BadOffset {
                    site: site.name.clone(),
                });
            }
            for (k, job) in site.jobs.iter().enumerate() {
                let bad = |field| GridError::BadJob {
                    site: site.name.clone(),
                    job: job.id,
                    field,
                };
                if !valid_time(job.submit, true) {
                    return Err(bad("submit time"));
                }
                if !valid_time(job.run_time, false) {
                    return Err(bad("run time"));
                }
                if !valid_time(job.estimate, false) {
                    return Err(bad("estimate"));
                }
                if job.procs > site.procs {
                    return Err(GridError::JobTooLarge {
                        site: site.name.clone(),
                        job: job.id,
                        procs: job.procs,
                        machine: site.procs,
                    });
                }
                order.push((job.submit, s, k));
            }
        }
        order.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
        // One vector of all jobs, each site's moved in and freed at once, then put in arrival
        // order in place: never two copies of the grid workload at a time (issue 17).
        let n = order.len();
        let mut infos = Vec::with_capacity(sites.len());
        let mut first = Vec::with_capacity(sites.len());
        let mut jobs: Vec<Job> = Vec::with_capacity(n);
        for site in sites {
            infos.push(SiteInfo {
                name: site.name,
                procs: site.procs,
                tz_offset_hours: site.tz_offset_hours,
            });
            first.push(jobs.len());
            jobs.extend(site.jobs);
        }
        let home: Vec<usize> = order.iter().map(|&(_, s, _)| s).collect();
        let mut from: Vec<usize> = order.iter().map(|&(_, s, k)| first[s] + k).collect();
        drop(order);
        // Position i takes the job now at from[i]: follow each cycle with swaps.
        for i in 0..n {
            if from[i] == usize::MAX {
                continue;
            }
            let mut j = i;
            loop {
                let k = from[j];
                from[j] = usize::MAX;
                if k == i {
                    break;
                }
                jobs.swap(j, k);
                j = k;
            }
        }
        let n = jobs.len();
        let sites = infos
            .into_iter()
            .map(|info| SiteState {
                machine: FlatMachine::new(info.procs, 0),
                local: LocalScheduler::new(policy, n, info.procs),
                info,
            })
            .collect();
        Ok(GridSimulation {
            policy,
            sharing,
            sites,
            now: jobs.first().map(|j| j.submit).unwrap_or(0.0),
            home,
            site_of: vec![NO_SITE; n],
            offered: vec![None; if sharing == Sharing::JobSharing { n } else { 0 }],
            state: vec![JobState::Future; n],
            outcomes: vec![
                JobOutcome {
                    start: f64::NAN,
                    end: f64::NAN
                };
                n
            ],
            jobs,
            completions: EventQueue::new(),
            next_arrival: 0,
            started: 0,
            completed: 0,
            waiting: 0,
            starts_buf: Vec::new(),
            offers: Vec::new(),
        })
    }

    /// All jobs in arrival order.
    pub fn jobs(&self) -> &[Job] {
        &self.jobs
    }

    /// The sites.
    pub fn sites(&self) -> Vec<SiteInfo> {
        self.sites.iter().map(|s| s.info.clone()).collect()
    }

    /// Busy nodes of each site right now (for a live view).
    pub fn busy(&self) -> Vec<u32> {
        self.sites
            .iter()
            .map(|s| s.machine.total() - s.machine.free())
            .collect()
    }

    fn machine_error(&self, s: usize, error: MachineError) -> GridError {
        GridError::Machine {
            site: self.sites[s].info.name.clone(),
            policy: self.policy.as_str().to_string(),
            error,
        }
    }

    /// Processes the next instant. `Ok(None)` when the run is over.
    pub fn step(&mut self) -> Result<Option<GridStep>, GridError> {
        let Some(t) = self.next_time() else {
            if self.waiting > 0 {
                return Err(GridError::Stalled {
                    waiting: self.waiting,
                });
            }
            return Ok(None);
        };
        self.now = t;
        let mut report = GridStep {
            time: t,
            completions: 0,
            arrivals: 0,
            migrations: 0,
            starts: 0,
        };

        // 1. Completions at t, in (time, sequence) order.
        while let Some(j) = self.completions.pop_at(t) {
            let s = self.site_of[j];
            let Some(site) = self.sites.get_mut(s) else {
                continue;
            };
            if self.jobs[j].procs_held() > 0 {
                if let Err(e) = site.machine.release(j) {
                    return Err(self.machine_error(s, e));
                }
            }
            self.state[j] = JobState::Done;
            self.completed += 1;
            report.completions += 1;
            let ctx = Context {
                now: t,
                jobs: &self.jobs,
                total_procs: site.machine.total(),
                free_procs: site.machine.free(),
                running: site.machine.running(),
            };
            site.local.policy_mut().job_completed(j, &ctx);
            site.local.completed();
        }

        // 2. Arrivals at t, in arrival order, each sent to a site.
        while self.next_arrival < self.jobs.len() && self.jobs[self.next_arrival].submit <= t {
            let j = self.next_arrival;
            self.next_arrival += 1;
            let home = self.home[j];
            let s = match self.sharing {
                Sharing::Single => home,
                Sharing::JobSharing => self.dispatch(j)?,
            };
            if s != home {
                report.migrations += 1;
            }
            self.site_of[j] = s;
            self.state[j] = JobState::Waiting;
            self.waiting += 1;
            report.arrivals += 1;
            let Some(site) = self.sites.get_mut(s) else {
                return Err(GridError::NoSiteFits {
                    job: self.jobs[j].id,
                });
            };
            site.local.dispatched(j, &self.jobs[j], t);
            let ctx = Context {
                now: t,
                jobs: &self.jobs,
                total_procs: site.machine.total(),
                free_procs: site.machine.free(),
                running: site.machine.running(),
            };
            site.local.policy_mut().job_arrived(j, &ctx);
        }

        // 3. Every site decides once, in site order.
        let mut starts = std::mem::take(&mut self.starts_buf);
        for s in 0..self.sites.len() {
            starts.clear();
            {
                let site = &mut self.sites[s];
                let ctx = Context {
                    now: t,
                    jobs: &self.jobs,
                    total_procs: site.machine.total(),
                    free_procs: site.machine.free(),
                    running: site.machine.running(),
                };
                site.local.policy_mut().decide(&ctx, &mut starts);
            }
            for &j in &starts {
                self.start_job(s, j)?;
            }
            if !starts.is_empty() {
                report.starts += starts.len();
                let state = &self.state;
                self.sites[s]
                    .local
                    .changed(|j| state.get(j) == Some(&JobState::Waiting));
            }
        }
        self.starts_buf = starts;
        Ok(Some(report))
    }

    /// The grid scheduler's choice for job `j` (§III-C; see [`crate::grid::dispatch`]).
    fn dispatch(&mut self, j: JobId) -> Result<usize, GridError> {
        self.offers.clear();
        let job = &self.jobs[j];
        for (i, site) in self.sites.iter_mut().enumerate() {
            if let Some((start, left)) = site.local.offer(job, &self.jobs, &site.machine, self.now)
            {
                self.offers.push(Offer {
                    site: i,
                    start,
                    left,
                });
            }
        }
        let s =
            choose_site(&self.offers, self.home[j]).ok_or(GridError::NoSiteFits { job: job.id })?;
        if let (Some(o), Some(slot)) = (
            self.offers.iter().find(|o| o.site == s),
            self.offered.get_mut(j),
        ) {
            *slot = Some(o.start);
        }
        Ok(s)
    }

    fn start_job(&mut self, s: usize, j: JobId) -> Result<(), GridError> {
        if self.state.get(j) != Some(&JobState::Waiting) || self.site_of.get(j) != Some(&s) {
            return Err(GridError::NotWaiting {
                site: self.sites[s].info.name.clone(),
                policy: self.policy.as_str().to_string(),
                job: self.jobs.get(j).map(|x| x.id).unwrap_or(j as u64),
            });
        }
        let job = &self.jobs[j];
        let (held, estimate, duration) = (job.procs_held(), job.estimate, job.duration());
        if held > 0 {
            let now = self.now;
            if let Err(e) = self.sites[s].machine.start(j, held, now, now + estimate) {
                return Err(self.machine_error(s, e));
            }
        }
        self.state[j] = JobState::Running;
        self.waiting -= 1;
        self.started += 1;
        let end = self.now + duration;
        self.outcomes[j] = JobOutcome {
            start: self.now,
            end,
        };
        self.completions.push(end, j);
        Ok(())
    }

    /// The result so far (complete once [`is_finished`](Self::is_finished)).
    pub fn into_result(self) -> GridResult {
        let promised = (0..self.jobs.len())
            .map(|j| {
                self.sites
                    .get(self.site_of[j])
                    .and_then(|s| s.local.policy().promised_start(j))
            })
            .collect();
        let projection_rebuilds = self.sites.iter().map(|s| s.local.rebuilds()).sum();
        GridResult {
            policy: self.policy,
            sharing: self.sharing,
            sites: self.sites.into_iter().map(|s| s.info).collect(),
            jobs: self.jobs,
            home: self.home,
            site_of: self.site_of,
            offered: self.offered,
            outcomes: self.outcomes,
            promised,
            projection_rebuilds,
        }
    }
}

crate::sim::impl_stepping!(GridSimulation, GridError, GridResult);
