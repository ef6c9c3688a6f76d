//! Output files that never destroy anything the command reads: [`refuse_if_input`] refuses an
//! output path that is one of the command's inputs (the same file after symlinks, `..` and hard
//! links: device and inode where both exist, canonical paths where neither does), and
//! [`OutputFile`] writes to a temporary file in the output's own folder and renames it into
//! place on [`OutputFile::commit`], so a failed write (a full disk, an error half-way) leaves
//! the previous file as it was and no partial one; the temporary is removed on every other
//! path (error, early return, panic). Renaming also replaces a symlink at the output's name
//! instead of writing through it; [`owned_dir`] refuses a symlink where schedlab keeps a
//! folder of its own (a sweep plan's `points/`, `results/`, `logs/`). Implements no paper
//! section (ARCHITECTURE.md, invariant 3: bad input never crashes — nor destroys data).

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::Error;

/// Why an output cannot be written.
#[derive(Debug)]
pub enum OutputError {
    /// The output is one of the command's inputs.
    IsInput { output: PathBuf, input: PathBuf },
    /// A folder schedlab writes into is a symlink (or not a folder).
    NotOwnedDir { path: PathBuf, found: &'static str },
    /// The file system refused: what was being done and the system's message.
    Io {
        path: PathBuf,
        action: &'static str,
        message: String,
    },
}

impl fmt::Display for OutputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OutputError::IsInput { output, input } => write!(
                f,
                "{}: refusing to write this output: it is the input {} (the same file); \
                 choose another output path",
                output.display(),
                input.display()
            ),
            OutputError::NotOwnedDir { path, found } => write!(
                f,
                "{}: refusing to write into it: it is {found}, where schedlab keeps a folder \
                 of its own (remove it, or plan into another folder)",
                path.display()
            ),
            OutputError::Io {
                path,
                action,
                message,
            } => write!(f, "{}: cannot {action}: {message}", path.display()),
        }
    }
}

impl std::error::Error for OutputError {}

impl From<OutputError> for Error {
    fn from(e: OutputError) -> Self {
        let text = e.to_string();
        let path = match &e {
            OutputError::IsInput { output, .. } => output,
            OutputError::NotOwnedDir { path, .. } | OutputError::Io { path, .. } => path,
        }
        .display()
        .to_string();
        let message = text
            .strip_prefix(&format!("{path}: "))
            .unwrap_or(&text)
            .to_string();
        Error::Io { path, message }
    }
}

fn io(path: &Path, action: &'static str, e: &std::io::Error) -> OutputError {
    OutputError::Io {
        path: path.to_path_buf(),
        action,
        message: e.to_string(),
    }
}

/// The identity of an existing file (device and inode on Unix; its canonical path
/// elsewhere), following symlinks; `None` when it does not exist.
#[cfg(unix)]
fn identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path).ok()?;
    Some((m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn identity(path: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(path).ok()
}

/// The canonical form of a path that may not exist yet: its folder canonicalised (symlinks
/// and `..` resolved) joined with its file name; the path as given when even that fails.
fn canonical(path: &Path) -> PathBuf {
    if let Ok(p) = std::fs::canonicalize(path) {
        return p;
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    match (std::fs::canonicalize(parent), path.file_name()) {
        (Ok(dir), Some(name)) => dir.join(name),
        _ => path.to_path_buf(),
    }
}

/// Refuses `output` when it is any of `inputs`: the same file (device + inode, so symlinks,
/// `..` and hard links are seen through) where both exist, the same canonical path where
/// neither does (one existing and the other not are two files).
pub fn refuse_if_input<'a>(
    output: &Path,
    inputs: impl IntoIterator<Item = &'a Path>,
) -> Result<(), OutputError> {
    let out_id = identity(output);
    let mut out_path = None;
    for input in inputs {
        let same = match (&out_id, identity(input)) {
            (Some(a), Some(b)) => *a == b,
            // One exists and the other not: two different files.
            (Some(_), None) | (None, Some(_)) => false,
            (None, None) => *out_path.get_or_insert_with(|| canonical(output)) == canonical(input),
        };
        if same {
            return Err(OutputError::IsInput {
                output: output.to_path_buf(),
                input: input.to_path_buf(),
            });
        }
    }
    Ok(())
}

/// [`refuse_if_input`] for every output of a command that is given (`None`: not asked for).
pub fn refuse_outputs_that_are_inputs(
    outputs: &[Option<&Path>],
    inputs: &[&Path],
) -> Result<(), Error> {
    for out in outputs.iter().flatten() {
        refuse_if_input(out, inputs.iter().copied())?;
    }
    Ok(())
}

/// Creates the folder `path` (and its parents) and checks that it is a real folder, not a
/// symlink to one elsewhere: a folder schedlab fills with files of its own.
pub fn owned_dir(path: &Path) -> Result<(), OutputError> {
    if let Ok(m) = std::fs::symlink_metadata(path) {
        if m.file_type().is_symlink() {
            return Err(OutputError::NotOwnedDir {
                path: path.to_path_buf(),
                found: "a symlink",
            });
        }
        if !m.is_dir() {
            return Err(OutputError::NotOwnedDir {
                path: path.to_path_buf(),
                found: "not a folder",
            });
        }
        return Ok(());
    }
    std::fs::create_dir_all(path).map_err(|e| io(path, "create the folder", &e))
}

/// Makes temporary names unique among the threads of one process (`sweep run`).
static NEXT_TEMP: AtomicU64 = AtomicU64::new(0);

/// An output being written: a temporary file beside `path`, renamed onto `path` by
/// [`OutputFile::commit`] and removed when dropped uncommitted.
#[derive(Debug)]
pub struct OutputFile {
    path: PathBuf,
    temp: PathBuf,
    writer: BufWriter<File>,
    committed: bool,
}

impl OutputFile {
    /// Starts writing `path`: creates a new temporary file in its folder (never an existing
    /// file, never through a symlink).
    pub fn create(path: &Path) -> Result<OutputFile, OutputError> {
        let name = path
            .file_name()
            .ok_or_else(|| OutputError::Io {
                path: path.to_path_buf(),
                action: "write",
                message: "not a file name".into(),
            })?
            .to_string_lossy()
            .into_owned();
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        loop {
            let n = NEXT_TEMP.fetch_add(1, Ordering::Relaxed);
            let temp = dir.join(format!(".{name}.tmp{}-{n}", std::process::id()));
            match OpenOptions::new().write(true).create_new(true).open(&temp) {
                Ok(f) => {
                    return Ok(OutputFile {
                        path: path.to_path_buf(),
                        temp,
                        writer: BufWriter::new(f),
                        committed: false,
                    })
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(io(path, "write", &e)),
            }
        }
    }

    /// The writer of the temporary file.
    pub fn writer(&mut self) -> &mut BufWriter<File> {
        &mut self.writer
    }

    /// Flushes the temporary file to disk and renames it onto the output path.
    pub fn commit(mut self) -> Result<(), OutputError> {
        self.writer
            .flush()
            .map_err(|e| io(&self.path, "write", &e))?;
        self.writer
            .get_ref()
            .sync_all()
            .map_err(|e| io(&self.path, "write", &e))?;
        // A file being replaced keeps its permissions (a private 0600 report stays private).
        if let Ok(m) = std::fs::symlink_metadata(&self.path) {
            if m.is_file() {
                let _ = std::fs::set_permissions(&self.temp, m.permissions());
            }
        }
        std::fs::rename(&self.temp, &self.path).map_err(|e| io(&self.path, "write", &e))?;
        self.committed = true;
        Ok(())
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

/// Writes `path` through an [`OutputFile`]: `body` writes the text, then the file is renamed
/// into place; on any error the previous file at `path` is left as it was.
pub fn write_output(
    path: &Path,
    body: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<()>,
) -> Result<(), Error> {
    let mut out = OutputFile::create(path)?;
    body(out.writer()).map_err(|e| io(path, "write", &e))?;
    out.writer().flush().map_err(|e| io(path, "write", &e))?;
    out.commit()?;
    Ok(())
}

/// [`write_output`] of a text.
pub fn write_text(path: &Path, text: &str) -> Result<(), Error> {
    write_output(path, |w| w.write_all(text.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!(
            "schedlab-output-guard-{tag}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("temp dir");
        d
    }

    #[test]
    fn an_output_that_is_an_input_is_refused_through_links_and_dots() {
        let d = temp_dir("same");
        let input = d.join("t.swf");
        std::fs::write(&input, "; trace\n").expect("write");
        std::fs::create_dir_all(d.join("sub")).expect("sub");
        let dotted = d.join("sub").join("..").join("t.swf");
        assert!(refuse_if_input(&dotted, [input.as_path()]).is_err());
        let hard = d.join("hard.swf");
        std::fs::hard_link(&input, &hard).expect("hard link");
        assert!(refuse_if_input(&hard, [input.as_path()]).is_err());
        #[cfg(unix)]
        {
            let link = d.join("link.swf");
            std::os::unix::fs::symlink(&input, &link).expect("symlink");
            let e = refuse_if_input(&link, [input.as_path()]).unwrap_err();
            assert!(e.to_string().contains("it is the input"), "{e}");
        }
        assert!(refuse_if_input(&d.join("other.csv"), [input.as_path()]).is_ok());
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn an_uncommitted_output_leaves_the_old_file_and_no_temporary() {
        let d = temp_dir("commit");
        let path = d.join("out.csv");
        std::fs::write(&path, "old\n").expect("write");
        let r = write_output(&path, |w| {
            w.write_all(b"half")?;
            Err(std::io::Error::other("No space left on device"))
        });
        assert!(r.is_err());
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "old\n");
        let names: Vec<_> = std::fs::read_dir(&d)
            .expect("dir")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("out.csv")]);
        write_text(&path, "new\n").expect("write");
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "new\n");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_is_replaced_not_followed_and_owned_dirs_refuse_symlinks() {
        let d = temp_dir("symlink");
        let target = d.join("target.txt");
        std::fs::write(&target, "keep\n").expect("write");
        let link = d.join("link.txt");
        std::os::unix::fs::symlink(&target, &link).expect("symlink");
        write_text(&link, "new\n").expect("write");
        assert_eq!(std::fs::read_to_string(&target).expect("read"), "keep\n");
        let linked_dir = d.join("points");
        std::os::unix::fs::symlink(&d, &linked_dir).expect("symlink");
        assert!(owned_dir(&linked_dir).is_err());
        assert!(owned_dir(&d.join("results")).is_ok());
        let _ = std::fs::remove_dir_all(&d);
    }
}
