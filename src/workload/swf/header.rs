//! The SWF header: `;`-prefixed `Key: value` comment lines at the top of a trace.
//! Real headers are messy, so every value is optional and parsing never fails.
//!
//! This file implements the loose header parser ([`SwfHeader::from_lines`] and the streaming
//! [`HeaderBuilder`] used by the reader) and [`SwfHeader::to_lines`], which renders the parsed
//! fields as canonical header lines for headers built in code (no verbatim `lines`).
//!
//! Parsing rules:
//! - keys are case-insensitive and may contain spaces, `_` or `-` (`MaxProcs`, `max procs`);
//! - numeric values take the leading integer and ignore free text after it
//!   (`MaxNodes: 338 (batch partition; 512 total)` → 338); a value that does not start with a
//!   number leaves the field `None`;
//! - a repeated text key (e.g. several `Information:` lines) appends to the value with `\n`;
//! - `Note:`, `Queue:`/`Queues:` and `Partition:`/`Partitions:` push one entry per line;
//! - a continuation line (no `Key:` of a known field, e.g. an indented URL or sentence) appends
//!   to the last text field, note, queue or partition with `\n`; an empty `;` line or an unknown
//!   key (e.g. `Copyright:`) ends the continuation, and lines that continue nothing are only
//!   kept in `lines`.

use serde::{Deserialize, Serialize};

/// What could be read from a trace header. Unreadable values stay `None`; every header line is
/// also kept verbatim in `lines` so the writer can reproduce it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SwfHeader {
    pub version: Option<String>,
    pub computer: Option<String>,
    pub installation: Option<String>,
    pub acknowledge: Option<String>,
    pub information: Option<String>,
    pub conversion: Option<String>,
    pub max_jobs: Option<u64>,
    pub max_records: Option<u64>,
    pub preemption: Option<String>,
    pub unix_start_time: Option<i64>,
    /// Offset of local time from UTC in seconds as written in `TimeZone` (old field).
    pub time_zone: Option<i64>,
    /// Olson name, e.g. `US/Eastern`.
    pub time_zone_string: Option<String>,
    pub start_time: Option<String>,
    pub end_time: Option<String>,
    pub max_nodes: Option<u64>,
    pub max_procs: Option<u64>,
    pub max_runtime: Option<u64>,
    pub max_memory: Option<u64>,
    pub allow_overuse: Option<String>,
    pub max_queues: Option<u64>,
    pub queues: Vec<String>,
    pub max_partitions: Option<u64>,
    pub partitions: Vec<String>,
    pub notes: Vec<String>,
    /// Every header line as it appeared, without the leading `;`.
    pub lines: Vec<String>,
}

/// Text fields of the header (`Option<String>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TextField {
    Version,
    Computer,
    Installation,
    Acknowledge,
    Information,
    Conversion,
    Preemption,
    TimeZoneString,
    StartTime,
    EndTime,
    AllowOveruse,
}

/// Unsigned numeric fields (`Option<u64>`): the `Max…` keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CountField {
    Jobs,
    Records,
    Nodes,
    Procs,
    Runtime,
    Memory,
    Queues,
    Partitions,
}

/// Signed numeric fields (`Option<i64>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SignedField {
    UnixStartTime,
    TimeZone,
}

/// A recognised header key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Key {
    Text(TextField),
    Count(CountField),
    Signed(SignedField),
    Note,
    Queue,
    Partition,
}

/// Where a continuation line goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    Text(TextField),
    Note,
    Queue,
    Partition,
}

/// Maps a key, normalised to lower-case alphanumerics, to a header field.
fn lookup_key(normalised: &str) -> Option<Key> {
    use CountField as C;
    use SignedField as S;
    use TextField as T;
    Some(match normalised {
        "version" => Key::Text(T::Version),
        "computer" => Key::Text(T::Computer),
        "installation" => Key::Text(T::Installation),
        "acknowledge" | "acknowledgement" | "acknowledgment" => Key::Text(T::Acknowledge),
        "information" => Key::Text(T::Information),
        "conversion" => Key::Text(T::Conversion),
        "preemption" => Key::Text(T::Preemption),
        "timezonestring" => Key::Text(T::TimeZoneString),
        "starttime" => Key::Text(T::StartTime),
        "endtime" => Key::Text(T::EndTime),
        "allowoveruse" => Key::Text(T::AllowOveruse),
        "maxjobs" => Key::Count(C::Jobs),
        "maxrecords" => Key::Count(C::Records),
        "maxnodes" => Key::Count(C::Nodes),
        "maxprocs" => Key::Count(C::Procs),
        "maxruntime" => Key::Count(C::Runtime),
        "maxmemory" => Key::Count(C::Memory),
        "maxqueues" => Key::Count(C::Queues),
        "maxpartitions" => Key::Count(C::Partitions),
        "unixstarttime" => Key::Signed(S::UnixStartTime),
        "timezone" => Key::Signed(S::TimeZone),
        "note" | "notes" => Key::Note,
        "queue" | "queues" => Key::Queue,
        "partition" | "partitions" => Key::Partition,
        _ => return None,
    })
}

/// Splits `Key: value` when the text before the first `:` looks like a key (a short run of
/// letters, digits, spaces, `_` or `-`, starting with a letter). Returns the normalised key
/// (lower-case alphanumerics only) and the trimmed value.
fn split_key(text: &str) -> Option<(String, &str)> {
    let colon = text.find(':')?;
    let key = text.get(..colon)?.trim();
    let value = text.get(colon + 1..)?.trim();
    if key.is_empty() || key.len() > 40 {
        return None;
    }
    if !key.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return None;
    }
    if !key
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == ' ' || c == '\t' || c == '_' || c == '-')
    {
        return None;
    }
    let normalised: String = key
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect();
    Some((normalised, value))
}

/// The leading integer of a value, ignoring free text after it (`"338 (batch)"` → 338,
/// `"3600.5 s"` → 3600). `None` when the value does not start with a number or overflows.
pub fn leading_int(value: &str) -> Option<i64> {
    let s = value.trim_start();
    let (negative, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, s.get(1..)?),
        Some(b'+') => (false, s.get(1..)?),
        _ => (false, s),
    };
    let mut n: i64 = 0;
    let mut any = false;
    for b in digits.bytes() {
        if !b.is_ascii_digit() {
            break;
        }
        any = true;
        n = n.checked_mul(10)?.checked_add(i64::from(b - b'0'))?;
    }
    if !any {
        return None;
    }
    Some(if negative { -n } else { n })
}

/// The leading non-negative integer of a value (see [`leading_int`]).
pub fn leading_count(value: &str) -> Option<u64> {
    leading_int(value).and_then(|n| u64::try_from(n).ok())
}

/// Appends `more` to a multi-line value, separated by `\n` (no separator when empty).
fn append_text(existing: &mut String, more: &str) {
    if !existing.is_empty() && !more.is_empty() {
        existing.push('\n');
    }
    existing.push_str(more);
}

/// Builds a header line by line (the streaming reader feeds it as it goes).
#[derive(Clone, Debug, Default)]
pub struct HeaderBuilder {
    header: SwfHeader,
    current: Option<Target>,
}

impl HeaderBuilder {
    /// An empty builder.
    pub fn new() -> HeaderBuilder {
        HeaderBuilder::default()
    }

    /// Whether any header line was pushed.
    pub fn is_empty(&self) -> bool {
        self.header.lines.is_empty()
    }

    /// Adds one header line, given without its leading `;` (and without the line ending).
    /// Never fails: unreadable lines are only kept verbatim.
    pub fn push_line(&mut self, line: &str) {
        self.header.lines.push(line.to_string());
        self.interpret(line);
    }

    /// The header built so far.
    pub fn finish(self) -> SwfHeader {
        self.header
    }

    fn interpret(&mut self, line: &str) {
        let text = line.trim();
        if text.is_empty() {
            self.current = None;
            return;
        }
        let indented = line
            .chars()
            .take_while(|c| c.is_whitespace())
            .map(|c| if c == '\t' { 2 } else { 1 })
            .sum::<usize>()
            >= 2;
        match split_key(text) {
            Some((key, value)) => match lookup_key(&key) {
                Some(k) => self.set(k, value),
                None => {
                    let looks_like_url = matches!(key.as_str(), "http" | "https" | "ftp");
                    if self.current.is_some() && (indented || looks_like_url) {
                        self.continue_with(text);
                    } else {
                        // An unknown field (e.g. `Copyright:`): its continuation lines are
                        // not attached to the previous field.
                        self.current = None;
                    }
                }
            },
            None => self.continue_with(text),
        }
    }

    fn text_field(&mut self, f: TextField) -> &mut Option<String> {
        let h = &mut self.header;
        match f {
            TextField::Version => &mut h.version,
            TextField::Computer => &mut h.computer,
            TextField::Installation => &mut h.installation,
            TextField::Acknowledge => &mut h.acknowledge,
            TextField::Information => &mut h.information,
            TextField::Conversion => &mut h.conversion,
            TextField::Preemption => &mut h.preemption,
            TextField::TimeZoneString => &mut h.time_zone_string,
            TextField::StartTime => &mut h.start_time,
            TextField::EndTime => &mut h.end_time,
            TextField::AllowOveruse => &mut h.allow_overuse,
        }
    }

    fn set(&mut self, key: Key, value: &str) {
        let h = &mut self.header;
        match key {
            Key::Text(f) => {
                match self.text_field(f) {
                    Some(existing) => append_text(existing, value),
                    slot @ None => *slot = Some(value.to_string()),
                }
                self.current = Some(Target::Text(f));
            }
            Key::Count(f) => {
                let slot = match f {
                    CountField::Jobs => &mut h.max_jobs,
                    CountField::Records => &mut h.max_records,
                    CountField::Nodes => &mut h.max_nodes,
                    CountField::Procs => &mut h.max_procs,
                    CountField::Runtime => &mut h.max_runtime,
                    CountField::Memory => &mut h.max_memory,
                    CountField::Queues => &mut h.max_queues,
                    CountField::Partitions => &mut h.max_partitions,
                };
                if let Some(n) = leading_count(value) {
                    *slot = Some(n);
                }
                self.current = None;
            }
            Key::Signed(f) => {
                let slot = match f {
                    SignedField::UnixStartTime => &mut h.unix_start_time,
                    SignedField::TimeZone => &mut h.time_zone,
                };
                if let Some(n) = leading_int(value) {
                    *slot = Some(n);
                }
                self.current = None;
            }
            Key::Note => {
                h.notes.push(value.to_string());
                self.current = Some(Target::Note);
            }
            Key::Queue => {
                h.queues.push(value.to_string());
                self.current = Some(Target::Queue);
            }
            Key::Partition => {
                h.partitions.push(value.to_string());
                self.current = Some(Target::Partition);
            }
        }
    }

    fn continue_with(&mut self, text: &str) {
        let Some(target) = self.current else {
            return;
        };
        let h = &mut self.header;
        let list = match target {
            Target::Text(f) => {
                let slot = self.text_field(f);
                append_text(slot.get_or_insert_with(String::new), text);
                return;
            }
            Target::Note => &mut h.notes,
            Target::Queue => &mut h.queues,
            Target::Partition => &mut h.partitions,
        };
        match list.last_mut() {
            Some(last) => append_text(last, text),
            None => list.push(text.to_string()),
        }
    }
}

impl SwfHeader {
    /// Parses header lines given without their leading `;`. Never fails.
    pub fn from_lines<I, S>(lines: I) -> SwfHeader
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut b = HeaderBuilder::new();
        for l in lines {
            b.push_line(l.as_ref());
        }
        b.finish()
    }

    /// Canonical header lines (without the leading `;`) rendering the parsed fields, in the
    /// order of the SWF definition. Multi-line values become indented continuation lines, so
    /// [`SwfHeader::from_lines`] reads the same fields back. The writer uses this when `lines`
    /// is empty (headers built in code).
    pub fn to_lines(&self) -> Vec<String> {
        fn text(out: &mut Vec<String>, key: &str, v: &str) {
            let mut parts = v.split('\n');
            let first = parts.next().unwrap_or("");
            out.push(format!(" {key}: {first}"));
            for p in parts {
                out.push(format!("        {p}"));
            }
        }
        let mut out = Vec::new();
        let texts_1 = [
            ("Version", &self.version),
            ("Computer", &self.computer),
            ("Installation", &self.installation),
            ("Acknowledge", &self.acknowledge),
            ("Information", &self.information),
            ("Conversion", &self.conversion),
        ];
        for (k, v) in texts_1 {
            if let Some(v) = v {
                text(&mut out, k, v);
            }
        }
        for (k, v) in [("MaxJobs", self.max_jobs), ("MaxRecords", self.max_records)] {
            if let Some(v) = v {
                out.push(format!(" {k}: {v}"));
            }
        }
        if let Some(v) = &self.preemption {
            text(&mut out, "Preemption", v);
        }
        for (k, v) in [
            ("UnixStartTime", self.unix_start_time),
            ("TimeZone", self.time_zone),
        ] {
            if let Some(v) = v {
                out.push(format!(" {k}: {v}"));
            }
        }
        for (k, v) in [
            ("TimeZoneString", &self.time_zone_string),
            ("StartTime", &self.start_time),
            ("EndTime", &self.end_time),
        ] {
            if let Some(v) = v {
                text(&mut out, k, v);
            }
        }
        for (k, v) in [
            ("MaxNodes", self.max_nodes),
            ("MaxProcs", self.max_procs),
            ("MaxRuntime", self.max_runtime),
            ("MaxMemory", self.max_memory),
        ] {
            if let Some(v) = v {
                out.push(format!(" {k}: {v}"));
            }
        }
        if let Some(v) = &self.allow_overuse {
            text(&mut out, "AllowOveruse", v);
        }
        if let Some(v) = self.max_queues {
            out.push(format!(" MaxQueues: {v}"));
        }
        for q in &self.queues {
            text(&mut out, "Queue", q);
        }
        if let Some(v) = self.max_partitions {
            out.push(format!(" MaxPartitions: {v}"));
        }
        for p in &self.partitions {
            text(&mut out, "Partition", p);
        }
        for n in &self.notes {
            text(&mut out, "Note", n);
        }
        out
    }
}
