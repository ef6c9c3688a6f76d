// End-to-end test of the web app in headless Chromium (run by scripts/test.sh after
// `trunk build --release`). Serves dist/ with python3's http.server on a free port, then:
// runs the default experiment; uploads a real trace and checks EASY and FCFS against the
// native CLI, number for number; checks that bad input (machine too small, corrupt file,
// empty file) is reported inline while the previous results stay; cancels a long run; opens
// the share links of both runs in fresh tabs (same numbers; the trace link asks for its file and
// refuses another one) and damaged or future-version links (error, page usable); edits the
// model parameters (changed run, share link round trip, inline error naming the key).
// Screenshots go to test-output/e2e/. Prints `e2e: N passed, M failed`; exits 1 on failure.
//
// Environment: SCHEDLAB_BIN (native CLI, default target/debug/schedlab), SCHEDLAB_DIST
// (default dist), SCHEDLAB_TRACES (default ../shared/traces), CHROMIUM (default
// /usr/bin/chromium).

import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BIN, ROOT, TRACES, chartsInk, check, download, launchBrowser, log, longest, openTab, readFlatTable, runSuite,
  serveDist, shot, taskTimes,
} from './harness.mjs';

const TRACE_NAME = 'NASA-iPSC-1993-3.1-cln.swf.gz';
const KEYS = [
  'jobs', 'dropped', 'mean_wait', 'max_wait', 'mean_turnaround', 'mean_slowdown',
  'mean_bounded_slowdown', 'utilization', 'makespan', 'awrt', 'awwt', 'awsd',
];
const TOTAL_BUDGET_MS = 10 * 60 * 1000;

const readTable = readFlatTable;

function compareRow(actual, expected) {
  const diffs = [];
  for (const k of KEYS) {
    if (!(k in (actual ?? {}))) diffs.push(`${k} missing`);
    else if (actual[k] !== expected[k]) diffs.push(`${k}: page ${actual[k]} vs ${expected[k]}`);
  }
  return diffs;
}

async function waitIdleWithRows(page, rows, timeoutMs) {
  await page.waitForFunction(
    (n) => document.body.dataset.state === 'idle'
      && document.querySelectorAll('[data-testid="results"] tbody tr').length === n,
    rows,
    { timeout: timeoutMs, polling: 100 },
  );
}

async function errorText(page) {
  return page.$eval('[data-testid="error"]', (e) => (e.hidden ? '' : e.textContent.trim()));
}

// Plans, runs and merges the sweep file `text` with the CLI in `dir`; returns merged.json's path.
function cliSweep(dir, text) {
  writeFileSync(join(dir, 'sweep.json'), text);
  const plan = join(dir, 'plan');
  execFileSync(BIN, ['sweep', 'plan', join(dir, 'sweep.json'), '--out', plan], { stdio: 'pipe' });
  execFileSync(BIN, ['sweep', 'run', plan], { stdio: 'pipe' });
  execFileSync(BIN, ['sweep', 'merge', plan], { stdio: 'pipe' });
  return join(plan, 'merged.json');
}

async function setPolicies(page, wanted) {
  for (const p of ['fcfs', 'easy', 'conservative']) {
    await page.setChecked(`#policy-${p}`, wanted.includes(p), { timeout: 5000 });
  }
}

// Loads `link` in `p` as a new document (not a same-page fragment change) and waits for the
// simulator and for the error box.
async function openFresh(p, link) {
  await p.goto('about:blank');
  await p.goto(link, { timeout: 30000 });
  await p.waitForSelector('body[data-worker="ready"]', { timeout: 60000 });
  await p.waitForFunction(() => !document.querySelector('[data-testid="error"]').hidden, null,
    { timeout: 10000, polling: 100 });
}

// A share link fragment holding `json` in the page's layout (base64url of the JSON, `.`, a
// checksum); the checksum is left wrong on purpose: the version is judged first.
function packLink(json) {
  return `#x=${Buffer.from(json).toString('base64url')}.00000000`;
}

// Clicks `selector` and returns the downloaded file's name and text.
function swfJobLines(text) {
  return text.split('\n').filter((l) => l.trim() !== '' && !l.startsWith(';'));
}

// Share of non-background pixels of each chart canvas (0 = blank).
async function chartInk(page) {
  return page.$$eval('[data-testid="chart"] .charts canvas', (canvases) => canvases.map((c) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let ink = 0;
    for (let i = 0; i < d.length; i += 4) {
      if (d[i + 3] > 0 && (d[i] < 235 || d[i + 1] < 235 || d[i + 2] < 235)) ink += 1;
    }
    return { id: c.id, ink: ink / (c.width * c.height) };
  }));
}

// Pixels of a policy's colour in a canvas (its line is drawn).
async function colourPixels(page, id, rgb) {
  return page.$eval(`#${id}`, (c, [r, g, b]) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) {
      if (Math.abs(d[i] - r) < 30 && Math.abs(d[i + 1] - g) < 30 && Math.abs(d[i + 2] - b) < 30) n += 1;
    }
    return n;
  }, rgb);
}

async function shareHref(page) {
  await page.waitForSelector('[data-testid="share-link"]', { state: 'visible', timeout: 10000 });
  return page.getAttribute('[data-testid="share-link"]', 'href');
}

async function main() {
  const tmp = mkdtempSync(join(tmpdir(), 'schedlab-e2e-'));
  const url = await serveDist();
  let browser;
  try {
    browser = await launchBrowser();
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    page.setDefaultTimeout(30000);
    const pageErrors = [];
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    page.on('console', (m) => {
      if (m.type() === 'error') pageErrors.push(m.text());
    });

    // 1. The page loads and the worker reports ready.
    const tLoad = Date.now();
    await page.goto(url, { timeout: 30000 });
    await page.waitForSelector('body[data-worker="ready"]', { timeout: 60000 });
    const readyMs = Date.now() - tLoad;
    check(await page.isEnabled('[data-testid="run"]'), 'worker ready, Run enabled');
    check(await page.isDisabled('[data-testid="cancel"]'), 'Cancel disabled while idle');
    await shot(page, '01-ready.png');

    // 2. The default experiment (Lublin–Feitelson, all three policies, seed 42).
    const tRun = Date.now();
    await page.click('[data-testid="run"]');
    await waitIdleWithRows(page, 3, 180000);
    log(`timing: page load → simulator ready ${readyMs} ms; Run → 3 results and charts ${Date.now() - tRun} ms `
      + '(informational, not checked)');
    let table = await readTable(page);
    const defaultTable = JSON.parse(JSON.stringify(table));
    const defaultForm = { jobs: await page.inputValue('#jobs'), procs: await page.inputValue('#procs') };
    const allNumbers = Object.values(table).every((row) => KEYS.every((k) => Number.isFinite(row[k])));
    check(Object.keys(table).length === 3 && allNumbers, 'default run: 3 rows of numbers',
      JSON.stringify(table));
    // The page's default run (1,000 jobs, small enough for every per-job view) against the CLI.
    check(defaultForm.jobs === '1000' && defaultForm.procs === '128', 'default run: 1,000 jobs on 128 processors',
      JSON.stringify(defaultForm));
    if (existsSync(BIN)) {
      const exp = join(mkdtempSync(join(tmpdir(), 'schedlab-default-')), 'default.json');
      writeFileSync(exp, JSON.stringify({ workload: { synthetic: { model: 'lublin', jobs: 1000 } }, policy: 'easy', seed: 42 }));
      const cli = JSON.parse(execFileSync(BIN, ['run', exp], { encoding: 'utf8' }));
      const gd = compareRow(table.easy, cli);
      check(gd.length === 0, 'default run: EASY row equals `schedlab run` of the same experiment', gd.join('; '));
    } else {
      check(false, 'native CLI available for comparison', `${BIN} not found (build it with cargo build)`);
    }
    const caption = await page.textContent('#results-caption');
    check(/Lublin/.test(caption) && /seed 42/.test(caption), 'default run: caption describes the experiment', caption);
    await shot(page, '02-default-results.png');

    // 2c. Charts: three non-blank canvases with a line of each policy's colour.
    {
      await page.waitForSelector('[data-testid="chart"]:not([hidden])', { timeout: 10000 });
      const ink = await chartInk(page);
      check(ink.length === 3 && ink.every((c) => c.ink > 0.01 && c.ink < 0.9), 'charts: 3 non-blank canvases',
        JSON.stringify(ink));
      const colours = { fcfs: [0xd1, 0x49, 0x5b], easy: [0x2e, 0x6f, 0xdf], conservative: [0x1f, 0x9d, 0x7a] };
      for (const id of ['chart-util', 'chart-queue', 'chart-wait']) {
        const counts = {};
        for (const [p, rgb] of Object.entries(colours)) counts[p] = await colourPixels(page, id, rgb);
        check(Object.values(counts).every((n) => n > 20), `charts: ${id} has a line per policy`, JSON.stringify(counts));
      }
      const png = await download(page, '[data-testid="png-util"]');
      check(png.name === 'schedlab-utilisation.png' && png.text.startsWith('\ufffdPNG'),
        'charts: utilisation chart downloads as PNG', png.name);
      for (const [link, name] of [['#png-chart-queue', 'schedlab-queue.png'], ['#png-chart-wait', 'schedlab-waits.png']]) {
        const other = await download(page, link);
        check(other.name === name && other.text.startsWith('\ufffdPNG'), `charts: ${name} downloads as PNG (made on click)`, other.name);
      }
      const svg = await download(page, '[data-testid="svg-util"]');
      check(svg.name === 'schedlab-utilisation.svg' && /^<svg[\s\S]*Utilisation over time[\s\S]*Processors busy[\s\S]*<\/svg>\s*$/.test(svg.text),
        'charts: utilisation chart downloads as SVG (title, axis label)', svg.text.slice(0, 120));
      await page.$eval('[data-testid="chart"]', (e) => e.scrollIntoView());
      await shot(page, '02e-charts.png');
      await page.evaluate(() => window.scrollTo(0, 0));
    }

    // 2a. Exports of the default run: summary CSV/JSON with the table's numbers, per-job CSV,
    // the schedule as SWF.
    {
      const sc = await download(page, '[data-testid="export-summary-csv"]');
      const rows = sc.text.trim().split('\n').map((l) => l.split(','));
      check(sc.name === 'schedlab-summary.csv' && rows[0].join(',') === ['policy', ...KEYS].join(','),
        'export: summary CSV header', rows[0].join(','));
      const csvTable = {};
      for (const r of rows.slice(1)) {
        csvTable[r[0]] = Object.fromEntries(KEYS.map((k, i) => [k, Number(r[i + 1])]));
      }
      check(JSON.stringify(csvTable) === JSON.stringify(table), 'export: summary CSV equals the table',
        JSON.stringify(csvTable));
      const sj = await download(page, '[data-testid="export-summary-json"]');
      const arr = JSON.parse(sj.text);
      check(arr.length === 3 && arr.every((x) => compareRow(table[x.policy], x.summary).length === 0
        && x.experiment.policy === x.policy && x.experiment.seed === 42),
      'export: summary JSON has experiment and summary per policy');
      const jc = await download(page, '[data-testid="export-jobs-easy"]');
      const jl = jc.text.trim().split('\n');
      check(jc.name === 'schedlab-easy-jobs.csv' && jl[0].startsWith('id,submit,start,end,procs')
        && jl.length === 1001, 'export: per-job CSV (header, 1,000 jobs)', `${jc.name} ${jl[0]} ${jl.length}`);
      const sw = await download(page, '[data-testid="export-swf-easy"]');
      check(sw.name === 'schedlab-easy-schedule.swf' && swfJobLines(sw.text).length === 1000
        && swfJobLines(sw.text)[0].trim().split(/\s+/).length === 18,
      'export: schedule as SWF (1,000 jobs of 18 fields)', `${sw.name} ${swfJobLines(sw.text).length}`);
      await shot(page, '02a-exports.png');
    }

    // 2b. The share link of the default run: in the address bar, and a fresh tab opening it
    // restores the form and gives the same numbers.
    const link2 = await shareHref(page);
    check(/#e=[A-Za-z0-9_-]+\.[0-9a-f]{8}$/.test(link2) && link2.length < 600, 'share link: compact #e= fragment (the experiment envelope)',
      `${link2.length} chars: ${link2}`);
    check(page.url() === link2, 'share link: written into the address bar', page.url());
    {
      const tab = await openTab(browser, link2, pageErrors);
      await waitIdleWithRows(tab, 3, 180000);
      const t2 = await readTable(tab);
      check(JSON.stringify(t2) === JSON.stringify(table), 'share link: reopened default run gives the same table',
        `${JSON.stringify(t2)} vs ${JSON.stringify(table)}`);
      check(await tab.inputValue('#seed') === '42' && await tab.inputValue('#jobs') === '1000',
        'share link: form restored');
      await shot(tab, '02b-share-link-reopened.png');
      // The same run as an old `#x=` link (envelope v 1, no mode): still opens, same numbers.
      {
        const env = JSON.parse(Buffer.from(link2.split('#e=')[1].split('.')[0], 'base64url').toString());
        check(env.v === 2 && env.mode === 'flat', 'share link: envelope v 2, mode flat', JSON.stringify(env).slice(0, 200));
        delete env.mode;
        env.v = 1;
        const oldJson = JSON.stringify(env);
        let h = 0x811c9dc5;
        for (const b of Buffer.from(oldJson)) h = Math.imul(h ^ b, 0x01000193) >>> 0;
        const old = `${url}#x=${Buffer.from(oldJson).toString('base64url')}.${h.toString(16).padStart(8, '0')}`;
        const tabOld = await openTab(browser, old, pageErrors);
        await waitIdleWithRows(tabOld, 3, 180000);
        const tOld = await readTable(tabOld);
        check(JSON.stringify(tOld) === JSON.stringify(table), 'old #x= share link: opens, same table',
          `${JSON.stringify(tOld)} vs ${JSON.stringify(table)}`);
        await tabOld.close();
        // A link to a run far above the page's work bound (200,000 jobs under conservative
        // backfilling at load factor 5): not started by itself; the estimate is shown and
        // Run stays enabled (docs/limits.md, "Work bounds").
        const heavy = JSON.parse(Buffer.from(link2.split('#e=')[1].split('.')[0], 'base64url').toString());
        heavy.experiment.workload.synthetic.jobs = 200000;
        heavy.experiment.transforms = { ...(heavy.experiment.transforms ?? {}), load_factor: 5 };
        heavy.experiment.policy = 'conservative';
        heavy.policies = ['conservative'];
        const heavyJson = JSON.stringify(heavy);
        let hh = 0x811c9dc5;
        for (const b of Buffer.from(heavyJson)) hh = Math.imul(hh ^ b, 0x01000193) >>> 0;
        const tabHeavy = await openTab(browser, `${url}#e=${Buffer.from(heavyJson).toString('base64url')}.${hh.toString(16).padStart(8, '0')}`, pageErrors);
        await tabHeavy.waitForFunction(() => /press Run to start it/.test(document.querySelector('#progress-label').textContent), null, { timeout: 120000 });
        const heldLabel = await tabHeavy.textContent('#progress-label');
        check(/^This run is estimated at about \d+ (min|h|days) in this tab \(.*conservative backfilling under overload/.test(heldLabel)
          && await tabHeavy.evaluate(() => document.body.dataset.state) === 'idle'
          && await tabHeavy.isEnabled('[data-testid="run"]')
          && (await tabHeavy.$$('[data-testid="results"] tbody tr')).length === 0,
        'a flat link far above the work bound is held with its estimate; Run enabled', heldLabel);
        await shot(tabHeavy, '02h-held-link.png');
        await tabHeavy.close();
      }

      // Damaged and future-version links: error shown, page usable.
      await openFresh(tab, `${url}#x=garbage!!`);
      const eg = await errorText(tab);
      check(/share link cannot be opened/.test(eg) && /damaged/.test(eg), 'garbled share link: error shown', eg);
      check(await tab.isEnabled('[data-testid="run"]'), 'garbled share link: page usable');
      await shot(tab, '02c-garbled-link.png');
      const cut = link2.slice(0, link2.indexOf('#e=') + 3 + Math.floor((link2.length - link2.indexOf('#e=')) / 2));
      await openFresh(tab, cut.replace(/^[^#]*/, url));
      const ec = await errorText(tab);
      check(/share link cannot be opened/.test(ec), 'truncated share link: error shown', ec);
      const future = packLink(JSON.stringify({ v: 2, experiment: {}, policies: ['easy'] }));
      await openFresh(tab, `${url}${future}`);
      const ev = await errorText(tab);
      check(/format 2/.test(ev) && /reads format 1/.test(ev), 'share link from another version: says why', ev);
      await shot(tab, '02d-future-link.png');
      // Still usable: a run works after the bad link.
      await setPolicies(tab, ['fcfs', 'easy']);
      await tab.fill('#jobs', '500');
      await tab.click('[data-testid="run"]');
      await waitIdleWithRows(tab, 2, 60000);
      check(true, 'after a bad share link a run completes');

      // Gantt chart of this small run: drawn, and hovering a job shows it.
      await tab.waitForSelector('#gantt-box:not([hidden])', { timeout: 10000 });
      const g = await tab.$eval('#chart-gantt', (c) => {
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let ink = 0;
        for (let i = 0; i < d.length; i += 4) if (d[i] < 235 || d[i + 1] < 235 || d[i + 2] < 235) ink += 1;
        return ink / (c.width * c.height);
      });
      check(g > 0.05, 'gantt: the chart of a 500-job run is drawn', `ink ${g}`);
      await tab.$eval('#gantt-box', (e) => e.scrollIntoView({ block: 'center' }));
      const box = await tab.$eval('#chart-gantt', (c) => {
        const r = c.getBoundingClientRect();
        return { x: r.x, y: r.y, w: r.width, h: r.height };
      });
      let tip = '';
      for (const [fx, fy] of [[0.3, 0.8], [0.5, 0.7], [0.4, 0.6], [0.6, 0.75], [0.2, 0.7], [0.7, 0.8]]) {
        await tab.mouse.move(box.x + box.w * fx, box.y + box.h * fy);
        await tab.waitForTimeout(100);
        tip = await tab.$eval('#gantt-tip', (e) => (e.hidden ? '' : e.textContent));
        if (tip) break;
      }
      check(/^Job \d+ · \d+ processor/.test(tip) && /waited/.test(tip), 'gantt: hovering a job shows it', tip);
      // FCFS: every job's explanation ends with its start in queue order (docs/explanations.md).
      check(/Why:(\n.*)*\nt = [\d,.]+ s( \([^)]*\))?: started in queue order: needs \d+, \d+ free$/.test(tip),
        'gantt: the hover says why the job started when it did', tip);
      await shot(tab, '02f-gantt-hover.png');
      // The step-by-step replay card of the explained runs (tests/e2e/replay.mjs tests it).
      const replayRuns = await tab.$$eval('[data-testid="replay-pick"] option', (o) => o.map((x) => x.textContent));
      check(await tab.isVisible('#replay') && replayRuns.join() === 'FCFS,EASY backfilling',
        'replay: the card offers both runs of 500 jobs', replayRuns.join());

      // 2g. Run comparison: EASY against FCFS on the same 500 jobs.
      await tab.waitForSelector('[data-testid="compare"]:not([hidden])', { timeout: 10000 });
      const picks = [await tab.inputValue('#compare-a'), await tab.inputValue('#compare-b')];
      check(picks.join() === 'fcfs,easy', 'compare: run A is FCFS and run B is EASY by default', picks.join());
      const cs = await tab.textContent('[data-testid="compare-summary"]');
      const m = /^EASY backfilling against FCFS: (\d+) of 500 jobs start earlier under EASY backfilling, (\d+) later, (\d+) at the same time\.$/.exec(cs);
      check(m && Number(m[1]) > 0 && Number(m[1]) + Number(m[2]) + Number(m[3]) === 500,
        'compare: EASY starts some jobs earlier than FCFS, and the counts add up to 500', cs);
      const first = await tab.$eval('[data-testid="compare-jobs"] tbody tr', (r) => ({
        cls: r.className, cells: [...r.cells].map((c) => c.textContent),
      }));
      const fcfsJobs = await download(tab, '[data-testid="export-jobs-fcfs"]');
      const easyJobs = await download(tab, '[data-testid="export-jobs-easy"]');
      const startOf = (csv, id) => {
        const lines = csv.text.trim().split('\n');
        const head = lines[0].split(',');
        const row = lines.slice(1).map((l) => l.split(',')).find((r) => r[head.indexOf('id')] === id);
        return row ? Number(row[head.indexOf('start')]) : NaN;
      };
      const job = first.cells[0];
      const [sa, sb] = [startOf(fcfsJobs, job), startOf(easyJobs, job)];
      check(first.cls === 'earlier' && first.cells[5].startsWith('−') && sb < sa,
        `compare: the first row (largest gain) is job ${job}, which EASY starts earlier than FCFS (per-job exports: ${sb} < ${sa})`,
        JSON.stringify(first));
      const cmpCsv = await download(tab, '[data-testid="compare-csv"]');
      const cmpRows = cmpCsv.text.trim().split('\n');
      const row = cmpRows.map((l) => l.split(',')).find((r) => r[0] === job);
      check(cmpRows[0] === 'job,procs,submit,start_a,start_b,shift' && cmpRows.length === 501
        && row && Number(row[3]) === sa && Number(row[4]) === sb && Number(row[5]) === sb - sa,
        'compare: the per-job CSV has 500 jobs and the exports\' starts and shift', row ? row.join(',') : cmpRows[0]);
      const metricKeys = await tab.$$eval('[data-testid="compare-metrics"] tbody tr', (r) => r.map((x) => x.dataset.key));
      check(metricKeys.join() === 'mean_wait,max_wait,mean_turnaround,mean_bounded_slowdown,utilization,makespan',
        'compare: the metric deltas table', metricKeys.join());
      const [hist] = await chartsInk(tab, '#chart-compare');
      check(hist && hist.ink > 0.01, 'compare: the histogram of start shifts is drawn', JSON.stringify(hist));
      await tab.click('[data-testid="compare-jobs"] thead th[data-col="0"]');
      const ids = await tab.$$eval('[data-testid="compare-jobs"] tbody tr', (r) => r.map((x) => Number(x.cells[0].textContent)));
      check(ids.length === 100 && ids.every((v, i) => i === 0 || ids[i - 1] <= v) && ids[0] === 1,
        'compare: clicking "Job" sorts the table by job number', ids.slice(0, 5).join());
      await tab.$eval('[data-testid="compare"]', (e) => e.scrollIntoView({ block: 'start' }));
      await shot(tab, '02g-compare.png');
      await tab.close();
    }

    // 3. A real trace, EASY vs FCFS, against the native CLI.
    let traceTable = null;
    const tracePath = join(TRACES, TRACE_NAME);
    if (!existsSync(tracePath)) {
      log(`NOTICE: ${tracePath} is absent; skipping the trace steps`);
    } else {
      await page.setInputFiles('[data-testid="upload"]', tracePath, { timeout: 10000 });
      await page.waitForSelector(`body[data-trace="${TRACE_NAME}"]`, { timeout: 60000 });
      check(await page.isChecked('#wl-trace'), 'trace upload selects the trace workload');
      {
        const summary = await page.textContent('#trace-label');
        check(/18,239 jobs/.test(summary) && /spans \d+ days/.test(summary) && /US\/Pacific/.test(summary),
          'trace upload: header summary shows jobs, time span and time zone', summary.replace(/\s+/g, ' '));
      }
      await setPolicies(page, ['fcfs', 'easy']);
      await page.click('[data-testid="run"]');
      await waitIdleWithRows(page, 2, 180000);
      table = await readTable(page);
      traceTable = JSON.parse(JSON.stringify(table));
      if (!existsSync(BIN)) {
        check(false, 'native CLI available for comparison', `${BIN} not found (build it with cargo build)`);
      } else {
        for (const policy of ['easy', 'fcfs']) {
          const out = execFileSync(BIN, ['run', '--swf', tracePath, '--policy', policy], {
            encoding: 'utf8', timeout: 120000,
          });
          const cli = JSON.parse(out);
          const d = compareRow(table[policy], cli);
          check(d.length === 0, `trace run: ${policy} row equals \`schedlab run --swf ${TRACE_NAME} --policy ${policy}\``,
            d.join('; '));
        }
      }
      await shot(page, '03-trace-results.png');

      // 3a. The per-job CSV and the SWF schedule of the trace run equal the CLI's files.
      if (existsSync(BIN)) {
        const csvOut = join(tmp, 'cli-jobs.csv');
        const swfOut = join(tmp, 'cli-schedule.swf');
        execFileSync(BIN, ['run', '--swf', tracePath, '--policy', 'easy', '--jobs-csv', csvOut,
          '--swf-out', swfOut], { encoding: 'utf8', timeout: 120000 });
        const jc = await download(page, '[data-testid="export-jobs-easy"]');
        check(jc.text === readFileSync(csvOut, 'utf8'),
          'export: trace per-job CSV equals `schedlab run --jobs-csv`', `${jc.text.length} vs ${readFileSync(csvOut, 'utf8').length} chars`);
        const sw = await download(page, '[data-testid="export-swf-easy"]');
        check(sw.text === readFileSync(swfOut, 'utf8'),
          'export: trace schedule SWF equals `schedlab run --swf-out`', `${sw.text.length} vs ${readFileSync(swfOut, 'utf8').length} chars`);
      }

      // 3b. The trace run's share link: asks for the file, refuses another one, runs the
      // right one with the same numbers.
      const link3 = await shareHref(page);
      {
        const tab = await openTab(browser, link3, pageErrors);
        await tab.waitForSelector('#share-notice:not([hidden])', { timeout: 10000 });
        const notice = await tab.textContent('#share-notice-text');
        check(notice.includes(TRACE_NAME) && /SHA-256/.test(notice), 'trace share link: asks for the trace', notice);
        const other = join(tmp, 'other.swf');
        writeFileSync(other, '; MaxProcs: 128\n1 0 0 100 4 -1 -1 4 100 -1 1 1 1 1 1 -1 -1 -1\n');
        await tab.setInputFiles('[data-testid="upload"]', other, { timeout: 10000 });
        await tab.waitForFunction(() => !document.querySelector('[data-testid="error"]').hidden, null,
          { timeout: 30000, polling: 100 });
        const ew = await errorText(tab);
        check(/not the trace of this share link/.test(ew) && /SHA-256/.test(ew),
          'trace share link: a file with another hash is refused', ew);
        check(await tab.$$eval('[data-testid="results"] tbody tr', (r) => r.length) === 0,
          'trace share link: nothing ran on the wrong file');
        await shot(tab, '03b-share-link-wrong-trace.png');
        await tab.setInputFiles('[data-testid="upload"]', tracePath, { timeout: 10000 });
        await waitIdleWithRows(tab, 2, 180000);
        const t3 = await readTable(tab);
        check(JSON.stringify(t3) === JSON.stringify(table), 'trace share link: same numbers with the right file',
          `${JSON.stringify(t3)} vs ${JSON.stringify(table)}`);
        await shot(tab, '03c-share-link-trace-reopened.png');
        await tab.close();
      }

      // 4. A machine smaller than the largest job: inline error, results kept.
      const before = await page.innerHTML('[data-testid="results"]');
      await page.fill('#procs', '16');
      await page.click('[data-testid="run"]');
      await page.waitForFunction(
        () => !document.querySelector('[data-testid="error"]').hidden && document.body.dataset.state === 'idle',
        null, { timeout: 60000, polling: 100 },
      );
      const e4 = await errorText(page);
      check(/smaller/.test(e4), 'machine smaller than the jobs: error shown', e4);
      check(await page.innerHTML('[data-testid="results"]') === before, 'machine smaller than the jobs: results kept');
      await shot(page, '04-machine-too-small.png');
      await page.fill('#procs', '');
    }

    // 5. A corrupt file: inline error, results and the loaded trace kept.
    const before5 = await page.innerHTML('[data-testid="results"]');
    const traceBefore = await page.getAttribute('body', 'data-trace');
    const corrupt = join(tmp, 'corrupt.swf.gz');
    writeFileSync(corrupt, randomBytes(64 * 1024));
    await page.click('#error-close', { timeout: 5000 }).catch(() => {});
    await page.setInputFiles('[data-testid="upload"]', corrupt, { timeout: 10000 });
    await page.waitForFunction(() => !document.querySelector('[data-testid="error"]').hidden, null,
      { timeout: 30000, polling: 100 });
    const e5 = await errorText(page);
    check(e5.length > 10 && /corrupt\.swf\.gz/.test(e5), 'corrupt upload: error names the file', e5);
    check(await page.innerHTML('[data-testid="results"]') === before5, 'corrupt upload: results kept');
    check(await page.getAttribute('body', 'data-trace') === traceBefore, 'corrupt upload: loaded trace kept');
    await page.waitForSelector('[data-testid="run"]:not([disabled])', { timeout: 10000 });
    await shot(page, '05-corrupt-upload.png');

    // 6. An empty file.
    const empty = join(tmp, 'empty.swf');
    writeFileSync(empty, '');
    await page.click('#error-close', { timeout: 5000 });
    await page.setInputFiles('[data-testid="upload"]', empty, { timeout: 10000 });
    await page.waitForFunction(() => !document.querySelector('[data-testid="error"]').hidden, null,
      { timeout: 30000, polling: 100 });
    const e6 = await errorText(page);
    check(/empty/i.test(e6), 'empty upload: error shown', e6);
    check(await page.innerHTML('[data-testid="results"]') === before5, 'empty upload: results kept');

    // 6b. A 2 GB file (sparse: no disk used): refused by size before reading, naming the limit.
    const huge = join(tmp, 'huge.swf');
    writeFileSync(huge, '');
    truncateSync(huge, 2 * 1024 * 1024 * 1024);
    await page.click('#error-close', { timeout: 5000 });
    await page.setInputFiles('[data-testid="upload"]', huge, { timeout: 30000 });
    await page.waitForFunction(() => /too large/.test(document.querySelector('#error-text').textContent),
      null, { timeout: 30000, polling: 100 });
    const e7 = await errorText(page);
    check(/huge\.swf/.test(e7) && /too large/.test(e7) && /512/.test(e7),
      '2 GB upload: error names the file and the limit', e7);
    check(await page.innerHTML('[data-testid="results"]') === before5, '2 GB upload: results kept');
    rmSync(huge, { force: true });

    // 7. Cancel a long run: stops promptly, results kept.
    await page.click('#error-close', { timeout: 5000 });
    await page.check('#wl-synthetic');
    await page.fill('#jobs', '1000000');
    await page.fill('#load-factor', '2');
    await setPolicies(page, ['conservative']);
    // Watch the main thread: the page must never freeze (no task over 100 ms of CPU, from
    // Chromium's trace: `taskTimes`) while the worker simulates.
    const running = await taskTimes(browser, page, async () => {
      await page.click('[data-testid="run"]');
      await page.waitForFunction(
        () => Number(document.querySelector('[data-testid="progress"]').value) > 0,
        null, { timeout: 120000, polling: 100 },
      );
      const progressText = await page.textContent('#progress-label');
      check(/\/ 1,000,000 jobs/.test(progressText), 'long run: progress shows jobs simulated / total', progressText);
      await shot(page, '06-running.png');
    });
    // Cancel stops the run at once: from the click to idle, the workers spend under 200 ms
    // of CPU (the slice under way, then the answer).
    const cancelling = await taskTimes(browser, page, async () => {
      const tCancel = Date.now();
      await page.click('[data-testid="cancel"]');
      await page.waitForSelector('body[data-state="idle"]', { timeout: 30000 });
      return Date.now() - tCancel;
    });
    const cancelMs = cancelling.result;
    const cancelCpu = cancelling.workers.reduce((sum, t) => sum + t.cpu, 0);
    check(cancelCpu < 200, 'cancel: the run stops within 200 ms of the workers\' CPU',
      `${cancelCpu.toFixed(0)} ms of CPU, ${cancelMs} ms of wall time`);
    const cancelRun = { main: [...running.main, ...cancelling.main] };
    check(/Cancelled/.test(await page.textContent('#progress-label')), 'cancel: progress line says Cancelled');
    const worstTask = longest(cancelRun.main);
    check(worstTask.cpu <= 100, 'long run: no main-thread task over 100 ms of CPU from Run to Cancel',
      `${cancelRun.main.length} tasks, longest ${worstTask.cpu.toFixed(0)} ms of CPU`);
    log(`timing: main-thread tasks from Run to Cancel of a 1,000,000-job run: ${cancelRun.main.length}, `
      + `longest ${worstTask.cpu.toFixed(0)} ms of CPU, ${worstTask.wall.toFixed(0)} ms of wall time; `
      + `Cancel to idle ${cancelCpu.toFixed(0)} ms of the workers' CPU, ${cancelMs} ms of wall time`);
    check(await page.innerHTML('[data-testid="results"]') === before5, 'cancel: results kept');
    await shot(page, '07-cancelled.png');

    // 7b. A whole 100,000-job replay, results and charts included: the main thread never
    // runs a task over 100 ms of CPU (the page never freezes).
    await page.fill('#jobs', '100000');
    await page.fill('#load-factor', '1');
    await setPolicies(page, ['easy']);
    const t100k = Date.now();
    const run100k = await taskTimes(browser, page, async () => {
      await page.click('[data-testid="run"]');
      await waitIdleWithRows(page, 1, 180000);
    });
    const worst100k = longest(run100k.main);
    check(worst100k.cpu <= 100, '100k-job replay: no main-thread task over 100 ms of CPU (run, table and charts)',
      `${run100k.main.length} tasks, longest ${worst100k.cpu.toFixed(0)} ms of CPU`);
    log(`timing: 100,000-job EASY replay ${Date.now() - t100k} ms; main-thread tasks: `
      + `${run100k.main.length}, longest ${worst100k.cpu.toFixed(0)} ms of CPU, `
      + `${worst100k.wall.toFixed(0)} ms of wall time`);

    // 8. A load-factor sweep of the default experiment: 3 load factors × 2 policies = 6 rows,
    // run on a pool of workers; the load factor 1 rows equal the single runs; the chart
    // "metric vs. load factor" is drawn; the share link restores and reruns the sweep.
    {
      await page.fill('#jobs', defaultForm.jobs);
      await page.fill('#procs', defaultForm.procs);
      await page.fill('#seed', '42');
      await setPolicies(page, ['fcfs', 'easy']);
      await page.check('#sweep');
      // Bad sweeps: inline errors, nothing runs.
      await page.fill('#sweep-from', '1');
      await page.fill('#sweep-to', '0.5');
      await page.fill('#sweep-step', '0.5');
      await page.click('[data-testid="run"]');
      const eTo = await errorText(page);
      check(/to/.test(eTo) && /≥/.test(eTo), 'sweep: "to" below "from" is an inline error', eTo);
      await page.fill('#sweep-from', '0.01');
      await page.fill('#sweep-to', '100');
      await page.fill('#sweep-step', '0.01');
      await page.click('[data-testid="run"]');
      const eMany = await errorText(page);
      check(/at most 50/.test(eMany), 'sweep: more than 50 points is an inline error', eMany);
      await page.click('#error-close', { timeout: 5000 });
      await page.fill('#sweep-from', '0.5');
      await page.fill('#sweep-to', '1.5');
      await page.fill('#sweep-step', '0.5');
      await shot(page, '08a-sweep-form.png');
      // Every progress line, recorded as it changes: the default run's 1,000 jobs make a
      // sweep short enough to end between two polls.
      await page.evaluate(() => {
        const label = document.querySelector('#progress-label');
        window.__labels = [];
        new MutationObserver(() => window.__labels.push(label.textContent))
          .observe(label, { childList: true, characterData: true, subtree: true });
      });
      const tSweep = Date.now();
      await page.click('[data-testid="run"]');
      await waitIdleWithRows(page, 6, 180000);
      const labels = await page.evaluate(() => window.__labels);
      const sweepLabel = labels.find((l) => /Sweep: \d+ \/ 6 points/.test(l)) ?? labels.join(' | ');
      check(/Sweep: \d+ \/ 6 points done · \d+ workers?/.test(sweepLabel), 'sweep: progress shows points done / total', sweepLabel);
      log(`timing: sweep of 6 runs ${Date.now() - tSweep} ms (informational)`);
      const rows = await page.$$eval('[data-testid="results"] tbody tr', (trs) => trs.map((tr) => {
        const row = { policy: tr.dataset.policy, load: Number(tr.dataset.load) };
        for (const td of tr.querySelectorAll('td[data-key]')) row[td.dataset.key] = Number(td.dataset.value);
        return row;
      }));
      const pairs = rows.map((r) => `${r.policy}@${r.load}`).sort().join(',');
      check(rows.length === 6 && pairs === 'easy@0.5,easy@1,easy@1.5,fcfs@0.5,fcfs@1,fcfs@1.5',
        'sweep: 6 rows, one per (policy, load factor)', pairs);
      for (const p of ['fcfs', 'easy']) {
        const r = rows.find((x) => x.policy === p && x.load === 1);
        const d = compareRow(r, defaultTable[p]);
        check(d.length === 0, `sweep: ${p} at load factor 1 equals the single run`, d.join('; '));
      }
      const waits = (p) => rows.filter((x) => x.policy === p).sort((a, b) => a.load - b.load).map((x) => x.mean_wait);
      check(waits('fcfs')[0] < waits('fcfs')[2], 'sweep: FCFS waits grow with the load', JSON.stringify(waits('fcfs')));
      const hidden = await page.$eval('#sweep-chart', (e) => e.hidden);
      const sweepInk = await page.$eval('#chart-sweep', (c) => {
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let ink = 0;
        for (let i = 0; i < d.length; i += 4) {
          if (d[i + 3] > 0 && (d[i] < 235 || d[i + 1] < 235 || d[i + 2] < 235)) ink += 1;
        }
        return ink / (c.width * c.height);
      });
      check(!hidden && sweepInk > 0.01 && sweepInk < 0.9, 'sweep: chart canvas is non-blank', String(sweepInk));
      const fcfsInk = await colourPixels(page, 'chart-sweep', [0xd1, 0x49, 0x5b]);
      const easyInk = await colourPixels(page, 'chart-sweep', [0x2e, 0x6f, 0xdf]);
      check(fcfsInk > 20 && easyInk > 20, 'sweep: chart has a line per policy', `${fcfsInk} ${easyInk}`);
      await page.selectOption('#sweep-metric', 'utilization');
      const svg = await download(page, '#svg-chart-sweep');
      check(/Utilization vs\. load factor/.test(svg.text) && /Load factor/.test(svg.text),
        'sweep: metric picker redraws the chart (SVG title and axis)', svg.text.slice(0, 200));
      await page.selectOption('#sweep-metric', 'mean_wait');
      await page.$eval('[data-testid="results"]', (e) => e.scrollIntoView());
      await shot(page, '08-sweep-table.png');
      await page.$eval('[data-testid="chart"]', (e) => e.scrollIntoView());
      await shot(page, '08-sweep.png');
      await page.evaluate(() => window.scrollTo(0, 0));

      // The share link carries the sweep: a fresh tab restores the form and reruns it.
      const link = await shareHref(page);
      const errors = [];
      const tab = await openTab(browser, link, errors);
      await waitIdleWithRows(tab, 6, 180000);
      const swept = await tab.isChecked('#sweep');
      const fields = [await tab.inputValue('#sweep-from'), await tab.inputValue('#sweep-to'), await tab.inputValue('#sweep-step')];
      const rows2 = await tab.$$eval('[data-testid="results"] tbody tr', (trs) => trs.map((tr) => {
        const row = { policy: tr.dataset.policy, load: Number(tr.dataset.load) };
        for (const td of tr.querySelectorAll('td[data-key]')) row[td.dataset.key] = Number(td.dataset.value);
        return row;
      }));
      check(swept && fields.join(',') === '0.5,1.5,0.5' && JSON.stringify(rows2) === JSON.stringify(rows) && errors.length === 0,
        'sweep: share link restores the sweep and gives the same numbers', `${swept} ${fields} ${errors.join(' | ')}`);
      await tab.close();

      // The same sweep as a sweep file for a cluster, run by the CLI (`sweep plan`,
      // `run`, `merge`); its merged.json uploads back into the chart with the page's numbers.
      {
        const sf = await download(page, '[data-testid="sweep-file"]');
        const spec = JSON.parse(sf.text);
        check(spec.base?.mode === 'flat' && spec.axes.map((a) => a.key).join(',') === 'policy,load_factor'
          && JSON.stringify(spec.axes[1].values) === '[0.5,1,1.5]',
        'cluster: the form\'s sweep downloads as a sweep file (policy × load_factor)', sf.text.slice(0, 300));
        const sdir = mkdtempSync(join(tmpdir(), 'schedlab-sweep-'));
        try {
          const mergedPath = cliSweep(sdir, sf.text);
          const merged = JSON.parse(readFileSync(mergedPath, 'utf8'));
          const col = (k) => merged.columns.indexOf(k);
          const diffs = [];
          for (const r of merged.rows) {
            const page_ = rows.find((x) => x.policy === r[col('policy')] && x.load === r[col('load_factor')]);
            for (const k of ['mean_wait', 'utilization', 'makespan']) {
              if (!page_ || page_[k] !== r[col(k)]) diffs.push(`${r[col('policy')]}@${r[col('load_factor')]} ${k}`);
            }
          }
          check(merged.rows.length === 6 && diffs.length === 0,
            'cluster: the CLI sweep of the downloaded file gives the page\'s numbers', diffs.join('; '));
          await page.selectOption('#sweep-metric', 'utilization');
          await page.setInputFiles('[data-testid="sweep-merged"]', mergedPath);
          await page.waitForFunction(() => /Plotted 6 sweep points/.test(document.querySelector('#progress-label').textContent),
            null, { timeout: 10000, polling: 50 });
          const svg2 = await download(page, '#svg-chart-sweep');
          check(/Utilization vs\. load factor/.test(svg2.text), 'cluster: merged.json uploads into the sweep chart', svg2.text.slice(0, 120));
          await page.$eval('[data-testid="chart"]', (e) => e.scrollIntoView());
          await shot(page, '08b-sweep-merged-upload.png');
          await page.selectOption('#sweep-metric', 'mean_wait');
          await page.setInputFiles('[data-testid="sweep-merged"]', { name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from('{"mode": "mesh"}') });
          await page.waitForFunction(() => !document.querySelector('[data-testid="error"]').hidden, null, { timeout: 10000, polling: 50 });
          const eb = await errorText(page);
          check(/bad\.json cannot be plotted/.test(eb) && /no "columns"/.test(eb), 'cluster: a file that is no merged sweep is refused, saying why', eb);
          // A merged moldable sweep (strategy × sigma): a line per strategy, the picker offers
          // its metrics (the % change against rigid conservative first), vs. sigma.
          const moldable = {
            sweep: 'm', mode: 'moldable', points: 4,
            columns: ['point', 'strategy', 'sigma', 'replication', 'seed', 'mean_wait', 'change.overall_pct'],
            rows: [[0, 'base', 0.5, 0, 4, 100, -10], [1, 'base', 2, 0, 4, 120, 5], [2, 'combined', 0.5, 0, 4, 90, -30], [3, 'combined', 2, 0, 4, 95, -20]],
            missing: [], failed: [], corrupt: [],
          };
          await page.setInputFiles('[data-testid="sweep-merged"]', { name: 'moldable.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(moldable)) });
          await page.waitForFunction(() => /Plotted 4 sweep points from moldable\.json/.test(document.querySelector('#progress-label').textContent),
            null, { timeout: 10000, polling: 50 });
          const picked = await page.inputValue('#sweep-metric');
          const offered = await page.$$eval('#sweep-metric option', (os) => os.map((o) => o.value));
          const svg5 = await download(page, '#svg-chart-sweep');
          check(picked === 'change.overall_pct' && offered.join(',') === 'change.overall_pct,mean_wait'
            && /change\.overall_pct vs\. sigma/.test(svg5.text) && /combined/.test(svg5.text),
          'cluster: a merged moldable sweep plots a line per strategy vs. sigma', `${picked} ${offered} ${svg5.text.slice(0, 160)}`);
          await page.$eval('[data-testid="chart"]', (e) => e.scrollIntoView());
          await shot(page, '08c-sweep-moldable-merged.png');
          await page.evaluate(() => window.scrollTo(0, 0));
        } finally {
          rmSync(sdir, { recursive: true, force: true });
        }
      }

      // The sweep's axis: a seed sweep runs in the page (the load factor the
      // field's, the seed field disabled), downloads as a `seed` axis of whole numbers, and the
      // CLI's merged.json of that file plots against the seed with the page's numbers.
      {
        await page.selectOption('[data-testid="sweep-axis"]', 'seed');
        check(await page.isDisabled('#seed') && !(await page.isDisabled('#load-factor')),
          'sweep axis: the seed field is disabled while the seed is swept, the load factor enabled');
        await page.fill('#sweep-from', '1');
        await page.fill('#sweep-to', '3');
        await page.fill('#sweep-step', '1');
        await page.click('[data-testid="run"]');
        // (The previous sweep also had 6 rows: wait for the seed sweep's table head.)
        await page.waitForFunction(() => document.body.dataset.state === 'idle'
          && /Seed/.test(document.querySelector('[data-testid="results"] thead').textContent)
          && document.querySelectorAll('[data-testid="results"] tbody tr').length === 6,
        null, { timeout: 180000, polling: 100 });
        const seedRows = await page.$$eval('[data-testid="results"] tbody tr', (trs) => trs.map((tr) => {
          const row = { policy: tr.dataset.policy, seed: Number(tr.dataset.load) };
          for (const td of tr.querySelectorAll('td[data-key]')) row[td.dataset.key] = Number(td.dataset.value);
          return row;
        }));
        check(JSON.stringify(seedRows.map((r) => [r.policy, r.seed])) === JSON.stringify([['fcfs', 1], ['easy', 1], ['fcfs', 2], ['easy', 2], ['fcfs', 3], ['easy', 3]]),
          'sweep axis: a seed sweep runs one row per (seed, policy)', JSON.stringify(seedRows.map((r) => [r.policy, r.seed])));
        const head = await page.textContent('[data-testid="results"] thead');
        check(/Seed/.test(head), 'sweep axis: the table names the swept key', head);
        await page.selectOption('#sweep-metric', 'utilization');
        const svg3 = await download(page, '#svg-chart-sweep');
        check(/Utilization vs\. seed/.test(svg3.text), 'sweep axis: the chart is metric vs. seed', svg3.text.slice(0, 160));
        await page.$eval('[data-testid="sweep-axis"]', (e) => e.scrollIntoView());
        await shot(page, '08d-sweep-seed-form.png');
        await page.$eval('[data-testid="chart"]', (e) => e.scrollIntoView());
        await shot(page, '08e-sweep-seed-chart.png');
        await page.selectOption('#sweep-metric', 'mean_wait');
        const sf = await download(page, '[data-testid="sweep-file"]');
        const spec = JSON.parse(sf.text);
        check(spec.axes.map((a) => a.key).join(',') === 'policy,seed' && JSON.stringify(spec.axes[1].values) === '[1,2,3]',
        'sweep axis: the sweep file has a seed axis of whole numbers', sf.text.slice(0, 400));
        const sdir = mkdtempSync(join(tmpdir(), 'schedlab-sweep-seed-'));
        try {
          const mergedPath = cliSweep(sdir, sf.text);
          const merged = JSON.parse(readFileSync(mergedPath, 'utf8'));
          // Columns: point, policy, seed (the axis), replication, seed (the run's), metrics.
          const cols = merged.columns;
          const diffs = [];
          for (const r of merged.rows) {
            const p = seedRows.find((x) => x.policy === r[1] && x.seed === r[2]);
            for (const k of ['mean_wait', 'utilization', 'makespan']) {
              if (!p || p[k] !== r[cols.indexOf(k)]) diffs.push(`${r[1]}@seed ${r[2]} ${k}`);
            }
          }
          check(cols[2] === 'seed' && merged.rows.length === 6 && diffs.length === 0,
            'sweep axis: the CLI sweep of the seed file gives the page\'s numbers', diffs.join('; '));
          await page.setInputFiles('[data-testid="sweep-merged"]', mergedPath);
          await page.waitForFunction(() => /Plotted 6 sweep points/.test(document.querySelector('#progress-label').textContent),
            null, { timeout: 10000, polling: 50 });
          const svg4 = await download(page, '#svg-chart-sweep');
          check(/vs\. seed/.test(svg4.text), 'sweep axis: a merged seed sweep uploads as metric vs. seed', svg4.text.slice(0, 160));
        } finally {
          rmSync(sdir, { recursive: true, force: true });
        }
        // Back to the load factor for the steps below.
        await page.selectOption('[data-testid="sweep-axis"]', 'load_factor');
        await page.fill('#sweep-from', '0.5');
        await page.fill('#sweep-to', '1.5');
        await page.fill('#sweep-step', '0.5');
        check(!(await page.isDisabled('#seed')) && await page.isDisabled('#load-factor'),
          'sweep axis: back to the load factor, its field is disabled again');
      }

      // Cancel stops the pool at once; the sweep's results stay.
      const beforeCancel = await page.innerHTML('[data-testid="results"]');
      await page.fill('#jobs', '200000');
      await page.click('[data-testid="run"]');
      await page.waitForSelector('body[data-state="running"]', { timeout: 10000 });
      await page.waitForTimeout(300);
      await page.click('[data-testid="cancel"]');
      await page.waitForSelector('body[data-state="idle"]', { timeout: 10000 });
      check(/Cancelled/.test(await page.textContent('#progress-label'))
        && await page.innerHTML('[data-testid="results"]') === beforeCancel,
      'sweep: cancel stops the pool and keeps the results');

      // A sweep of the uploaded trace: every pool worker gets the file; load factor 1 gives
      // the trace run's numbers (checked against the CLI above).
      if (traceTable) {
        await page.check('#wl-trace');
        await page.fill('#sweep-from', '0.5');
        await page.fill('#sweep-to', '1');
        await page.fill('#sweep-step', '0.5');
        await page.click('[data-testid="run"]');
        await waitIdleWithRows(page, 4, 180000);
        const tr = await page.$$eval('[data-testid="results"] tbody tr', (trs) => trs.map((t) => {
          const row = { policy: t.dataset.policy, load: Number(t.dataset.load) };
          for (const td of t.querySelectorAll('td[data-key]')) row[td.dataset.key] = Number(td.dataset.value);
          return row;
        }));
        const diffs = ['fcfs', 'easy'].flatMap((p) => compareRow(tr.find((x) => x.policy === p && x.load === 1), traceTable[p]));
        check(tr.length === 4 && diffs.length === 0, 'sweep of the trace: 4 rows, load factor 1 equals the trace run',
          `${tr.length} rows; ${diffs.join('; ')}`);
      }
    }

    // 9. Model parameters: collapsed by default, prefilled with the model's defaults; a changed
    // serial_prob changes the run, travels in the share link and comes back in a fresh tab;
    // an invalid value names its key.
    {
      const tab = await openTab(browser, url, pageErrors);
      check(!(await tab.$eval('#model-params', (d) => d.open)), 'model parameters: collapsed by default');
      check(await tab.inputValue('#mp-serial_prob') === '0.2927' && await tab.inputValue('#mp-a2') === '639.1'
        && await tab.inputValue('#mp-start_hour') === '0',
      'model parameters: prefilled with the defaults');
      const titled = await tab.$$eval('#model-params-fields input', (els) => els.map((e) => [e.dataset.param, e.closest('label').title]));
      check(titled.length >= 16 && titled.every(([k, t]) => t.startsWith(`${k}:`)),
        'model parameters: every input has a tooltip naming its constant', JSON.stringify(titled));
      await tab.click('#model-params summary');
      await tab.fill('#mp-serial_prob', '0.5');
      await setPolicies(tab, ['easy']);
      // serial_prob + pow2_prob is one probability split (a single uniform decides both), so
      // 0.5 with the default pow2_prob 0.6686 is refused, naming both keys; lower pow2_prob.
      await tab.click('[data-testid="run"]');
      await tab.waitForFunction(() => !document.querySelector('[data-testid="error"]').hidden, null,
        { timeout: 10000, polling: 100 });
      const eSum = await errorText(tab);
      check(/serial_prob/.test(eSum) && /pow2_prob/.test(eSum) && await tab.$$eval('[data-testid="results"] tbody tr', (r) => r.length) === 0,
        'model parameters: serial_prob 0.5 with the default pow2_prob is refused, naming both keys', eSum);
      await tab.fill('#mp-pow2_prob', '0.3');
      await tab.click('[data-testid="run"]');
      await waitIdleWithRows(tab, 1, 180000);
      const tp = await readTable(tab);
      const same = compareRow(tp.easy, defaultTable.easy);
      check(same.length > 0 && KEYS.every((k) => Number.isFinite(tp.easy?.[k])),
        'model parameters: serial_prob 0.5 (pow2_prob 0.3) changes the EASY run', JSON.stringify(tp));
      await shot(tab, '09-model-params.png');
      const link9 = await shareHref(tab);
      const json9 = JSON.parse(Buffer.from(link9.split('#e=')[1].split('.')[0], 'base64url').toString());
      const j9 = JSON.stringify(json9);
      check(j9.includes('"serial_prob":0.5') && j9.includes('"pow2_prob":0.3') && !/"(a1|uprob|estimate_factor|start_hour)"/.test(j9),
        'model parameters: share link carries the changed values only', j9);
      const tab2 = await openTab(browser, link9, pageErrors);
      await waitIdleWithRows(tab2, 1, 180000);
      check(await tab2.inputValue('#mp-serial_prob') === '0.5' && await tab2.inputValue('#mp-pow2_prob') === '0.3'
        && await tab2.inputValue('#mp-a1') === '6.57' && await tab2.$eval('#model-params', (d) => d.open),
      'model parameters: share link restores serial_prob 0.5 (and pow2_prob 0.3) in a fresh tab');
      const tq = await readTable(tab2);
      check(JSON.stringify(tq) === JSON.stringify(tp), 'model parameters: reopened link gives identical numbers',
        `${JSON.stringify(tq)} vs ${JSON.stringify(tp)}`);
      await tab2.close();
      await tab.fill('#mp-serial_prob', '2');
      await tab.click('[data-testid="run"]');
      await tab.waitForFunction(() => !document.querySelector('[data-testid="error"]').hidden, null,
        { timeout: 10000, polling: 100 });
      const e9 = await errorText(tab);
      check(/serial_prob/.test(e9) && await tab.isEnabled('[data-testid="run"]'),
        'model parameters: serial_prob 2 is reported inline, naming serial_prob', e9);
      await shot(tab, '09b-model-params-error.png');
      await tab.close();
    }

    check(pageErrors.length === 0, 'no errors in the browser console', pageErrors.join(' | '));
    rmSync(tmp, { recursive: true, force: true });
  } finally {
    if (browser) await browser.close().catch(() => {});
  }
}

await runSuite('e2e', TOTAL_BUDGET_MS, main);
