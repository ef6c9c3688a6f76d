// Browser vs. native speed (issue 17 item 4): runs the same experiments in the page's Web
// Worker (headless Chromium, the release build in dist/) and natively (the release CLI), and
// prints a Markdown table of the times and their ratio. Not a test: it asserts nothing.
//
//   trunk build --release && cargo build --release --bin schedlab
//   node scripts/bench-browser.mjs [--repeat N]
//
// Experiments: the flat page's EASY on 100,000 Lublin–Feitelson jobs (seeds 1–3), and the
// 2D-mesh preset "Window-based scheduling (seed 003)" (MPL under Window-240, 1,000 jobs; seeds
// 1–3). The browser time is the worker's own wall time as the page reports it ("Done: 1 run in
// X s", 10 ms resolution: generate + simulate + metrics); the native time is the wall time of
// `schedlab run|mesh` on the experiment of the page's own share link (through `schedlab open
// --experiment-out`), process start included. Each figure is the median over the repeats.

import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { launchBrowser, openTab, ROOT, serveDist, stopServer } from '../tests/e2e/harness.mjs';

const BIN = resolve(ROOT, process.env.SCHEDLAB_BIN ?? join('target', 'release', 'schedlab'));
const repeatArg = process.argv.indexOf('--repeat');
const REPEAT = repeatArg > 0 ? Number(process.argv[repeatArg + 1]) : 3;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function nativeSeconds(cmd, file) {
  const t0 = process.hrtime.bigint();
  execFileSync(BIN, [cmd, file], { stdio: 'pipe', timeout: 300000 });
  return Number(process.hrtime.bigint() - t0) / 1e9;
}

// The page's "Done: 1 run in X s." of the label `sel`, in seconds.
async function pageSeconds(page, sel) {
  const text = await page.textContent(sel);
  const m = /Done: 1 run in ([0-9.]+) s/.exec(text);
  if (!m) throw new Error(`no time in ${JSON.stringify(text)}`);
  return Number(m[1]);
}

async function main() {
  const tmp = mkdtempSync(join(tmpdir(), 'schedlab-bench-browser-'));
  const url = await serveDist();
  const browser = await launchBrowser();
  const errors = [];
  const rows = [];
  try {
    // Flat EASY, 100,000 jobs.
    const page = await openTab(browser, url, errors);
    await page.fill('#jobs', '100000');
    await page.fill('#load-factor', '1');
    for (const p of ['fcfs', 'easy', 'conservative']) await page.setChecked(`#policy-${p}`, p === 'easy');
    const flat = { browser: [], native: [] };
    for (let i = 0; i < REPEAT; i += 1) {
      await page.fill('#seed', String(1 + (i % 3)));
      await page.evaluate(() => { document.querySelector('#progress-label').textContent = ''; });
      await page.click('[data-testid="run"]');
      await page.waitForFunction(() => document.body.dataset.state === 'idle'
        && /Done: 1 run/.test(document.querySelector('#progress-label').textContent), null, { timeout: 300000, polling: 50 });
      flat.browser.push(await pageSeconds(page, '#progress-label'));
      const link = await page.$eval('#share-link', (a) => a.href);
      const exp = join(tmp, `flat-${i}.json`);
      execFileSync(BIN, ['open', link, '--experiment-out', exp], { stdio: 'pipe' });
      flat.native.push(nativeSeconds('run', exp));
    }
    rows.push(['Flat EASY, 100,000 Lublin–Feitelson jobs', flat]);

    // Mesh: seed 003 preset, Window-240 with MPL.
    await page.click('[data-testid="mode-mesh"]');
    const mesh = { browser: [], native: [] };
    for (let i = 0; i < REPEAT; i += 1) {
      await page.click('[data-testid="mesh-preset-003"]');
      await page.fill('#mesh-seed', String(1 + (i % 3)));
      await page.evaluate(() => { document.querySelector('#mesh-progress-label').textContent = ''; });
      await page.click('[data-testid="mesh-run"]');
      await page.waitForFunction(() => /Done: 1 run/.test(document.querySelector('#mesh-progress-label').textContent),
        null, { timeout: 300000, polling: 50 });
      mesh.browser.push(await pageSeconds(page, '#mesh-progress-label'));
      const link = await page.$eval('#mesh-share-link', (a) => a.href);
      const exp = join(tmp, `mesh-${i}.json`);
      execFileSync(BIN, ['open', link, '--experiment-out', exp], { stdio: 'pipe' });
      mesh.native.push(nativeSeconds('mesh', exp));
    }
    rows.push(['2D mesh, seed 003 preset (MPL, Window-240, 1,000 jobs)', mesh]);
  } finally {
    await browser.close();
    stopServer();
  }
  console.log(`| experiment | runs | browser worker (s, median) | native CLI (s, median) | browser / native |`);
  console.log('|---|---:|---:|---:|---:|');
  for (const [name, r] of rows) {
    const b = median(r.browser);
    const n = median(r.native);
    console.log(`| ${name} | ${r.browser.length} | ${b.toFixed(2)} | ${n.toFixed(3)} | ${(b / n).toFixed(2)} |`);
  }
  if (errors.length) console.log(`page errors: ${errors.slice(0, 3).join(' | ')}`);
  process.exit(0);
}

main().catch((e) => {
  console.error(e);
  stopServer();
  process.exit(1);
});
