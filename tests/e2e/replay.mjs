// End-to-end test of the flat page's step-by-step replay in headless
// Chromium, run by scripts/test.sh after `trunk build --release`: uploads a 4-job trace (the
// workload of www/exercises/02-easy-vs-conservative.json, 4 processors), runs EASY and
// conservative, and steps through the replay card: at t = 3 under EASY the queue panel shows
// job 2 as the blocked head with shadow time 10 and 1 extra processor (job 4 was backfilled into
// the extra processors), the queue [2, 3], job 4 running; under conservative every queued job's
// reservation (2 at 10, 3 at 10, 4 at 20) and, after job 1 ends, that job 4 waits for its
// reservation; Play advances and Pause stops; hovering a job in the replay's chart explains it;
// the results' Gantt hover still works. Screenshots: test-output/e2e/replay-*.png. Prints
// `replay: N passed, M failed`.

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ROOT, chartsInk, check, launchBrowser, loggedErrors, openTab, runSuite, serveDist, shot,
} from './harness.mjs';

const BUDGET_MS = 180 * 1000;

async function replayState(page) {
  return page.$eval('#replay', (root) => {
    const head = root.querySelector('[data-testid="replay-head"]');
    return {
      t: Number(root.dataset.t),
      label: root.querySelector('[data-testid="replay-time-label"]').textContent,
      head: head ? { job: head.dataset.job, shadow: head.dataset.shadow, extra: head.dataset.extra, text: head.textContent } : null,
      queue: [...root.querySelectorAll('[data-testid="replay-queue"] tbody tr')].map((r) => `${r.dataset.job}@${r.dataset.reservation}`),
      running: [...root.querySelectorAll('[data-testid="replay-running"] tbody tr')].map((r) => r.dataset.job),
      decisions: [...root.querySelectorAll('[data-testid="replay-decisions"] li')].map((l) => `${l.dataset.kind}: ${l.textContent}`),
    };
  });
}

// Steps (Step ▶) until the replay's time is `t`.
async function stepTo(page, t) {
  for (let i = 0; i < 50; i++) {
    const now = Number(await page.getAttribute('#replay', 'data-t'));
    if (now >= t) return now;
    await page.click('[data-testid="replay-step"]');
  }
  return NaN;
}

await runSuite('replay', BUDGET_MS, async () => {
  const url = await serveDist();
  const browser = await launchBrowser();
  const errors = loggedErrors();
  const tmp = mkdtempSync(join(tmpdir(), 'schedlab-replay-'));
  const ex = JSON.parse(readFileSync(join(ROOT, 'www', 'exercises', '02-easy-vs-conservative.json'), 'utf8'));
  const swf = join(tmp, 'four-jobs.swf');
  writeFileSync(swf, `${ex.workloads.jobs.join('\n')}\n`);
  try {
    const page = await openTab(browser, url, errors);
    check(await page.isHidden('#replay'), 'no replay card before a run');
    await page.setInputFiles('[data-testid="upload"]', swf, { timeout: 10000 });
    await page.waitForSelector('body[data-trace="four-jobs.swf"]', { timeout: 60000 });
    await page.fill('#procs', '4');
    for (const p of ['fcfs', 'easy', 'conservative']) {
      await page.setChecked(`#policy-${p}`, p !== 'fcfs');
    }
    await page.click('[data-testid="run"]');
    await page.waitForFunction(() => document.body.dataset.state === 'idle'
      && document.querySelectorAll('[data-testid="results"] tbody tr').length === 2, null, { timeout: 60000, polling: 100 });
    await page.waitForSelector('#replay:not([hidden])', { timeout: 10000 });
    const runs = await page.$$eval('[data-testid="replay-pick"] option', (o) => o.map((x) => x.textContent));
    check(runs.join() === 'EASY backfilling,Conservative backfilling', 'the replay card offers both runs', runs.join());

    // EASY at t = 3.
    let s = await replayState(page);
    check(s.t === 0 && /event 1 of 8/.test(s.label), 'the replay opens at the first event (t = 0, event 1 of 8)', s.label);
    await stepTo(page, 3);
    s = await replayState(page);
    check(s.t === 3 && s.head?.job === '2' && s.head.shadow === '10' && s.head.extra === '1',
      'EASY at t = 3: blocked head job 2, shadow time 10, 1 extra processor', JSON.stringify(s.head));
    check(/Shadow time t = 10 s/.test(s.head?.text) && /1 extra processor then/.test(s.head?.text),
      'the head box says "Shadow time t = 10 s" and "1 extra processor"', s.head?.text);
    check(s.queue.join() === '2@,3@' && s.running.join() === '1,4', 'EASY at t = 3: queue [2, 3] in order; running 1 and 4',
      `${s.queue} / ${s.running}`);
    check(s.decisions.length === 1 && /^into_extra: Job 4: backfilled ahead of head job 2 into the extra processors/.test(s.decisions[0]),
      'the last decision: job 4 backfilled into the extra processors', s.decisions.join(' | '));
    const [ink] = await chartsInk(page, '#replay-canvas');
    check(ink && ink.ink > 0.03, 'the replay\'s Gantt chart is drawn', JSON.stringify(ink));
    await page.$eval('#replay', (e) => e.scrollIntoView({ block: 'start' }));
    await shot(page, 'replay-1-easy-t3.png');
    // t = 10: job 2 starts, job 3 is the new head (shadow 20 by job 2's estimate).
    await stepTo(page, 10);
    s = await replayState(page);
    check(s.head?.job === '3' && s.head.shadow === '20' && s.head.extra === '1',
      'EASY at t = 10: job 3 is the new head, shadow time 20 (job 2\'s estimate), 1 extra', JSON.stringify(s.head));

    // Conservative at t = 3: every reservation.
    await page.selectOption('[data-testid="replay-pick"]', '1');
    await stepTo(page, 3);
    s = await replayState(page);
    check(s.queue.join() === '2@10,3@10,4@20' && s.head === null,
      'conservative at t = 3: reservations job 2 at 10, job 3 at 10, job 4 at 20 (no shadow time)', s.queue.join());
    const resText = await page.$$eval('#replay [data-testid="replay-queue"] tbody tr td:last-child', (c) => c.map((x) => x.textContent));
    check(resText.join() === 't = 10,t = 10,t = 20', 'the reservations column', resText.join());
    await shot(page, 'replay-2-conservative-t3.png');
    await stepTo(page, 10);
    s = await replayState(page);
    check(s.running.join() === '2,3' && s.queue.join() === '4@20', 'conservative at t = 10: jobs 2 and 3 start, job 4 waits for 20',
      `${s.running} / ${s.queue}`);

    // Hover a job in the replay chart.
    const box = await page.$eval('#replay-canvas', (c) => {
      const r = c.getBoundingClientRect();
      return { x: r.x, y: r.y, w: r.width, h: r.height };
    });
    let tip = '';
    for (let fx = 0.15; fx < 0.9 && !tip; fx += 0.05) {
      await page.mouse.move(box.x + box.w * fx, box.y + box.h * 0.7);
      tip = await page.$eval('#replay-tip', (e) => (e.hidden ? '' : e.textContent));
    }
    check(/^Job \d · \d processor/.test(tip) && /Why:/.test(tip), 'hovering a job in the replay chart explains it', tip);
    await shot(page, 'replay-3-hover.png');
    await page.mouse.move(0, 0);

    // Back, Play, Pause.
    await page.click('[data-testid="replay-prev"]');
    check(Number(await page.getAttribute('#replay', 'data-t')) === 3, 'Back returns to the previous event (t = 3)');
    await page.click('[data-testid="replay-play"]');
    check((await page.textContent('[data-testid="replay-play"]')) === 'Pause', 'Play turns into Pause');
    await page.waitForFunction(() => Number(document.querySelector('#replay').dataset.t) > 3, null, { timeout: 5000, polling: 50 });
    await page.click('[data-testid="replay-play"]');
    const paused = Number(await page.getAttribute('#replay', 'data-t'));
    await page.waitForTimeout(1200);
    check(paused > 3 && Number(await page.getAttribute('#replay', 'data-t')) === paused,
      'Play advances event by event and Pause stops', String(paused));
    // The slider: the end of the run.
    await page.$eval('[data-testid="replay-time"]', (r) => {
      r.value = r.max;
      r.dispatchEvent(new Event('input'));
    });
    s = await replayState(page);
    check(s.queue.length === 0 && s.running.length === 0 && /event (\d+) of \1 /.test(s.label), 'the slider\'s end: the last event, every job has ended', s.label);
    check(errors.length === 0, 'no console or page errors', errors.join(' | '));
  } finally {
    await browser.close();
  }
});
