// The browser tab's memory on a big trace. Not a test: it asserts nothing but prints what it
// measured, for BENCHMARKS.md ("Memory in the browser tab").
//
//   trunk build --release
//   node scripts/bench-memory.mjs [--trace FILE] [--policies fcfs,easy,conservative] [--rounds N]
//                                 [--export] [--no-gantt]
//   node scripts/bench-memory.mjs --make-big FILE   # writes the ≥ 300,000-job trace below
//
// Each round starts a fresh headless Chromium (tests/e2e/harness.mjs) on the release bundle
// (dist/, or SCHEDLAB_DIST), opens the page, uploads the trace in the flat tab, ticks the
// policies (default: the page's defaults, unchanged) and presses Run; once the results table
// has its rows and the whole-trace Gantt chart of the first run is drawn (with --no-gantt, for a
// bundle from before that chart: once the table has its rows), it waits 2 s more (with --export it then downloads the EASY run's per-job CSV and
// SWF schedule, and waits 2 s more). From before the upload to the end it samples, every 100 ms:
//
// * the resident memory of the tab's renderer process (/proc/PID/status: VmRSS and RssAnon,
//   the private part Chrome's task manager calls the memory footprint) — the page and its
//   Web Workers run in that one process; the renderer is the one with the most RSS once the
//   page is ready (SystemInfo.getProcessInfo lists the browser's processes);
// * the RSS of every Chromium process together;
// * the page's JavaScript heap (CDP Performance.getMetrics: JSHeapUsedSize, JSHeapTotalSize);
// * each worker's JavaScript heap (CDP Runtime.getHeapUsage on the worker's target, attached
//   through the browser session).
//
// At the end it reads the size of every WebAssembly memory of the page and of each worker
// (CDP Runtime.queryObjects on WebAssembly.Memory.prototype): a wasm memory never shrinks, so
// its size at the end is its peak. The results table is printed too (it must not change).

import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createGunzip, createGzip } from 'node:zlib';
import { createInterface } from 'node:readline';
import { launchBrowser, openTab, serveDist, stopServer, TRACES } from '../tests/e2e/harness.mjs';
import { attachWorkers, wasmMemories } from './cdp-wasm.mjs';

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : dflt;
};
const MiB = 1024 * 1024;
const mib = (b) => (b / MiB).toFixed(1);

// The ≥ 300,000-job trace: SDSC-BLUE (243,306 jobs), then LANL-CM5 (122,060 jobs, at most
// 1,024 processors) submitted after it, numbered on — 365,366 jobs on SDSC-BLUE's 1,152
// processors, with SDSC-BLUE's header.
async function makeBig(out) {
  const lines = (file) => createInterface({ input: createReadStream(join(TRACES, file)).pipe(createGunzip()), crlfDelay: Infinity });
  const gz = createGzip();
  const done = new Promise((res, rej) => gz.pipe(createWriteStream(out)).on('finish', res).on('error', rej));
  let jobs = 0;
  let last = 0;
  let buf = [];
  const write = async (s) => {
    buf.push(s);
    if (buf.length >= 4096) {
      if (!gz.write(buf.join(''))) await new Promise((r) => gz.once('drain', r));
      buf = [];
    }
  };
  for await (const line of lines('SDSC-BLUE-2000-4.2-cln.swf.gz')) {
    const f = line.trim().split(/\s+/);
    if (!line.startsWith(';') && f.length >= 18) {
      jobs += 1;
      last = Math.max(last, Number(f[1]));
    }
    await write(`${line}\n`);
  }
  const shift = last + 86400;
  for await (const line of lines('LANL-CM5-1994-4.1-cln.swf.gz')) {
    const f = line.trim().split(/\s+/);
    if (line.startsWith(';') || f.length < 18) continue;
    jobs += 1;
    f[0] = String(jobs);
    f[1] = String(Number(f[1]) + shift);
    await write(`${f.join(' ')}\n`);
  }
  gz.end(buf.join(''));
  await done;
  console.log(`${out}: ${jobs} jobs`);
}

function procStatus(pid) {
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k) => Number((new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(s) ?? [0, 0])[1]) * 1024;
    return { rss: kb('VmRSS'), anon: kb('RssAnon') };
  } catch {
    return { rss: 0, anon: 0 };
  }
}

async function round(url, trace, policies) {
  const browser = await launchBrowser();
  const errors = [];
  const page = await openTab(browser, url, errors);
  page.setDefaultTimeout(600000);
  const bs = await browser.newBrowserCDPSession();
  const ps = await page.context().newCDPSession(page);
  await ps.send('Performance.enable');
  const { toWorker, workers } = await attachWorkers(bs);
  await page.waitForTimeout(2000);
  const procs = (await bs.send('SystemInfo.getProcessInfo')).processInfo;
  const renderers = procs.filter((p) => p.type === 'renderer').map((p) => p.id);
  const tab = renderers.reduce((a, b) => (procStatus(b).rss > procStatus(a).rss ? b : a));
  const sample = async () => {
    const m = Object.fromEntries((await ps.send('Performance.getMetrics')).metrics.map((x) => [x.name, x.value]));
    const wh = await Promise.all(workers.map((s) => toWorker(s, 'Runtime.getHeapUsage').catch(() => ({ usedSize: 0, totalSize: 0 }))));
    const r = procStatus(tab);
    return {
      rss: r.rss,
      anon: r.anon,
      all: procs.reduce((s, p) => s + procStatus(p.id).rss, 0),
      jsUsed: m.JSHeapUsedSize,
      jsTotal: m.JSHeapTotalSize,
      workerJs: wh.reduce((s, h) => s + h.totalSize, 0),
    };
  };
  const idle = await sample();
  const peak = { ...idle };
  let sampling = true;
  const loop = (async () => {
    while (sampling) {
      const s = await sample();
      for (const k of Object.keys(peak)) peak[k] = Math.max(peak[k], s[k]);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const t0 = Date.now();
  const name = trace.split('/').pop();
  await page.setInputFiles('[data-testid="upload"]', trace, { timeout: 60000 });
  await page.waitForSelector(`body[data-trace="${name}"]`, { timeout: 300000 });
  const loaded = (Date.now() - t0) / 1000;
  if (policies) {
    for (const p of ['fcfs', 'easy', 'conservative']) {
      await page.setChecked(`#policy-${p}`, policies.includes(p), { timeout: 5000 });
    }
  }
  const rows = await page.$$eval('input[id^="policy-"]:checked', (c) => c.length);
  await page.click('[data-testid="run"]');
  await page.waitForFunction(
    (n) => document.body.dataset.state === 'idle'
      && document.querySelectorAll('[data-testid="results"] tbody tr').length === n,
    rows, { timeout: 600000, polling: 200 });
  const ran = (Date.now() - t0) / 1000;
  // The whole-trace Gantt chart of the first run is drawn once the batch ends: wait for it
  // (a bundle from before that chart, measured with --no-gantt, has none to wait for).
  if (!argv.includes('--no-gantt')) {
    await page.waitForFunction(() => Number(document.querySelector('#chart-gantt')?.dataset.jobs) > 0,
      null, { timeout: 600000, polling: 200 });
  }
  const charted = (Date.now() - t0) / 1000;
  await page.waitForTimeout(2000);
  // With --export, the EASY run's per-job CSV and SWF schedule are downloaded too.
  const exported = {};
  if (exportToo) {
    for (const what of ['jobs', 'swf']) {
      const [dl] = await Promise.all([
        page.waitForEvent('download', { timeout: 300000 }),
        page.click(`[data-testid="export-${what}-easy"]`, { timeout: 10000 }),
      ]);
      exported[what] = createHash('sha256').update(readFileSync(await dl.path())).digest('hex').slice(0, 16);
    }
    await page.waitForTimeout(2000);
  }
  sampling = false;
  await loop;
  const end = await sample();
  const table = await page.$$eval('[data-testid="results"] tbody tr',
    (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent.trim()).join(' | ')));
  const pageWasm = await wasmMemories((m, p) => ps.send(m, p));
  const workerWasm = [];
  for (const s of workers) workerWasm.push(await wasmMemories((m, p) => toWorker(s, m, p)));
  await browser.close();
  if (errors.length) console.log(`page errors: ${errors.join('; ')}`);
  return { idle, peak, end, pageWasm, workerWasm, table, loaded, ran, charted, exported };
}

if (argv.includes('--make-big')) {
  await makeBig(opt('--make-big'));
  process.exit(0);
}
const trace = opt('--trace', join(TRACES, 'SDSC-BLUE-2000-4.2-cln.swf.gz'));
if (!existsSync(trace)) throw new Error(`${trace} not found`);
const policies = opt('--policies', null)?.split(',');
const rounds = Number(opt('--rounds', 1));
const exportToo = argv.includes('--export');
const url = await serveDist();
const results = [];
try {
  for (let i = 0; i < rounds; i += 1) {
    const r = await round(url, trace, policies);
    results.push(r);
    const wasm = (xs) => xs.flat().map(mib).join(' + ');
    console.log(`round ${i + 1}: trace loaded ${r.loaded.toFixed(1)} s, results ${r.ran.toFixed(1)} s, Gantt chart ${r.charted.toFixed(1)} s after the upload`);
    console.log(`  tab renderer RSS (MiB): idle ${mib(r.idle.rss)}, peak ${mib(r.peak.rss)}, end ${mib(r.end.rss)}; growth ${mib(r.peak.rss - r.idle.rss)}`);
    console.log(`  tab renderer RssAnon (MiB): idle ${mib(r.idle.anon)}, peak ${mib(r.peak.anon)}, end ${mib(r.end.anon)}; growth ${mib(r.peak.anon - r.idle.anon)}`);
    console.log(`  all Chromium processes RSS (MiB): idle ${mib(r.idle.all)}, peak ${mib(r.peak.all)}`);
    console.log(`  page JS heap (MiB): used peak ${mib(r.peak.jsUsed)}, total peak ${mib(r.peak.jsTotal)}; workers' JS heaps total peak ${mib(r.peak.workerJs)}`);
    console.log(`  wasm memories at the end = their peaks (MiB): page ${wasm(r.pageWasm)}; workers ${wasm(r.workerWasm)}`);
    if (exportToo) console.log(`  exported (SHA-256, first 16 hex digits): jobs CSV ${r.exported.jobs}, SWF ${r.exported.swf}`);
  }
  console.log('results table:');
  for (const row of results[results.length - 1].table) console.log(`  ${row}`);
} finally {
  stopServer();
}
