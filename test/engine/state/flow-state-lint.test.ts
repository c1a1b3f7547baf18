import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDirForSuite } from '../../support/temp-dir.js';
import { runSvc } from '../../support/run-svc.js';

const test = suite('state: svc --validate flags an implicit flow store as E042 (docs/flow-state.md rule 2)');
const tmp = tempDirForSuite(test, 'svc-flow-lint-');

const is = { is: { body: 'x' } };

test('a scenario stub without _svc.flowState is warned about (exit 0); with flowState or no such stub, nothing', async () => {
  const file = tmp.file(
    'imposters.json',
    JSON.stringify({
      imposters: [
        { port: 4601, protocol: 'http', stubs: [{ scenarioName: 'order', responses: [is] }] },
        { port: 4602, protocol: 'http', _svc: { flowState: {} }, stubs: [{ scenarioName: 'order', responses: [is] }] },
        { port: 4603, protocol: 'http', stubs: [{ responses: [is] }] },
        { port: 4604, protocol: 'http', stubs: [{ responses: [{ ...is, _svc: { stateOps: [{ op: 'increment', key: 'n' }] } }] }] },
      ],
    }),
  );
  const run = await runSvc(['--validate', file]);
  assert.is(run.status, 0, run.stderr);
  assert.is(run.stdout.trim(), `${file}: valid, 4 imposter(s)`);
  const lines = run.stderr.trim().split('\n');
  assert.is(lines.length, 2, run.stderr);
  assert.match(lines[0], /imposter on port 4601: warning E042: .*without _svc.flowState; an in-memory flow store \(ttlSeconds 300\)/);
  assert.match(lines[1], /imposter on port 4604: warning E042/);
});

test.run();
