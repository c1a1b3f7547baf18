import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startInProcess, call, type InProcessSvc } from '../helpers/in-process.js';
import type { HttpResponse } from '../helpers/servers.js';

let svc: InProcessSvc;
test.before(async () => {
  svc = await startInProcess({ allowInjection: true });
});
test.after(async () => {
  await svc.stop();
});

/** Client-side timeout far beyond any wait here: only the servers' answers decide these tests. */
const patient = { timeoutMs: 120_000 };
const script = (code: string) => ({ _svc: { script: { engine: 'rhai', code } } });

/** Polls until the flow-state key of an imposter (flow id = its port) holds `value`. */
async function until(port: number, key: string, value: number): Promise<void> {
  for (;;) {
    const res = await svc.admin('GET', `/admin/imposters/${port}/flow-state/${port}/${key}`);
    if (res.status === 200 && res.json.value === value) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('two looping scripts on one imposter do not stall another imposter\'s script (the pool grows)', async () => {
  // A's deadline is far away: before the pool grew, B's script waited behind A's loops until then.
  const looping = await svc.createImposter({
    _svc: { scriptEngine: { timeoutMs: 60_000 } },
    stubs: [{ responses: [script('ctx.state.incr("running"); loop { }')] }],
  });
  const trivial = await svc.createImposter({ stubs: [{ responses: [script('http(200, "quick")')] }] });
  let loopsAnswered = 0;
  const loops = [call(looping, 'GET', '/', patient), call(looping, 'GET', '/', patient)].map((p) =>
    p.then((res: HttpResponse) => { loopsAnswered++; return res; }, () => { loopsAnswered++; }));
  // Both loops are running on workers (each counted itself in before spinning).
  await until(looping, 'running', 2);
  const res = await call(trivial, 'GET', '/', patient);
  assert.is(res.status, 200);
  assert.is(res.body, 'quick');
  assert.is(loopsAnswered, 0, 'B answered while both of A\'s loops still ran');
  await svc.admin('DELETE', `/imposters/${looping}`);
  void Promise.all(loops);
});

test('one imposter\'s many loops take at most its share of workers: another imposter still runs', async () => {
  const looping = await svc.createImposter({
    _svc: { scriptEngine: { timeoutMs: 60_000 } },
    stubs: [{ responses: [script('ctx.state.incr("running"); loop { }')] }],
  });
  const trivial = await svc.createImposter({ stubs: [{ responses: [script('http(200, "quick")')] }] });
  let loopsAnswered = 0;
  const loops = Array.from({ length: 12 }, () => call(looping, 'GET', '/', patient).then(() => { loopsAnswered++; }, () => { loopsAnswered++; }));
  await until(looping, 'running', 2);
  const res = await call(trivial, 'GET', '/', patient);
  assert.is(res.body, 'quick');
  assert.is(loopsAnswered, 0);
  void Promise.all(loops);
});

test.run();
