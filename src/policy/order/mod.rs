//! The axes of a flat policy beside its backfilling (docs/policies.md, "Queue orders,
//! backfilling and estimates"):
//!
//! * the **queue order** ([`QueueOrder`]): arrival (the papers' default), shortest / longest
//!   estimate first, smallest / largest processor count, smallest / largest area, WFP3 and
//!   UNICEF (Tang, Lan, Desai, Buettner, "Fault-aware, utility-based job scheduling on Blue
//!   Gene/P systems", 2009), the learned functions F1–F4 (Carastan-Santos, de Camargo,
//!   "Obtaining dynamic scheduling policies with simulation and machine learning", 2017),
//!   or a priority the user writes ([`expression`]). Every order is a priority, higher first,
//!   evaluated at every decision (so orders that read the wait change as jobs wait); ties go
//!   to the earlier arrival.
//! * the **backfill order**: EASY may backfill in another order than its queue (EASY-SJBF:
//!   arrival queue, shortest-first backfilling); the reservation still goes to the head of the
//!   queue order.
//! * the **run-time estimates** ([`Estimates`]): the user's request, the exact run time, f ×
//!   run time, or a per-user prediction after Tsafrir, Etsion and Feitelson, "Backfilling
//!   using system-generated predictions rather than user runtime estimates" (2007): the mean
//!   of the user's last two run times, never above the request, raised to the request when a
//!   job outlives it. Jobs are still killed at the user's request.

pub mod expression;

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::base::{Entry, Family, Registered, Time, UnknownName};
use crate::workload::Job;
pub use expression::{Attribute, Attributes, ExpressionError, PriorityExpression};

/// The built-in queue orders.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuiltinOrder {
    Arrival,
    ShortestFirst,
    LongestFirst,
    SmallestFirst,
    LargestFirst,
    SmallestAreaFirst,
    LargestAreaFirst,
    Wfp3,
    Unicef,
    F1,
    F2,
    F3,
    F4,
}

/// The built-in queue orders, each named once (file name, labels, formula).
pub const ORDERS: Family = Family {
    key: "order",
    noun: "queue order",
    sep: '-',
    entries: &[
        Entry::plain("arrival", "Arrival order", "First come, first served: submit time."),
        Entry::aliased(
            "sjf",
            &["shortest"],
            "Shortest estimate first",
            "Priority −estimate.",
        ),
        Entry::aliased(
            "ljf",
            &["longest"],
            "Longest estimate first",
            "Priority estimate.",
        ),
        Entry::aliased(
            "small",
            &["smallest"],
            "Smallest first",
            "Fewest processors first: priority −procs.",
        ),
        Entry::aliased(
            "large",
            &["largest"],
            "Largest first",
            "Most processors first: priority procs.",
        ),
        Entry::plain(
            "small-area",
            "Smallest area first",
            "Priority −procs × estimate.",
        ),
        Entry::plain(
            "large-area",
            "Largest area first",
            "Priority procs × estimate.",
        ),
        Entry::plain(
            "wfp3",
            "WFP3",
            "Tang et al. 2009: priority (wait / estimate)³ × procs.",
        ),
        Entry::plain(
            "unicef",
            "UNICEF",
            "Tang et al. 2009: priority wait / (log₂(max(procs, 2)) × estimate).",
        ),
        Entry::plain(
            "f1",
            "F1",
            "Carastan-Santos & de Camargo 2017: score log₁₀(estimate) × procs + 870 × log₁₀(submit); lowest first.",
        ),
        Entry::plain(
            "f2",
            "F2",
            "Carastan-Santos & de Camargo 2017: score √estimate × procs + 25600 × log₁₀(submit); lowest first.",
        ),
        Entry::plain(
            "f3",
            "F3",
            "Carastan-Santos & de Camargo 2017: score estimate × procs + 6860000 × log₁₀(submit); lowest first.",
        ),
        Entry::plain(
            "f4",
            "F4",
            "Carastan-Santos & de Camargo 2017: score estimate × √procs + 530000 × log₁₀(submit); lowest first.",
        ),
    ],
};

crate::base::registry::registered_enum!(BuiltinOrder, ORDERS, BuiltinOrder::ALL);

impl BuiltinOrder {
    /// Every built-in order, in [`ORDERS`] order.
    pub const ALL: [BuiltinOrder; 13] = [
        BuiltinOrder::Arrival,
        BuiltinOrder::ShortestFirst,
        BuiltinOrder::LongestFirst,
        BuiltinOrder::SmallestFirst,
        BuiltinOrder::LargestFirst,
        BuiltinOrder::SmallestAreaFirst,
        BuiltinOrder::LargestAreaFirst,
        BuiltinOrder::Wfp3,
        BuiltinOrder::Unicef,
        BuiltinOrder::F1,
        BuiltinOrder::F2,
        BuiltinOrder::F3,
        BuiltinOrder::F4,
    ];

    /// The priority of a job (higher first) with attributes `a`.
    pub fn priority(self, a: &Attributes) -> f64 {
        let (r, n) = (a.estimate, a.procs);
        // log₁₀ of the submit time: a job submitted at 0 counts as submitted at 1 s.
        let log_s = || libm::log10(a.submit.max(1.0));
        match self {
            BuiltinOrder::Arrival => 0.0,
            BuiltinOrder::ShortestFirst => -r,
            BuiltinOrder::LongestFirst => r,
            BuiltinOrder::SmallestFirst => -n,
            BuiltinOrder::LargestFirst => n,
            BuiltinOrder::SmallestAreaFirst => -(n * r),
            BuiltinOrder::LargestAreaFirst => n * r,
            BuiltinOrder::Wfp3 | BuiltinOrder::Unicef => match self.by_wait(r, n) {
                Some(w) => w.raw(a.wait),
                None => 0.0,
            },
            BuiltinOrder::F1 => -(libm::log10(r) * n + 870.0 * log_s()),
            BuiltinOrder::F2 => -(libm::sqrt(r) * n + 25_600.0 * log_s()),
            BuiltinOrder::F3 => -(r * n + 6_860_000.0 * log_s()),
            BuiltinOrder::F4 => -(r * libm::sqrt(n) + 530_000.0 * log_s()),
        }
    }

    /// Whether the priority changes as jobs wait (it must be computed again at every decision).
    pub fn reads_wait(self) -> bool {
        matches!(self, BuiltinOrder::Wfp3 | BuiltinOrder::Unicef)
    }

    /// An order that reads the wait, as a function of the wait alone for a job with estimate
    /// `r` and `n` processors (computed once per job; `priority` evaluates it too).
    pub fn by_wait(self, r: f64, n: f64) -> Option<WaitPriority> {
        match self {
            BuiltinOrder::Wfp3 => Some(WaitPriority::Wfp3 {
                estimate: r,
                procs: n,
            }),
            BuiltinOrder::Unicef => Some(WaitPriority::Unicef {
                scale: libm::log2(n.max(2.0)) * r,
            }),
            _ => None,
        }
    }
}

/// A job's WFP3 or UNICEF priority as a function of its wait, the rest fixed when it arrives:
/// bit for bit [`BuiltinOrder::priority`], in one or two operations per job and decision.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum WaitPriority {
    /// (wait / estimate)³ × processors.
    Wfp3 { estimate: f64, procs: f64 },
    /// wait / (log₂ max(processors, 2) × estimate).
    Unicef { scale: f64 },
}

impl WaitPriority {
    fn raw(self, wait: f64) -> f64 {
        match self {
            WaitPriority::Wfp3 { estimate, procs } => cube(wait / estimate) * procs,
            WaitPriority::Unicef { scale } => wait / scale,
        }
    }

    /// The priority after `wait` seconds (NaN counts as lowest, as in [`QueueOrder::priority`]).
    pub fn at(self, wait: f64) -> f64 {
        let p = self.raw(wait);
        if p.is_nan() {
            f64::NEG_INFINITY
        } else {
            p
        }
    }
}

/// x³ by multiplication, as a written `^3` is evaluated.
fn cube(x: f64) -> f64 {
    x * x * x
}

/// A queue order: built in, or a priority the user wrote.
#[derive(Clone, Debug, PartialEq)]
pub enum QueueOrder {
    Builtin(BuiltinOrder),
    Expression(Box<PriorityExpression>),
}

impl Default for QueueOrder {
    fn default() -> Self {
        QueueOrder::Builtin(BuiltinOrder::Arrival)
    }
}

/// Why an order was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OrderError {
    /// A priority expression with an error at a column.
    Expression(ExpressionError),
}

impl fmt::Display for OrderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OrderError::Expression(e) => write!(
                f,
                "not a queue order ({}) nor a priority expression: {e}",
                ORDERS
                    .entries
                    .iter()
                    .map(|e| e.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

impl std::error::Error for OrderError {}

impl QueueOrder {
    /// A built-in order's name, else a priority expression.
    pub fn parse(s: &str) -> Result<QueueOrder, OrderError> {
        if let Ok(b) = BuiltinOrder::lookup(s.trim()) {
            return Ok(QueueOrder::Builtin(b));
        }
        PriorityExpression::parse(s)
            .map(|e| QueueOrder::Expression(Box::new(e)))
            .map_err(OrderError::Expression)
    }

    /// The name (built-in) or the expression as written.
    pub fn name(&self) -> String {
        match self {
            QueueOrder::Builtin(b) => b.entry().name.to_string(),
            QueueOrder::Expression(e) => e.text().to_string(),
        }
    }

    /// A short label for tables and legends.
    pub fn label(&self) -> String {
        match self {
            QueueOrder::Builtin(b) => b.entry().label.to_string(),
            QueueOrder::Expression(e) => format!("priority {}", e.text()),
        }
    }

    /// Arrival order.
    pub fn is_arrival(&self) -> bool {
        *self == QueueOrder::Builtin(BuiltinOrder::Arrival)
    }

    /// Whether a job's priority stays what it was when computed first (it reads neither the
    /// wait nor the clock), given estimates that do not change either.
    pub fn is_static(&self) -> bool {
        match self {
            QueueOrder::Builtin(b) => !b.reads_wait(),
            QueueOrder::Expression(e) => !e.reads(Attribute::Wait) && !e.reads(Attribute::Now),
        }
    }

    /// Whether the order reads the user's number.
    pub fn reads_user(&self) -> bool {
        matches!(self, QueueOrder::Expression(e) if e.reads(Attribute::User) || e.reads(Attribute::Queue))
    }

    /// The priority of a job with attributes `a` (higher first; NaN counts as lowest).
    pub fn priority(&self, a: &Attributes, stack: &mut Vec<f64>) -> f64 {
        let p = match self {
            QueueOrder::Builtin(b) => b.priority(a),
            QueueOrder::Expression(e) => e.eval(a, stack),
        };
        if p.is_nan() {
            f64::NEG_INFINITY
        } else {
            p
        }
    }
}

impl Serialize for QueueOrder {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.name())
    }
}

impl<'de> Deserialize<'de> for QueueOrder {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<QueueOrder, D::Error> {
        let s = String::deserialize(d)?;
        QueueOrder::parse(&s).map_err(serde::de::Error::custom)
    }
}

/// Where the run-time estimates a policy plans with come from.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Estimates {
    /// The user's request (SWF field 9): the papers' default.
    #[default]
    Request,
    /// The run time itself (a perfect estimate).
    Exact,
    /// `f` × the run time.
    Factor(f64),
    /// The mean of the user's last two run times (Tsafrir, Etsion and Feitelson 2007).
    Predicted,
}

/// Why an estimates name was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EstimatesError(pub String);

impl fmt::Display for EstimatesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown estimates {:?}: request, exact, predicted, or a factor of the run time such \
             as 2x (a number > 0 then x)",
            self.0
        )
    }
}

impl std::error::Error for EstimatesError {}

impl Estimates {
    /// `request`, `exact`, `predicted` or `<f>x` (f × run time, f > 0 and finite).
    pub fn parse(s: &str) -> Result<Estimates, EstimatesError> {
        let t = s.trim();
        match t {
            "request" | "user" => return Ok(Estimates::Request),
            "exact" | "perfect" => return Ok(Estimates::Exact),
            "predicted" | "prediction" => return Ok(Estimates::Predicted),
            _ => {}
        }
        t.strip_suffix('x')
            .and_then(|f| f.parse::<f64>().ok())
            .filter(|f| f.is_finite() && *f > 0.0 && *f <= 1e6)
            .map(Estimates::Factor)
            .ok_or_else(|| EstimatesError(s.to_string()))
    }

    /// The name [`Estimates::parse`] reads.
    pub fn name(self) -> String {
        match self {
            Estimates::Request => "request".into(),
            Estimates::Exact => "exact".into(),
            Estimates::Factor(f) => format!("{f}x"),
            Estimates::Predicted => "predicted".into(),
        }
    }

    /// A short label.
    pub fn label(self) -> String {
        match self {
            Estimates::Request => "requested times".into(),
            Estimates::Exact => "exact run times".into(),
            Estimates::Factor(f) => format!("{f} × run time"),
            Estimates::Predicted => "predicted run times".into(),
        }
    }

    /// Whether every estimate is at least the job's run time (the request, where jobs are
    /// killed; the exact time; f ≥ 1), so that a reservation made with them holds.
    pub fn bounds_run_time(self) -> bool {
        match self {
            Estimates::Request | Estimates::Exact => true,
            Estimates::Factor(f) => f >= 1.0,
            Estimates::Predicted => false,
        }
    }

    /// The estimate of `job` without a user's history (`Predicted`: the request).
    pub fn of(self, job: &Job) -> Time {
        match self {
            Estimates::Request | Estimates::Predicted => job.estimate,
            Estimates::Exact => job.duration(),
            Estimates::Factor(f) => f * job.duration(),
        }
    }
}

impl Serialize for Estimates {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.name())
    }
}

impl<'de> Deserialize<'de> for Estimates {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Estimates, D::Error> {
        let s = String::deserialize(d)?;
        Estimates::parse(&s).map_err(serde::de::Error::custom)
    }
}

/// The three axes of a flat policy beside its backfilling, as an experiment file writes them
/// (`"queue": {"order": "sjf", "backfill_order": "sjf", "estimates": "predicted"}`; every key
/// optional, absent: arrival order, the user's request — the policies of the papers).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyAxes {
    #[serde(default, skip_serializing_if = "QueueOrder::is_arrival")]
    pub order: QueueOrder,
    /// EASY's backfill order, when not the queue order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backfill_order: Option<QueueOrder>,
    #[serde(default, skip_serializing_if = "is_request")]
    pub estimates: Estimates,
}

fn is_request(e: &Estimates) -> bool {
    *e == Estimates::Request
}

impl PolicyAxes {
    /// Arrival order, the user's request: the policies as the papers define them.
    pub fn is_default(&self) -> bool {
        *self == PolicyAxes::default()
    }

    /// Whether a run needs the users' numbers (SWF field 12): predictions, or an expression
    /// that reads `user` or `queue`.
    pub fn needs_users(&self) -> bool {
        self.estimates == Estimates::Predicted
            || self.order.reads_user()
            || self
                .backfill_order
                .as_ref()
                .is_some_and(QueueOrder::reads_user)
    }

    /// The suffix of a policy's name after its backfilling ([`parse_policy`] reads it back):
    /// `:sjf`, `:arrival:sjf`, `:sjf::predicted` (empty for the default).
    pub fn suffix(&self) -> String {
        if self.is_default() {
            return String::new();
        }
        let mut parts = vec![self.order.name()];
        parts.push(
            self.backfill_order
                .as_ref()
                .map(QueueOrder::name)
                .unwrap_or_default(),
        );
        parts.push(if self.estimates == Estimates::Request {
            String::new()
        } else {
            self.estimates.name()
        });
        while parts.last().is_some_and(String::is_empty) {
            parts.pop();
        }
        format!(":{}", parts.join(":"))
    }

    /// A label such as "SJF order · predicted run times" (empty for the default).
    pub fn label(&self) -> String {
        let mut parts = Vec::new();
        if !self.order.is_arrival() {
            parts.push(self.order.label());
        }
        if let Some(b) = &self.backfill_order {
            parts.push(format!("backfilling {}", b.label()));
        }
        if self.estimates != Estimates::Request {
            parts.push(self.estimates.label());
        }
        parts.join(" · ")
    }
}

/// Why a policy name (`easy:sjf:arrival:predicted`) was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PolicyNameError {
    /// The backfilling part (its message lists the valid names).
    Backfilling(UnknownName),
    /// The queue order or the backfill order.
    Order(OrderError),
    Estimates(EstimatesError),
    /// More than four parts.
    TooManyParts(usize),
}

impl fmt::Display for PolicyNameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PolicyNameError::Backfilling(e) => e.fmt(f),
            PolicyNameError::Order(e) => e.fmt(f),
            PolicyNameError::Estimates(e) => e.fmt(f),
            PolicyNameError::TooManyParts(n) => write!(
                f,
                "{n} parts; a policy is BACKFILLING[:ORDER[:BACKFILL_ORDER[:ESTIMATES]]]"
            ),
        }
    }
}

impl std::error::Error for PolicyNameError {}

/// Reads a policy name `BACKFILLING[:ORDER[:BACKFILL_ORDER[:ESTIMATES]]]` — `easy`,
/// `easy:sjf`, `easy:arrival:sjf` (EASY-SJBF), `conservative:wfp3::predicted`, `fcfs:wait /
/// estimate`; an empty part is the default (arrival order; the queue order; the request).
pub fn parse_policy(s: &str) -> Result<(super::PolicyKind, PolicyAxes), PolicyNameError> {
    let parts: Vec<&str> = s.split(':').collect();
    if parts.len() > 4 {
        return Err(PolicyNameError::TooManyParts(parts.len()));
    }
    let kind = super::PolicyKind::parse(parts[0].trim()).map_err(PolicyNameError::Backfilling)?;
    let part = |i: usize| parts.get(i).map(|p| p.trim()).filter(|p| !p.is_empty());
    let mut axes = PolicyAxes::default();
    if let Some(o) = part(1) {
        axes.order = QueueOrder::parse(o).map_err(PolicyNameError::Order)?;
    }
    if let Some(o) = part(2) {
        axes.backfill_order = Some(QueueOrder::parse(o).map_err(PolicyNameError::Order)?);
    }
    if let Some(e) = part(3) {
        axes.estimates = Estimates::parse(e).map_err(PolicyNameError::Estimates)?;
    }
    Ok((kind, axes))
}

/// The attributes of `job` (number `id`) at `now` with estimate `estimate`.
pub fn attributes(job: &Job, now: Time, estimate: Time) -> Attributes {
    let (user, queue) = job
        .record
        .get()
        .map_or((-1.0, -1.0), |r| (r.user_id, r.queue));
    Attributes {
        wait: now - job.submit,
        submit: job.submit,
        estimate,
        request: job.estimate,
        procs: job.procs as f64,
        user,
        queue,
        now,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(wait: f64, submit: f64, estimate: f64, procs: f64) -> Attributes {
        Attributes {
            wait,
            submit,
            estimate,
            request: estimate,
            procs,
            user: -1.0,
            queue: -1.0,
            now: submit + wait,
        }
    }

    #[test]
    fn builtin_priorities_by_hand() {
        let a = at(100.0, 1000.0, 10.0, 4.0);
        assert_eq!(BuiltinOrder::ShortestFirst.priority(&a), -10.0);
        assert_eq!(BuiltinOrder::LargestAreaFirst.priority(&a), 40.0);
        assert_eq!(BuiltinOrder::Wfp3.priority(&a), 1000.0 * 4.0);
        assert_eq!(BuiltinOrder::Unicef.priority(&a), 100.0 / (2.0 * 10.0));
        // F1 = log10(10) × 4 + 870 × log10(1000) = 4 + 2610.
        assert_eq!(BuiltinOrder::F1.priority(&a), -2614.0);
        // F3 = 10 × 4 + 6,860,000 × 3.
        assert_eq!(BuiltinOrder::F3.priority(&a), -(40.0 + 20_580_000.0));
        // UNICEF weighs a 1-processor job as a 2-processor one.
        let one = at(100.0, 0.0, 10.0, 1.0);
        assert_eq!(BuiltinOrder::Unicef.priority(&one), 10.0);
        // F2 at submit 0 reads log10(1) = 0: √4 × 4.
        let early = at(0.0, 0.0, 4.0, 4.0);
        assert_eq!(BuiltinOrder::F2.priority(&early), -8.0);
    }

    #[test]
    fn names_round_trip() {
        for b in BuiltinOrder::ALL {
            let o = QueueOrder::Builtin(b);
            assert_eq!(QueueOrder::parse(&o.name()), Ok(o));
        }
        let e = QueueOrder::parse("wait / estimate").expect("expression");
        assert!(matches!(e, QueueOrder::Expression(_)));
        assert_eq!(e.name(), "wait / estimate");
        for s in ["request", "exact", "predicted", "2x", "0.5x"] {
            assert_eq!(Estimates::parse(s).map(Estimates::name), Ok(s.to_string()));
        }
        for bad in ["x", "0x", "-1x", "nanx", "twice"] {
            assert!(Estimates::parse(bad).is_err(), "{bad}");
        }
        let axes = PolicyAxes {
            order: QueueOrder::parse("arrival").expect("order"),
            backfill_order: Some(QueueOrder::parse("sjf").expect("order")),
            estimates: Estimates::Predicted,
        };
        assert_eq!(axes.suffix(), ":arrival:sjf:predicted");
        assert_eq!(
            parse_policy(&format!("easy{}", axes.suffix())),
            Ok((crate::policy::PolicyKind::Easy, axes.clone()))
        );
        assert_eq!(
            parse_policy("conservative"),
            Ok((
                crate::policy::PolicyKind::Conservative,
                PolicyAxes::default()
            ))
        );
        let (_, a) = parse_policy("fcfs:wfp3::2x").expect("parses");
        assert_eq!(
            (a.order.name(), a.backfill_order, a.estimates),
            ("wfp3".to_string(), None, Estimates::Factor(2.0))
        );
        assert!(matches!(
            parse_policy("easy:sjf:sjf:exact:more"),
            Err(PolicyNameError::TooManyParts(5))
        ));
        assert!(matches!(
            parse_policy("lazy:sjf"),
            Err(PolicyNameError::Backfilling(_))
        ));
        assert!(matches!(
            parse_policy("easy:wait/"),
            Err(PolicyNameError::Order(_))
        ));
        let json = serde_json::to_string(&axes).expect("json");
        assert_eq!(json, r#"{"backfill_order":"sjf","estimates":"predicted"}"#);
        assert_eq!(
            serde_json::from_str::<PolicyAxes>(&json).expect("back"),
            axes
        );
        assert_eq!(
            serde_json::to_string(&PolicyAxes::default()).expect("json"),
            "{}"
        );
    }

    #[test]
    fn a_bad_expression_in_a_file_names_its_column() {
        let e = serde_json::from_str::<PolicyAxes>(r#"{"order": "wait / estimat"}"#)
            .expect_err("refused");
        assert!(e.to_string().contains("column 8"), "{e}");
    }
}
