/**
 * Stubs edited from the imposter page go through the admin routes and change what the imposter port
 * answers: add, edit (JSON errors shown at their path), duplicate, reorder, delete; and the export.
 */
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { BrowserContext, Page } from 'playwright-core';
import { inProcessForSuite } from '../../support/in-process.js';
import { inFlight } from '../../support/in-flight.js';
import { http } from '../../support/servers.js';
import { chromium, closeChromium, WAIT, watchConsole } from '../../support/dashboard-harness.js';

const test = suite('dashboard: stub editing');
let context: BrowserContext;
const svc = inProcessForSuite(test, { keepImposters: true });
let page: Page;

test.before(async () => {
  context = await (await chromium()).newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
});
test.after(async () => {
  await context?.close();
  await closeChromium();
});

/** Opens a stub's row (a click on its summary would close one already open). */
const openStub = (index: number) =>
  page.locator(`#stub-${index}`).evaluate((node) => {
    (node as HTMLDetailsElement).open = true;
  });

const answer = async (port: number, path: string) => {
  const res = await http('GET', `http://127.0.0.1:${port}${path}`);
  return `${res.status} ${res.body}`;
};

test('a stub added, edited, duplicated, reordered and deleted from the page changes what the port answers', async () => {
  const port = await svc.createImposter({
    name: 'edit',
    stubs: [
      { id: 'a', predicates: [{ equals: { path: '/a' } }], responses: [{ is: { body: 'A' } }] },
      { id: 'any', responses: [{ is: { statusCode: 404, body: 'fallback' } }] },
    ],
  });
  page = await context.newPage();
  const watch = watchConsole(page);
  page.on('dialog', (dialog) => void dialog.accept());
  await page.goto(`http://127.0.0.1:${svc.adminPort}/imposters/${port}`);
  await page.locator('#stub-1').waitFor(WAIT);

  // Add: appended after the catch-all, so it is shadowed until moved up.
  await page.locator('#add-stub').click();
  await page.locator('#new-stub-json').fill(JSON.stringify({ id: 'new', predicates: [{ equals: { path: '/new' } }], responses: [{ is: { body: 'NEW' } }] }));
  await page.locator('button:text("Add at the end")').click();
  await page.locator('#stub-2[data-stub-id="new"]').waitFor(WAIT);
  assert.is(await answer(port, '/new'), '404 fallback');

  // Reorder: up one place, ahead of the catch-all.
  await openStub(2);
  await page.locator('#stub-2 button[aria-label="move stub 2 up"]').click();
  await page.locator('#stub-1[data-stub-id="new"]').waitFor(WAIT);
  assert.is(await answer(port, '/new'), '200 NEW');

  // Edit: a JSON mistake and a server validation error are shown at their place; a good edit applies.
  await openStub(1);
  await page.locator('#stub-1 button:text("Edit")').click();
  const editor = page.locator('#stub-json-1');
  await editor.fill('{ "responses": [ ');
  await page.locator('#stub-1 button:text("Save")').click();
  assert.match(await page.locator('#stub-1 ul.errors').innerText(), /line 1, column/);
  await editor.fill(JSON.stringify({ id: 'new', responses: [{ is: { statusCode: 'abc' } }] }));
  await page.locator('#stub-1 button:text("Save")').click();
  await page.locator('#stub-1 ul.errors:has-text("statusCode")').waitFor(WAIT);
  assert.match(await page.locator('#stub-1 ul.errors').innerText(), /\$\.responses\[0\]/);
  watch.take(); // that 400 was the point
  await editor.fill(JSON.stringify({ id: 'new', predicates: [{ equals: { path: '/new' } }], responses: [{ is: { body: 'EDITED' } }] }));
  await page.locator('#stub-1 button:text("Save")').click();
  await page.locator('#stub-1 .stub-actions button:text("Edit")').waitFor(WAIT);
  assert.is(await answer(port, '/new'), '200 EDITED');

  // Duplicate: a copy right after it, without the id.
  await page.locator('#stub-1 button:text("Duplicate")').click();
  await page.locator('#stub-3').waitFor(WAIT);
  const stubs = (await svc.admin('GET', `/imposters/${port}`)).json.stubs as Array<{ id?: string; responses: unknown[] }>;
  assert.is(stubs.length, 4);
  assert.equal(stubs[2].responses, stubs[1].responses);
  assert.is.not(stubs[2].id, 'new');

  // Delete both copies: the catch-all answers /new again.
  await openStub(2);
  await page.locator('#stub-2 button:text("Delete")').click();
  await page.locator('#stub-3').waitFor({ state: 'detached', ...WAIT });
  await openStub(1);
  await page.locator('#stub-1 button:text("Delete")').click();
  await page.locator('#stub-2').waitFor({ state: 'detached', ...WAIT });
  assert.is(await answer(port, '/new'), '404 fallback');
  assert.is(await answer(port, '/a'), '200 A');
  assert.equal(watch.take(), []);
  await page.close();
});

test('export downloads the imposter as replayable JSON that creates the same imposter', async () => {
  const port = await svc.createImposter({ name: 'exported', stubs: [{ id: 'x', responses: [{ is: { body: 'X' } }] }] });
  page = await context.newPage();
  await page.goto(`http://127.0.0.1:${svc.adminPort}/imposters/${port}`);
  // Handled now: if the click fails first, the wait's later timeout must not be an unhandled rejection.
  const download = inFlight(page.waitForEvent('download'));
  await page.locator('#export').click(WAIT);
  const file = await (await download).path();
  const exported = JSON.parse(readFileSync(file, 'utf8'));
  assert.is(exported.name, 'exported');
  assert.is(exported.stubs[0].id, 'x');
  assert.is(exported.requests, undefined, 'replayable: no recorded requests');
  await svc.admin('DELETE', `/imposters/${port}`);
  assert.is((await svc.admin('POST', '/imposters', exported)).status, 201);
  assert.is(await answer(port, '/'), '200 X');
  await page.close();
});

test.run();
