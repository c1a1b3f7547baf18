/**
 * Issue 23 item 5: scripts are bounded in memory as they are in time. Against a spawned svc (its RSS
 * is the process's own): Rhai allocation bombs fail with the script error envelope before the
 * process grows 256 MB, and the process is back within 20% of its baseline RSS 5 s later (a script
 * worker that grew collects its garbage, and is replaced if still grown: engine/script/shared/worker-memory.ts); an inject or decorate result over the 64 MiB body cap is a 500
 * `response_too_large` envelope, and costs no lasting memory either.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort, http, rssMbOf, startSvc, type RunningServer } from '../../support/servers.js';

const test = suite('script memory');
const MB = 1024 * 1024;

let svc: RunningServer | undefined;
let port = 0;
let baselineMb = 0;

function rssMb(): number {
  return rssMbOf(svc!.pid!);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The request's answer and the highest RSS seen while it ran (sampled every 20 ms). */
async function withPeak<T>(work: () => Promise<T>): Promise<{ value: T; peakMb: number }> {
  let peakMb = rssMb();
  let done = false;
  const sampler = (async () => {
    while (!done) {
      peakMb = Math.max(peakMb, rssMb());
      await sleep(20);
    }
  })();
  try {
    return { value: await work(), peakMb };
  } finally {
    done = true;
    await sampler;
    peakMb = Math.max(peakMb, rssMb());
  }
}

const rhai = (code: string) => ({ _svc: { script: { engine: 'rhai', code } } });

const BOMBS: Record<string, string> = {
  // Each step flattens the doubled string (len() reads it), so the characters are really allocated.
  '/string': 'let s = "0123456789"; loop { s += s; s.len(); }',
  '/strings': 'let s = ""; s.pad(1000000, "x"); let keep = []; loop { keep.push(s.to_upper()); }',
  '/array': 'let a = []; loop { a.push(a.len()); }',
  '/map': 'let m = #{}; let i = 0; loop { m[`key${i}`] = i; i += 1; }',
};

test.before(async () => {
  svc = await startSvc({ args: ['--allowInjection', '--loglevel', 'error'] });
  port = await freePort();
  const stubs = [
    ...Object.entries(BOMBS).map(([path, code]) => ({ predicates: [{ equals: { path } }], responses: [rhai(code)] })),
    { predicates: [{ equals: { path: '/warm' } }], responses: [rhai('http(200, "warm")')] },
    { predicates: [{ equals: { path: '/warm-js' } }], responses: [{ inject: 'function () { return { body: "warm" }; }' }] },
    {
      predicates: [{ equals: { path: '/inject' } }],
      responses: [{ inject: `function () { return { body: 'x'.repeat(${70 * MB}) }; }` }],
    },
    {
      predicates: [{ equals: { path: '/script-js' } }],
      responses: [{ _svc: { script: { engine: 'javascript', code: `return http(200, 'z'.repeat(${70 * MB}));` } } }],
    },
    {
      predicates: [{ equals: { path: '/decorate' } }],
      responses: [{ is: { body: 'small' }, _behaviors: { decorate: `function (request, response) { response.body = 'y'.repeat(${70 * MB}); }` } }],
    },
  ];
  const created = await http('POST', `http://127.0.0.1:${svc.adminPort}/imposters`, {
    body: JSON.stringify({ protocol: 'http', port, stubs, _svc: { scriptEngine: { timeoutMs: 60_000 } } }),
  });
  assert.is(created.status, 201, created.body);
  // Start both script engines' workers, then let start-up garbage settle.
  for (let k = 0; k < 3; k++) {
    assert.is((await http('GET', `http://127.0.0.1:${port}/warm`)).body, 'warm');
    assert.is((await http('GET', `http://127.0.0.1:${port}/warm-js`)).body, 'warm');
  }
  await sleep(2000);
  baselineMb = rssMb();
});

test.after(async () => {
  await svc?.stop();
});

for (const path of Object.keys(BOMBS)) {
  test(`Rhai bomb ${path}: a limit script error with under 256 MB of growth`, async () => {
    const { value: answer, peakMb } = await withPeak(() => http('GET', `http://127.0.0.1:${port}${path}`, { timeoutMs: 120_000 }));
    assert.is(answer.status, 500, answer.body);
    assert.is(answer.headers['x-svc-script-error'], 'true');
    const error = JSON.parse(answer.body).errors[0];
    assert.is(error.type, 'script_error');
    assert.is(error.errorType, 'limit');
    assert.match(error.message, /Script memory budget exceeded/);
    assert.ok(peakMb - baselineMb < 256, `grew ${(peakMb - baselineMb).toFixed(0)} MB`);
  });
}

test('inject and decorate results over the 64 MiB body cap: 500 response_too_large; a script result: a limit script error', async () => {
  for (const path of ['/inject', '/decorate']) {
    const { value: answer, peakMb } = await withPeak(() => http('GET', `http://127.0.0.1:${port}${path}`, { timeoutMs: 120_000 }));
    assert.is(answer.status, 500, answer.body.slice(0, 200));
    const error = JSON.parse(answer.body).errors[0];
    assert.is(error.type, 'response_too_large');
    assert.match(error.message, /67108864-byte response body cap/);
    // Bounded by the sandbox's 256 MiB heap: the result never leaves it.
    assert.ok(peakMb - baselineMb < 384, `${path} grew ${(peakMb - baselineMb).toFixed(0)} MB`);
  }
  // A `_svc.script` result over the cap is that script's error (docs/errors.md: 500 with x-svc-script-error).
  const answer = await http('GET', `http://127.0.0.1:${port}/script-js`, { timeoutMs: 120_000 });
  assert.is(answer.status, 500);
  assert.is(answer.headers['x-svc-script-error'], 'true');
  const error = JSON.parse(answer.body).errors[0];
  assert.equal([error.type, error.errorType], ['script_error', 'limit']);
  assert.match(error.message, /67108864-byte response body cap/);
});

test('RSS is back within 20% of the baseline 5 s after the bombs, and scripts still run', async () => {
  await sleep(5000);
  // RSS read five times over the next second, the lowest kept: one reading can catch a passing
  // allocation (a GC not yet run, a thread's arena), not memory the bombs left behind.
  let now = rssMb();
  for (let i = 0; i < 4 && now > baselineMb * 1.2; i += 1) {
    await sleep(250);
    now = Math.min(now, rssMb());
  }
  assert.ok(now <= baselineMb * 1.2, `RSS ${now.toFixed(0)} MB against a baseline of ${baselineMb.toFixed(0)} MB`);
  assert.is((await http('GET', `http://127.0.0.1:${port}/warm`)).body, 'warm');
  assert.is((await http('GET', `http://127.0.0.1:${port}/warm-js`)).body, 'warm');
});

test.run();
