//! The Gantt chart's schedule (`metrics::gantt`): layout, byte encoding, culling, raster and
//! the job under a point, on hand-made schedules.

use schedlab::metrics::gantt::{ticks, DecodeError, Row, Schedule};
use schedlab::metrics::JobRecord;

fn record(id: u64, submit: f64, start: f64, end: f64, procs: u32) -> JobRecord {
    JobRecord {
        id,
        submit,
        start,
        end,
        procs,
        run_time: end - start,
        estimate: end - start,
        wait: start - submit,
        turnaround: end - submit,
        slowdown: 1.0,
        bounded_slowdown: 1.0,
    }
}

/// Four jobs on 4 processors: A 0–10 on 2, B 0–5 on 2, C 5–20 on 2 (B's processors), D 20–22
/// on 3 (the lowest three).
fn sample() -> Schedule {
    Schedule::from_records(4, sample_rows())
}

fn sample_rows() -> Vec<(JobRecord, i32)> {
    vec![
        (record(1, 0.0, 0.0, 10.0, 2), 7),
        (record(2, 0.0, 0.0, 5.0, 2), 8),
        (record(3, 1.0, 5.0, 20.0, 2), 7),
        (record(4, 2.0, 20.0, 22.0, 3), -1),
    ]
}

#[test]
fn round_trip_lays_the_jobs_out() {
    let s = Schedule::decode(&sample().encode()).expect("decodes");
    let ids: Vec<u64> = (0..s.len()).map(|j| s.id(j)).collect();
    assert_eq!(ids, vec![1, 2, 3, 4]);
    let users: Vec<i32> = (0..s.len()).map(|j| s.user(j)).collect();
    assert_eq!(users, vec![7, 8, 7, -1]);
    let submits: Vec<f64> = (0..s.len()).map(|j| s.submit(j)).collect();
    assert_eq!(submits, vec![0.0, 0.0, 1.0, 2.0]);
    assert_eq!(s, sample().laid_out());
    assert_eq!(s.layout.rows, 4);
    assert_eq!(s.layout.per_row, 1);
    assert_eq!((s.layout.t0, s.layout.t1), (0.0, 22.0));
    assert_eq!(s.layout.longest, 15.0);
    let bands: Vec<(u32, u32, u32)> = s
        .layout
        .bands
        .iter()
        .map(|b| (b.job, u32::from(b.row), u32::from(b.rows)))
        .collect();
    // A on rows 0–1, B on 2–3, C on B's rows, D on rows 0–2.
    assert_eq!(bands, vec![(0, 0, 2), (1, 2, 2), (2, 2, 2), (3, 0, 3)]);
    // Consecutive ids (none kept), whole seconds (4 bytes each), processors and users in 2
    // bytes: 16 bytes a job, then 8 a band.
    assert_eq!(sample().encode().len(), 36 + 4 * 16 + 4 * 8);
    // Column by column from the rows: the same bytes.
    let rows = || sample_rows().into_iter().map(|(r, _)| Row::from(&r));
    let users = sample_rows().into_iter().map(|(_, u)| u);
    let s = Schedule::columns(4, rows, users).laid_out();
    assert_eq!(s.encoded_len(), s.encode().len());
    assert_eq!(s.encode(), sample().encode());
    // Read a few bytes at a time: the same schedule.
    let whole = sample().encode();
    let pieces = Schedule::decode_with(whole.len(), |at, dst| {
        dst.copy_from_slice(&whole[at..at + dst.len()])
    });
    assert_eq!(pieces, Schedule::decode(&whole));
}

#[test]
fn columns_are_narrow_only_when_exact() {
    // Fractional seconds, a negative zero, a span beyond u32 seconds and a 64-bit id each
    // keep the wide column; every time reads back as the very f64 it was.
    let cases: Vec<Vec<(JobRecord, i32)>> = vec![
        vec![(record(1, 0.5, 1.0, 2.25, 1), 0)],
        vec![(record(1, -0.0, 0.0, 1.0, 1), 0)],
        vec![(record(1, 0.0, 1.0, 5e9, 1), 0)],
        vec![(record(u64::MAX, 10.0, 20.0, 30.0, 1), 0)],
        vec![(record(7, -100.0, 1e15, 1e15 + 3.0, 1), 0)],
        vec![(record(7, 1.0e12, 1.0e12 + 5.0, 1.0e12 + 9.0, 1), 3)],
    ];
    // One job: its id is consecutive (none kept); processors and users in 2 bytes each.
    let widths = [8 * 3, 8 * 3, 8 * 3, 4 * 3, 8 * 3, 4 * 3];
    for (rows, width) in cases.into_iter().zip(widths) {
        let s = Schedule::from_records(1, rows.clone());
        let back = Schedule::decode(&s.encode()).expect("decodes");
        assert_eq!(s.encode().len(), 36 + width + 2 + 2 + 8, "{rows:?}");
        for (j, (r, u)) in rows.iter().enumerate() {
            assert_eq!(back.id(j), r.id);
            assert_eq!(back.submit(j).to_bits(), r.submit.to_bits());
            assert_eq!(back.start(j).to_bits(), r.start.to_bits());
            assert_eq!(back.end(j).to_bits(), r.end.to_bits());
            assert_eq!(back.user(j), *u);
        }
    }
    let empty = Schedule::decode(&Schedule::from_records(3, vec![]).encode()).expect("decodes");
    assert!(empty.is_empty());
}

/// Jobs `(id, processors, user)` one after the other, 10 s each (whole seconds).
fn jobs(jobs: &[(u64, u32, i32)]) -> Vec<(JobRecord, i32)> {
    jobs.iter()
        .enumerate()
        .map(|(k, &(id, size, user))| {
            let t = 10.0 * k as f64;
            (record(id, t, t, t + 10.0, size), user)
        })
        .collect()
}

#[test]
fn ids_processors_and_users_are_narrow_only_when_exact() {
    // (machine, jobs, bytes a job besides the three 4-byte times): consecutive ids keep none,
    // ids that are not consecutive keep 4 or 8 bytes; processors and users 2 bytes when every
    // value fits, else 4.
    type Case = (u32, Vec<(u64, u32, i32)>, usize);
    let cases: Vec<Case> = vec![
        (4, vec![(1, 1, 0), (2, 4, 1), (3, 2, -1)], 2 + 2),
        (4, vec![(u64::MAX - 1, 1, 0), (u64::MAX, 1, 0)], 2 + 2),
        (4, vec![(1, 1, 0), (3, 1, 0)], 4 + 2 + 2),
        (4, vec![(2, 1, 0), (1, 1, 0)], 4 + 2 + 2),
        (4, vec![(1, 1, 0), (u64::MAX, 1, 0)], 8 + 2 + 2),
        (70_000, vec![(1, 65_535, 0), (2, 3, 0)], 2 + 2),
        (70_000, vec![(1, 65_536, 0), (2, 3, 0)], 4 + 2),
        (4, vec![(1, 1, 32_767), (2, 1, -32_768)], 2 + 2),
        (4, vec![(1, 1, 32_768), (2, 1, -1)], 2 + 4),
        (4, vec![(1, 1, -32_769), (2, 1, 5)], 2 + 4),
    ];
    for (procs, list, width) in cases {
        let rows = jobs(&list);
        let s = Schedule::from_records(procs, rows.clone());
        let bytes = s.encode();
        let bands = s.layout.bands.len();
        assert_eq!(
            bytes.len(),
            36 + list.len() * (12 + width) + bands * 8,
            "{list:?}"
        );
        assert_eq!(s.encoded_len(), bytes.len());
        let back = Schedule::decode(&bytes).expect("decodes");
        assert_eq!(back, s, "{list:?}");
        // Bit for bit: the bytes of the decoded schedule are the bytes it came from.
        assert_eq!(back.encode(), bytes);
        for (j, (r, u)) in rows.iter().enumerate() {
            assert_eq!(back.id(j), r.id);
            assert_eq!(back.size(j), r.procs);
            assert_eq!(back.user(j), *u);
            assert_eq!(back.row(j), Row::from(r));
        }
        let users: Vec<i32> = back.users().collect();
        assert_eq!(users, list.iter().map(|&(_, _, u)| u).collect::<Vec<_>>());
    }
}

#[test]
fn consecutive_ids_that_would_pass_u64_are_refused() {
    // Two consecutive ids from u64::MAX - 1, then the header's first id moved up by one: the
    // last id would not fit.
    let s = Schedule::from_records(4, jobs(&[(u64::MAX - 1, 1, 0), (u64::MAX, 1, 0)]));
    let mut b = s.encode();
    b[28..36].copy_from_slice(&u64::MAX.to_le_bytes());
    assert_eq!(
        Schedule::decode(&b),
        Err(DecodeError::Field {
            job: 0,
            field: "id"
        })
    );
}

#[test]
fn bad_bytes_are_refused_with_the_reason() {
    assert_eq!(Schedule::decode(b"nope"), Err(DecodeError::Magic));
    // A time base that is not a number; a band on a job that does not exist.
    let mut b = sample().encode();
    b[20..28].copy_from_slice(&f64::NAN.to_le_bytes());
    assert_eq!(
        Schedule::decode(&b),
        Err(DecodeError::Field {
            job: 0,
            field: "time base"
        })
    );
    let mut b = sample().encode();
    let first_band = 36 + 4 * 16;
    b[first_band..first_band + 4].copy_from_slice(&9u32.to_le_bytes());
    assert_eq!(
        Schedule::decode(&b),
        Err(DecodeError::Field {
            job: 9,
            field: "band"
        })
    );
    let mut b = sample().encode();
    b.pop();
    assert_eq!(
        Schedule::decode(&b),
        Err(DecodeError::Length {
            expected: 132,
            got: 131
        })
    );
    let mut rows = sample_rows();
    rows[2].0.procs = 9;
    assert_eq!(
        Schedule::decode(&Schedule::from_records(4, rows).encode()),
        Err(DecodeError::Field {
            job: 2,
            field: "processors"
        })
    );
    let mut rows = sample_rows();
    rows[0].0.end = -1.0;
    assert_eq!(
        Schedule::decode(&Schedule::from_records(4, rows).encode()),
        Err(DecodeError::Field {
            job: 0,
            field: "end"
        })
    );
}

#[test]
fn the_window_culls_and_the_point_finds_the_job() {
    let s = sample().laid_out();
    let in_window: Vec<u32> = s.window(12.0, 18.0).map(|b| b.job).collect();
    // Candidates start in [12 − 15, 18): A, B and C (B and A end before: the raster skips them).
    assert_eq!(in_window, vec![0, 1, 2]);
    let late: Vec<u32> = s.window(21.0, 22.0).map(|b| b.job).collect();
    assert_eq!(late, vec![3]);
    assert_eq!(s.job_at(3.0, 0.5, 0.0), Some(0));
    assert_eq!(s.job_at(3.0, 2.5, 0.0), Some(1));
    assert_eq!(s.job_at(7.0, 3.9, 0.0), Some(2));
    assert_eq!(s.job_at(21.0, 2.0, 0.0), Some(3));
    assert_eq!(s.job_at(21.0, 3.5, 0.0), None);
    // Within the slack of a job's end.
    assert_eq!(s.job_at(22.5, 0.5, 1.0), Some(3));
    assert_eq!(s.job_at(3.0, 4.5, 1.0), None);
}

#[test]
fn the_raster_colours_each_jobs_pixels() {
    let s = sample().laid_out();
    let (w, h) = (22, 4);
    let mut px = vec![0u8; w * h * 4];
    let colour = |j: usize| [(j % 200) as u8 + 1, 0, 0];
    let drawn = s.raster(0.0, 22.0, w, h, &colour, &mut px);
    assert_eq!(drawn, 4);
    let at = |x: usize, y: usize| px[(y * w + x) * 4];
    // Row 0 (processor 0) is the bottom pixel row.
    assert_eq!(at(3, 3), 1);
    assert_eq!(at(3, 0), 2);
    assert_eq!(at(12, 0), 3);
    assert_eq!(at(21, 3), 4);
    assert_eq!(at(21, 0), 0);
    // A window after every job draws nothing; a zoomed window only the jobs in it.
    let mut px = vec![0u8; 8 * 4 * 4];
    assert_eq!(s.raster(12.0, 18.0, 8, 4, &colour, &mut px), 1);
    // A 300,000-job schedule on 1 pixel column draws every job into that column.
    let many: Vec<(JobRecord, i32)> = (0..300_000u64)
        .map(|i| (record(i, 0.0, i as f64, i as f64 + 1.0, 1), 0))
        .collect();
    let big = Schedule::from_records(1, many).laid_out();
    let mut px = vec![0u8; 4];
    assert_eq!(big.raster(0.0, 300_000.0, 1, 1, &colour, &mut px), 300_000);
    let mut px = vec![0u8; 100 * 4];
    assert_eq!(big.raster(1000.0, 1100.0, 100, 1, &colour, &mut px), 101);
}

#[test]
fn large_machines_share_rows() {
    let s = Schedule::from_records(20_000, vec![(record(1, 0.0, 0.0, 1.0, 20_000), 0)]).laid_out();
    assert_eq!((s.layout.rows, s.layout.per_row), (6667, 3));
    assert_eq!(s.layout.bands[0].rows, 6667);
}

#[test]
fn ticks_are_round() {
    assert_eq!(ticks(0.0, 10.0, 5), vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
    assert_eq!(ticks(3.0, 17.0, 3), vec![5.0, 10.0, 15.0]);
    assert_eq!(
        ticks(0.0, 1152.0, 6),
        vec![0.0, 200.0, 400.0, 600.0, 800.0, 1000.0]
    );
    assert!(ticks(1.0, 1.0, 5).is_empty());
    assert!(ticks(0.0, f64::NAN, 5).is_empty());
}

/// The layout written straight from its definition: jobs in order of start (then index), each
/// taking the lowest rows free at its start (a row is free from the end of the last job that
/// took it), as bands of consecutive rows — a scan of every row per job.
fn naive_bands(procs: u32, start: &[f64], end: &[f64], size: &[u32]) -> Vec<(u32, u32, u32)> {
    let per_row = procs
        .div_ceil(schedlab::metrics::gantt::MAX_LAYOUT_ROWS)
        .max(1);
    let rows = procs.div_ceil(per_row);
    let mut order: Vec<usize> = (0..start.len()).collect();
    order.sort_by(|&a, &b| start[a].total_cmp(&start[b]).then(a.cmp(&b)));
    let mut free_at = vec![f64::NEG_INFINITY; rows as usize];
    let mut bands = Vec::new();
    for j in order {
        let mut need = size[j].div_ceil(per_row).min(rows);
        let mut taken: Vec<u32> = Vec::new();
        for (r, slot) in free_at.iter_mut().enumerate() {
            if need == 0 {
                break;
            }
            if *slot <= start[j] {
                *slot = end[j];
                need -= 1;
                taken.push(r as u32);
            }
        }
        for r in taken {
            match bands.last_mut() {
                Some((job, first, n)) if *job == j as u32 && *first + *n == r => *n += 1,
                _ => bands.push((j as u32, r, 1)),
            }
        }
    }
    bands
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

    /// The layout (free rows as bits, running jobs by end) is the row-by-row scan.
    #[test]
    fn the_layout_is_the_lowest_free_rows_in_order_of_start(
        procs in proptest::prop_oneof![1u32..70, 8190u32..20_000],
        jobs in proptest::collection::vec((0u32..40, 0u32..15, 0u32..80), 0..60),
    ) {
        let start: Vec<f64> = jobs.iter().map(|j| j.0 as f64).collect();
        let end: Vec<f64> = jobs.iter().map(|j| (j.0 + j.1) as f64).collect();
        let size: Vec<u32> = jobs.iter().map(|j| j.2 * (1 + procs / 100)).collect();
        let layout = schedlab::metrics::gantt::Layout::of(
            procs,
            size.len(),
            |j| size[j],
            |j| start[j],
            |j| end[j],
        );
        let ours: Vec<(u32, u32, u32)> = layout
            .bands
            .iter()
            .map(|b| (b.job, u32::from(b.row), u32::from(b.rows)))
            .collect();
        proptest::prop_assert_eq!(ours, naive_bands(procs, &start, &end, &size));
    }
}

/// The size legend lists only the classes a machine can hold, the last cut at its size.
#[test]
fn size_classes_are_cut_at_the_machine_size() {
    use schedlab::metrics::gantt::{size_class, size_classes};
    let bounds =
        |p: u32| -> Vec<(u32, u32)> { size_classes(p).iter().map(|c| (c.lo, c.hi)).collect() };
    assert_eq!(bounds(128), [(1, 1), (2, 4), (5, 16), (17, 64), (65, 128)]);
    assert_eq!(bounds(256), [(1, 1), (2, 4), (5, 16), (17, 64), (65, 256)]);
    assert_eq!(
        bounds(1152),
        [(1, 1), (2, 4), (5, 16), (17, 64), (65, 256), (257, 1152)]
    );
    assert_eq!(bounds(1), [(1, 1)]);
    assert_eq!(bounds(5), [(1, 1), (2, 4), (5, 5)]);
    assert_eq!(bounds(0), [(1, 1)]);
    let last = size_classes(1152)[5];
    assert_eq!((last.class, last.lo, last.hi), (5, 257, 1152));
    assert_eq!(
        [1, 2, 4, 5, 64, 65, 256, 257, u32::MAX].map(size_class),
        [0, 1, 1, 2, 3, 4, 4, 5, 5]
    );
}
