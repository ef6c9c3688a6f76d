//! A picker: one checkbox per choice from a plain list of (name, label, description), so that
//! a registry of policies or allocators can feed it. Each box has the id and `data-testid`
//! `{prefix}-{name}` and the value `name`; a description becomes the tooltip.

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

/// The markup of the checkboxes of `choices`, in order.
pub fn checkboxes_html(prefix: &str, choices: &[Choice<'_>]) -> String {
    let mut html = String::new();
    for c in choices {
        let title = if c.description.is_empty() {
            String::new()
        } else {
            format!(r#" title="{}""#, escape(c.description))
        };
        html.push_str(&format!(
            r#"<label class="choice"{title}><input type="checkbox" id="{prefix}-{name}" data-testid="{prefix}-{name}" value="{name}"><span>{label}</span></label>"#,
            name = escape(c.name),
            label = escape(c.label),
        ));
    }
    html
}
