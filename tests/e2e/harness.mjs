// Shared pieces of the end-to-end suites (run.mjs, mesh.mjs, grid.mjs, moldable.mjs): paths from the
// environment, PASS/FAIL bookkeeping, serving dist/ with python3's http.server on a free port,
// launching Debian's Chromium headless, screenshots, and a watchdog. Each suite calls
// `runSuite(name, budgetMs, main)`, which prints `<name>: N passed, M failed` and exits 1 on
// failure.

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const DIST = resolve(ROOT, process.env.SCHEDLAB_DIST ?? 'dist');
export const TARGET = resolve(ROOT, process.env.CARGO_TARGET_DIR ?? 'target');
export const BIN = resolve(ROOT, process.env.SCHEDLAB_BIN ?? join(TARGET, 'debug', 'schedlab'));
export const TRACES = resolve(ROOT, process.env.SCHEDLAB_TRACES ?? join('..', 'shared', 'traces'));
export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
export const SHOTS = join(ROOT, 'test-output', 'e2e');

const counts = { passed: 0, failed: 0 };
let server = null;
let suiteName = 'e2e';
const t0 = Date.now();

export function log(msg) {
  const s = ((Date.now() - t0) / 1000).toFixed(1).padStart(6);
  console.log(`[${suiteName} ${s}s] ${msg}`);
}

export function check(ok, what, detail = '') {
  if (ok) {
    counts.passed += 1;
    log(`PASS ${what}`);
  } else {
    counts.failed += 1;
    log(`FAIL ${what}${detail ? `: ${detail}` : ''}`);
  }
  return ok;
}

export function freePort() {
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

export async function waitForHttp(url, timeoutMs) {
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

export async function shot(page, name) {
  await page.screenshot({ path: join(SHOTS, name), fullPage: false, timeout: 15000 });
  log(`screenshot test-output/e2e/${name}`);
}

/// Serves dist/ on a free port; returns its URL (the server is stopped by `runSuite`).
export async function serveDist() {
  if (!existsSync(join(DIST, 'index.html'))) {
    throw new Error(`${DIST}/index.html is missing: run \`trunk build --release\` first`);
  }
  mkdirSync(SHOTS, { recursive: true });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  log(`serving ${DIST} at ${url}`);
  server = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1', '--directory', DIST], {
    stdio: 'ignore',
  });
  await waitForHttp(url, 15000);
  return url;
}

export function stopServer() {
  if (server) server.kill('SIGTERM');
  server = null;
}

/// Chromium, headless. With SCHEDLAB_E2E_CPU_SLOWDOWN=k (k > 1), every page's main thread
/// runs k times slower (the DevTools CPU throttling), to check that the suites' main-thread
/// checks still pass on a machine slower than this one.
export async function launchBrowser() {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    timeout: 60000,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--no-first-run'],
  });
  const rate = Number(process.env.SCHEDLAB_E2E_CPU_SLOWDOWN ?? 1);
  if (rate > 1) {
    const newPage = browser.newPage.bind(browser);
    browser.newPage = async (...args) => {
      const page = await newPage(...args);
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Emulation.setCPUThrottlingRate', { rate });
      return page;
    };
  }
  return browser;
}

/// The CPU time of the browser's tasks while `body()` runs, from Chromium's own trace
/// (category "toplevel": one `ThreadControllerImpl::RunTask` slice per task, with its wall
/// time `dur` and its thread's CPU time `tdur`). A task's CPU time does not grow when other
/// processes share the machine's cores — its wall time does — so checks on it hold under any
/// load; wall times are for the log. With SCHEDLAB_E2E_CPU_SLOWDOWN=k the CPU times are
/// multiplied by k, as the DevTools throttling only pauses the threads. Returns `body`'s
/// result and, in ms, the tasks of every page's main thread (`main`) and of every dedicated
/// worker (`workers`): `{ wall, cpu }` each.
export async function taskTimes(browser, page, body) {
  await browser.startTracing(page, { categories: ['toplevel', '__metadata'] });
  let result;
  let trace;
  try {
    result = await body();
  } finally {
    trace = await browser.stopTracing();
  }
  const rate = Math.max(1, Number(process.env.SCHEDLAB_E2E_CPU_SLOWDOWN ?? 1));
  const events = JSON.parse(trace.toString()).traceEvents;
  const names = new Map();
  for (const e of events) {
    if (e.ph === 'M' && e.name === 'thread_name') names.set(`${e.pid}:${e.tid}`, e.args.name);
  }
  const main = [];
  const workers = [];
  for (const e of events) {
    if (e.ph !== 'X' || e.name !== 'ThreadControllerImpl::RunTask' || e.tdur === undefined) continue;
    const thread = names.get(`${e.pid}:${e.tid}`);
    const task = { wall: e.dur / 1000, cpu: (e.tdur / 1000) * rate };
    if (thread === 'CrRendererMain') main.push(task);
    else if (thread === 'DedicatedWorker thread') workers.push(task);
  }
  return { result, main, workers };
}

/// The longest of `tasks` ([`taskTimes`]) by CPU time, and the longest by wall time, in ms.
export function longest(tasks) {
  return {
    cpu: Math.max(0, ...tasks.map((t) => t.cpu)),
    wall: Math.max(0, ...tasks.map((t) => t.wall)),
  };
}

/// A fresh 1280×720 tab on `url` whose console errors and page errors go into `errors`;
/// waits for the simulation worker's "ready".
export async function openTab(browser, url, errors) {
  const p = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  p.setDefaultTimeout(30000);
  p.on('pageerror', (e) => errors.push(String(e)));
  p.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  await p.goto(url, { timeout: 30000 });
  await p.waitForSelector('body[data-worker="ready"]', { timeout: 60000 });
  return p;
}

/// Runs `main` under a watchdog of `budgetMs`, prints the tally and exits.
export async function runSuite(name, budgetMs, main) {
  suiteName = name;
  const watchdog = setTimeout(() => {
    console.log(`${name}: ${counts.passed} passed, ${counts.failed + 1} failed (timed out after ${budgetMs / 1000} s)`);
    stopServer();
    process.exit(1);
  }, budgetMs);
  try {
    await main();
  } catch (e) {
    check(false, `${name} ran to the end`, e && e.stack ? e.stack : String(e));
  } finally {
    stopServer();
  }
  clearTimeout(watchdog);
  console.log(`${name}: ${counts.passed} passed, ${counts.failed} failed`);
  process.exit(counts.failed === 0 ? 0 : 1);
}

/// Clicks `selector` and returns the file it downloads: its suggested name and its text.
export async function download(page, selector) {
  const [dl] = await Promise.all([
    page.waitForEvent('download', { timeout: 30000 }),
    page.click(selector, { timeout: 10000 }),
  ]);
  return { name: dl.suggestedFilename(), text: readFileSync(await dl.path(), 'utf8') };
}

/// The share of non-white pixels of every canvas matching `selector`: [{ id, ink }].
export async function chartsInk(page, selector) {
  return page.$$eval(selector, (canvases) => canvases.map((c) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let ink = 0;
    for (let i = 0; i < d.length; i += 4) {
      if (d[i + 3] > 0 && (d[i] < 235 || d[i + 1] < 235 || d[i + 2] < 235)) ink += 1;
    }
    return { id: c.id, ink: ink / (c.width * c.height) };
  }));
}

/// A fresh tab on `url` switched to the mode tab `mode` (`grid`, `moldable`, …), once that
/// panel's own worker is ready.
export async function openMode(browser, url, errors, mode) {
  const p = await openTab(browser, url, errors);
  await p.click(`[data-testid="mode-${mode}"]`);
  await p.waitForSelector(`#${mode}-mode[data-worker="ready"]`, { timeout: 60000 });
  return p;
}

/// Waits until the panel `#{mode}-mode` is idle (no run in progress).
export async function waitModeIdle(page, mode, timeoutMs = 150000) {
  await page.waitForFunction((m) => document.querySelector(`#${m}-mode`).dataset.state === 'idle',
    mode, { timeout: timeoutMs, polling: 100 });
}

/// An array for `openTab`'s console and page errors that also logs each one as it comes.
export function loggedErrors() {
  const errors = [];
  errors.push = (...a) => {
    log(`page error: ${a.join(' ')}`);
    return Array.prototype.push.apply(errors, a);
  };
  return errors;
}

/// The tabs of the top bar, in order: the mode tabs (role="tab") and the About link.
export const TABS = [
  { key: 'flat', name: 'Flat machine' },
  { key: 'mesh', name: '2D mesh' },
  { key: 'grid', name: 'Grid' },
  { key: 'moldable', name: 'Moldable jobs' },
  { key: 'exercises', name: 'Exercises' },
  { key: 'about', name: 'About' },
];

/// Opens tab `key` of TABS by a tap (`tap`: page.tap, which needs a touch context) or a click,
/// never forced: both fail when something covers the tab. Returns whether it opened.
export async function openTabByPointer(page, key, tap) {
  const sel = key === 'about' ? '.topnav a[href="#about"]' : `[data-testid="mode-${key}"]`;
  if (tap) await page.tap(sel, { timeout: 10000 });
  else await page.click(sel, { timeout: 10000 });
  if (key === 'about') {
    await page.waitForFunction(() => location.hash === '#about', null, { timeout: 5000 });
    return page.$eval('#about', (e) => {
      const r = e.getBoundingClientRect();
      return r.top < window.innerHeight && r.bottom > 0;
    });
  }
  await page.waitForSelector(`#${key}-mode:not([hidden])`, { timeout: 5000 });
  const selected = await page.getAttribute(`[data-testid="mode-${key}"]`, 'aria-selected');
  if (key !== 'flat') await page.waitForSelector(`#${key}-mode[data-worker="ready"]`, { timeout: 60000 });
  return selected === 'true';
}

/// Runs a small experiment on tab `key` (the About tab has none) with a click on its Run
/// button and waits until it is done; returns a short description of what it shows, or
/// throws. Small runs: a few hundred jobs, or the first shipped exercise.
export async function smallRun(page, key) {
  const idle = (m) => page.waitForFunction((mm) => document.querySelector(`#${mm}-mode`).dataset.state === 'idle',
    m, { timeout: 120000, polling: 100 });
  const rows = (sel) => page.$$eval(`${sel} tbody tr`, (r) => r.length);
  switch (key) {
    case 'flat':
      await page.fill('#jobs', '500');
      await page.click('[data-testid="run"]');
      await page.waitForFunction(() => document.body.dataset.state === 'idle'
        && document.querySelectorAll('[data-testid="results"] tbody tr').length === 3, null,
      { timeout: 120000, polling: 100 });
      await page.waitForSelector('[data-testid="chart"]:not([hidden])', { timeout: 10000 });
      return `${await rows('[data-testid="results"]')} rows`;
    case 'mesh':
      await page.click('[data-testid="mesh-preset-window"]');
      await page.fill('[data-testid="mesh-mesh_jobs"]', '300');
      await page.click('[data-testid="mesh-run"]');
      await page.waitForFunction(() => document.querySelector('#mesh-mode').dataset.state === 'idle'
        && document.querySelectorAll('[data-testid="mesh-results"] tbody tr').length === 1, null,
      { timeout: 120000, polling: 100 });
      return `${await rows('[data-testid="mesh-results"]')} rows`;
    case 'grid':
      // The sites the editor starts with (at least two), 400 jobs each.
      while (await page.$$eval('[data-testid="grid-site-row"]', (r) => r.length) < 2) {
        await page.click('[data-testid="grid-add-site"]');
      }
      for (const jobs of await page.$$('[data-testid^="grid-site-jobs-"]')) await jobs.fill('400');
      await page.click('[data-testid="grid-run"]');
      await page.waitForSelector('#grid-tables table[data-config="sharing"]', { timeout: 120000 });
      await idle('grid');
      return `${await page.$$eval('#grid-tables table', (t) => t.length)} tables`;
    case 'moldable':
      await page.fill('[data-testid="moldable-jobs"]', '300');
      await page.click('[data-testid="moldable-run"]');
      await page.waitForFunction(() => document.querySelectorAll('#moldable-results-body tr').length > 1
        && document.querySelector('#moldable-mode').dataset.state === 'idle', null,
      { timeout: 120000, polling: 100 });
      return `${await page.$$eval('#moldable-results-body tr', (r) => r.length)} rows`;
    case 'exercises':
      await page.click('[data-testid="ex-list"] button[data-open]');
      await page.waitForSelector('[data-testid="ex-q0-check"]', { timeout: 60000 });
      await idle('exercises');
      return (await page.textContent('[data-testid="ex-title"]')).trim();
    default:
      return 'no run';
  }
}

const AXE = join(ROOT, 'tests', 'e2e', 'node_modules', 'axe-core', 'axe.min.js');

/// axe-core's violations on the page as it is: [{ id, impact, help, nodes: [target…] }].
export async function axeViolations(page) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) {
    await page.addScriptTag({ content: readFileSync(AXE, 'utf8') });
  }
  return page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.map((n) => `${n.target.join(' ')}${n.any[0]?.message ? ` — ${n.any[0].message}` : ''}`),
    }));
  });
}

/// Checks that axe finds no serious or critical violation on `page` (`where` names the state)
/// and logs the minor and moderate ones.
export async function checkAxe(page, where) {
  const v = await axeViolations(page);
  const bad = v.filter((x) => x.impact === 'serious' || x.impact === 'critical');
  for (const x of v.filter((y) => !bad.includes(y))) {
    log(`axe ${where}: ${x.impact} ${x.id} (${x.nodes.length}): ${x.help}; ${x.nodes.slice(0, 3).join(' | ')}`);
  }
  check(bad.length === 0, `axe ${where}: no serious or critical violation`,
    bad.map((x) => `${x.impact} ${x.id} ×${x.nodes.length}: ${x.help}: ${x.nodes.slice(0, 4).join(' | ')}`).join('\n'));
  return v;
}

// The flat results table as { policy: { key: number } }, from the raw data-value attributes.
export async function readFlatTable(page) {
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
