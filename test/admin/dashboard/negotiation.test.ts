/**
 * The admin port answers browsers with the dashboard and every other client exactly as before
 * (issue 14 scope 1 and 4): HTML only when `Accept` ranks text/html above application/json.
 */
import { readdirSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { prefersHtml } from '../../../admin/dashboard/index.js';
import { inProcessForSuite } from '../../support/in-process.js';
import { freePort, http, startSvc, type RunningServer } from '../../support/servers.js';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
const PAGES = ['/', '/imposters', '/imposters/4545', '/config', '/logs'];

const unit = suite('dashboard: Accept negotiation');

unit('a browser navigation prefers HTML; curl, mountebank clients and ties keep JSON', () => {
  assert.ok(prefersHtml(BROWSER_ACCEPT));
  assert.ok(prefersHtml('text/html'));
  assert.ok(prefersHtml('application/json;q=0.5, text/html'));
  assert.not.ok(prefersHtml(undefined));
  assert.not.ok(prefersHtml(''));
  assert.not.ok(prefersHtml('*/*'));
  assert.not.ok(prefersHtml('application/json'));
  assert.not.ok(prefersHtml('application/json, text/plain, */*'));
  assert.not.ok(prefersHtml('text/html, application/json'));
  assert.ok(prefersHtml('text/*'));
  assert.not.ok(prefersHtml('text/html;q=0, */*'));
  assert.not.ok(prefersHtml('text/html;q=0.5, application/*'));
});

unit.run();

const plane = suite('dashboard: admin routes under negotiation');
const svc = inProcessForSuite(plane, { keepImposters: true });

const get = (path: string, headers: Record<string, string> = {}) => http('GET', `http://127.0.0.1:${svc.adminPort}${path}`, { headers });

plane('every page route answers the dashboard to a browser, with Vary: Accept', async () => {
  for (const path of PAGES) {
    const res = await get(path, { Accept: BROWSER_ACCEPT });
    assert.is(res.status, 200, path);
    assert.match(String(res.headers['content-type']), /^text\/html/, path);
    assert.is(res.headers.vary, 'Accept', path);
    assert.match(res.body, /<script type="importmap">/, path);
  }
});

plane('*/*, application/json and no Accept get the same JSON as before', async () => {
  const port = await svc.createImposter({ name: 'json' });
  for (const accept of [undefined, '*/*', 'application/json']) {
    const headers: Record<string, string> = accept ? { Accept: accept } : {};
    const root = await get('/', headers);
    assert.is(root.status, 200);
    assert.match(String(root.headers['content-type']), /^application\/json/);
    assert.is(root.headers.vary, 'Accept');
    assert.equal(Object.keys(JSON.parse(root.body)._links), ['imposters', 'config', 'logs']);
    const list = JSON.parse((await get('/imposters', headers)).body);
    assert.is(list.imposters[0].port, port);
    const one = await get(`/imposters/${port}`, headers);
    assert.is(JSON.parse(one.body).name, 'json');
    assert.ok('version' in JSON.parse((await get('/config', headers)).body));
    assert.ok(Array.isArray(JSON.parse((await get('/logs', headers)).body).logs));
  }
  await svc.admin('DELETE', '/imposters');
});

plane('routes that are not pages, and other methods, stay JSON for a browser', async () => {
  const health = await get('/health', { Accept: BROWSER_ACCEPT });
  assert.equal(JSON.parse(health.body), { status: 'ok' });
  const missing = await get('/imposters/4545/stubs', { Accept: BROWSER_ACCEPT });
  assert.is(missing.status, 404);
  assert.match(String(missing.headers['content-type']), /^application\/json/);
  const created = await http('POST', `http://127.0.0.1:${svc.adminPort}/imposters`, {
    headers: { Accept: BROWSER_ACCEPT, 'Content-Type': 'application/json' },
    body: JSON.stringify({ port: await freePort(), protocol: 'http' }),
  });
  assert.is(created.status, 201);
  assert.match(String(created.headers['content-type']), /^application\/json/);
  await svc.admin('DELETE', '/imposters');
});

plane('the page files come from the package: app modules, preact, hooks and htm', async () => {
  for (const name of ['app.js', 'style.css', 'vendor/preact.mjs', 'vendor/hooks.mjs', 'vendor/htm.mjs']) {
    const res = await get(`/_dashboard/assets/${name}`);
    assert.is(res.status, 200, name);
    assert.ok(res.bodyBytes.length > 0, name);
    assert.match(String(res.headers['content-type']), name.endsWith('.css') ? /^text\/css/ : /^text\/javascript/, name);
  }
  const page = await get('/', { Accept: BROWSER_ACCEPT });
  const modules = readdirSync(new URL('../../../admin/dashboard/static/', import.meta.url)).filter((name) => name.endsWith('.js'));
  for (const name of modules) assert.match(page.body, `<link rel="modulepreload" href="/_dashboard/assets/${name}">`, `${name} is preloaded`);
  const unknown = await get('/_dashboard/assets/nope.js');
  assert.is(unknown.status, 404);
  assert.is(JSON.parse(unknown.body).errors[0].type, 'not_found');
});

plane('the dashboard reads are admin routes: the summary list carries warning counts', async () => {
  const port = await svc.createImposter({ recordRequests: true, stubs: [{ responses: [{ is: {} }] }, { responses: [{ is: {} }] }] });
  const list = await svc.admin('GET', '/_dashboard/api/imposters');
  assert.is(list.status, 200);
  assert.is(list.json.imposters[0].port, port);
  assert.ok(list.json.imposters[0].warningCount > 0);
  const one = await svc.admin('GET', `/_dashboard/api/imposters/${port}`);
  assert.is(one.json.stubCount, 2);
  assert.not.ok('requests' in one.json);
  await svc.admin('DELETE', '/imposters');
});

plane.run();

const keyed = suite('dashboard: with an API key');
const locked = inProcessForSuite(keyed, { apiKey: 'sesame', keepImposters: true });

keyed('the page and its files need no key; every API read still does', async () => {
  const page = await http('GET', `http://127.0.0.1:${locked.adminPort}/imposters`, { headers: { Accept: BROWSER_ACCEPT } });
  assert.is(page.status, 200);
  assert.not.match(page.body, /sesame/);
  assert.is((await http('GET', `http://127.0.0.1:${locked.adminPort}/_dashboard/assets/app.js`)).status, 200);
  assert.is((await locked.admin('GET', '/imposters')).status, 401);
  assert.is((await locked.admin('GET', '/_dashboard/api/imposters')).status, 401);
  assert.is((await locked.admin('GET', '/_dashboard/api/imposters', undefined, { Authorization: 'sesame' })).status, 200);
});

keyed.run();

const binary = suite('dashboard: served by the svc binary');
let running: RunningServer;

binary.before(async () => {
  running = await startSvc({ args: ['--metrics-port', String(await freePort())] });
});
binary.after(async () => {
  await running.stop();
});

binary('the started server answers a browser with the page and its files', async () => {
  const page = await http('GET', `http://127.0.0.1:${running.adminPort}/`, { headers: { Accept: BROWSER_ACCEPT } });
  assert.match(String(page.headers['content-type']), /^text\/html/);
  const preact = await http('GET', `http://127.0.0.1:${running.adminPort}/_dashboard/assets/vendor/preact.mjs`);
  assert.is(preact.status, 200);
});

binary.run();
