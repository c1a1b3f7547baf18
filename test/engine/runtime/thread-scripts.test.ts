/**
 * Issue 18 (scripts): under per-core an engine thread answers imposters that run scripts itself,
 * calling the script workers on its own links, not through the main thread. Each kind is proved
 * while this (the main) thread is blocked on purpose, as local-plan.test.ts does for static stubs:
 * a child process makes the requests while execFileSync holds this thread, so only the engine thread
 * can accept and answer them, and only if its scripts reach the workers without main.
 */
import { execFileSync } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort, http } from '../../support/servers.js';
import { startPerCore, type PerCoreServer } from '../../support/per-core.js';

const test = suite<{ svc: PerCoreServer }>('runtime per-core scripts on engine threads');

test.before(async (context) => {
  context.svc = await startPerCore(['--allowInjection']);
});

test.after(async (context) => {
  await context.svc.server.shutdown();
});

async function imposter(svc: PerCoreServer, config: Record<string, unknown>): Promise<number> {
  const port = await freePort();
  const res = await svc.admin('POST', '/imposters', { port, protocol: 'http', ...config });
  assert.is(res.status, 201, JSON.stringify(res.json));
  return port;
}

/**
 * `paths` requested one after another from a child process while this thread waits for it: the
 * answers as `status body` lines. The script workers are warmed first (a cold start is slow on a busy box).
 */
async function whileMainBlocked(port: number, paths: string[]): Promise<string[]> {
  await http('GET', `http://127.0.0.1:${port}/warm`);
  const client = `
    const http = require('node:http');
    const get = (path) => new Promise((resolve, reject) => http.get({ host: '127.0.0.1', port: ${port}, path, agent: false }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve(res.statusCode + ' ' + body));
    }).on('error', reject));
    (async () => { const out = []; for (const path of ${JSON.stringify(paths)}) out.push(await get(path)); process.stdout.write(JSON.stringify(out)); })();`;
  return JSON.parse(execFileSync(process.execPath, ['-e', client], { timeout: 60_000 }).toString()) as string[];
}

test('inject: answered by the engine thread, its state kept by the imposter sandbox', async ({ svc }) => {
  const port = await imposter(svc, {
    stubs: [{ responses: [{ inject: 'function (config) { config.state.n = (config.state.n || 0) + 1; return { body: String(config.state.n) }; }' }] }],
  });
  // The warm-up request was number 1.
  assert.equal(await whileMainBlocked(port, ['/', '/', '/']), ['200 2', '200 3', '200 4']);
});

test('predicate inject: matched on the engine thread', async ({ svc }) => {
  const port = await imposter(svc, {
    defaultResponse: { statusCode: 404, body: 'no' },
    stubs: [
      { predicates: [{ inject: "function (config) { return config.request.path === '/yes'; }" }], responses: [{ is: { statusCode: 200, body: 'yes' } }] },
    ],
  });
  assert.equal(await whileMainBlocked(port, ['/yes', '/other']), ['200 yes', '404 no']);
});

test('decorate: run on the engine thread', async ({ svc }) => {
  const port = await imposter(svc, {
    stubs: [
      { responses: [{ is: { body: 'x' }, _behaviors: { decorate: "function (request, response) { response.body = response.body + '-' + request.path; }" } }] },
    ],
  });
  assert.equal(await whileMainBlocked(port, ['/a', '/b']), ['200 x-/a', '200 x-/b']);
});

test('function wait: run on the engine thread', async ({ svc }) => {
  const port = await imposter(svc, {
    stubs: [{ responses: [{ is: { body: 'waited' }, _behaviors: { wait: 'function () { return 5; }' } }] }],
  });
  assert.equal(await whileMainBlocked(port, ['/', '/']), ['200 waited', '200 waited']);
});

test('_svc.script in rhai: run on the engine thread', async ({ svc }) => {
  const port = await imposter(svc, {
    stubs: [{ responses: [{ _svc: { script: { code: 'http(201, "rhai " + ctx.request.path)' } } }] }],
  });
  assert.equal(await whileMainBlocked(port, ['/a', '/b']), ['201 rhai /a', '201 rhai /b']);
});

test('_svc.script in javascript, and a script predicate: run on the engine thread', async ({ svc }) => {
  const port = await imposter(svc, {
    defaultResponse: { statusCode: 404, body: 'no' },
    stubs: [
      {
        predicates: [{ _svc: { script: { engine: 'javascript', code: "return ctx.request.path !== '/skip';" } } }],
        responses: [{ _svc: { script: { engine: 'javascript', code: "return http(202, 'js ' + ctx.request.path);" } } }],
      },
    ],
  });
  assert.equal(await whileMainBlocked(port, ['/a', '/skip']), ['202 js /a', '404 no']);
});

/** `count` GETs at once over fresh connections (they spread over both threads); the bodies. */
async function concurrently(port: number, count: number): Promise<string[]> {
  return Promise.all(Array.from({ length: count }, () => http('GET', `http://127.0.0.1:${port}/`).then((res) => res.body)));
}

test('200 concurrent inject calls over both threads increment state.n to exactly 200', async ({ svc }) => {
  const port = await imposter(svc, {
    stubs: [{ responses: [{ inject: 'function (config) { config.state.n = (config.state.n || 0) + 1; return { body: String(config.state.n) }; }' }] }],
  });
  const bodies = (await concurrently(port, 200)).map(Number).sort((a, b) => a - b);
  assert.equal(
    bodies,
    Array.from({ length: 200 }, (_, i) => i + 1),
  );
  assert.is((await http('GET', `http://127.0.0.1:${port}/`)).body, '201');
});

test('a rhai script using ctx.state over both threads: 200 concurrent increments end at 200', async ({ svc }) => {
  const port = await imposter(svc, {
    stubs: [{ responses: [{ _svc: { script: { code: 'let n = ctx.state.incr("n"); http(200, `${n}`)' } } }] }],
  });
  const bodies = (await concurrently(port, 200)).map(Number).sort((a, b) => a - b);
  assert.equal(
    bodies,
    Array.from({ length: 200 }, (_, i) => i + 1),
  );
});

test.run();
