/**
 * Issue 18: what used to need the main thread is answered by the engine thread that accepted it:
 * shellTransform, proxies whose predicateGenerators and behaviors run JavaScript, `--debug` matches,
 * `--loglevel debug` request lines, and debug reports (X-Svc-Debug). Each is asked while the main
 * thread is blocked on purpose (a child process is the client and this thread, svc's main one, waits
 * for it synchronously), and what it answers, records and logs is compared with `--runtime single`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort } from '../../support/servers.js';
import {
  askFromChild,
  askWhileMainBlocked,
  startPerCore,
  startSingle,
  text,
  until,
  type Answer,
  type Ask,
  type PerCoreServer,
} from '../../support/per-core.js';

interface Context {
  /** per-core, two threads (main and one engine thread). */
  plain: PerCoreServer;
  /** per-core with `--debug` and a debug-level logger. */
  debug: PerCoreServer;
  /** one loop with `--debug` and a debug-level logger: what per-core must match. */
  single: PerCoreServer;
  dir: string;
}

const test = suite<Context>('runtime per-core: engine threads answer what needed the main thread');

test.before(async (context) => {
  context.plain = await startPerCore(['--allowInjection']);
  context.debug = await startPerCore(['--allowInjection', '--debug'], 'debug');
  context.single = await startSingle(['--allowInjection', '--debug'], 'debug');
  context.dir = mkdtempSync(join(tmpdir(), 'svc-thread-main-only-'));
});

test.after(async (context) => {
  for (const svc of [context.plain, context.debug, context.single]) await svc.server.shutdown();
  rmSync(context.dir, { recursive: true, force: true });
});

test.after.each(async (context) => {
  for (const svc of [context.plain, context.debug, context.single]) await svc.admin('DELETE', '/imposters');
});

async function imposter(svc: PerCoreServer, config: Record<string, unknown>): Promise<number> {
  const port = await freePort();
  const res = await svc.admin('POST', '/imposters', { port, protocol: 'http', ...config });
  assert.is(res.status, 201, JSON.stringify(res.json));
  return port;
}

/** The same imposter on a per-core server (asked while main is blocked) and on single (asked as usual). */
async function bothWays(
  svc: PerCoreServer,
  single: PerCoreServer,
  config: Record<string, unknown>,
  asks: Ask[],
): Promise<{ port: number; singlePort: number; threaded: Answer[]; oneLoop: Answer[] }> {
  const port = await imposter(svc, config);
  const singlePort = await imposter(single, config);
  const threaded = askWhileMainBlocked(port, asks);
  const oneLoop = await askFromChild(singlePort, asks);
  return { port, singlePort, threaded, oneLoop };
}

/** JSON with the imposter's port written as 0, so two servers' answers compare. */
function samePorts(value: unknown, port: number): unknown {
  return JSON.parse(JSON.stringify(value).replaceAll(String(port), '0'));
}

/** What varies between two runs of one request: its time, its client's port, the milliseconds it took. */
function stable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stable);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (!['timestamp', 'requestFrom', 'processingTime', 'latencyMs', '_proxyResponseTime', 'date', 'Date'].includes(key)) out[key] = stable(field);
  }
  return out;
}

const answered = (answers: Answer[]): unknown[] => answers.map((a) => [a.error, a.status, text(a)]);

/** Answers without their bodies' error messages (a shellTransform's names its command line, which carries the client's port). */
const withoutMessages = (answers: Answer[]): unknown[] =>
  answers.map((a) => [a.error, a.status, a.status === 500 ? JSON.parse(text(a)).errors[0].type : text(a)]);

test('shellTransform: the engine thread runs the command (environment as it is now); answers and failures as on one loop', async ({ plain, single, dir }) => {
  writeFileSync(
    join(dir, 'transform.js'),
    `const response = JSON.parse(process.env.MB_RESPONSE);
     const request = JSON.parse(process.env.MB_REQUEST);
     response.body = response.body + ' via shell ' + request.path + ' ' + process.env.SVC_THREAD_MAIN_ONLY;
     response.headers = { 'X-Shell': 'yes' };
     process.stdout.write(JSON.stringify(response));`,
  );
  writeFileSync(join(dir, 'fail.js'), `process.stderr.write('no luck'); process.exit(3);`);
  writeFileSync(join(dir, 'garbage.js'), `process.stdout.write('not json');`);
  const node = JSON.stringify(process.execPath);
  const config = {
    stubs: [
      { predicates: [{ equals: { path: '/fail' } }], responses: [{ is: { body: 'x' }, _behaviors: { shellTransform: `${node} ${join(dir, 'fail.js')}` } }] },
      {
        predicates: [{ equals: { path: '/garbage' } }],
        responses: [{ is: { body: 'x' }, _behaviors: { shellTransform: `${node} ${join(dir, 'garbage.js')}` } }],
      },
      {
        responses: [
          {
            is: { body: 'hello' },
            behaviors: [
              { copy: { from: 'path', into: 'P', using: { method: 'regex', selector: '.*' } } },
              { shellTransform: `${node} ${join(dir, 'transform.js')}` },
            ],
          },
        ],
      },
    ],
  };
  // Set after the engine threads started: they share main's environment, as one loop's command would see it.
  process.env.SVC_THREAD_MAIN_ONLY = 'env-now';
  try {
    const asks = [{ path: '/one' }, { path: '/fail' }, { path: '/garbage' }];
    const { port, threaded, oneLoop } = await bothWays(plain, single, config, asks);
    assert.equal(threaded.map((a) => [a.status, text(a), a.headers?.['x-shell']])[0], [200, 'hello via shell /one env-now', 'yes']);
    assert.equal(
      threaded.slice(1).map((a) => [a.status, JSON.parse(text(a)).errors[0].type]),
      [
        [500, 'shell_transform_failed'],
        [500, 'shell_transform_failed'],
      ],
    );
    assert.match(text(threaded[1]), /no luck/);
    assert.match(text(threaded[2]), /Shell command returned invalid JSON: 'not json'/);
    // The failure's message names the command line, which carries the request (its client port): compared without it.
    const shape = (answers: Answer[]) =>
      answers.map((a, i) =>
        i === 1 ? [a.status, JSON.parse(text(a)).errors[0].type, /no luck$/.test(JSON.parse(text(a)).errors[0].message)] : [a.status, text(a)],
      );
    assert.equal(shape(threaded), shape(oneLoop));
    // The command's stderr reaches main's logger from the engine thread.
    await until(
      async () =>
        plain.log.recent().some((e) => e.level === 'warn' && e.message.startsWith(`imposter ${port}: shellTransform`) && e.message.endsWith('no luck')),
      'the engine thread’s shellTransform warning',
    );
  } finally {
    delete process.env.SVC_THREAD_MAIN_ONLY;
  }
});

/** An origin in its own process (it answers while this thread is blocked): `origin <path>`. */
async function startOrigin(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `require('node:http').createServer((req, res) => { res.setHeader('Content-Type', 'text/plain'); res.end('origin ' + req.url); })
        .listen(0, '127.0.0.1', function () { process.stdout.write(String(this.address().port) + '\\n'); });`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
    child.once('exit', () => reject(new Error('origin exited')));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

test('a proxy running JavaScript (predicateGenerators inject, decorate, addDecorateBehavior) is answered by the engine thread', async ({ plain, single }) => {
  const origin = await startOrigin();
  try {
    const config = {
      stubs: [
        {
          responses: [
            {
              proxy: {
                to: origin.url,
                mode: 'proxyAlways',
                predicateGenerators: [{ inject: 'function (config) { return [{ equals: { path: config.request.path } }]; }' }],
                addDecorateBehavior: 'function (request, response) { response.body += " replayed"; }',
              },
              _behaviors: { decorate: 'function (request, response) { response.body += " decorated"; }' },
            },
          ],
        },
      ],
    };
    const asks = [{ path: '/a' }, { path: '/b' }, { path: '/a' }];
    const { port, singlePort, threaded, oneLoop } = await bothWays(plain, single, config, asks);
    assert.equal(answered(threaded), [
      [undefined, 200, 'origin /a decorated'],
      [undefined, 200, 'origin /b decorated'],
      [undefined, 200, 'origin /a decorated'],
    ]);
    assert.equal(answered(threaded), answered(oneLoop));
    // The recordings reached the stubs' owner: the same stubs as on one loop.
    const stubs = async (svc: PerCoreServer, at: number) =>
      stable(
        ((await svc.admin('GET', `/imposters/${at}`)).json.stubs as Array<Record<string, unknown>>).slice(1).map((stub) => ({
          predicates: stub.predicates,
          responses: (stub.responses as Array<Record<string, unknown>>).map(({ is, ...rest }) => ({ ...rest, body: (is as { body: unknown }).body })),
        })),
      );
    const recorded = await stubs(plain, port);
    assert.equal(recorded, await stubs(single, singlePort));
    assert.is((recorded as unknown[]).length, 2);
    // A recorded stub replays with addDecorateBehavior's decorate, on the engine thread as well.
    const replayed = askWhileMainBlocked(port, [{ path: '/a' }]);
    const replayedOnce = await askFromChild(singlePort, [{ path: '/a' }]);
    assert.equal(answered(replayed), answered(replayedOnce));
  } finally {
    origin.child.kill();
  }
});

test('proxyOnce with JavaScript predicateGenerators and addDecorateBehavior: the same stubs and answers as on one loop', async ({ plain, single }) => {
  const origin = await startOrigin();
  try {
    const config = {
      stubs: [
        {
          responses: [
            {
              proxy: {
                to: origin.url,
                predicateGenerators: [{ inject: 'function (config) { return [{ startsWith: { path: config.request.path.slice(0, 2) } }]; }' }],
                addDecorateBehavior: 'function (request, response) { response.body += " replayed for " + request.path; }',
              },
            },
          ],
        },
      ],
    };
    // Each on a new connection, so both threads take some (whichever the kernel picks): /a1 records, /a2 replays.
    const asks = [{ path: '/a1' }, { path: '/a2' }, { path: '/b1' }, { path: '/a3' }, { path: '/b2' }];
    const port = await imposter(plain, config);
    const singlePort = await imposter(single, config);
    const threaded = await askFromChild(port, asks);
    assert.equal(answered(threaded), [
      [undefined, 200, 'origin /a1'],
      [undefined, 200, 'origin /a1 replayed for /a2'],
      [undefined, 200, 'origin /b1'],
      [undefined, 200, 'origin /a1 replayed for /a3'],
      [undefined, 200, 'origin /b1 replayed for /b2'],
    ]);
    assert.equal(answered(threaded), answered(await askFromChild(singlePort, asks)));
    // Without what differs by server: links, the proxy stub's generated id, single's `--debug` matches.
    const stubs = async (svc: PerCoreServer, at: number) =>
      stable(((await svc.admin('GET', `/imposters/${at}`)).json.stubs as Array<Record<string, unknown>>).map(({ _links, id, matches, ...stub }) => stub));
    assert.equal(await stubs(plain, port), await stubs(single, singlePort));
  } finally {
    origin.child.kill();
  }
});

test('--debug: matches made on the engine thread are read back by the next admin call, as on one loop', async ({ debug, single }) => {
  const config = {
    stubs: [
      { id: 'a', predicates: [{ equals: { path: '/a' } }], responses: [{ is: { body: 'A' } }, { is: { body: 'B' }, _behaviors: { wait: 1 } }] },
      { responses: [{ is: { statusCode: 404, body: 'none' } }] },
    ],
  };
  const asks = [{ path: '/a' }, { path: '/a' }, { path: '/a', method: 'POST', body: Buffer.from('payload').toString('base64') }, { path: '/other' }];
  const { port, singlePort, threaded, oneLoop } = await bothWays(debug, single, config, asks);
  assert.equal(answered(threaded), [
    [undefined, 200, 'A'],
    [undefined, 200, 'B'],
    [undefined, 200, 'A'],
    [undefined, 404, 'none'],
  ]);
  assert.equal(answered(threaded), answered(oneLoop));
  const matches = async (svc: PerCoreServer, at: number) =>
    samePorts(stable(((await svc.admin('GET', `/imposters/${at}`)).json.stubs as Array<{ matches?: unknown }>).map((stub) => stub.matches)), at);
  const threadMatches = (await matches(debug, port)) as unknown[][];
  assert.equal(
    threadMatches.map((m) => m.length),
    [3, 1],
  );
  assert.equal(threadMatches, await matches(single, singlePort));
});

test('--loglevel debug: each request the engine thread answers is logged by main, in order, as on one loop', async ({ debug, single }) => {
  const config = {
    stubs: [
      { predicates: [{ equals: { path: '/shell' } }], responses: [{ is: { body: 'x' }, _behaviors: { shellTransform: 'exit 1' } }] },
      { predicates: [{ equals: { path: '/a' } }], responses: [{ is: { body: 'A' } }] },
      { predicates: [{ equals: { path: '/reset' } }], responses: [{ fault: 'CONNECTION_RESET_BY_PEER' }] },
    ],
  };
  const asks = [{ path: '/a' }, { path: '/shell' }, { path: '/missing' }, { path: '/reset' }, { path: '/a', method: 'DELETE' }];
  const { port, singlePort, threaded, oneLoop } = await bothWays(debug, single, config, asks);
  assert.equal(withoutMessages(threaded), withoutMessages(oneLoop));
  const lines = (svc: PerCoreServer, at: number): string[] =>
    svc.log
      .recent()
      .filter((e) => e.level !== 'info' && (e.message.startsWith(`http:${at} `) || e.message.startsWith(`imposter ${at}:`)))
      .map((e) => `${e.level} ${e.message.replace(/ in \d+ ms$/, '').replaceAll(String(at), 'PORT')}`);
  await until(async () => lines(debug, port).length >= asks.length, 'the engine thread’s debug lines');
  await until(async () => lines(single, singlePort).length >= asks.length, 'single’s debug lines');
  assert.equal(lines(debug, port), [
    'debug http:PORT GET /a => 200 (stub 1)',
    'debug http:PORT GET /shell => 500 (stub 0)',
    'debug http:PORT GET /missing => 200 (no stub matched)',
    'debug http:PORT GET /reset => connection reset (stub 2)',
    'debug http:PORT DELETE /a => 200 (stub 1)',
  ]);
  assert.equal(lines(debug, port), lines(single, singlePort));
});

test('X-Svc-Debug: the engine thread answers the same report as one loop, recorded, moving nothing', async ({ plain, single }) => {
  const config = {
    name: 'reports',
    recordRequests: true,
    stubs: [
      {
        id: 'cycle',
        predicates: [{ startsWith: { path: '/c' } }],
        responses: [{ is: { body: 'A', headers: { 'X-A': '1' } } }, { is: { body: 'B' } }],
      },
      { id: 'injected', predicates: [{ equals: { method: 'POST' } }], responses: [{ inject: 'function () { return { body: "injected" }; }' }] },
    ],
  };
  const debugAsk = (ask: Ask): Ask => ({ ...ask, headers: { 'X-Svc-Debug': 'true', ...ask.headers } });
  const asks = [
    debugAsk({ path: '/c?x=1' }),
    { path: '/c1' },
    debugAsk({ path: '/c2' }),
    debugAsk({ path: '/p', method: 'POST', body: Buffer.from('{"a":1}').toString('base64'), headers: { 'Content-Type': 'application/json' } }),
    debugAsk({ path: '/nothing' }),
  ];
  const { port, singlePort, threaded, oneLoop } = await bothWays(plain, single, config, asks);
  const reports = (answers: Answer[], at: number) =>
    answers.map((a) => [a.status, a.headers?.['x-svc-debug-response'], a.headers?.['x-svc-debug-response'] ? samePorts(JSON.parse(text(a)), at) : text(a)]);
  const fromThread = reports(threaded, port);
  const fromOneLoop = reports(oneLoop, singlePort);
  for (const [i, report] of fromThread.entries()) assert.equal(report, fromOneLoop[i], `report ${i}`);
  // The cycle moved once (the plain request): the second report previews B.
  assert.equal((fromThread[2][2] as { matchResult: { responsePreview: { bodyPreview: string } } }).matchResult.responsePreview.bodyPreview, 'B');
  assert.equal((fromThread[4][2] as { matchResult: { matched: boolean } }).matchResult.matched, false);
  const saved = async (svc: PerCoreServer, at: number) => samePorts(stable((await svc.admin('GET', `/imposters/${at}/savedRequests`)).json), at);
  const records = (await saved(plain, port)) as Array<{ path: string }>;
  assert.equal(
    records.map((r) => r.path),
    ['/c', '/c1', '/c2', '/p', '/nothing'],
  );
  assert.equal(records, await saved(single, singlePort));
});

test.run();
