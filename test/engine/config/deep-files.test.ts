/** Issue 10 item 2 beyond HTTP: a config file nested too deep is refused with the path, not a stack overflow. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runSvc } from '../../support/run-svc.js';
import { tempDirForSuite } from '../../support/temp-dir.js';

const test = suite('config file: JSON nesting bound');
const dir = tempDirForSuite(test, 'svc-deep-files-');

test('--validate refuses a config file with 10,000 nested levels, naming where', async () => {
  const deep = '['.repeat(10_000) + ']'.repeat(10_000);
  const file = dir.file('deep.json', `{"imposters":[{"port":4545,"protocol":"http","stubs":[{"responses":[{"is":{"body":${deep}}}]}]}]}`);
  const run = await runSvc(['--validate', file]);
  assert.is(run.status, 1, run.stdout + run.stderr);
  assert.match(run.stdout + run.stderr, /nesting deeper than 100 levels at imposters\[0\]\.stubs\[0\]\.responses\[0\]\.is\.body\[0\]/);
});

test('a YAML config file 2,000 flow levels deep is refused, not an aborted process', async () => {
  const file = dir.file('deep.yaml', `- port: 4545\n  protocol: http\n  stubs: ${'['.repeat(2000)}${']'.repeat(2000)}\n`);
  const run = await runSvc(['--validate', file]);
  assert.is(run.status, 1, run.stdout + run.stderr);
  assert.match(run.stdout + run.stderr, /YAML flow nesting \(\[ and \{\) deeper than 100 levels/);
});

test.run();
