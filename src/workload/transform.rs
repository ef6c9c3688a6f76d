//! Workload transforms: load factor (Ababneh & Bani-Mohammad §5.5), first N jobs, time windows, alignment to
//! the first Monday 00:00 local time and time-zone shifts (Ernemann et al. §IV-A and Table III).
//!
//! [`Transforms::apply`] runs them in a fixed order:
//!
//! 1. `align_monday` — drop the jobs before the first Monday 00:00 local time at or after the
//!    trace start and make that instant time 0 ([`align_to_first_monday`]);
//! 2. `tz_offset_hours` — move the site to another time zone ([`shift_time_zone`]);
//! 3. `time_window`, then `cut_span` — keep the jobs submitted in a window measured from the
//!    first remaining submit time ([`keep_window`]);
//! 4. `first_jobs` — keep the first N jobs ([`keep_first`]);
//! 5. `load_factor` — divide all submit times by LF ([`scale_load`]).
//!
//! Jobs keep their ids; `record.submit_time` follows `submit`. The time-zone arithmetic
//! (civil dates, weekdays, the built-in zone table with US and EU daylight-saving rules) is
//! implemented here without any platform time library, so it is identical on wasm32.
//! See `docs/workload-models.md`.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::base::ParamError;
use crate::workload::{SwfHeader, Workload};

/// Seconds in a day.
const DAY: i64 = 86_400;
/// Seconds in an hour.
const HOUR: i64 = 3_600;

/// A window of submit times in seconds, relative to the first submit time: jobs with
/// `start ≤ submit − first < end` are kept.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeWindow {
    /// Window start (inclusive), seconds after the first submit.
    pub start: f64,
    /// Window end (exclusive), seconds after the first submit.
    pub end: f64,
}

/// The transforms of one workload, applied in the order given in the module docs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Transforms {
    /// Submit times are multiplied by 1 / LF (Ababneh & Bani-Mohammad §5.5); default 1 (unchanged).
    pub load_factor: f64,
    /// Keep only the first N jobs (after the window).
    pub first_jobs: Option<usize>,
    /// Keep only jobs submitted in this window (relative to the first submit).
    pub time_window: Option<TimeWindow>,
    /// Align to the first Monday 00:00 local time (Ernemann et al. §IV-A).
    pub align_monday: bool,
    /// Move the site this many hours west: submit times + 3600 · h (Ernemann et al. Table III).
    pub tz_offset_hours: f64,
    /// Keep only jobs submitted within this many seconds of the first submit (Ernemann et al.'s
    /// "cut to span only 11 month").
    pub cut_span: Option<f64>,
}

impl Default for Transforms {
    fn default() -> Self {
        Transforms {
            load_factor: 1.0,
            first_jobs: None,
            time_window: None,
            align_monday: false,
            tz_offset_hours: 0.0,
            cut_span: None,
        }
    }
}

/// What [`Transforms::apply`] removed, by reason, and anything worth telling the user.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TransformReport {
    /// Jobs submitted before the first Monday 00:00 local time.
    pub removed_before_monday: usize,
    /// Jobs outside `time_window`.
    pub removed_by_window: usize,
    /// Jobs beyond `cut_span`.
    pub removed_by_cut_span: usize,
    /// Jobs beyond `first_jobs`.
    pub removed_by_first_n: usize,
    /// Seconds subtracted from every submit time by the Monday alignment.
    pub monday_shift: f64,
    /// Remarks, e.g. an alignment skipped for lack of a `UnixStartTime`.
    pub notes: Vec<String>,
}

impl Transforms {
    /// Checks the settings; the error names the offending key.
    pub fn validate(&self) -> Result<(), ParamError> {
        self.validate_up_to(crate::limits::MAX_LOAD_FACTOR)
    }

    /// [`Transforms::validate`] with another largest load factor (a raised CLI limit).
    pub fn validate_up_to(&self, max_load_factor: f64) -> Result<(), ParamError> {
        crate::limits::check_load_factor_up_to(self.load_factor, max_load_factor).map_err(
            |range| ParamError::OutOfRange {
                key: "transforms.load_factor".into(),
                range,
            },
        )?;
        if self.first_jobs == Some(0) {
            return Err(ParamError::zero("transforms.first_jobs"));
        }
        if let Some(w) = &self.time_window {
            if !(w.start.is_finite() && w.start >= 0.0) {
                return Err(ParamError::rule_got(
                    "transforms.time_window.start",
                    "must be a finite number ≥ 0",
                    w.start,
                ));
            }
            if !(w.end.is_finite() && w.end > w.start) {
                return Err(ParamError::rule_got(
                    "transforms.time_window.end",
                    "must be finite and > start",
                    w.end,
                ));
            }
        }
        if !(self.tz_offset_hours.is_finite() && self.tz_offset_hours.abs() <= 168.0) {
            return Err(ParamError::rule_got(
                "transforms.tz_offset_hours",
                "must be within ±168",
                self.tz_offset_hours,
            ));
        }
        if let Some(c) = self.cut_span {
            if !(c.is_finite() && c > 0.0) {
                return Err(ParamError::NotPositive {
                    key: "transforms.cut_span".into(),
                    value: c,
                });
            }
        }
        Ok(())
    }

    /// `true` when applying would leave every workload unchanged.
    pub fn is_identity(&self) -> bool {
        *self == Transforms::default()
    }

    /// Applies the transforms in order: align, time-zone shift, window, cut span, first N,
    /// load factor. Settings that fail [`Transforms::validate`] are skipped (with a note)
    /// rather than causing a panic — except the load factor's upper limit, which callers
    /// check against their own (possibly raised) limits before (`validate_with`), so that
    /// `--max-load-factor` really lets a larger load factor through.
    pub fn apply(&self, w: &mut Workload) -> TransformReport {
        let mut report = TransformReport::default();
        if let Err(e) = self.validate_up_to(f64::MAX) {
            report.notes.push(format!("transforms not applied: {e}"));
            return report;
        }
        if self.align_monday {
            match align_first_monday_detailed(w) {
                Ok(a) => {
                    report.removed_before_monday = a.removed;
                    report.monday_shift = a.shift as f64;
                    if let Some(n) = a.zone_note {
                        report.notes.push(n);
                    }
                }
                Err(e) => report.notes.push(format!("align_monday skipped: {e}")),
            }
        }
        if self.tz_offset_hours != 0.0 {
            shift_time_zone(w, self.tz_offset_hours);
        }
        if let Some(tw) = &self.time_window {
            report.removed_by_window = keep_window(w, tw.start, tw.end);
        }
        if let Some(span) = self.cut_span {
            report.removed_by_cut_span = keep_window(w, 0.0, span);
        }
        if let Some(n) = self.first_jobs {
            report.removed_by_first_n = keep_first(w, n);
        }
        if self.load_factor != 1.0 {
            scale_load(w, self.load_factor);
        }
        report
    }
}

/// Sets a job's submit time and keeps its SWF record in step (a job without a record has
/// nothing to keep in step: its rebuilt record takes the new submit time).
fn set_submit(job: &mut crate::workload::Job, t: f64) {
    job.submit = t;
    if let Some(r) = job.record.get_mut() {
        r.submit_time = t;
    }
}

/// Load factor LF (Ababneh & Bani-Mohammad §5.5): every submit time is multiplied by 1 / LF (computed as
/// `submit / LF`), so LF = 2 halves the interarrival times. LF must be a positive finite
/// number; any other value leaves the workload unchanged.
pub fn scale_load(w: &mut Workload, lf: f64) {
    if !(lf.is_finite() && lf > 0.0) {
        return;
    }
    for job in &mut w.jobs {
        let t = job.submit / lf;
        set_submit(job, t);
    }
}

/// Keeps the first `n` jobs in arrival order; returns how many were removed.
pub fn keep_first(w: &mut Workload, n: usize) -> usize {
    let before = w.jobs.len();
    w.jobs.truncate(n);
    before - w.jobs.len()
}

/// Keeps the jobs with `start ≤ submit − first < end`, where `first` is the earliest submit
/// time; submit times are not changed. Returns how many were removed.
pub fn keep_window(w: &mut Workload, start: f64, end: f64) -> usize {
    let Some(first) = w.jobs.iter().map(|j| j.submit).reduce(f64::min) else {
        return 0;
    };
    let before = w.jobs.len();
    w.jobs.retain(|j| {
        let rel = j.submit - first;
        rel >= start && rel < end
    });
    before - w.jobs.len()
}

/// A site `hours` further west (Ernemann et al. Table III: "(CTC, +6h)"): every submit time grows by
/// `hours` · 3600 s. The local time of day of each job is preserved at the new site, so
/// relative to a site at +0 h whose time 0 is its own Monday 00:00, this site's Monday
/// 00:00 comes `hours` later. Negative values move the site east and can make submit times
/// negative.
pub fn shift_time_zone(w: &mut Workload, hours: f64) {
    if !hours.is_finite() || hours == 0.0 {
        return;
    }
    let d = hours * HOUR as f64;
    for job in &mut w.jobs {
        let t = job.submit + d;
        set_submit(job, t);
    }
}

/// Ernemann et al. §IV-A: removes the jobs submitted before the first Monday 00:00 local time at or
/// after the trace start (`UnixStartTime`, local time from `TimeZoneString`, else the numeric
/// `TimeZone`, else UTC) and shifts the rest so that time 0 is that Monday midnight. The
/// header's `UnixStartTime` is moved to the Monday. Returns the number of removed jobs; a
/// workload without `UnixStartTime` is left unchanged (0).
pub fn align_to_first_monday(w: &mut Workload) -> usize {
    align_first_monday_detailed(w).map_or(0, |a| a.removed)
}

/// What [`align_first_monday_detailed`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Alignment {
    /// Jobs removed (submitted before the Monday).
    pub removed: usize,
    /// Seconds from the old time 0 (`UnixStartTime`) to the Monday 00:00 local.
    pub shift: i64,
    /// The Monday 00:00 local time as a Unix time (UTC).
    pub monday_utc: i64,
    /// Set when the zone did not come from a known `TimeZoneString`.
    pub zone_note: Option<String>,
}

/// Why a workload cannot be aligned to its first Monday: its header has no `UnixStartTime`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NoUnixStartTime;

impl fmt::Display for NoUnixStartTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the header has no UnixStartTime")
    }
}

impl std::error::Error for NoUnixStartTime {}

/// [`align_to_first_monday`] with the details; `Err` (workload unchanged) without a
/// `UnixStartTime`.
pub fn align_first_monday_detailed(w: &mut Workload) -> Result<Alignment, NoUnixStartTime> {
    let (zone, zone_note) = ZoneRule::for_header(&w.header);
    let start = w.header.unix_start_time.ok_or(NoUnixStartTime)?;
    let monday_utc = first_monday_at_or_after(start, zone);
    let shift = monday_utc - start;
    let s = shift as f64;
    let before = w.jobs.len();
    w.jobs.retain(|j| j.submit >= s);
    let removed = before - w.jobs.len();
    for job in &mut w.jobs {
        let t = job.submit - s;
        set_submit(job, t);
    }
    set_unix_start_time(&mut w.header, monday_utc);
    Ok(Alignment {
        removed,
        shift,
        monday_utc,
        zone_note,
    })
}

/// Moves `UnixStartTime` in the parsed header and in its verbatim line, if any.
fn set_unix_start_time(h: &mut SwfHeader, t: i64) {
    h.unix_start_time = Some(t);
    for line in &mut h.lines {
        let trimmed = line.trim_start();
        if let Some(rest) = trimmed.strip_prefix("UnixStartTime") {
            if rest.trim_start().starts_with(':') {
                *line = format!(" UnixStartTime: {t}");
            }
        }
    }
}

/// The first Monday 00:00 local time (as a Unix time) at or after the Unix time `start`.
pub fn first_monday_at_or_after(start: i64, zone: ZoneRule) -> i64 {
    let local = start + zone.offset_at(start);
    let day = local.div_euclid(DAY);
    let sec = local.rem_euclid(DAY);
    let wd = weekday(day);
    let ahead = match (wd, sec) {
        (0, 0) => 0, // already Monday 00:00:00
        (0, _) => 7, // Monday, but after midnight: next week
        _ => 7 - wd,
    };
    zone.local_to_utc((day + ahead) * DAY)
}

// ---------------------------------------------------------------------------------------
// Civil calendar (proleptic Gregorian), after H. Hinnant's `days_from_civil`.
// ---------------------------------------------------------------------------------------

/// Days since 1970-01-01 of the civil date `y`-`m`-`d` (month 1–12, day 1–31).
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let (m, d) = (i64::from(m), i64::from(d));
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date (year, month, day) of a day count since 1970-01-01.
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// ISO weekday of a day count since 1970-01-01: 0 = Monday … 6 = Sunday.
pub fn weekday(days: i64) -> i64 {
    (days + 3).rem_euclid(7)
}

/// Day count of the `n`-th (1-based) Sunday of a month.
fn nth_sunday(y: i64, m: u32, n: i64) -> i64 {
    let first = days_from_civil(y, m, 1);
    let to_sunday = (6 - weekday(first)).rem_euclid(7);
    first + to_sunday + 7 * (n - 1)
}

/// Day count of the last Sunday of a month.
fn last_sunday(y: i64, m: u32) -> i64 {
    let next = if m == 12 {
        days_from_civil(y + 1, 1, 1)
    } else {
        days_from_civil(y, m + 1, 1)
    };
    let last = next - 1;
    last - (weekday(last) + 1).rem_euclid(7)
}

// ---------------------------------------------------------------------------------------
// Built-in time-zone table.
// ---------------------------------------------------------------------------------------

/// Daylight-saving rule of a zone (one hour ahead of standard time while in effect).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DstRule {
    /// No daylight saving.
    None,
    /// United States: 02:00 local; 2007 on: 2nd Sunday of March – 1st Sunday of November;
    /// 1987–2006: 1st Sunday of April – last Sunday of October; 1967–1986: last Sunday of
    /// April – last Sunday of October; none before 1967.
    Us,
    /// European Union (continental): 01:00 UTC, last Sunday of March – last Sunday of
    /// October from 1996, last Sunday of September 1981–1995; none before 1981.
    Eu,
    /// United Kingdom and Ireland: 01:00 UTC, last Sunday of March – last Sunday of October
    /// from 1981 (pre-1996 end dates approximated); none before 1981.
    Uk,
}

/// A zone: standard offset from UTC plus a daylight-saving rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ZoneRule {
    /// Standard-time offset east of UTC in seconds (US/Eastern: −18000).
    pub std_offset: i64,
    /// Daylight-saving rule.
    pub dst: DstRule,
}

/// Zone names understood in `TimeZoneString`, with (standard offset in hours, rule).
const ZONES: &[(&[&str], f64, DstRule)] = &[
    (
        &[
            "UTC",
            "GMT",
            "Etc/UTC",
            "Etc/GMT",
            "UCT",
            "Universal",
            "Zulu",
        ],
        0.0,
        DstRule::None,
    ),
    (
        &[
            "US/Eastern",
            "America/New_York",
            "EST5EDT",
            "US/Michigan",
            "America/Detroit",
            "America/Toronto",
            "Canada/Eastern",
        ],
        -5.0,
        DstRule::Us,
    ),
    (
        &[
            "US/Central",
            "America/Chicago",
            "CST6CDT",
            "Canada/Central",
            "America/Winnipeg",
        ],
        -6.0,
        DstRule::Us,
    ),
    (
        &[
            "US/Mountain",
            "America/Denver",
            "MST7MDT",
            "Canada/Mountain",
            "America/Edmonton",
        ],
        -7.0,
        DstRule::Us,
    ),
    (
        &["US/Arizona", "America/Phoenix", "MST"],
        -7.0,
        DstRule::None,
    ),
    (
        &[
            "US/Pacific",
            "America/Los_Angeles",
            "PST8PDT",
            "Canada/Pacific",
            "America/Vancouver",
        ],
        -8.0,
        DstRule::Us,
    ),
    (&["US/Alaska", "America/Anchorage"], -9.0, DstRule::Us),
    (
        &["US/Hawaii", "Pacific/Honolulu", "HST"],
        -10.0,
        DstRule::None,
    ),
    (
        &[
            "Europe/London",
            "GB",
            "Europe/Dublin",
            "Eire",
            "Europe/Lisbon",
            "Portugal",
            "WET",
        ],
        0.0,
        DstRule::Uk,
    ),
    (
        &[
            "Europe/Stockholm",
            "Europe/Berlin",
            "Europe/Paris",
            "Europe/Amsterdam",
            "Europe/Brussels",
            "Europe/Luxembourg",
            "Europe/Madrid",
            "Europe/Rome",
            "Europe/Zurich",
            "Europe/Vienna",
            "Europe/Prague",
            "Europe/Warsaw",
            "Europe/Copenhagen",
            "Europe/Oslo",
            "Europe/Budapest",
            "Europe/Ljubljana",
            "Europe/Belgrade",
            "CET",
            "MET",
        ],
        1.0,
        DstRule::Eu,
    ),
    (
        &[
            "Europe/Helsinki",
            "Europe/Athens",
            "Europe/Bucharest",
            "Europe/Sofia",
            "EET",
        ],
        2.0,
        DstRule::Eu,
    ),
    (&["Asia/Tokyo", "Japan"], 9.0, DstRule::None),
    (
        &[
            "Asia/Shanghai",
            "PRC",
            "Asia/Hong_Kong",
            "Asia/Taipei",
            "Asia/Singapore",
        ],
        8.0,
        DstRule::None,
    ),
    (&["Asia/Kolkata", "Asia/Calcutta"], 5.5, DstRule::None),
];

impl ZoneRule {
    /// UTC.
    pub const UTC: ZoneRule = ZoneRule {
        std_offset: 0,
        dst: DstRule::None,
    };

    /// The zone for an Olson name from the built-in table (case-insensitive).
    pub fn from_name(name: &str) -> Option<ZoneRule> {
        let name = name.trim();
        ZONES.iter().find_map(|(names, hours, dst)| {
            names
                .iter()
                .any(|n| n.eq_ignore_ascii_case(name))
                .then(|| ZoneRule {
                    std_offset: (hours * HOUR as f64) as i64,
                    dst: *dst,
                })
        })
    }

    /// The zone of a trace: `TimeZoneString` if the table knows it, else the numeric
    /// `TimeZone` as a fixed offset (seconds; values of magnitude ≤ 14 are taken as hours),
    /// else UTC. The note says when the first choice was not available.
    pub fn for_header(h: &SwfHeader) -> (ZoneRule, Option<String>) {
        let named = h.time_zone_string.as_deref();
        if let Some(z) = named.and_then(ZoneRule::from_name) {
            return (z, None);
        }
        let unknown = named.map(|n| format!("unknown TimeZoneString {n:?}; "));
        let unknown = unknown.unwrap_or_default();
        match h.time_zone {
            Some(tz) => {
                let secs = if tz != 0 && tz.abs() <= 14 {
                    tz * HOUR
                } else {
                    tz
                };
                (
                    ZoneRule {
                        std_offset: secs,
                        dst: DstRule::None,
                    },
                    Some(format!(
                        "{unknown}using the numeric TimeZone {tz} as a fixed offset of {secs} s"
                    )),
                )
            }
            None => (
                ZoneRule::UTC,
                Some(format!(
                    "{unknown}no usable time zone in the header; using UTC"
                )),
            ),
        }
    }

    /// Whether daylight saving is in effect at the Unix time `utc`.
    pub fn is_dst(&self, utc: i64) -> bool {
        match self.dst {
            DstRule::None => false,
            DstRule::Us => {
                let local_std = utc + self.std_offset;
                let (y, _, _) = civil_from_days(local_std.div_euclid(DAY));
                let (start_day, end_day) = if y >= 2007 {
                    (nth_sunday(y, 3, 2), nth_sunday(y, 11, 1))
                } else if y >= 1987 {
                    (nth_sunday(y, 4, 1), last_sunday(y, 10))
                } else if y >= 1967 {
                    (last_sunday(y, 4), last_sunday(y, 10))
                } else {
                    return false;
                };
                // 02:00 local standard time → 02:00 local daylight time (= 01:00 standard).
                let start = start_day * DAY + 2 * HOUR - self.std_offset;
                let end = end_day * DAY + HOUR - self.std_offset;
                utc >= start && utc < end
            }
            DstRule::Eu | DstRule::Uk => {
                let (y, _, _) = civil_from_days(utc.div_euclid(DAY));
                if y < 1981 {
                    return false;
                }
                let end_month = if self.dst == DstRule::Eu && y < 1996 {
                    9
                } else {
                    10
                };
                let start = last_sunday(y, 3) * DAY + HOUR;
                let end = last_sunday(y, end_month) * DAY + HOUR;
                utc >= start && utc < end
            }
        }
    }

    /// Offset east of UTC in seconds in effect at the Unix time `utc`.
    pub fn offset_at(&self, utc: i64) -> i64 {
        self.std_offset + if self.is_dst(utc) { HOUR } else { 0 }
    }

    /// The Unix time of a local wall-clock time given as seconds since 1970-01-01 local.
    /// In the repeated hour after a DST end the earlier (daylight) instant is returned; in the
    /// skipped hour after a DST start the instant one hour later on the wall clock.
    pub fn local_to_utc(&self, local: i64) -> i64 {
        let as_dst = local - self.std_offset - HOUR;
        if self.dst != DstRule::None && self.is_dst(as_dst) {
            as_dst
        } else {
            local - self.std_offset
        }
    }
}
