// Runs uvu over the given directory (default: test/) and fails when any test did not pass. uvu itself exits 0
// when a suite's `before` hook throws (its runner returns from a `finally`): the suite's tests then count in
// Total but not in Passed, with no FAIL line. This makes that a failure of `npm test`, not only of .ci/run.
import { spawn } from 'node:child_process';

const [dir = 'test', pattern = '\\.test\\.ts$'] = process.argv.slice(2);
const child = spawn('npx', ['uvu', '-r', 'tsx', dir, pattern], { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'inherit'] });
let tail = '';
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  tail = (tail + chunk.toString('utf8')).slice(-4096);
});
child.on('close', (code) => {
  const total = Number(/Total:\s+(\d+)/.exec(tail)?.[1] ?? Number.NaN);
  const passed = Number(/Passed:\s+(\d+)/.exec(tail)?.[1] ?? Number.NaN);
  if (code !== 0) process.exit(code ?? 1);
  if (!(passed === total)) {
    console.error(`${Number.isNaN(total) ? 'no uvu summary' : `${total - passed} of ${total} tests did not pass`} (a suite's before hook failed?)`);
    process.exit(1);
  }
});
