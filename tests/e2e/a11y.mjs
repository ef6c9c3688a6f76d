// Accessibility suite (run with node after `trunk build --release`): at 1280×720, axe-core
// (tests/e2e/node_modules/axe-core) after a run on every tab finds no serious or critical
// violation (the minor and moderate ones are printed); the tab bar is an ARIA tablist driven
// by the keyboard (roving tabindex; Left/Right wrap, Home, End); there is one <h1>; scroll
// boxes and the charts with a hover or arrow keys take focus; every chart canvas is an image with
// a label; every chart has its data as a table (opened for axe).

import {
  TABS, check, checkAxe, launchBrowser, log, loggedErrors, openTab, openTabByPointer, runSuite,
  serveDist, smallRun,
} from './harness.mjs';

const BUDGET_MS = 300 * 1000;

await runSuite('a11y', BUDGET_MS, async () => {
  const url = await serveDist();
  const browser = await launchBrowser();
  const errors = loggedErrors();
  try {
    const page = await openTab(browser, url, errors);
    const h1 = await page.$$eval('h1', (h) => h.map((x) => x.textContent.trim()));
    check(h1.length === 1, 'one <h1>', h1.join());

    // The tablist: keyboard.
    const state = () => page.$$eval('[role="tab"]', (t) => t.map((x) => `${x.dataset.mode}:${x.getAttribute('aria-selected')}:${x.tabIndex}`).join(' '));
    const focused = () => page.evaluate(() => document.activeElement?.dataset?.mode ?? document.activeElement?.tagName);
    const ctl = await page.$$eval('[role="tab"]', (t) => t.every((x) => {
      const p = document.getElementById(x.getAttribute('aria-controls'));
      return p && p.getAttribute('role') === 'tabpanel' && p.getAttribute('aria-labelledby') === x.id;
    }));
    check(ctl, 'every tab controls its tabpanel, labelled by the tab');
    check(await state() === 'flat:true:0 mesh:false:-1 grid:false:-1 moldable:false:-1 exercises:false:-1',
      'roving tabindex: only the selected tab is in the Tab order', await state());
    await page.focus('[data-testid="mode-flat"]');
    await page.keyboard.press('ArrowRight');
    check(await focused() === 'mesh' && (await state()).startsWith('flat:false:-1 mesh:true:0'), 'Right opens and focuses the next tab', await state());
    await page.keyboard.press('End');
    check(await focused() === 'exercises' && await page.isVisible('#exercises-mode'), 'End opens the last tab', await state());
    await page.keyboard.press('ArrowRight');
    check(await focused() === 'flat' && await page.isVisible('#flat-mode'), 'Right on the last tab wraps to the first', await state());
    await page.keyboard.press('ArrowLeft');
    check(await focused() === 'exercises', 'Left on the first tab wraps to the last', await state());
    await page.keyboard.press('Home');
    check(await focused() === 'flat' && await page.isVisible('#flat-mode'), 'Home opens the first tab', await state());

    const before = {};
    for (const { key, name } of TABS) {
      if (key === 'about') continue;
      check(await openTabByPointer(page, key, false), `${name}: opened by a click`);
      log(`${name}: ${await smallRun(page, key)}`);
      // Every chart's data table open, so that axe checks the tables too.
      const tables = await page.$$eval(`#${key}-mode details.chart-data`, (ds) => ds.map((d) => { d.open = true; return d.querySelectorAll('tbody tr').length; }));
      if (key !== 'exercises') {
        check(tables.length > 0 && tables.every((n) => n > 0), `${name}: every chart has its data as a table (${tables.length})`, tables.join());
      }
      const v = await checkAxe(page, `1280×720, ${name} after a run`);
      before[key] = v.length;
      const canv = await page.$$eval(`#${key}-mode canvas`, (cs) => cs.filter((c) => c.getClientRects().length > 0)
        .map((c) => ({ id: c.id, role: c.getAttribute('role'), label: (c.getAttribute('aria-label') ?? '').length })));
      check(canv.every((c) => c.role === 'img' && c.label >= 20), `${name}: every visible chart is role="img" with a label`, JSON.stringify(canv));
      const boxes = await page.$$eval(`#${key}-mode .table-wrap`, (bs) => bs.filter((b) => b.scrollWidth > b.clientWidth || b.scrollHeight > b.clientHeight)
        .map((b) => ({ tab: b.tabIndex, label: b.getAttribute('aria-label') ?? '' })));
      check(boxes.every((b) => b.tab === 0 && b.label), `${name}: every scroll box takes focus and has a label (${boxes.length})`, JSON.stringify(boxes));
    }
    // The exercise editor (Exercises tab): a new draft with a question of each kind and its
    // computed answers, then a field in error.
    check(await openTabByPointer(page, 'exercises', false), 'Exercises: opened again for the editor');
    await page.click('[data-testid="ed-new"]');
    await page.click('[data-testid="ed-add-q:numeric-0-0"]');
    await page.click('[data-testid="ed-add-q:choice-0-0"]');
    await page.waitForFunction(() => document.querySelector('#ed').dataset.state === 'solved', null, { timeout: 30000 });
    const edV = await checkAxe(page, '1280×720, the exercise editor with its answers');
    check(edV.length === 0, 'the editor: no violation of any impact', edV.map((x) => `${x.impact} ${x.id}`).join());
    await page.fill('[data-testid="ed-jobs-0-procs"]', 'x');
    await page.waitForFunction(() => !document.querySelector('#ed-error').hidden, null, { timeout: 10000 });
    await checkAxe(page, '1280×720, the exercise editor with a field in error');
    const unlabelled = await page.$$eval('#ed-form input, #ed-form select, #ed-form textarea',
      (els) => els.filter((e) => !(e.labels?.length || e.getAttribute('aria-label'))).map((e) => e.id));
    check(unlabelled.length === 0, 'the editor: every field has a label', unlabelled.join());
    await page.click('[data-testid="ed-new"]');
    const tips = await page.$$eval('#chart-gantt, #moldable-gantt, #mesh-canvas, #chart-util, #chart-queue, #chart-wait, #grid-chart-metrics, #grid-chart-load-single, #moldable-chart-changes', (cs) => cs.map((c) => `${c.id}:${c.tabIndex}`));
    check(tips.length === 9 && tips.every((t) => t.endsWith(':0')), 'the charts with a hover or arrow keys (Gantt charts, the mesh, line and bar charts) take focus', tips.join());
    log(`minor/moderate violations per tab: ${JSON.stringify(before)}`);
    check(errors.length === 0, 'no console or page errors', errors.join('\n'));
  } finally {
    await browser.close();
  }
});
