/** `--runtime` / `--workers` and SVC_RUNTIME / SVC_WORKERS (issue 13). */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseCliOptions, ServerBuilder, UsageError } from '../../../index.js';
import { createLogger } from '../../../engine/log/index.js';
import { ImposterManager } from '../../../engine/manager/index.js';
import { COMMAND_HELP } from '../../../tools/cli/usage.js';

const test = suite('runtime options');

function usageError(argv: string[]): string {
  try {
    parseCliOptions(argv, {});
  } catch (err) {
    assert.ok(err instanceof UsageError, String(err));
    return (err as Error).message;
  }
  throw new Error(`no usage error for ${argv.join(' ')}`);
}

test('--workers N and --runtime per-core; bad values are usage errors naming the flag', () => {
  const options = parseCliOptions(['--runtime', 'per-core', '--workers', '3'], {});
  assert.is(options.runtime, 'per-core');
  assert.is(options.workers, 3);
  for (const bad of ['0', '-1', 'two', '1.5', '']) assert.match(usageError(['--workers', bad]), /--workers/);
  assert.match(usageError(['--runtime', 'many']), /--runtime/);
});

test('SVC_RUNTIME / SVC_WORKERS set them; flags win', () => {
  const fromEnv = parseCliOptions([], { SVC_RUNTIME: 'per-core', SVC_WORKERS: '2' });
  assert.is(fromEnv.runtime, 'per-core');
  assert.is(fromEnv.workers, 2);
  const flags = parseCliOptions(['--workers', '4'], { SVC_WORKERS: '2' });
  assert.is(flags.workers, 4);
  const bad = parseCliOptions([], { SVC_WORKERS: 'lots' });
  assert.is(bad.workers, undefined);
  assert.ok(bad.warnings.some((w) => w.includes('SVC_WORKERS')));
});

test('the usage text lists both', () => {
  const spellings = COMMAND_HELP.start.options.map((option) => option.spellings);
  assert.ok(spellings.includes('--runtime single|per-core'));
  assert.ok(spellings.includes('--workers N'));
});

test('a manager without runtime settings follows SVC_RUNTIME / SVC_WORKERS; explicit settings win', async () => {
  const saved = { runtime: process.env.SVC_RUNTIME, workers: process.env.SVC_WORKERS };
  const log = createLogger({ level: 'error', quiet: true });
  try {
    process.env.SVC_RUNTIME = 'per-core';
    process.env.SVC_WORKERS = '3';
    assert.is(new ImposterManager({ allowInjection: false, log }).runtime?.workers, 3);
    assert.is(new ImposterManager({ allowInjection: false, log, runtime: { mode: 'single', workers: 1 } }).runtime, undefined);
    process.env.SVC_RUNTIME = 'single';
    assert.is(new ImposterManager({ allowInjection: false, log }).runtime, undefined);
  } finally {
    for (const [name, value] of [
      ['SVC_RUNTIME', saved.runtime],
      ['SVC_WORKERS', saved.workers],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
});

test('--runtime single given explicitly wins over SVC_RUNTIME (absent, SVC_RUNTIME decides)', async () => {
  assert.is(parseCliOptions([], {}).runtime, undefined);
  assert.is(parseCliOptions(['--runtime', 'single'], { SVC_RUNTIME: 'per-core' }).runtime, 'single');
  const saved = process.env.SVC_RUNTIME;
  const log = createLogger({ level: 'error', quiet: true });
  try {
    process.env.SVC_RUNTIME = 'per-core';
    const argv = ['--runtime', 'single', '--port', '0', '--host', '127.0.0.1', '--metrics-port', '0', '--nologfile'];
    const server = await ServerBuilder.fromCli(parseCliOptions(argv, {})).logger(log).start();
    try {
      assert.is(server.manager.runtime, undefined);
    } finally {
      await server.shutdown();
    }
  } finally {
    if (saved === undefined) delete process.env.SVC_RUNTIME;
    else process.env.SVC_RUNTIME = saved;
  }
});

test.run();
