// End-to-end: untrusted uploads meet the core's limits in the browser. A gzip bomb
// (a 1.5 MB .swf.gz of comment lines inflating to 1.25 GiB, past max_inflated_bytes = 1 GiB)
// is refused by the worker with an error naming the file and the limit, the previous results
// stay on the page, and the page still runs afterwards. Prints `limits: N passed, M failed`.
//
// Environment: SCHEDLAB_DIST (default dist), CHROMIUM (default /usr/bin/chromium).

import { mkdtempSync, openSync, rmSync, writeSync, closeSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync, constants } from 'node:zlib';
import { check, launchBrowser, log, openTab, runSuite, serveDist, shot } from './harness.mjs';

/// Writes `copies` gzip members, each `memberBytes` of `unit` repeated; returns inflated bytes.
function gzipBomb(path, unit, memberBytes, copies) {
  const reps = Math.floor(memberBytes / unit.length);
  const member = gzipSync(Buffer.from(unit.repeat(reps)), { level: constants.Z_BEST_COMPRESSION });
  const fd = openSync(path, 'w');
  for (let i = 0; i < copies; i += 1) writeSync(fd, member);
  closeSync(fd);
  return reps * unit.length * copies;
}

async function main() {
  const url = await serveDist();
  const browser = await launchBrowser();
  const tmp = mkdtempSync(join(tmpdir(), 'schedlab-limits-'));
  try {
    const errors = [];
    const page = await openTab(browser, url, errors);
    await page.fill('#jobs', '500');
    await page.click('[data-testid="run"]');
    await page.waitForFunction(
      () => document.body.dataset.state === 'idle'
        && document.querySelectorAll('[data-testid="results"] tbody tr').length > 0,
      null, { timeout: 120000, polling: 100 },
    );
    const before = await page.innerHTML('[data-testid="results"]');
    check(before.includes('<tr'), 'a first run gives results');

    const bomb = join(tmp, 'bomb.swf.gz');
    const inflated = gzipBomb(bomb, `; ${'x'.repeat(60)}\n`, 64 << 20, 20);
    const size = statSync(bomb).size;
    log(`gzip bomb: ${size} bytes on disk, ${inflated} bytes inflated`);
    check(inflated > 1.2 * 2 ** 30 && size < 4e6, 'the bomb is small on disk and inflates past 1 GiB',
      `${size} → ${inflated}`);
    const t0 = Date.now();
    await page.setInputFiles('[data-testid="upload"]', bomb, { timeout: 30000 });
    await page.waitForFunction(() => !document.querySelector('[data-testid="error"]').hidden, null,
      { timeout: 120000, polling: 100 });
    const text = await page.$eval('[data-testid="error"]', (e) => e.textContent.trim());
    log(`refused after ${Date.now() - t0} ms (informational)`);
    check(/bomb\.swf\.gz/.test(text), 'gzip bomb: the error names the file', text);
    check(/max_inflated_bytes/.test(text) || /1073741824|1 GiB|1\.07 GB/.test(text),
      'gzip bomb: the error names the limit', text);
    check(await page.innerHTML('[data-testid="results"]') === before, 'gzip bomb: previous results kept');
    await shot(page, 'limits-gzip-bomb.png');

    await page.click('#error-close', { timeout: 5000 }).catch(() => {});
    await page.check('#wl-synthetic');
    await page.fill('#jobs', '300');
    await page.click('[data-testid="run"]');
    await page.waitForFunction(
      (b) => document.body.dataset.state === 'idle'
        && document.querySelector('[data-testid="results"]').innerHTML !== b,
      before, { timeout: 120000, polling: 100 },
    );
    check(true, 'gzip bomb: the page runs again afterwards');
    check(errors.length === 0, 'no page errors', errors.join(' | '));
  } finally {
    await browser.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

runSuite('limits', 5 * 60 * 1000, main);
