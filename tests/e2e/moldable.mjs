// End-to-end test of the moldable mode (Srinivasan et al.) in headless Chromium, run by scripts/test.sh
// after `trunk build --release`: opens the "Moldable jobs" tab, loads the preset "Moldable jobs
// (Srinivasan et al.)", runs it and checks the table against `schedlab moldable` on the page's own share
// link (number for number); the % change chart and the Gantt chart (non-blank, hover names the
// job's count, range and trace count); the downloads; an inline error for a bad σ (the results
// stay); Cancel; the share link in a fresh tab (same numbers); a trace upload checked against
// the CLI. Screenshots: test-output/e2e/moldable-*.png. Prints `moldable: N passed, M failed`.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BIN, TRACES, chartsInk, check, download, launchBrowser, log, loggedErrors, openMode, openTab, runSuite,
  serveDist, shot, waitModeIdle,
} from './harness.mjs';

const BUDGET_MS = 240 * 1000;
const TRACE_NAME = 'NASA-iPSC-1993-3.1-cln.swf.gz';

const openMoldable = (browser, url, errors) => openMode(browser, url, errors, 'moldable');
const waitIdle = (page, timeoutMs = 150000) => waitModeIdle(page, 'moldable', timeoutMs);

async function runAndWait(page) {
  await page.click('[data-testid="moldable-run"]');
  await page.waitForFunction(() => document.querySelector('#moldable-mode').dataset.state === 'running',
    null, { timeout: 10000, polling: 20 }).catch(() => {});
  await waitIdle(page);
}

// { strategy: { key: number } } from the data-value attributes of the results table.
async function readTable(page) {
  return page.$$eval('#moldable-results-body tr', (rows) => {
    const out = {};
    for (const tr of rows) {
      const row = { reference: tr.dataset.reference === 'true' };
      for (const td of tr.querySelectorAll('td[data-key]')) row[td.dataset.key] = Number(td.dataset.value);
      out[row.reference ? 'reference' : tr.dataset.strategy] = row;
    }
    return out;
  });
}

async function errorText(page) {
  return page.$eval('[data-testid="moldable-error"]', (e) => (e.hidden ? '' : e.textContent.trim()));
}

// `schedlab moldable` on the envelope of a share link (via `schedlab open`).
function cliOfLink(tmp, href, name) {
  const env = execFileSync(BIN, ['open', href], { encoding: 'utf8', timeout: 60000 });
  const file = join(tmp, name);
  writeFileSync(file, env);
  return JSON.parse(execFileSync(BIN, ['moldable', file], { encoding: 'utf8', timeout: 180000 }));
}

// The page's table rows expected from the CLI's output.
function expected(cli) {
  const row = (s, change) => ({
    change_pct: change,
    mean_turnaround: s.summary.mean_turnaround,
    mean_wait: s.summary.mean_wait,
    mean_bounded_slowdown: s.summary.mean_bounded_slowdown,
    utilization: s.summary.utilization * 100,
  });
  const out = { reference: row(cli.reference, 0) };
  for (const s of cli.strategies) out[s.strategy] = row(s, s.change_vs_rigid_conservative.overall_pct);
  return out;
}

function diffTable(page, want) {
  const bad = [];
  for (const [k, w] of Object.entries(want)) {
    const p = page[k];
    if (!p) {
      bad.push(`${k}: missing on the page`);
      continue;
    }
    for (const [key, v] of Object.entries(w)) {
      const tol = key === 'utilization' ? 1e-9 * Math.max(1, Math.abs(v)) : 0;
      if (!(Math.abs(p[key] - v) <= tol)) bad.push(`${k}.${key}: page ${p[key]} vs cli ${v}`);
    }
  }
  return bad;
}

async function main() {
  const tmp = mkdtempSync(join(tmpdir(), 'schedlab-moldable-e2e-'));
  const url = await serveDist();
  const browser = await launchBrowser();
  const errors = loggedErrors();
  try {
    const page = await openMoldable(browser, url, errors);
    check(await page.isVisible('#moldable-mode') && !(await page.isVisible('#flat-mode')),
      'Moldable tab shows the moldable panel only');
    const boxes = await page.$$eval('#moldable-strategies input[type=checkbox]',
      (b) => b.map((x) => [x.value, x.checked]));
    check(boxes.length === 13, 'the strategy picker lists the 13 registry strategies', String(boxes.length));
    await page.fill('[data-testid="moldable-sigma"]', '0');
    await page.click('[data-testid="moldable-preset"]');
    const form = await page.$eval('#moldable-form', () => ({
      sigma: document.querySelector('#moldable-sigma').value,
      rf: document.querySelector('#moldable-rf').value,
      lf: document.querySelector('#moldable-lf').value,
      jobs: document.querySelector('#moldable-jobs').value,
      ticked: [...document.querySelectorAll('#moldable-strategies input:checked')].map((b) => b.value),
    }));
    check(form.sigma === '1' && form.rf === '2' && form.lf === '125' && form.jobs === '2000'
      && form.ticked.join() === 'rigid_easy,submit_greedy,submit_fair_share,schedule_fair_share,combined',
    'preset "Moldable jobs (Srinivasan et al.)" fills σ 1, RF 2, LF 125 %, 2000 jobs and 5 strategies', JSON.stringify(form));
    await shot(page, 'moldable-01-form.png');

    // 1. Run the preset.
    const t0 = Date.now();
    await runAndWait(page);
    log(`timing: preset run (6 × 2,000 jobs) ${Date.now() - t0} ms (informational)`);
    const table = await readTable(page);
    check(Object.keys(table).length === 6 && table.reference.reference,
      'results: the reference and one row per strategy', Object.keys(table).join());
    await page.$eval('#moldable-results-card', (e) => e.scrollIntoView());
    await shot(page, 'moldable-02-results.png');
    check(table.combined.change_pct < 0 && table.combined.change_pct < table.submit_greedy.change_pct,
      'the combined scheme improves the mean turnaround, more than submit-time greedy',
      `${table.combined.change_pct} vs ${table.submit_greedy.change_pct}`);

    // 2. Against the CLI: the page's share link through `schedlab open` and `schedlab moldable`.
    const href = await page.$eval('[data-testid="moldable-share-link"]', (a) => a.href);
    check(/#e=/.test(href) && (await page.isVisible('[data-testid="moldable-share-link"]')),
      'a share link is published', href.slice(0, 80));
    let cli = null;
    if (!existsSync(BIN)) {
      check(false, 'native CLI available', `${BIN} not found`);
    } else {
      cli = cliOfLink(tmp, href, 'preset.json');
      const d = diffTable(table, expected(cli));
      check(d.length === 0, 'table equals `schedlab moldable` on the share link, number for number', d.slice(0, 5).join('; '));
    }

    // 3. Downloads.
    const json = await download(page, '[data-testid="moldable-export-json"]');
    const report = JSON.parse(json.text);
    check(json.name === 'schedlab-moldable-report.json' && report.runs.length === 5 && report.jobs === 2000,
      'report JSON: 5 strategies over 2000 jobs', json.name);
    if (cli) {
      const diffs = report.runs.flatMap((r, i) => {
        const c = cli.strategies[i].change_vs_rigid_conservative;
        return r.change.overall_pct === c.overall_pct
          && JSON.stringify(r.change.categories_pct) === JSON.stringify(c.categories_pct) ? [] : [`${r.output.strategy}: ${JSON.stringify(r.change)} vs ${JSON.stringify(c)}`];
      });
      check(diffs.length === 0, 'report JSON: every % change (overall and per category) equals the CLI\'s', diffs.slice(0, 2).join('; '));
    }
    const csv = await download(page, '[data-testid="moldable-export-csv"]');
    const lines = csv.text.trim().split('\n');
    check(lines.length === 7 && lines[0].startsWith('strategy,reference,jobs,mean_turnaround')
      && lines[1].startsWith('rigid_conservative,true,2000,'), 'results CSV: header + 6 rows', lines[0]);
    const jobs = await download(page, '[data-testid="moldable-export-jobs"]');
    const jl = jobs.text.trim().split('\n');
    const bad = jl.slice(1).filter((l) => {
      const f = l.split(',');
      const [procs, min, max] = [Number(f[5]), Number(f[7]), Number(f[8])];
      return !(min <= procs && procs <= max) || Number(f[3]) < Number(f[2]);
    });
    check(jl.length === 1 + 6 * 2000 && bad.length === 0,
      'jobs CSV: 6 × 2000 jobs, each on a count inside its range, none starting before submit', `${jl.length} lines, ${bad.length} bad`);

    // 4. Charts.
    const ink = await chartsInk(page, '#moldable-charts canvas');
    check(ink.length === 2 && ink.every((c) => c.ink > 0.01 && c.ink < 0.95), 'charts: category bars and Gantt not blank', JSON.stringify(ink));
    for (const [link, name] of [['#moldable-png-changes', 'schedlab-moldable-categories.png'],
      ['#moldable-png-gantt', 'schedlab-moldable-gantt.png']]) {
      const png = await download(page, link);
      check(png.name === name && png.text.startsWith('\ufffdPNG'), `charts: ${name} downloads as PNG (made on click)`, png.name);
    }
    const pick = await page.$$eval('#moldable-gantt-pick option', (o) => o.map((x) => x.textContent));
    check(pick.length === 6 && (await page.$eval('#moldable-gantt-pick', (s) => s.selectedOptions[0].textContent)) === 'Combined scheme',
      'Gantt picker: 6 schedules, the combined scheme shown first', pick.join(' | '));
    await page.$eval('#moldable-charts', (e) => e.scrollIntoView());
    await shot(page, 'moldable-03-charts.png');
    await page.$eval('#moldable-gantt-box', (e) => e.scrollIntoView());
    const box = await page.$eval('#moldable-gantt', (c) => {
      const r = c.getBoundingClientRect();
      return { x: r.left, y: r.top, w: r.width, h: r.height };
    });
    let tip = '';
    for (let i = 0; i < 60 && !tip; i += 1) {
      await page.mouse.move(box.x + box.w * (0.15 + 0.013 * i), box.y + box.h * (0.45 + 0.05 * (i % 5)));
      tip = await page.$eval('[data-testid="moldable-gantt-tip"]', (t) => (t.hidden ? '' : t.textContent));
    }
    check(/^Job \d+ · \d+ processors \(trace \d+, range \d+–\d+\)/.test(tip), 'Gantt hover names the job, its count, the trace count and its range', tip);
    await shot(page, 'moldable-04-gantt-hover.png');
    await page.selectOption('#moldable-gantt-pick', '0');
    const title = await page.$eval('#moldable-gantt-pick', (s) => s.selectedOptions[0].textContent);
    check(title === 'Rigid conservative backfilling', 'the picker shows the reference\'s schedule', title);

    // 5. A bad σ: inline error naming the field; the results stay.
    await page.fill('[data-testid="moldable-sigma"]', '-1');
    await page.click('[data-testid="moldable-run"]');
    const err = await errorText(page);
    const invalid = await page.$eval('#moldable-sigma', (e) => e.getAttribute('aria-invalid'));
    check(/σ/.test(err) && invalid === 'true', 'σ = −1 is refused, naming σ and marking the field', err);
    check(JSON.stringify(await readTable(page)) === JSON.stringify(table), 'the previous results stay after the error');
    await page.fill('[data-testid="moldable-sigma"]', '1');

    // 6. Cancel: a larger run stopped half-way keeps the previous results.
    await page.fill('[data-testid="moldable-jobs"]', '60000');
    await page.click('[data-testid="moldable-run"]');
    await page.waitForFunction(() => document.querySelector('#moldable-progress').value > 0
      && !document.querySelector('[data-testid="moldable-cancel"]').disabled, null, { timeout: 30000, polling: 20 });
    await page.click('[data-testid="moldable-cancel"]', { timeout: 5000 }).catch(async (e) => {
      const now = await page.$eval('[data-testid="moldable-progress-label"]', (l) => l.textContent);
      throw new Error(`Cancel could not be clicked while "${now}": ${e.message.split('\n')[0]}`);
    });
    await waitIdle(page, 30000);
    const label = await page.$eval('[data-testid="moldable-progress-label"]', (e) => e.textContent);
    check(/Cancelled/.test(label) && JSON.stringify(await readTable(page)) === JSON.stringify(table),
      'Cancel stops the run and keeps the previous results', label);

    // 7. The share link in a fresh tab: the same numbers.
    const fresh = await openTab(browser, href, errors);
    await fresh.waitForSelector('#moldable-mode[data-worker="ready"]', { timeout: 60000 });
    await fresh.waitForSelector('#moldable-results-body tr', { timeout: 120000 });
    await waitIdle(fresh);
    check(await fresh.isVisible('#moldable-mode'), 'the link opens the moldable tab');
    check(JSON.stringify(await readTable(fresh)) === JSON.stringify(table), 'the link reruns to the same numbers');
    await fresh.close();

    // 8. A trace: NASA iPSC's first 1000 jobs, σ 0, RF 4, LF 100 %, against the CLI.
    const trace = join(TRACES, TRACE_NAME);
    if (!existsSync(trace)) {
      check(false, 'shared trace available', trace);
    } else {
      await page.setInputFiles('[data-testid="moldable-upload"]', trace);
      await page.waitForFunction(() => !document.querySelector('#moldable-wl-trace').disabled, null, { timeout: 60000 });
      await page.fill('[data-testid="moldable-first-jobs"]', '1000');
      await page.fill('[data-testid="moldable-sigma"]', '0');
      await page.fill('[data-testid="moldable-rf"]', '4');
      await page.fill('[data-testid="moldable-lf"]', '100');
      check(await page.isChecked('#moldable-wl-trace'), 'the upload selects the trace workload');
      await runAndWait(page);
      const tt = await readTable(page);
      const caption = await page.$eval('[data-testid="moldable-caption"]', (e) => e.textContent);
      check(caption.startsWith(`${TRACE_NAME}: 1,000 jobs on 128 processors`), 'caption names the trace, 1,000 jobs, 128 processors', caption);
      const env = execFileSync(BIN, ['open', await page.$eval('[data-testid="moldable-share-link"]', (a) => a.href)], { encoding: 'utf8' });
      const v = JSON.parse(env);
      v.experiment.workload.swf.path = trace;
      const file = join(tmp, 'trace.json');
      writeFileSync(file, JSON.stringify(v));
      const c = JSON.parse(execFileSync(BIN, ['moldable', file], { encoding: 'utf8', timeout: 180000 }));
      const d = diffTable(tt, expected(c));
      check(d.length === 0 && c.jobs === 1000, 'trace run equals `schedlab moldable` on the same trace', d.slice(0, 5).join('; '));
      await shot(page, 'moldable-05-trace.png');
    }
    check(errors.length === 0, 'no console or page errors', errors.slice(0, 3).join(' | '));
  } finally {
    await browser.close();
  }
}

runSuite('moldable', BUDGET_MS, main);
