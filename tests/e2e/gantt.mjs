// End-to-end test of the flat tab's zoomable Gantt chart of a whole run, in headless Chromium
// (run by scripts/test.sh after `trunk build --release`): uploads NASA-iPSC (18,239 jobs, more
// than the 5,000 of the per-job records), runs EASY, and checks that the Gantt chart of every
// job appears; that the buttons, the wheel and the keys (+ − ← → 0) on the focused chart change
// the time window on screen; that the tooltip names the job under the pointer with its start
// and end equal to `schedlab run --jobs-csv`'s; and that colouring by job size redraws. The
// default run shows its Gantt chart at once. Screenshots (1366×768, and 390×844 for the
// phone): test-output/e2e/gantt-*.png.
// Prints `gantt: N passed, M failed`.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BIN, TRACES, check, launchBrowser, loggedErrors, openTab, runSuite, serveDist, shot,
} from './harness.mjs';

const BUDGET_MS = 300 * 1000;
const TRACE = 'NASA-iPSC-1993-3.1-cln.swf.gz';

// The window on screen (seconds since the first start) and the jobs drawn.
async function view(page) {
  return page.$eval('#chart-gantt', (c) => ({
    t0: Number(c.dataset.t0), t1: Number(c.dataset.t1), drawn: Number(c.dataset.drawn),
    jobs: Number(c.dataset.jobs), frame: Number(c.dataset.frameMs),
  }));
}

async function waitGantt(page, jobs) {
  await page.waitForFunction((n) => Number(document.querySelector('#chart-gantt').dataset.jobs) === n,
    jobs, { timeout: 120000, polling: 100 });
}

// Moves the pointer over the plotting area until the tip names a job; returns its data.
async function hoverJob(page) {
  const box = await page.$eval('#chart-gantt', (c) => {
    const r = c.getBoundingClientRect();
    return { x: r.left, y: r.top, w: r.width, h: r.height, cw: c.width, ch: c.height };
  });
  const sx = box.w / box.cw;
  const sy = box.h / box.ch;
  for (let i = 0; i < 60; i++) {
    const cx = 80 + ((i * 97) % 1080);
    const cy = 60 + ((i * 53) % 260);
    await page.mouse.move(box.x + cx * sx, box.y + cy * sy);
    const tip = await page.$eval('#gantt-tip', (t) => (t.hidden ? null : {
      text: t.textContent, job: t.dataset.job, start: t.dataset.start, end: t.dataset.end,
    }));
    if (tip) return tip;
  }
  return null;
}

await runSuite('gantt', BUDGET_MS, async () => {
  const url = await serveDist();
  const browser = await launchBrowser();
  const errors = loggedErrors();
  try {
    const page = await openTab(browser, url, errors);
    await page.setViewportSize({ width: 1366, height: 768 });
    // The default run: its Gantt chart at once.
    const defaultJobs = Number(await page.inputValue('#jobs'));
    check(defaultJobs <= 5000, 'the default run is small enough for the per-job views', `${defaultJobs} jobs`);
    check(await page.isVisible('[data-testid="exercises-hint"]'), 'a "New here?" link to the Exercises');
    await page.click('[data-testid="run"]');
    await waitGantt(page, defaultJobs);
    const d = await view(page);
    check(d.drawn > 0 && d.t1 > d.t0, 'the default run shows its Gantt chart', JSON.stringify(d));
    await page.$eval('#gantt', (e) => e.scrollIntoView());
    await shot(page, 'gantt-01-default.png');

    // A trace of more than 5,000 jobs.
    const trace = join(TRACES, TRACE);
    await page.setInputFiles('[data-testid="upload"]', trace, { timeout: 10000 });
    await page.waitForSelector(`body[data-trace="${TRACE}"]`, { timeout: 60000 });
    for (const p of ['fcfs', 'easy', 'conservative']) await page.setChecked(`#policy-${p}`, p === 'easy');
    await page.click('[data-testid="run"]');
    await page.waitForSelector('body[data-state="idle"]', { timeout: 120000 });
    await waitGantt(page, 18239);
    const whole = await view(page);
    check(whole.jobs === 18239 && whole.drawn > 5000, 'the whole-trace Gantt chart of 18,239 jobs appears',
      JSON.stringify(whole));
    const note = await page.textContent('#gantt-note');
    check(/zoom/.test(note), 'the note says how to zoom and pan', note);
    await page.$eval('#gantt', (e) => e.scrollIntoView());
    await shot(page, 'gantt-02-trace-whole.png');

    // Buttons.
    await page.click('[data-testid="gantt-zoom-in"]');
    const zin = await view(page);
    check(Math.abs((zin.t1 - zin.t0) - (whole.t1 - whole.t0) / 2) < 1e-6 * whole.t1,
      'the + button halves the window', `${whole.t0}–${whole.t1} → ${zin.t0}–${zin.t1}`);
    check(zin.drawn < whole.drawn, 'a zoomed window draws fewer jobs', `${zin.drawn} < ${whole.drawn}`);
    await page.click('[data-testid="gantt-reset"]');
    const back = await view(page);
    check(back.t0 === whole.t0 && back.t1 === whole.t1, 'Whole run shows the whole run again');

    // Keyboard on the focused chart.
    await page.focus('#chart-gantt');
    await page.keyboard.press('+');
    await page.keyboard.press('+');
    const k1 = await view(page);
    check(Math.abs((k1.t1 - k1.t0) - (whole.t1 - whole.t0) / 4) < 1e-6 * whole.t1, 'the + key zooms in',
      `${k1.t0}–${k1.t1}`);
    await page.keyboard.press('ArrowRight');
    const k2 = await view(page);
    check(k2.t0 > k1.t0 && Math.abs((k2.t1 - k2.t0) - (k1.t1 - k1.t0)) < 1e-6 * whole.t1,
      'the → key pans later', `${k1.t0} → ${k2.t0}`);
    await page.keyboard.press('ArrowLeft');
    const k3 = await view(page);
    check(Math.abs(k3.t0 - k1.t0) < 1e-6 * whole.t1, 'the ← key pans back', `${k3.t0}`);
    await page.keyboard.press('-');
    const k4 = await view(page);
    check(Math.abs((k4.t1 - k4.t0) - (whole.t1 - whole.t0) / 2) < 1e-6 * whole.t1, 'the − key zooms out');
    await page.keyboard.press('0');
    check((await view(page)).t1 === whole.t1, 'the 0 key shows the whole run');

    // Wheel over the chart.
    const box = await page.$eval('#chart-gantt', (c) => { const r = c.getBoundingClientRect(); return { x: r.left, y: r.top, w: r.width, h: r.height }; });
    await page.mouse.move(box.x + box.w * 0.3, box.y + box.h * 0.5);
    for (let i = 0; i < 12; i++) await page.mouse.wheel(0, -100);
    await page.waitForTimeout(200);
    const wz = await view(page);
    check(wz.t1 - wz.t0 < (whole.t1 - whole.t0) / 5, 'the wheel zooms in', `${wz.t0}–${wz.t1}`);
    await shot(page, 'gantt-03-trace-zoomed.png');

    // Drag pans.
    await page.mouse.move(box.x + box.w * 0.5, box.y + box.h * 0.5);
    await page.mouse.down();
    await page.mouse.move(box.x + box.w * 0.3, box.y + box.h * 0.5, { steps: 4 });
    await page.mouse.up();
    const dr = await view(page);
    check(dr.t0 > wz.t0, 'dragging left shows later times', `${wz.t0} → ${dr.t0}`);

    // Tooltip vs the CLI's per-job CSV.
    const tip = await hoverJob(page);
    check(tip !== null && /^Job \d+ · [\d,]+ processor/.test(tip.text), 'the tooltip names the job under the pointer',
      tip ? tip.text : 'no tip');
    if (tip && existsSync(BIN)) {
      const dir = mkdtempSync(join(tmpdir(), 'schedlab-gantt-'));
      const csv = join(dir, 'jobs.csv');
      execFileSync(BIN, ['run', '--swf', trace, '--policy', 'easy', '--jobs-csv', csv], { stdio: 'pipe' });
      const row = readFileSync(csv, 'utf8').split('\n').find((l) => l.startsWith(`${tip.job},`));
      const f = row ? row.split(',') : [];
      check(row && f[2] === tip.start && f[3] === tip.end && tip.text.includes(`start ${f[2]} s`)
        && tip.text.includes(`end ${f[3]} s`),
      'the tooltip\'s start and end are the CLI\'s per-job CSV\'s', `${tip.job}: ${tip.start}–${tip.end} vs ${row}`);
    } else {
      check(false, 'native CLI available for comparison', BIN);
    }
    await shot(page, 'gantt-04-tooltip.png');

    // Colour by job size.
    await page.selectOption('[data-testid="gantt-colour"]', 'size');
    const legendOk = await page.$eval('#chart-gantt', (c) => Number(c.dataset.drawn) > 0);
    check(legendOk, 'colouring by job size redraws');
    // NASA iPSC has 128 processors: the size legend stops at the machine's size.
    const sizes = await page.$eval('#chart-gantt', (c) => c.dataset.legend);
    check(sizes === '1; 2–4; 5–16; 17–64; 65–128', 'the size legend lists the classes a 128-processor machine holds', sizes);
    await shot(page, 'gantt-04b-sizes.png');

    // The replay of this run is made by the worker, a stretch of time at a time; the note
    // says so and that the worker keeps the last runs.
    const cmpNote = await page.textContent('#per-job-note');
    check(/18,239/.test(cmpNote) && /keeps the last 3 runs/.test(cmpNote), 'the page says how the per-job views of a large run are made',
      cmpNote);

    // Phone.
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await phone.goto(url);
    await phone.waitForSelector('body[data-worker="ready"]', { timeout: 60000 });
    await phone.click('[data-testid="run"]');
    await waitGantt(phone, defaultJobs);
    await phone.$eval('#gantt', (e) => e.scrollIntoView());
    await shot(phone, 'gantt-05-phone.png');
    check(errors.length === 0, 'no console errors', errors.join(' | '));
  } finally {
    await browser.close();
  }
});
