//! The grid page's results: the local clocks of the sites, the tables (configurations,
//! single sites vs job sharing, migrations), the charts and the downloads.

use super::*;

/// The clocks of the sites: of the run in progress (or just finished) at grid time `t`, else
/// of the editor at grid time 0.
pub(super) fn render_clocks(app: &GridApp, at: Option<(f64, Sharing)>) {
    let st = app.state.borrow();
    let sites: Vec<(String, f64)> = match (&at, &st.run_exp) {
        (Some(_), Some(exp)) => exp
            .sites
            .iter()
            .enumerate()
            .map(|(i, s)| (exp.site_name(i), s.tz_offset_hours))
            .collect(),
        _ => st
            .sites
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let name = if r.name.trim().is_empty() {
                    format!("site {}", i + 1)
                } else {
                    r.name.trim().to_string()
                };
                (name, r.tz.trim().parse::<f64>().unwrap_or(0.0))
            })
            .collect(),
    };
    let t = at.map_or(0.0, |a| a.0);
    let mut html = String::new();
    for (i, (name, h)) in sites.iter().enumerate() {
        html.push_str(&format!(
            r#"<div class="clock" data-testid="grid-clock-site" data-site="{i}" style="--site: {c}"><div class="clock-site" title="{n}">{n}</div><div class="clock-time" data-testid="grid-clock-time">{time}</div><div class="clock-tz">{off}</div></div>"#,
            c = grid_chart::css(grid_chart::site_colour(i)),
            n = escape(name),
            time = local_clock(t, *h),
            off = escape(&offset_words(*h)),
        ));
    }
    app.ui.clock.set_inner_html(&html);
    let _ = app.ui.clock.set_attribute("data-time", &t.to_string());
    let caption = match at {
        Some((t, s)) if app.tab.busy() => format!(
            "Simulating {}: grid time {}.",
            sharing_label(s).to_lowercase(),
            format::duration(t),
        ),
        Some((t, s)) => format!(
            "End of the simulation ({}): grid time {}.",
            sharing_label(s).to_lowercase(),
            format::duration(t),
        ),
        None => "Local time at each site at grid time 0 (Monday 00:00 at offset 0); it runs \
                 with the simulation."
            .to_string(),
    };
    app.ui.clock_caption.set_text_content(Some(&caption));
}

/// A table cell with its raw value for tests and tooltips.
pub(super) fn cell(key: &str, v: f64, shown: String, title: &str, class: &str) -> String {
    format!(
        r#"<td data-key="{key}" data-value="{v}" title="{}" class="{class}">{shown}</td>"#,
        escape(title)
    )
}

pub(super) fn seconds_cell(key: &str, v: f64) -> String {
    cell(
        key,
        v,
        format::fixed(v, 0),
        &format!("{v} s ≈ {}", format::duration(v)),
        "",
    )
}

pub(super) fn config_table(r: &crate::modes::grid::run::GridRunReport) -> String {
    let m: &GridMetrics = &r.metrics;
    let cfg = r.sharing.as_str();
    let mut rows = String::new();
    for (i, s) in m.sites.iter().enumerate() {
        rows.push_str(&format!(
            r#"<tr data-site="{i}"><th title="offset {off}: local time = grid time − offset">{name}</th>{jobs}{ran}{util}{awrt}{awwt}{awsd}</tr>"#,
            off = escape(&offset_label(s.tz_offset_hours)),
            name = escape(&s.name),
            jobs = cell("jobs", s.submitted.jobs as f64, format::count(s.submitted.jobs as u64), "jobs of this site's users", ""),
            ran = cell("executed", s.executed.jobs as f64, format::count(s.executed.jobs as u64), "jobs run on this site's machine", ""),
            util = cell("utilization", s.executed.utilization, format::fixed(100.0 * s.executed.utilization, 1), &format!("{}", s.executed.utilization), ""),
            awrt = seconds_cell("awrt", s.submitted.awrt),
            awwt = seconds_cell("awwt", s.submitted.awwt),
            awsd = cell("awsd", s.submitted.awsd, format::fixed(s.submitted.awsd, 2), &format!("{}", s.submitted.awsd), ""),
        ));
    }
    let o = &m.overall;
    rows.push_str(&format!(
        r#"<tr data-site="overall" class="overall"><th>Whole grid</th>{jobs}{ran}{util}{awrt}{awwt}{awsd}</tr>"#,
        jobs = cell("jobs", o.jobs as f64, format::count(o.jobs as u64), "all jobs", ""),
        ran = cell("executed", o.jobs as f64, format::count(o.jobs as u64), "all jobs", ""),
        util = cell("utilization", o.utilization, format::fixed(100.0 * o.utilization, 1), &format!("{}", o.utilization), ""),
        awrt = seconds_cell("awrt", o.awrt),
        awwt = seconds_cell("awwt", o.awwt),
        awsd = cell("awsd", o.awsd, format::fixed(o.awsd, 2), &format!("{}", o.awsd), ""),
    ));
    let note = match r.sharing {
        Sharing::Single => "every site schedules only its own jobs".to_string(),
        Sharing::JobSharing => format!(
            "the grid scheduler sends each job to the earliest start; {} jobs migrated",
            format::count(m.migrated as u64)
        ),
    };
    format!(
        r#"<div class="grid-table-block" data-config="{cfg}"><h3>{label} <small>{note} · {policy}</small></h3><div class="table-wrap" tabindex="0" role="region" aria-label="{label}: sites (scrolls)"><table data-testid="grid-table-{cfg}" data-config="{cfg}"><thead><tr><th class="policy">Site</th><th title="Jobs submitted by this site's users"><span class="label">Jobs</span><span class="unit">submitted</span></th><th title="Jobs run on this site's machine"><span class="label">Ran here</span><span class="unit">jobs</span></th><th title="Squashed area run on the machine / (nodes × its schedule length)"><span class="label">Utilisation</span><span class="unit">%</span></th><th title="Average weighted response time of this site's jobs (weight: squashed area)"><span class="label">AWRT</span><span class="unit">seconds</span></th><th title="Average weighted wait time"><span class="label">AWWT</span><span class="unit">seconds</span></th><th title="Average weighted slowdown"><span class="label">AWSD</span><span class="unit">ratio</span></th></tr></thead><tbody>{rows}</tbody></table></div></div>"#,
        label = sharing_label(r.sharing),
        policy = policy_label(m.policy),
    )
}

pub(super) fn policy_label(p: LocalPolicy) -> &'static str {
    p.entry().short
}

pub(super) fn pct_cell(key: &str, v: f64) -> String {
    let class = if !v.is_finite() {
        ""
    } else if v < 100.0 {
        "better"
    } else if v > 100.0 {
        "worse"
    } else {
        ""
    };
    cell(
        key,
        v,
        format!("{} %", format::fixed(v, 1)),
        &format!("{v}"),
        class,
    )
}

pub(super) fn compare_table(cmp: &GridComparison) -> String {
    let (Some(a), Some(b)) = (cmp.run(Sharing::Single), cmp.run(Sharing::JobSharing)) else {
        return String::new();
    };
    let (a, b) = (&a.metrics, &b.metrics);
    let mut rows = String::new();
    let mut row = |site: &str,
                   name: &str,
                   sa: &crate::metrics::Summary,
                   sb: &crate::metrics::Summary,
                   ua: f64,
                   ub: f64| {
        rows.push_str(&format!(
            r#"<tr data-site="{site}"{cls}><th>{name}</th>{}{}{}{}{}</tr>"#,
            pct_cell("awrt_pct", percent_of(sb.awrt, sa.awrt)),
            pct_cell("awwt_pct", percent_of(sb.awwt, sa.awwt)),
            pct_cell("awsd_pct", percent_of(sb.awsd, sa.awsd)),
            cell(
                "util_single",
                ua,
                format::fixed(100.0 * ua, 1),
                &format!("{ua}"),
                ""
            ),
            cell(
                "util_sharing",
                ub,
                format::fixed(100.0 * ub, 1),
                &format!("{ub}"),
                ""
            ),
            cls = if site == "overall" {
                r#" class="overall""#
            } else {
                ""
            },
            name = escape(name),
        ));
    };
    for (i, (x, y)) in a.sites.iter().zip(&b.sites).enumerate() {
        row(
            &i.to_string(),
            &x.name,
            &x.submitted,
            &y.submitted,
            x.executed.utilization,
            y.executed.utilization,
        );
    }
    row(
        "overall",
        "Whole grid",
        &a.overall,
        &b.overall,
        a.overall.utilization,
        b.overall.utilization,
    );
    format!(
        r#"<div class="grid-table-block" data-config="compare"><h3>Benefit of job sharing <small>job sharing in % of single sites, as in Table IV of Ernemann et al. (below 100 % is better)</small></h3><div class="table-wrap" tabindex="0" role="region" aria-label="Benefit of job sharing (scrolls)"><table data-testid="grid-table-compare"><thead><tr><th class="policy">Site</th><th><span class="label">AWRT</span><span class="unit">% of single</span></th><th><span class="label">AWWT</span><span class="unit">% of single</span></th><th><span class="label">AWSD</span><span class="unit">% of single</span></th><th><span class="label">Utilisation, single</span><span class="unit">%</span></th><th><span class="label">Utilisation, sharing</span><span class="unit">%</span></th></tr></thead><tbody>{rows}</tbody></table></div></div>"#
    )
}

pub(super) fn migrations_table(cmp: &GridComparison) -> String {
    let Some(r) = cmp.run(Sharing::JobSharing) else {
        return String::new();
    };
    let m = &r.metrics;
    let n = m.sites.len();
    let mut head = String::from(r#"<th class="corner">home ↓ · ran at →</th>"#);
    for s in &m.sites {
        head.push_str(&format!("<th>{}</th>", escape(&s.name)));
    }
    head.push_str("<th>Total</th>");
    let mut body = String::new();
    let mut col_tot = vec![0usize; n];
    for (h, row) in m.migrations.iter().enumerate() {
        let name = m.sites.get(h).map(|s| s.name.as_str()).unwrap_or("?");
        body.push_str(&format!(r#"<tr data-home="{h}"><th>{}</th>"#, escape(name)));
        for (e, &v) in row.iter().enumerate() {
            if let Some(c) = col_tot.get_mut(e) {
                *c += v;
            }
            let class = if h == e {
                "diag"
            } else if v > 0 {
                "moved"
            } else {
                ""
            };
            body.push_str(&format!(
                r#"<td data-home="{h}" data-exec="{e}" data-value="{v}" class="{class}">{}</td>"#,
                format::count(v as u64)
            ));
        }
        body.push_str(&format!(
            "<td>{}</td></tr>",
            format::count(row.iter().sum::<usize>() as u64)
        ));
    }
    body.push_str(r#"<tr class="overall"><th>Total</th>"#);
    for c in &col_tot {
        body.push_str(&format!("<td>{}</td>", format::count(*c as u64)));
    }
    body.push_str(&format!(
        "<td>{}</td></tr>",
        format::count(col_tot.iter().sum::<usize>() as u64)
    ));
    format!(
        r#"<h3>Jobs migrated between sites (job sharing)</h3><p class="caption" data-testid="grid-migrated" data-migrated="{mig}">{mig_s} of {all} jobs ran at another site than their home site (rows: home site; columns: site that ran the job; the diagonal stayed home). With single sites no job leaves its site.</p><div class="table-wrap" tabindex="0" role="region" aria-label="Jobs migrated between sites (scrolls)"><table data-testid="grid-migrations-table" data-migrated="{mig}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"#,
        mig = m.migrated,
        mig_s = format::count(m.migrated as u64),
        all = format::count(m.overall.jobs as u64),
    )
}

pub(super) fn render_results(app: &GridApp) {
    let Some(cmp) = app.state.borrow().result.clone() else {
        return;
    };
    let ui = &app.ui;
    let mut html = String::from(r#"<div class="grid-results-tables">"#);
    for r in &cmp.runs {
        html.push_str(&config_table(r));
    }
    html.push_str("</div>");
    html.push_str(&compare_table(&cmp));
    ui.tables.set_inner_html(&html);
    ui.empty.set_hidden(true);
    let exp = &cmp.experiment;
    let jobs = cmp.runs.first().map_or(0, |r| r.metrics.overall.jobs);
    ui.caption.set_text_content(Some(&format!(
        "{}{} sites · {} jobs · {} · seed {}{}",
        exp.name
            .as_ref()
            .map(|n| format!("{n} · "))
            .unwrap_or_default(),
        exp.sites.len(),
        format::count(jobs as u64),
        policy_label(exp.policy),
        exp.seed,
        if exp.cut_to_shortest {
            " · cut to the shortest workload"
        } else {
            ""
        }
    )));
    app.state.borrow_mut().downloads.revoke_all();
    if let Some(u) = app
        .state
        .borrow_mut()
        .downloads
        .url(&cmp.to_csv(), "text/csv")
    {
        ui.export_csv.set_href(&u);
    }
    if let Some(u) = app
        .state
        .borrow_mut()
        .downloads
        .url(&cmp.to_json(), "application/json")
    {
        ui.export_json.set_href(&u);
    }
    ui.exports.set_hidden(false);
    let violations: usize = cmp.runs.iter().map(|r| r.violations.len()).sum();
    if violations > 0 {
        app.ui.errors.show(&format!(
            "Internal check: {violations} schedule invariant violations — please report this."
        ));
    }
    // Charts.
    ui.charts.set_hidden(false);
    ui.migrations.set_inner_html(&migrations_table(&cmp));
    let mut errors = Vec::new();
    let mut links = Vec::new();
    match grid_chart::draw_metrics("grid-chart-metrics", &cmp) {
        Ok(svg) => links.push(("metrics", "AWRT / AWWT / AWSD", svg)),
        Err(e) => errors.push(e),
    }
    for (id, s, file, label) in [
        (
            "grid-chart-load-single",
            Sharing::Single,
            "load-single",
            "load, single",
        ),
        (
            "grid-chart-load-sharing",
            Sharing::JobSharing,
            "load-sharing",
            "load, job sharing",
        ),
    ] {
        if let Some(r) = cmp.run(s) {
            let title = format!("Squashed area by local hour — {}", sharing_label(s));
            match grid_chart::draw_load(id, &title, &r.metrics) {
                Ok(svg) => links.push((file, label, svg)),
                Err(e) => errors.push(e),
            }
        }
    }
    let mut html = String::from(r#"<span class="exports-label">Charts as SVG</span>"#);
    for (file, label, svg) in &links {
        if let Some(u) = app.state.borrow_mut().downloads.url(svg, "image/svg+xml") {
            html.push_str(&format!(
                r#"<a href="{u}" download="schedlab-grid-{file}.svg" data-testid="grid-svg-{file}">{label}</a>"#
            ));
        }
    }
    ui.chart_links.set_inner_html(&html);
    if !errors.is_empty() {
        web_sys::console::error_1(&JsValue::from_str(&errors.join("; ")));
    }
}
