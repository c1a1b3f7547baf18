/** ctx facts that must read the same from both engines (docs/scripts.md). */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { inProcessForSuite, call } from '../../support/in-process.js';

const svc = inProcessForSuite(test, { allowInjection: true, warmScripts: true, keepImposters: true });

/** Worker cold starts on a loaded machine must not turn into deadline failures here. */
const roomy = { _svc: { scriptEngine: { timeoutMs: 60_000 } } };
const patient = { timeoutMs: 90_000 };
const script = (engine: string, code: string) => ({ _svc: { script: { engine, code } } });

const CODE = {
  rhai: {
    state: 'http(200, if "scenarioState" in ctx.stub { ctx.stub.scenarioState } else { "absent" })',
    hasJson: 'http(200, `${"json" in ctx.request}`)',
  },
  javascript: {
    state: 'return http(200, "scenarioState" in ctx.stub ? ctx.stub.scenarioState : "absent");',
    hasJson: 'return http(200, String("json" in ctx.request) + "," + Object.keys(ctx.request).includes("json"));',
  },
};

for (const engine of ['rhai', 'javascript'] as const) {
  test(`${engine}: ctx.stub.scenarioState is the state the stub required, not the one it moved to`, async () => {
    const port = await svc.createImposter({
      ...roomy,
      stubs: [
        {
          predicates: [{ equals: { path: '/pay' } }],
          scenarioName: 'order',
          requiredScenarioState: 'Started',
          newScenarioState: 'Paid',
          responses: [script(engine, CODE[engine].state)],
        },
        {
          predicates: [{ equals: { path: '/pay' } }],
          scenarioName: 'order',
          requiredScenarioState: 'Paid',
          newScenarioState: 'Shipped',
          responses: [script(engine, CODE[engine].state)],
        },
        { predicates: [{ equals: { path: '/any' } }], scenarioName: 'order', responses: [script(engine, CODE[engine].state)] },
      ],
    });
    assert.is((await call(port, 'GET', '/pay', patient)).body, 'Started');
    assert.is((await call(port, 'GET', '/pay', patient)).body, 'Paid');
    // No required state: nothing to show.
    assert.is((await call(port, 'GET', '/any', patient)).body, 'absent');
  });

  test(`${engine}: ctx.request has no json member for a body that is not JSON`, async () => {
    const port = await svc.createImposter({ ...roomy, stubs: [{ responses: [script(engine, CODE[engine].hasJson)] }] });
    const expected = (present: boolean) => (engine === 'rhai' ? String(present) : `${present},${present}`);
    assert.is((await call(port, 'POST', '/', { body: 'plain text', ...patient })).body, expected(false));
    assert.is((await call(port, 'POST', '/', { body: '', ...patient })).body, expected(false));
    assert.is((await call(port, 'POST', '/', { body: '{"a":1}', ...patient })).body, expected(true));
  });
}

test('javascript: ctx.request.json still parses lazily and reads as before', async () => {
  const port = await svc.createImposter({
    ...roomy,
    stubs: [{ responses: [script('javascript', 'return http(200, String(ctx.request.json === undefined ? "none" : ctx.request.json.a));')] }],
  });
  assert.is((await call(port, 'POST', '/', { body: '{"a":7}', ...patient })).body, '7');
  assert.is((await call(port, 'POST', '/', { body: 'nope', ...patient })).body, 'none');
});

test.run();
