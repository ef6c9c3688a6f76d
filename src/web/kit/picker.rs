//! Pickers generated from the registry ([`crate::registry`]): one checkbox or `<option>` per
//! entry of a [`Family`], so that a policy or allocator named once in its table appears in
//! every page without markup of its own. Each checkbox has the id and `data-testid`
//! `{prefix}-{name}` and the value `name`; the description becomes the tooltip (and, where
//! asked, the small line under the label).

use crate::base::{Entry, Family};

use super::super::dom::escape;

/// One choice of a picker.
pub struct Choice<'a> {
    /// The name in experiments and share links (`mpl`), the box's value.
    pub name: &'a str,
    /// What the page shows (`MPL`).
    pub label: &'a str,
    /// A tooltip, if not empty.
    pub description: &'a str,
}

impl Choice<'static> {
    /// The choice of a registry entry: its name, label and description.
    pub fn of(e: &'static Entry) -> Choice<'static> {
        Choice {
            name: e.name,
            label: e.label,
            description: e.description,
        }
    }
}

/// The markup of the checkboxes of `choices`, in order; `checked` ticks them all, `notes`
/// shows each description under its label.
pub fn checkboxes_html(prefix: &str, choices: &[Choice<'_>], checked: bool, notes: bool) -> String {
    let mut html = String::new();
    for c in choices {
        let title = if c.description.is_empty() || notes {
            String::new()
        } else {
            format!(r#" title="{}""#, escape(c.description))
        };
        let note = if notes && !c.description.is_empty() {
            format!("<small>{}</small>", escape(c.description))
        } else {
            String::new()
        };
        html.push_str(&format!(
            r#"<label class="choice"{title}><input type="checkbox" id="{prefix}-{name}" data-testid="{prefix}-{name}" value="{name}"{on}><span>{label}{note}</span></label>"#,
            name = escape(c.name),
            label = escape(c.label),
            on = if checked { " checked" } else { "" },
        ));
    }
    html
}

/// The `<option>`s of a `<select>` over a family: value = name, text = label (a parameter
/// shown by its symbol, `Window-K`), the description as tooltip.
pub fn options_html(f: &Family) -> String {
    let mut html = String::new();
    for e in f.entries {
        html.push_str(&format!(
            r#"<option value="{}" title="{}">{}</option>"#,
            escape(e.name),
            escape(e.description),
            escape(&f.label_pattern(e)),
        ));
    }
    html
}

/// Fills every element of the page marked `data-registry="<family key>"` from that family: a
/// `<select>` gets one option per entry, any other element one ticked checkbox per entry (ids
/// `{key}-{name}`, descriptions shown). Called once at start, before the modes look their
/// elements up; an unknown key is left empty (and the mode then reports the missing element).
pub fn fill_registry_pickers(doc: &web_sys::Document) {
    use wasm_bindgen::JsCast;
    let Ok(nodes) = doc.query_selector_all("[data-registry]") else {
        return;
    };
    for i in 0..nodes.length() {
        let Some(el) = nodes
            .item(i)
            .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
        else {
            continue;
        };
        let Some(f) = el
            .get_attribute("data-registry")
            .and_then(|k| crate::registry::family(&k))
        else {
            continue;
        };
        if el.tag_name().eq_ignore_ascii_case("select") {
            el.set_inner_html(&options_html(f));
        } else {
            let choices: Vec<Choice<'static>> = f.entries.iter().map(Choice::of).collect();
            el.set_inner_html(&checkboxes_html(f.key, &choices, true, true));
        }
    }
}
