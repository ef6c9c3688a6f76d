// End-to-end test of the Exercises mode in headless Chromium, run by
// scripts/test.sh after `trunk build --release`: a student opens an exercise link (`#ex=`, made
// here from www/exercises/01-fcfs-vs-easy.json as a teacher would publish it). Predict, then
// reveal: before answering, the runs are hidden (no replay, no table, no hover tip, the answer
// nowhere in their text); a wrong answer shows hint 1 and neither the simulated value nor the
// explanation, a second wrong answer hint 2, the right answer ("correct", the simulated value
// the CLI's `schedlab exercise` prints) the explanation. Then a choice question, an unreadable
// number, a hint; "Reveal the simulation" shows the runs, and the replay of the EASY run is
// stepped through (at t = 2 the queue panel shows job 2 as the blocked head with shadow time
// 10 and 0 extra, and job 3 backfilled). A reload keeps answers, verdicts, hints and the
// reveal; the exported answers file holds them; "Copy link" gives a link that opens the
// exercise; a damaged link, a broken exercise file and one whose stated answer the simulation
// contradicts are reported naming the link / the file and key, the latter ending the loading
// state; in a revealed exercise the hover of a job a pending question asks hides its times; a
// mesh exercise from the list shows its other runs once revealed. Screenshots:
// test-output/e2e/exercises-*.png. Prints `exercises: N passed, M failed`.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BIN, ROOT, chartsInk, check, download, launchBrowser, log, loggedErrors, openTab, runSuite, serveDist,
  shot,
} from './harness.mjs';

const BUDGET_MS = 240 * 1000;

// FNV-1a of the link codec (src/modes/flat/link.rs `checksum`).
function fnv1a(buf) {
  let h = 0x811c9dc5;
  for (const b of buf) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

// The `#ex=` link of an exercise file, as `Exercise::to_fragment` packs it.
function exerciseLink(url, file) {
  const bytes = readFileSync(file);
  return `${url}#ex=${bytes.toString('base64url')}.${fnv1a(bytes)}`;
}

async function waitSolved(page) {
  await page.waitForSelector('[data-testid="ex-q0-check"]', { timeout: 60000 });
  await page.waitForFunction(() => document.querySelector('#exercises-mode').dataset.state === 'idle',
    null, { timeout: 30000, polling: 50 });
}

async function exError(page) {
  return page.$eval('[data-testid="ex-error"]', (e) => (e.hidden ? '' : e.textContent.trim()));
}

// The replay's state as the tests read it.
async function replayState(page) {
  return page.$eval('#ex-replay', (root) => {
    const head = root.querySelector('[data-testid="replay-head"]');
    return {
      t: Number(root.dataset.t),
      label: root.querySelector('[data-testid="ex-replay-time-label"]').textContent,
      head: head ? { job: head.dataset.job, shadow: head.dataset.shadow, extra: head.dataset.extra, text: head.textContent } : null,
      queue: [...root.querySelectorAll('[data-testid="replay-queue"] tbody tr')].map((r) => r.dataset.job),
      running: [...root.querySelectorAll('[data-testid="replay-running"] tbody tr')].map((r) => r.dataset.job),
      decisions: [...root.querySelectorAll('[data-testid="replay-decisions"] li')].map((l) => `${l.dataset.kind}: ${l.textContent}`),
    };
  });
}

async function feedback(page, i) {
  return page.$eval(`[data-testid="ex-q${i}-feedback"]`, (e) => ({
    hidden: e.hidden, verdict: e.dataset.verdict ?? '', text: e.textContent.trim(),
  }));
}

await runSuite('exercises', BUDGET_MS, async () => {
  const url = await serveDist();
  const browser = await launchBrowser();
  const errors = loggedErrors();
  const tmp = mkdtempSync(join(tmpdir(), 'schedlab-ex-'));
  const file01 = join(ROOT, 'www', 'exercises', '01-fcfs-vs-easy.json');
  const link = exerciseLink(url, file01);
  // What the CLI computes for the same link (the teacher's view).
  const cli = execFileSync(BIN, ['exercise', link.slice(link.indexOf('#'))], { encoding: 'utf8' });
  const cliAnswers = [...cli.matchAll(/answer: (\S+)/g)].map((m) => m[1]);
  log(`CLI answers: ${cliAnswers.join(', ')}`);
  try {
    // ---- A student opens the link.
    const page = await openTab(browser, link, errors);
    await waitSolved(page);
    const tab = await page.getAttribute('[data-testid="mode-exercises"]', 'aria-selected');
    check(tab === 'true' && await page.isVisible('#exercises-mode'), 'an #ex= link opens the Exercises tab');
    const title = await page.textContent('[data-testid="ex-title"]');
    check(title.startsWith('FCFS vs EASY'), 'the exercise title is shown', title);
    const tableCells = await page.$$eval('[data-testid="ex-text"] table td', (c) => c.length);
    const strong = await page.$$eval('[data-testid="ex-text"] strong', (c) => c.map((x) => x.textContent));
    check(tableCells === 20 && strong.includes('4 processors'), 'the Markdown text: its table (4 × 5 cells) and bold', `${tableCells} ${strong}`);
    const qs = await page.$$eval('[data-testid="ex-questions"] .question', (q) => q.map((x) => x.dataset.kind));
    check(qs.join() === 'predict_start,choice,numeric', 'three questions: predict the start, choice, number', qs.join());
    check((await page.inputValue('[data-testid="ex-q0-answer"]')) === '', 'no answer yet in a fresh browser');
    await shot(page, 'exercises-1-opened.png');

    // ---- Predict, then reveal: before any answer nothing of the runs is on the page.
    const hiddenRuns = async () => page.evaluate(() => {
      const replay = document.querySelector('#ex-replay');
      const runsCard = document.querySelector('[data-testid="ex-runs"]');
      const tip = document.querySelector('[data-testid="ex-replay-tip"]');
      return {
        replay: !replay.hidden,
        runs: !runsCard.hidden,
        options: replay.querySelectorAll('[data-testid="ex-replay-pick"] option').length,
        jobs: replay.querySelectorAll('[data-job]').length,
        text: `${replay.innerText} ${runsCard.innerText}`,
        tip: tip && !tip.hidden ? tip.textContent : '',
        reveal: !document.querySelector('[data-testid="ex-reveal"]').hidden,
      };
    });
    let h = await hiddenRuns();
    check(!h.replay && !h.runs && h.options === 0 && h.jobs === 0 && h.tip === '' && h.reveal,
      'before answering: no replay, no run table, no tip; "Reveal the simulation" is offered', JSON.stringify({ ...h, text: h.text.length }));
    check(!/\bt = 2\b|\b2 s\b|start 2/.test(h.text), 'before answering: the answer (job 3 starts at t = 2) is not in the runs\' text', h.text.slice(0, 200));
    const view = await page.$eval('[data-testid="ex-view"]', (e) => e.innerText);
    check(!/gives 2 s|start 2\b/.test(view), 'before answering: the exercise card does not state the answer', view.slice(0, 200));

    // ---- Answer wrong twice (a hint each time, never the answer), then right.
    const q0hints = () => page.$$eval('[data-testid="ex-q0-hints"] li', (l) => l.map((x) => x.textContent));
    await page.fill('[data-testid="ex-q0-answer"]', '15');
    await page.click('[data-testid="ex-q0-check"]');
    let f = await feedback(page, 0);
    let hs = await q0hints();
    check(!f.hidden && f.verdict === 'wrong' && /Wrong/.test(f.text) && /you answered 15 s/.test(f.text) && !/gives|2 s/.test(f.text),
      'a wrong answer: feedback "wrong" without the simulated value', f.text);
    check(hs.length === 1 && /^Job 2 needs all 4 processors/.test(hs[0]), 'a wrong answer shows hint 1', hs.join(' | '));
    check(!/Why:/.test(f.text) && !(await page.$('[data-testid="ex-q0-explanation"]')), 'a wrong answer does not show the explanation', f.text);
    check(await page.isVisible('[data-testid="ex-q0-show"]'), 'a wrong answer offers "Show the answer"');
    h = await hiddenRuns();
    check(!h.replay && !h.runs && h.options === 0, 'after a wrong answer the runs stay hidden', JSON.stringify({ ...h, text: h.text.length }));
    await page.$eval('[data-testid="ex-q0"]', (e) => e.scrollIntoView({ block: 'start' }));
    await shot(page, 'exercises-4-wrong.png');
    await page.fill('[data-testid="ex-q0-answer"]', '10');
    await page.click('[data-testid="ex-q0-check"]');
    f = await feedback(page, 0);
    hs = await q0hints();
    check(hs.length === 2 && /^At time 2 one processor is free/.test(hs[1]) && f.verdict === 'wrong' && !/Why:/.test(f.text)
      && /2 tries/.test(f.text), 'a second wrong answer shows hint 2 (still no explanation)', `${hs.join(' | ')} / ${f.text}`);
    await shot(page, 'exercises-4b-second-wrong.png');
    await page.fill('[data-testid="ex-q0-answer"]', '2 s');
    await page.press('[data-testid="ex-q0-answer"]', 'Enter');
    f = await feedback(page, 0);
    check(f.verdict === 'correct' && /Correct/.test(f.text) && /gives 2 s/.test(f.text) && /3 tries/.test(f.text),
      'the right answer (typed "2 s", Enter): feedback "correct" with the simulated value, 3 tries', f.text);
    check(/Why:.*shadow time 10 and 0 extra processors/.test(f.text) && !(await page.$('[data-testid="ex-q0-show"]')),
      'the right answer shows the explanation', f.text);
    check(cliAnswers[0] === '2', 'the page and `schedlab exercise` agree on question 1 (2 s)', cliAnswers[0]);
    await page.check('[data-testid="ex-q1-opt1"]');
    await page.click('[data-testid="ex-q1-check"]');
    f = await feedback(page, 1);
    check(f.verdict === 'correct', 'the choice question: "Job 3" is correct', f.text);
    await page.fill('[data-testid="ex-q2-answer"]', 'five');
    await page.click('[data-testid="ex-q2-check"]');
    f = await feedback(page, 2);
    check(f.verdict === 'invalid' && /"five" is not a number/.test(f.text), 'an unreadable number is refused, not judged', f.text);
    await page.click('[data-testid="ex-q2-hint"]');
    const hints = await page.$$eval('[data-testid="ex-q2-hints"] li', (l) => l.map((x) => x.textContent));
    check(hints.length === 1 && /^Wait = start − submit. Draw EASY's schedule first/.test(hints[0]), 'Hint shows the first hint', hints.join());
    const score = await page.textContent('[data-testid="ex-score"]');
    check(score === '2 of 3 correct', 'the score next to the title', score);
    await page.$eval('[data-testid="ex-q1"]', (e) => e.scrollIntoView({ block: 'start' }));
    await shot(page, 'exercises-5-answered.png');
    h = await hiddenRuns();
    const picks = await page.$$eval('[data-testid="ex-replay-pick"] option', (o) => o.map((x) => x.textContent));
    check(h.replay && h.reveal && picks.length === 1 && picks[0].startsWith('fcfs:'),
      'questions 1 and 2 settled, question 3 (EASY\'s mean wait) pending: the FCFS run is shown, the EASY run stays hidden',
      `${picks.join(' | ')} ${JSON.stringify({ ...h, text: h.text.length })}`);

    // ---- "Reveal the simulation": the runs appear.
    await page.click('[data-testid="ex-reveal-button"]');
    h = await hiddenRuns();
    check(h.replay && h.options === 2 && !h.reveal, 'Reveal the simulation shows the replay of both runs', JSON.stringify({ ...h, text: h.text.length }));

    // ---- Step through the replay of the EASY run.
    const runs = await page.$$eval('[data-testid="ex-replay-pick"] option', (o) => o.map((x) => x.textContent));
    check(runs.length === 2 && runs[0].startsWith('easy: EASY backfilling on 4 processors') && runs[1].startsWith('fcfs:'),
      'the replay offers both runs of the exercise', runs.join(' | '));
    await page.selectOption('[data-testid="ex-replay-pick"]', '0');
    let s = await replayState(page);
    check(s.t === 0 && s.running.join() === '1' && s.queue.length === 0, 'the replay starts at t = 0: job 1 runs', JSON.stringify(s));
    // Only what has happened is drawn: at t = 0 no job has run yet (job 1 starts then).
    const replayInk = async () => (await chartsInk(page, '[data-testid="ex-replay-canvas"]'))[0].ink;
    const ink0 = await replayInk();
    await page.$eval('[data-testid="ex-replay-time"]', (e) => {
      e.value = e.max;
      e.dispatchEvent(new Event('input', { bubbles: true }));
    });
    const inkEnd = await replayInk();
    check(inkEnd > ink0 + 0.05, 'the replay draws only what has happened: more ink at the end than at t = 0',
      `${ink0.toFixed(3)} → ${inkEnd.toFixed(3)}`);
    await page.selectOption('[data-testid="ex-replay-pick"]', '1');
    await page.selectOption('[data-testid="ex-replay-pick"]', '0');
    s = await replayState(page);
    await page.click('[data-testid="ex-replay-step"]');
    s = await replayState(page);
    check(s.t === 1 && s.head?.job === '2' && s.head?.shadow === '10' && s.head?.extra === '0',
      'Step → t = 1: job 2 is the blocked head, shadow time 10, 0 extra', JSON.stringify(s.head));
    await page.click('[data-testid="ex-replay-step"]');
    s = await replayState(page);
    check(s.t === 2 && /event 3 of \d+/.test(s.label), 'Step → t = 2 (event 3)', s.label);
    check(s.head?.job === '2' && /Shadow time t = 10 s/.test(s.head.text) && /0 extra/.test(s.head.text),
      'at t = 2 the queue panel shows the blocked head job 2, "Shadow time t = 10 s", "0 extra"', s.head?.text);
    check(s.queue.join() === '2' && s.running.join() === '1,3', 'at t = 2: queue [2]; running 1 and 3 (backfilled)',
      `${s.queue} / ${s.running}`);
    check(s.decisions.length === 1 && /^before_shadow: Job 3: backfilled ahead of head job 2/.test(s.decisions[0]),
      'the last decision: job 3 backfilled ahead of head job 2', s.decisions.join(' | '));
    await page.$eval('#ex-replay', (e) => e.scrollIntoView({ block: 'start' }));
    await shot(page, 'exercises-2-replay-t2.png');
    // Hover job 3 in the chart: its explanation.
    const box = await page.$eval('[data-testid="ex-replay-canvas"]', (c) => {
      const r = c.getBoundingClientRect();
      return { x: r.x, y: r.y, w: r.width, h: r.height };
    });
    // (at the replay's end: at t = 2 job 3 has only just started, and nothing later is drawn)
    const seek = (t) => page.$eval('[data-testid="ex-replay-time"]', (e, v) => {
      e.value = v < 0 ? e.max : String(v);
      e.dispatchEvent(new Event('input', { bubbles: true }));
    }, t);
    await seek(-1);
    let tip = '';
    for (let fx = 0.12; fx < 0.3 && !/Job 3/.test(tip); fx += 0.02) {
      for (let fy = 0.2; fy < 0.85 && !/Job 3/.test(tip); fy += 0.04) {
        await page.mouse.move(box.x + box.w * fx, box.y + box.h * fy);
        tip = await page.$eval('[data-testid="ex-replay-tip"]', (e) => (e.hidden ? '' : e.textContent));
      }
    }
    check(/^Job 3 · 1 processor/.test(tip) && /Why:/.test(tip) && /backfilled ahead of head job 2/.test(tip),
      'hovering job 3 in the replay shows why it started', tip);
    await shot(page, 'exercises-3-hover.png');
    await page.mouse.move(0, 0);
    await seek(2);
    await page.click('[data-testid="ex-replay-prev"]');
    s = await replayState(page);
    check(s.t === 1, 'Back → t = 1', String(s.t));


    // ---- Reload: the answers stay.
    await page.reload();
    await page.waitForSelector('body[data-worker="ready"]', { timeout: 60000 });
    await waitSolved(page);
    const kept = {
      replay: await page.isVisible('#ex-replay'),
      q0hints: (await q0hints()).length,
      q0: await page.inputValue('[data-testid="ex-q0-answer"]'),
      f0: (await feedback(page, 0)).verdict,
      q1: await page.isChecked('[data-testid="ex-q1-opt1"]'),
      f1: (await feedback(page, 1)).verdict,
      hints: await page.$$eval('[data-testid="ex-q2-hints"] li', (l) => l.length),
      score: await page.textContent('[data-testid="ex-score"]'),
    };
    check(kept.q0 === '2' && kept.f0 === 'correct' && kept.q1 && kept.f1 === 'correct' && kept.hints === 1 && kept.q0hints === 2
      && kept.score === '2 of 3 correct' && kept.replay, 'after a reload: answers, verdicts, the hints, the score and the revealed runs are kept',
    JSON.stringify(kept));

    // ---- Export the answers.
    await page.$eval('#ex-list', (e) => e.scrollIntoView({ block: 'start' }));
    const dl = await download(page, '[data-testid="ex-export"]');
    let file = null;
    try {
      file = JSON.parse(dl.text);
    } catch (e) {
      check(false, 'the answers file is JSON', String(e));
    }
    const ex = file?.exercises?.find((x) => x.id === 'fcfs-vs-easy');
    const a0 = ex?.answers?.find((a) => a.question === 0);
    const a1 = ex?.answers?.find((a) => a.question === 1);
    check(dl.name === 'schedlab-answers.json' && file?.format === 'schedlab-answers' && file?.version === 1
      && !Number.isNaN(Date.parse(file?.exported)), 'Export my answers: schedlab-answers.json with format, version, timestamp',
      `${dl.name} ${dl.text.slice(0, 120)}`);
    check(a0?.number === 2 && a0?.correct === true && a0?.attempts === 3 && a0?.kind === 'predict_start' && !a0?.gave_up
      && a1?.options?.join() === '1' && a1?.correct === true && ex?.hints?.join() === '2,0,1' && ex?.answers?.length === 2,
      'the file holds each answer, its verdict, attempts and the hints shown', JSON.stringify(ex));
    check(!Number.isNaN(Date.parse(ex?.revealed)), 'the file records when the simulation was revealed', String(ex?.revealed));
    const note = await page.textContent('[data-testid="ex-export-note"]');
    check(/2 answers to 1 exercise/.test(note), 'the export says what it holds', note);
    await shot(page, 'exercises-6-export.png');

    // ---- Copy link (teacher): the link opens the same exercise in a fresh browser.
    const href = await page.getAttribute('[data-testid="ex-link"]', 'href');
    check(href.includes('#ex=') && href.split('#')[1] === (await page.evaluate(() => location.hash.slice(1))),
      'the exercise link is in the address bar and behind "Link to this exercise"');
    await page.click('[data-testid="ex-copy"]');
    await page.waitForFunction(() => document.querySelector('[data-testid="ex-copy"]').textContent !== 'Copy link',
      null, { timeout: 5000, polling: 50 }).catch(() => {});
    const copied = await page.textContent('[data-testid="ex-copy"]');
    check(/Copied|Copy failed/.test(copied), 'Copy link answers', copied);
    const p2 = await openTab(browser, href, errors);
    await waitSolved(p2);
    check((await p2.textContent('[data-testid="ex-title"]')) === title
      && (await p2.inputValue('[data-testid="ex-q0-answer"]')) === '', 'the copied link opens the exercise (fresh browser: no answers)');

    // ---- A damaged link.
    await p2.goto('about:blank');
    await p2.goto(`${href.slice(0, -12)}x${href.slice(-11)}`);
    await p2.waitForSelector('body[data-worker="ready"]', { timeout: 60000 });
    await p2.waitForFunction(() => !document.querySelector('[data-testid="ex-error"]').hidden, null, { timeout: 10000 });
    const dmg = await exError(p2);
    check(/link/.test(dmg) && /checksum|damaged/.test(dmg), 'a damaged exercise link is refused, naming the link', dmg);

    // ---- A teacher's file: broken, then valid.
    const bad = JSON.parse(readFileSync(file01, 'utf8'));
    bad.questions[0].tolerance = -1;
    writeFileSync(join(tmp, 'bad-exercise.json'), JSON.stringify(bad));
    await p2.click('[data-testid="mode-exercises"]');
    await p2.setInputFiles('[data-testid="ex-file"]', join(tmp, 'bad-exercise.json'));
    await p2.waitForFunction(() => /bad-exercise/.test(document.querySelector('[data-testid="ex-error"]').textContent), null, { timeout: 10000 });
    const badMsg = await exError(p2);
    check(/bad-exercise\.json: questions\[0\]\.tolerance: must be a number ≥ 0/.test(badMsg), 'a broken exercise file: the error names the file and the key', badMsg);
    // A file whose stated answer the simulation contradicts: its error ends the loading.
    const wrong = JSON.parse(readFileSync(file01, 'utf8'));
    wrong.questions[0].answer = 99;
    writeFileSync(join(tmp, 'wrong-answer.json'), JSON.stringify(wrong));
    await p2.setInputFiles('[data-testid="ex-file"]', join(tmp, 'wrong-answer.json'));
    await p2.waitForFunction(() => /wrong-answer/.test(document.querySelector('[data-testid="ex-error"]').textContent), null, { timeout: 30000 });
    const ended = {
      error: await exError(p2),
      status: await p2.textContent('[data-testid="ex-status"]'),
      state: await p2.$eval('#exercises-mode', (e) => e.dataset.state),
      questions: await p2.$$eval('[data-testid="ex-questions"] .question', (q) => q.length),
    };
    check(/wrong-answer\.json: questions\[0\]\.answer: states 99/.test(ended.error) && !/Simulating/.test(ended.status)
      && ended.state === 'idle' && ended.questions === 0, 'a file whose answer is wrong: its error ends the loading state', JSON.stringify(ended));
    await shot(p2, 'exercises-6b-wrong-answer-file.png');
    const mine = JSON.parse(readFileSync(join(ROOT, 'www', 'exercises', '02-easy-vs-conservative.json'), 'utf8'));
    mine.id = 'teacher-copy';
    mine.title = 'A teacher\'s exercise';
    writeFileSync(join(tmp, 'mine.json'), JSON.stringify(mine));
    await p2.setInputFiles('[data-testid="ex-file"]', join(tmp, 'mine.json'));
    await p2.waitForFunction(() => document.querySelector('[data-testid="ex-title"]').textContent === 'A teacher\'s exercise', null, { timeout: 10000 });
    await waitSolved(p2);
    check(await exError(p2) === '', 'a valid file opens (the error box is gone)');
    check(await p2.isHidden('#ex-replay') && await p2.isVisible('[data-testid="ex-reveal-button"]'), 'a new exercise starts hidden');
    await p2.click('[data-testid="ex-reveal-button"]');
    // A pending question asks job 4's start: its hover leaves the times out.
    await p2.selectOption('[data-testid="ex-replay-pick"]', '1');
    // At the replay's end, when job 4 has run (before, it is not drawn).
    await p2.$eval('[data-testid="ex-replay-time"]', (e) => {
      e.value = e.max;
      e.dispatchEvent(new Event('input', { bubbles: true }));
    });
    const tips = new Set();
    let at4 = null;
    await p2.$eval('#ex-replay', (e) => e.scrollIntoView({ block: 'start' }));
    const cbox2 = await p2.$eval('[data-testid="ex-replay-canvas"]', (c) => {
      const r = c.getBoundingClientRect();
      return { x: r.x, y: r.y, w: r.width, h: r.height };
    });
    for (let fx = 0.05; fx < 1; fx += 0.05) {
      for (let fy = 0.1; fy < 0.95; fy += 0.1) {
        await p2.mouse.move(cbox2.x + cbox2.w * fx, cbox2.y + cbox2.h * fy);
        const t = await p2.$eval('[data-testid="ex-replay-tip"]', (e) => (e.hidden ? '' : e.textContent));
        if (t) tips.add(t);
        if (!at4 && /^Job 4 /.test(t)) at4 = { x: cbox2.x + cbox2.w * fx, y: cbox2.y + cbox2.h * fy };
      }
    }
    if (at4) {
      await p2.mouse.move(at4.x, at4.y);
      await shot(p2, 'exercises-7a-secret-tip.png');
    }
    await p2.mouse.move(0, 0);
    const tip4 = [...tips].filter((t) => /^Job 4 /.test(t));
    check(tip4.length > 0 && tip4.every((t) => /stay hidden/.test(t) && !/start \d|waited/.test(t)),
      'revealed early: the hover of job 4 (a pending question asks its start) hides its times', [...tips].join(' | ').slice(0, 400));
    // Conservative: every queued job's reservation at t = 3.
    await p2.selectOption('[data-testid="ex-replay-pick"]', '0');
    for (let i = 0; i < 3; i++) await p2.click('[data-testid="ex-replay-step"]');
    const res = await p2.$$eval('#ex-replay [data-testid="replay-queue"] tbody tr', (r) => r.map((x) => `${x.dataset.job}@${x.dataset.reservation}`));
    check(res.join() === '2@10,3@10,4@20', 'conservative replay at t = 3: reservations 2@10, 3@10, 4@20', res.join());
    await p2.$eval('#ex-replay', (e) => e.scrollIntoView({ block: 'start' }));
    await shot(p2, 'exercises-7-conservative.png');

    // ---- A mesh exercise from the list: its other runs as tables.
    await p2.click('[data-testid="ex-open-mesh-fragmentation"]');
    await p2.waitForFunction(() => document.querySelector('[data-testid="ex-view"]').dataset.exercise === 'mesh-fragmentation', null, { timeout: 10000 });
    await waitSolved(p2);
    check(await p2.isHidden('[data-testid="ex-runs"]') && await p2.isHidden('#ex-replay'), 'a mesh exercise: runs hidden before answering');
    await p2.fill('[data-testid="ex-q1-answer"]', '0');
    await p2.click('[data-testid="ex-q1-check"]');
    check((await feedback(p2, 1)).verdict === 'correct' && await p2.isVisible('#ex-replay') && await p2.isHidden('[data-testid="ex-runs"]'),
      'answering the flat question right shows the flat run; the mesh run stays hidden (question 1 reads it)');
    // "Show the answer" after a wrong answer: the value and the explanation; the question is
    // settled, so the mesh run it reads appears.
    await p2.fill('[data-testid="ex-q0-answer"]', '7');
    await p2.click('[data-testid="ex-q0-check"]');
    await p2.click('[data-testid="ex-q0-show"]');
    const shown = await feedback(p2, 0);
    const settled = await p2.$eval('[data-testid="ex-q0-feedback"]', (e) => e.dataset.settled);
    check(shown.verdict === 'wrong' && settled === 'true' && /the simulation gives 50 s/.test(shown.text) && /Why:/.test(shown.text)
      && !(await p2.$('[data-testid="ex-q0-show"]')), '"Show the answer": the simulated value and the explanation, not counted correct', shown.text);
    await p2.$eval('[data-testid="ex-q0"]', (e) => e.scrollIntoView({ block: 'start' }));
    await shot(p2, 'exercises-7b-show-answer.png');
    check(await p2.isHidden('[data-testid="ex-reveal"]'), 'every question settled: nothing left to reveal');
    const mesh = await p2.$$eval('[data-testid="ex-runs"] .ex-run', (r) => r.map((x) => `${x.dataset.mode}:${x.querySelectorAll('tbody tr').length}`));
    check(!(await p2.isHidden('[data-testid="ex-runs"]')) && mesh.length === 1 && mesh[0].startsWith('mesh:'),
      'a mesh exercise lists its mesh run as a table (the flat run is in the replay)', mesh.join());
    await p2.$eval('[data-testid="ex-runs"]', (e) => e.scrollIntoView({ block: 'start' }));
    await shot(p2, 'exercises-8-mesh-runs.png');
    const listed = await p2.$$eval('[data-testid="ex-list"] li', (l) => l.length);
    check(listed === 10, 'the list has the 10 shipped exercises', String(listed));
    check(errors.length === 0, 'no console or page errors', errors.join(' | '));
  } finally {
    await browser.close();
  }
});
