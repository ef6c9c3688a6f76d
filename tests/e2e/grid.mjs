// End-to-end test of the Grid mode (Ernemann et al.) in headless Chromium, run by scripts/test.sh
// after `trunk build --release`: opens the Grid tab, loads the "Global grid across time zones"
// preset, runs it (single sites, then job sharing) and checks the tables against
// `schedlab grid <experiment> --json` number for number; the world clock (4 sites, local time
// = grid time − offset); the charts; the migration matrix; the downloads; inline errors for a
// bad site size, a missing upload and a corrupt trace (the results stay); a trace site checked
// against the CLI; Cancel; the share link (same numbers in a fresh tab) and a damaged link.
// Screenshots: test-output/e2e/grid-*.png. Prints `grid: N passed, M failed`.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BIN, TRACES, chartsInk, check, download, launchBrowser, log, loggedErrors, openMode, openTab, runSuite,
  serveDist, shot, waitModeIdle,
} from './harness.mjs';

const BUDGET_MS = 150 * 1000;
const TRACE_NAME = 'NASA-iPSC-1993-3.1-cln.swf.gz';
const DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

// Local clock of grid time t at offset h (the page's convention: local = t − h·3600).
function localClock(t, h) {
  const week = 7 * 86400;
  const s = ((Math.floor(t - h * 3600) % week) + week) % week;
  const d = Math.floor(s / 86400);
  const m = Math.floor((s - d * 86400) / 60);
  return `${DAYS[d]} ${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
}

const openGrid = (browser, url, errors) => openMode(browser, url, errors, 'grid');
const waitIdle = (page, timeoutMs = 120000) => waitModeIdle(page, 'grid', timeoutMs);

// { config: { site: { key: number } } } from the data-value attributes of the result tables.
async function readTables(page) {
  return page.$$eval('#grid-tables table[data-config]', (tables) => {
    const out = {};
    for (const t of tables) {
      const rows = {};
      for (const tr of t.querySelectorAll('tbody tr')) {
        const row = {};
        for (const td of tr.querySelectorAll('td[data-key]')) row[td.dataset.key] = Number(td.dataset.value);
        rows[tr.dataset.site] = row;
      }
      out[t.dataset.config] = rows;
    }
    return out;
  });
}

async function errorText(page) {
  return page.$eval('[data-testid="grid-error"]', (e) => (e.hidden ? '' : e.textContent.trim()));
}

// The table expected from a CLI comparison: the same keys as the page's tables.
function expectedTables(cmp) {
  const out = {};
  for (const r of cmp.runs) {
    const rows = {};
    r.metrics.sites.forEach((s, i) => {
      rows[i] = {
        jobs: s.submitted.jobs, executed: s.executed.jobs, utilization: s.executed.utilization,
        awrt: s.submitted.awrt, awwt: s.submitted.awwt, awsd: s.submitted.awsd,
      };
    });
    const o = r.metrics.overall;
    rows.overall = { jobs: o.jobs, executed: o.jobs, utilization: o.utilization, awrt: o.awrt, awwt: o.awwt, awsd: o.awsd };
    out[r.sharing === 'job_sharing' ? 'sharing' : r.sharing] = rows;
  }
  return out;
}

function diff(a, b, path = '') {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) {
    return a === b || (Number.isNaN(a) && Number.isNaN(b)) ? [] : [`${path}: page ${a} vs cli ${b}`];
  }
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].flatMap((k) => diff(a[k], b[k], `${path}.${k}`));
}

function cliCompare(tmp, experiment, name) {
  const file = join(tmp, name);
  writeFileSync(file, JSON.stringify(experiment));
  return JSON.parse(execFileSync(BIN, ['grid', file, '--json'], { encoding: 'utf8', timeout: 120000 }));
}

async function main() {
  const tmp = mkdtempSync(join(tmpdir(), 'schedlab-grid-e2e-'));
  const url = await serveDist();
  const browser = await launchBrowser();
  const errors = loggedErrors();
  try {
    const page = await openGrid(browser, url, errors);
    check(await page.isVisible('#grid-mode') && !(await page.isVisible('#flat-mode')),
      'Grid tab shows the grid panel only');
    check(await page.isEnabled('[data-testid="grid-run"]'), 'grid worker ready, Run enabled');
    await shot(page, 'grid-01-editor.png');

    // 1. The preset, run: both configurations.
    await page.click('[data-testid="grid-add-site"]');
    await page.click('[data-testid="grid-preset"]');
    const rows = await page.$$eval('[data-testid="grid-site-row"]', (r) => r.length);
    check(rows === 4, 'preset fills the editor with 4 sites', String(rows));
    const t0 = Date.now();
    await page.click('[data-testid="grid-run"]');
    await page.waitForSelector('#grid-tables table[data-config="sharing"]', { timeout: 120000 });
    await waitIdle(page);
    log(`timing: preset run (2 × 40,000 jobs) ${Date.now() - t0} ms (informational)`);
    const table = await readTables(page);
    check(Object.keys(table).join() === 'single,sharing'
      && ['single', 'sharing'].every((c) => Object.keys(table[c]).length === 5
        && Object.values(table[c]).every((r) => Object.values(r).every(Number.isFinite))),
    'results: a table per configuration (4 sites + whole grid) of numbers', JSON.stringify(table).slice(0, 300));

    // 2. Against the CLI: the JSON download's experiment run by `schedlab grid --json`.
    const json = await download(page, '[data-testid="grid-export-json"]');
    const pageCmp = JSON.parse(json.text);
    check(json.name === 'schedlab-grid.json' && pageCmp.runs.length === 2, 'JSON download: both runs', json.name);
    let cli = null;
    if (!existsSync(BIN)) {
      check(false, 'native CLI available', `${BIN} not found`);
    } else {
      cli = cliCompare(tmp, pageCmp.experiment, 'preset.json');
      const d1 = diff(table, expectedTables(cli));
      check(d1.length === 0, 'tables equal `schedlab grid <experiment> --json`, number for number', d1.slice(0, 5).join('; '));
      const d2 = diff(pageCmp.runs.map((r) => r.metrics), cli.runs.map((r) => r.metrics));
      check(d2.length === 0, 'JSON download metrics equal the CLI\'s (every field)', d2.slice(0, 5).join('; '));
      check(cli.runs[1].metrics.overall.awrt < cli.runs[0].metrics.overall.awrt,
        'job sharing lowers the grid\'s AWRT (Ernemann et al.\'s claim)');
    }
    const pct = await page.$eval('[data-testid="grid-table-compare"] tr[data-site="overall"] td[data-key="awrt_pct"]',
      (td) => Number(td.dataset.value));
    check(Math.abs(pct - 100 * table.sharing.overall.awrt / table.single.overall.awrt) < 1e-9,
      'comparison: AWRT of job sharing in % of single', String(pct));
    const csv = await download(page, '[data-testid="grid-export-csv"]');
    const csvLines = csv.text.trim().split('\n');
    check(csvLines.length === 11 && csvLines[0].startsWith('configuration,site,procs')
      && Number(csvLines[5].split(',')[7]) === table.single.overall.awrt,
    'CSV download: header + 10 rows, values as in the table', `${csvLines.length} ${csvLines[5]}`);

    // 3. World clock: 4 sites at the final grid time, local time = grid time − offset.
    const clocks = await page.$$eval('[data-testid="grid-clock-site"]', (cs) => cs.map((c) => c.querySelector('.clock-time').textContent));
    const tEnd = Number(await page.getAttribute('[data-testid="grid-clock"]', 'data-time'));
    const want = [0, 6, 12, 18].map((h) => localClock(tEnd, h));
    check(clocks.length === 4 && JSON.stringify(clocks) === JSON.stringify(want) && tEnd > 86400,
      'world clock: 4 sites showing their local time at the end', `${clocks} vs ${want} at ${tEnd}`);

    // 4. Charts and the migration matrix.
    const ink = await chartsInk(page, '#grid-charts canvas');
    check(ink.length === 3 && ink.every((c) => c.ink > 0.01 && c.ink < 0.9), 'charts: 3 non-blank canvases', JSON.stringify(ink));
    const mig = await page.$eval('[data-testid="grid-migrations-table"]', (t) => {
      let off = 0;
      let all = 0;
      for (const td of t.querySelectorAll('td[data-home]')) {
        all += Number(td.dataset.value);
        if (td.dataset.home !== td.dataset.exec) off += Number(td.dataset.value);
      }
      return { off, all, migrated: Number(t.dataset.migrated) };
    });
    check(mig.off === mig.migrated && mig.migrated > 0 && mig.all === table.sharing.overall.jobs
      && (!cli || mig.migrated === cli.runs[1].metrics.migrated),
    'migration matrix: off-diagonal sum = migrated count (= CLI), total = all jobs', JSON.stringify(mig));
    await page.evaluate(() => window.scrollTo(0, 0));
    const svg = await download(page, '[data-testid="grid-svg-metrics"]');
    check(svg.name === 'schedlab-grid-metrics.svg' && /^<svg[\s\S]*AWRT \(hours\)[\s\S]*<\/svg>\s*$/.test(svg.text),
      'charts: the bar chart downloads as SVG (axis label)', svg.text.slice(0, 80));
    await shot(page, 'grid-02-results.png');
    await page.$eval('#grid-tables', (e) => e.scrollIntoView());
    await shot(page, 'grid-03-tables.png');
    await page.$eval('#grid-charts', (e) => e.scrollIntoView());
    await shot(page, 'grid-04-charts.png');
    await page.$eval('#grid-migrations', (e) => e.scrollIntoView({ block: 'end' }));
    await shot(page, 'grid-05-migrations.png');
    await page.evaluate(() => window.scrollTo(0, 0));

    // 5. The share link reopens the preset run with the same numbers.
    const href = await page.getAttribute('[data-testid="grid-share-link"]', 'href');
    check(/#e=[A-Za-z0-9_-]+\.[0-9a-f]{8}$/.test(href) && href.length < 2000, 'share link: #e= fragment (the experiment envelope)', `${href.length} chars`);
    const tab = await openTab(browser, href, errors);
    await tab.waitForSelector('#grid-mode:not([hidden]) #grid-tables table[data-config="sharing"]', { timeout: 120000 });
    await waitIdle(tab);
    const t2 = await readTables(tab);
    const dd = diff(t2, table);
    check(dd.length === 0, 'share link: a fresh tab opens the Grid tab and gives identical numbers', dd.slice(0, 3).join('; '));
    check(await tab.inputValue('[data-testid="grid-site-name-3"]') === 'Asia', 'share link: editor restored');
    await shot(tab, 'grid-10-share-reopened.png');
    await tab.goto('about:blank');
    await tab.goto(`${url}#g=garbage!!`);
    await tab.waitForSelector('#grid-mode[data-worker="ready"]', { timeout: 60000 });
    const eg = await errorText(tab);
    check(/cannot be opened/.test(eg) && /damaged/.test(eg), 'damaged grid link: inline error', eg);
    check(await tab.isEnabled('[data-testid="grid-run"]'), 'damaged grid link: page usable');
    await tab.close();

    // 6. Bad input: inline error, results kept.
    await page.fill('[data-testid="grid-site-procs-1"]', '0');
    await page.click('[data-testid="grid-run"]');
    let e = await errorText(page);
    check(/Site 2 \(Americas East\)/.test(e) && /nodes/.test(e), 'bad site size: inline error names the site', e);
    check(diff(await readTables(page), table).length === 0, 'bad site size: previous results kept');
    check(/invalid/.test(await page.getAttribute('[data-testid="grid-site-procs-1"]', 'class') ?? ''),
      'bad site size: the input is outlined');
    await shot(page, 'grid-06-error.png');
    await page.fill('[data-testid="grid-site-procs-1"]', '');
    await page.selectOption('[data-testid="grid-site-kind-2"]', 'trace');
    await page.click('[data-testid="grid-run"]');
    e = await errorText(page);
    check(/Site 3 \(Pacific\)/.test(e) && /choose a trace file/.test(e), 'missing upload: inline error', e);
    const bad = join(tmp, 'corrupt.swf');
    writeFileSync(bad, 'this is not\na trace\n\u0000\u0001\u0002');
    await page.setInputFiles('[data-testid="grid-site-file-2"]', bad);
    await page.waitForFunction(() => /cannot be used/.test(document.querySelector('[data-testid="grid-error"]').textContent)
      && !document.querySelector('[data-testid="grid-error"]').hidden, null, { timeout: 30000 });
    e = await errorText(page);
    check(/cannot be used/.test(e), 'corrupt trace: inline error', e);
    check(diff(await readTables(page), table).length === 0, 'corrupt trace: previous results kept');
    check(await page.isEnabled('[data-testid="grid-run"]'), 'corrupt trace: page usable');
    await shot(page, 'grid-07-corrupt-trace.png');

    // 7. A trace site, against the CLI (the page names the trace; the CLI reads its path).
    const tracePath = join(TRACES, TRACE_NAME);
    if (!existsSync(tracePath)) {
      log(`NOTICE: ${tracePath} is absent; skipping the trace site`);
    } else {
      await page.setInputFiles('[data-testid="grid-site-file-2"]', tracePath);
      await page.waitForFunction((n) => document.querySelector('[data-testid="grid-site-trace-2"]')?.textContent.includes(n),
        TRACE_NAME, { timeout: 60000 });
      await page.fill('[data-testid="grid-site-jobs-0"]', '3000');
      await page.click('[data-testid="grid-run"]');
      await page.waitForFunction(() => document.querySelector('#grid-tables [data-testid="grid-table-single"] tbody tr[data-site="2"] th')?.textContent === 'Pacific'
        && document.querySelector('#grid-mode').dataset.state === 'idle', null, { timeout: 120000, polling: 100 });
      const tt = await readTables(page);
      const tj = JSON.parse((await download(page, '[data-testid="grid-export-json"]')).text);
      const site = tj.experiment.sites[2].workload.swf;
      check(site && site.name === TRACE_NAME && /^[0-9a-f]{64}$/.test(site.sha256), 'trace site: named by file name and SHA-256');
      if (existsSync(BIN)) {
        const exp = JSON.parse(JSON.stringify(tj.experiment));
        exp.sites[2].workload = { swf: { path: tracePath } };
        const c2 = cliCompare(tmp, exp, 'trace.json');
        const d = diff(tt, expectedTables(c2));
        check(d.length === 0, `trace site: tables equal the CLI on ${TRACE_NAME}`, d.slice(0, 5).join('; '));
      }
      await shot(page, 'grid-08-trace-site.png');

      // The trace run's link asks for its file, then runs with the same numbers.
      const thref = await page.getAttribute('[data-testid="grid-share-link"]', 'href');
      const ttab = await openTab(browser, thref, errors);
      await ttab.waitForSelector('[data-testid="grid-notice"]:not([hidden])', { timeout: 30000 });
      const notice = await ttab.textContent('[data-testid="grid-notice"]');
      check(notice.includes(TRACE_NAME) && /site 3/.test(notice), 'trace link: asks for its trace file', notice.trim());
      await ttab.setInputFiles('[data-testid="grid-site-file-2"]', tracePath);
      await ttab.waitForSelector('#grid-tables table[data-config="sharing"]', { timeout: 120000 });
      await waitIdle(ttab);
      const dt = diff(await readTables(ttab), tt);
      check(dt.length === 0, 'trace link: after the upload it runs with identical numbers', dt.slice(0, 3).join('; '));
      await shot(ttab, 'grid-11-trace-link.png');
      await ttab.close();
      await page.click('[data-testid="grid-preset"]');
    }

    // 8. Cancel a long run: the previous results stay.
    const before = await readTables(page);
    for (let i = 0; i < 4; i += 1) await page.fill(`[data-testid="grid-site-jobs-${i}"]`, '200000');
    await page.click('[data-testid="grid-run"]');
    await page.waitForFunction(() => document.querySelector('#grid-progress').value > 0.02, null, { timeout: 60000, polling: 50 });
    const running = await page.$$eval('[data-testid="grid-clock-site"] .clock-time', (cs) => cs.map((c) => c.textContent));
    check(running.length === 4 && running.every((t) => /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d\d:\d\d$/.test(t)),
      'world clock runs during the simulation', running.join(', '));
    await shot(page, 'grid-09-running.png');
    await page.click('[data-testid="grid-cancel"]');
    await waitIdle(page, 20000);
    const label = await page.textContent('#grid-progress-label');
    check(/Cancelled/.test(label) && diff(await readTables(page), before).length === 0,
      'Cancel stops the run and keeps the previous results', label);

    check(errors.length === 0, 'no page errors', errors.join(' | '));
  } finally {
    await browser.close();
  }
}

runSuite('grid', BUDGET_MS, main);
