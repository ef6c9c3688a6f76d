// End-to-end test of the flat tab's per-job views of a run of any size, in headless Chromium
// (run by scripts/test.sh after `trunk build --release`): uploads KTH-SP2 (28,475 jobs, more
// than the 5,000 of the per-job records the page receives; its queue is long at times), runs
// FCFS and EASY, and checks that
// the comparison and the replay wait, saying so, until their cards are scrolled into view; that
// the job-by-job comparison made by the worker then appears with the rows of `schedlab run
// --jobs-csv` of both policies (the shift computed here), sorted by shift and, after a click,
// by job number; that its CSV has every job; and that the step-by-step replay, fed window by
// window, opens, shows the queue and the running jobs at a time deep into the run exactly as
// the CLI's per-job CSV says, and steps to the run's next instant. Screenshots (1366×768 and
// 390×844): test-output/e2e/anysize-*.png. Prints `anysize: N passed, M failed`.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BIN, TRACES, check, download, launchBrowser, loggedErrors, openTab, runSuite, serveDist, shot,
} from './harness.mjs';

const BUDGET_MS = 300 * 1000;
const TRACE = 'KTH-SP2-1996-2.1-cln.swf.gz';

// The CLI's per-job CSV of `policy`: [{ id, submit, start, end }] in arrival order.
function cliJobs(trace, policy, dir) {
  const csv = join(dir, `${policy}.csv`);
  execFileSync(BIN, ['run', '--swf', trace, '--policy', policy, '--jobs-csv', csv], { stdio: 'pipe' });
  const [head, ...lines] = readFileSync(csv, 'utf8').trim().split('\n');
  const cols = head.split(',');
  const at = (name) => cols.indexOf(name);
  return lines.map((l) => {
    const f = l.split(',');
    return { id: Number(f[at('id')]), submit: Number(f[at('submit')]), start: Number(f[at('start')]), end: Number(f[at('end')]) };
  });
}

async function compareRows(page) {
  await page.waitForFunction(() => {
    const s = document.querySelector('#compare');
    return !s.hidden && !s.hasAttribute('aria-busy') && document.querySelectorAll('#compare-body tr').length > 0;
  }, null, { timeout: 120000, polling: 100 });
  return page.$$eval('#compare-body tr', (rows) => rows.map((r) => ({
    id: Number(r.dataset.job), a: Number(r.dataset.startA), b: Number(r.dataset.startB), shift: Number(r.dataset.shift),
  })));
}

async function replayAt(page, t) {
  await page.waitForFunction((want) => {
    const root = document.querySelector('#replay');
    return !root.hasAttribute('aria-busy') && Number(root.dataset.t) === want
      && root.querySelector('[data-testid="replay-now"]') !== null;
  }, t, { timeout: 120000, polling: 100 });
  return page.$eval('#replay', (root) => ({
    t: Number(root.dataset.t),
    label: root.querySelector('[data-testid="replay-time-label"]').textContent,
    queue: [...root.querySelectorAll('[data-testid="replay-queue"] tbody tr')].map((r) => Number(r.dataset.job)),
    running: [...root.querySelectorAll('[data-testid="replay-running"] tbody tr')].map((r) => Number(r.dataset.job)),
  }));
}

async function seek(page, t) {
  await page.$eval('[data-testid="replay-time"]', (el, v) => {
    el.value = String(v);
    el.dispatchEvent(new Event('input'));
  }, t);
}

await runSuite('anysize', BUDGET_MS, async () => {
  const url = await serveDist();
  const browser = await launchBrowser();
  const errors = loggedErrors();
  const trace = join(TRACES, TRACE);
  if (!existsSync(trace) || !existsSync(BIN)) {
    check(false, 'the NASA trace and the native CLI are available', `${trace} ${BIN}`);
    await browser.close();
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'schedlab-anysize-'));
  const fcfs = cliJobs(trace, 'fcfs', dir);
  const easy = cliJobs(trace, 'easy', dir);
  const JOBS = fcfs.length;
  check(JOBS > 5000 && easy.length === JOBS, 'the CLI runs every job of a run above the page\'s 5,000 per-job records',
    `${fcfs.length} ${easy.length}`);
  try {
    const page = await openTab(browser, url, errors);
    await page.setViewportSize({ width: 1366, height: 768 });
    await page.setInputFiles('[data-testid="upload"]', trace, { timeout: 10000 });
    await page.waitForSelector(`body[data-trace="${TRACE}"]`, { timeout: 60000 });
    for (const p of ['fcfs', 'easy', 'conservative']) await page.setChecked(`#policy-${p}`, p !== 'conservative');
    await page.click('[data-testid="run"]');
    await page.waitForSelector('body[data-state="idle"]', { timeout: 150000 });

    const note = await page.textContent('#per-job-note');
    check(note.includes(JOBS.toLocaleString('en-US')) && /keeps the last 3 runs/.test(note), 'the page says how the views of a large run are made', note);

    // Below the fold, the comparison and the replay are not asked of the worker: their cards
    // say they are on their way and stay so until they are scrolled into view.
    await page.waitForTimeout(1500);
    const waiting = await page.evaluate(() => {
      const c = document.querySelector('#compare');
      const r = document.querySelector('#replay');
      const out = (e) => e.getBoundingClientRect().top >= window.innerHeight;
      return {
        compare: !c.hidden && out(c) && c.hasAttribute('aria-busy')
          && document.querySelectorAll('#compare-body tr').length === 0,
        replay: !r.hidden && out(r) && r.hasAttribute('aria-busy')
          && r.querySelector('[data-testid="replay-loading"]') !== null,
      };
    });
    check(waiting.compare && waiting.replay, 'out of view, the comparison and the replay wait, saying so',
      JSON.stringify(waiting));

    // The comparison: B = EASY against A = FCFS, sorted by shift (ties by job number).
    await page.locator('#compare').scrollIntoViewIfNeeded();
    const deltas = fcfs.map((a, i) => ({ id: a.id, a: a.start, b: easy[i].start, shift: easy[i].start - a.start }));
    const byShift = [...deltas].sort((x, y) => x.shift - y.shift || x.id - y.id);
    const rows = await compareRows(page);
    check(rows.length === 100, 'the comparison shows 100 rows', `${rows.length}`);
    const same = (got, want) => got.length === want.length && got.every((r, i) => r.id === want[i].id
      && r.a === want[i].a && r.b === want[i].b && r.shift === want[i].shift);
    check(same(rows, byShift.slice(0, 100)), 'its rows are the CLI\'s, by shift',
      `${JSON.stringify(rows.slice(0, 3))} vs ${JSON.stringify(byShift.slice(0, 3))}`);
    const earlier = deltas.filter((d) => d.shift < 0).length;
    const later = deltas.filter((d) => d.shift > 0).length;
    const summary = await page.textContent('#compare-summary');
    const fmt = (n) => n.toLocaleString('en-US');
    check(summary.includes(`${fmt(earlier)} of ${fmt(JOBS)} jobs start earlier`) && summary.includes(`${fmt(later)} later`),
      'its counts are the CLI\'s', `${summary} (earlier ${earlier}, later ${later})`);
    await page.$eval('#compare', (e) => e.scrollIntoView());
    await shot(page, 'anysize-01-compare.png');
    // Sorted by job number: the worker is asked again.
    await page.click('#compare-head th[data-col="0"]');
    await page.waitForFunction(() => document.querySelector('#compare-head th[data-col="0"]')?.textContent.includes('▲'),
      null, { timeout: 60000 });
    const byId = await compareRows(page);
    const ids = [...deltas].sort((x, y) => x.id - y.id).slice(0, 100);
    check(same(byId, ids), 'sorted by job number, its rows are the CLI\'s',
      `${byId.slice(0, 3).map((r) => r.id)} vs ${ids.slice(0, 3).map((r) => r.id)}`);
    const file = await download(page, '[data-testid="compare-csv"]');
    const lines = file.text.trim().split('\n');
    const row = lines.find((l) => l.startsWith(`${byShift[0].id},`));
    check(lines.length === JOBS + 1 && row && Number(row.split(',')[5]) === byShift[0].shift,
      'the comparison\'s CSV has every job', `${file.name}: ${lines.length} lines; ${row}`);

    // The replay of EASY, window by window.
    await page.$eval('#replay', (e) => e.scrollIntoView());
    check(await page.isVisible('#replay'), 'the replay card is shown');
    await page.selectOption('[data-testid="replay-pick"]', '1');
    const first = await replayAt(page, easy[0].submit);
    check(first.t === easy[0].submit, 'the replay opens at the first arrival', first.label);
    // Deep into the run: a job arriving after 70 % of the jobs that waits.
    const k = easy.findIndex((j, i) => i > 0.7 * JOBS && j.start > j.submit);
    check(k > 0, 'a job waits deep into the run (CLI)', `${k}`);
    const t = easy[k].submit;
    await page.evaluate(() => {
      window.replayLoading = false;
      new MutationObserver(() => {
        if (document.querySelector('[data-testid="replay-loading"]')) window.replayLoading = true;
      }).observe(document.querySelector('#replay'), { childList: true, subtree: true });
    });
    await seek(page, t);
    const s = await replayAt(page, t);
    check(await page.evaluate(() => window.replayLoading), 'a move out of the window loaded says it is loading');
    const queue = easy.filter((j) => j.submit <= t && t < j.start).map((j) => j.id);
    const running = easy.filter((j) => j.start <= t && t < j.end).map((j) => j.id).sort((x, y) => x - y);
    check(queue.length > 0 && JSON.stringify(s.queue) === JSON.stringify(queue.slice(0, 40)),
      `at t = ${t} the queue is the CLI's`, `${s.queue.slice(0, 8)} vs ${queue.slice(0, 8)} (${queue.length})`);
    check(JSON.stringify([...s.running].sort((x, y) => x - y)) === JSON.stringify(running.slice(0, 40))
      || (running.length > 40 && s.running.length === 40),
    'the running jobs are the CLI\'s', `${s.running} vs ${running}`);
    check(s.label.includes(`${running.length} running · ${queue.length} waiting`), 'the counts are the CLI\'s', s.label);
    await shot(page, 'anysize-02-replay.png');
    // Steps: to the run's next instant, even out of the window.
    const times = [...new Set(easy.flatMap((j) => [j.submit, j.start, j.end]))].sort((x, y) => x - y);
    let now = t;
    for (let i = 0; i < 3; i++) {
      const next = times.find((x) => x > now);
      await page.click('[data-testid="replay-step"]');
      const st = await replayAt(page, next);
      check(st.t === next && st.label.includes(`event ${times.indexOf(next) + 1} of ${times.length}`),
        `Step moves to the run's next instant (${next}), numbered as in the run`, st.label);
      now = next;
    }
    const end = times[times.length - 1];
    await seek(page, end);
    const last = await replayAt(page, end);
    check(last.queue.length === 0 && last.label.includes(`event ${times.length} of ${times.length}`),
      'the slider reaches the run\'s last instant', last.label);

    // A phone.
    await page.setViewportSize({ width: 390, height: 844 });
    await seek(page, t);
    await replayAt(page, t);
    await page.$eval('#compare', (e) => e.scrollIntoView());
    await shot(page, 'anysize-03-compare-phone.png');
    await page.$eval('#replay', (e) => e.scrollIntoView());
    await shot(page, 'anysize-04-replay-phone.png');
    check(errors.length === 0, 'no console errors', errors.join(' | '));
  } finally {
    await browser.close();
  }
});
