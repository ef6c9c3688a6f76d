//! The questions of the exercise on screen: a number box (numeric; predict_start reads "job N
//! starts at t ="), choice buttons (radio buttons when one option is correct, check boxes when
//! several are), Check → the verdict of [`crate::exercise::check`]. A wrong answer shows the
//! next hint (one per wrong try, in order; "Hint" shows one too) and never the simulation's
//! value; the value and the explanation come once the answer is right or the student presses
//! "Show the answer". Every check and hint is kept in the browser ([`super::store`]) and shown
//! again when the exercise is reopened.

use super::*;
use crate::exercise::answers::{parse_number, GivenAnswer};
use crate::exercise::markdown::{inline, to_html};
use crate::exercise::{check, Answer, Expected, QuestionKind};

/// Renders every question (once the worker's solutions are in), with the stored answers.
pub(super) fn render(app: &App) {
    let html = {
        let st = app.state.borrow();
        let Some(c) = st.current.as_ref() else {
            return;
        };
        let Some(worked) = c.worked.as_ref() else {
            return;
        };
        let mut html = String::new();
        for (i, q) in c.ex.questions.iter().enumerate() {
            let multi = matches!(
                worked.solutions.get(i).map(|s| &s.expected),
                Some(Expected::Options { correct, .. }) if correct.len() > 1
            );
            let hints_left = c.answers.hints_shown(i) < q.hints.len();
            html.push_str(&question_html(i, q, multi, c.answers.get(i), hints_left));
        }
        html
    };
    app.ui.questions.set_inner_html(&html);
    let hints: Vec<usize> = {
        let st = app.state.borrow();
        st.current.as_ref().map_or_else(Vec::new, |c| {
            (0..c.ex.questions.len())
                .map(|i| c.answers.hints_shown(i))
                .collect()
        })
    };
    for (i, n) in hints.into_iter().enumerate() {
        render_hints(app, i, n);
    }
    render_score(app);
}

fn question_html(
    i: usize,
    q: &crate::exercise::Question,
    multi: bool,
    given: Option<&GivenAnswer>,
    hints_left: bool,
) -> String {
    let kind = match q.kind {
        QuestionKind::Numeric => "numeric",
        QuestionKind::Choice => "choice",
        QuestionKind::PredictStart => "predict_start",
    };
    let mut h = format!(
        r#"<div class="question" id="ex-q{i}" data-testid="ex-q{i}" data-kind="{kind}"><div class="q-prompt"><span class="q-num">{}</span><div class="md">{}</div></div><div class="q-answer">"#,
        i + 1,
        to_html(&q.prompt)
    );
    let unit = q.unit.as_deref().unwrap_or("");
    match q.kind {
        QuestionKind::Choice => {
            let (input, note) = if multi {
                ("checkbox", "Tick every correct option.")
            } else {
                ("radio", "")
            };
            h.push_str(r#"<div class="q-options">"#);
            for (k, o) in q.options.iter().enumerate() {
                let checked = given.is_some_and(|g| g.options.contains(&k));
                h.push_str(&format!(
                    r#"<label class="choice"><input type="{input}" name="ex-q{i}-opt" value="{k}" data-testid="ex-q{i}-opt{k}"{}><span>{}</span></label>"#,
                    if checked { " checked" } else { "" },
                    inline(&o.text)
                ));
            }
            h.push_str("</div>");
            if !note.is_empty() {
                h.push_str(&format!(r#"<small class="hint">{note}</small>"#));
            }
        }
        QuestionKind::Numeric | QuestionKind::PredictStart => {
            let label = match (q.kind, q.job) {
                (QuestionKind::PredictStart, Some(job)) => format!("Job {job} starts at t ="),
                _ => "Your answer:".to_string(),
            };
            let value = given
                .and_then(|g| g.number)
                .map(crate::exercise::format_number)
                .unwrap_or_default();
            h.push_str(&format!(
                r#"<label class="q-number"><span>{}</span><input type="text" inputmode="decimal" autocomplete="off" id="ex-q{i}-answer" data-testid="ex-q{i}-answer" value="{}" aria-label="Answer to question {}"><span class="unit">{}</span></label>"#,
                escape(&label),
                escape(&value),
                i + 1,
                escape(unit)
            ));
        }
    }
    h.push_str(&format!(
        r#"<button type="button" class="primary small" data-check="{i}" data-testid="ex-q{i}-check">Check</button>"#
    ));
    if !q.hints.is_empty() {
        h.push_str(&format!(
            r#"<button type="button" class="secondary small" id="ex-q{i}-hint" data-hint="{i}" data-testid="ex-q{i}-hint">Hint</button>"#
        ));
    }
    h.push_str(&format!(
        r#"</div><ol class="q-hints" id="ex-q{i}-hints" data-testid="ex-q{i}-hints" hidden></ol><div class="feedback" id="ex-q{i}-feedback" data-testid="ex-q{i}-feedback" hidden></div>"#
    ));
    if let Some(g) = given {
        h = h.replace(
            &format!(r#"<div class="feedback" id="ex-q{i}-feedback" data-testid="ex-q{i}-feedback" hidden></div>"#),
            &feedback_html(i, q, g, hints_left),
        );
    }
    h.push_str("</div>");
    h
}

/// The feedback box of question `i` after the answer `g`: right — the simulation's value and
/// the explanation; wrong — what was answered and where to look next, with "Show the answer";
/// given up — the simulation's value and the explanation. `hints_left`: a hint is still
/// unread.
fn feedback_html(
    i: usize,
    q: &crate::exercise::Question,
    g: &GivenAnswer,
    hints_left: bool,
) -> String {
    let (class, badge) = match (g.correct, g.gave_up) {
        (true, _) => ("correct", "✓ Correct"),
        (false, true) => ("wrong", "✗ Wrong — the answer"),
        (false, false) => ("wrong", "✗ Wrong"),
    };
    let tries = if g.attempts > 1 {
        format!(r#" <small class="tries">({} tries)</small>"#, g.attempts)
    } else {
        String::new()
    };
    let settled = g.correct || g.gave_up;
    let explanation = if !settled || q.explanation.trim().is_empty() {
        String::new()
    } else {
        let html = to_html(&q.explanation);
        // "Why:" at the start of the first paragraph.
        let html = match html.strip_prefix("<p>") {
            Some(rest) => format!("<p><strong>Why:</strong> {rest}"),
            None => format!("<p><strong>Why:</strong></p>{html}"),
        };
        format!(r#"<div class="explanation md" data-testid="ex-q{i}-explanation">{html}</div>"#)
    };
    let body = if settled {
        // The sentence of the check, with the simulation's value.
        let body = g
            .feedback
            .strip_prefix("Correct:")
            .or_else(|| g.feedback.strip_prefix("Not quite:"))
            .unwrap_or(&g.feedback)
            .trim();
        if body == "Correct." {
            String::new()
        } else {
            format!(" — {}", escape(body))
        }
    } else {
        // What was answered, never the value.
        let answered = match (g.kind, g.number) {
            (QuestionKind::Choice, _) => "that is not the right choice".to_string(),
            (_, Some(v)) => format!(
                "you answered {}{}",
                crate::exercise::format_number(v),
                q.unit
                    .as_deref()
                    .map(|u| format!(" {u}"))
                    .unwrap_or_default()
            ),
            (_, None) => "that is not the answer".to_string(),
        };
        let next = match (q.hints.is_empty(), hints_left) {
            (true, _) => "Try again, or show the answer.",
            (false, true) => "Read the hints above and try again.",
            (false, false) => {
                "Read the hints above and try again (no more hints), or show the answer."
            }
        };
        format!(" — {}. {next}", escape(&answered))
    };
    let show = if settled {
        String::new()
    } else {
        format!(
            r#" <button type="button" class="link" data-show="{i}" data-testid="ex-q{i}-show" title="The simulation's value and the explanation (your teacher sees that you asked)">Show the answer</button>"#
        )
    };
    format!(
        r#"<div class="feedback {class}" id="ex-q{i}-feedback" data-testid="ex-q{i}-feedback" data-verdict="{class}" data-settled="{settled}"><p><strong class="badge">{badge}</strong>{body}{tries}{show}</p>{explanation}</div>"#
    )
}

/// "2 of 3 correct" next to the title.
pub(super) fn render_score(app: &App) {
    let text = {
        let st = app.state.borrow();
        st.current.as_ref().map(|c| {
            let (ok, n) = c.answers.score();
            let total = c.ex.questions.len();
            if n == 0 {
                format!("{total} question{}", if total == 1 { "" } else { "s" })
            } else {
                format!("{ok} of {total} correct")
            }
        })
    };
    app.ui
        .score
        .set_text_content(Some(&text.unwrap_or_default()));
}

/// A click in the questions: Check or Hint.
pub(super) fn on_click(app: &App, ev: &Event) {
    let Some(target) = ev
        .target()
        .and_then(|t| t.dyn_into::<Element>().ok())
        .and_then(|e| e.closest("button").ok().flatten())
    else {
        return;
    };
    if let Some(i) = target
        .get_attribute("data-check")
        .and_then(|v| v.parse().ok())
    {
        check_question(app, i);
    } else if let Some(i) = target
        .get_attribute("data-hint")
        .and_then(|v| v.parse().ok())
    {
        show_hint(app, i);
    } else if let Some(i) = target
        .get_attribute("data-show")
        .and_then(|v| v.parse().ok())
    {
        show_answer(app, i);
    }
}

/// The browser refused to keep the answers: the status says so.
pub(super) fn storage_blocked(app: &App) {
    app.ui.status.set_text_content(Some(
        "This browser does not keep your answers (storage is blocked): export them before \
         leaving.",
    ));
}

/// "Show the answer" on question `i`: the simulation's value and the explanation; the
/// question is settled (its runs may appear) and the answers note it.
fn show_answer(app: &App, i: usize) {
    let outcome = {
        let mut st = app.state.borrow_mut();
        let Some(c) = st.current.as_mut() else {
            return;
        };
        if !c.answers.give_up(i) {
            return;
        }
        let saved = store::save(&c.answers);
        let hints_left =
            c.answers.hints_shown(i) < c.ex.questions.get(i).map_or(0, |q| q.hints.len());
        match (c.ex.questions.get(i), c.answers.get(i)) {
            (Some(q), Some(g)) => (feedback_html(i, q, g, hints_left), saved),
            _ => return,
        }
    };
    settle(app, i, outcome);
}

/// Puts question `i`'s new feedback `(html, saved)` on screen, with its hints, the score, the
/// list and the runs its answer may reveal.
fn settle(app: &App, i: usize, (html, saved): (String, bool)) {
    if let Ok(feedback) = by_id::<HtmlElement>(&app.ui.doc, &format!("ex-q{i}-feedback")) {
        feedback.set_outer_html(&html);
    }
    if !saved {
        storage_blocked(app);
    }
    let n = app
        .state
        .borrow()
        .current
        .as_ref()
        .map_or(0, |c| c.answers.hints_shown(i));
    render_hints(app, i, n);
    render_score(app);
    super::render_list(app);
    super::runs::render(app);
}

/// Enter in a number box checks its question.
pub(super) fn on_enter(app: &App, ev: &web_sys::KeyboardEvent) {
    let id = ev
        .target()
        .and_then(|t| t.dyn_into::<Element>().ok())
        .map(|e| e.id())
        .unwrap_or_default();
    if let Some(i) = id
        .strip_prefix("ex-q")
        .and_then(|r| r.strip_suffix("-answer"))
        .and_then(|n| n.parse().ok())
    {
        ev.prevent_default();
        check_question(app, i);
    }
}

/// The answer typed or chosen for question `i` of `kind`.
fn read_answer(
    doc: &Document,
    i: usize,
    kind: QuestionKind,
    unit: Option<&str>,
) -> Result<Answer, String> {
    match kind {
        QuestionKind::Choice => {
            let mut chosen = Vec::new();
            if let Ok(list) =
                doc.query_selector_all(&format!("input[name=\"ex-q{i}-opt\"]:checked"))
            {
                for k in 0..list.length() {
                    let v = list
                        .get(k)
                        .and_then(|n| n.dyn_into::<HtmlInputElement>().ok())
                        .and_then(|e| e.value().parse::<usize>().ok());
                    if let Some(v) = v {
                        chosen.push(v);
                    }
                }
            }
            if chosen.is_empty() {
                Err("Choose an option first.".into())
            } else {
                Ok(Answer::Options(chosen))
            }
        }
        _ => {
            let text = by_id::<HtmlInputElement>(doc, &format!("ex-q{i}-answer"))?.value();
            parse_number(&text, unit)
                .map(Answer::Number)
                .map_err(|e| e.to_string())
        }
    }
}

fn check_question(app: &App, i: usize) {
    let doc = &app.ui.doc;
    let outcome = {
        let mut st = app.state.borrow_mut();
        let Some(c) = st.current.as_mut() else {
            return;
        };
        let (Some(q), Some(sol)) = (
            c.ex.questions.get(i).cloned(),
            c.worked.as_ref().and_then(|w| w.solutions.get(i)).cloned(),
        ) else {
            return;
        };
        match read_answer(doc, i, q.kind, q.unit.as_deref()) {
            Err(m) => Err(m),
            Ok(answer) => {
                let verdict = check(&q, &sol, &answer);
                c.answers.record(i, q.kind, &answer, &verdict, &now_iso());
                if !verdict.correct {
                    // One more hint per wrong try, in order.
                    let n = (c.answers.hints_shown(i) + 1).min(q.hints.len());
                    c.answers.show_hints(i, n);
                }
                let saved = store::save(&c.answers);
                let hints_left = c.answers.hints_shown(i) < q.hints.len();
                match c.answers.get(i) {
                    Some(g) => Ok((feedback_html(i, &q, g, hints_left), saved)),
                    None => return,
                }
            }
        }
    };
    match outcome {
        Ok(outcome) => settle(app, i, outcome),
        Err(m) => {
            let Ok(feedback) = by_id::<HtmlElement>(doc, &format!("ex-q{i}-feedback")) else {
                return;
            };
            feedback.set_class_name("feedback invalid");
            let _ = feedback.set_attribute("data-verdict", "invalid");
            feedback.set_text_content(Some(&m));
            feedback.set_hidden(false);
        }
    }
}

/// Shows one more hint of question `i`.
fn show_hint(app: &App, i: usize) {
    let n = {
        let mut st = app.state.borrow_mut();
        let Some(c) = st.current.as_mut() else {
            return;
        };
        let total = c.ex.questions.get(i).map_or(0, |q| q.hints.len());
        let n = (c.answers.hints_shown(i) + 1).min(total);
        c.answers.show_hints(i, n);
        store::save(&c.answers);
        n
    };
    render_hints(app, i, n);
}

/// Shows the first `n` hints of question `i` and what the Hint button says.
fn render_hints(app: &App, i: usize, n: usize) {
    let doc = &app.ui.doc;
    let hints: Vec<String> = {
        let st = app.state.borrow();
        st.current
            .as_ref()
            .and_then(|c| c.ex.questions.get(i))
            .map_or_else(Vec::new, |q| q.hints.clone())
    };
    if let Ok(list) = by_id::<HtmlElement>(doc, &format!("ex-q{i}-hints")) {
        let html: String = hints
            .iter()
            .take(n)
            .map(|h| format!("<li>{}</li>", inline(h)))
            .collect();
        list.set_inner_html(&html);
        list.set_hidden(n == 0);
    }
    if let Ok(button) = by_id::<HtmlButtonElement>(doc, &format!("ex-q{i}-hint")) {
        if n >= hints.len() {
            button.set_hidden(true);
        } else {
            button.set_text_content(Some(&format!("Hint ({} of {})", n + 1, hints.len())));
        }
    }
}
