// End-to-end test of offline use (docs/offline.md) in headless Chromium, run by scripts/test.sh
// after `trunk build --release`: the page registers its service worker, which caches the app
// shell (the page, the stylesheet, both JS loaders and .wasm files, the worker loader, the
// manifest and icon) and the shipped exercises under a version hashed from the build; with the
// network cut (context.setOffline) a reload still shows the page, runs a small flat
// simulation and opens an exercise in the Exercises tab. A new release (a copy of dist/ whose
// sw.js has another version) replaces the old cache after one online reload. Screenshots:
// test-output/e2e/offline-*.png. Prints `offline: N passed, M failed`.

import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DIST, check, freePort, launchBrowser, log, loggedErrors, openTab, runSuite, serveDist, shot, waitForHttp,
} from './harness.mjs';

const BUDGET_MS = 240 * 1000;

// The service worker's caches: { name: [paths relative to the site] }.
async function cacheContents(page) {
  return page.evaluate(async () => {
    const out = {};
    for (const name of await caches.keys()) {
      const c = await caches.open(name);
      out[name] = (await c.keys()).map((r) => new URL(r.url).pathname.replace(/^\//, ''));
    }
    return out;
  });
}

async function waitControlled(page) {
  await page.waitForFunction(() => navigator.serviceWorker?.controller != null, null,
    { timeout: 60000, polling: 100 });
}

await runSuite('offline', BUDGET_MS, async () => {
  const url = await serveDist();
  const browser = await launchBrowser();
  const errors = loggedErrors();
  let next = null;
  try {
    // ---- Online: the page registers its service worker, which caches the build.
    const page = await openTab(browser, url, errors);
    const t0 = Date.now();
    await waitControlled(page);
    log(`timing: simulator ready → page controlled by the service worker ${Date.now() - t0} ms`);
    const sw = readFileSync(join(DIST, 'sw.js'), 'utf8');
    const version = /const VERSION = '([0-9a-f]{16})'/.exec(sw)?.[1];
    check(Boolean(version), 'dist/sw.js carries a version hashed from the build', sw.slice(0, 200));
    const caches = await cacheContents(page);
    const cached = caches[`schedlab-${version}`] ?? [];
    check(Object.keys(caches).length === 1 && cached.length > 0, 'one cache, named after the build\'s version',
      JSON.stringify(Object.keys(caches)));
    const built = readdirSync(DIST).filter((f) => f !== 'sw.js' && !f.startsWith('.'));
    const wasm = built.filter((f) => f.endsWith('.wasm'));
    const js = built.filter((f) => f.endsWith('.js'));
    const exercises = readdirSync(join(DIST, 'exercises')).map((f) => `exercises/${f}`);
    const missing = [...built.filter((f) => f !== 'exercises'), ...exercises].filter((f) => !cached.includes(f));
    check(missing.length === 0 && wasm.length === 2 && js.some((f) => f === 'worker_loader.js')
      && built.some((f) => f.endsWith('.css')) && exercises.length === 10,
    `every file of the build is cached: index.html, the CSS, ${js.length} JS files, 2 .wasm (app and worker), the `
      + `worker loader, the manifest, ${exercises.length} exercises (${cached.length} files)`, `missing: ${missing.join(', ')}`);
    const manifest = await page.evaluate(async () => {
      const href = document.querySelector('link[rel="manifest"]')?.href;
      return href ? (await fetch(href)).json() : null;
    });
    check(manifest?.short_name === 'schedlab' && manifest?.display === 'standalone' && manifest?.icons?.length === 1,
      'the web app manifest is linked and read', JSON.stringify(manifest));

    // ---- Offline: reload, run a small flat simulation, open an exercise.
    await page.context().setOffline(true);
    const tReload = Date.now();
    const reloaded = await page.reload({ timeout: 30000 });
    await page.waitForSelector('body[data-worker="ready"]', { timeout: 60000 });
    check(reloaded?.fromServiceWorker() === true, 'offline: the reloaded page comes from the service worker',
      String(reloaded?.fromServiceWorker()));
    log(`timing: offline reload → simulator ready ${Date.now() - tReload} ms`);
    check(await page.isEnabled('[data-testid="run"]'), 'offline: the page reloads from the cache and its simulator starts');
    await page.fill('#jobs', '300');
    await page.click('[data-testid="run"]');
    await page.waitForFunction(() => document.body.dataset.state === 'idle'
      && document.querySelectorAll('[data-testid="results"] tbody tr').length === 3, null, { timeout: 120000, polling: 100 });
    const waits = await page.$$eval('[data-testid="results"] tbody tr td[data-key="mean_wait"]', (t) => t.map((x) => Number(x.dataset.value)));
    check(waits.length === 3 && waits.every((w) => Number.isFinite(w) && w >= 0),
      'offline: a flat run of 300 jobs under the three policies gives results', waits.join(', '));
    await shot(page, 'offline-1-flat-run.png');
    await page.click('[data-testid="mode-exercises"]');
    await page.waitForSelector('#exercises-mode[data-worker="ready"]', { timeout: 60000 });
    await page.click('[data-testid="ex-open-fcfs-vs-easy"]');
    await page.waitForSelector('[data-testid="ex-q0-check"]', { timeout: 60000 });
    const title = await page.textContent('[data-testid="ex-title"]');
    check(/FCFS vs EASY/.test(title), 'offline: the Exercises tab opens an exercise and solves its questions', title);
    await page.$eval('[data-testid="ex-view"]', (e) => e.scrollIntoView({ block: 'start' }));
    await shot(page, 'offline-2-exercise.png');
    const shipped = await page.evaluate(() => fetch('exercises/01-fcfs-vs-easy.json').then((r) => r.json()).then((j) => j.id, (e) => String(e)));
    check(shipped === 'fcfs-vs-easy', 'offline: a shipped exercise file is served from the cache', shipped);
    await page.context().setOffline(false);

    // ---- A new release: its cache replaces the old one.
    const dir = mkdtempSync(join(tmpdir(), 'schedlab-offline-'));
    cpSync(DIST, dir, { recursive: true });
    const port = await freePort();
    const url2 = `http://127.0.0.1:${port}/`;
    next = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1', '--directory', dir], { stdio: 'ignore' });
    await waitForHttp(url2, 15000);
    const p2 = await openTab(browser, url2, errors);
    await waitControlled(p2);
    const before = Object.keys(await cacheContents(p2));
    writeFileSync(join(dir, 'sw.js'), sw.replace(`'${version}'`, '\'0123456789abcdef\''));
    // A later modification time: the server's Last-Modified has a one-second grain, and a copy
    // written in the same second would be answered "304 Not Modified" to the update check.
    const later = new Date(Date.now() + 60000);
    utimesSync(join(dir, 'sw.js'), later, later);
    await p2.reload();
    await p2.waitForSelector('body[data-worker="ready"]', { timeout: 60000 });
    let after = [];
    for (const deadline = Date.now() + 30000; Date.now() < deadline;) {
      after = Object.keys(await cacheContents(p2));
      if (after.join() === 'schedlab-0123456789abcdef') break;
      await new Promise((r) => setTimeout(r, 200));
    }
    check(before.join() === `schedlab-${version}` && after.join() === 'schedlab-0123456789abcdef',
      'a new release (another sw.js version) replaces the old cache after one reload', `${before} → ${after}`);
    check(errors.length === 0, 'no console or page errors', errors.join(' | '));
  } finally {
    if (next) next.kill('SIGTERM');
    await browser.close();
  }
});
