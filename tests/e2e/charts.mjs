// The charts' details (run with node after `trunk build --release` and `cargo build --bin
// schedlab`): explanations give times with units, the same on the page and in the CLI; the flat
// tab's progress line counts simulated time from the first arrival, as the charts do; one number
// format per axis; legends outside the plot and lines told apart by their dashes; the grid's bar
// labels never overlap; jobs on neighbouring mesh nodes in clearly different colours; every
// chart's data as a table on request and its points reachable by the arrow keys, showing the
// same tooltip as the mouse. Screenshots at 1366×768 in test-output/e2e/charts-*.png.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BIN, check, download, launchBrowser, log, loggedErrors, openTabByPointer, runSuite, serveDist,
  shot, smallRun,
} from './harness.mjs';

const BUDGET_MS = 600 * 1000;

async function setPolicies(page, wanted) {
  for (const p of ['fcfs', 'easy', 'conservative']) {
    await page.setChecked(`#policy-${p}`, wanted.includes(p), { timeout: 5000 });
  }
}

// The <text> elements of an SVG: [{ x, y, text }].
function svgTexts(svg) {
  const out = [];
  for (const m of svg.matchAll(/<text\b([^>]*)>([^<]*)<\/text>/g)) {
    const x = /\bx="([-\d.]+)"/.exec(m[1]);
    const y = /\by="([-\d.]+)"/.exec(m[1]);
    if (x && y) out.push({ x: Number(x[1]), y: Number(y[1]), text: m[2].trim() });
  }
  return out;
}

const TICK = /^[−-]?\d+(\.\d+)?[kM]?$/;

// The tick labels of a chart's axes from its SVG: x ticks share a y, y ticks an x (3 or more
// number labels). Each axis: its labels' decimals and suffixes.
function axes(svg) {
  const ticks = svgTexts(svg).filter((t) => TICK.test(t.text));
  const group = (key) => {
    const g = new Map();
    for (const t of ticks) g.set(t[key], [...(g.get(t[key]) ?? []), t.text]);
    return [...g.values()].filter((v) => v.length >= 3);
  };
  return [...group('y'), ...group('x')].map((labels) => ({
    labels,
    decimals: new Set(labels.filter((l) => !/^[−-]?0$/.test(l)).map((l) => (/\.(\d+)/.exec(l)?.[1].length ?? 0))),
    suffixes: new Set(labels.filter((l) => !/^[−-]?0$/.test(l)).map((l) => l.replace(/^[−-]?[\d.]+/, ''))),
  }));
}

// One number format per axis: every axis of `svg` has one number of decimals and one suffix.
function oneFormatPerAxis(svg) {
  const a = axes(svg);
  return { ok: a.length >= 2 && a.every((x) => x.decimals.size <= 1 && x.suffixes.size <= 1), axes: a.map((x) => x.labels.join(' ')) };
}

// The table under chart `id` (opened), as rows of cell texts, and its column headers.
async function chartTable(page, id) {
  await page.click(`[data-testid="${id}-data"] summary`);
  return page.$eval(`[data-testid="${id}-data"]`, (d) => ({
    open: d.open,
    summary: d.querySelector('summary').textContent,
    head: [...d.querySelectorAll('thead th')].map((t) => t.textContent),
    rows: [...d.querySelectorAll('tbody tr')].map((r) => [...r.children].map((c) => c.textContent)),
  }));
}

// Focuses canvas `id`, presses `keys`, returns the tooltip's text (null if hidden) and the
// point's place in CSS pixels of the canvas.
async function keyTip(page, id, keys) {
  await page.focus(`#${id}`);
  for (const k of keys) await page.keyboard.press(k);
  return page.evaluate((cid) => {
    const t = document.getElementById('chart-tip');
    const c = document.getElementById(cid);
    return { tip: t && !t.hidden ? t.textContent : null, point: c.dataset.point, at: c.dataset.pointAt };
  }, id);
}

// Moves the mouse onto the point the keys reached, returns the tooltip then shown.
async function hoverTip(page, id, at) {
  const [x, y] = at.split(',').map(Number);
  const box = await page.$eval(`#${id}`, (c) => { const r = c.getBoundingClientRect(); return { x: r.left, y: r.top }; });
  await page.mouse.move(box.x + x, box.y + y);
  return page.evaluate(() => { const t = document.getElementById('chart-tip'); return t && !t.hidden ? t.textContent : null; });
}

// The keys and the table agree: the second point's value (after the last ": " of its tooltip)
// is a cell of the table; on a line chart (`aligned`) the k-th point is the k-th row.
async function checkKeysAndTable(page, id, name, aligned = false) {
  const table = await chartTable(page, id);
  check(table.open && table.summary === 'Show data as a table' && table.rows.length > 0 && table.head.length >= 2,
    `${name}: "Show data as a table" opens a table of its data`, `${table.rows.length} rows; ${table.head.join(' | ')}`);
  const first = await keyTip(page, id, ['ArrowRight']);
  const second = await keyTip(page, id, ['ArrowRight']);
  const value = (second.tip ?? '').split('\n').pop().split(': ').pop().split(' ')[0];
  const row = table.rows[1] ?? [];
  const inTable = table.rows.some((r) => r.some((c) => c === value || c.endsWith(`: ${value}`)));
  const sameRow = !aligned || row.every((cell) => (second.tip ?? '').includes(cell.split(': ').pop()));
  check(first.point === '0' && second.point === '1' && second.tip !== null && inTable && sameRow,
    `${name}: the arrow keys move to the next point and show its tooltip, whose value is in the table${aligned ? ' (row 2)' : ''}`,
    `${JSON.stringify(second)}; value ${value}; row 2 ${JSON.stringify(row)}`);
  const end = await keyTip(page, id, ['End']);
  check(Number(end.point) > 1 && end.tip !== null, `${name}: End moves to the last point`, JSON.stringify(end));
  const back = await keyTip(page, id, ['Home']);
  if (!id.startsWith('mesh-canvas')) {
    const hovered = await hoverTip(page, id, back.at);
    check(hovered === back.tip, `${name}: the mouse on the same point shows the same tooltip`, `${hovered} vs ${back.tip}`);
  }
  await page.keyboard.press('Escape');
  return table;
}

await runSuite('charts', BUDGET_MS, async () => {
  const url = await serveDist();
  const browser = await launchBrowser();
  const errors = loggedErrors();
  try {
    const page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
    page.setDefaultTimeout(30000);
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await page.goto(url, { timeout: 30000 });
    await page.waitForSelector('body[data-worker="ready"]', { timeout: 60000 });
    try {

    // 3. Flat charts: axes, legends, dashes, tables and keys.
    {
      log(`flat: ${await smallRun(page, 'flat')}`);
      await page.$eval('[data-testid="chart"]', (e) => e.scrollIntoView());
      await shot(page, 'charts-flat.png');
      for (const [link, name] of [['[data-testid="svg-util"]', 'utilisation'], ['#svg-chart-queue', 'queue']]) {
        const svg = (await download(page, link)).text;
        const f = oneFormatPerAxis(svg);
        check(f.ok, `axes: ${name} chart, one number format per axis`, f.axes.join(' / '));
        const texts = svgTexts(svg);
        const tickBottom = Math.max(...texts.filter((t) => TICK.test(t.text)).map((t) => t.y));
        const legend = texts.filter((t) => ['FCFS', 'EASY', 'Conservative', 'Cons.'].includes(t.text) || /^Cons/.test(t.text));
        check(legend.length === 3 && legend.every((t) => t.y > tickBottom),
          `legend: ${name} chart's legend is under the plot, outside it`, JSON.stringify(legend));
        const lines = (colour) => (svg.match(new RegExp(`<polyline[^>]*stroke="${colour}"`, 'gi')) ?? []).length;
        check(lines('#D1495B') + lines('#d1495b') >= 1 && lines('#2E6FDF') + lines('#2e6fdf') > 10,
          `lines: ${name} chart draws the first line solid, the second dashed`, `${lines('#D1495B')} ${lines('#2E6FDF')}`);
      }
      const t = await checkKeysAndTable(page, 'chart-util', 'utilisation chart', true);
      check(t.rows.some((r) => r[0] === 'FCFS') && t.rows.some((r) => r[0] === 'EASY'),
        'utilisation chart: the table has every policy\'s points', t.rows.slice(0, 2).join(' / '));
      await checkKeysAndTable(page, 'chart-wait', 'wait chart', true);
      await page.$eval('#chart-util', (e) => e.scrollIntoView());
      await page.focus('#chart-util');
      await page.keyboard.press('ArrowRight');
      await shot(page, 'charts-flat-keys.png');
    }

    // 1. Explanations with units (in a tab of their own: a trace is loaded there)
    const tp = await browser.newPage({ viewport: { width: 1366, height: 768 } });
    tp.setDefaultTimeout(30000);
    tp.on('pageerror', (e) => errors.push(String(e)));
    tp.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await tp.goto(url, { timeout: 30000 });
    await tp.waitForSelector('body[data-worker="ready"]', { timeout: 60000 });
    // 1. Explanations with units, on the page and in the CLI: a trace whose clock is at
    // 302,271 s when its jobs arrive.
    const dir = mkdtempSync(join(tmpdir(), 'schedlab-charts-'));
    const swf = join(dir, 'late.swf');
    const line = (id, submit, run, procs) => `${id} ${submit} -1 ${run} ${procs} -1 -1 ${procs} ${run} -1 1 1 1 -1 1 -1 -1 -1`;
    writeFileSync(swf, ['; MaxProcs: 4', line(1, 302271, 4000, 4), line(2, 302300, 100, 4), line(3, 302400, 50, 1)].join('\n') + '\n');
    {
      const cli = execFileSync(BIN, ['run', '--swf', swf, '--policy', 'fcfs', '--explain', '2'], { encoding: 'utf8' });
      check(/arrived at t = 302,300 s \(3 d 11 h 58 min\)\./.test(cli) && /waiting 3,971 s \(1 h 6 min\)/.test(cli),
        'explanations: the CLI gives times with units and a reading in days, hours, minutes', cli);
      await tp.setInputFiles('[data-testid="upload"]', swf, { timeout: 10000 });
      await tp.waitForSelector('body[data-trace="late.swf"]', { timeout: 60000 });
      await setPolicies(tp, ['fcfs']);
      await tp.click('[data-testid="run"]');
      await tp.waitForFunction(() => document.body.dataset.state === 'idle'
        && document.querySelectorAll('[data-testid="results"] tbody tr').length === 1, null, { timeout: 60000, polling: 100 });
      await tp.waitForSelector('#replay:not([hidden])', { timeout: 10000 });
      // Step the replay to job 2's arrival: its decision in the CLI's words, times and units.
      for (let i = 0; i < 10 && Number(await tp.getAttribute('#replay', 'data-t')) < 302300; i += 1) {
        await tp.click('[data-testid="replay-step"]');
      }
      const decisions = await tp.$$eval('#replay [data-testid="replay-decisions"] li', (l) => l.map((x) => x.textContent));
      const label = await tp.textContent('#replay [data-testid="replay-time-label"]');
      const ours = cli.split('\n').find((l) => /^t = 302,300 s \(3 d 11 h 58 min\): /.test(l)) ?? '(none)';
      const why = ours.replace(/^t = [^:]*: /, '');
      check(decisions.includes(`Job 2: ${why}`), 'explanations: the page\'s replay shows the CLI\'s words for job 2', `${decisions.join(' | ')} vs ${why}`);
      check(label.startsWith('t = 302,300 s (3 d 11 h 58 min) ·'), 'explanations: the replay\'s clock reads as the CLI\'s', label);
      await tp.$eval('#replay', (e) => e.scrollIntoView());
      await shot(tp, 'charts-explanations.png');
    }

    // 2. The progress line's simulated time starts at the first arrival, as the charts do: a
    // trace whose first job arrives after 300 days runs for about a day.
    {
      const lines = ['; MaxProcs: 64'];
      for (let i = 0; i < 150000; i += 1) lines.push(line(i + 1, 300 * 86400 + i * 0.6, 30 + (i * 7919) % 600, 1 + (i * 31) % 64));
      const big = join(dir, 'late-big.swf');
      writeFileSync(big, lines.join('\n') + '\n');
      await tp.setInputFiles('[data-testid="upload"]', big, { timeout: 20000 });
      await tp.waitForSelector('body[data-trace="late-big.swf"]', { timeout: 120000 });
      await setPolicies(tp, ['conservative']);
      await tp.click('[data-testid="run"]');
      await tp.waitForFunction(() => /simulated time/.test(document.querySelector('#progress-label').textContent),
        null, { timeout: 120000, polling: 20 });
      const label = await tp.textContent('#progress-label');
      await shot(tp, 'charts-progress.png');
      const m = /simulated time ([\d.,]+) (s|min|h|d) since the first arrival/.exec(label);
      const days = m ? Number(m[1].replace(/,/g, '')) * { s: 1 / 86400, min: 1 / 1440, h: 1 / 24, d: 1 }[m[2]] : NaN;
      check(m && days < 5, 'progress: simulated time counted from the first arrival (not the trace clock\'s 300 days)', label);
      await tp.click('[data-testid="cancel"]');
      await tp.waitForFunction(() => document.body.dataset.state === 'idle', null, { timeout: 30000, polling: 100 });
    }
    await tp.close();

    // 4. Mesh: neighbouring jobs in different colours; keys over the jobs; the table.
    {
      check(await openTabByPointer(page, 'mesh', false), 'mesh: opened');
      log(`mesh: ${await smallRun(page, 'mesh')}`);
      // Every instant of the first 80 events: the closest colours of two jobs on neighbouring
      // nodes, read from the canvas at the nodes' centres.
      await page.$eval('[data-testid="mesh-time"]', (r) => {
        r.value = r.min;
        r.dispatchEvent(new Event('input', { bubbles: true }));
      });
      await page.$eval('[data-testid="mesh-canvas"]', (e) => e.scrollIntoView());
      const measure = (c) => {
        const jobs = c.dataset.nodeJobs.split(',').map(Number);
        const [ox, oy, cell, w, h] = c.dataset.geo.split(',').map(Number);
        const ctx = c.getContext('2d');
        const px = (x, y) => {
          const d = ctx.getImageData(Math.round(ox + (x + 0.5) * cell), Math.round(oy + (h + 1 - y + 0.5) * cell), 1, 1).data;
          return [d[0], d[1], d[2]];
        };
        let pairs = 0;
        let min = Infinity;
        for (let y = 1; y <= h; y += 1) {
          for (let x = 1; x <= w; x += 1) {
            const a = jobs[(y - 1) * w + x - 1];
            for (const [dx, dy] of [[1, 0], [0, 1]]) {
              if (x + dx > w || y + dy > h) continue;
              const b = jobs[(y + dy - 1) * w + x + dx - 1];
              if (a < 0 || b < 0 || a === b) continue;
              const [p, q] = [px(x, y), px(x + dx, y + dy)];
              min = Math.min(min, Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]));
              pairs += 1;
            }
          }
        }
        return { pairs, min };
      };
      const worst = { pairs: 0, min: Infinity, instants: 0 };
      for (let i = 0; i < 80; i += 1) {
        const w = await page.$eval('[data-testid="mesh-canvas"]', measure);
        worst.pairs += w.pairs;
        worst.min = Math.min(worst.min, w.min);
        if (w.pairs > 0) worst.instants += 1;
        await page.click('[data-testid="mesh-step"]');
      }
      log(`mesh colours: ${JSON.stringify(worst)}`);
      check(worst.pairs > 0 && worst.min >= 60, 'mesh: jobs on neighbouring nodes differ clearly in colour (RGB distance ≥ 60)', JSON.stringify(worst));
      await shot(page, 'charts-mesh.png');
      const table = await chartTable(page, 'mesh-canvas');
      check(table.rows.length > 0 && table.head[0] === 'Job', 'mesh: "Show data as a table" lists the running jobs', `${table.rows.length} rows`);
      const k = await keyTip(page, 'mesh-canvas', ['ArrowRight']);
      const [x, y] = (k.at ?? '0,0').split(',').map(Number);
      const box = await page.$eval('[data-testid="mesh-canvas"]', (c) => { const r = c.getBoundingClientRect(); return { x: r.left, y: r.top }; });
      await page.mouse.move(box.x + x, box.y + y);
      const hover = await page.textContent('[data-testid="mesh-tip"]');
      check(k.tip !== null && k.tip === hover && /^Job \d+/.test(k.tip) && k.tip.startsWith(`Job ${table.rows[0][0]} `),
        'mesh: the arrow keys reach the first job and show the hover\'s tooltip', `${k.tip} | ${hover}`);
      await shot(page, 'charts-mesh-keys.png');
      const svgTime = await page.$('[data-testid="mesh-chart-util"]');
      if (svgTime) await checkKeysAndTable(page, 'mesh-chart-util', 'mesh over-time charts');
    }

    // 5. Grid: labels that fit, keys and table on the bars; the hour charts' legend.
    {
      check(await openTabByPointer(page, 'grid', false), 'grid: opened');
      for (let i = 0; i < 3; i += 1) {
        if (await page.$$eval('[data-testid="grid-site-row"]', (r) => r.length) < 5) await page.click('[data-testid="grid-add-site"]');
      }
      log(`grid: ${await smallRun(page, 'grid')}`);
      await page.$eval('#grid-chart-metrics', (e) => e.scrollIntoView());
      await shot(page, 'charts-grid.png');
      const svg = (await download(page, '[data-testid="grid-svg-metrics"]').catch(() => ({ text: '' }))).text;
      if (svg) {
        const texts = svgTexts(svg);
        const widths = await page.evaluate((ts) => {
          const ctx = document.createElement('canvas').getContext('2d');
          ctx.font = '12px sans-serif';
          return ts.map((t) => ctx.measureText(t).width);
        }, texts.map((t) => t.text));
        // Labels in one row (same y): centred at x, none may reach into the next.
        const rows = new Map();
        texts.forEach((t, i) => { if (!TICK.test(t.text) || /^\d+$/.test(t.text)) rows.set(t.y, [...(rows.get(t.y) ?? []), { ...t, w: widths[i] }]); });
        let overlaps = [];
        for (const row of rows.values()) {
          const s = row.sort((a, b) => a.x - b.x);
          for (let i = 1; i < s.length; i += 1) {
            const prevRight = s[i - 1].x + s[i - 1].w / 2;
            const left = s[i].x - s[i].w / 2;
            if (s.length > 3 && left < prevRight - 1 && Math.abs(s[i].x - s[i - 1].x) < 200) overlaps.push(`${s[i - 1].text}|${s[i].text}`);
          }
        }
        check(overlaps.length === 0, 'grid: no two bar labels overlap', overlaps.slice(0, 5).join(', '));
        const f = oneFormatPerAxis(svg);
        check(f.ok, 'grid: one number format per axis', f.axes.join(' / '));
      } else {
        check(false, 'grid: the bar chart downloads as SVG');
      }
      await checkKeysAndTable(page, 'grid-chart-metrics', 'grid bars');
      await checkKeysAndTable(page, 'grid-chart-load-single', 'grid hour chart');
    }

    // 6. Moldable: keys and table on the bars.
    {
      check(await openTabByPointer(page, 'moldable', false), 'moldable: opened');
      log(`moldable: ${await smallRun(page, 'moldable')}`);
      await page.$eval('#moldable-chart-changes', (e) => e.scrollIntoView());
      await checkKeysAndTable(page, 'moldable-chart-changes', 'moldable bars');
      await shot(page, 'charts-moldable.png');
    }
    check(errors.length === 0, 'no console or page errors', errors.join('\n'));
    if (!existsSync(BIN)) check(false, 'CLI built');
    } catch (e) {
      await shot(page, 'charts-failure.png').catch(() => {});
      throw e;
    }
  } finally {
    await browser.close();
  }
});
