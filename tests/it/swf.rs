//! Integration tests of the SWF reader and writer: a hand-written trace checked field by field,
//! every error kind, lenient mode, the writer's number format, round trips (property-based and
//! over every real trace in `../shared/traces`) and no panics on arbitrary input.

#![cfg(not(target_arch = "wasm32"))]

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use flate2::write::GzEncoder;
use flate2::Compression;
use proptest::prelude::*;
use schedlab::workload::swf::{
    read_swf, read_swf_bytes, write_swf_string, ReadOptions, SwfError, SwfErrorKind, SwfHeader,
    SwfRecord,
};
use schedlab::workload::{DropCounts, Job, Workload};

fn opts(source: &str) -> ReadOptions {
    ReadOptions {
        source: source.to_string(),
        ..ReadOptions::default()
    }
}

fn lenient(source: &str) -> ReadOptions {
    ReadOptions {
        source: source.to_string(),
        lenient: true,
        ..ReadOptions::default()
    }
}

fn read_str(text: &str) -> Result<Workload, SwfError> {
    read_swf_bytes(text.as_bytes(), &opts("test.swf"))
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = GzEncoder::new(Vec::new(), Compression::default());
    enc.write_all(bytes).expect("gzip to memory");
    enc.finish().expect("gzip to memory")
}

/// A good data line with the given job number and submit time.
fn good_line(job: i64, submit: i64) -> String {
    format!("{job} {submit} 0 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n")
}

const SAMPLE: &str = "\
; Version: 2.2
;\tComputer:   Test   Machine\t
; MaxProcs: 338 (batch partition; 512 total)
;  maxnodes:\t64 nodes
; UnixStartTime: 835823160
; TimeZone: -18000
; TimeZoneString: US/Eastern
; Information: http://a.example/
;              http://b.example/
; Copyright: some text
;   that continues (not part of Information)
; Note: first note
;       continued here
; Note: second note
; MaxQueues: 2
; Queue:  0  interactive
; Queue:  1  batch
;

  1   100  5  50   4  1.5  -1  4  60  -1 1 1 1 -1 1 -1 -1 -1
2\t50\t0\t30.25\t-1\t-1\t-1\t8\t100\t-1\t1\t2\t1\t-1\t1\t-1\t-1\t-1
  3   100  0  20   2   -1  -1  2  -1  -1 1 3 1 -1 1 -1 -1 -1
  5    10  0  -1   4   -1  -1  4  60  -1 5 1 1 -1 1 -1 -1 -1
  7    20  0  10   0   -1  -1  0  60  -1 1 1 1 -1 1 -1 -1 -1
; a comment after data lines. MaxProcs: 5
  8    30  0  10  -1   -1  -1 -1  60  -1 1 1 1 -1 1 -1 -1 -1

  9     5  0 7.5 16.9  -1  -1 16  1e3 -1 1 1 1 -1 1 -1 -1 0.5
 -1    60  0  40   1   -1  -1  1  50  -1 1 1 1 -1 1 -1 -1 -1
";

#[test]
fn sample_header_is_parsed_loosely() {
    let w = read_str(SAMPLE).expect("sample reads");
    let h = &w.header;
    assert_eq!(h.version.as_deref(), Some("2.2"));
    assert_eq!(h.computer.as_deref(), Some("Test   Machine"));
    assert_eq!(h.max_procs, Some(338));
    assert_eq!(h.max_nodes, Some(64));
    assert_eq!(h.unix_start_time, Some(835_823_160));
    assert_eq!(h.time_zone, Some(-18_000));
    assert_eq!(h.time_zone_string.as_deref(), Some("US/Eastern"));
    assert_eq!(
        h.information.as_deref(),
        Some("http://a.example/\nhttp://b.example/")
    );
    assert_eq!(h.notes, vec!["first note\ncontinued here", "second note"]);
    assert_eq!(h.max_queues, Some(2));
    assert_eq!(h.queues, vec!["0  interactive", "1  batch"]);
    assert_eq!(h.max_jobs, None);
    assert!(h.partitions.is_empty());
    // Every header line verbatim (the comment after data lines is not part of the header).
    assert_eq!(h.lines.len(), 18);
    assert_eq!(h.lines[0], " Version: 2.2");
    assert_eq!(h.lines[1], "\tComputer:   Test   Machine\t");
    assert_eq!(h.lines[17], "");
}

#[test]
fn sample_jobs_field_by_field() {
    let w = read_str(SAMPLE).expect("sample reads");
    assert_eq!(
        w.dropped,
        DropCounts {
            negative_runtime: 1,
            nonpositive_size: 2,
            too_large: 0,
            malformed_lines: 0,
        }
    );
    // Sorted by submit time; jobs 1 and 3 tie at 100 and keep file order. The job numbered -1
    // gets the 1-based index of its data line (8).
    let ids: Vec<u64> = w.jobs.iter().map(|j| j.id).collect();
    assert_eq!(ids, vec![9, 2, 8, 1, 3]);
    let brief: Vec<(f64, f64, f64, u32)> = w
        .jobs
        .iter()
        .map(|j| (j.submit, j.run_time, j.estimate, j.procs))
        .collect();
    assert_eq!(
        brief,
        vec![
            // Allocated 16.9 → 16 processors; requested time written as 1e3.
            (5.0, 7.5, 1000.0, 16),
            // Tab-separated; allocated -1 → requested 8; decimal run time.
            (50.0, 30.25, 100.0, 8),
            (60.0, 40.0, 50.0, 1),
            (100.0, 50.0, 60.0, 4),
            // Requested time -1 → estimate = run time.
            (100.0, 20.0, 20.0, 2),
        ]
    );
    for j in &w.jobs {
        assert_eq!(j.shape, None);
    }
    // The full record is kept, decimals included.
    let job1 = &w.jobs[3];
    assert_eq!(
        job1.record.fields(),
        [
            1.0, 100.0, 5.0, 50.0, 4.0, 1.5, -1.0, 4.0, 60.0, -1.0, 1.0, 1.0, 1.0, -1.0, 1.0, -1.0,
            -1.0, -1.0
        ]
    );
    let job2 = &w.jobs[1];
    assert_eq!(job2.record.allocated_procs, -1.0);
    assert_eq!(job2.record.requested_procs, 8.0);
    assert_eq!(job2.record.user_id, 2.0);
    let job9 = &w.jobs[0];
    assert_eq!(job9.record.allocated_procs, 16.9);
    assert_eq!(job9.record.think_time, 0.5);
    assert_eq!(w.jobs[2].record.job_number, -1.0);
}

#[test]
fn sample_gzip_and_multi_member_gzip() {
    let plain = read_str(SAMPLE).expect("plain");
    let gz = read_swf_bytes(&gzip(SAMPLE.as_bytes()), &opts("t.swf.gz")).expect("gzip");
    assert_eq!(gz, plain);

    // Two concatenated gzip members (as `cat a.gz b.gz` makes) are read as one stream.
    let mut two = gzip(b"; Version: 2.2\n");
    two.extend(gzip(good_line(1, 0).as_bytes()));
    two.extend(gzip(good_line(2, 10).as_bytes()));
    let w = read_swf_bytes(&two, &opts("two.swf.gz")).expect("multi-member gzip");
    assert_eq!(w.jobs.len(), 2);
    assert_eq!(w.header.version.as_deref(), Some("2.2"));
}

#[test]
fn crlf_bom_and_signs() {
    let text = format!(
        "\u{feff}; MaxProcs: 16\r\n{}\r\n+3 +7 0 1e1 2 -1 -1 2 -1 -1 1 1 1 -1 1 -1 -1 -1\r\n",
        good_line(1, 0).trim_end()
    );
    let w = read_str(&text).expect("CRLF and BOM");
    assert_eq!(w.header.max_procs, Some(16));
    assert_eq!(w.header.lines, vec![" MaxProcs: 16"]);
    assert_eq!(w.jobs.len(), 2);
    assert_eq!(w.jobs[1].id, 3);
    assert_eq!(w.jobs[1].submit, 7.0);
    assert_eq!(w.jobs[1].run_time, 10.0);
}

fn error_of(bytes: &[u8], o: &ReadOptions) -> SwfError {
    match read_swf_bytes(bytes, o) {
        Ok(w) => panic!("expected an error, got {} jobs", w.jobs.len()),
        Err(e) => e,
    }
}

#[test]
fn truncated_gzip_is_an_io_error() {
    let mut text = String::from("; Version: 2.2\n");
    for i in 1..=200 {
        text.push_str(&good_line(i, i * 7));
    }
    let gz = gzip(text.as_bytes());
    let half = &gz[..gz.len() / 2];
    let e = error_of(half, &opts("cut.swf.gz"));
    assert!(matches!(e.kind, SwfErrorKind::Io(_)), "{e:?}");
    let msg = e.to_string();
    assert!(msg.starts_with("cut.swf.gz"), "{msg}");
    assert!(msg.contains("gzip"), "{msg}");

    // Cut just before the end (inside the CRC/size trailer).
    let e = error_of(&gz[..gz.len() - 3], &opts("cut.swf.gz"));
    assert!(matches!(e.kind, SwfErrorKind::Io(_)), "{e:?}");

    // Only the magic bytes.
    let e = error_of(&[0x1f, 0x8b], &opts("magic.gz"));
    assert!(matches!(e.kind, SwfErrorKind::Io(_)), "{e:?}");

    // Corrupt deflate data after a valid gzip header.
    let mut corrupt = gz.clone();
    for b in corrupt.iter_mut().skip(12).take(40) {
        *b ^= 0x5a;
    }
    let e = error_of(&corrupt, &opts("corrupt.swf.gz"));
    assert!(
        matches!(e.kind, SwfErrorKind::Io(_) | SwfErrorKind::NotText),
        "{e:?}"
    );
}

#[test]
fn field_count_error_names_line_and_count() {
    let text = format!(
        "; Version: 2.2\n{}\n1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n",
        good_line(1, 0)
    );
    let e = error_of(text.as_bytes(), &opts("short.swf"));
    assert_eq!(e.line, 4);
    assert_eq!(e.kind, SwfErrorKind::FieldCount { found: 17 });
    assert_eq!(e.source, "short.swf");
    let msg = e.to_string();
    assert!(msg.contains("short.swf:4"), "{msg}");
    assert!(msg.contains("17"), "{msg}");

    let e = error_of(
        format!("{} 99\n", good_line(1, 0).trim_end()).as_bytes(),
        &opts("long.swf"),
    );
    assert_eq!(e.line, 1);
    assert_eq!(e.kind, SwfErrorKind::FieldCount { found: 19 });
}

#[test]
fn letters_in_a_field_name_the_field() {
    let text = format!(
        "{}1 2 3 4 5 6 7 8 abc 10 11 12 13 14 15 16 17 18\n",
        good_line(1, 0)
    );
    let e = error_of(text.as_bytes(), &opts("letters.swf"));
    assert_eq!(e.line, 2);
    assert_eq!(
        e.kind,
        SwfErrorKind::NotANumber {
            field: 9,
            text: "abc".into()
        }
    );
    let msg = e.to_string();
    assert!(msg.contains("letters.swf:2"), "{msg}");
    assert!(msg.contains("requested time"), "{msg}");
    assert!(msg.contains("abc"), "{msg}");
}

#[test]
fn nan_and_infinity_are_not_numbers() {
    for (bad, field) in [("NaN", 2), ("inf", 4), ("-infinity", 5), ("1e999", 3)] {
        let mut fields: Vec<String> = (1..=18).map(|i| i.to_string()).collect();
        fields[field - 1] = bad.to_string();
        let e = error_of(fields.join(" ").as_bytes(), &opts("nan.swf"));
        assert_eq!(
            e.kind,
            SwfErrorKind::NotANumber {
                field,
                text: bad.into()
            }
        );
        assert_eq!(e.line, 1);
    }
}

#[test]
fn empty_header_only_and_binary() {
    for empty in ["", "   ", "\n\n  \t\n", "\r\n"] {
        let e = error_of(empty.as_bytes(), &opts("empty.swf"));
        assert_eq!(e.kind, SwfErrorKind::Empty, "{empty:?}");
        assert_eq!(e.line, 0);
        assert!(e.to_string().contains("empty.swf"));
    }
    let e = error_of(b"; Version: 2.2\n; MaxProcs: 4\n\n", &opts("hdr.swf"));
    assert_eq!(e.kind, SwfErrorKind::NoJobs);
    assert!(e.to_string().contains("hdr.swf"));
    // A gzip-compressed empty file is empty too.
    let e = error_of(&gzip(b""), &opts("empty.swf.gz"));
    assert_eq!(e.kind, SwfErrorKind::Empty);

    // Deterministic pseudo-random bytes (xorshift), not starting with the gzip magic.
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut random = Vec::with_capacity(4096);
    for _ in 0..4096 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        random.push((x >> 24) as u8);
    }
    random[0] = b'x';
    let e = error_of(&random, &opts("random.bin"));
    assert_eq!(e.kind, SwfErrorKind::NotText);
    assert!(e.to_string().contains("random.bin"));
    // Binary data is refused even in lenient mode.
    let e = error_of(&random, &lenient("random.bin"));
    assert_eq!(e.kind, SwfErrorKind::NotText);

    // Invalid UTF-8 on a data line; NUL bytes anywhere.
    let e = error_of(b"1 2 3 \xff\xfe\n", &opts("latin.swf"));
    assert_eq!(e.kind, SwfErrorKind::NotText);
    let e = error_of(b"; header\n; with \0 inside\n", &opts("nul.swf"));
    assert_eq!((e.kind, e.line), (SwfErrorKind::NotText, 2));
}

#[test]
fn latin1_header_is_not_fatal() {
    let text = [
        b"; Acknowledge: J\xe9r\xf4me\n".as_slice(),
        good_line(1, 0).as_bytes(),
    ]
    .concat();
    let w = read_swf_bytes(&text, &opts("latin1.swf")).expect("Latin-1 header");
    assert_eq!(w.jobs.len(), 1);
    assert!(w.header.acknowledge.is_some());
}

#[test]
fn max_bytes_counts_decompressed_bytes() {
    let mut text = String::new();
    for i in 1..=100 {
        text.push_str(&good_line(i, i));
    }
    let limit = |n: u64| ReadOptions {
        source: "big.swf".into(),
        max_bytes: Some(n),
        ..ReadOptions::default()
    };
    let size = text.len() as u64;
    assert!(read_swf_bytes(text.as_bytes(), &limit(size)).is_ok());
    let e = error_of(text.as_bytes(), &limit(size - 1));
    assert_eq!(
        e.kind,
        SwfErrorKind::TooLarge {
            limit_bytes: size - 1
        }
    );
    assert!(e.to_string().contains("big.swf"));
    // The compressed form is much smaller than the limit, the text is not.
    let gz = gzip(text.as_bytes());
    assert!((gz.len() as u64) < size / 2);
    let e = error_of(&gz, &limit(size / 2));
    assert_eq!(
        e.kind,
        SwfErrorKind::TooLarge {
            limit_bytes: size / 2
        }
    );
    assert!(read_swf_bytes(&gz, &limit(size)).is_ok());
}

#[test]
fn lenient_mode_skips_and_counts() {
    let text = format!(
        "; Version: 2.2\n{}1 2 3\n{}1 2 3 4 5 6 7 8 x 10 11 12 13 14 15 16 17 18\n{}",
        good_line(1, 0),
        good_line(2, 5),
        good_line(3, 9)
    );
    let e = error_of(text.as_bytes(), &opts("mixed.swf"));
    assert_eq!(e.line, 3);
    let w = read_swf_bytes(text.as_bytes(), &lenient("mixed.swf")).expect("lenient");
    assert_eq!(
        w.jobs.iter().map(|j| j.id).collect::<Vec<_>>(),
        vec![1, 2, 3]
    );
    assert_eq!(w.dropped.malformed_lines, 2);
    assert_eq!(w.dropped.total(), 2);
    // Only malformed lines: no job at all.
    let e = error_of(b"; h\n1 2 3\nfoo\n", &lenient("bad.swf"));
    assert_eq!(e.kind, SwfErrorKind::NoJobs);
}

#[test]
fn display_messages_carry_source_and_line() {
    let e = error_of(b"1 2\n", &opts("traces/x.swf"));
    assert_eq!(e.to_string(), "traces/x.swf:1: expected 18 fields, found 2");
    let e = error_of(b"", &opts("traces/x.swf"));
    assert!(e.to_string().starts_with("traces/x.swf: "));
}

#[test]
fn all_jobs_dropped_is_not_an_error() {
    let text = "1 0 0 -1 4 -1 -1 4 10 -1 1 1 1 -1 1 -1 -1 -1\n";
    let w = read_str(text).expect("a valid trace whose only job is dropped");
    assert!(w.jobs.is_empty());
    assert_eq!(w.dropped.negative_runtime, 1);
}

#[test]
fn writer_number_format() {
    let mut r = SwfRecord::unknown();
    r.job_number = 42.0;
    r.submit_time = 3600.0;
    r.run_time = 30.25;
    r.avg_cpu_time = 0.1;
    r.used_memory = -0.0;
    r.requested_time = 1e20;
    r.requested_memory = 1.5e-7;
    r.think_time = f64::NAN;
    let text = write_swf_string(&SwfHeader::default(), [r]);
    assert_eq!(
        text,
        "42 3600 -1 30.25 -1 0.1 -0 -1 1e20 1.5e-7 -1 -1 -1 -1 -1 -1 -1 -1\n"
    );
}

#[test]
fn writer_reproduces_header_lines_and_sample() {
    let w = read_str(SAMPLE).expect("sample");
    let records: Vec<SwfRecord> = w.jobs.iter().map(|j| *j.record).collect();
    let text = write_swf_string(&w.header, &records);
    assert!(text.starts_with("; Version: 2.2\n;\tComputer:   Test   Machine\t\n"));
    let back = read_str(&text).expect("written sample reads back");
    assert_eq!(back.header, w.header);
    // The job numbered -1 takes the index of its data line as id, which changes once the
    // dropped lines are gone (8 → 3); every other job comes back identical.
    assert_eq!(back.jobs.len(), w.jobs.len());
    for (b, a) in back.jobs.iter().zip(&w.jobs) {
        if a.record.job_number < 0.0 {
            assert_eq!((a.id, b.id), (8, 3));
            assert_eq!(
                Job {
                    id: a.id,
                    ..b.clone()
                },
                *a
            );
        } else {
            assert_eq!(b, a);
        }
    }
}

#[test]
fn generated_header_reads_back() {
    let h = SwfHeader {
        version: Some("2.2".into()),
        computer: Some("Synthetic".into()),
        information: Some("line one\nline two".into()),
        max_procs: Some(128),
        max_nodes: Some(64),
        unix_start_time: Some(0),
        time_zone: Some(-28_800),
        time_zone_string: Some("US/Pacific".into()),
        max_queues: Some(1),
        queues: vec!["0 batch".into()],
        max_partitions: Some(1),
        partitions: vec!["1 all".into()],
        notes: vec!["generated".into(), "two\nlines".into()],
        ..SwfHeader::default()
    };
    let text = write_swf_string(&h, [SwfRecord::from_fields([1.0; 18])]);
    let back = read_str(&text).expect("generated header reads back");
    let mut expected = h.clone();
    expected.lines = back.header.lines.clone();
    assert_eq!(back.header, expected);
    assert_eq!(SwfHeader::from_lines(h.to_lines()), expected);
}

/// Records read from what the writer wrote, bit for bit.
fn assert_same_records(a: &[SwfRecord], b: &[SwfRecord]) {
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        let xb = x.fields().map(f64::to_bits);
        let yb = y.fields().map(f64::to_bits);
        assert_eq!(xb, yb, "{x:?} != {y:?}");
    }
}

fn p_max() -> f64 {
    f64::from(u32::MAX)
}

fn finite() -> impl Strategy<Value = f64> {
    prop_oneof![
        (-1i64..100_000).prop_map(|v| v as f64),
        -1e6f64..1e6,
        any::<f64>().prop_filter("finite", |v| v.is_finite()),
        Just(-0.0),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn records_round_trip_bit_for_bit(
        rows in prop::collection::vec(
            (prop::array::uniform18(finite()), 0.0f64..1e9, 1u32..5000),
            1..30,
        )
    ) {
        // Kept jobs: non-negative run time and a positive size.
        let records: Vec<SwfRecord> = rows
            .into_iter()
            .map(|(f, run, procs)| {
                let mut r = SwfRecord::from_fields(f);
                r.run_time = run;
                r.allocated_procs = procs as f64;
                // The reader's ranges (docs/limits.md): times within ±10^12 s, processor
                // counts up to 2^32 − 1; every other field any finite number.
                let t = schedlab::limits::MAX_TIME;
                r.submit_time = r.submit_time.clamp(-t, t);
                r.requested_time = r.requested_time.clamp(-t, t);
                r.requested_procs = r.requested_procs.clamp(-p_max(), p_max());
                r
            })
            .collect();
        let text = write_swf_string(&SwfHeader::default(), &records);
        let w = read_str(&text).expect("written records read back");
        let mut expected = records.clone();
        expected.sort_by(|a, b| a.submit_time.total_cmp(&b.submit_time));
        let got: Vec<SwfRecord> = w.jobs.iter().map(|j| *j.record).collect();
        assert_same_records(&got, &expected);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..2000)) {
        let _ = read_swf_bytes(&bytes, &opts("fuzz"));
        let _ = read_swf_bytes(&bytes, &lenient("fuzz"));
        let _ = read_swf_bytes(&gzip(&bytes), &opts("fuzz.gz"));
    }

    #[test]
    fn arbitrary_text_never_panics(text in "[-0-9 .;:\\teEaAnNiIfF\\n]{0,600}") {
        let _ = read_swf_bytes(text.as_bytes(), &opts("fuzz"));
        let _ = read_swf_bytes(text.as_bytes(), &lenient("fuzz"));
    }

    #[test]
    fn arbitrary_header_lines_never_panic(lines in prop::collection::vec("\\PC{0,60}", 0..20)) {
        let h = SwfHeader::from_lines(&lines);
        prop_assert_eq!(h.lines.len(), lines.len());
    }
}

fn traces_dir() -> Option<PathBuf> {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/traces"));
    if dir.is_dir() {
        Some(dir.to_path_buf())
    } else {
        eprintln!(
            "notice: {} not found; skipping the real-trace tests",
            dir.display()
        );
        None
    }
}

/// Number of data lines of a trace (non-blank, not starting with `;`), counted independently.
fn count_data_lines(path: &Path) -> usize {
    let file = std::fs::File::open(path).expect("open trace");
    let mut text = String::new();
    flate2::read::MultiGzDecoder::new(file)
        .read_to_string(&mut text)
        .expect("decompress trace");
    text.lines()
        .map(str::trim_start)
        .filter(|l| !l.is_empty() && !l.starts_with(';'))
        .count()
}

/// (file, kept jobs, jobs dropped for negative run time, for size ≤ 0), counted with
/// `zcat | awk` independently of the reader.
const EXPECTED: [(&str, usize, usize, usize); 7] = [
    ("CTC-SP2-1996-3.1-cln.swf.gz", 77_222, 0, 0),
    ("KTH-SP2-1996-2.1-cln.swf.gz", 28_475, 0, 1),
    ("LANL-CM5-1994-4.1-cln.swf.gz", 122_057, 0, 3),
    ("NASA-iPSC-1993-3.1-cln.swf.gz", 18_239, 0, 0),
    ("SDSC-BLUE-2000-4.2-cln.swf.gz", 232_562, 10_744, 0),
    ("SDSC-Par-1996-3.1-cln.swf.gz", 32_135, 0, 0),
    ("SDSC-SP2-1998-4.2-cln.swf.gz", 54_044, 5_671, 0),
];

#[test]
fn real_traces_round_trip() {
    let Some(dir) = traces_dir() else { return };
    let mut seen = 0;
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("list traces")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".swf.gz"))
        .collect();
    entries.sort();
    for path in entries {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let file = std::fs::File::open(&path).expect("open trace");
        let w =
            read_swf(std::io::BufReader::new(file), &opts(&name)).unwrap_or_else(|e| panic!("{e}"));
        assert!(!w.jobs.is_empty(), "{name}");
        assert!(w.header.max_procs.is_some(), "{name}");
        assert!(w.header.time_zone_string.is_some(), "{name}");
        assert!(w.header.unix_start_time.is_some(), "{name}");
        assert!(!w.header.notes.is_empty(), "{name}");
        // Sorted by submit time.
        assert!(
            w.jobs.windows(2).all(|p| p[0].submit <= p[1].submit),
            "{name}"
        );
        for j in &w.jobs {
            assert!(
                j.run_time >= 0.0 && j.procs > 0 && j.estimate >= 0.0,
                "{name}"
            );
        }
        // Every data line is a kept job or a counted drop.
        assert_eq!(
            w.jobs.len() + w.dropped.total(),
            count_data_lines(&path),
            "{name}"
        );
        if let Some(&(_, kept, neg, nonpos)) = EXPECTED.iter().find(|e| e.0 == name) {
            assert_eq!(w.jobs.len(), kept, "{name}");
            assert_eq!(
                w.dropped,
                DropCounts {
                    negative_runtime: neg,
                    nonpositive_size: nonpos,
                    too_large: 0,
                    malformed_lines: 0,
                },
                "{name}"
            );
            seen += 1;
        }

        let records: Vec<SwfRecord> = w.jobs.iter().map(|j| *j.record).collect();
        let text = write_swf_string(&w.header, &records);
        let back = read_swf_bytes(text.as_bytes(), &opts(&name)).expect("reads back");
        assert_eq!(back.header, w.header, "{name}");
        assert_eq!(back.jobs, w.jobs, "{name}");
        assert_eq!(back.dropped, DropCounts::default(), "{name}");
        let back_records: Vec<SwfRecord> = back.jobs.iter().map(|j| *j.record).collect();
        assert_same_records(&back_records, &records);
    }
    assert_eq!(seen, EXPECTED.len(), "every known trace was checked");
}

#[test]
fn real_trace_headers() {
    let Some(dir) = traces_dir() else { return };
    let read = |name: &str| {
        let bytes = std::fs::read(dir.join(name)).expect("read trace");
        read_swf_bytes(&bytes, &opts(name)).unwrap_or_else(|e| panic!("{e}"))
    };
    let ctc = read("CTC-SP2-1996-3.1-cln.swf.gz");
    let h = &ctc.header;
    assert_eq!(h.version.as_deref(), Some("2.2"));
    assert_eq!(h.computer.as_deref(), Some("IBM SP2"));
    assert_eq!(h.max_nodes, Some(338)); // "338 (batch partition; 512 total)"
    assert_eq!(h.max_procs, Some(338));
    assert_eq!(h.max_jobs, Some(79_302));
    assert_eq!(h.unix_start_time, Some(835_823_160));
    assert_eq!(h.time_zone, Some(-18_000));
    assert_eq!(h.time_zone_string.as_deref(), Some("US/Eastern"));
    assert_eq!(h.end_time.as_deref(), Some("Sat May 31 23:11:26 EDT 1997"));
    assert_eq!(
        h.information.as_deref(),
        Some("http://www.tc.cornell.edu/\nhttp://www.cs.huji.ac.il/labs/parallel/workload/")
    );
    assert_eq!(h.max_queues, Some(4));
    // `Queues:` (a description) then the four `Queue:` lines.
    assert_eq!(h.queues.len(), 5);
    assert_eq!(h.queues[1], "1 DSI");
    assert_eq!(h.notes.len(), 2);
    assert!(h.notes[1].starts_with("THIS IS A CLEANED VERSION OF THE LOG!\nThe filter"));

    let nasa = read("NASA-iPSC-1993-3.1-cln.swf.gz");
    let h = &nasa.header;
    assert_eq!(h.max_procs, Some(128));
    assert_eq!(h.time_zone_string.as_deref(), Some("US/Pacific"));
    assert_eq!(h.queues, vec!["0  interactive", "1  batch"]);
    assert_eq!(h.notes.len(), 4);
    assert_eq!(
        h.notes[0],
        "There is no information on wait times - the given submit\ntimes are actually start times"
    );
    assert_eq!(nasa.jobs.len(), 18_239);
    assert_eq!(nasa.jobs[0].id, 1);
    assert_eq!(nasa.jobs[0].procs, 128);
    // Requested time is -1 throughout: the estimate is the run time.
    assert_eq!(nasa.jobs[0].estimate, 1451.0);

    let par = read("SDSC-Par-1996-3.1-cln.swf.gz");
    assert_eq!(par.header.max_nodes, Some(400));
    assert_eq!(par.header.max_partitions, Some(2));
    assert_eq!(par.header.partitions.len(), 2);
    assert_eq!(par.header.queues.len(), 34);

    let sp2 = read("SDSC-SP2-1998-4.2-cln.swf.gz");
    // The Copyright block is not appended to the Acknowledge line before it.
    assert_eq!(sp2.header.acknowledge.as_deref(), Some("Victor Hazlewood"));
}
