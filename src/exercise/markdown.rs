//! The Markdown of exercise texts, prompts, hints and explanations as HTML, for the page
//!. A small, safe subset — no new dependency:
//!
//! * blocks: paragraphs (separated by blank lines), headings `#`–`###` (shown as `h3`–`h5`),
//!   lists (`-`, `*`, `+` or `1.`; a more indented line continues the item), pipe tables
//!   (`| a | b |` with a `|---|:--:|` line under the header; `:` sets the alignment), fenced
//!   code blocks (```` ``` ````);
//! * inline: `` `code` ``, `**strong**`, `*emphasis*`, `_emphasis_` (at word boundaries only, so
//!   `io_side` stays as it is), `[text](https://…)` links (http and https only), `\*` for a
//!   literal character.
//!
//! Everything else is text: every `<`, `>`, `&` and `"` of the input is escaped, so an
//! exercise cannot put markup or scripts into the page.

/// `s` escaped for HTML text and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// One line of a list item: `(ordered, indent, text)`.
fn list_item(line: &str) -> Option<(bool, usize, &str)> {
    let indent = line.len() - line.trim_start().len();
    let t = line.trim_start();
    for bullet in ["- ", "* ", "+ "] {
        if let Some(rest) = t.strip_prefix(bullet) {
            return Some((false, indent, rest));
        }
    }
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 && digits <= 9 {
        if let Some(rest) = t[digits..].strip_prefix(". ") {
            return Some((true, indent, rest));
        }
    }
    None
}

/// The cells of a table line `| a | b |` (outer pipes optional; `\|` is a literal pipe).
fn cells(line: &str) -> Vec<String> {
    let t = line.trim();
    let t = t.strip_prefix('|').unwrap_or(t);
    let t = t
        .strip_suffix('|')
        .filter(|_| !t.ends_with("\\|"))
        .unwrap_or(t);
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = t.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cur.push('|');
                chars.next();
            }
            '|' => out.push(std::mem::take(&mut cur).trim().to_string()),
            c => cur.push(c),
        }
    }
    out.push(cur.trim().to_string());
    out
}

/// The alignments of a table's separator line (`|---|:--:|--:|`), or `None` if it is not one.
fn separator(line: &str) -> Option<Vec<&'static str>> {
    if !line.contains('-') {
        return None;
    }
    cells(line)
        .iter()
        .map(|c| {
            let core = c.trim_start_matches(':').trim_end_matches(':');
            if core.is_empty() || !core.bytes().all(|b| b == b'-') {
                return None;
            }
            Some(match (c.starts_with(':'), c.ends_with(':')) {
                (true, true) => "center",
                (false, true) => "right",
                (true, false) => "left",
                (false, false) => "",
            })
        })
        .collect()
}

fn is_table_line(line: &str) -> bool {
    line.trim_start().starts_with('|')
}

/// `md` as HTML (the subset of the module docs; everything else escaped).
pub fn to_html(md: &str) -> String {
    let lines: Vec<&str> = md.lines().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let t = line.trim();
        if t.is_empty() {
            i += 1;
            continue;
        }
        // Fenced code.
        if t.starts_with("```") {
            let mut code = Vec::new();
            i += 1;
            while i < lines.len() && !lines[i].trim().starts_with("```") {
                code.push(lines[i]);
                i += 1;
            }
            i += 1;
            out.push_str(&format!(
                "<pre><code>{}</code></pre>\n",
                escape(&code.join("\n"))
            ));
            continue;
        }
        // Heading.
        let hashes = t.bytes().take_while(|&b| b == b'#').count();
        if (1..=3).contains(&hashes) && t[hashes..].starts_with(' ') {
            let level = hashes + 2;
            out.push_str(&format!(
                "<h{level}>{}</h{level}>\n",
                inline(t[hashes..].trim())
            ));
            i += 1;
            continue;
        }
        // Table: a header line, then a separator line.
        if is_table_line(line) {
            if let Some(align) = lines.get(i + 1).and_then(|l| separator(l)) {
                out.push_str(&table(&lines, &mut i, &align));
                continue;
            }
        }
        // List.
        if let Some((ordered, indent, _)) = list_item(line) {
            out.push_str(&list(&lines, &mut i, ordered, indent));
            continue;
        }
        // Paragraph: until a blank line or another block.
        let mut para = vec![t];
        i += 1;
        while i < lines.len() {
            let l = lines[i];
            let lt = l.trim();
            if lt.is_empty()
                || lt.starts_with("```")
                || list_item(l).is_some()
                || (lt.starts_with('#') && lt.trim_start_matches('#').starts_with(' '))
                || (is_table_line(l) && lines.get(i + 1).and_then(|n| separator(n)).is_some())
            {
                break;
            }
            para.push(lt);
            i += 1;
        }
        out.push_str(&format!("<p>{}</p>\n", inline(&para.join(" "))));
    }
    out
}

fn table(lines: &[&str], i: &mut usize, align: &[&str]) -> String {
    let style = |k: usize| match align.get(k) {
        Some(a) if !a.is_empty() => format!(r#" style="text-align: {a}""#),
        _ => String::new(),
    };
    let mut s = String::from("<table class=\"md\">\n<thead><tr>");
    for (k, c) in cells(lines[*i]).iter().enumerate() {
        s.push_str(&format!("<th{}>{}</th>", style(k), inline(c)));
    }
    s.push_str("</tr></thead>\n<tbody>\n");
    *i += 2;
    while *i < lines.len() && is_table_line(lines[*i]) {
        s.push_str("<tr>");
        for (k, c) in cells(lines[*i]).iter().enumerate() {
            s.push_str(&format!("<td{}>{}</td>", style(k), inline(c)));
        }
        s.push_str("</tr>\n");
        *i += 1;
    }
    s.push_str("</tbody></table>\n");
    s
}

fn list(lines: &[&str], i: &mut usize, ordered: bool, indent: usize) -> String {
    let tag = if ordered { "ol" } else { "ul" };
    let mut items: Vec<String> = Vec::new();
    while *i < lines.len() {
        let l = lines[*i];
        if l.trim().is_empty() {
            break;
        }
        match list_item(l) {
            Some((o, ind, text)) if ind <= indent + 1 && o == ordered => {
                items.push(text.trim().to_string());
                *i += 1;
            }
            Some((_, ind, _)) if ind <= indent + 1 => break,
            // Any other line (more indented, a nested marker, a lazy continuation) continues
            // the item — but a table or a heading starts a new block.
            _ => {
                let lt = l.trim();
                match items.last_mut() {
                    Some(last) if !is_table_line(l) && !lt.starts_with('#') => {
                        last.push(' ');
                        last.push_str(lt);
                        *i += 1;
                    }
                    _ => break,
                }
            }
        }
    }
    let mut s = format!("<{tag}>\n");
    for item in items {
        s.push_str(&format!("<li>{}</li>\n", inline(&item)));
    }
    s.push_str(&format!("</{tag}>\n"));
    s
}

/// Inline Markdown of one block's text as HTML.
pub fn inline(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + 16);
    let mut i = 0;
    let is_word = |ch: Option<&char>| ch.is_some_and(|x| x.is_alphanumeric());
    while i < c.len() {
        let ch = c[i];
        match ch {
            '\\' if i + 1 < c.len() && c[i + 1].is_ascii_punctuation() => {
                out.push_str(&escape(&c[i + 1].to_string()));
                i += 2;
            }
            '`' => match find(&c, i + 1, &['`']) {
                Some(end) => {
                    let code: String = c[i + 1..end].iter().collect();
                    out.push_str(&format!("<code>{}</code>", escape(&code)));
                    i = end + 1;
                }
                None => {
                    out.push('`');
                    i += 1;
                }
            },
            '*' if c.get(i + 1) == Some(&'*') => match find_closing(&c, i + 2, &['*', '*']) {
                Some(end) => {
                    let inner: String = c[i + 2..end].iter().collect();
                    out.push_str(&format!("<strong>{}</strong>", inline(&inner)));
                    i = end + 2;
                }
                None => {
                    out.push_str("**");
                    i += 2;
                }
            },
            '*' | '_' => {
                let opens = c.get(i + 1).is_some_and(|n| !n.is_whitespace())
                    && (ch == '*' || !is_word(i.checked_sub(1).and_then(|k| c.get(k))));
                let end = if opens {
                    find_closing(&c, i + 1, &[ch]).filter(|&e| ch == '*' || !is_word(c.get(e + 1)))
                } else {
                    None
                };
                match end {
                    Some(end) => {
                        let inner: String = c[i + 1..end].iter().collect();
                        out.push_str(&format!("<em>{}</em>", inline(&inner)));
                        i = end + 1;
                    }
                    None => {
                        out.push(ch);
                        i += 1;
                    }
                }
            }
            '[' => match link(&c, i) {
                Some((label, url, next)) => {
                    out.push_str(&format!(
                        r#"<a href="{}" target="_blank" rel="noopener noreferrer">{}</a>"#,
                        escape(&url),
                        inline(&label)
                    ));
                    i = next;
                }
                None => {
                    out.push('[');
                    i += 1;
                }
            },
            c => {
                out.push_str(&escape(&c.to_string()));
                i += 1;
            }
        }
    }
    out
}

/// The index of the first `pat` at or after `from`.
fn find(c: &[char], from: usize, pat: &[char]) -> Option<usize> {
    (from..c.len().saturating_sub(pat.len() - 1)).find(|&k| c[k..].starts_with(pat))
}

/// The index of the closing `pat` of a span opened before `from`: not right after whitespace,
/// and the span not empty.
fn find_closing(c: &[char], from: usize, pat: &[char]) -> Option<usize> {
    let mut k = from;
    while let Some(e) = find(c, k, pat) {
        if e > from && !c[e - 1].is_whitespace() {
            return Some(e);
        }
        k = e + 1;
    }
    None
}

/// `[label](url)` at `i`: the label, the URL (http or https) and the index after it.
fn link(c: &[char], i: usize) -> Option<(String, String, usize)> {
    let close = find(c, i + 1, &[']'])?;
    if c.get(close + 1) != Some(&'(') {
        return None;
    }
    let end = find(c, close + 2, &[')'])?;
    let url: String = c[close + 2..end].iter().collect();
    let url = url.trim();
    let lower = url.to_ascii_lowercase();
    if !(lower.starts_with("https://") || lower.starts_with("http://")) || url.contains(' ') {
        return None;
    }
    Some((c[i + 1..close].iter().collect(), url.to_string(), end + 1))
}
