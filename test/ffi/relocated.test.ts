/**
 * ffi/build/ copied anywhere works: the library starts the self-contained engine bundle next to it
 * (svc-engine.mjs) and the worker bundles under svc-engine/, with no checkout, dist/ or node_modules
 * around it, and the release manifest lists every file the copy needs.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { freePort, http, repoRoot } from '../support/servers.js';
import { tempDirForSuite } from '../support/temp-dir.js';
import { AbiRun, buildDir, compileAbi } from '../support/abi-program.js';

const temp = tempDirForSuite(test, 'svc-ffi-copy-');

interface Manifest {
  engine?: { file: string; sha256: string; files?: Array<{ file: string; sha256: string }> };
}

const manifest = (): Manifest => JSON.parse(readFileSync(join(buildDir, 'ffi-manifest.json'), 'utf8')) as Manifest;

/**
 * ffi/build.mjs run (it bundles from dist/, which npm test builds first), then the library and the files
 * the manifest lists copied away: a file the engine needs but the manifest misses fails the tests below.
 */
let copied: { lib: string; program: string } | undefined;
function copiedLibrary(): { lib: string; program: string } {
  if (copied) return copied;
  execFileSync(process.execPath, [join(repoRoot, 'ffi', 'build.mjs')], { stdio: 'ignore' });
  const lib = join(temp.path, 'elsewhere', 'lib');
  for (const file of ['libsvc_ffi.so', ...(manifest().engine?.files ?? []).map((listed) => listed.file)]) {
    mkdirSync(dirname(join(lib, file)), { recursive: true });
    copyFileSync(join(buildDir, file), join(lib, file));
  }
  const program = compileAbi(join(temp.path, 'abi'), lib);
  copied = { lib, program };
  return copied;
}

/** Only node on PATH: no NODE_OPTIONS, NODE_PATH or SVC_FFI_HOST, and the program runs from the temp folder. */
function bareRun(args: string[]): AbiRun {
  const env: NodeJS.ProcessEnv = { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, HOME: process.env.HOME };
  return new AbiRun(copiedLibrary().program, args, env, temp.path);
}

test('a copied ffi/build/ serves svc_start from the bundle beside the library', async () => {
  const { lib } = copiedLibrary();
  const run = bareRun(['threads']);
  try {
    assert.is(await run.next('thread_good', 60_000), 'ok=200 errors_right=200');
    assert.is(await run.next('thread_failing'), 'ok=0 errors_right=200');
    assert.is(await run.finish(), 0);
  } finally {
    await run.kill();
  }
  assert.ok(lib.startsWith(temp.path), 'the library ran from the copy');
});

test('a copied ffi/build/ runs inject, JavaScript predicates and _svc.script in its worker bundles', async () => {
  const port = await freePort();
  const script = (engine: string, code: string) => ({ _svc: { script: { engine, code } } });
  const onPath = (path: string) => [{ equals: { path } }];
  const imposter = {
    port,
    protocol: 'http',
    stubs: [
      { predicates: [{ inject: "function (config) { return config.request.path === '/predicate'; }" }], responses: [{ is: { body: 'js predicate' } }] },
      {
        predicates: onPath('/inject'),
        responses: [{ inject: "function (config) { return { statusCode: 201, body: 'injected ' + config.request.method }; }" }],
      },
      // A loop: the sandbox bounds it through acorn, which the worker bundle carries.
      {
        predicates: onPath('/js'),
        responses: [
          script('javascript', "function respond(ctx) { let n = 0; for (let i = 0; i < 3; i++) n += ctx.state.incr('js'); return http(202, 'js ' + n); }"),
        ],
      },
      { predicates: onPath('/rhai'), responses: [script('rhai', 'let n = ctx.state.incr("rhai"); http(203, "rhai " + ctx.request.path + " " + n)')] },
    ],
  };
  const run = bareRun(['serve', JSON.stringify({ port: await freePort(), config: { imposters: [imposter] } })]);
  try {
    await run.json('serve_admin');
    assert.is((await run.json('list_imposters')).imposters[0].port, port);
    await run.pause('serving');
    const url = `http://127.0.0.1:${port}`;
    // The first call of each kind starts its worker thread (a cold QuickJS): generous on a loaded machine.
    const predicate = await http('GET', `${url}/predicate`, { timeoutMs: 60_000 });
    assert.equal([predicate.status, predicate.body], [200, 'js predicate']);
    const injected = await http('POST', `${url}/inject`, { timeoutMs: 60_000 });
    assert.equal([injected.status, injected.body], [201, 'injected POST']);
    const js = await http('GET', `${url}/js`, { timeoutMs: 60_000 });
    assert.equal([js.status, js.body], [202, 'js 6']);
    const rhai = await http('GET', `${url}/rhai`, { timeoutMs: 60_000 });
    assert.equal([rhai.status, rhai.body], [203, 'rhai /rhai 1']);
    run.resume();
    assert.is(await run.finish(), 0);
  } finally {
    await run.kill();
  }
});

test('the release manifest lists the engine bundle, its workers and their wasm with digests', () => {
  const engine = manifest().engine;
  assert.is(engine?.file, 'svc-engine.mjs');
  const digest = (file: string) =>
    createHash('sha256')
      .update(readFileSync(join(buildDir, file)))
      .digest('hex');
  assert.is(engine?.sha256, digest('svc-engine.mjs'));
  const files = engine?.files ?? [];
  for (const expected of [
    'svc-engine.mjs',
    'svc-engine/engine/script/js/worker.mjs',
    'svc-engine/engine/script/js/emscripten-module.wasm',
    'svc-engine/engine/script/svc/worker.mjs',
  ]) {
    assert.ok(
      files.some((listed) => listed.file === expected),
      `${expected} listed`,
    );
  }
  for (const listed of files) assert.is(listed.sha256, digest(listed.file), listed.file);
});

test.run();
