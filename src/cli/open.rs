//! `schedlab open LINK|FILE` and experiment envelopes as CLI input: a share link of any kind
//! (`#e=`, or the old `#x=`/`#m=`/`#g=`) or an envelope file becomes the mode's experiment file
//! and the command that runs it, so that a link reproduces natively. `run`, `mesh` and `grid`
//! read envelope files of their mode through [`experiment_text`]. Implements no paper section
//! (the experiment envelope, [`crate::modes::envelope`]).

use std::path::{Path, PathBuf};

use clap::Args;

use super::streams::{emit_line, read_document, warn};
use crate::error::Error;
use crate::limits::Limits;
use crate::modes::envelope::Envelope;
use crate::modes::flat::spec::ConfigError;
use crate::modes::Mode;

/// `schedlab open`.
#[derive(Args, Debug)]
pub struct OpenArgs {
    /// A share link (a URL or just its `#e=…`, `#x=…`, `#m=…` or `#g=…` fragment) or an
    /// experiment envelope file (JSON with `"mode"`).
    pub link: String,
    /// Also write the mode's experiment file (what `schedlab run`, `schedlab mesh`
    /// or `schedlab grid` reads) to this path.
    #[arg(long)]
    pub experiment_out: Option<PathBuf>,
}

fn config_err(key: &str, message: String) -> Error {
    Error::Config(ConfigError {
        key: key.into(),
        message,
    })
}

/// The envelope of a link or file.
pub(crate) fn envelope_of(arg: &str) -> Result<Envelope, Error> {
    let path = Path::new(arg);
    if !arg.contains('#') && path.is_file() {
        let text = read_document(path)?;
        return Envelope::from_document(&text)
            .map_err(|m| config_err("", format!("{arg}: {m}")))?
            .ok_or_else(|| match serde_json::from_str::<serde_json::Value>(&text) {
                Err(e) => config_err("", format!("{arg}: not valid JSON: {e}")),
                Ok(_) => config_err(
                    "mode",
                    format!(
                        "{arg} is not an experiment envelope (it has no \"mode\"); run it with \
                         its mode's command instead"
                    ),
                ),
            });
    }
    let fragment = arg.rsplit_once('#').map_or(arg, |(_, f)| f);
    Envelope::from_fragment(fragment)
        .map_err(|m| config_err("link", m))?
        .ok_or_else(|| {
            config_err(
                "link",
                format!(
                    "{} is neither a share link (#e=, #x=, #m=, #g=) nor a file",
                    crate::limits::echo_quoted(arg)
                ),
            )
        })
}

/// The JSON of the mode's experiment inside an envelope (the first run's, for a comparison),
/// a mesh run's validated under `limits`.
fn mode_experiment_json(env: &Envelope, limits: &Limits) -> Result<String, Error> {
    Ok(env.experiment(limits)?.experiment_json())
}

/// The experiment text of the file at `path` for a command of `mode`: an envelope of that
/// mode gives its experiment (validated by the envelope's one path), an envelope of another
/// mode is refused naming the command to use, any other text is returned as it is (the mode's
/// own format, read by the command as before). An envelope is validated under `limits` (the
/// command's `--max-*` flags).
pub fn experiment_text(path: &Path, mode: Mode, limits: &Limits) -> Result<String, Error> {
    let text = read_document(path)?;
    let named = |m: String| config_err("", format!("{}: {m}", path.display()));
    match Envelope::from_document_with(&text, limits).map_err(named)? {
        None => Ok(text),
        Some(env) if env.mode() == mode => mode_experiment_json(&env, limits),
        Some(env) => Err(config_err(
            "mode",
            format!(
                "{} is a {} experiment: run it with `{} {}`",
                path.display(),
                env.mode(),
                env.mode().command(),
                path.display()
            ),
        )),
    }
}

/// Prints the envelope of a link or file; writes its mode's experiment file if asked.
pub fn open_command(a: &OpenArgs) -> Result<(), Error> {
    if let Some(out) = &a.experiment_out {
        // The link may be a file: writing the experiment must not replace it.
        super::output_guard::refuse_if_input(out, [Path::new(&a.link)])?;
    }
    let env = envelope_of(&a.link)?;
    let pretty = serde_json::from_str::<serde_json::Value>(&env.to_json())
        .ok()
        .and_then(|v| serde_json::to_string_pretty(&v).ok())
        .unwrap_or_default();
    emit_line(&pretty)?;
    if let Some(out) = &a.experiment_out {
        let json = mode_experiment_json(&env, &Limits::DEFAULT)?;
        super::output_guard::write_text(out, &(json + "\n"))?;
        let mut note = format!(
            "{} experiment written to {}; run it with: {} {}",
            env.mode(),
            out.display(),
            env.mode().command(),
            out.display()
        );
        if let Some(hint) = env.link().compared_hint() {
            note.push_str(&format!(" ({hint})"));
        }
        warn(&note);
    }
    // A link that would run for hours says so before anyone runs it (docs/limits.md, "Work
    // bounds"); the page holds it too.
    if let Envelope::Mesh(s) = &env {
        if let Some(e) = crate::work::estimate_mesh_batch(&s.experiment, &s.allocators, None) {
            if e.seconds > crate::limits::MAX_WORK_SECONDS {
                warn(&format!(
                    "warning: this link's runs are estimated at {} on this machine ({}); \
                     `schedlab mesh` refuses a run estimated above --max-work (default {} s) \
                     and the page does not start it by itself",
                    e.duration(),
                    e.why,
                    crate::limits::echo_number(crate::limits::MAX_WORK_SECONDS)
                ));
            }
        }
    }
    Ok(())
}
