/**
 * The dashboard in a real Chromium (issue 14 "must show"): the list, the live tail, the miss
 * explanation, enable/disable/delete, the API-key gate, screenshots and the page weight.
 * Waits are playwright's auto-waiting with generous timeouts; the one timing claim (a request shows
 * within 2 s) is ~20x what it takes here.
 */
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser.js';
import { startInProcess, type InProcessSvc } from '../helpers/in-process.js';
import { freePort, http } from '../helpers/servers.js';

const WAIT = { timeout: 15_000 };
const VIEWPORT = { width: 1280, height: 800 };
const screenshots = mkdtempSync(join(tmpdir(), 'svc-dashboard-shots-'));

// One browser for the file (starting Chromium is the slow part); each suite has its own context.
let browser: Browser | undefined;
const chromium = async () => (browser ??= await launchChromium());

const test = suite('dashboard: in Chromium');
let context: BrowserContext;
let svc: InProcessSvc;
let page: Page;

test.before(async () => {
  context = await (await chromium()).newContext({ viewport: VIEWPORT });
  svc = await startInProcess();
  console.log(`dashboard screenshots: ${screenshots}`);
});
test.after(async () => {
  await context?.close();
  await svc?.stop();
});
test.before.each(async () => {
  page = await context.newPage();
  page.on('dialog', (dialog) => void dialog.accept());
});
test.after.each(async () => {
  await page.close();
  await svc.admin('DELETE', '/imposters');
});

const url = (path: string) => `http://127.0.0.1:${svc.adminPort}${path}`;

/**
 * `count` GETs to an imposter whose response keeps the connection open (svc, like mountebank, closes
 * it by default), each sent when the previous answer has ended, over a few raw sockets.
 */
function sendMany(port: number, count: number, connections = 8): Promise<void> {
  let next = 0;
  const lane = () =>
    new Promise<void>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      socket.setEncoding('latin1');
      const send = () => {
        if (next >= count) {
          socket.destroy();
          resolve();
          return;
        }
        socket.write(`GET /bulk?n=${next++} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
      };
      // Chunked answers end with the zero-size chunk.
      socket.on('data', (chunk: string) => {
        if (chunk.endsWith('0\r\n\r\n')) send();
      });
      socket.on('error', reject);
      socket.on('close', () => {
        if (next < count) reject(new Error('imposter closed the connection'));
      });
      socket.on('connect', send);
    });
  return Promise.all(Array.from({ length: connections }, lane)).then(() => undefined);
}

const ordersStubs = [
  { predicates: [{ equals: { path: '/health' } }], responses: [{ is: { body: 'up' } }] },
  { predicates: [{ equals: { method: 'POST' } }, { contains: { body: 'sku' } }], responses: [{ is: { statusCode: 201, body: 'ordered' } }] },
];

test('the imposters page lists imposters created over the API', async () => {
  const orders = await svc.createImposter({ name: 'orders', recordRequests: true, stubs: ordersStubs });
  const users = await svc.createImposter({ name: 'users' });
  await page.goto(url('/imposters'));
  const row = page.locator(`tr[data-port="${orders}"]`);
  await row.waitFor(WAIT);
  assert.match(await row.innerText(), /orders/);
  assert.match(await page.locator(`tr[data-port="${users}"]`).innerText(), /users/);
  await page.screenshot({ path: join(screenshots, 'imposters.png') });
});

test('a request sent to an imposter appears on its page within 2 s, without reloading', async () => {
  const port = await svc.createImposter({ name: 'orders', recordRequests: true, stubs: ordersStubs });
  await page.goto(url(`/imposters/${port}`));
  await page.locator('#tail-status:text("live")').waitFor(WAIT);
  const sentAt = Date.now();
  await http('GET', `http://127.0.0.1:${port}/health`);
  await page.locator('li.request:has-text("/health")').waitFor({ timeout: 2000 });
  const shownAfterMs = Date.now() - sentAt;
  assert.ok(shownAfterMs < 2000, `shown after ${shownAfterMs} ms`);
  assert.match(await page.locator('li.request').first().innerText(), /matched stub 0/);
});

test('a request that matched nothing shows which predicate of which stub failed', async () => {
  const port = await svc.createImposter({ name: 'orders', recordRequests: true, stubs: ordersStubs });
  await http('POST', `http://127.0.0.1:${port}/orders`, { body: 'nothing to see' });
  await page.goto(url(`/imposters/${port}`));
  const miss = page.locator('li.request.miss');
  await miss.waitFor(WAIT);
  const text = await miss.innerText();
  assert.match(text, /matched no stub/);
  assert.match(text, /stub 1: predicate 1 failed: contains body/);
  assert.match(text, /stub 0: predicate 0 failed: equals path/);
  await page.screenshot({ path: join(screenshots, 'imposter.png') });
});

test('disable and delete from the page take effect on the imposter port', async () => {
  const port = await svc.createImposter({ name: 'orders', stubs: ordersStubs });
  assert.is((await http('GET', `http://127.0.0.1:${port}/health`)).body, 'up');
  await page.goto(url('/imposters'));
  const row = page.locator(`tr[data-port="${port}"]`);
  await row.locator('button:text("Disable")').click(WAIT);
  await row.locator('button:text("Enable")').waitFor(WAIT);
  assert.not.equal((await http('GET', `http://127.0.0.1:${port}/health`)).body, 'up');
  await row.locator('button:text("Delete")').click(WAIT);
  await row.waitFor({ state: 'detached', ...WAIT });
  const refused = await http('GET', `http://127.0.0.1:${port}/health`, { timeoutMs: 5000 }).then(
    () => undefined,
    (err: NodeJS.ErrnoException) => err.code,
  );
  assert.is(refused, 'ECONNREFUSED');
});

test("create from pasted JSON shows the server's errors next to the field path", async () => {
  await page.goto(url('/imposters'));
  await page.locator('summary:text("Create an imposter")').click(WAIT);
  await page.locator('#create-json').fill(JSON.stringify({ protocol: 'http', stubs: [{ responses: [{ is: { statusCode: 'abc' } }] }] }));
  await page.locator('button:text("Create")').click(WAIT);
  const error = page.locator('ul.errors li');
  await error.waitFor(WAIT);
  const text = await error.innerText();
  assert.match(text, /stubs\[0\]\.responses\[0\]/);
  assert.match(text, /statusCode/);
});

test('the test-request form shows the debug report', async () => {
  const port = await svc.createImposter({ name: 'orders', recordRequests: true, stubs: ordersStubs });
  await page.goto(url(`/imposters/${port}`));
  await page.locator('#debug-path').fill('/health', WAIT);
  await page.locator('form.debug button:text("Send")').click(WAIT);
  const report = page.locator('.report.match');
  await report.waitFor(WAIT);
  assert.match(await report.innerText(), /matched stub 0 [-0-9a-f]+: is 200/);
});

test('the live tail reconnects and fetches what it missed with since=, without duplicates', async () => {
  const port = await svc.createImposter({ name: 'orders', recordRequests: true, stubs: ordersStubs });
  await http('GET', `http://127.0.0.1:${port}/health?n=1`);
  await page.goto(url(`/imposters/${port}`));
  await page.locator('#tail-status:text("live")').waitFor(WAIT);
  const sinceCalls: string[] = [];
  page.on('request', (request) => {
    if (request.url().includes('/savedRequests?since=')) sinceCalls.push(new URL(request.url()).searchParams.get('since') ?? '');
  });
  // Drops the event stream (and every other admin connection); the request lands while it is down.
  svc.server.closeAllConnections();
  await http('GET', `http://127.0.0.1:${port}/health?n=2`);
  await page.locator('li.request:has-text("n=2")').waitFor(WAIT);
  await page.locator('#tail-status:text("live")').waitFor(WAIT);
  await http('GET', `http://127.0.0.1:${port}/health?n=3`);
  await page.locator('li.request:has-text("n=3")').waitFor(WAIT);
  assert.is(await page.locator('li.request').count(), 3);
  assert.is(await page.locator('#request-count').innerText(), '3');
  assert.ok(sinceCalls.includes('1'), `reconciled with since=1 (calls: ${sinceCalls.join(', ')})`);
});

test('scenarios, spaces and flow state of an imposter', async () => {
  const port = await svc.createImposter({
    name: 'flows',
    recordRequests: true,
    _svc: { flowState: { backend: 'inmemory' } },
    stubs: [
      {
        scenarioName: 'checkout',
        requiredScenarioState: 'Started',
        newScenarioState: 'paid',
        predicates: [{ equals: { path: '/pay' } }],
        responses: [{ is: { body: 'paid' }, _svc: { stateOps: [{ op: 'increment', key: 'payments' }] } }],
      },
    ],
  });
  const space = await svc.admin('POST', `/imposters/${port}/spaces/tenant-a/stubs`, { responses: [{ is: { body: 'a' } }] });
  assert.is(space.status, 201, space.body);
  await http('GET', `http://127.0.0.1:${port}/pay`);
  await page.goto(url(`/imposters/${port}`));
  const scenario = page.locator('.panel:has(h2:text("Scenarios")) tbody tr');
  await scenario.waitFor(WAIT);
  assert.match(await scenario.innerText(), /checkout\s+paid/);
  await page.locator('button.chip:text("tenant-a")').click(WAIT);
  await page.locator('.panel:has(h2:text("Spaces")) p:has-text("1 stubs")').waitFor(WAIT);
  const flowPanel = page.locator('.panel:has(h2:text("Flow state"))');
  await flowPanel.locator('tbody tr:has-text("payments")').waitFor(WAIT);
  assert.match(
    await flowPanel.locator('tbody tr:has-text("payments")').innerText(),
    /^\s*payments\s+1\s*$/,
    "the key a stub's stateOps set, listed without being named",
  );
  assert.match(
    await flowPanel.locator('tbody tr:has-text("__scenario:checkout")').innerText(),
    /__scenario:checkout\s+"paid"/,
    'scenario state is a reserved key of the flow',
  );
  assert.is(await flowPanel.locator('tbody tr').count(), 2);
  const put = await svc.admin('PUT', `/admin/imposters/${port}/flow-state/${port}/cart`, { value: { items: ['book'] } });
  assert.is(put.status, 200, put.body);
  await flowPanel.locator('button:text("Refresh")').click(WAIT);
  await flowPanel.locator('tbody tr:has-text("cart")').waitFor(WAIT);
  assert.is(await flowPanel.locator('tbody tr').count(), 3);
  assert.match(await flowPanel.locator('tbody tr:has-text("cart")').innerText(), /cart\s+\{"items":\["book"\]\}/);
  await svc.admin('PUT', `/admin/imposters/${port}/flow-state/tenant-b/note`, { value: 'hello' });
  await page.locator('#flow-state-flow').fill('tenant-b');
  await page.locator('#flow-state-flow').press('Enter');
  await flowPanel.locator('tbody tr:has-text("note")').waitFor(WAIT);
  assert.match(await flowPanel.locator('tbody').innerText(), /^\s*note\s+"hello"\s*$/, 'only the keys of the flow id entered');
  await page.locator('#flow-state-flow').fill('empty-flow');
  await page.locator('#flow-state-flow').press('Enter');
  await flowPanel.locator('p:has-text("No keys in flow")').waitFor(WAIT);
});

test('the config and logs pages show /config and recent log lines', async () => {
  await page.goto(url('/config'));
  await page.locator('h1:has-text("svc test")').waitFor(WAIT);
  assert.match(await page.locator('main').innerText(), /allowInjection/);
  await page.locator('nav a:text("Logs")').click(WAIT);
  await page.locator('h1:has-text("Logs")').waitFor(WAIT);
  assert.is(new URL(page.url()).pathname, '/logs');
});

test('stays fast with 100 imposters and 10,000 recorded requests', async () => {
  const bulk = [];
  for (let i = 0; i < 99; i += 1) bulk.push({ port: await freePort(), protocol: 'http', name: `bulk-${i}` });
  assert.is((await svc.admin('PUT', '/imposters', { imposters: bulk })).status, 200);
  const busy = await svc.createImposter({
    name: 'busy',
    recordRequests: true,
    stubs: [{ predicates: [{ equals: { path: '/bulk' } }], responses: [{ is: { headers: { Connection: 'keep-alive' }, body: 'up' } }] }, ...ordersStubs],
  });
  await sendMany(busy, 10_000);
  let started = Date.now();
  await page.goto(url('/imposters'));
  await page.locator(`tr[data-port="${busy}"]`).waitFor(WAIT);
  const listMs = Date.now() - started;
  assert.is(await page.locator('tbody tr').count(), 100);
  started = Date.now();
  await page.goto(url(`/imposters/${busy}`));
  await page.locator('#request-count:text("10000")').waitFor(WAIT);
  await page.locator('li.request').first().waitFor(WAIT);
  const detailMs = Date.now() - started;
  assert.is(await page.locator('li.request').count(), 100, 'renders the newest 100, more on demand');
  await http('GET', `http://127.0.0.1:${busy}/health?last=1`);
  await page.locator('li.request:has-text("last=1")').waitFor(WAIT);
  console.log(`dashboard with 100 imposters: list ${listMs} ms; imposter with 10,000 requests: ${detailMs} ms`);
});

test('the page weighs under 200 KB uncompressed', async () => {
  const port = await svc.createImposter({ name: 'orders', recordRequests: true, stubs: ordersStubs });
  const bodies: Array<Promise<number>> = [];
  page.on('response', (response) => {
    if (response.url().includes('/_dashboard/assets/') || response.request().resourceType() === 'document') {
      bodies.push(response.body().then((body) => body.length));
    }
  });
  await page.goto(url(`/imposters/${port}`));
  await page.locator('#tail-status:text("live")').waitFor(WAIT);
  const bytes = (await Promise.all(bodies)).reduce((sum, length) => sum + length, 0);
  console.log(`dashboard page weight: ${bytes} bytes`);
  assert.ok(bytes > 10_000, `counted ${bytes} bytes`);
  assert.ok(bytes < 200 * 1024, `${bytes} bytes`);
});

test.run();

const keyed = suite('dashboard: with --api-key');
let keyContext: BrowserContext;
let locked: InProcessSvc;

keyed.before(async () => {
  keyContext = await (await chromium()).newContext({ viewport: VIEWPORT });
  locked = await startInProcess({ apiKey: 'sesame' });
});
keyed.after(async () => {
  await keyContext?.close();
  await locked?.stop();
  await browser?.close();
});

keyed('only the key form shows until the key is given; then every call carries it', async () => {
  const port = await freePort();
  const created = await locked.admin('POST', '/imposters', { port, protocol: 'http', name: 'secret' }, { Authorization: 'sesame' });
  assert.is(created.status, 201);
  const keyPage = await keyContext.newPage();
  try {
    await keyPage.goto(`http://127.0.0.1:${locked.adminPort}/imposters`);
    await keyPage.locator('#key-form').waitFor(WAIT);
    assert.is(await keyPage.locator('nav').count(), 0);
    assert.is(await keyPage.locator('table').count(), 0);
    await keyPage.locator('#api-key').fill('wrong');
    await keyPage.locator('#key-form button').click();
    await keyPage.locator('#key-form .error').waitFor(WAIT);
    assert.is(await keyPage.locator('table').count(), 0);
    await keyPage.locator('#api-key').fill('sesame');
    await keyPage.locator('#key-form button').click();
    await keyPage.locator(`tr[data-port="${port}"]`).waitFor(WAIT);
    await keyPage.locator(`a[href="/imposters/${port}"]`).click();
    await keyPage.locator('#tail-status:text("live")').waitFor(WAIT);
  } finally {
    await keyPage.close();
  }
});

keyed.run();
