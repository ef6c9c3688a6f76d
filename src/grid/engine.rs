//! The grid simulation (Ernemann et al. §III): several sites, each a flat machine with its own local
//! scheduler, under one clock — the one engine loop ([`crate::sim::instant`]) with [`Grid`] as
//! its instance (one decider per site):
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

use super::dispatch::{choose_site, runner_up, Offer};
use super::local::{LocalPolicy, LocalScheduler};
use super::site::{GridError, Sharing, Site};
use crate::base::{Explainer, Explanation, Reason, SiteOffer};
use crate::machine::{FlatMachine, MachineError};
use crate::sim::engine::context;
use crate::sim::{Engine, EventQueue, Instance, JobId, JobOutcome, JobTable, StepReport, Time};
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
    /// Why each job went where it did and started when it did, when recorded
    /// ([`Engine::with_explanations`]).
    pub explanations: Vec<Explanation>,
}

/// The sites, their local schedulers and the grid scheduler: the [`Instance`] of the grid
/// engine (one decider per site).
pub struct Grid {
    policy: LocalPolicy,
    sharing: Sharing,
    sites: Vec<SiteState>,
    home: Vec<usize>,
    site_of: Vec<usize>,
    offered: Vec<Option<Time>>,
    /// Arrivals of the current instant sent to a site other than their own.
    migrations: usize,
    offers: Vec<Offer>,
    explainer: Explainer,
}

/// A grid simulation of several sites under one local policy and one sharing mode.
pub type GridSimulation = Engine<Grid>;

fn valid_time(t: Time, allow_negative: bool) -> bool {
    t.is_finite() && (allow_negative || t >= 0.0)
}

impl Engine<Grid> {
    /// A grid of `sites` (jobs in grid time, each at most its home machine's size).
    pub fn new(sites: Vec<Site>, sharing: Sharing, policy: LocalPolicy) -> Result<Self, GridError> {
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
        // order in place: never two copies of the grid workload at a time.
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
        let grid = Grid {
            policy,
            sharing,
            sites,
            home,
            site_of: vec![NO_SITE; n],
            offered: vec![None; if sharing == Sharing::JobSharing { n } else { 0 }],
            migrations: 0,
            offers: Vec::new(),
            explainer: Explainer::default(),
        };
        Ok(Engine::with_instance(jobs, grid))
    }

    /// Records why the grid scheduler chose each job's site, and the sites' local decisions
    /// (`crate::base::explain`).
    pub fn with_explanations(mut self) -> Self {
        let grid = self.instance_mut().0;
        grid.explainer = Explainer::new(true);
        for site in &mut grid.sites {
            site.local.policy_mut().explain(true);
        }
        self
    }

    /// The sites.
    pub fn sites(&self) -> Vec<SiteInfo> {
        self.instance()
            .sites
            .iter()
            .map(|s| s.info.clone())
            .collect()
    }

    /// Busy nodes of each site right now (for a live view).
    pub fn busy(&self) -> Vec<u32> {
        self.instance()
            .sites
            .iter()
            .map(|s| s.machine.total() - s.machine.free())
            .collect()
    }
}

impl Grid {
    fn machine_error(&self, s: usize, error: MachineError) -> GridError {
        GridError::Machine {
            site: self.sites[s].info.name.clone(),
            policy: self.policy.as_str().to_string(),
            error,
        }
    }

    /// The grid scheduler's choice for job `j` (§III-C; see [`crate::grid::dispatch`]).
    fn dispatch(&mut self, table: &JobTable, j: JobId) -> Result<usize, GridError> {
        self.offers.clear();
        let job = &table.jobs()[j];
        for (i, site) in self.sites.iter_mut().enumerate() {
            if let Some((start, left)) =
                site.local
                    .offer(job, table.jobs(), &site.machine, table.now())
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
        if self.explainer.is_on() {
            self.explain_dispatch(table, j, s);
        }
        Ok(s)
    }

    /// Records why job `j` went to site `s` (the offers are this dispatch's).
    fn explain_dispatch(&mut self, table: &JobTable, j: JobId, s: usize) {
        let home = self.home[j];
        let offer = |o: &Offer| SiteOffer {
            site: o.site as u32,
            start: o.start,
            left: o.left,
        };
        let Some(chosen) = self.offers.iter().find(|o| o.site == s).map(offer) else {
            return;
        };
        let (next, decided_by) = runner_up(&self.offers, s, home);
        let dispatched = Reason::Dispatched {
            chosen,
            home_site: home as u32,
            home: self.offers.iter().find(|o| o.site == home).map(offer),
            runner_up: next.as_ref().map(offer),
            decided_by,
            offers: self.offers.len() as u32,
        };
        self.explainer.record(table.now(), j, dispatched);
    }
}

impl Instance for Grid {
    type Start = JobId;
    type Error = GridError;
    type Report = GridStep;
    type Output = GridResult;

    fn job_of(start: JobId) -> JobId {
        start
    }

    fn complete(&mut self, table: &JobTable, j: JobId) -> Result<(), GridError> {
        let s = self.site_of[j];
        let Some(site) = self.sites.get_mut(s) else {
            return Ok(());
        };
        if table.jobs()[j].procs_held() > 0 {
            if let Err(e) = site.machine.release(j) {
                return Err(self.machine_error(s, e));
            }
        }
        let ctx = context(table, &site.machine);
        site.local.policy_mut().job_completed(j, &ctx);
        site.local.completed();
        Ok(())
    }

    /// The arrival is sent to a site: its own in single mode, the grid scheduler's choice
    /// with job sharing.
    fn arrive(&mut self, table: &JobTable, j: JobId) -> Result<(), GridError> {
        let home = self.home[j];
        let s = match self.sharing {
            Sharing::Single => home,
            Sharing::JobSharing => self.dispatch(table, j)?,
        };
        if s != home {
            self.migrations += 1;
        }
        self.site_of[j] = s;
        let Some(site) = self.sites.get_mut(s) else {
            return Err(GridError::NoSiteFits {
                job: table.id_of(j),
            });
        };
        let now = table.now();
        site.local.dispatched(j, &table.jobs()[j], now);
        let ctx = context(table, &site.machine);
        site.local.policy_mut().job_arrived(j, &ctx);
        Ok(())
    }

    /// Every site decides once, in site order.
    fn deciders(&self) -> usize {
        self.sites.len()
    }

    fn decide(&mut self, s: usize, table: &JobTable, starts: &mut Vec<JobId>) {
        let site = &mut self.sites[s];
        let ctx = context(table, &site.machine);
        site.local.policy_mut().decide(&ctx, starts);
    }

    fn not_waiting(&self, s: usize, job: u64) -> GridError {
        GridError::NotWaiting {
            site: self.sites[s].info.name.clone(),
            policy: self.policy.as_str().to_string(),
            job,
        }
    }

    fn start(&mut self, s: usize, table: &JobTable, j: JobId) -> Result<Time, GridError> {
        if self.site_of.get(j) != Some(&s) {
            return Err(self.not_waiting(s, table.id_of(j)));
        }
        let job = &table.jobs()[j];
        let now = table.now();
        let held = job.procs_held();
        if held > 0 {
            if let Err(e) = self.sites[s]
                .machine
                .start(j, held, now, now + job.estimate)
            {
                return Err(self.machine_error(s, e));
            }
        }
        Ok(now + job.duration())
    }

    fn started(&mut self, s: usize, table: &JobTable, starts: &[JobId]) {
        if !starts.is_empty() {
            self.sites[s].local.changed(|j| table.is_waiting(j));
        }
    }

    fn stalled(&self, waiting: usize) -> GridError {
        GridError::Stalled { waiting }
    }

    fn finish_instant(
        &mut self,
        _table: &JobTable,
        _completions: &mut EventQueue,
        report: StepReport,
    ) -> Result<GridStep, GridError> {
        let migrations = std::mem::take(&mut self.migrations);
        Ok(GridStep {
            time: report.time,
            completions: report.completions,
            arrivals: report.arrivals,
            migrations,
            starts: report.starts,
        })
    }

    fn result(mut self, table: JobTable) -> GridResult {
        let n = table.jobs().len();
        let promised = (0..n)
            .map(|j| {
                self.sites
                    .get(self.site_of[j])
                    .and_then(|s| s.local.policy().promised_start(j))
            })
            .collect();
        let projection_rebuilds = self.sites.iter().map(|s| s.local.rebuilds()).sum();
        // The grid scheduler's entries, then each site's; at equal times in that order.
        let mut explanations = self.explainer.take();
        for site in &mut self.sites {
            explanations.extend(site.local.policy_mut().take_explanations());
        }
        explanations.sort_by(|a, b| a.time.total_cmp(&b.time));
        let (jobs, outcomes) = table.into_parts();
        GridResult {
            policy: self.policy,
            sharing: self.sharing,
            sites: self.sites.into_iter().map(|s| s.info).collect(),
            jobs,
            home: self.home,
            site_of: self.site_of,
            offered: self.offered,
            outcomes,
            promised,
            projection_rebuilds,
            explanations,
        }
    }
}
