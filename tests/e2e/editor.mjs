// End-to-end test of the exercise editor ("Write an exercise", Exercises tab) in headless
// Chromium, run by scripts/test.sh after `trunk build --release`: a teacher starts a new
// exercise, edits the jobs table (a fifth job, a wrong value reported naming its field and
// marked, then corrected), pastes SWF lines, keeps FCFS and changes the second policy to
// EASY; writes one question of each kind (predict a start, a number with a tolerance, a
// choice), reorders and removes a question; the page shows each computed answer. The file
// downloaded is then run through `schedlab exercise` (it verifies, and its answers are the
// page's) and `--check-all`; the link opens the same exercise as a student sees it; the
// draft survives a reload. axe-core finds no violation in the editor. Screenshots at
// 1366×768 and 390×844: test-output/e2e/editor-*.png. Prints `editor: N passed, M failed`.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BIN, SHOTS, check, checkAxe, download, launchBrowser, log, loggedErrors, openTab, runSuite,
  serveDist,
} from './harness.mjs';

const BUDGET_MS = 240 * 1000;

// Waits until the editor has computed the answers of the draft as it is now.
async function waitSolved(page) {
  await page.waitForFunction(() => document.querySelector('#ed').dataset.state === 'solved',
    null, { timeout: 30000, polling: 50 });
}

async function answers(page) {
  return page.$$eval('.ed-answer', (ps) => ps.map((p) => p.dataset.answer ?? ''));
}

async function type(page, testid, value) {
  await page.fill(`[data-testid="${testid}"]`, value);
}

async function select(page, testid, value) {
  await page.selectOption(`[data-testid="${testid}"]`, value);
}

await runSuite('editor', BUDGET_MS, async () => {
  const url = await serveDist();
  const browser = await launchBrowser();
  const errors = loggedErrors();
  const page = await openTab(browser, url, errors);
  await page.click('[data-testid="mode-exercises"]');
  await page.waitForSelector('#exercises-mode[data-worker="ready"]', { timeout: 60000 });
  await page.click('[data-testid="ed-new"]');
  await page.waitForSelector('[data-testid="ed-form"] [data-testid="ed-q-0"]');
  await waitSolved(page);
  check(JSON.stringify(await answers(page)) === '["0"]', 'a new exercise: its one question answered (job 1 starts at 0)',
    JSON.stringify(await answers(page)));

  // The workload: SWF lines pasted (four jobs on 4 processors), then a fifth job in the table.
  await page.click('.ed-paste summary');
  await type(page, 'ed-swf', [
    '; MaxProcs: 4',
    '1 0 -1 10 2 -1 -1 2 10 -1 1 1 -1 -1 -1 -1 -1 -1',
    '2 1 -1 5 4 -1 -1 4 5 -1 1 1 -1 -1 -1 -1 -1 -1',
    '3 2 -1 2 2 -1 -1 2 2 -1 1 1 -1 -1 -1 -1 -1 -1',
    '4 3 -1 8 1 -1 -1 1 8 -1 1 1 -1 -1 -1 -1 -1 -1',
  ].join('\n'));
  await page.click('[data-testid="ed-read-swf"]');
  await page.click('[data-testid="ed-add-job-0-0"]');
  const rows = await page.$$eval('[data-testid="ed-jobs"] tbody tr', (r) => r.length);
  check(rows === 5, 'SWF lines read into the table, a job added', `${rows} rows`);
  await type(page, 'ed-jobs-4-procs', '9');
  await page.waitForFunction(() => !document.querySelector('#ed-error').hidden, null, { timeout: 10000 });
  const err = await page.textContent('[data-testid="ed-error"]');
  const invalid = await page.getAttribute('[data-testid="ed-jobs-4-procs"]', 'aria-invalid');
  check(err.includes('jobs[4].procs') && err.includes('job 5 asks for 9 processors; the machine has 4') && invalid === 'true',
    'a job wider than the machine: the error names jobs[4].procs and the field is marked', `${err} ${invalid}`);
  check(await page.getAttribute('[data-testid="ed-download"]', 'aria-disabled') === 'true',
    'no export while the draft has an error');
  await type(page, 'ed-jobs-4-submit', '4');
  await type(page, 'ed-jobs-4-run_time', '1');
  await type(page, 'ed-jobs-4-request', '1');
  await type(page, 'ed-jobs-4-procs', '1');
  await waitSolved(page);
  check(await page.$eval('#ed-error', (e) => e.hidden), 'corrected: the error is gone');

  // The policies: FCFS and EASY (the second policy changed from the default).
  await select(page, 'ed-policies-1-backfilling', 'conservative');
  await select(page, 'ed-policies-1-backfilling', 'easy');
  await select(page, 'ed-policies-1-order', 'sjf');
  const relabelled = await page.$eval('[data-testid="ed-policy-1"] code', (c) => c.textContent);
  check(relabelled === 'easy-sjf', 'a policy changed: its run is renamed in place', relabelled);
  await select(page, 'ed-policies-1-order', 'arrival');
  await type(page, 'ed-id', 'editor-e2e');
  await type(page, 'ed-title', 'Which job does EASY backfill?');

  // Questions: predict (job 3 under EASY), a number (FCFS mean wait ± 0.5), a choice.
  await page.click('[data-testid="ed-add-q:numeric-0-0"]');
  await page.click('[data-testid="ed-add-q:choice-0-0"]');
  await page.click('[data-testid="ed-add-q:numeric-0-0"]');
  await page.waitForSelector('[data-testid="ed-q-3"]');
  await page.click('[data-testid="ed-del-q-3-0"]');
  await type(page, 'ed-questions-0-prompt', 'When does **job 3** start under EASY?');
  await select(page, 'ed-questions-0-run', '1');
  await type(page, 'ed-questions-0-job', '3');
  await type(page, 'ed-questions-0-hints', 'Job 2 is the head: when can it start?\nDoes job 3 end before then?');
  await type(page, 'ed-questions-0-explanation', 'Job 3 ends at 4, before the shadow time 10: EASY backfills it at 2.');
  await select(page, 'ed-questions-1-run', '0');
  await type(page, 'ed-questions-1-tolerance', '0.5');
  await type(page, 'ed-questions-1-prompt', 'What is the **mean wait** under FCFS?');
  await type(page, 'ed-questions-2-options-0-text', 'FCFS');
  await type(page, 'ed-questions-2-options-1-text', 'EASY');
  // Reorder: the choice up, then back down.
  await page.click('[data-testid="ed-up-q-2-0"]');
  const kinds = await page.$$eval('.ed-q h3', (h) => h.map((x) => x.textContent));
  check(kinds[1].includes('A choice'), 'a question moved up', JSON.stringify(kinds));
  await page.click('[data-testid="ed-down-q-1-0"]');
  await waitSolved(page);
  const shown = await answers(page);
  const texts = await page.$$eval('.ed-answer', (ps) => ps.map((p) => p.textContent));
  log(`computed answers: ${JSON.stringify(texts)}`);
  // FCFS: waits 0, 9, 13, 12, 11 → 9; EASY backfills job 3 at 2 → waits 0, 9, 0, 12, 0 → 4.2.
  check(JSON.stringify(shown) === '["2","9","1"]', 'computed answers: job 3 at 2, FCFS mean wait 9, EASY lower',
    JSON.stringify(shown));
  check(texts[1] === 'Computed answer: 9 ± 0.5 s' && texts[2].startsWith('Computed answer: EASY'),
    'answers in words, with tolerance and unit', JSON.stringify(texts));
  await page.setViewportSize({ width: 1366, height: 768 });
  await page.locator('[data-testid="ed-q-0"]').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(SHOTS, 'editor-1366.png') });
  await checkAxe(page, 'the editor with three questions');

  // Export: the file, checked by the command line.
  const file = await download(page, '[data-testid="ed-download"]');
  check(file.name === 'editor-e2e.json', 'the file is named after the exercise', file.name);
  const dir = mkdtempSync(join(tmpdir(), 'schedlab-editor-'));
  const path = join(dir, file.name);
  writeFileSync(path, file.text);
  const ex = JSON.parse(file.text);
  check(ex.format === 1 && ex.id === 'editor-e2e' && Object.keys(ex.runs).join() === 'easy,fcfs'
    && ex.workloads.jobs.length === 7, 'the file: format 1, two runs, the five jobs',
  JSON.stringify(Object.keys(ex.runs)));
  check(ex.questions[0].answer === 2 && ex.questions[1].answer === 9 && ex.questions[1].tolerance === 0.5
    && JSON.stringify(ex.questions[2].correct) === '[1]', 'the file states the computed answers',
  JSON.stringify(ex.questions.map((q) => q.answer ?? q.correct)));
  check(JSON.stringify(ex.questions[0].hints) === '["Job 2 is the head: when can it start?","Does job 3 end before then?"]'
    && /backfills it at 2/.test(ex.questions[0].explanation) && ex.questions[0].prompt === 'When does **job 3** start under EASY?',
  'the file holds the prompt, the hints (one per line) and the explanation as typed', JSON.stringify(ex.questions[0]));
  let cli = '';
  let ok = true;
  try {
    cli = execFileSync(BIN, ['exercise', path], { encoding: 'utf8' });
  } catch (e) {
    ok = false;
    cli = String(e.stderr ?? e);
  }
  check(ok && cli.includes('answer: 2 s\n') && cli.includes('answer: 9 ± 0.5 s\n') && cli.includes('* 1. EASY'),
    '`schedlab exercise FILE` verifies it and gives the page\'s answers', cli);
  try {
    cli = execFileSync(BIN, ['exercise', '--check-all', dir], { encoding: 'utf8' });
  } catch (e) {
    cli = String(e.stderr ?? e);
  }
  check(cli.includes('1 exercises checked'), '`schedlab exercise --check-all` passes', cli);

  // The link opens the same exercise, as a student sees it.
  const link = await page.getAttribute('[data-testid="ed-link"]', 'href');
  let viaCli = '';
  try {
    viaCli = execFileSync(BIN, ['exercise', link], { encoding: 'utf8' });
  } catch (e) {
    viaCli = String(e.stderr ?? e);
  }
  check(viaCli === execFileSync(BIN, ['exercise', path], { encoding: 'utf8' }),
    'the link holds the same exercise as the file', viaCli);
  const student = await openTab(browser, link, errors);
  await student.waitForSelector('[data-testid="ex-q0-check"]', { timeout: 60000 });
  check(await student.textContent('[data-testid="ex-title"]') === 'Which job does EASY backfill?',
    'the link opens the exercise in the Exercises tab');
  await student.fill('[data-testid="ex-q0-answer"]', '2');
  await student.click('[data-testid="ex-q0-check"]');
  await student.waitForSelector('[data-testid="ex-q0-feedback"]:not([hidden])');
  const fb = await student.textContent('[data-testid="ex-q0-feedback"]');
  check(fb.includes('Correct'), 'a student answering 2 is right', fb);
  await student.close();

  // The draft survives a reload.
  await page.reload();
  await page.waitForSelector('body[data-worker="ready"]', { timeout: 60000 });
  await page.click('[data-testid="mode-exercises"]');
  await page.waitForSelector('[data-testid="ed-q-2"]', { timeout: 30000 });
  await waitSolved(page);
  check(JSON.stringify(await answers(page)) === '["2","9","1"]', 'a reload keeps the draft and its answers');

  // A phone.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.locator('[data-testid="ed-q-2"]').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(SHOTS, 'editor-390.png') });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  check(overflow <= 0, 'at 390 px the page does not scroll sideways', `${overflow} px`);
  await page.locator('[data-testid="ed-jobs"]').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(SHOTS, 'editor-390-jobs.png') });
  await browser.close();
  check(errors.length === 0, 'no page errors', errors.join('\n'));
});
