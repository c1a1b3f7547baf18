/**
 * Every dashboard page at desktop and phone size: no console error, no element wider than a 390 px
 * (and 360 px) viewport, a title of its own, focus moved to the heading on navigation, a skip link,
 * and screenshots at 1440x900 and 390x844 written to a temporary folder.
 */
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { inProcessForSuite } from '../../support/in-process.js';
import { http } from '../../support/servers.js';
import { chromium, closeChromium, ordersStubs, screenshotDir, WAIT, watchConsole } from '../../support/dashboard-harness.js';

const test = suite('dashboard: every page');
const svc = inProcessForSuite(test, { keepImposters: true });
const locked = inProcessForSuite(test, { apiKey: 'sesame', keepImposters: true });
let port: number;

test.before(async () => {
  port = await svc.createImposter({
    name: 'orders-with-a-rather-long-name',
    recordRequests: true,
    _svc: { flowState: { backend: 'inmemory' } },
    stubs: [
      ...ordersStubs,
      {
        scenarioName: 'checkout',
        requiredScenarioState: 'Started',
        newScenarioState: 'paid',
        predicates: [{ equals: { path: '/pay', headers: { 'X-Very-Long-Header-Name-For-Wrapping': 'a-value-that-goes-on-and-on-and-on-and-on' } } }],
        responses: [{ is: { body: 'paid' } }],
      },
    ],
  });
  await http('GET', `http://127.0.0.1:${port}/health`);
  await http('POST', `http://127.0.0.1:${port}/orders/with/a/very/long/path/that/does/not/fit/on/a/phone?and=a&long=query`, {
    body: JSON.stringify({ item: 'nope-this-is-not-what-the-stub-expects', quantity: 12 }),
  });
  await svc.admin('PUT', `/admin/imposters/${port}/flow-state/${port}/cart`, { value: { items: ['book', 'pen'] } });
});
test.after(async () => {
  await closeChromium();
});

interface Shot {
  name: string;
  path: string;
  server?: 'locked';
  /** What shows the page is ready. */
  ready: string;
  /** Brings the page to the state worth a screenshot. */
  prepare?: (page: Page) => Promise<void>;
  title: RegExp;
}

const pages = (): Shot[] => [
  { name: 'imposters', path: '/imposters', ready: `tr[data-port="${port}"]`, title: /^Imposters · svc$/ },
  {
    name: 'imposter',
    path: `/imposters/${port}`,
    ready: 'li.row.miss',
    title: /^Imposter \d+ · svc$/,
    prepare: async (page) => {
      await page.locator('li.row.miss button').click();
      await page.locator('#request-detail details.candidate[open]').waitFor(WAIT);
    },
  },
  { name: 'metrics', path: '/metrics', ready: `.metrics tr[data-port="${port}"]`, title: /^Metrics · svc$/ },
  { name: 'config', path: '/config', ready: 'h1:has-text("svc test")', title: /^Config · svc$/ },
  { name: 'logs', path: '/logs', ready: 'h1:has-text("Logs")', title: /^Logs · svc$/ },
  { name: 'key', path: '/imposters', server: 'locked', ready: '#key-form', title: /^API key · svc$/ },
];

/** Elements whose right edge passes the viewport (ignoring what sits inside a scrolling box). */
function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const out: string[] = [];
    if (document.documentElement.scrollWidth > width) out.push(`document scrollWidth ${document.documentElement.scrollWidth}`);
    for (const element of document.querySelectorAll('body *')) {
      const rect = element.getBoundingClientRect();
      if (rect.width === 0 || rect.right <= width + 0.5) continue;
      let scroller = element.parentElement;
      while (scroller && !['auto', 'scroll', 'hidden'].includes(getComputedStyle(scroller).overflowX)) scroller = scroller.parentElement;
      if (scroller && scroller !== document.body && scroller.getBoundingClientRect().right <= width + 0.5) continue;
      out.push(`${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ''}.${element.className} right=${Math.round(rect.right)}`);
    }
    return out.slice(0, 10);
  });
}

for (const [label, viewport] of [
  ['1440x900', { width: 1440, height: 900 }],
  ['390x844', { width: 390, height: 844 }],
  ['360x740', { width: 360, height: 740 }],
] as const) {
  test(`every page at ${label}: no console error, nothing wider than the viewport, its own title`, async () => {
    const context = await (await chromium()).newContext({ viewport });
    try {
      for (const shot of pages()) {
        const page = await context.newPage();
        const watch = watchConsole(page);
        const server = shot.server === 'locked' ? locked : svc;
        await page.goto(`http://127.0.0.1:${server.adminPort}${shot.path}`);
        await page.locator(shot.ready).first().waitFor(WAIT);
        await shot.prepare?.(page);
        assert.match(await page.title(), shot.title, shot.name);
        if (viewport.width < 1000) assert.equal(await overflowing(page), [], `${shot.name} at ${label}`);
        if (label !== '360x740') await page.screenshot({ path: join(screenshotDir(), `${shot.name}-${label}.png`), fullPage: true });
        assert.equal(watch.take(), [], `${shot.name}: no console error or error answer`);
        await page.close();
      }
    } finally {
      await context.close();
    }
  });
}

test('navigation moves focus to the new heading; the skip link jumps to the content', async () => {
  const context = await (await chromium()).newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(`http://127.0.0.1:${svc.adminPort}/imposters`);
  await page.locator(`tr[data-port="${port}"]`).waitFor(WAIT);
  await page.keyboard.press('Tab');
  assert.is(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content');
  await page.keyboard.press('Enter');
  assert.is(await page.evaluate(() => document.activeElement?.id), 'main');
  await page.locator('nav a:text("Metrics")').click();
  await page.waitForFunction(() => document.activeElement?.tagName === 'H1');
  assert.match(await page.evaluate(() => document.activeElement?.textContent ?? ''), /^Metrics/);
  await page.locator(`nav a:text("Imposters")`).click();
  await page.locator(`a[href="/imposters/${port}"]`).click();
  await page.waitForFunction(() => document.activeElement?.tagName === 'H1' && document.activeElement.textContent?.startsWith('Imposter '));
  const time = page.locator('li.row time').first();
  assert.match((await time.getAttribute('title')) ?? '', /^\d{4}-\d\d-\d\dT.*Z \(UTC\)$/, 'UTC on hover');
  await context.close();
});

test.run();
