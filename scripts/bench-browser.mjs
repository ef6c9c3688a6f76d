// Browser vs. native speed. Not a test: it asserts nothing but prints
// Markdown tables for BENCHMARKS.md.
//
//   trunk build --release && cargo build --release --bin schedlab
//   node scripts/bench-browser.mjs [--runs N] [--rounds K] [--page-repeat N]
//
// Experiments, taken from the page's own share links: the flat page's EASY on 100,000
// Lublin–Feitelson jobs (seed 1), and the 2D-mesh preset "Window-based scheduling (Ababneh & Bani-Mohammad)"
// (MPL under Window-240, 1,000 jobs, seed 1).
//
// Main measurement, phase by phase (--rounds K, default 3, alternating browser and native so
// that a change of load on the shared machine hits both; each round --runs N runs of each
// experiment, default 10): the page
// starts a worker of its own (dist/worker_loader.js) and sends it a `bench` message with the
// link; the worker times load / simulate / measure with performance.now() through
// `schedlab::timing` — the calls `schedlab bench phases LINK --runs N` times natively, in the
// same process, with the same clock readings — then what only the page's path adds (building
// the page's report, writing it as JSON, and the whole path of a Run message: slices, progress
// messages, yields to the event loop). Figures are medians and minima over all runs, plus the
// very first run (in the browser, code still compiled by the baseline compiler). The last run's summary of
// both sides is compared: it must be identical (the determinism rule).
//
// With --page-repeat N (default 0) the script also clicks Run N times in each mode and reads
// the page's "Done: 1 run in X s" (10 ms resolution), next to the wall time of the native CLI
// process (`schedlab run|mesh` on the link's experiment, process start included) — the
// measurement of the first version of this script.

import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { launchBrowser, openTab, ROOT, serveDist, stopServer } from '../tests/e2e/harness.mjs';

const BIN = resolve(ROOT, process.env.SCHEDLAB_BIN ?? join('target', 'release', 'schedlab'));
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const RUNS = arg('--runs', 10);
const ROUNDS = arg('--rounds', 3);
const PAGE_REPEAT = arg('--page-repeat', 0);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));

// The page's "Done: 1 run in X s." of the label `sel`, in seconds.
async function pageSeconds(page, sel) {
  const text = await page.textContent(sel);
  const m = /Done: 1 run in ([0-9.]+) s/.exec(text);
  if (!m) throw new Error(`no time in ${JSON.stringify(text)}`);
  return Number(m[1]);
}

function nativeSeconds(cmd, file) {
  const t0 = process.hrtime.bigint();
  execFileSync(BIN, [cmd, file], { stdio: 'pipe', timeout: 300000 });
  return Number(process.hrtime.bigint() - t0) / 1e9;
}

// A fresh worker of the page's bundle times `link` over `runs` runs.
async function workerBench(page, link, runs) {
  return page.evaluate(async ({ link, runs }) => {
    const w = new Worker('./worker_loader.js');
    const next = (want) => new Promise((res, rej) => {
      w.onerror = (e) => rej(new Error(`worker failed: ${e.message}`));
      w.onmessage = (ev) => {
        const m = JSON.parse(ev.data);
        if (want.includes(m.type)) res(m);
      };
    });
    await next(['ready']);
    const answer = next(['benched', 'error']);
    w.postMessage(JSON.stringify({ type: 'bench', id: 1, link, runs }));
    const m = await answer;
    w.terminate();
    if (m.type === 'error') throw new Error(m.message);
    return m;
  }, { link, runs });
}

function nativeBench(link, runs) {
  const out = execFileSync(BIN, ['bench', 'phases', link, '--runs', String(runs)], { encoding: 'utf8', timeout: 600000 });
  return JSON.parse(out);
}

async function main() {
  const tmp = mkdtempSync(join(tmpdir(), 'schedlab-bench-browser-'));
  const url = await serveDist();
  const browser = await launchBrowser();
  const errors = [];
  const experiments = [];
  const pageRows = [];
  try {
    const page = await openTab(browser, url, errors);
    // Flat EASY, 100,000 jobs.
    await page.fill('#jobs', '100000');
    await page.fill('#load-factor', '1');
    for (const p of ['fcfs', 'easy', 'conservative']) await page.setChecked(`#policy-${p}`, p === 'easy');
    await page.fill('#seed', '1');
    const flatPage = { browser: [], native: [] };
    for (let i = 0; i < Math.max(1, PAGE_REPEAT); i += 1) {
      await page.evaluate(() => { document.querySelector('#progress-label').textContent = ''; });
      await page.click('[data-testid="run"]');
      await page.waitForFunction(() => document.body.dataset.state === 'idle'
        && /Done: 1 run/.test(document.querySelector('#progress-label').textContent), null, { timeout: 300000, polling: 50 });
      flatPage.browser.push(await pageSeconds(page, '#progress-label'));
    }
    const flatLink = await page.$eval('#share-link', (a) => a.href);
    experiments.push(['Flat EASY, 100,000 Lublin–Feitelson jobs', flatLink, 'run']);

    // Mesh: Ababneh & Bani-Mohammad preset, Window-240 with MPL.
    await page.click('[data-testid="mode-mesh"]');
    await page.click('[data-testid="mesh-preset-window"]');
    await page.fill('#mesh-seed', '1');
    const meshPage = { browser: [], native: [] };
    for (let i = 0; i < Math.max(1, PAGE_REPEAT); i += 1) {
      await page.evaluate(() => { document.querySelector('#mesh-progress-label').textContent = ''; });
      await page.click('[data-testid="mesh-run"]');
      await page.waitForFunction(() => /Done: 1 run/.test(document.querySelector('#mesh-progress-label').textContent),
        null, { timeout: 300000, polling: 50 });
      meshPage.browser.push(await pageSeconds(page, '#mesh-progress-label'));
    }
    const meshLink = await page.$eval('#mesh-share-link', (a) => a.href);
    experiments.push(['2D mesh, Ababneh & Bani-Mohammad preset (MPL, Window-240, 1,000 jobs)', meshLink, 'mesh']);

    if (PAGE_REPEAT > 0) {
      for (const [[name, link, cmd], r] of [[experiments[0], flatPage], [experiments[1], meshPage]]) {
        const exp = join(tmp, `${cmd}.json`);
        execFileSync(BIN, ['open', link, '--experiment-out', exp], { stdio: 'pipe' });
        for (let i = 0; i < PAGE_REPEAT; i += 1) r.native.push(nativeSeconds(cmd, exp));
        pageRows.push([name, r]);
      }
    }

    for (const [name, link] of experiments) {
      // Rounds alternate browser and native, so that a change of load on the machine hits
      // both; the runs of every round are pooled.
      const b = { load_ms: [], simulate_ms: [], measure_ms: [], report_ms: [], json_ms: [], page_ms: [] };
      const n = { load_ms: [], simulate_ms: [], measure_ms: [] };
      let bFirst = null;
      let nFirst = null;
      let same = true;
      let jobs = 0;
      let label = '';
      let jsonBytes = 0;
      for (let round = 0; round < ROUNDS; round += 1) {
        const br = await workerBench(page, link, RUNS);
        const nr = nativeBench(link, RUNS);
        bFirst ??= br;
        nFirst ??= nr;
        same &&= JSON.stringify(br.phases.summary) === JSON.stringify(nr.summary);
        for (const k of ['load_ms', 'simulate_ms', 'measure_ms']) {
          b[k].push(...br.phases[k]);
          n[k].push(...nr[k]);
        }
        for (const k of ['report_ms', 'json_ms', 'page_ms']) b[k].push(...br[k]);
        ({ jobs, label } = nr);
        jsonBytes = br.json_bytes;
      }
      console.log(`\n### ${name}: ${ROUNDS} × ${RUNS} runs of ${jobs} jobs (${label}); summaries ${same ? 'identical' : 'DIFFER'}\n`);
      console.log(`link: ${link}\n`);
      console.log('| phase | browser median (ms) | native median (ms) | browser / native | browser min | native min | browser first run | native first run |');
      console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
      const sums = (t) => t.load_ms.map((x, i) => x + t.simulate_ms[i] + t.measure_ms[i]);
      const row = (lbl, bs, ns, bf, nf) => {
        const [bm, nm] = [median(bs), median(ns)];
        const [bmin, nmin] = [Math.min(...bs), Math.min(...ns)];
        console.log(`| ${lbl} | ${ms(bm)} | ${ms(nm)} | ${(bm / nm).toFixed(2)} | ${ms(bmin)} | ${ms(nmin)} | ${ms(bf)} | ${ms(nf)} |`);
      };
      row('load (generate, transform)', b.load_ms, n.load_ms, bFirst.phases.load_ms[0], nFirst.load_ms[0]);
      row('simulate', b.simulate_ms, n.simulate_ms, bFirst.phases.simulate_ms[0], nFirst.simulate_ms[0]);
      row('measure (metrics)', b.measure_ms, n.measure_ms, bFirst.phases.measure_ms[0], nFirst.measure_ms[0]);
      row('**load + simulate + measure**', sums(b), sums(n), sums(bFirst.phases)[0], sums(nFirst)[0]);
      const nt = median(sums(n));
      const pageRow = (lbl, xs, first) => console.log(`| ${lbl} | ${ms(median(xs))} | — | ${(median(xs) / nt).toFixed(2)} of the native total | ${ms(Math.min(...xs))} | — | ${ms(first)} | — |`);
      pageRow('page only: report (charts, records)', b.report_ms, bFirst.report_ms[0]);
      pageRow(`page only: result message as JSON (${jsonBytes} bytes)`, b.json_ms, bFirst.json_ms[0]);
      pageRow("page's whole path (the Run message: slices, progress, report, JSON)", b.page_ms, bFirst.page_ms[0]);
    }
  } finally {
    await browser.close();
    stopServer();
  }
  if (pageRows.length) {
    console.log(`\n### As the page shows it (${PAGE_REPEAT} runs)\n`);
    console.log('| experiment | runs | page "Done in" (s, median) | native CLI process (s, median) | page / CLI |');
    console.log('|---|---:|---:|---:|---:|');
    for (const [name, r] of pageRows) {
      const b = median(r.browser);
      const n = median(r.native);
      console.log(`| ${name} | ${r.browser.length} | ${b.toFixed(2)} | ${n.toFixed(3)} | ${(b / n).toFixed(2)} |`);
    }
  }
  if (errors.length) console.log(`page errors: ${errors.slice(0, 3).join(' | ')}`);
  process.exit(0);
}

main().catch((e) => {
  console.error(e);
  stopServer();
  process.exit(1);
});
