//! The glossary of papers (src/base/papers.rs) agrees with docs/papers.md and with the About
//! panel of index.html: every paper appears in both with its key, its authors and its title,
//! exactly as `PAPERS` has them, and neither names a key that `PAPERS` lacks. Native only.
#![cfg(not(target_arch = "wasm32"))]

use schedlab::base::papers::PAPERS;

const PAPERS_MD: &str = include_str!("../../docs/papers.md");
const INDEX_HTML: &str = include_str!("../../index.html");

/// The paper sections of docs/papers.md: (key of its `Key:` line, the section's text). A
/// section is what follows a `## ` heading up to the next one.
fn md_paper_sections() -> Vec<(String, String)> {
    let mut sections = Vec::new();
    for section in PAPERS_MD.split("\n## ").skip(1) {
        let keys: Vec<&str> = section
            .lines()
            .filter_map(|line| line.trim().strip_prefix("- **Key:** `"))
            .filter_map(|rest| rest.split('`').next())
            .collect();
        assert!(
            keys.len() <= 1,
            "docs/papers.md: one section names several keys: {keys:?}"
        );
        if let Some(key) = keys.first() {
            sections.push((key.to_string(), section.to_string()));
        }
    }
    sections
}

#[test]
fn docs_papers_md_lists_every_paper_with_key_authors_and_title() {
    let sections = md_paper_sections();
    for paper in PAPERS.iter() {
        let found: Vec<&String> = sections
            .iter()
            .filter(|(key, _)| key == paper.key)
            .map(|(_, text)| text)
            .collect();
        assert_eq!(
            found.len(),
            1,
            "docs/papers.md: paper `{}` must have exactly one section with a Key line",
            paper.key
        );
        let text = found[0];
        let heading = text.lines().next().unwrap_or("");
        assert!(
            heading.starts_with(paper.key),
            "docs/papers.md: the section of `{}` must be headed by its key, found `## {heading}`",
            paper.key
        );
        let authors = format!("- **Authors:** {}", paper.authors);
        assert!(
            text.lines().any(|line| line.trim() == authors),
            "docs/papers.md: section `{}` lacks the line `{authors}`",
            paper.key
        );
        let title = format!("- **Title:** *{}*", paper.title);
        assert!(
            text.lines().any(|line| line.trim() == title),
            "docs/papers.md: section `{}` lacks the line `{title}`",
            paper.key
        );
        let reproduce = format!("schedlab reproduce {}", paper.key);
        assert!(
            text.contains(&reproduce),
            "docs/papers.md: section `{}` lacks `{reproduce}`",
            paper.key
        );
    }
}

#[test]
fn docs_papers_md_has_no_key_that_papers_lacks() {
    for (key, _) in md_paper_sections() {
        assert!(
            PAPERS.iter().any(|p| p.key == key),
            "docs/papers.md names key `{key}`, which src/base/papers.rs does not define"
        );
    }
    // Every `## ` heading is a paper's ("KEY — authors") or the one for the other sources.
    for heading in PAPERS_MD
        .lines()
        .filter_map(|line| line.strip_prefix("## "))
    {
        let key = heading.split(" — ").next().unwrap_or(heading);
        assert!(
            heading == "Other sources" || PAPERS.iter().any(|p| p.key == key),
            "docs/papers.md: heading `## {heading}` is neither a paper of src/base/papers.rs \
             (`KEY — authors`) nor `Other sources`"
        );
    }
}

/// The items of the About panel's "Based on" list.
fn about_items() -> Vec<&'static str> {
    let start = INDEX_HTML
        .find("id=\"about\"")
        .expect("index.html has no About panel");
    let about = &INDEX_HTML[start..];
    let list = about
        .find("<ol class=\"refs\">")
        .map(|i| &about[i..])
        .expect("the About panel has no <ol class=\"refs\"> list");
    let list = &list[..list.find("</ol>").expect("unclosed refs list")];
    list.split("<li>")
        .skip(1)
        .map(|item| item.split("</li>").next().unwrap_or(item))
        .collect()
}

#[test]
fn about_panel_lists_every_paper_with_key_authors_and_title() {
    let items = about_items();
    assert_eq!(
        items.len(),
        PAPERS.len(),
        "the About panel's Based on list must have one item per paper"
    );
    for (paper, item) in PAPERS.iter().zip(&items) {
        let key = format!("<code>{}</code>", paper.key);
        assert!(
            item.starts_with(&key),
            "About panel: the item of `{}` must start with `{key}` (in the order of PAPERS): {item}",
            paper.key
        );
        assert!(
            item.contains(paper.authors),
            "About panel: the item of `{}` lacks the authors `{}`",
            paper.key,
            paper.authors
        );
        let title = format!("<cite>{}</cite>", paper.title);
        assert!(
            item.contains(&title),
            "About panel: the item of `{}` lacks `{title}`",
            paper.key
        );
    }
    assert!(
        INDEX_HTML.contains("docs/papers.md") && INDEX_HTML.contains("schedlab reproduce --list"),
        "the About panel must point to docs/papers.md and `schedlab reproduce --list`"
    );
}
