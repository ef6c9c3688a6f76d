//! The student's answers in the browser: one `localStorage` entry per exercise
//! ([`crate::exercise::answers::storage_key`]), and the answers file "Export my answers"
//! downloads (every exercise answered in this browser). A missing or blocked storage (private
//! windows may refuse it) only means answers are not kept; an unreadable entry is ignored.

use super::*;
use crate::exercise::answers::{storage_key, AnswersFile, STORAGE_PREFIX};

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

/// The stored answers of exercise `id`, if any (and readable).
pub(super) fn load(id: &str) -> Option<ExerciseAnswers> {
    let text = storage()?.get_item(&storage_key(id)).ok().flatten()?;
    ExerciseAnswers::from_json(&text).filter(|a| a.id == id)
}

/// Stores `answers`; `false` when the browser refused.
pub(super) fn save(answers: &ExerciseAnswers) -> bool {
    storage().is_some_and(|s| {
        s.set_item(&storage_key(&answers.id), &answers.to_json())
            .is_ok()
    })
}

/// Every exercise's stored answers, by id.
fn all() -> Vec<ExerciseAnswers> {
    let Some(s) = storage() else {
        return Vec::new();
    };
    let n = s.length().unwrap_or(0);
    (0..n)
        .filter_map(|i| s.key(i).ok().flatten())
        .filter_map(|k| k.strip_prefix(STORAGE_PREFIX).map(str::to_string))
        .filter_map(|id| load(&id))
        .collect()
}

/// Points the export link at the answers file (clicked: the browser downloads it).
pub(super) fn prepare_export(app: &App) {
    let exercises = all();
    let answered: usize = exercises.iter().map(|e| e.answers.len()).sum();
    let file = AnswersFile::new(exercises, &now_iso());
    let n = file.exercises.len();
    let url = {
        let mut st = app.state.borrow_mut();
        st.downloads.revoke_all();
        st.downloads.url(&file.to_json(), "application/json")
    };
    if let Some(url) = url {
        app.ui.export.set_href(&url);
    }
    app.ui.export_note.set_text_content(Some(&format!(
        "{answered} answer{} to {n} exercise{} — send the file to your teacher.",
        if answered == 1 { "" } else { "s" },
        if n == 1 { "" } else { "s" }
    )));
}
