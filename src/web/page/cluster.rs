//! The flat page's bridge to cluster sweeps (`docs/sweeps.md`): the sweep in
//! the form (its policies × the values of its axis: load factor, seed or jobs) downloads as a
//! sweep file for `schedlab sweep plan` (Slurm job arrays, GNU parallel), and the
//! `merged.json` of `schedlab sweep merge` uploads back into the sweep chart — metric vs. the
//! merge's numeric axis, one line per policy for a flat sweep (as if it had run here), per
//! allocator or strategy for a mesh or moldable sweep ([`crate::sweep::plot::page_plot`]).

use super::*;
use crate::form::sweep::sweep_file;
use crate::sweep::plot::{page_plot, PagePlot};
use crate::web::kit::upload::{read_upload, UploadError};

/// Points the "Download sweep file" link at the form's sweep (called on click, before the
/// browser follows the link); a form error is shown and the download cancelled.
pub(super) fn prepare_sweep_file(app: &App, ev: &Event) {
    let made = read_form(app).and_then(|b| {
        let state = flat::share_state(&b.runs, b.sweep)
            .ok_or_else(|| FieldError::new("policy-fcfs", "Choose at least one policy."))?;
        sweep_file(&state)
    });
    match made {
        Ok(text) => {
            hide_error();
            let url = app
                .state
                .borrow_mut()
                .downloads
                .url(&text, "application/json");
            match url {
                Some(u) => app.ui.sweep_file.set_href(&u),
                None => ev.prevent_default(),
            }
        }
        Err(e) => {
            ev.prevent_default();
            if let Some(b) = error_box() {
                b.show_field(&e);
            }
        }
    }
}

/// Reads an uploaded `merged.json` and plots it in the sweep chart; a file that cannot be
/// plotted is reported and the chart left as it was.
pub(super) fn plot_merged(app: &Rc<App>) {
    let Some(file) = app.ui.sweep_merged.files().and_then(|f| f.get(0)) else {
        return;
    };
    app.ui.sweep_merged.set_value("");
    let name = file.name();
    let policy = read_fields(&app.ui)
        .policies
        .first()
        .copied()
        .unwrap_or(PolicyKind::Easy);
    let a = Rc::clone(app);
    read_upload(file, move |bytes| {
        let rows = match bytes {
            Ok(b) if b.length() as u64 <= crate::limits::MAX_DOCUMENT_BYTES => {
                String::from_utf8(b.to_vec())
                    .map_err(|_| "it is not text".to_string())
                    .and_then(|t| page_plot(&t, policy).map_err(|e| e.to_string()))
            }
            Ok(_) => Err(format!(
                "it is larger than {} bytes",
                crate::limits::MAX_DOCUMENT_BYTES
            )),
            Err(UploadError::TooLarge(n)) => Err(format!("it is too large ({n} bytes)")),
            Err(UploadError::Unreadable(m)) => Err(m),
        };
        match rows {
            Ok(plot) => {
                hide_error();
                let n = match plot {
                    PagePlot::Flat { axis, rows } => {
                        let n = rows.len();
                        let mut st = a.state.borrow_mut();
                        st.sweep_rows = rows;
                        st.sweep_x = axis;
                        st.sweep_lines = None;
                        drop(st);
                        fill_sweep_metrics(&a.ui, None, "mean_wait");
                        n
                    }
                    PagePlot::Lines(plot) => {
                        let n = plot.lines.iter().map(|l| l.points.len()).sum();
                        let preferred = if plot.mode == "moldable" {
                            "change.overall_pct"
                        } else {
                            "mean_wait"
                        };
                        fill_sweep_metrics(&a.ui, Some(&plot.metrics()), preferred);
                        let mut st = a.state.borrow_mut();
                        st.sweep_x = plot.axis.clone();
                        st.sweep_lines = Some(plot);
                        n
                    }
                };
                let ui = &a.ui;
                ui.charts.set_hidden(false);
                ui.sweep_chart.set_hidden(false);
                ui.time_charts.set_hidden(true);
                ui.gantt_section.set_hidden(true);
                a.replay.hide();
                draw_sweep_chart(&a);
                ui.progress_label.set_text_content(Some(&format!(
                    "Plotted {n} sweep points from {name} (merged on a cluster)."
                )));
            }
            Err(m) => show_error(&format!(
                "{name} cannot be plotted: {m}. The chart is unchanged."
            )),
        }
    });
}
