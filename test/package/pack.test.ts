/**
 * svc as a package: `npm pack` of the built project, unpacked as node_modules/svc of a fresh consumer
 * folder (its other dependencies linked from this checkout, so nothing is downloaded), where a
 * TypeScript file importing `svc` and its subpaths type-checks against the emitted .d.ts and runs,
 * and the package's `bin` (the CLI bundle) serves. Needs the build (npm test builds first); the
 * bundle is remade here from it, as `npm run build` does.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, http, repoRoot, spawnServer } from '../support/servers.js';
import { tempDirForSuite } from '../support/temp-dir.js';

const run = promisify(execFile);
const test = suite('package: npm pack, import from a consumer');
const tmp = tempDirForSuite(test, 'svc-pack-');

const CONSUMER = `import { ServerBuilder, parseCliOptions, defaultCliOptions, VERSION, type CliOptions, type RunningServer } from 'svc';
import { parseCliOptions as parseArgv, KNOWN_FLAGS } from 'svc/cli';
import { ImposterManager } from 'svc/manager';
import { createLogger } from 'svc/log';

const options: CliOptions = parseCliOptions(['--port', '0', '--metrics-port', '0']);
// Typed options without argv, and the parser by its own subpath: the same CliOptions type.
export const typed: CliOptions = { ...defaultCliOptions(), port: 0, metricsPort: 0 };
export const parsed: CliOptions = parseArgv(['--port', '0']);
export const flags: string[] = KNOWN_FLAGS;
const builder: ServerBuilder = ServerBuilder.fromCli(options).logger(createLogger({ level: 'warn' })).version(VERSION);
// @ts-expect-error fromCli takes options, not a port: the types are real, not any.
ServerBuilder.fromCli(2525);
export const started: Promise<RunningServer> = builder.start();
export const managerClass: typeof ImposterManager = ImposterManager;
`;

const TSCONFIG = JSON.stringify({
  compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, types: ['node'] },
  files: ['consumer.ts'],
});

let consumer = '';

test.before(async () => {
  if (!existsSync(join(repoRoot, 'dist/app/index.d.ts'))) throw new Error('dist/ has no .d.ts: build first (npx tsc -p tsconfig.json)');
  await run(process.execPath, [join(repoRoot, 'tools/bundle.mjs')], { cwd: repoRoot });
  const packed = join(tmp.path, 'packed');
  mkdirSync(packed);
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', packed], { cwd: repoRoot });
  const tarball = join(packed, stdout.trim().split('\n').pop()!);
  consumer = join(tmp.path, 'consumer');
  const modules = join(consumer, 'node_modules');
  mkdirSync(join(modules, 'svc'), { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', join(modules, 'svc'), '--strip-components=1']);
  // The packed svc's dependencies (and @types/node for the consumer) come from this checkout.
  for (const name of readdirSync(join(repoRoot, 'node_modules'))) {
    if (name !== 'svc' && !name.startsWith('.')) symlinkSync(join(repoRoot, 'node_modules', name), join(modules, name));
  }
  tmp.file('consumer/consumer.ts', CONSUMER);
  tmp.file('consumer/tsconfig.json', TSCONFIG);
  tmp.file('consumer/package.json', JSON.stringify({ name: 'consumer', type: 'module', private: true }));
});

test('the tarball holds the build and its type declarations, not the sources or tests', () => {
  const root = join(consumer, 'node_modules/svc');
  for (const file of [
    'package.json',
    'dist/index.js',
    'dist/index.d.ts',
    'dist/app/index.js',
    'dist/tools/cli/options/index.d.ts',
    'dist/app/index.d.ts',
    'dist/tools/svc.js',
    'ffi/include/svc.h',
  ]) {
    assert.ok(existsSync(join(root, file)), `${file} missing from the package`);
  }
  for (const absent of ['test', 'engine', 'bench', 'tsconfig.json']) assert.not.ok(existsSync(join(root, absent)), `${absent} should not be packed`);
});

test("a consumer's `import { ServerBuilder } from 'svc'` type-checks against the packed .d.ts", async () => {
  const result = await run(process.execPath, [join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: consumer }).then(
    () => ({ ok: true, output: '' }),
    (err: { stdout?: string; stderr?: string }) => ({ ok: false, output: `${err.stdout ?? ''}${err.stderr ?? ''}` }),
  );
  assert.ok(result.ok, result.output);
});

test('the package entry and its subpaths resolve at run time', async () => {
  const probe =
    "const [svc, cli, manager, log] = await Promise.all([import('svc'), import('svc/cli'), import('svc/manager'), import('svc/log')]);"
    + 'console.log([typeof svc.ServerBuilder, typeof svc.VERSION, typeof manager.ImposterManager, typeof log.createLogger,'
    + ' svc.parseCliOptions === cli.parseCliOptions, typeof svc.defaultCliOptions].join(","));';
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', probe], { cwd: consumer });
  assert.is(stdout.trim(), 'function,string,function,function,true,function');
});

/** Starts svc per-core from the package, calls a static stub four times and a script once; prints the bodies. */
const THREADS_PROBE = `import { ServerBuilder, parseCliOptions } from 'svc';
const options = parseCliOptions(['--port', '0', '--metrics-port', '0', '--nologfile', '--loglevel', 'warn', '--runtime', 'per-core', '--workers', '2', '--allowInjection']);
const server = await ServerBuilder.fromCli(options).start();
try {
  const created = await fetch('http://127.0.0.1:' + server.adminAddr().port + '/imposters', {
    method: 'POST',
    body: JSON.stringify({ protocol: 'http', stubs: [
      { predicates: [{ equals: { path: '/js' } }], responses: [{ _svc: { script: { engine: 'js', code: 'return http(200, "js");' } } }] },
      { responses: [{ is: { body: 'static' } }] },
    ] }),
  });
  const { port } = await created.json();
  const bodies = [];
  for (const path of ['/', '/', '/', '/', '/js']) bodies.push(await (await fetch('http://127.0.0.1:' + port + path)).text());
  console.log(bodies.join(','));
} finally {
  await server.shutdown();
}`;

test('a program run as `node --input-type=module -e` starts engine threads and script workers from the package', async () => {
  // Workers inherit the parent's Node options, and Node refuses --input-type for a worker's file entry.
  const { stdout, stderr } = await run(process.execPath, ['--input-type=module', '-e', THREADS_PROBE], { cwd: consumer });
  // The last line: svc's own warn-level log lines come before it.
  assert.is(stdout.trim().split('\n').pop(), 'static,static,static,static,js');
  assert.not.match(stderr, /input-type|engine thread \d+ failed/);
});

test('process-wide Node options (--max-old-space-size, --expose-gc) do not stop engine threads and script workers from starting', async () => {
  // Node refuses them for a thread when execArgv is given: with --input-type (given, then retried without
  // them), and without it (inherited).
  writeFileSync(join(consumer, 'threads-probe.mjs'), THREADS_PROBE);
  for (const args of [
    ['--max-old-space-size=512', '--expose-gc', '--input-type=module', '-e', THREADS_PROBE],
    ['--max-old-space-size=512', '--expose-gc', 'threads-probe.mjs'],
  ]) {
    const { stdout, stderr } = await run(process.execPath, args, { cwd: consumer });
    assert.is(stdout.trim().split('\n').pop(), 'static,static,static,static,js', args.join(' '));
    assert.not.match(stderr, /invalid execArgv|could not start/);
  }
});

/** The packed package.json's `bin.svc`, as an absolute path inside the consumer's node_modules/svc. */
function packedBin(): string {
  const root = join(consumer, 'node_modules/svc');
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string; bin: { svc: string } };
  return join(root, pkg.bin.svc);
}

test('the packed `bin` prints the version', async () => {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
  const { stdout } = await run(process.execPath, [packedBin(), '--version'], { cwd: consumer });
  assert.is(stdout.trim(), pkg.version);
});

test('the packed `bin` serves: admin, script workers (rhai, javascript), dashboard assets, metrics', async () => {
  const [adminPort, metricsPort, imposterPort] = [await freePort(), await freePort(), await freePort()];
  const server = await spawnServer({
    command: process.execPath,
    args: [
      packedBin(),
      'start',
      '--port',
      String(adminPort),
      '--metrics-port',
      String(metricsPort),
      '--allowInjection',
      '--nologfile',
      '--pidfile',
      join(tmp.path, 'bin.pid'),
    ],
    cwd: consumer,
    adminPort,
    readyPath: '/',
  });
  try {
    const created = await http('POST', `http://127.0.0.1:${adminPort}/imposters`, {
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        port: imposterPort,
        protocol: 'http',
        stubs: [
          { predicates: [{ equals: { path: '/rhai' } }], responses: [{ _svc: { script: { code: 'http(200, "rhai " + ctx.request.path)' } } }] },
          { responses: [{ _svc: { script: { engine: 'js', code: 'return http(200, "js " + ctx.request.path);' } } }] },
        ],
      }),
    });
    assert.is(created.status, 201, created.body);
    assert.is((await http('GET', `http://127.0.0.1:${imposterPort}/rhai`)).body, 'rhai /rhai');
    assert.is((await http('GET', `http://127.0.0.1:${imposterPort}/js`)).body, 'js /js');
    const vendor = await http('GET', `http://127.0.0.1:${adminPort}/_dashboard/assets/vendor/preact.mjs`);
    assert.is(vendor.status, 200);
    const page = await http('GET', `http://127.0.0.1:${adminPort}/_dashboard/assets/index.html`);
    assert.is(page.status, 200);
    const metrics = await http('GET', `http://127.0.0.1:${metricsPort}/metrics`);
    assert.is(metrics.status, 200);
    assert.match(metrics.body, /svc_requests_total\{method="GET",status="200"\} 2/);
  } finally {
    await server.stop();
  }
});

test.run();
