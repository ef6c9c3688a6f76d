// End-to-end test of the 2D-mesh mode of the web app (run by scripts/test.sh after
// `trunk build --release`): opens the mesh tab; runs the Ababneh & Bani-Mohammad preset and compares the
// table with `schedlab mesh` on the same experiment JSON, number for number; checks the
// mesh canvas (ink, changes when scrubbing, step goes to the next event, hovering a node shows
// its job); runs the Mache et al. preset (six allocators, heatmap and legend visible) and the
// traffic-ratio sweep (a line per allocator); checks inline errors (W = 0; a share link asking
// for Window-K with MC-Elongated) that keep the results; reopens the share link in a fresh tab
// (same numbers); uploads a trace and compares two allocators with the CLI; chooses the wormhole
// model with its parameters and sees the blocked-time heatmap and legend. No console errors. Screenshots: test-output/e2e/mesh-*.png.

import { execFileSync } from 'node:child_process';
import {
  existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BIN, TRACES, check, launchBrowser, log, longest, openTab, runSuite, serveDist, shot, taskTimes,
} from './harness.mjs';

const TRACE_NAME = 'NASA-iPSC-1993-3.1-cln.swf.gz';
const SUMMARY_KEYS = [
  'jobs', 'dropped', 'mean_wait', 'max_wait', 'mean_turnaround', 'mean_slowdown',
  'mean_bounded_slowdown', 'utilization', 'makespan', 'awrt', 'awwt', 'awsd',
];
const MESH_KEYS = ['mean_service', 'mean_nodes_affected', 'mean_balance', 'max_link_load', 'io_hot_spot'];
const BUDGET_MS = 150 * 1000;

// The mesh results table as { allocator: { key: number|null } } from the raw data-value attributes.
async function readTable(page) {
  return page.$$eval('[data-testid="mesh-results"] tbody tr', (rows) => {
    const out = {};
    for (const tr of rows) {
      const row = { policy: tr.dataset.policy };
      for (const td of tr.querySelectorAll('td[data-key]')) {
        row[td.dataset.key] = td.dataset.value === '' ? null : Number(td.dataset.value);
      }
      out[tr.dataset.allocator] = row;
    }
    return out;
  });
}

async function waitIdleWithRows(page, rows, timeoutMs = 30000) {
  await page.waitForFunction(
    (n) => document.querySelector('#mesh-mode').dataset.state === 'idle'
      && document.querySelectorAll('[data-testid="mesh-results"] tbody tr').length === n,
    rows,
    { timeout: timeoutMs, polling: 100 },
  );
}

// Share of non-white pixels of a canvas, and a hash of its pixels.
async function canvasInk(page, id) {
  return page.$eval(`#${id}`, (c) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let ink = 0;
    let h = 2166136261;
    for (let i = 0; i < d.length; i += 4) {
      if (d[i] < 235 || d[i + 1] < 235 || d[i + 2] < 235) ink += 1;
      h = Math.imul(h ^ (d[i] + 3 * d[i + 1] + 7 * d[i + 2]), 16777619) >>> 0;
    }
    return { ink: ink / (c.width * c.height), hash: h };
  });
}

// Pixels close to an RGB colour in a canvas region [x0, x1) (canvas pixels); with `rgb` null,
// pixels of the heat scale's warm colours (yellow to dark red; job colours are cool hues).
async function colourPixels(page, id, rgb, x0 = 0, x1 = 1e9) {
  return page.$eval(`#${id}`, (c, [want, a0, a1]) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) {
      const x = (i / 4) % c.width;
      if (x < a0 || x >= a1) continue;
      const [r, g, b] = [d[i], d[i + 1], d[i + 2]];
      const hit = want
        ? Math.abs(r - want[0]) < 24 && Math.abs(g - want[1]) < 24 && Math.abs(b - want[2]) < 24
        : r >= 180 && b <= 110 && r - b >= 100 && d[i + 3] === 255;
      if (hit) n += 1;
    }
    return n;
  }, [rgb, x0, x1]);
}

async function blobText(page, testid) {
  const href = await page.getAttribute(`[data-testid="${testid}"]`, 'href');
  return page.evaluate(async (h) => (await fetch(h)).text(), href);
}

// `schedlab mesh EXP.json`: the summary and mesh metrics of its run.
function cliRun(dir, name, json) {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, json);
  try {
    const out = JSON.parse(execFileSync(BIN, ['mesh', file], {
      encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'pipe'],
    }));
    const run = Array.isArray(out.runs) ? out.runs[0] : out;
    return { summary: run.summary, mesh: run.mesh };
  } catch (e) {
    return { error: String(e.stderr || e.message).trim().split('\n')[0] };
  }
}

function compare(row, cli) {
  if (cli.error) return [`schedlab mesh failed: ${cli.error}`];
  const diffs = [];
  for (const k of SUMMARY_KEYS) {
    if (row?.[k] !== cli.summary[k]) diffs.push(`${k}: page ${row?.[k]} vs cli ${cli.summary[k]}`);
  }
  for (const k of MESH_KEYS) {
    const want = cli.mesh[k] ?? null;
    if ((row?.[k] ?? null) !== want) diffs.push(`${k}: page ${row?.[k]} vs cli ${want}`);
  }
  return diffs;
}

async function openMesh(browser, url, errors) {
  const page = await openTab(browser, url, errors);
  await page.click('[data-testid="mode-mesh"]');
  await page.waitForSelector('#mesh-mode:not([hidden])');
  await page.waitForSelector('#mesh-mode[data-worker="ready"]', { timeout: 60000 });
  return page;
}

async function main() {
  const url = await serveDist();
  const browser = await launchBrowser();
  const errors = [];
  const dir = mkdtempSync(join(tmpdir(), 'schedlab-mesh-'));
  try {
    const page = await openMesh(browser, url, errors);
    check(await page.isVisible('[data-testid="mesh-alloc-mc_elongated"]')
      && (await page.$$('[id^="mesh-alloc-"][type="checkbox"]')).length === 12 + 28,
    'mesh tab: the form lists the 12 allocators and the 28 binary-tree settings of Liu et al.');
    await shot(page, 'mesh-01-form.png');

    // Ababneh & Bani-Mohammad preset: one row, equal to the CLI.
    await page.click('[data-testid="mesh-preset-window"]');
    check(await page.inputValue('[data-testid="mesh-policy-k"]') === '240'
      && await page.inputValue('[data-testid="mesh-policy"]') === 'window',
    'Ababneh & Bani-Mohammad preset: Window-240 selected');
    await page.click('[data-testid="mesh-run"]');
    await waitIdleWithRows(page, 1);
    const t003 = await readTable(page);
    const expJson = await blobText(page, 'mesh-dl-exp-mpl');
    const cli_window = cliRun(dir, 'window', expJson);
    const d003 = compare(t003.mpl, cli_window);
    check(d003.length === 0, 'Ababneh & Bani-Mohammad preset: table equals `schedlab mesh`, number for number', d003.join('; '));
    check(t003.mpl?.policy === 'Window-240', 'Ababneh & Bani-Mohammad preset: policy Window-240', t003.mpl?.policy);

    // The canvas.
    await page.waitForSelector('[data-testid="mesh-view"]:not([hidden])');
    const ink0 = await canvasInk(page, 'mesh-canvas');
    check(ink0.ink > 0.05, 'mesh canvas: drawn', `ink ${ink0.ink}`);
    await page.evaluate(() => window.scrollTo(0, document.querySelector('#mesh-view').offsetTop - 10));
    await shot(page, 'mesh-02-window-canvas.png');
    const t0 = Number(await page.getAttribute('#mesh-canvas', 'data-t'));
    await page.click('[data-testid="mesh-step"]');
    const t1 = Number(await page.getAttribute('#mesh-canvas', 'data-t'));
    const jobs = (await blobText(page, 'mesh-dl-jobs-mpl')).trim().split('\n').slice(1).map((l) => l.split(',').map(Number));
    const times = [...new Set(jobs.flatMap((j) => [j[1], j[2], j[3]]))].sort((a, b) => a - b);
    const want = times.find((x) => x > t0);
    check(t1 === want, 'step: goes to the next event (submit, start or end)', `t ${t0} → ${t1}, next event ${want}`);
    const label = await page.textContent('[data-testid="mesh-time-label"]');
    check(/running/.test(label) && /waiting/.test(label), 'time label: running and waiting jobs', label);
    // Scrub to 60 % of the run.
    await page.$eval('[data-testid="mesh-time"]', (r) => {
      r.value = String(Number(r.min) + (Number(r.max) - Number(r.min)) * 0.6);
      r.dispatchEvent(new Event('input', { bubbles: true }));
    });
    const ink1 = await canvasInk(page, 'mesh-canvas');
    const t2 = Number(await page.getAttribute('#mesh-canvas', 'data-t'));
    check(ink1.hash !== ink0.hash && t2 !== t1, 'scrubber: the canvas changes', `t ${t2}`);
    // Hover a busy node: find one from the occupancy the page drew (the canvas scrolled into
    // view: the controls under it may have scrolled its top out).
    await page.$eval('#mesh-canvas', (c) => c.scrollIntoView());
    const box = await page.$eval('#mesh-canvas', (c) => {
      const r = c.getBoundingClientRect();
      return { x: r.left, y: r.top };
    });
    const busy = (await page.getAttribute('#mesh-canvas', 'data-busy-node')).split(',').map(Number);
    let tip = '';
    if (busy.length === 2) {
      await page.mouse.move(box.x + busy[0], box.y + busy[1]);
      await page.waitForSelector('[data-testid="mesh-tip"]:not([hidden])', { timeout: 5000 }).catch(() => {});
      tip = await page.textContent('[data-testid="mesh-tip"]');
    }
    check(/^Job \d+ · \d+ nodes? \(\d+ × \d+ submesh\)/.test(tip) && /waited/.test(tip), 'hover: a node shows its job', tip);
    await shot(page, 'mesh-03-hover.png');
    // The canvas downloads as PNG.
    const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 15000 }), page.click('#mesh-png')]);
    check(dl.suggestedFilename() === 'schedlab-mesh.png', 'mesh canvas: PNG download', dl.suggestedFilename());
    // Play advances the time.
    await page.click('[data-testid="mesh-play"]');
    await page.waitForTimeout(400);
    await page.click('[data-testid="mesh-play"]');
    const t3 = Number(await page.getAttribute('#mesh-canvas', 'data-t'));
    check(t3 > t2, 'play: the time advances', `${t2} → ${t3}`);
    await page.evaluate(() => window.scrollTo(0, document.querySelector('#mesh-charts').offsetTop - 10));
    await shot(page, 'mesh-04-time-charts.png');

    // Bad input: W = 0 → inline error naming the field, results kept.
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.fill('[data-testid="mesh-width"]', '0');
    await page.click('[data-testid="mesh-run"]');
    await page.waitForSelector('[data-testid="mesh-error"]:not([hidden])');
    const e1 = await page.textContent('#mesh-error-text');
    check(/Width W/.test(e1) && /between 1 and 256/.test(e1), 'W = 0: inline error names the field', e1);
    check(JSON.stringify(await readTable(page)) === JSON.stringify(t003), 'W = 0: previous results kept');
    await shot(page, 'mesh-05-error.png');
    await page.fill('[data-testid="mesh-width"]', '32');

    // Mache et al. preset: six allocators; heatmap and legend.
    await page.click('[data-testid="mesh-preset-contention"]');
    check(await page.isDisabled('[data-testid="mesh-policy"]'), 'Mache et al. preset: policy forced to FCFS (picker disabled)');
    const hint = await page.textContent('[data-testid="mesh-policy-hint"]');
    check(/FCFS/.test(hint), 'Mache et al. preset: the hint says why', hint);
    await page.click('[data-testid="mesh-run"]');
    await waitIdleWithRows(page, 6, 60000);
    const t000 = await readTable(page);
    check(['mc_elongated', 'plas', 'mc', 'random', 'mbs', 'paging_0'].every((a) => t000[a] && t000[a].mean_service > 0),
      'Mache et al. preset: six rows with mean service times', Object.keys(t000).join(','));
    const d000 = [];
    for (const a of Object.keys(t000)) {
      const cli = cliRun(dir, `mc_elongated-${a}`, await blobText(page, `mesh-dl-exp-${a}`));
      d000.push(...compare(t000[a], cli).map((d) => `${a} ${d}`));
    }
    check(d000.length === 0, 'Mache et al. preset: every row equals `schedlab mesh`, number for number', d000.join('; '));
    const cap_exponential = await page.textContent('[data-testid="mesh-caption"]');
    check(/separated-classes contention model \(κ = 0\.001, σ = 0\)/.test(cap_exponential),
      'Mache et al. preset: the caption names the contention model the preset runs', cap_exponential);
    await page.evaluate(() => window.scrollTo(0, document.querySelector('#mesh-results').getBoundingClientRect().top + window.scrollY - 80));
    await shot(page, 'mesh-06a-mc_elongated-table.png');
    await page.evaluate(() => window.scrollTo(0, document.querySelector('#mesh-view').offsetTop - 10));
    // Heat colours: the dark end of the scale shows in the legend; link bars in the mesh area.
    const legendDark = await colourPixels(page, 'mesh-canvas', [103, 0, 13], 830);
    const linkBars = await colourPixels(page, 'mesh-canvas', null, 0, 820);
    check(legendDark > 20 && linkBars > 20, 'Mache et al.: heatmap with its legend', `legend ${legendDark}, bars ${linkBars}`);
    await shot(page, 'mesh-06-mc_elongated-heatmap.png');
    const withHeat = await canvasInk(page, 'mesh-canvas');
    await page.click('[data-testid="mesh-heat"]');
    const noHeat = await canvasInk(page, 'mesh-canvas');
    check(withHeat.hash !== noHeat.hash, 'heatmap: toggleable');
    await page.click('[data-testid="mesh-heat"]');
    await page.selectOption('[data-testid="mesh-run-pick"]', '3');
    const random = await canvasInk(page, 'mesh-canvas');
    check(random.hash !== withHeat.hash, 'run picker: shows another allocator');
    const shareUrl = await page.getAttribute('[data-testid="mesh-share-link"]', 'href');
    check(/#e=[A-Za-z0-9_-]+\.[0-9a-f]{8}$/.test(shareUrl), 'share link: #e= fragment (the experiment envelope)', shareUrl);

    // Traffic sweep: a line per allocator.
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.click('[data-testid="mesh-sweep"]');
    await page.waitForSelector('#mesh-sweep-box:not([hidden])', { timeout: 90000 });
    await page.waitForFunction(() => document.querySelector('#mesh-mode').dataset.state === 'idle', null, { timeout: 90000 });
    const lines = JSON.parse(await page.getAttribute('#mesh-sweep-box', 'data-points'));
    check(lines.length === 6 && lines.every(([, pts]) => pts.length === 6 && pts.every(([, y]) => y > 0)),
      'traffic sweep: 6 allocators × 6 ratios', JSON.stringify(lines.map(([l, p]) => [l, p.length])));
    const sweepInk = await canvasInk(page, 'mesh-chart-sweep');
    // Every allocator's colour shows (the lines overlap where the allocators agree).
    const colours = [[0x2e, 0x6f, 0xdf], [0xd1, 0x49, 0x5b], [0x1f, 0x9d, 0x7a], [0xe0, 0x8a, 0x1e], [0x7b, 0x4f, 0xc9], [0x4a, 0x4f, 0x5a]];
    const px = [];
    for (const c of colours) px.push(await colourPixels(page, 'mesh-chart-sweep', c));
    check(sweepInk.ink > 0.02 && px.every((n) => n > 20), 'traffic sweep: chart drawn, a line per allocator', `ink ${sweepInk.ink} pixels ${px}`);
    check(JSON.stringify(await readTable(page)) === JSON.stringify(t000), 'traffic sweep: table unchanged');
    await page.evaluate(() => window.scrollTo(0, document.querySelector('#mesh-sweep-box').offsetTop - 10));
    await shot(page, 'mesh-07-sweep.png');

    // Cancel between the runs of a comparison: the previous results stay. Run and Cancel are
    // pressed in one task of the page, so the six runs (well under a second) cannot end first.
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.evaluate(() => {
      document.querySelector('[data-testid="mesh-run"]').click();
      document.querySelector('[data-testid="mesh-cancel"]').click();
    });
    await page.waitForFunction(() => document.querySelector('#mesh-mode').dataset.state === 'idle', null, { timeout: 30000 });
    const cl = await page.textContent('[data-testid="mesh-progress-label"]');
    check(/Cancelled after \d of 6 runs/.test(cl) && JSON.stringify(await readTable(page)) === JSON.stringify(t000),
      'cancel: stops the comparison, results kept', cl);

    // Share link in a fresh tab: same numbers.
    const tab = await openTab(browser, shareUrl, errors);
    check(await tab.isVisible('#mesh-mode'), 'share link: opens the mesh tab');
    await waitIdleWithRows(tab, 6, 60000);
    const t2b = await readTable(tab);
    check(JSON.stringify(t2b) === JSON.stringify(t000), 'share link: reopened run gives the same table');
    await shot(tab, 'mesh-08-share-reopened.png');
    // A link asking for Window-K with MC-Elongated: inline error naming the policy.
    const bad = JSON.parse(Buffer.from(shareUrl.split('#e=')[1].split('.')[0], 'base64url').toString());
    check(bad.v === 2 && bad.mode === 'mesh', 'share link: envelope v 2, mode mesh', JSON.stringify(bad).slice(0, 200));
    bad.experiment.policy = 'window-240';
    const badJson = JSON.stringify(bad);
    const fnv = (s) => {
      let h = 0x811c9dc5;
      for (const b of Buffer.from(s)) h = Math.imul(h ^ b, 0x01000193) >>> 0;
      return h.toString(16).padStart(8, '0');
    };
    await tab.goto(`${url}#e=${Buffer.from(badJson).toString('base64url')}.${fnv(badJson)}`);
    await tab.reload();
    await tab.waitForSelector('[data-testid="mesh-error"]:not([hidden])', { timeout: 30000 });
    const e2 = await tab.textContent('#mesh-error-text');
    check(/Policy/.test(e2) && /MC-Elongated/.test(e2) && /FCFS/.test(e2), 'Window-K with MC-Elongated: inline error naming the policy', e2);
    await shot(tab, 'mesh-09-bad-link.png');
    await tab.close();

    // The largest mesh a link may ask for (256 × 256, 10^6 jobs, MC-Elongated): held with its
    // estimate, nothing generated or simulated until Run.
    // The link of a 256 × 256 MC-Elongated FCFS run of `jobs` jobs (the contention preset's
    // envelope otherwise).
    const largeMeshLink = (jobs) => {
      const env = JSON.parse(badJson);
      env.experiment.policy = 'fcfs';
      env.experiment.width = 256;
      env.experiment.height = 256;
      env.experiment.workload.synthetic.jobs = jobs;
      env.allocators = ['mc_elongated'];
      const json = JSON.stringify(env);
      return `${url}#e=${Buffer.from(json).toString('base64url')}.${fnv(json)}`;
    };
    {
      const tab5 = await openTab(browser, largeMeshLink(1000000), errors);
      await tab5.waitForFunction(() => /press Run to start it/.test(document.querySelector('[data-testid="mesh-progress-label"]').textContent), null, { timeout: 60000 });
      const label = await tab5.textContent('[data-testid="mesh-progress-label"]');
      await tab5.waitForTimeout(1000);
      check(/^This run is estimated at about \d+ h in this tab/.test(label)
        && await tab5.isEnabled('[data-testid="mesh-run"]')
        && await tab5.evaluate(() => document.querySelector('#mesh-mode').dataset.state) === 'idle'
        && Number(await tab5.evaluate(() => document.querySelector('#mesh-progress').value)) === 0,
      'a 256 × 256, 10^6-job mesh link shows its estimate (hours) and does not start by itself', label);
      await shot(tab5, 'mesh-10-held-link.png');
      await tab5.close();
    }

    // A long mesh run (256 × 256, 50,000 jobs, MC-Elongated) opened from a link: estimated
    // above the page's work bound (60 s), so the link does not start it — the progress label
    // shows the estimate and Run stays enabled (docs/limits.md, "Work bounds"). Started with
    // Run, the worker runs it in slices, so progress arrives, no slice holds the worker for
    // over 200 ms of CPU (so it answers promptly while it runs), and Cancel frees it at once
    // for the next run: from the click to the worker's answer, under 200 ms of the worker's
    // CPU. CPU times come from Chromium's trace (`taskTimes`), so they hold under any load.
    const tab4 = await openTab(browser, largeMeshLink(50000), errors);
    await tab4.waitForFunction(() => /press Run to start it/.test(document.querySelector('[data-testid="mesh-progress-label"]').textContent), null, { timeout: 60000 });
    const held = await tab4.textContent('[data-testid="mesh-progress-label"]');
    check(/^This run is estimated at about \d+ (min|h) in this tab/.test(held) && /MC-Elongated/.test(held)
      && await tab4.isEnabled('[data-testid="mesh-run"]') && Object.keys(await readTable(tab4)).length === 0,
    'long mesh link: not started by itself; the estimate shown, Run enabled', held);
    const probe = () => Promise.all(tab4.workers().map((w) => w.evaluate(() => 1)));
    const running = await taskTimes(browser, tab4, async () => {
      await tab4.click('[data-testid="mesh-run"]');
      await tab4.waitForFunction(() => Number(document.querySelector('#mesh-progress').value) > 0, null, { timeout: 60000 });
      const t = Date.now();
      await probe();
      return Date.now() - t;
    });
    const slice = longest(running.workers);
    check(tab4.workers().length > 0 && running.workers.length > 1 && slice.cpu < 200,
      'long mesh run: progress arrives and no worker task takes over 200 ms of CPU while it runs',
      `${running.workers.length} worker tasks, longest ${slice.cpu.toFixed(0)} ms of CPU; the worker answered in ${running.result} ms`);
    log(`timing: long mesh run: ${running.workers.length} worker tasks, longest ${slice.cpu.toFixed(0)} ms of CPU, `
      + `${slice.wall.toFixed(0)} ms of wall time; the worker answered in ${running.result} ms`);
    const cancelled = await taskTimes(browser, tab4, async () => {
      const tc = Date.now();
      await tab4.click('[data-testid="mesh-cancel"]');
      await probe();
      const ms = Date.now() - tc;
      await tab4.waitForFunction(() => document.querySelector('#mesh-mode').dataset.state === 'idle', null, { timeout: 5000 });
      return ms;
    });
    const cancelCpu = cancelled.workers.reduce((sum, t) => sum + t.cpu, 0);
    log(`timing: long mesh run: Cancel took ${cancelCpu.toFixed(0)} ms of the workers' CPU; answered after ${cancelled.result} ms`);
    check(cancelCpu < 200, 'long mesh run: Cancel frees the worker within 200 ms of its CPU',
      `${cancelCpu.toFixed(0)} ms of the workers' CPU from the click to idle; the worker answered ${cancelled.result} ms after the click`);
    await tab4.click('[data-testid="mesh-preset-window"]');
    await tab4.click('[data-testid="mesh-run"]');
    await waitIdleWithRows(tab4, 1, 30000);
    check((await readTable(tab4)).mpl?.policy === 'Window-240', 'long mesh run: after Cancel the next run finishes');
    await tab4.close();

    // An uploaded trace (the flat mode's upload message): MPL and First Fit on an 8 × 16
    // mesh with the Paragon shape rule, equal to the CLI on the same trace.
    const tracePath = join(TRACES, TRACE_NAME);
    if (existsSync(tracePath)) {
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.setInputFiles('[data-testid="mesh-upload"]', tracePath);
      await page.waitForFunction(() => document.querySelector('#mesh-wl-trace').checked, null, { timeout: 60000 });
      await page.fill('[data-testid="mesh-width"]', '8');
      await page.fill('[data-testid="mesh-height"]', '16');
      await page.selectOption('[data-testid="mesh-shape"]', 'paragon');
      for (const box of await page.$$('[id^="mesh-alloc-"][type="checkbox"]')) await box.uncheck();
      await page.check('[data-testid="mesh-alloc-mpl"]');
      await page.check('[data-testid="mesh-alloc-first_fit"]');
      await page.selectOption('[data-testid="mesh-policy"]', 'fcfs');
      await page.click('[data-testid="mesh-run"]');
      await waitIdleWithRows(page, 2, 60000);
      const tt = await readTable(page);
      const dt = [];
      for (const a of ['mpl', 'first_fit']) {
        const exp = JSON.parse(await blobText(page, `mesh-dl-exp-${a}`));
        exp.workload = { swf: { path: tracePath } };
        dt.push(...compare(tt[a], cliRun(dir, `trace-${a}`, JSON.stringify(exp))).map((d) => `${a} ${d}`));
      }
      check(tt.mpl?.jobs > 5000 && dt.length === 0, `trace ${TRACE_NAME}: MPL and First Fit equal \`schedlab mesh\``, dt.join('; '));
      const note = await page.textContent('[data-testid="mesh-view-note"]');
      check(/Only the first 5,000 jobs/.test(note), 'trace: the view says it draws the first 5,000 jobs', note);
      await page.evaluate(() => window.scrollTo(0, document.querySelector('#mesh-results').getBoundingClientRect().top + window.scrollY - 80));
      await shot(page, 'mesh-10-trace.png');

      // The trace run's share link in a fresh tab: it asks for the file, refuses another one
      // (different SHA-256), then runs the right one with identical numbers.
      const traceLink = await page.getAttribute('[data-testid="mesh-share-link"]', 'href');
      const tab3 = await openMesh(browser, traceLink, errors);
      await tab3.waitForSelector('[data-testid="mesh-error"]:not([hidden])', { timeout: 30000 });
      const ask = await tab3.textContent('#mesh-error-text');
      check(ask.includes(TRACE_NAME) && /upload/.test(ask), 'trace link: asks for the trace by name', ask);
      const other = join(dir, 'other.swf');
      writeFileSync(other, '; MaxProcs: 128\n1 0 -1 10 16 -1 -1 16 10 -1 1 1 1 -1 -1 -1 -1 -1\n');
      await tab3.setInputFiles('[data-testid="mesh-upload"]', other);
      await tab3.waitForFunction(() => /different file/.test(document.querySelector('#mesh-error-text').textContent), null, { timeout: 30000 });
      check(Object.keys(await readTable(tab3)).length === 0, 'trace link: a different file is refused (SHA-256), nothing runs');
      await tab3.setInputFiles('[data-testid="mesh-upload"]', tracePath);
      await waitIdleWithRows(tab3, 2, 60000);
      const t3 = await readTable(tab3);
      check(JSON.stringify(t3) === JSON.stringify(tt), 'trace link: the right file runs with identical numbers',
        `${JSON.stringify(t3)} vs ${JSON.stringify(tt)}`);
      await tab3.close();
    } else {
      log(`SKIP trace checks: ${tracePath} missing`);
    }

    // Liu et al. preset: the binary-tree allocators, the phase model, the allocation-tree overlay.
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.click('[data-testid="mesh-preset-binary-tree"]');
    check(await page.inputValue('[data-testid="mesh-exchanges"]') === '4'
      && await page.isChecked('[data-testid="mesh-alloc-d_dbt_8"]')
      && await page.isChecked('[data-testid="mesh-alloc-dbt_8"]')
      && await page.isVisible('[data-testid="mesh-alloc-scbt"]'),
    'Liu et al. preset: phase model (4 exchanges), DBT and d-DBT ticked in the binary-tree picker');
    await shot(page, 'mesh-11-binary_tree-form.png');
    await page.click('[data-testid="mesh-run"]');
    await waitIdleWithRows(page, 4, 60000);
    const t001 = await readTable(page);
    check(['dbt_8', 'd_dbt_8', 'mbs', 'plas'].every((a) => t001[a] && t001[a].makespan > 0),
      'Liu et al. preset: four rows with makespans', Object.keys(t001).join(','));
    const d001 = [];
    for (const a of Object.keys(t001)) {
      const cli = cliRun(dir, `binary_tree-${a}`, await blobText(page, `mesh-dl-exp-${a}`));
      d001.push(...compare(t001[a], cli).map((d) => `${a} ${d}`));
    }
    check(d001.length === 0, 'Liu et al. preset: every row equals `schedlab mesh`, number for number', d001.join('; '));
    await page.selectOption('[data-testid="mesh-run-pick"]', '1');
    await page.evaluate(() => window.scrollTo(0, document.querySelector('#mesh-view').offsetTop - 10));
    const noTree = await canvasInk(page, 'mesh-canvas');
    await page.click('[data-testid="mesh-tree"]');
    const withTree = await canvasInk(page, 'mesh-canvas');
    check(withTree.hash !== noTree.hash, 'allocation tree: the overlay changes the mesh view');
    await shot(page, 'mesh-12-binary_tree-tree.png');

    // The wormhole model (Mache et al. §4.1): chosen in the form with its three parameters
    // (a bad one is an inline error naming it), run for two allocators equal to `schedlab mesh`
    // (table and links CSV), the blocked-time heatmap with its legend, the parameters in the
    // share link and back in the form of a fresh tab.
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.click('[data-testid="mesh-preset-contention"]');
    check(await page.isHidden('[data-testid="mesh-worm-fields"]'), 'wormhole: its fields are hidden under the separated model');
    await page.selectOption('[data-testid="mesh-model"]', 'wormhole');
    check(await page.isVisible('[data-testid="mesh-worm-flits"]') && await page.isVisible('[data-testid="mesh-worm-round"]')
      && await page.inputValue('[data-testid="mesh-worm-flits"]') === '8',
    'wormhole: choosing it shows its parameters (defaults: 8 flits)');
    await page.fill('[data-testid="mesh-exp_jobs"]', '150');
    for (const box of await page.$$('[id^="mesh-alloc-"][type="checkbox"]')) await box.uncheck();
    await page.check('[data-testid="mesh-alloc-mc_elongated"]');
    await page.check('[data-testid="mesh-alloc-random"]');
    await page.fill('[data-testid="mesh-worm-flits"]', '0');
    await page.click('[data-testid="mesh-run"]');
    await page.waitForSelector('[data-testid="mesh-error"]:not([hidden])');
    const ew = await page.textContent('#mesh-error-text');
    check(/^Flits per packet: must be between 1 and 1024/.test(ew), 'wormhole: 0 flits is an inline error naming the field', ew);
    await page.fill('[data-testid="mesh-worm-flits"]', '16');
    await page.fill('[data-testid="mesh-worm-round"]', '3600');
    await shot(page, 'mesh-13-wormhole-form.png');
    await page.click('[data-testid="mesh-run"]');
    await waitIdleWithRows(page, 2, 90000);
    const tw = await readTable(page);
    const capw = await page.textContent('[data-testid="mesh-caption"]');
    check(/wormhole model \(16-flit worms, flit time 1 s, one round per 3600 s of run time\)/.test(capw),
      'wormhole: the caption names the model and its parameters', capw);
    const dw = [];
    for (const a of ['mc_elongated', 'random']) {
      const expw = await blobText(page, `mesh-dl-exp-${a}`);
      dw.push(...compare(tw[a], cliRun(dir, `wormhole-${a}`, expw)).map((d) => `${a} ${d}`));
      const file = join(dir, `wormhole-${a}.json`);
      const csvFile = join(dir, `wormhole-${a}-links.csv`);
      try {
        execFileSync(BIN, ['mesh', file, '--links-csv', csvFile], { stdio: ['ignore', 'ignore', 'pipe'] });
        const pageCsv = await blobText(page, `mesh-dl-links-${a}`);
        if (pageCsv !== readFileSync(csvFile, 'utf8')) dw.push(`${a} links CSV differs`);
        if (!pageCsv.startsWith('from_x,from_y,to_x,to_y,messages,flits,held,blocked\n')) dw.push(`${a} links CSV header`);
      } catch (e) {
        dw.push(`${a}: ${String(e.stderr || e.message).trim().split('\n')[0]}`);
      }
    }
    check(tw.mc_elongated?.mean_service > 0 && dw.length === 0,
      'wormhole: both rows and the links CSVs equal `schedlab mesh --links-csv`', dw.join('; '));
    await page.selectOption('[data-testid="mesh-run-pick"]', '0');
    check(await page.getAttribute('[data-testid="mesh-heat-kind"]', 'data-available') === 'blocked',
      'wormhole: the heatmap offers blocked time');
    if (await page.isChecked('[data-testid="mesh-tree"]')) await page.click('[data-testid="mesh-tree"]');
    await page.selectOption('[data-testid="mesh-heat-kind"]', 'blocked');
    await page.evaluate(() => window.scrollTo(0, document.querySelector('#mesh-view').offsetTop - 10));
    const legendW = await colourPixels(page, 'mesh-canvas', [103, 0, 13], 830);
    const barsW = await colourPixels(page, 'mesh-canvas', null, 0, 820);
    check(await page.getAttribute('#mesh-canvas', 'data-heat') === 'blocked' && legendW > 20 && barsW > 20,
      'wormhole: blocked-time heatmap with its colour legend', `legend ${legendW}, bars ${barsW}`);
    await shot(page, 'mesh-14-wormhole-blocked.png');
    // Hovering the most blocked link shows what crossed it and how long worms waited for it.
    const boxW = await page.$eval('#mesh-canvas', (c) => {
      const r = c.getBoundingClientRect();
      return { x: r.left, y: r.top };
    });
    const hot = (await page.getAttribute('#mesh-canvas', 'data-blocked-link')).split(',').map(Number);
    let tipW = '';
    if (hot.length === 2) {
      await page.mouse.move(boxW.x + hot[0], boxW.y + hot[1]);
      await page.waitForSelector('[data-testid="mesh-tip"]:not([hidden])', { timeout: 5000 }).catch(() => {});
      tipW = await page.textContent('[data-testid="mesh-tip"]');
    }
    check(/^Link \(\d+, \d+\) → (east|west|north|south) · [\d,]+ worms/.test(tipW) && /blocked [1-9][\d,]* s \(whole run\)/.test(tipW),
      'wormhole: hovering the most blocked link shows its worms, held and blocked time', tipW);
    await shot(page, 'mesh-15-wormhole-link-hover.png');
    const linkW = await page.getAttribute('[data-testid="mesh-share-link"]', 'href');
    const envW = JSON.parse(Buffer.from(linkW.split('#e=')[1].split('.')[0], 'base64url').toString());
    const netW = envW.experiment?.network ?? {};
    check(netW.model === 'wormhole' && netW.wormhole?.flits === 16 && netW.wormhole?.round_length === 3600,
      'wormhole: the share link carries the model and its parameters', JSON.stringify(netW));
    const tabW = await openTab(browser, linkW, errors);
    await waitIdleWithRows(tabW, 2, 90000);
    check(await tabW.inputValue('[data-testid="mesh-model"]') === 'wormhole'
      && await tabW.inputValue('[data-testid="mesh-worm-flits"]') === '16'
      && await tabW.inputValue('[data-testid="mesh-worm-round"]') === '3600'
      && JSON.stringify(await readTable(tabW)) === JSON.stringify(tw),
    'wormhole: the link reopens with its parameters in the form and the same table');
    await tabW.close();
    // A preset of another model hides the fields; its run has no link counters, so the
    // blocked-time choice is withdrawn and the heatmap shows link loads again.
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.click('[data-testid="mesh-preset-window"]');
    check(await page.inputValue('[data-testid="mesh-model"]') === 'flow' && await page.isHidden('[data-testid="mesh-worm-fields"]'),
      'wormhole: a preset of another model hides the wormhole fields');
    await page.click('[data-testid="mesh-run"]');
    await waitIdleWithRows(page, 1);
    check(await page.getAttribute('[data-testid="mesh-heat-kind"]', 'data-available') === 'load'
      && await page.inputValue('[data-testid="mesh-heat-kind"]') === 'load'
      && await page.getAttribute('#mesh-canvas', 'data-heat') === 'load',
    'wormhole: a run without link counters withdraws the blocked-time choice');

    check(errors.length === 0, 'no console errors', errors.join(' | '));
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await browser.close();
  }
  log('done');
}

runSuite('mesh', BUDGET_MS, main);
