// The flat tab's Gantt chart on a big trace: how long the whole-run chart takes to appear and
// how long a redraw takes, whole run and zoomed in; screenshots. Not a test: it asserts nothing
// but prints what it measured, for BENCHMARKS.md ("The Gantt chart of a whole trace").
//
//   trunk build --release
//   node scripts/bench-gantt.mjs [--trace FILE] [--policy easy] [--redraws N]
//
// A fresh headless Chromium (tests/e2e/harness.mjs) on the release bundle at 1366×768 uploads
// the trace (default SDSC-BLUE, 243,306 jobs) in the flat tab, runs one policy and waits for
// the Gantt chart of every job (the worker prepares the run's jobs again, lays them out and
// sends the schedule; the page decodes it). It then redraws N times at each zoom level
// — the whole run, and 2^k times narrower for k = 3, 6, 9, 12 (the + key on the focused
// chart, the ← / → keys for the redraws) — and reads the time of each redraw, measured in the
// page with performance.now() around the drawing (the canvas's data-frame-ms): median and
// maximum per level. The page's long tasks (PerformanceObserver 'longtask', over 50 ms) from
// the end of the run to the chart on screen are listed: the main thread's longest stretch while
// the schedule is decoded and drawn. Screenshots (test-output/bench-gantt-*.png): the whole run and zoomed in
// at 1366×768, and the same at 390×844.

import { join } from 'node:path';
import { ROOT, TRACES, launchBrowser, serveDist, stopServer } from '../tests/e2e/harness.mjs';

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : dflt;
};
const trace = opt('--trace', join(TRACES, 'SDSC-BLUE-2000-4.2-cln.swf.gz'));
const policy = opt('--policy', 'easy');
const redraws = Number(opt('--redraws', '15'));
const out = join(ROOT, 'test-output');

const view = (page) => page.$eval('#chart-gantt', (c) => ({
  t0: Number(c.dataset.t0), t1: Number(c.dataset.t1), jobs: Number(c.dataset.jobs),
  drawn: Number(c.dataset.drawn), frame: Number(c.dataset.frameMs),
}));

async function frames(page, key) {
  const ms = [];
  for (let i = 0; i < redraws; i++) {
    await page.keyboard.press(i % 2 === 0 ? key : (key === 'ArrowRight' ? 'ArrowLeft' : key));
    ms.push((await view(page)).frame);
  }
  ms.sort((a, b) => a - b);
  return { median: ms[Math.floor(ms.length / 2)], max: ms[ms.length - 1] };
}

async function open(browser, url, width, height) {
  const page = await browser.newPage({ viewport: { width, height } });
  page.setDefaultTimeout(600000);
  await page.goto(url);
  await page.evaluate(() => {
    window.longTasks = [];
    new PerformanceObserver((l) => {
      for (const e of l.getEntries()) window.longTasks.push([e.startTime, e.duration]);
    }).observe({ type: 'longtask', buffered: true });
  });
  await page.waitForSelector('body[data-worker="ready"]', { timeout: 60000 });
  const name = trace.split('/').pop();
  await page.setInputFiles('[data-testid="upload"]', trace);
  await page.waitForSelector(`body[data-trace="${name}"]`, { timeout: 120000 });
  for (const p of ['fcfs', 'easy', 'conservative']) await page.setChecked(`#policy-${p}`, p === policy);
  const t = Date.now();
  await page.click('[data-testid="run"]');
  await page.waitForFunction(() => document.body.dataset.state === 'idle'
    && document.querySelectorAll('[data-testid="results"] tbody tr').length === 1, null,
  { timeout: 600000, polling: 50 });
  const done = Date.now();
  const from = await page.evaluate(() => performance.now());
  await page.waitForFunction(() => Number(document.querySelector('#chart-gantt').dataset.jobs) > 0,
    null, { timeout: 600000, polling: 50 });
  const shown = Date.now();
  const long = await page.evaluate((f) => window.longTasks.filter(([s, d]) => s + d >= f)
    .map(([, d]) => Math.round(d)), from);
  await page.$eval('#gantt', (e) => e.scrollIntoView());
  return { page, runMs: done - t, ganttMs: shown - done, long };
}

const url = await serveDist();
const browser = await launchBrowser();
try {
  const { page, runMs, ganttMs, long } = await open(browser, url, 1366, 768);
  const v = await view(page);
  console.log(`${trace.split('/').pop()}, ${policy}: ${v.jobs} jobs; run ${runMs} ms; results → Gantt chart shown ${ganttMs} ms`);
  console.log(`main-thread long tasks (ms) from the results to the chart: ${long.join(', ') || 'none'}`);
  await page.focus('#chart-gantt');
  await page.screenshot({ path: join(out, 'bench-gantt-1366-whole.png') });
  const rows = [];
  rows.push(['whole run', (v.t1 - v.t0) / 86400, v.drawn, await frames(page, '0')]);
  for (let k = 1; k <= 12; k++) {
    await page.keyboard.press('+');
    if (k % 3 === 0) {
      const z = await view(page);
      // Pan to the middle of the run.
      const f = await frames(page, 'ArrowRight');
      rows.push([`1/${2 ** k}`, (z.t1 - z.t0) / 86400, (await view(page)).drawn, f]);
      if (k === 6) await page.screenshot({ path: join(out, 'bench-gantt-1366-zoomed.png') });
    }
  }
  console.log('| window | span (days) | jobs in view | redraw median (ms) | redraw max (ms) |');
  console.log('|---|---:|---:|---:|---:|');
  for (const [w, span, drawn, f] of rows) console.log(`| ${w} | ${span.toFixed(3)} | ${drawn} | ${f.median} | ${f.max} |`);
  await page.close();
  const phone = await open(browser, url, 390, 844);
  await phone.page.screenshot({ path: join(out, 'bench-gantt-390-whole.png') });
  await phone.page.focus('#chart-gantt');
  for (let k = 0; k < 6; k++) await phone.page.keyboard.press('+');
  await phone.page.screenshot({ path: join(out, 'bench-gantt-390-zoomed.png') });
} finally {
  await browser.close();
  stopServer();
}
