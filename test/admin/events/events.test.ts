import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { EventHub } from '../../../admin/index.js';
import { inProcessForSuite, startInProcess, call, type InProcessSvc } from '../../support/in-process.js';
import { freePort } from '../../support/servers.js';
import { eventJson, SseClient, type SseEvent } from '../../support/sse-client.js';

const LIMITS = { maxQueuedEvents: 64, maxQueuedBytes: 64 * 1024 };
const test = suite('event stream (docs/metrics-and-events.md)');
let hub: EventHub;
let svc: InProcessSvc;
let port: number;
const clients: SseClient[] = [];

async function open(path: string, headers: Record<string, string> = {}): Promise<SseClient> {
  const client = await SseClient.open(`http://127.0.0.1:${svc.adminPort}${path}`, headers);
  clients.push(client);
  return client;
}

async function hello(client: SseClient): Promise<any> {
  const first = await client.next();
  assert.is(first.event, 'hello', 'hello comes first');
  assert.is(first.hasId, false);
  return eventJson(first);
}

const isRequest = (e: SseEvent) => e.event === 'request';
const isImposter = (e: SseEvent) => e.event === 'imposter';

async function createImposter(extra: Record<string, unknown> = {}): Promise<void> {
  const res = await svc.admin('POST', '/imposters', {
    port,
    protocol: 'http',
    recordRequests: true,
    stubs: [{ responses: [{ is: { statusCode: 200, body: 'ok' } }] }],
    ...extra,
  });
  assert.is(res.status, 201, res.body);
}

test.before(async () => {
  hub = new EventHub({ engineVersion: 'test-engine', pingIntervalMs: 50, limits: LIMITS });
  svc = await startInProcess({ events: hub });
});
test.after(async () => {
  await svc.stop();
  hub.close();
});
test.before.each(async () => {
  port = await freePort();
});
test.after.each(async () => {
  for (const client of clients.splice(0)) client.close();
  await svc.admin('DELETE', '/imposters');
});

test('hello first, then lifecycle and request events in order with one monotonic id sequence', async () => {
  const client = await open('/events');
  assert.is(client.status, 200);
  assert.match(String(client.headers['content-type']), /^text\/event-stream/);
  const greeting = await hello(client);
  assert.equal(greeting, { engineVersion: 'test-engine', seq: greeting.seq, types: ['requests', 'lifecycle'], port: null });
  await createImposter();
  await call(port, 'GET', '/one?x=1');
  await call(port, 'POST', '/two', { body: 'payload' });
  await svc.admin('PUT', `/imposters/${port}/stubs`, { stubs: [{ responses: [{ is: { statusCode: 204 } }] }] });
  await svc.admin('PUT', '/imposters', { imposters: [{ port, protocol: 'http', recordRequests: true, name: 'renamed' }] });
  await svc.admin('DELETE', `/imposters/${port}`);
  await svc.admin('DELETE', '/imposters');
  const seen: SseEvent[] = [];
  for (let i = 0; i < 7; i += 1) seen.push(await client.next((e) => isRequest(e) || isImposter(e)));
  assert.equal(
    seen.map((e) => [e.event, eventJson(e).action ?? eventJson(e).request.path]),
    [
      ['imposter', 'created'],
      ['request', '/one'],
      ['request', '/two'],
      ['imposter', 'stubsChanged'],
      ['imposter', 'replaced'],
      ['imposter', 'deleted'],
      ['imposter', 'allDeleted'],
    ],
  );
  const ids = seen.map((e) => Number(e.lastEventId));
  assert.ok(
    seen.every((e) => e.hasId),
    'request and imposter events carry id:',
  );
  assert.is(ids[0], greeting.seq + 1, 'the first id follows the hello seq');
  ids.forEach((id, i) => {
    if (i > 0) assert.is(id, ids[i - 1]! + 1, 'consecutive ids');
  });
  const [one, two] = [eventJson(seen[1]!), eventJson(seen[2]!)];
  assert.equal([one.port, one.flowId, one.index], [port, String(port), 1]);
  assert.equal(one.request.query, { x: '1' });
  assert.is(one.request.status, 200);
  assert.equal([two.index, two.request.method, two.request.body], [2, 'POST', 'payload']);
  assert.equal(eventJson(seen[6]!), { action: 'allDeleted', port: null });
});

test('types, port and AND-ed match filters', async () => {
  const other = await freePort();
  await svc.admin('POST', '/imposters', { port: other, protocol: 'http', recordRequests: true });
  await createImposter();
  const lifecycleOnly = await open('/events?types=lifecycle');
  const requestsOnly = await open(`/events?types=requests&port=${port}`);
  const matched = await open(`/events?match=method=POST&match=header:X-Tenant=a&match=path=/orders&match=flow_id=${port}`);
  for (const client of [lifecycleOnly, requestsOnly, matched]) await hello(client);
  await call(other, 'POST', '/orders', { headers: { 'X-Tenant': 'b' } });
  await call(port, 'GET', '/orders', { headers: { 'X-Tenant': 'a' } });
  await call(port, 'POST', '/orders', { headers: { 'X-Tenant': 'b' } });
  await call(port, 'POST', '/orders?q=1', { headers: { 'x-tenant': 'a' }, body: 'hit' });
  await svc.admin('DELETE', `/imposters/${other}`);
  const deleted = await lifecycleOnly.next(isImposter);
  assert.equal(eventJson(deleted), { action: 'deleted', port: other });
  assert.is(lifecycleOnly.events.filter(isRequest).length, 0, 'no request events with types=lifecycle');
  const hit = eventJson(await matched.next(isRequest));
  assert.equal([hit.port, hit.request.body, hit.index], [port, 'hit', 3]);
  const portRequests: any[] = [];
  for (let i = 0; i < 3; i += 1) portRequests.push(eventJson(await requestsOnly.next(isRequest)));
  assert.equal(
    portRequests.map((r) => r.index),
    [1, 2, 3],
    'only the filtered port',
  );
  await call(port, 'GET', '/sentinel');
  await requestsOnly.next((e) => isRequest(e) && eventJson(e).request.path === '/sentinel');
  await matched.until(() => matched.events.length >= 1);
  assert.is(matched.events.filter(isRequest).length, 1, 'every clause must hold');
  assert.is(requestsOnly.events.filter(isImposter).length, 0, 'no lifecycle events with types=requests');
});

test('savedRequests/stream is /events?types=requests&port=; bad filters are 400, unknown imposters 404', async () => {
  await createImposter();
  const stream = await open(`/imposters/${port}/savedRequests/stream?match=method=GET`);
  assert.equal(await hello(stream), { engineVersion: 'test-engine', seq: hub.stats().seq, types: ['requests'], port });
  await call(port, 'POST', '/skip');
  await call(port, 'GET', '/take');
  const event = eventJson(await stream.next());
  assert.equal([event.request.path, event.index], ['/take', 2]);
  for (const bad of ['/events?types=requests,nope', '/events?types=', '/events?port=abc', '/events?match=weird']) {
    const res = await svc.admin('GET', bad);
    assert.is(res.status, 400, bad);
    assert.is(res.json.errors[0].code, 'bad data', bad);
  }
  assert.is((await svc.admin('GET', `/imposters/${await freePort()}/savedRequests/stream`)).status, 404);
});

test('heartbeat comments arrive on the injected interval', async () => {
  const client = await open('/events');
  await hello(client);
  await client.until(() => client.comments.includes('ping'));
});

test('a closed client is dropped from the hub', async () => {
  const client = await open('/events');
  await hello(client);
  const before = hub.stats().subscribers;
  client.close();
  await new Promise<void>((resolve, reject) => {
    const started = Date.now();
    const poll = () => {
      if (hub.stats().subscribers === before - 1) resolve();
      else if (Date.now() - started > 60_000) reject(new Error('subscriber not dropped'));
      else setTimeout(poll, 10);
    };
    poll();
  });
});

test('a stalled reader gets lagged {missed}; its buffers stay bounded and imposters keep serving', async () => {
  await createImposter();
  const slow = await open(`/events?types=requests&port=${port}`);
  await hello(slow);
  slow.pause();
  const total = 1200;
  const body = 'a'.repeat(16 * 1024);
  const started = Date.now();
  let next = 0;
  const worker = async () => {
    while (next < total) {
      next += 1;
      const res = await call(port, 'POST', '/bulk', { body });
      assert.is(res.status, 200);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  const servedMs = Date.now() - started;
  const stats = hub.stats().perSubscriber;
  assert.is(stats.length, 1);
  const [subscriber] = stats;
  assert.ok(subscriber!.missedTotal > 0, 'the stalled reader fell behind');
  const frame = body.length + 2048;
  assert.ok(subscriber!.peakQueuedBytes <= LIMITS.maxQueuedBytes, `queue peaked at ${subscriber!.peakQueuedBytes}`);
  // One flush writes at most the queue plus a frame, and only while the socket is below its high-water
  // mark (64 KiB on Node 22+, 16 KiB before): the socket buffer is bounded by their sum.
  const highWaterMark = 64 * 1024;
  assert.ok(subscriber!.peakWritableBytes <= highWaterMark + LIMITS.maxQueuedBytes + frame, `socket buffer peaked at ${subscriber!.peakWritableBytes}`);
  // A request blocked by the stalled reader would never finish; the bound is wide for a loaded machine.
  assert.ok(servedMs < 60_000, `${total} requests took ${servedMs} ms with a stalled subscriber`);
  slow.resume();
  await slow.until(() => {
    const received = slow.events.filter(isRequest).length;
    const missed = slow.events.filter((e) => e.event === 'lagged').reduce((n, e) => n + eventJson(e).missed, 0);
    return received + missed === total;
  }, 60_000);
  const stream = slow.events.slice(1);
  assert.ok(stream.some((e) => e.event === 'lagged'));
  let previous: number | undefined;
  let missedSince = 0;
  for (const e of stream) {
    if (e.event === 'lagged') {
      assert.is(e.hasId, false);
      missedSince += eventJson(e).missed;
      continue;
    }
    const id = Number(e.lastEventId);
    if (previous !== undefined) assert.is(id - previous - 1, missedSince, 'the gap in id: equals what lagged reported');
    previous = id;
    missedSince = 0;
  }
});

test('reconnect and reconcile with savedRequests?since=: no replay, nothing lost, nothing twice', async () => {
  await createImposter();
  const first = await open(`/events?types=requests&port=${port}`);
  await hello(first);
  for (const path of ['/1', '/2', '/3']) await call(port, 'GET', path);
  const seenFirst: any[] = [];
  for (let i = 0; i < 3; i += 1) seenFirst.push(eventJson(await first.next(isRequest)));
  first.close();
  for (const path of ['/4', '/5', '/6', '/7']) await call(port, 'GET', path);
  const second = await open(`/events?types=requests&port=${port}`);
  await hello(second);
  const lastIndex = seenFirst.at(-1).index;
  const gap = await svc.admin('GET', `/imposters/${port}/savedRequests?since=${lastIndex}`);
  assert.equal(
    gap.json.map((r: any) => r.path),
    ['/4', '/5', '/6', '/7'],
  );
  assert.is(gap.headers['x-svc-next-index'], '7');
  await call(port, 'GET', '/8');
  const live = eventJson(await second.next(isRequest));
  assert.equal([live.index, live.request.path], [8, '/8'], 'the new stream starts at new events: no replay');
  const paths = [...seenFirst.map((e) => e.request.path), ...gap.json.map((r: any) => r.path), live.request.path];
  assert.equal(paths, ['/1', '/2', '/3', '/4', '/5', '/6', '/7', '/8']);
});

test.run();

const gated = suite('event stream behind the API key');
const keyed = inProcessForSuite(gated, { apiKey: 'secret', keepImposters: true });

gated('GET /events needs the Authorization header like every admin route', async () => {
  const denied = await SseClient.open(`http://127.0.0.1:${keyed.adminPort}/events`);
  assert.is(denied.status, 401);
  denied.close();
  const allowed = await SseClient.open(`http://127.0.0.1:${keyed.adminPort}/events`, { Authorization: 'secret' });
  try {
    assert.is(allowed.status, 200);
    assert.is((await allowed.next()).event, 'hello');
  } finally {
    allowed.close();
  }
});

gated.run();
