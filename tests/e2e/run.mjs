// End-to-end test of the web app in headless Chromium (run by scripts/test.sh after
// `trunk build --release`). Serves dist/ with python3's http.server on a free port, then:
// runs the default experiment; uploads a real trace and checks EASY and FCFS against the
// native CLI, number for number; checks that bad input (machine too small, corrupt file,
// empty file) is reported inline while the previous results stay; cancels a long run.
// Screenshots go to test-output/e2e/. Prints `e2e: N passed, M failed`; exits 1 on failure.
//
// Environment: SCHEDLAB_BIN (native CLI, default target/debug/schedlab), SCHEDLAB_DIST
// (default dist), SCHEDLAB_TRACES (default ../shared/traces), CHROMIUM (default
// /usr/bin/chromium).

import { spawn, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DIST = resolve(ROOT, process.env.SCHEDLAB_DIST ?? 'dist');
const TARGET = resolve(ROOT, process.env.CARGO_TARGET_DIR ?? 'target');
const BIN = resolve(ROOT, process.env.SCHEDLAB_BIN ?? join(TARGET, 'debug', 'schedlab'));
const TRACES = resolve(ROOT, process.env.SCHEDLAB_TRACES ?? join('..', 'shared', 'traces'));
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const SHOTS = join(ROOT, 'test-output', 'e2e');
const TRACE_NAME = 'NASA-iPSC-1993-3.1-cln.swf.gz';
const KEYS = [
  'jobs', 'dropped', 'mean_wait', 'max_wait', 'mean_turnaround', 'mean_slowdown',
  'mean_bounded_slowdown', 'utilization', 'makespan', 'awrt', 'awwt', 'awsd',
];
const TOTAL_BUDGET_MS = 10 * 60 * 1000;

let passed = 0;
let server = null;
let failed = 0;
const t0 = Date.now();

function log(msg) {
  const s = ((Date.now() - t0) / 1000).toFixed(1).padStart(6);
  console.log(`[e2e ${s}s] ${msg}`);
}

function check(ok, what, detail = '') {
  if (ok) {
    passed += 1;
    log(`PASS ${what}`);
  } else {
    failed += 1;
    log(`FAIL ${what}${detail ? `: ${detail}` : ''}`);
  }
  return ok;
}

function freePort() {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => res(port));
    });
  });
}

async function waitForHttp(url, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const r = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (r.ok) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

// The results table as { policy: { key: number } }, from the raw data-value attributes.
async function readTable(page) {
  return page.$$eval('[data-testid="results"] tbody tr', (rows) => {
    const out = {};
    for (const tr of rows) {
      const row = {};
      for (const td of tr.querySelectorAll('td[data-key]')) {
        row[td.dataset.key] = td.dataset.value === '' ? NaN : Number(td.dataset.value);
      }
      out[tr.dataset.policy] = row;
    }
    return out;
  });
}

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

async function shot(page, name) {
  await page.screenshot({ path: join(SHOTS, name), fullPage: false, timeout: 15000 });
  log(`screenshot test-output/e2e/${name}`);
}

async function errorText(page) {
  return page.$eval('[data-testid="error"]', (e) => (e.hidden ? '' : e.textContent.trim()));
}

async function setPolicies(page, wanted) {
  for (const p of ['fcfs', 'easy', 'conservative']) {
    await page.setChecked(`#policy-${p}`, wanted.includes(p), { timeout: 5000 });
  }
}

async function main() {
  if (!existsSync(join(DIST, 'index.html'))) {
    throw new Error(`${DIST}/index.html is missing: run \`trunk build --release\` first`);
  }
  mkdirSync(SHOTS, { recursive: true });
  const tmp = mkdtempSync(join(tmpdir(), 'schedlab-e2e-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  log(`serving ${DIST} at ${url}`);
  server = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1', '--directory', DIST], {
    stdio: 'ignore',
  });
  let browser;
  try {
    await waitForHttp(url, 15000);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      timeout: 60000,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
        '--disable-background-networking', '--disable-component-update', '--disable-sync',
        '--no-first-run'],
    });
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    page.setDefaultTimeout(30000);
    const pageErrors = [];
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    page.on('console', (m) => {
      if (m.type() === 'error') pageErrors.push(m.text());
    });

    // 1. The page loads and the worker reports ready.
    await page.goto(url, { timeout: 30000 });
    await page.waitForSelector('body[data-worker="ready"]', { timeout: 60000 });
    check(await page.isEnabled('[data-testid="run"]'), 'worker ready, Run enabled');
    check(await page.isDisabled('[data-testid="cancel"]'), 'Cancel disabled while idle');
    await shot(page, '01-ready.png');

    // 2. The default experiment (Lublin–Feitelson, all three policies, seed 42).
    await page.click('[data-testid="run"]');
    await waitIdleWithRows(page, 3, 180000);
    let table = await readTable(page);
    const allNumbers = Object.values(table).every((row) => KEYS.every((k) => Number.isFinite(row[k])));
    check(Object.keys(table).length === 3 && allNumbers, 'default run: 3 rows of numbers',
      JSON.stringify(table));
    const golden = JSON.parse(readFileSync(join(ROOT, 'tests', 'golden', 'default_summary.json'), 'utf8'));
    const gd = compareRow(table.easy, golden);
    check(gd.length === 0, 'default run: EASY row equals tests/golden/default_summary.json', gd.join('; '));
    const caption = await page.textContent('#results-caption');
    check(/Lublin/.test(caption) && /seed 42/.test(caption), 'default run: caption describes the experiment', caption);
    await shot(page, '02-default-results.png');

    // 3. A real trace, EASY vs FCFS, against the native CLI.
    const tracePath = join(TRACES, TRACE_NAME);
    if (!existsSync(tracePath)) {
      log(`NOTICE: ${tracePath} is absent; skipping the trace steps`);
    } else {
      await page.setInputFiles('[data-testid="upload"]', tracePath, { timeout: 10000 });
      await page.waitForSelector(`body[data-trace="${TRACE_NAME}"]`, { timeout: 60000 });
      check(await page.isChecked('#wl-trace'), 'trace upload selects the trace workload');
      await setPolicies(page, ['fcfs', 'easy']);
      await page.click('[data-testid="run"]');
      await waitIdleWithRows(page, 2, 180000);
      table = await readTable(page);
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

    // 7. Cancel a long run: stops promptly, results kept.
    await page.click('#error-close', { timeout: 5000 });
    await page.check('#wl-synthetic');
    await page.fill('#jobs', '1000000');
    await page.fill('#load-factor', '2');
    await setPolicies(page, ['conservative']);
    await page.click('[data-testid="run"]');
    await page.waitForFunction(
      () => Number(document.querySelector('[data-testid="progress"]').value) > 0,
      null, { timeout: 120000, polling: 100 },
    );
    const progressText = await page.textContent('#progress-label');
    check(/\/ 1,000,000 jobs/.test(progressText), 'long run: progress shows jobs simulated / total', progressText);
    await shot(page, '06-running.png');
    const tCancel = Date.now();
    await page.click('[data-testid="cancel"]');
    await page.waitForSelector('body[data-state="idle"]', { timeout: 30000 });
    const cancelMs = Date.now() - tCancel;
    check(cancelMs < 5000, 'cancel: the run stops within 5 s', `${cancelMs} ms`);
    check(/Cancelled/.test(await page.textContent('#progress-label')), 'cancel: progress line says Cancelled');
    check(await page.innerHTML('[data-testid="results"]') === before5, 'cancel: results kept');
    await shot(page, '07-cancelled.png');

    check(pageErrors.length === 0, 'no errors in the browser console', pageErrors.join(' | '));
    rmSync(tmp, { recursive: true, force: true });
  } finally {
    if (browser) await browser.close().catch(() => {});
    server.kill('SIGTERM');
    server = null;
  }
}

const watchdog = setTimeout(() => {
  console.log(`e2e: ${passed} passed, ${failed + 1} failed (timed out after ${TOTAL_BUDGET_MS / 1000} s)`);
  if (server) server.kill('SIGTERM');
  process.exit(1);
}, TOTAL_BUDGET_MS);

try {
  await main();
} catch (e) {
  check(false, 'e2e test ran to the end', e && e.stack ? e.stack : String(e));
}
clearTimeout(watchdog);
console.log(`e2e: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
