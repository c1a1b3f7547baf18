/**
 * Issue 18: engine threads run the same request pipeline as the main thread. Each kind of imposter
 * below is answered while the main thread is blocked on purpose (a child process is the client and
 * this thread, svc's main thread, waits for it synchronously): only an engine thread can accept and
 * answer then. What they record reaches the journal through main, in arrival order.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort, http } from '../../support/servers.js';
import { startRedis } from '../../support/redis-server.js';
import { eventJson, SseClient } from '../../support/sse-client.js';
import {
  askWhileMainBlocked,
  countedBurstsOnBothThreads,
  scenarioBurstsOnBothThreads,
  startPerCore,
  text,
  type PerCoreServer,
} from '../../support/per-core.js';

const test = suite<{ svc: PerCoreServer; mock: PerCoreServer; dir: string }>('runtime per-core: one pipeline on engine threads');

test.before(async (context) => {
  context.svc = await startPerCore();
  context.mock = await startPerCore(['--mock']);
  context.dir = mkdtempSync(join(tmpdir(), 'svc-thread-pipeline-'));
});

test.after(async (context) => {
  await context.svc.server.shutdown();
  await context.mock.server.shutdown();
  rmSync(context.dir, { recursive: true, force: true });
});

async function imposter(svc: PerCoreServer, config: Record<string, unknown>): Promise<number> {
  const port = await freePort();
  const res = await svc.admin('POST', '/imposters', { port, protocol: 'http', ...config });
  assert.is(res.status, 201, JSON.stringify(res.json));
  return port;
}

async function saved(svc: PerCoreServer, port: number): Promise<Array<Record<string, unknown>>> {
  return (await svc.admin('GET', `/imposters/${port}/savedRequests`)).json as Array<Record<string, unknown>>;
}

const CYCLE = [{ is: { body: 'A' } }, { is: { body: 'B', statusCode: 201 } }, { is: { body: 'C' } }];

test('recordRequests: answered by the engine thread; records in arrival order, stamped, counted', async ({ svc }) => {
  const port = await imposter(svc, {
    recordRequests: true,
    stubs: [{ id: 'paths', predicates: [{ startsWith: { path: '/r' } }], responses: CYCLE }],
  });
  const events = await SseClient.open(`http://127.0.0.1:${svc.server.adminAddr().port}/events?types=requests&port=${port}`);
  const answers = askWhileMainBlocked(port, Array.from({ length: 6 }, (_, i) => ({ path: `/r${i}` })).concat([{ path: '/none' }]));
  assert.equal(answers.map(text), ['A', 'B', 'C', 'A', 'B', 'C', '']);
  const records = await saved(svc, port);
  assert.equal(
    records.map((r) => r.path),
    ['/r0', '/r1', '/r2', '/r3', '/r4', '/r5', '/none'],
  );
  assert.equal(
    records.map((r) => r.status),
    [200, 201, 200, 200, 201, 200, 200],
  );
  assert.equal(records[0].matchOutcome, { matched: true, stubIndex: 0, stubId: 'paths' });
  assert.equal((records[6].matchOutcome as { matched: boolean }).matched, false);
  for (const r of records) assert.type(r.latencyMs, 'number');
  assert.is((await svc.admin('GET', `/imposters/${port}`)).json.numberOfRequests, 7);
  const page = await svc.admin('GET', `/imposters/${port}/savedRequests?since=5`);
  assert.is(page.headers['x-svc-next-index'], '7');
  assert.is((page.json as unknown[]).length, 2);
  // The event stream hears of each record from the main thread, with its journal index.
  const heard: Array<[number, string, number]> = [];
  for (let i = 0; i < 7; i += 1) {
    const event = eventJson(await events.next((e) => e.event === 'request', 10_000));
    heard.push([event.index, event.request.path, event.request.status]);
  }
  events.close();
  assert.equal(
    heard,
    records.map((r, i) => [i + 1, r.path, r.status]),
  );
});

test('--mock: recorded by the engine thread although the config does not ask for it', async ({ mock }) => {
  const port = await imposter(mock, { stubs: [{ responses: [{ is: { body: 'mocked' } }] }] });
  const answers = askWhileMainBlocked(port, [{ path: '/m1' }, { path: '/m2', method: 'POST', body: Buffer.from('hello').toString('base64') }]);
  assert.equal(answers.map(text), ['mocked', 'mocked']);
  const records = await saved(mock, port);
  assert.equal(
    records.map((r) => [r.method, r.path, r.body ?? '']),
    [
      ['GET', '/m1', ''],
      ['POST', '/m2', 'hello'],
    ],
  );
});

test('behaviors without scripts: wait, copy and lookup run on the engine thread', async ({ svc, dir }) => {
  const csv = join(dir, 'people.csv');
  writeFileSync(csv, 'id,name\n1,Ann\n2,Bob\n');
  const port = await imposter(svc, {
    stubs: [
      { predicates: [{ equals: { path: '/wait' } }], responses: [{ is: { body: 'waited' }, _behaviors: { wait: 150 } }] },
      {
        predicates: [{ startsWith: { path: '/copy/' } }],
        responses: [
          {
            is: { body: 'id=${ID}' },
            _behaviors: { copy: [{ from: 'path', into: '${ID}', using: { method: 'regex', selector: '\\d+$' } }] },
          },
        ],
      },
      {
        predicates: [{ startsWith: { path: '/people/' } }],
        responses: [
          {
            is: { body: 'name=${ROW}["name"]' },
            _behaviors: {
              lookup: [
                {
                  key: { from: 'path', using: { method: 'regex', selector: '\\d+' } },
                  fromDataSource: { csv: { path: csv, keyColumn: 'id' } },
                  into: '${ROW}',
                },
              ],
            },
          },
        ],
      },
    ],
  });
  const answers = askWhileMainBlocked(port, [{ path: '/wait' }, { path: '/copy/42' }, { path: '/people/2' }]);
  assert.equal(answers.map(text), ['waited', 'id=42', 'name=Bob']);
  assert.ok(answers[0].ms >= 150, `waited ${answers[0].ms} ms`);
});

test('_svc.templated, _svc.fault latency and error, CORS and a debug report on the engine thread', async ({ svc }) => {
  const port = await imposter(svc, {
    allowCORS: true,
    stubs: [
      { predicates: [{ equals: { path: '/templated' } }], responses: [{ is: { body: 'T' }, _svc: { templated: true } }] },
      { predicates: [{ equals: { path: '/slow' } }], responses: [{ is: { body: 'slow' }, _svc: { fault: { latency: { probability: 1, ms: 150 } } } }] },
      {
        predicates: [{ equals: { path: '/down' } }],
        responses: [{ is: { body: 'up' }, _svc: { fault: { error: { probability: 1, status: 503, body: 'down' } } } }],
      },
      { responses: [{ is: { body: 'cors' } }] },
    ],
  });
  const answers = askWhileMainBlocked(port, [
    { path: '/templated' },
    { path: '/slow' },
    { path: '/down' },
    {
      path: '/x',
      method: 'OPTIONS',
      headers: { Origin: 'http://app.test', 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': 'X-Token' },
    },
    { path: '/down', headers: { 'X-Svc-Debug': 'true' } },
  ]);
  assert.is(text(answers[0]), 'T');
  assert.is(text(answers[1]), 'slow');
  assert.ok(answers[1].ms >= 150, `latency ${answers[1].ms} ms`);
  assert.equal([answers[2].status, text(answers[2])], [503, 'down']);
  assert.is(answers[3].headers?.['access-control-allow-origin'], 'http://app.test');
  assert.is(answers[4].headers?.['x-svc-debug-response'], 'true');
  assert.equal(JSON.parse(text(answers[4])).matchResult.stubIndex, 2);
  // The debug report moved nothing; the fault metrics reached the main thread's registry.
  const metrics = (await http('GET', `http://127.0.0.1:${svc.metricsPort}/metrics`)).body;
  assert.match(metrics, /svc_faults_injected_total\{[^}]*type="latency"[^}]*\} [1-9]/);
  assert.match(metrics, /svc_faults_injected_total\{[^}]*type="error"[^}]*\} [1-9]/);
});

test('a TCP fault (top-level and _svc.fault) is a real reset from the engine thread, under TLS too', async ({ svc }) => {
  const stubs = [
    { predicates: [{ equals: { path: '/top' } }], responses: [{ fault: 'CONNECTION_RESET_BY_PEER' }] },
    { responses: [{ is: { body: 'never' }, _svc: { fault: { tcp: { probability: 1, type: 'reset' } } } }] },
  ];
  const plain = await imposter(svc, { stubs });
  const tls = await imposter(svc, { protocol: 'https', stubs });
  const answers = [
    ...askWhileMainBlocked(plain, [{ path: '/top' }, { path: '/svc' }]),
    ...askWhileMainBlocked(tls, [
      { path: '/top', tls: true },
      { path: '/svc', tls: true },
    ]),
  ];
  assert.equal(
    answers.map((a) => a.error),
    ['ECONNRESET', 'ECONNRESET', 'ECONNRESET', 'ECONNRESET'],
  );
});

test('binary bodies: a binary response served and a binary request recorded as base64 by the engine thread', async ({ svc }) => {
  const bytes = Buffer.from([0, 1, 2, 250, 255, 128]);
  const port = await imposter(svc, { recordRequests: true, stubs: [{ responses: [{ is: { body: bytes.toString('base64'), _mode: 'binary' } }] }] });
  const sent = Buffer.from([0xff, 0xfe, 0x00, 0x81]);
  const answers = askWhileMainBlocked(port, [
    { path: '/bin', method: 'POST', headers: { 'Content-Type': 'application/octet-stream' }, body: sent.toString('base64') },
  ]);
  assert.is(answers[0].body, bytes.toString('base64'));
  const [record] = await saved(svc, port);
  assert.equal([record.body, record._mode], [sent.toString('base64'), 'binary']);
});

test('1,000 concurrent recorded requests across both threads: indices 1..1000 with no gap, numberOfRequests 1000', async ({ svc }) => {
  const port = await imposter(svc, { recordRequests: true, stubs: [{ responses: [{ is: { body: 'ok' } }] }] });
  // A thread starved of CPU on a busy box can leave a whole burst to the other: bursts of 1,000 until
  // one reached both threads (every burst is recorded, so N counts them all).
  const N = await countedBurstsOnBothThreads(svc, port, 'ok');
  assert.is((await svc.admin('GET', `/imposters/${port}`)).json.numberOfRequests, N);
  const all = await svc.admin('GET', `/imposters/${port}/savedRequests`);
  assert.is(all.headers['x-svc-next-index'], String(N));
  const paths = (all.json as Array<{ path: string }>).map((r) => r.path);
  assert.is(paths.length, N);
  assert.is(new Set(paths).size, N);
  // Indices are 1..N with none skipped: every `since` cursor leaves exactly the rest.
  for (const since of [0, 1, 499, N - 1]) {
    const page = await svc.admin('GET', `/imposters/${port}/savedRequests?since=${since}`);
    assert.is((page.json as unknown[]).length, N - since, `since=${since}`);
  }
});

test('fault metrics from both threads are exact when scraped right after the responses (the event ring)', async ({ svc }) => {
  const port = await imposter(svc, {
    stubs: [{ id: 'ring-rule', responses: [{ is: { body: 'late' }, _svc: { fault: { latency: { probability: 1, minMs: 1, maxMs: 3 } } } }] }],
  });
  const N = await countedBurstsOnBothThreads(svc, port, 'late');
  const metrics = (await http('GET', `http://127.0.0.1:${svc.metricsPort}/metrics`)).body;
  const value = (pattern: RegExp): number => Number(pattern.exec(metrics)?.[1]);
  assert.is(value(/svc_faults_injected_total\{type="latency",rule_id="ring-rule",source="_svc.fault"\} (\d+)/), N);
  assert.is(value(/svc_latency_injected_ms_count\{rule_id="ring-rule"\} (\d+)/), N);
  // Each drawn delay kept its value: the sum lies within the range's bounds.
  const sum = value(/svc_latency_injected_ms_sum\{rule_id="ring-rule"\} ([\d.e+]+)/);
  assert.ok(sum >= N && sum <= 3 * N, `sum ${sum}`);
});

test('200 concurrent requests through a scenario stub that moves A → B, on both threads: it moves exactly once', async ({ svc }) => {
  const port = await imposter(svc, {
    stubs: [
      { scenarioName: 'flow', requiredScenarioState: 'Started', newScenarioState: 'B', responses: [{ is: { body: 'first' } }] },
      { scenarioName: 'flow', requiredScenarioState: 'B', responses: [{ is: { body: 'later' } }] },
    ],
  });
  await scenarioBurstsOnBothThreads(svc, port, (bodies) => {
    assert.is(bodies.filter((body) => body === 'first').length, 1);
    assert.is(bodies.filter((body) => body === 'later').length, 199);
  });
});

test('_svc.stateOps from both threads reach the one in-memory store: 200 concurrent increments end at 200', async ({ svc }) => {
  const port = await imposter(svc, {
    stubs: [{ responses: [{ is: { body: 'counted' }, _svc: { stateOps: [{ op: 'increment', key: 'hits' }] } }] }],
  });
  const bodies = await Promise.all(Array.from({ length: 200 }, () => http('GET', `http://127.0.0.1:${port}/`).then((res) => res.body)));
  assert.ok(bodies.every((body) => body === 'counted'));
  const state = await svc.admin('GET', `/admin/imposters/${port}/flow-state/${port}/hits`);
  assert.is(state.status, 200, JSON.stringify(state.json));
  assert.is(JSON.stringify(state.json).match(/200/)?.[0], '200', JSON.stringify(state.json));
});

test('with a redis flow store each engine thread talks to Redis itself: scenario moves while main is blocked, and once under 200 concurrent requests', async ({
  svc,
}) => {
  const redis = await startRedis();
  try {
    const flowState = { backend: 'redis', url: redis.url, keyPrefix: `pipeline-${process.pid}:`, flowIdSource: 'header:X-Flow' };
    const port = await imposter(svc, {
      _svc: { flowState },
      stubs: [
        { scenarioName: 'order', requiredScenarioState: 'Started', newScenarioState: 'Paid', responses: [{ is: { body: 'created' } }] },
        { scenarioName: 'order', requiredScenarioState: 'Paid', responses: [{ is: { body: 'paid' } }] },
      ],
    });
    const answers = askWhileMainBlocked(port, [{ headers: { 'X-Flow': 'blocked' } }, { headers: { 'X-Flow': 'blocked' } }]);
    assert.equal(answers.map(text), ['created', 'paid']);
    const bodies = await Promise.all(
      Array.from({ length: 200 }, () => http('GET', `http://127.0.0.1:${port}/`, { headers: { 'X-Flow': 'busy' } }).then((res) => res.body)),
    );
    assert.is(bodies.filter((body) => body === 'created').length, 1);
    assert.is(bodies.filter((body) => body === 'paid').length, 199);
  } finally {
    await redis.stop();
  }
});

test.run();
