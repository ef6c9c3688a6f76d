// End-to-end: the flat tab's policy builder (docs/policies.md, "Queue orders, backfilling and
// estimates"). A user writes a priority with an error and sees its column as they type; Run
// refuses it and keeps the page as it was; the fixed priority runs, and its numbers are the
// CLI's for the same experiment (`schedlab open` of the share link, then `schedlab run`); the
// share link replays the same schedule in a fresh tab with the builder restored; EASY-SJBF with
// predicted run times also runs and round-trips. Prints `policies: N passed, M failed`.
//
// Environment: SCHEDLAB_BIN (native CLI), SCHEDLAB_DIST (default dist), CHROMIUM.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BIN, check, launchBrowser, log, openTab, readFlatTable, runSuite, serveDist, shot,
} from './harness.mjs';

const readTable = readFlatTable;

async function waitIdleWithRows(page, rows) {
  await page.waitForFunction(
    (n) => document.body.dataset.state === 'idle'
      && document.querySelectorAll('[data-testid="results"] tbody tr').length === n,
    rows, { timeout: 120000, polling: 100 },
  );
}

async function shareHref(page) {
  await page.waitForSelector('[data-testid="share-link"]', { state: 'visible', timeout: 10000 });
  return page.getAttribute('[data-testid="share-link"]', 'href');
}

/// The CLI's summary of a share link's experiment (`schedlab open`, then `schedlab run`).
function cliSummary(dir, link, policy) {
  const exp = join(dir, `${policy.replace(/[^a-z0-9]+/gi, "-")}.json`);
  execFileSync(BIN, ['open', link, '--experiment-out', exp], { stdio: 'pipe' });
  const out = execFileSync(BIN, ['run', exp, '--policy', policy], { encoding: 'utf8' });
  return JSON.parse(out);
}

async function main() {
  const url = await serveDist();
  const browser = await launchBrowser();
  const tmp = mkdtempSync(join(tmpdir(), 'schedlab-policies-'));
  try {
    const errors = [];
    const page = await openTab(browser, url, errors);
    await page.waitForSelector('body[data-worker="ready"]', { timeout: 60000 });
    await page.fill('#jobs', '800');
    for (const p of ['fcfs', 'easy', 'conservative']) {
      await page.setChecked(`#policy-${p}`, p !== 'fcfs');
    }
    const orders = await page.$$eval('#queue-order option', (os) => os.map((o) => o.value));
    check(orders.includes('wfp3') && orders.includes('f4') && orders.at(-1) === 'expression',
      'the builder lists the registry\'s orders and "a priority you write"', orders.join(' '));

    // 1. A priority with an error: its column, as it is typed.
    await page.selectOption('#queue-order', 'expression');
    check(await page.isVisible('#queue-expr'), 'choosing "a priority you write" shows its field');
    await page.fill('#queue-expr', 'wait / estimat');
    const note = await page.textContent('[data-testid="queue-expr-note"]');
    check(/Column 8: unknown attribute `estimat`/.test(note) && /\n {7}\^/.test(note)
      && await page.getAttribute('#queue-expr', 'aria-invalid') === 'true',
    'a wrong priority: its column and a caret under it, as it is typed', JSON.stringify(note));
    await shot(page, 'policies-01-expression-error.png');

    // 2. Run refuses it; nothing runs, the page is as it was.
    await page.click('[data-testid="run"]');
    await page.waitForFunction(() => !document.querySelector('[data-testid="error"]').hidden, null,
      { timeout: 10000, polling: 100 });
    const refused = await page.$eval('[data-testid="error"]', (e) => e.textContent.trim());
    check(/Priority, column 8: unknown attribute `estimat`/.test(refused)
      && (await page.$$('[data-testid="results"] tbody tr')).length === 0,
    'Run refuses the priority, naming the column; nothing ran', refused);

    // 3. Fixed: it runs.
    await page.click('#error-close', { timeout: 5000 }).catch(() => {});
    await page.fill('#queue-expr', 'wait / estimate');
    const fixed = await page.textContent('[data-testid="queue-expr-note"]');
    check(/^Attributes:/.test(fixed) && await page.getAttribute('#queue-expr', 'aria-invalid') === 'false',
      'the fixed priority clears the error', fixed);
    await page.click('[data-testid="run"]');
    await waitIdleWithRows(page, 2);
    const caption = await page.textContent('#results-caption');
    check(/priority wait \/ estimate/.test(caption), 'the caption names the order', caption);
    const table = await readTable(page);
    const link = await shareHref(page);
    await shot(page, 'policies-02-written-priority.png');

    // 4. The CLI gives the same numbers for the link's experiment.
    for (const [policy, row] of Object.entries(table)) {
      const name = `${policy}:wait / estimate`;
      const cli = cliSummary(tmp, link, name);
      const same = ['mean_wait', 'max_wait', 'mean_bounded_slowdown', 'utilization']
        .every((k) => cli[k] === row[k]);
      check(same, `the page's ${name} is the CLI's`, `page ${row.mean_wait} vs CLI ${cli.mean_wait}`);
    }

    // 5. The link replays the same schedule, the builder restored.
    const tab = await openTab(browser, link, errors);
    await waitIdleWithRows(tab, 2);
    check(JSON.stringify(await readTable(tab)) === JSON.stringify(table),
      'the share link replays the same schedule');
    check(await tab.inputValue('#queue-order') === 'expression'
      && await tab.inputValue('#queue-expr') === 'wait / estimate'
      && await tab.isVisible('#queue-expr'), 'the link restores the builder');
    await tab.close();

    // 6. EASY-SJBF with predicted run times: runs, differs from plain EASY, round-trips.
    await page.setChecked('#policy-conservative', false);
    await page.selectOption('#queue-order', 'arrival');
    await page.selectOption('#backfill-order', 'sjf');
    await page.selectOption('#estimates', 'predicted');
    await page.click('[data-testid="run"]');
    await page.waitForFunction(() => /backfilling Shortest estimate first · predicted run times/
      .test(document.querySelector('#results-caption').textContent)
      && document.body.dataset.state === 'idle', null, { timeout: 120000, polling: 100 });
    const sjbf = await readTable(page);
    const sjbfLink = await shareHref(page);
    const cli = cliSummary(tmp, sjbfLink, 'easy:arrival:sjf:predicted');
    check(cli.mean_wait === sjbf.easy?.mean_wait, 'EASY-SJBF with predictions: the page is the CLI',
      `${sjbf.easy?.mean_wait} vs ${cli.mean_wait}`);
    const tab2 = await openTab(browser, sjbfLink, errors);
    await waitIdleWithRows(tab2, 1);
    check(JSON.stringify(await readTable(tab2)) === JSON.stringify(sjbf)
      && await tab2.inputValue('#backfill-order') === 'sjf'
      && await tab2.inputValue('#estimates') === 'predicted',
    'the EASY-SJBF link replays and restores the builder');
    await shot(tab2, 'policies-03-sjbf-link.png');
    await tab2.close();
    // 7. Cancel after the first run of a batch: its row stays, and the caption says the batch
    //    stopped.
    await page.selectOption('#backfill-order', '');
    await page.selectOption('#estimates', 'request');
    await page.setChecked('#policy-fcfs', true);
    await page.setChecked('#policy-easy', false);
    await page.setChecked('#policy-conservative', true);
    await page.fill('#jobs', '300000');
    await page.click('[data-testid="run"]');
    await page.waitForFunction(() => /300,000 jobs/.test(document.querySelector('#results-caption').textContent)
      && document.querySelectorAll('[data-testid="results"] tbody tr').length === 1
      && document.body.dataset.state === 'running', null, { timeout: 120000, polling: 50 });
    await page.click('[data-testid="cancel"]');
    await page.waitForSelector('body[data-state="idle"]', { timeout: 30000 });
    const stopped = await page.textContent('#results-caption');
    check(/stopped after 1 of 2 runs: only those are shown/.test(stopped)
      && (await page.$$('[data-testid="results"] tbody tr')).length === 1
      && /Cancelled after 1 of 2 runs; those are shown/.test(await page.textContent('#progress-label')),
    'a batch cancelled after its first run: its row stays, marked as a stopped batch', stopped);
    await shot(page, 'policies-04-stopped-batch.png');
    log(`easy, wait / estimate: mean wait ${table.easy?.mean_wait}; EASY-SJBF predicted: ${sjbf.easy?.mean_wait}`);
    check(errors.length === 0, 'no page errors', errors.join(' | '));
  } finally {
    await browser.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

runSuite('policies', 5 * 60 * 1000, main);
