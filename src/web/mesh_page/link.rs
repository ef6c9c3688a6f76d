//! Mesh share links: `#m=` followed by the base64url of the JSON of a [`MeshShare`] (the
//! first run's [`MeshExperiment`], the allocators compared and the policy chosen), `.` and its
//! checksum, as for the flat mode ([`crate::web::share`]); opening one and publishing the link
//! of the last runs.

use super::*;

/// Version of the mesh share-link envelope this build writes and reads.
pub const MESH_SHARE_VERSION: u32 = 1;
/// Prefix of a mesh share link's fragment (after `#`).
pub const MESH_FRAGMENT_PREFIX: &str = "m=";
/// Longest fragment accepted.
pub const MAX_MESH_FRAGMENT: usize = 16_000;

/// What a mesh share link holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeshShare {
    /// Envelope version ([`MESH_SHARE_VERSION`]).
    pub v: u32,
    /// The first run's experiment (every other run differs only in allocator and policy).
    pub experiment: MeshExperiment,
    /// The allocators compared, in order.
    pub allocators: Vec<MeshAllocatorKind>,
    /// The policy of the contiguous allocators (`window-240`), when it is not the first run's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<String>,
}

#[derive(Deserialize)]
pub(super) struct Envelope {
    #[serde(default)]
    v: Option<u64>,
}

impl MeshShare {
    /// The fragment (without `#`): `m=<base64url JSON>.<checksum>`.
    pub fn to_fragment(&self) -> String {
        let json = serde_json::to_string(self).unwrap_or_default();
        pack_fragment(MESH_FRAGMENT_PREFIX, &json)
    }

    /// Reads a fragment (with or without `#`): `Ok(None)` when it is not a mesh link; `Err`
    /// says why a link cannot be used (damaged, other version, invalid experiment — naming the
    /// key).
    pub fn from_fragment(fragment: &str) -> Result<Option<MeshShare>, String> {
        let Some((text, checksum_ok)) =
            unpack_fragment(fragment, MESH_FRAGMENT_PREFIX, MAX_MESH_FRAGMENT)?
        else {
            return Ok(None);
        };
        let env: Envelope = serde_json::from_str(&text)
            .map_err(|e| format!("the link is damaged (its content is not valid JSON: {e})"))?;
        match env.v {
            Some(v) if v == u64::from(MESH_SHARE_VERSION) => {}
            Some(v) => {
                return Err(format!(
                    "the link was made by a version of schedlab that writes mesh share-link \
                     format {v}; this page reads format {MESH_SHARE_VERSION} only."
                ))
            }
            None => return Err("the link is damaged (it has no format version `v`)".into()),
        }
        if !checksum_ok {
            return Err(
                "the link is damaged (its checksum does not match: was it cut or edited?)".into(),
            );
        }
        let de = &mut serde_json::Deserializer::from_str(&text);
        let share: MeshShare = serde_path_to_error::deserialize(de)
            .map_err(|e| format!("{}: {}", field_name(&e.path().to_string()), e.inner()))?;
        share
            .experiment
            .validate()
            .map_err(|e| field_message(&prefixed(&e)))?;
        if share.allocators.is_empty() {
            return Err("Allocators: the link names no allocator".into());
        }
        if let Some(p) = &share.policy {
            MeshPolicyKind::parse(p).map_err(|e| format!("Policy: {e}"))?;
        }
        Ok(Some(share))
    }

    /// The experiments of the runs: one per allocator, the contiguous ones under the shared
    /// policy, the non-contiguous ones FCFS. The first error names its field.
    pub fn experiments(&self) -> Result<Vec<MeshExperiment>, String> {
        let policy = match &self.policy {
            Some(p) => MeshPolicyKind::parse(p).map_err(|e| format!("Policy: {e}"))?,
            None => self.experiment.policy,
        };
        experiments_for(&self.experiment, &self.allocators, policy).map_err(|e| e.message)
    }
}

pub(super) fn prefixed(e: &ConfigError) -> ConfigError {
    ConfigError {
        key: format!("experiment.{}", e.key),
        message: e.message.clone(),
    }
}

pub(super) fn publish_link(app: &App) {
    let share = {
        let st = app.state.borrow();
        let Some(first) = st.runs.first() else {
            return;
        };
        let allocators: Vec<MeshAllocatorKind> = st.runs.iter().map(|r| r.exp.allocator).collect();
        let policy = st
            .runs
            .iter()
            .find(|r| r.exp.allocator.is_contiguous())
            .map(|r| r.exp.policy)
            .filter(|p| *p != first.exp.policy)
            .map(|p| p.label().to_ascii_lowercase());
        MeshShare {
            v: MESH_SHARE_VERSION,
            experiment: first.exp.clone(),
            allocators,
            policy,
        }
    };
    let fragment = share.to_fragment();
    let Some(window) = web_sys::window() else {
        return;
    };
    let href = window.location().href().unwrap_or_default();
    let base = href.split('#').next().unwrap_or_default();
    app.ui.share_link.set_href(&format!("{base}#{fragment}"));
    app.ui.share.set_hidden(false);
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&format!("#{fragment}")));
    }
    app.state.borrow_mut().fragment = fragment;
}

/// Opens a `#m=` link: restores the form and runs it once the worker is ready.
pub(super) fn open_fragment(app: &Rc<App>) {
    let hash = web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default();
    match MeshShare::from_fragment(&hash) {
        Ok(None) => {}
        Ok(Some(share)) => {
            let policy = share
                .policy
                .as_deref()
                .and_then(|p| MeshPolicyKind::parse(p).ok());
            fill_form(app, &share.experiment, &share.allocators, policy);
            if let WorkloadSpec::Swf(s) = &share.experiment.workload {
                let name = s.name.clone().unwrap_or_default();
                app.state.borrow_mut().link_trace = Some((name.clone(), s.sha256.clone()));
                app.ui.errors.show(&format!(
                    "This link simulates the trace {name:?}: upload it (above); it runs as \
                         soon as the file is read (a different file is refused)."
                ));
                return;
            }
            let ready = app.state.borrow().ready;
            if ready {
                on_run(app, BatchKind::Compare);
            } else {
                app.state.borrow_mut().auto_run = true;
            }
        }
        Err(m) => {
            let stop = if m.ends_with('.') { "" } else { "." };
            app.ui.errors.show(&format!(
                "This share link cannot be opened: {m}{stop} The form is unchanged."
            ))
        }
    }
}
