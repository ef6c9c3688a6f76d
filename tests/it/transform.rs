//! Workload transforms: hand-computed cases for the load factor, first N, windows, the
//! first-Monday alignment with its time-zone table (Ernemann et al. §IV-A) and time-zone shifts.

use schedlab::workload::transform::{
    align_first_monday_detailed, align_to_first_monday, civil_from_days, days_from_civil,
    first_monday_at_or_after, keep_first, keep_window, scale_load, shift_time_zone, weekday,
    DstRule, TimeWindow, TransformReport, Transforms, ZoneRule,
};
use schedlab::workload::{Job, SwfHeader, Workload};

fn workload(submits: &[f64]) -> Workload {
    let jobs = submits
        .iter()
        .enumerate()
        .map(|(i, &t)| Job::new(i as u64 + 1, t, 100.0, 200.0, 4))
        .collect();
    Workload::from_jobs(SwfHeader::default(), jobs)
}

fn submits(w: &Workload) -> Vec<f64> {
    w.jobs.iter().map(|j| j.submit).collect()
}

fn ids(w: &Workload) -> Vec<u64> {
    w.jobs.iter().map(|j| j.id).collect()
}

fn header(start: i64, tz: &str) -> SwfHeader {
    SwfHeader {
        unix_start_time: Some(start),
        time_zone_string: Some(tz.to_string()),
        ..SwfHeader::default()
    }
}

// ----------------------------------------------------------------------------------------
// Load factor, first N, window
// ----------------------------------------------------------------------------------------

#[test]
fn load_factor_two_halves_submit_times() {
    let mut w = workload(&[0.0, 10.0, 25.0, 1000.0]);
    scale_load(&mut w, 2.0);
    assert_eq!(submits(&w), vec![0.0, 5.0, 12.5, 500.0]);
    // The SWF record follows.
    assert_eq!(w.jobs[3].record.submit_time, 500.0);
    // Run times and sizes are untouched.
    assert!(w.jobs.iter().all(|j| j.run_time == 100.0 && j.procs == 4));
}

#[test]
fn load_factor_below_one_stretches_and_invalid_is_a_no_op() {
    let mut w = workload(&[0.0, 10.0, 30.0]);
    scale_load(&mut w, 0.5);
    assert_eq!(submits(&w), vec![0.0, 20.0, 60.0]);
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        scale_load(&mut w, bad);
        assert_eq!(submits(&w), vec![0.0, 20.0, 60.0]);
    }
}

#[test]
fn keep_first_n() {
    let mut w = workload(&[0.0, 1.0, 2.0, 3.0, 4.0]);
    assert_eq!(keep_first(&mut w, 3), 2);
    assert_eq!(ids(&w), vec![1, 2, 3]);
    assert_eq!(keep_first(&mut w, 10), 0);
    assert_eq!(ids(&w), vec![1, 2, 3]);
}

#[test]
fn keep_window_is_relative_to_first_submit_and_half_open() {
    let mut w = workload(&[100.0, 150.0, 200.0, 299.0, 300.0, 400.0]);
    // Relative times 0, 50, 100, 199, 200, 300; keep [50, 200).
    assert_eq!(keep_window(&mut w, 50.0, 200.0), 3);
    assert_eq!(ids(&w), vec![2, 3, 4]);
    // Times are not rebased.
    assert_eq!(submits(&w), vec![150.0, 200.0, 299.0]);
    let mut empty = workload(&[]);
    assert_eq!(keep_window(&mut empty, 0.0, 1.0), 0);
}

#[test]
fn time_zone_shift_adds_hours() {
    let mut w = workload(&[0.0, 60.0]);
    shift_time_zone(&mut w, 6.0);
    assert_eq!(submits(&w), vec![21_600.0, 21_660.0]);
    shift_time_zone(&mut w, -1.5);
    assert_eq!(submits(&w), vec![16_200.0, 16_260.0]);
    assert_eq!(w.jobs[0].record.submit_time, 16_200.0);
}

// ----------------------------------------------------------------------------------------
// Civil calendar and zones
// ----------------------------------------------------------------------------------------

#[test]
fn civil_date_round_trips_and_weekdays() {
    assert_eq!(days_from_civil(1970, 1, 1), 0);
    assert_eq!(weekday(0), 3); // Thursday
    assert_eq!(days_from_civil(2000, 3, 1), 11_017);
    assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    for z in [-800_000, -1, 0, 59, 10_957, 12_000, 20_000, 800_000] {
        let (y, m, d) = civil_from_days(z);
        assert_eq!(days_from_civil(y, m, d), z);
    }
    // 2005-01-10 was a Monday, 1996-06-26 a Wednesday.
    assert_eq!(weekday(days_from_civil(2005, 1, 10)), 0);
    assert_eq!(weekday(days_from_civil(1996, 6, 26)), 2);
}

#[test]
fn zone_table_knows_the_archive_zones() {
    let east = ZoneRule::from_name("US/Eastern").expect("US/Eastern");
    assert_eq!((east.std_offset, east.dst), (-18_000, DstRule::Us));
    let sto = ZoneRule::from_name("europe/stockholm").expect("case-insensitive");
    assert_eq!((sto.std_offset, sto.dst), (3_600, DstRule::Eu));
    assert_eq!(
        ZoneRule::from_name("US/Mountain").map(|z| z.std_offset),
        Some(-25_200)
    );
    assert_eq!(
        ZoneRule::from_name("US/Pacific").map(|z| z.std_offset),
        Some(-28_800)
    );
    assert_eq!(ZoneRule::from_name("Mars/Olympus_Mons"), None);
}

/// The `StartTime` strings of the real archive headers (CTC, KTH, LANL, SDSC-Par, SDSC-SP2,
/// NASA) against our offsets at their `UnixStartTime`.
#[test]
fn offsets_match_real_trace_headers() {
    let cases = [
        // (UnixStartTime, zone, local "hh:mm:ss" of StartTime, DST?)
        (835_823_160, "US/Eastern", (17, 6, 0), true), // Wed Jun 26 17:06:00 EDT 1996
        (843_480_031, "Europe/Stockholm", (14, 0, 31), true), // Mon Sep 23 14:00:31 CEST 1996
        (781_275_672, "US/Mountain", (7, 1, 12), true), // Tue Oct 04 07:01:12 MDT 1994
        (820_090_437, "US/Pacific", (10, 53, 57), false), // Wed Dec 27 10:53:57 PST 1995
        (893_466_664, "US/Pacific", (18, 11, 4), true), // Fri Apr 24 18:11:04 PDT 1998
        (749_458_803, "US/Pacific", (0, 0, 3), true),  // Fri Oct 01 00:00:03 PDT 1993
    ];
    for (t, zone, (h, m, s), dst) in cases {
        let z = ZoneRule::from_name(zone).expect("zone");
        assert_eq!(z.is_dst(t), dst, "{zone} {t}");
        let local = (t + z.offset_at(t)).rem_euclid(86_400);
        assert_eq!(local, h * 3600 + m * 60 + s, "{zone} {t}");
    }
}

#[test]
fn us_rules_changed_in_2007() {
    let z = ZoneRule::from_name("US/Eastern").expect("zone");
    // 2007-03-11 07:00 UTC = 02:00 EST → 03:00 EDT (new rule, 2nd Sunday of March).
    assert!(!z.is_dst(1_173_596_399));
    assert!(z.is_dst(1_173_596_400));
    // 2006-04-02 (1st Sunday of April) was the old-rule start; 2006-03-12 was still EST.
    assert!(!z.is_dst(1_142_146_800));
    assert!(z.is_dst(1_143_961_200)); // 2006-04-02 07:00 UTC
    assert!(!z.is_dst(1_143_961_199));
    // 2006-10-29 06:00 UTC = 02:00 EDT → 01:00 EST (last Sunday of October, old rule).
    assert!(z.is_dst(1_162_101_599));
    assert!(!z.is_dst(1_162_101_600));
    // 2007-11-04 06:00 UTC (1st Sunday of November, new rule).
    assert!(z.is_dst(1_194_155_999));
    assert!(!z.is_dst(1_194_156_000));
}

#[test]
fn eu_rules_ended_in_september_before_1996() {
    let z = ZoneRule::from_name("Europe/Stockholm").expect("zone");
    // 1995-09-24 01:00 UTC: last Sunday of September.
    assert!(z.is_dst(811_904_399));
    assert!(!z.is_dst(811_904_400));
    // 1996-10-27 01:00 UTC: last Sunday of October.
    assert!(z.is_dst(846_378_000 - 1));
    assert!(!z.is_dst(846_378_000));
    // 1996-03-31 01:00 UTC: last Sunday of March.
    assert!(!z.is_dst(828_234_000 - 1));
    assert!(z.is_dst(828_234_000));
}

// ----------------------------------------------------------------------------------------
// First-Monday alignment
// ----------------------------------------------------------------------------------------

/// Jobs at fixed offsets from the trace start, the Monday shift `shift`; checks removal
/// and the exact new submit times.
fn check_alignment(start: i64, tz: &str, shift: i64) {
    let s = shift as f64;
    let times = [0.0, 3600.0, s - 1.0, s, s + 0.5, s + 86_400.0];
    let mut w = workload(&times);
    w.header = header(start, tz);
    let a = align_first_monday_detailed(&mut w).expect("has UnixStartTime");
    assert_eq!(a.shift, shift, "{tz} {start}");
    assert_eq!(a.monday_utc, start + shift);
    assert_eq!(a.removed, 3);
    assert_eq!(submits(&w), vec![0.0, 0.5, 86_400.0]);
    assert_eq!(ids(&w), vec![4, 5, 6]);
    assert_eq!(w.header.unix_start_time, Some(start + shift));
    assert_eq!(w.jobs[1].record.submit_time, 0.5);
}

#[test]
fn align_wednesday_noon_us_eastern_winter() {
    // Wed 2005-01-05 12:00 EST (17:00 UTC) → Mon 2005-01-10 00:00 EST (05:00 UTC): 4 d 12 h.
    check_alignment(1_104_944_400, "US/Eastern", 388_800);
}

#[test]
fn align_wednesday_noon_us_eastern_summer() {
    // Wed 2005-07-06 12:00 EDT (16:00 UTC) → Mon 2005-07-11 00:00 EDT (04:00 UTC): 4 d 12 h.
    check_alignment(1_120_665_600, "US/Eastern", 388_800);
}

#[test]
fn align_across_dst_changes() {
    // Wed 2007-03-07 12:00 EST → Mon 2007-03-12 00:00 EDT: DST began Sunday 03-11 (new rule),
    // so the Monday is one hour nearer: 4 d 11 h.
    check_alignment(1_173_286_800, "US/Eastern", 385_200);
    // The same week in 2006 (old rule): still EST, 4 d 12 h.
    check_alignment(1_141_837_200, "US/Eastern", 388_800);
    // Wed 2006-10-25 12:00 EDT → Mon 2006-10-30 00:00 EST (DST ended 10-29): 4 d 13 h.
    check_alignment(1_161_792_000, "US/Eastern", 392_400);
    // Wed 2007-10-31 12:00 EDT → Mon 2007-11-05 00:00 EST (DST ended 11-04): 4 d 13 h.
    check_alignment(1_193_846_400, "US/Eastern", 392_400);
    // Wed 1995-09-27 12:00 CET (EU summer time had ended 09-24 under the old rule) →
    // Mon 1995-10-02 00:00 CET: 4 d 12 h.
    check_alignment(812_199_600, "Europe/Stockholm", 388_800);
}

#[test]
fn align_real_trace_starts() {
    // KTH: Mon 1996-09-23 14:00:31 CEST → Mon 1996-09-30 00:00 CEST (a Monday after midnight
    // goes to the next Monday).
    check_alignment(843_480_031, "Europe/Stockholm", 554_369);
    // CTC: Wed 1996-06-26 17:06 EDT → Mon 1996-07-01 00:00 EDT.
    check_alignment(835_823_160, "US/Eastern", 370_440);
    // LANL: Tue 1994-10-04 07:01:12 MDT → Mon 1994-10-10 00:00 MDT.
    check_alignment(781_275_672, "US/Mountain", 493_128);
    // SDSC-Par: Wed 1995-12-27 10:53:57 PST → Mon 1996-01-01 00:00 PST.
    check_alignment(820_090_437, "US/Pacific", 392_763);
}

#[test]
fn align_at_monday_midnight_is_identity() {
    // Mon 2005-01-10 00:00:00 EST exactly.
    let z = ZoneRule::from_name("US/Eastern").expect("zone");
    assert_eq!(first_monday_at_or_after(1_105_333_200, z), 1_105_333_200);
    let mut w = workload(&[0.0, 10.0]);
    w.header = header(1_105_333_200, "US/Eastern");
    assert_eq!(align_to_first_monday(&mut w), 0);
    assert_eq!(submits(&w), vec![0.0, 10.0]);
    // One second later: next week.
    assert_eq!(
        first_monday_at_or_after(1_105_333_201, z),
        1_105_333_200 + 7 * 86_400
    );
}

#[test]
fn align_falls_back_to_numeric_time_zone_then_utc() {
    // Unknown name, numeric TimeZone −18000 (fixed EST): same as US/Eastern in winter.
    let mut w = workload(&[0.0, 388_800.0]);
    w.header = SwfHeader {
        unix_start_time: Some(1_104_944_400),
        time_zone_string: Some("Nowhere/Special".into()),
        time_zone: Some(-18_000),
        ..SwfHeader::default()
    };
    let a = align_first_monday_detailed(&mut w).expect("start");
    assert_eq!(a.shift, 388_800);
    assert!(a.zone_note.is_some());
    // No zone at all: UTC. Wed 2005-01-05 17:00 UTC → Mon 2005-01-10 00:00 UTC.
    let mut w = workload(&[0.0]);
    w.header = SwfHeader {
        unix_start_time: Some(1_104_944_400),
        ..SwfHeader::default()
    };
    let a = align_first_monday_detailed(&mut w).expect("start");
    assert_eq!(a.shift, 4 * 86_400 + 7 * 3600);
    assert_eq!(a.removed, 1);
}

#[test]
fn align_without_start_time_leaves_workload_alone() {
    let mut w = workload(&[0.0, 5.0]);
    assert_eq!(align_to_first_monday(&mut w), 0);
    assert_eq!(submits(&w), vec![0.0, 5.0]);
    let t = Transforms {
        align_monday: true,
        ..Transforms::default()
    };
    let r = t.apply(&mut w);
    assert_eq!(r.removed_before_monday, 0);
    assert_eq!(r.notes.len(), 1, "{:?}", r.notes);
}

#[test]
fn align_updates_the_verbatim_header_line() {
    let mut w = workload(&[0.0, 400_000.0]);
    w.header = header(1_104_944_400, "US/Eastern");
    w.header.lines = vec![
        " Version: 2.2".into(),
        " UnixStartTime: 1104944400".into(),
        " TimeZoneString: US/Eastern".into(),
    ];
    align_to_first_monday(&mut w);
    assert_eq!(w.header.lines[1], " UnixStartTime: 1105333200");
    assert_eq!(w.header.lines[0], " Version: 2.2");
}

// ----------------------------------------------------------------------------------------
// Transforms: serde, validation, order
// ----------------------------------------------------------------------------------------

#[test]
fn transforms_default_is_identity() {
    let t = Transforms::default();
    assert!(t.is_identity());
    assert_eq!(t.validate(), Ok(()));
    let mut w = workload(&[0.0, 7.0, 9.0]);
    let before = w.clone();
    let r = t.apply(&mut w);
    assert_eq!(w, before);
    assert_eq!(r, TransformReport::default());
}

#[test]
fn transforms_parse_with_defaults_and_reject_unknown_keys() {
    let t: Transforms = serde_json::from_str(r#"{"load_factor": 1.5}"#).expect("parse");
    assert_eq!(t.load_factor, 1.5);
    assert_eq!(t.first_jobs, None);
    let t: Transforms = serde_json::from_str(
        r#"{"time_window": {"start": 0, "end": 86400}, "align_monday": true}"#,
    )
    .expect("parse");
    assert_eq!(
        t.time_window,
        Some(TimeWindow {
            start: 0.0,
            end: 86_400.0
        })
    );
    assert!(serde_json::from_str::<Transforms>(r#"{"load_factr": 2}"#).is_err());
    assert!(serde_json::from_str::<Transforms>(r#"{"time_window": {"start": 0}}"#).is_err());
    let json = serde_json::to_string(&Transforms::default()).expect("serialize");
    assert_eq!(
        serde_json::from_str::<Transforms>(&json).expect("round trip"),
        Transforms::default()
    );
}

#[test]
fn transforms_validation_names_the_key() {
    let cases: [(Transforms, &str); 6] = [
        (
            Transforms {
                load_factor: 0.0,
                ..Transforms::default()
            },
            "transforms.load_factor",
        ),
        (
            Transforms {
                first_jobs: Some(0),
                ..Transforms::default()
            },
            "transforms.first_jobs",
        ),
        (
            Transforms {
                time_window: Some(TimeWindow {
                    start: 10.0,
                    end: 10.0,
                }),
                ..Transforms::default()
            },
            "transforms.time_window.end",
        ),
        (
            Transforms {
                time_window: Some(TimeWindow {
                    start: -1.0,
                    end: 10.0,
                }),
                ..Transforms::default()
            },
            "transforms.time_window.start",
        ),
        (
            Transforms {
                tz_offset_hours: f64::NAN,
                ..Transforms::default()
            },
            "transforms.tz_offset_hours",
        ),
        (
            Transforms {
                cut_span: Some(-5.0),
                ..Transforms::default()
            },
            "transforms.cut_span",
        ),
    ];
    for (t, key) in cases {
        let e = t.validate().expect_err(key).to_string();
        assert!(e.contains(key), "{e}");
        // apply refuses invalid settings without touching the workload.
        let mut w = workload(&[0.0, 1.0]);
        let r = t.apply(&mut w);
        assert_eq!(submits(&w), vec![0.0, 1.0]);
        assert_eq!(r.notes.len(), 1);
    }
}

#[test]
fn transforms_apply_in_documented_order() {
    // Wed 2005-01-05 12:00 EST; Monday is 388800 s later.
    let m = 388_800.0;
    let mut w = workload(&[
        0.0,               // 1: before Monday
        m - 10.0,          // 2: before Monday
        m,                 // 3: Monday 00:00 → 0 → +6 h = 21600
        m + 3600.0,        // 4: → 25200
        m + 2.0 * 86400.0, // 5: → 194400
        m + 3.0 * 86400.0, // 6: → 280800
        m + 9.0 * 86400.0, // 7: → 799200, beyond the cut span
    ]);
    w.header = header(1_104_944_400, "US/Eastern");
    let t = Transforms {
        load_factor: 2.0,
        first_jobs: Some(2),
        time_window: Some(TimeWindow {
            start: 3600.0,
            end: 8.0 * 86_400.0,
        }),
        align_monday: true,
        tz_offset_hours: 6.0,
        cut_span: Some(3.0 * 86_400.0),
    };
    let r = t.apply(&mut w);
    // Align removes 1 and 2; the shift gives 21600, 25200, 194400, 280800, 799200.
    // Window from 21600: [25200, 712800) keeps 4, 5, 6 and drops 3 and 7.
    // Cut span from 25200: < 284400 keeps 4, 5, 6. First 2: 4, 5. Load factor 2 halves.
    assert_eq!(r.removed_before_monday, 2);
    assert_eq!(r.monday_shift, m);
    assert_eq!(r.removed_by_window, 2);
    assert_eq!(r.removed_by_cut_span, 0);
    assert_eq!(r.removed_by_first_n, 1);
    assert_eq!(ids(&w), vec![4, 5]);
    assert_eq!(submits(&w), vec![12_600.0, 97_200.0]);
    assert!(r.notes.is_empty(), "{:?}", r.notes);
    let json = serde_json::to_string(&r).expect("report serializes");
    assert!(json.contains("removed_before_monday"));
}

#[test]
fn cut_span_counts_separately() {
    let mut w = workload(&[50.0, 60.0, 149.0, 150.0, 500.0]);
    let t = Transforms {
        cut_span: Some(100.0),
        ..Transforms::default()
    };
    let r = t.apply(&mut w);
    assert_eq!(r.removed_by_cut_span, 2);
    assert_eq!(r.removed_by_window, 0);
    assert_eq!(ids(&w), vec![1, 2, 3]);
}

#[test]
fn a_load_factor_above_the_default_limit_is_applied_when_the_caller_allowed_it() {
    // `validate_with` (experiment level) checks the limit; `apply` must not refuse what a
    // raised `--max-load-factor` let through (bench queue's burst uses 10^12).
    let mut w = workload(&[0.0, 1e6, 2e6]);
    let t = Transforms {
        load_factor: 1e12,
        ..Transforms::default()
    };
    assert!(t.validate().is_err());
    let report = t.apply(&mut w);
    assert!(report.notes.is_empty(), "{:?}", report.notes);
    assert_eq!(submits(&w), vec![0.0, 1e-6, 2e-6]);
}
