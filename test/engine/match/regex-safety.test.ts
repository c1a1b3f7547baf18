/**
 * Issue 23 item 3: a user regex cannot freeze the server. A catastrophic `matches` pattern against a
 * 28-character path used to hold the loop 1.9 s (single) and 11.7 s (per-core); now it runs on V8's
 * linear engine, and a pattern that engine cannot take (a backreference) is stopped at its time bound
 * and answered with a §7 `pattern_timeout` error, the stub named in the log. Both runtimes.
 */
import * as fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseCliOptions, ServerBuilder, type RunningServer } from '../../../index.js';
import { createLogger, type Logger } from '../../../engine/log/index.js';
import { compileUserPattern } from '../../../engine/model/index.js';
import { freePort, http } from '../../support/servers.js';
import { until } from '../../support/per-core.js';

const test = suite('regex safety');

/** 28 characters that make `^/(a+)+$` backtrack exponentially on a backtracking engine. */
const EVIL_PATH = `/${'a'.repeat(26)}!`;
/**
 * The issue asks for 100 ms and 50 ms; on a busy shared 2-core box the bounds get a 5x-6x margin and
 * stay far below what the old build took (1.9 s single, 11.7 s per-core).
 */
const ANSWER_WITHIN_MS = 600;
const HEALTH_WITHIN_MS = 300;

let server: RunningServer | undefined;
let log: Logger;
test.after.each(async () => {
  await server?.shutdown();
  server = undefined;
});

let doorPort: number;

async function start(runtime: 'single' | 'per-core'): Promise<number> {
  log = createLogger({ level: 'info', quiet: true });
  doorPort = await freePort();
  const extra = runtime === 'per-core' ? ['--runtime', 'per-core', '--workers', '2'] : ['--runtime', 'single'];
  const options = parseCliOptions(
    ['--port', '0', '--host', '127.0.0.1', '--metrics-port', '0', '--nologfile', '--front-door', `127.0.0.1:${doorPort}`, ...extra],
    {},
  );
  server = await ServerBuilder.fromCli(options).logger(log).start();
  return server.adminAddr().port;
}

async function imposter(adminPort: number, stubs: unknown[]): Promise<number> {
  const port = await freePort();
  const created = await http('POST', `http://127.0.0.1:${adminPort}/imposters`, {
    body: JSON.stringify({ protocol: 'http', port, stubs, defaultResponse: { statusCode: 404, body: 'no match' } }),
  });
  assert.is(created.status, 201, created.body);
  return port;
}

/** `/health` latencies sampled back to back while `busy` is in flight. */
async function healthWhile<T>(adminPort: number, busy: Promise<T>): Promise<{ result: T; worstHealthMs: number }> {
  let done = false;
  let worst = 0;
  const sampler = (async () => {
    while (!done) {
      const started = performance.now();
      const res = await http('GET', `http://127.0.0.1:${adminPort}/health`);
      assert.is(res.status, 200);
      worst = Math.max(worst, performance.now() - started);
    }
  })();
  const result = await busy.finally(() => {
    done = true;
  });
  await sampler;
  return { result, worstHealthMs: worst };
}

async function timed(url: string): Promise<{ status: number; body: string; ms: number }> {
  const started = performance.now();
  const res = await http('GET', url);
  return { status: res.status, body: res.body, ms: performance.now() - started };
}

for (const runtime of ['single', 'per-core'] as const) {
  test(`${runtime}: ^/(a+)+$ against a 28-character path is answered at once and /health stays fast`, async () => {
    const adminPort = await start(runtime);
    const port = await imposter(adminPort, [
      { predicates: [{ matches: { path: '^/(a+)+$' } }], responses: [{ is: { body: 'matched' } }] },
      { predicates: [{ matches: { path: '^/(A+)+$' }, caseSensitive: true }], responses: [{ is: { body: 'matched exactly' } }] },
    ]);
    assert.is(EVIL_PATH.length, 28);
    // Several in a row, on fresh connections (per-core spreads them over both engine threads), and one
    // through the front door.
    const { result, worstHealthMs } = await healthWhile(
      adminPort,
      (async () => {
        const answers = [];
        for (let i = 0; i < 4; i++) answers.push(await timed(`http://127.0.0.1:${port}${EVIL_PATH}`));
        // Through the front door's gateway addressing the imposter sees the same path.
        answers.push(await timed(`http://127.0.0.1:${doorPort}/__svc/${port}${EVIL_PATH}`));
        return answers;
      })(),
    );
    const slowest = Math.max(...result.map((answer) => answer.ms));
    console.log(`regex-safety ${runtime}: ${result.length} answers, slowest ${slowest.toFixed(1)} ms; /health worst ${worstHealthMs.toFixed(1)} ms`);
    for (const answer of result) {
      assert.is(answer.status, 404, 'no stub matches: the default response');
      assert.ok(answer.ms < ANSWER_WITHIN_MS, `answered in ${answer.ms.toFixed(0)} ms`);
    }
    assert.ok(worstHealthMs < HEALTH_WITHIN_MS, `/health took ${worstHealthMs.toFixed(0)} ms`);
    // Same semantics as before: case-insensitive by default, exact with caseSensitive.
    assert.is((await http('GET', `http://127.0.0.1:${port}/AaA`)).body, 'matched');
    assert.is((await http('GET', `http://127.0.0.1:${port}/aaa/`)).status, 404);
  });

  test(`${runtime}: a backreference pattern is stopped at its bound with a pattern_timeout envelope, the stub logged`, async () => {
    const adminPort = await start(runtime);
    const port = await imposter(adminPort, [
      { id: 'evil-backref', predicates: [{ matches: { path: '^/((a+)+)\\2$' } }], responses: [{ is: { body: 'matched' } }] },
    ]);
    const { result, worstHealthMs } = await healthWhile(adminPort, timed(`http://127.0.0.1:${port}${EVIL_PATH}`));
    console.log(`regex-safety ${runtime} bounded: answered in ${result.ms.toFixed(1)} ms; /health worst ${worstHealthMs.toFixed(1)} ms`);
    assert.is(result.status, 500);
    const envelope = JSON.parse(result.body) as { errors: Array<{ type: string; message: string }> };
    assert.is(envelope.errors[0].type, 'pattern_timeout');
    assert.match(envelope.errors[0].message, '^/((a+)+)\\2$');
    assert.ok(result.ms < ANSWER_WITHIN_MS * 2, `answered in ${result.ms.toFixed(0)} ms`);
    assert.ok(worstHealthMs < HEALTH_WITHIN_MS * 2, `/health took ${worstHealthMs.toFixed(0)} ms`);
    // An engine thread's log line reaches main's logger by message, possibly after the response.
    await until(async () => log.recent().some((entry) => entry.message.includes('evil-backref')), 'a log line naming the stub');
    // The bound is per run: a harmless path still matches.
    assert.is((await http('GET', `http://127.0.0.1:${port}/aa`)).status, 404);
  });
}

test('copy with a catastrophic regex selector answers at once', async () => {
  const adminPort = await start('single');
  const port = await imposter(adminPort, [
    {
      responses: [
        {
          is: { body: 'got ${m}' },
          behaviors: [{ copy: { from: 'path', into: '${m}', using: { method: 'regex', selector: '^/(a+)+$' } } }],
        },
      ],
    },
  ]);
  const { result, worstHealthMs } = await healthWhile(adminPort, timed(`http://127.0.0.1:${port}${EVIL_PATH}`));
  assert.is(result.body, 'got ${m}', 'no match: the token stays');
  assert.ok(result.ms < ANSWER_WITHIN_MS, `answered in ${result.ms.toFixed(0)} ms`);
  assert.ok(worstHealthMs < HEALTH_WITHIN_MS, `/health took ${worstHealthMs.toFixed(0)} ms`);
});

test('case-insensitive patterns rewritten for the linear engine match exactly what the i flag matches', () => {
  const patterns = ['^/(a+)+$', 'straße', '[a-z]+K', '[^a-f]x', '\\x41b', 'ÉTÉ', '[À-ÿ]+', 'ǅ|ſ', '^/api/v\\d+/(users|ORDERS)$', '\\bk\\B'];
  const alphabet = ['a', 'A', 'b', 'K', 'k', '\u212a', 's', 'S', 'ſ', 'é', 'É', 'ß', 'ẞ', 'x', 'X', '/', '1', 'ǅ', 'ǆ', 'Ǆ', 'f', 'G', ' ', 'v', 'V'];
  for (const source of patterns) {
    const pattern = compileUserPattern(source, 'i');
    assert.is(pattern.engine, 'linear', source);
    const reference = new RegExp(source, 'i');
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...alphabet), { maxLength: 8 }), (chars) => {
        const input = `/${chars.join('')}`;
        return pattern.test(input) === reference.test(input);
      }),
      { numRuns: 500 },
    );
  }
  // Backreferences, lookaheads and large counted repeats have no linear form on any supported Node.
  for (const source of ['(a)\\1', '(?=a)b', '(?!a)b', 'a{1,100}']) assert.is(compileUserPattern(source, 'i').engine, 'bounded', source);
  // Lookbehind is linear on Node 24's V8 and bounded on Node 20's: either way it matches what the i flag matches.
  for (const source of ['(?<!x)k', '(?<=s)S']) {
    const pattern = compileUserPattern(source, 'i');
    const reference = new RegExp(source, 'i');
    for (const input of ['k', 'xk', 'XK', 'ak', '\u212a', 'sS', 'ſs', 'SS', 'as'])
      assert.is(pattern.test(input), reference.test(input), `${source} on ${input}`);
  }
});

test.run();
