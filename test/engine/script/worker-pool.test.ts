import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { inProcessForSuite, call } from '../../support/in-process.js';
import type { HttpResponse } from '../../support/servers.js';

const svc = inProcessForSuite(test, { allowInjection: true, keepImposters: true });

/** Client-side timeout far beyond any wait here: only the servers' answers decide these tests. */
const patient = { timeoutMs: 150_000 };
/**
 * The quick script's deadline leaves room for starting a worker on a loaded machine (seconds under
 * tsx); the loops' deadline is later still, so "answered while the loops ran" is the only proof.
 */
const startable = { _svc: { scriptEngine: { timeoutMs: 60_000 } } };
const script = (code: string) => ({ _svc: { script: { engine: 'rhai', code } } });

/** Polls until the flow-state key of an imposter (flow id = its port) holds `value`. */
async function until(port: number, key: string, value: number): Promise<void> {
  const giveUp = Date.now() + 120_000;
  while (Date.now() < giveUp) {
    const res = await svc.admin('GET', `/admin/imposters/${port}/flow-state/${port}/${key}`);
    if (res.status === 200 && res.json.value === value) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.unreachable(`imposter ${port}: ${key} never reached ${value}`);
}

test('200 concurrent runs of one imposter (posted to its workers in batches) each get their own ctx.state answer and response', async () => {
  const port = await svc.createImposter({ ...startable, stubs: [{ responses: [script('let n = ctx.state.incr("n"); http(200, `run ${n}`)')] }] });
  const answers = await Promise.all(Array.from({ length: 200 }, () => call(port, 'GET', '/', patient)));
  assert.equal(
    answers.map((res) => res.status),
    answers.map(() => 200),
  );
  const seen = answers.map((res) => Number(res.body.replace('run ', ''))).sort((a, b) => a - b);
  assert.equal(
    seen,
    Array.from({ length: 200 }, (_, i) => i + 1),
  );
  await until(port, 'n', 200);
  await svc.admin('DELETE', `/imposters/${port}`);
});

test("two looping scripts on one imposter do not stall another imposter's script (the pool grows)", async () => {
  // A's deadline is far away: before the pool grew, B's script waited behind A's loops until then.
  const looping = await svc.createImposter({
    _svc: { scriptEngine: { timeoutMs: 90_000 } },
    stubs: [{ responses: [script('ctx.state.incr("running"); loop { }')] }],
  });
  const trivial = await svc.createImposter({ ...startable, stubs: [{ responses: [script('http(200, "quick")')] }] });
  let loopsAnswered = 0;
  const loops = [call(looping, 'GET', '/', patient), call(looping, 'GET', '/', patient)].map((p) =>
    p.then(
      (res: HttpResponse) => {
        loopsAnswered++;
        return res;
      },
      () => {
        loopsAnswered++;
      },
    ),
  );
  // Both loops are running on workers (each counted itself in before spinning).
  await until(looping, 'running', 2);
  const res = await call(trivial, 'GET', '/', patient);
  assert.is(res.status, 200);
  assert.is(res.body, 'quick');
  assert.is(loopsAnswered, 0, "B answered while both of A's loops still ran");
  await svc.admin('DELETE', `/imposters/${looping}`);
  void Promise.all(loops);
});

test("one imposter's many loops take at most its share of workers: another imposter still runs", async () => {
  const looping = await svc.createImposter({
    _svc: { scriptEngine: { timeoutMs: 90_000 } },
    stubs: [{ responses: [script('ctx.state.incr("running"); loop { }')] }],
  });
  const trivial = await svc.createImposter({ ...startable, stubs: [{ responses: [script('http(200, "quick")')] }] });
  let loopsAnswered = 0;
  const loops = Array.from({ length: 12 }, () =>
    call(looping, 'GET', '/', patient).then(
      () => {
        loopsAnswered++;
      },
      () => {
        loopsAnswered++;
      },
    ),
  );
  await until(looping, 'running', 2);
  const res = await call(trivial, 'GET', '/', patient);
  assert.is(res.body, 'quick');
  assert.is(loopsAnswered, 0);
  void Promise.all(loops);
});

/** Spins until the deadline: each frame stays far under the JavaScript loop bound. */
const LOOPING_JS = 'ctx.state.incr("running"); const spin = () => { for (let i = 0; i < 1000000; i++) JSON.stringify([i]); }; for (;;) spin();';

test("javascript: a new imposter's script does not wait behind other imposters' loops (an idle or added sandbox worker)", async () => {
  // Each sandbox worker is taken by a looping imposter (there are at most two by default).
  const loopers = [];
  for (let i = 0; i < 2; i++) {
    loopers.push(
      await svc.createImposter({
        _svc: { scriptEngine: { timeoutMs: 90_000 } },
        stubs: [{ responses: [{ _svc: { script: { engine: 'javascript', code: LOOPING_JS } } }] }],
      }),
    );
  }
  let loopsAnswered = 0;
  const loops = loopers.map((port) =>
    call(port, 'GET', '/', patient).then(
      () => {
        loopsAnswered++;
      },
      () => {
        loopsAnswered++;
      },
    ),
  );
  for (const port of loopers) await until(port, 'running', 1);
  const trivial = await svc.createImposter({
    ...startable,
    stubs: [{ responses: [{ _svc: { script: { engine: 'javascript', code: 'return http(200, "quick");' } } }] }],
  });
  const res = await call(trivial, 'GET', '/', patient);
  assert.is(res.body, 'quick');
  assert.is(loopsAnswered, 0, 'the new imposter answered while both loops still ran');
  void Promise.all(loops);
});

test.run();
