/**
 * The tail under load (issue 21 "must show"): 300 requests/s for 10 s into an open imposter page.
 * Measured in the page: the longest task (PerformanceObserver `longtask`, every task over 50 ms) and how
 * far behind the tail ran (when a row appeared minus when its request was recorded, same machine clock).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { BrowserContext, Page } from 'playwright-core';
import { inProcessForSuite } from '../../support/in-process.js';
import { bulkStub, chromium, closeChromium, sendMany, WAIT, watchConsole } from '../../support/dashboard-harness.js';

const RATE = 300;
const SECONDS = 10;

const test = suite('dashboard: tail under load');
let context: BrowserContext;
const svc = inProcessForSuite(test, { keepImposters: true });
let page: Page;

test.before(async () => {
  context = await (await chromium()).newContext({ viewport: { width: 1440, height: 900 } });
});
test.after(async () => {
  await context?.close();
  await closeChromium();
});

interface TailStats {
  longest: number;
  longTasks: number;
  maxLag: number;
  rows: number;
}

test(`${RATE} requests/s for ${SECONDS} s: longest task under 200 ms, tail under 1 s behind`, async () => {
  const port = await svc.createImposter({ name: 'busy', recordRequests: true, stubs: [bulkStub] });
  page = await context.newPage();
  const watch = watchConsole(page);
  await page.addInitScript(() => {
    const stats = { longest: 0, longTasks: 0, maxLag: 0, rows: 0 };
    (window as unknown as { tailStats: TailStats }).tailStats = stats;
    new PerformanceObserver((list) => {
      for (const task of list.getEntries()) {
        stats.longTasks += 1;
        stats.longest = Math.max(stats.longest, task.duration);
      }
    }).observe({ type: 'longtask', buffered: true });
    // Each row added to the list is a request reaching the screen; its data-ts is when it was recorded.
    new MutationObserver((records) => {
      const now = Date.now();
      for (const record of records) {
        for (const node of record.addedNodes) {
          const ts = Number((node as HTMLElement).dataset?.ts);
          if (!Number.isFinite(ts)) continue;
          stats.rows += 1;
          stats.maxLag = Math.max(stats.maxLag, now - ts);
        }
      }
    }).observe(document, { childList: true, subtree: true });
  });
  await page.goto(`http://127.0.0.1:${svc.adminPort}/imposters/${port}`);
  await page.locator('#tail-status:text("live")').waitFor(WAIT);
  // Loading the page is not what is measured.
  await page.evaluate(() => Object.assign((window as unknown as { tailStats: TailStats }).tailStats, { longest: 0, longTasks: 0, maxLag: 0, rows: 0 }));
  const total = RATE * SECONDS;
  const started = Date.now();
  await sendMany(port, total, { perSecond: RATE, connections: 8 });
  const sentMs = Date.now() - started;
  await page.locator(`li.row:has-text("/bulk?n=${total - 1}")`).waitFor(WAIT);
  const caughtUpMs = Date.now() - started - sentMs;
  await page.locator(`#request-count:text("${total}")`).waitFor(WAIT);
  const stats = await page.evaluate(() => (window as unknown as { tailStats: TailStats }).tailStats);
  console.log(
    `dashboard tail at ${RATE}/s for ${SECONDS} s (sent in ${sentMs} ms): longest task ${Math.round(stats.longest)} ms (${stats.longTasks} over 50 ms), `
      + `tail at most ${stats.maxLag} ms behind, last request on screen ${caughtUpMs} ms after it was sent, ${stats.rows} rows painted`,
  );
  assert.ok(stats.rows > 100, `rows painted: ${stats.rows}`);
  assert.ok(stats.longest < 200, `longest task ${stats.longest} ms`);
  assert.ok(stats.maxLag < 1000, `tail ${stats.maxLag} ms behind`);
  assert.equal(watch.take(), []);
  await page.close();
});

test.run();
