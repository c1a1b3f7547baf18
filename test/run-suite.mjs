// Runs uvu over the given directory (default: test/) and fails when any test did not pass. uvu itself exits 0
// when a suite's `before` hook throws (its runner returns from a `finally`): the suite's tests then count in
// Total but not in Passed, with no FAIL line. This makes that a failure of `npm test`, not only of .ci/run.
// It also prints the slowest test files (uvu reports only the total), so a slow suite shows where it spends.
import { spawn } from 'node:child_process';

const [dir = 'test', pattern = '\\.test\\.ts$'] = process.argv.slice(2);
const child = spawn('npx', ['uvu', '-r', 'tsx', dir, pattern], { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'inherit'] });
let tail = '';
let partial = '';
// uvu prints a file's name on a line of its own as it starts running that file's suites.
const fileStarts = [];
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  const text = chunk.toString('utf8');
  tail = (tail + text).slice(-4096);
  const lines = (partial + text).split('\n');
  partial = lines.pop() ?? '';
  for (const line of lines) if (/^\S+\.test\.[cm]?[jt]s$/.test(line.trim()) && !line.startsWith(' ')) fileStarts.push({ file: line.trim(), at: Date.now() });
});
child.on('close', (code, signal) => {
  printSlowest(Date.now());
  const total = Number(/Total:\s+(\d+)/.exec(tail)?.[1] ?? Number.NaN);
  const passed = Number(/Passed:\s+(\d+)/.exec(tail)?.[1] ?? Number.NaN);
  // A crash (an uncaught error in a test or in an in-process server) ends uvu before its summary: say in which file.
  if (Number.isNaN(total)) console.error(`uvu ended (exit code ${code}, signal ${signal}) without a summary, in ${fileStarts.at(-1)?.file ?? 'no test file'}`);
  if (code !== 0) process.exit(code ?? 1);
  if (!(passed === total)) {
    console.error(`${Number.isNaN(total) ? 'no uvu summary' : `${total - passed} of ${total} tests did not pass`} (a suite's before hook failed?)`);
    process.exit(1);
  }
});

/** The ten slowest files, each timed from its name to the next file's (the last one to the end). */
function printSlowest(end) {
  const timed = fileStarts.map((start, i) => ({ file: start.file, ms: (fileStarts[i + 1]?.at ?? end) - start.at }));
  timed.sort((a, b) => b.ms - a.ms);
  if (timed.length === 0) return;
  console.error(`slowest test files (of ${timed.length}):`);
  for (const { file, ms } of timed.slice(0, 10)) console.error(`  ${(ms / 1000).toFixed(1).padStart(6)} s  ${file}`);
}
