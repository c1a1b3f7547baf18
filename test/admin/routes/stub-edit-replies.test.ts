/**
 * Issue 19 item 1, through the admin API: a stub edit is applied from what it kept (the stubs around
 * the edited place, their compiled matcher, their analysis and their reply text), and the result must
 * be what the same stubs give when built at once. After every edit of a sequence that crosses the
 * index digit boundaries (9/10, 99/100, where each later stub's `_links` text changes length), the
 * reply is the detail GET answers, written as JSON.stringify writes it, and a fresh imposter made
 * from the replayable form lists the same stubs, warns the same and answers every request the same.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { call, inProcessForSuite } from '../../support/in-process.js';
import { freePort } from '../../support/servers.js';

const test = suite('admin: stub edit replies');
const svc = inProcessForSuite(test, { adminTimeoutMs: 120_000 });

/** Stub `n`: paths repeat every 7 stubs and some stubs are prefixes of others, so later ones are shadowed (warnings). */
function stubOf(n: number, tag = ''): Record<string, unknown> {
  const path = `/p/${n % 7}`;
  const predicate = n % 5 === 0 ? { startsWith: { path } } : { equals: { path: `${path}/${n % 3}` } };
  return { predicates: [predicate], responses: [{ is: { body: `stub ${n}${tag}` } }] };
}

const PATHS = Array.from({ length: 7 }, (_, p) => [`/p/${p}`, `/p/${p}/0`, `/p/${p}/1`, `/p/${p}/2`]).flat();

type Detail = { stubs: Array<Record<string, unknown>>; _svc: { warnings: unknown[] } };

/** The parsed detail with its port taken out of every link, so two imposters' details compare. */
function portless(text: string, port: number): Detail {
  return JSON.parse(text.replaceAll(`/imposters/${port}`, '/imposters/PORT')) as Detail;
}

/** Checks the imposter on `port` against one built at once from its replayable form. */
async function expectAsBuiltAtOnce(port: number, reply: { status: number; body: string }, step: string): Promise<void> {
  assert.is(reply.status, 200, `${step}: ${reply.body}`);
  assert.is(reply.body, JSON.stringify(JSON.parse(reply.body), null, 2), `${step}: JSON.stringify's layout`);
  const detail = await svc.admin('GET', `/imposters/${port}`);
  assert.is(reply.body, detail.body, `${step}: the reply is the detail`);
  const replayable = await svc.admin('GET', `/imposters/${port}?replayable=true`);
  const freshPort = await freePort();
  const created = await svc.admin('POST', '/imposters', { ...replayable.json, port: freshPort });
  assert.is(created.status, 201, `${step}: ${created.body}`);
  try {
    const fresh = await svc.admin('GET', `/imposters/${freshPort}`);
    const edited = portless(detail.body, port);
    const built = portless(fresh.body, freshPort);
    assert.equal(edited.stubs, built.stubs, `${step}: stubs and links`);
    assert.equal(edited._svc.warnings, built._svc.warnings, `${step}: warnings`);
    const freshReplayable = await svc.admin('GET', `/imposters/${freshPort}?replayable=true`);
    assert.is(replayable.body.replace(`"port": ${port}`, ''), freshReplayable.body.replace(`"port": ${freshPort}`, ''), `${step}: replayable`);
    for (const path of PATHS) {
      const [mine, theirs] = await Promise.all([call(port, 'GET', path), call(freshPort, 'GET', path)]);
      assert.is(`${mine.status} ${mine.body}`, `${theirs.status} ${theirs.body}`, `${step}: GET ${path}`);
    }
  } finally {
    await svc.admin('DELETE', `/imposters/${freshPort}`);
  }
}

test('adds, replacements and deletes across the 10 and 100 index boundaries reply as the stubs built at once', async () => {
  const port = await freePort();
  const created = await svc.admin('POST', '/imposters', { port, protocol: 'http', stubs: Array.from({ length: 99 }, (_, n) => stubOf(n)) });
  assert.is(created.status, 201, created.body);
  const at = `/imposters/${port}/stubs`;
  const edits: Array<[string, string, unknown]> = [
    ['POST', at, { stub: stubOf(99) }],
    ['POST', at, { stub: stubOf(100) }],
    ['POST', at, { index: 0, stub: stubOf(101) }],
    ['DELETE', `${at}/0`, undefined],
    ['DELETE', `${at}/9`, undefined],
    ['POST', at, { index: 9, stub: stubOf(102) }],
    ['PUT', `${at}/10`, stubOf(103)],
    ['DELETE', `${at}/99`, undefined],
    ['POST', at, { index: 99, stub: stubOf(104) }],
    ['PUT', `${at}/0`, stubOf(0, ' again')],
    ['DELETE', `${at}/100`, undefined],
    ['PUT', `${at}/99`, stubOf(105)],
    ['DELETE', `${at}/50`, undefined],
    ['POST', at, { index: 50, stub: stubOf(50, ' again') }],
  ];
  for (const [method, url, body] of edits) await expectAsBuiltAtOnce(port, await svc.admin(method, url, body), `${method} ${url}`);
});

test('a stub replaced by an identical one, and edits by id, reply as the stubs built at once', async () => {
  const port = await freePort();
  const stubs = Array.from({ length: 12 }, (_, n) => ({ id: `s${n}`, ...stubOf(n) }));
  assert.is((await svc.admin('POST', '/imposters', { port, protocol: 'http', stubs })).status, 201);
  const at = `/imposters/${port}/stubs`;
  await expectAsBuiltAtOnce(port, await svc.admin('PUT', `${at}/3`, stubs[3]), 'PUT the same stub');
  await expectAsBuiltAtOnce(port, await svc.admin('PUT', `${at}/by-id/s10`, stubOf(10, ' by id')), 'PUT by id');
  await expectAsBuiltAtOnce(port, await svc.admin('DELETE', `${at}/by-id/s0`), 'DELETE by id');
  await expectAsBuiltAtOnce(port, await svc.admin('DELETE', `${at}/10`), 'DELETE the last');
  await expectAsBuiltAtOnce(port, await svc.admin('POST', at, { stub: { id: 's0', ...stubOf(0) } }), 'POST back');
});

test('recorded proxy responses show in the reply of the next edits, in every form', async () => {
  const backend = await svc.createImposter({ stubs: [{ responses: [{ is: { body: 'from backend' } }] }] });
  const port = await freePort();
  const proxy = { proxy: { to: `http://127.0.0.1:${backend}`, mode: 'proxyAlways', predicateGenerators: [{ matches: { path: true } }] } };
  const stubs = [...Array.from({ length: 11 }, (_, n) => stubOf(n)), { responses: [proxy] }];
  assert.is((await svc.admin('POST', '/imposters', { port, protocol: 'http', stubs })).status, 201);
  const at = `/imposters/${port}/stubs`;
  const counts = async () => ((await svc.admin('GET', `/imposters/${port}`)).json.stubs as Array<{ responses: unknown[] }>).map((s) => s.responses.length);
  for (let i = 0; i < 2; i++) assert.is((await call(port, 'GET', '/recorded')).body, 'from backend');
  // The recording is a new stub after the proxy one, holding both responses.
  assert.equal((await counts()).slice(-2), [1, 2]);
  const edits: Array<[string, string, unknown]> = [
    ['DELETE', `${at}/0`, undefined],
    ['POST', at, { index: 0, stub: stubOf(20) }],
    ['PUT', `${at}/1`, stubOf(21)],
  ];
  let recorded = 2;
  for (const [method, url, body] of edits) {
    // Another recorded response before each edit: the recorded stub's kept text must not be reused.
    assert.is((await call(port, 'GET', '/recorded')).body, 'from backend');
    recorded += 1;
    const reply = await svc.admin(method, url, body);
    assert.is(reply.status, 200, reply.body);
    const detail = await svc.admin('GET', `/imposters/${port}`);
    assert.is(reply.body, detail.body, `${method} ${url}`);
    assert.is(reply.body, JSON.stringify(JSON.parse(reply.body), null, 2));
    assert.equal((await counts()).slice(-2), [1, recorded], `${method} ${url}: recorded responses`);
    for (const query of ['replayable=true', 'removeProxies=true', 'replayable=true&removeProxies=true']) {
      const form = await svc.admin('GET', `/imposters/${port}?${query}`);
      assert.is(form.body, JSON.stringify(JSON.parse(form.body), null, 2), query);
      const formStubs = form.json.stubs as Array<{ responses: Array<Record<string, unknown>> }>;
      assert.is(formStubs.at(-1)!.responses.length, recorded, `${method} ${url}: ${query}`);
      const proxies = formStubs.filter((s) => s.responses.some((r) => 'proxy' in r)).length;
      assert.is(proxies, query.includes('removeProxies') ? 0 : 1, `${method} ${url}: ${query}`);
    }
  }
});

test.run();
