// The flat tab's per-job views of a big run — the job-by-job comparison and the replay, both
// made by the worker from the runs it keeps: how long each takes and what they cost the
// worker's wasm memory. Not a test: it asserts nothing but prints what it measured, for
// BENCHMARKS.md ("Comparison and replay of any run").
//
//   trunk build --release
//   node scripts/bench-anysize.mjs [--trace FILE] [--windows N]
//
// A fresh headless Chromium (tests/e2e/harness.mjs) on the release bundle uploads the trace
// (default SDSC-BLUE, 243,306 jobs), runs FCFS and EASY, waits until the page is idle, scrolls
// to the comparison's card and then to the replay's (the page asks for them when they come into
// view) and waits until the first comparison and the replay's first window are in. It then times, from the page
// (Date.now() around the request and the answer on screen): a comparison asked afresh (A and
// B swapped: the worker prepares the jobs again and compares every job), a sort by another
// column (the kept comparison re-sorted), and N replay windows of EASY at times spread over
// the run (the worker simulates the run again up to each window's end). The worker's wasm
// memory (CDP Runtime.queryObjects on WebAssembly.Memory.prototype; a wasm memory never
// shrinks, so its size is its peak) is read after the run and after the views.

import { join } from 'node:path';
import { TRACES, launchBrowser, openTab, serveDist, stopServer } from '../tests/e2e/harness.mjs';
import { attachWorkers, wasmMemories } from './cdp-wasm.mjs';

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : dflt;
};
const trace = opt('--trace', join(TRACES, 'SDSC-BLUE-2000-4.2-cln.swf.gz'));
const windows = Number(opt('--windows', '4'));
const mib = (b) => (b / (1024 * 1024)).toFixed(1);

const compareReady = (page) => page.waitForFunction(() => {
  const s = document.querySelector('#compare');
  return !s.hidden && !s.hasAttribute('aria-busy') && document.querySelectorAll('#compare-body tr').length > 0;
}, null, { timeout: 600000, polling: 20 });

const replayAt = (page, t) => page.waitForFunction((want) => {
  const root = document.querySelector('#replay');
  return !root.hasAttribute('aria-busy') && Number(root.dataset.t) === want;
}, t, { timeout: 180000, polling: 20 }).catch(async (e) => {
  const st = await page.evaluate(() => ({
    busy: document.querySelector('#replay').getAttribute('aria-busy'),
    t: document.querySelector('#replay').dataset.t,
    label: document.querySelector('[data-testid="replay-time-label"]').textContent,
    value: document.querySelector('[data-testid="replay-time"]').value,
    error: document.querySelector('#error')?.textContent,
  }));
  console.log(`replay not at ${t}: ${JSON.stringify(st)}`);
  throw e;
});

const url = await serveDist();
const browser = await launchBrowser();
try {
  const page = await openTab(browser, url, []);
  page.setDefaultTimeout(600000);
  const bs = await browser.newBrowserCDPSession();
  const { toWorker, workers } = await attachWorkers(bs);
  const wasm = async () => (await Promise.all(workers.map((s) => wasmMemories((m, p) => toWorker(s, m, p))))).flat();
  const name = trace.split('/').pop();
  await page.setInputFiles('[data-testid="upload"]', trace, { timeout: 60000 });
  await page.waitForSelector(`body[data-trace="${name}"]`, { timeout: 300000 });
  for (const p of ['fcfs', 'easy', 'conservative']) await page.setChecked(`#policy-${p}`, p !== 'conservative');
  let t = Date.now();
  await page.click('[data-testid="run"]');
  await page.waitForSelector('body[data-state="idle"]', { timeout: 600000 });
  const ran = Date.now() - t;
  const afterRun = await wasm();
  t = Date.now();
  await page.locator('#compare').scrollIntoViewIfNeeded();
  await compareReady(page);
  await page.locator('#replay').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => {
    const root = document.querySelector('#replay');
    return !root.hidden && !root.hasAttribute('aria-busy') && root.dataset.t !== undefined;
  }, null, { timeout: 600000, polling: 20 });
  const settled = Date.now() - t;
  // A comparison asked afresh: B against A swapped.
  const time = async (act, wait) => {
    const t0 = Date.now();
    await act();
    await wait();
    return Date.now() - t0;
  };
  const fresh = await time(async () => {
    await page.selectOption('#compare-a', 'easy');
    await page.selectOption('#compare-b', 'fcfs');
  }, () => compareReady(page));
  const sorted = await time(() => page.click('#compare-head th[data-col="2"]'), () => compareReady(page));
  const firstWindow = await time(() => page.selectOption('[data-testid="replay-pick"]', '1'),
    () => page.waitForFunction(() => {
      const r = document.querySelector('#replay');
      return !r.hasAttribute('aria-busy') && Number(document.querySelector('[data-testid="replay-time"]').max) > 0;
    }, null, { timeout: 600000, polling: 20 }));
  console.log(`first window of EASY's replay: ${firstWindow} ms`);
  console.log(`run ${ran} ms, settled ${settled} ms, fresh ${fresh} ms, sorted ${sorted} ms`);
  const span = await page.$eval('[data-testid="replay-time"]', (e) => [Number(e.min), Number(e.max)]);
  const wins = [];
  for (let i = 0; i < windows; i++) {
    const at = Math.round(span[0] + ((i + 0.5) / windows) * (span[1] - span[0]));
    wins.push([at, await time(() => page.$eval('[data-testid="replay-time"]', (el, v) => {
      el.value = String(v);
      el.dispatchEvent(new Event('input'));
    }, at), () => replayAt(page, at))]);
  }
  const label = await page.textContent('[data-testid="replay-time-label"]');
  const end = await wasm();
  console.log(`${name}: FCFS + EASY ran in ${(ran / 1000).toFixed(1)} s`);
  console.log(`  first comparison and first replay window after the run (behind the Gantt chart's schedule; scrolled to): ${(settled / 1000).toFixed(2)} s`);
  console.log(`  comparison asked afresh (A, B swapped): ${(fresh / 1000).toFixed(2)} s; sort by another column: ${sorted} ms`);
  for (const [at, ms] of wins) console.log(`  replay window at t = ${at} s: ${(ms / 1000).toFixed(2)} s`);
  console.log(`  replay label at the last window: ${label}`);
  console.log(`  worker wasm memory (MiB): after the run ${afterRun.map(mib).join(' + ')}; after the views ${end.map(mib).join(' + ')}`);
} finally {
  await browser.close();
  stopServer();
}
