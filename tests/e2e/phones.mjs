// End-to-end suite of the page on a phone (run with node after `trunk build --release`): at
// 390×844 with touch, the page is never wider than the screen; every tab of the top bar is
// opened by a tap (nothing covers it) and a small run of it works; the results tables scroll
// inside their card and the flat charts are at least 300 px wide; axe-core finds no serious
// or critical accessibility violation. Screenshots of every tab at 390×844 and of the flat
// tab at 1366×768 (the desktop layout) go to test-output/e2e/phones-*.png.

import {
  TABS, check, checkAxe, launchBrowser, log, loggedErrors, openTabByPointer, runSuite,
  serveDist, shot, smallRun,
} from './harness.mjs';

const BUDGET_MS = 300 * 1000;
const PHONE = { width: 390, height: 844 };
// Per tab, the parts below the form shown in a screenshot of their own.
const SECTIONS = {
  flat: ['#results-title', '#time-charts', '#gantt', '[data-testid="compare"]', '[data-testid="replay"]'],
  mesh: ['#mesh-results-title', '#mesh-canvas'],
  grid: ['#grid-results-title', '#grid-chart-metrics'],
  moldable: ['#moldable-results-title', '[data-testid="moldable-charts"]'],
  exercises: ['[data-testid="ex-questions"]', '[data-testid="ex-replay"]'],
};

async function newPage(browser, url, errors, viewport, touch) {
  const ctx = await browser.newContext({ viewport, hasTouch: touch, isMobile: touch, deviceScaleFactor: 1 });
  const page = await ctx.newPage();
  page.setDefaultTimeout(30000);
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  await page.goto(url, { timeout: 30000 });
  await page.waitForSelector('body[data-worker="ready"]', { timeout: 60000 });
  return page;
}

// The page's width, and the elements (of the visible panel) that stick out of the screen.
async function overflow(page) {
  return page.evaluate(() => {
    const w = document.documentElement.clientWidth;
    const wide = [];
    for (const e of document.querySelectorAll('body *')) {
      const r = e.getBoundingClientRect();
      if (r.width === 0 || r.right <= w + 0.5) continue;
      // Inside a scroll box: scrolled, not sticking out of the page.
      let p = e.parentElement;
      let scrolled = false;
      while (p && p !== document.body) {
        const s = getComputedStyle(p);
        if (/(auto|scroll|hidden)/.test(s.overflowX) && p.getBoundingClientRect().right <= w + 0.5) { scrolled = true; break; }
        p = p.parentElement;
      }
      if (!scrolled) wide.push(`${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}.${e.className} (${Math.round(r.right)})`);
    }
    return { scrollWidth: document.documentElement.scrollWidth, wide: wide.slice(0, 6) };
  });
}

await runSuite('phones', BUDGET_MS, async () => {
  const url = await serveDist();
  const browser = await launchBrowser();
  const errors = loggedErrors();
  try {
    const page = await newPage(browser, url, errors, PHONE, true);
    let o = await overflow(page);
    check(o.scrollWidth <= PHONE.width, `390×844: the page is not wider than the screen (${o.scrollWidth} px)`, o.wide.join(', '));
    const tabs = await page.$$eval('[role="tab"], .topnav a[href="#about"]', (els) => els.map((e) => {
      const r = e.getBoundingClientRect();
      return { text: e.textContent.trim(), right: r.right, h: r.height };
    }));
    check(tabs.length === TABS.length && tabs.every((t) => t.right <= PHONE.width && t.h >= 24),
      'every tab is on the screen and at least 24 px tall', JSON.stringify(tabs));

    for (const { key, name } of TABS) {
      const opened = await openTabByPointer(page, key, true);
      check(opened, `${name}: opened by a tap`);
      if (key !== 'about') {
        const what = await smallRun(page, key);
        check(true, `${name}: a small run works (${what})`);
      }
      o = await overflow(page);
      check(o.scrollWidth <= PHONE.width, `${name}: after the run the page is ${o.scrollWidth} px wide (≤ ${PHONE.width})`, o.wide.join(', '));
      if (key === 'flat') {
        const sizes = await page.$$eval('#time-charts canvas', (cs) => cs.map((c) => Math.round(c.getBoundingClientRect().width)));
        check(sizes.length === 3 && sizes.every((w) => w >= 300 && w <= PHONE.width), 'flat charts: at least 300 px wide', sizes.join());
        const wrap = await page.$eval('#results', (t) => {
          const box = t.closest('.table-wrap');
          return { table: Math.round(t.getBoundingClientRect().width), box: Math.round(box.getBoundingClientRect().width), scroll: box.scrollWidth > box.clientWidth };
        });
        check(wrap.box <= PHONE.width, `flat results: the table (${wrap.table} px) scrolls inside its ${wrap.box} px card`, JSON.stringify(wrap));
      }
      if (key !== 'about') await checkAxe(page, `390×844, ${name} after a run`);
      if (key !== 'about') await page.evaluate(() => window.scrollTo(0, 0));
      await shot(page, `phones-${key}.png`);
      // The results and the charts, each scrolled to the top of the screen.
      for (const [i, sel] of (SECTIONS[key] ?? []).entries()) {
        if (!(await page.isVisible(sel))) continue;
        await page.$eval(sel, (e) => e.scrollIntoView({ block: 'start' }));
        await shot(page, `phones-${key}-${i + 2}.png`);
      }
    }
    await page.context().close();

    // The desktop layout, for comparison.
    const desk = await newPage(browser, url, errors, { width: 1366, height: 768 }, false);
    await smallRun(desk, 'flat');
    const d = await desk.evaluate(() => ({
      scrollWidth: document.documentElement.scrollWidth,
      topbar: Math.round(document.querySelector('.topbar').getBoundingClientRect().height),
      charts: [...document.querySelectorAll('#time-charts canvas')].map((c) => Math.round(c.getBoundingClientRect().top)),
    }));
    check(d.scrollWidth <= 1366 && d.topbar === 52 && new Set(d.charts).size === 1,
      '1366×768: the desktop layout is unchanged (one-row top bar, three charts side by side)', JSON.stringify(d));
    await shot(desk, 'phones-desktop-1366.png');
    await desk.context().close();
    check(errors.length === 0, 'no console or page errors', errors.join('\n'));
  } finally {
    await browser.close();
  }
  log('done');
});
