//! Panel pieces shared by the tabs ([`super::page`], [`super::mesh_page`],
//! [`super::grid_page`], [`super::moldable_page`], [`super::exercise_page`]):
//!
//! * [`by_id`] — the one lookup of the page's markup (an error naming the id, never a panic).
//! * [`controls`] — the Run form and Cancel button.
//! * [`error_box`] — a panel's error box, and the inline mark of the field an error names.
//! * [`export`] — chart export links (canvas PNG, shown/hidden download links).
//! * [`upload`] — reading an uploaded trace into memory (with the size limit).
//! * [`picker`] — checkboxes from a plain list of (name, label, description).
//! * [`downloads`] — the object URLs of a panel's download links, revoked when replaced.
//! * [`share_link`] — publishing a run's share link (link, panel, address bar).
//! * [`tab`] — the controller every tab instantiates: its worker, batches of runs, progress,
//!   Cancel, errors.
//! * [`playback`] — Back / Play / Step and the time slider over a run's instants (the mesh
//!   view and the flat replay).

pub mod controls;
pub mod downloads;
pub mod error_box;
pub mod export;
pub mod picker;
pub mod playback;
pub mod share_link;
pub mod tab;
pub mod upload;

use wasm_bindgen::JsCast;
use web_sys::Document;

/// The element `#id` of `doc` as a `T`; the error names the id (missing, or another kind of
/// element).
pub fn by_id<T: JsCast>(doc: &Document, id: &str) -> Result<T, String> {
    doc.get_element_by_id(id)
        .ok_or_else(|| format!("index.html has no element #{id}"))?
        .dyn_into::<T>()
        .map_err(|_| format!("#{id} is not the expected kind of element"))
}
