/**
 * Issue 23 item 4: a data directory that cannot take a write (full disk, EACCES) never loses or tears an
 * imposter. Every admin call that answers success has its file whole on disk; one whose write fails
 * answers a 503 §7 envelope naming the cause, the running imposter stays as it was, no torn or temp file
 * is left, and every file parses after a restart.
 *
 * The full-disk cases mount their own 64 KiB tmpfs, which needs root; without it they say so and run
 * against a read-only (EACCES) directory instead.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseCliOptions, ServerBuilder, type RunningServer } from '../../../index.js';
import { createLogger } from '../../../engine/log/index.js';
import { freePort, http } from '../../support/servers.js';
import { runSvc } from '../../support/run-svc.js';
import { adminCaller } from '../../support/in-process.js';

const test = suite('data directory write failures');
const isRoot = process.getuid?.() === 0;
let root: string;
let fullDisk: string | undefined;
/** A second, smaller tmpfs for `svc save` (undefined when the first could not be mounted). */
let saveDisk: string | undefined;
let server: RunningServer | undefined;

/** Mounts a 64 KiB tmpfs (root only); undefined, with a line saying why, when it cannot. */
function mountSmallTmpfs(dir: string, size: string): string | undefined {
  if (!isRoot) {
    console.log('datadir-write-failures: not root, so no tmpfs of our own: the full-disk cases run against a read-only (EACCES) directory');
    return undefined;
  }
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
    return dir;
  } catch (err) {
    console.log(
      `datadir-write-failures: mount -t tmpfs failed (${(err as Error).message.trim()}): the full-disk cases run against a read-only (EACCES) directory`,
    );
    return undefined;
  }
}

test.before(() => {
  root = mkdtempSync(join(tmpdir(), 'svc-datadir-failures-'));
  // Open to the unprivileged uid denyWrites runs as, so it can still read what it lists.
  chmodSync(root, 0o755);
  const mountPoint = join(root, 'small');
  mkdirSync(mountPoint);
  fullDisk = mountSmallTmpfs(mountPoint, '64k');
  if (fullDisk) {
    saveDisk = join(root, 'save');
    mkdirSync(saveDisk);
    saveDisk = mountSmallTmpfs(saveDisk, '16k');
  }
});

test.after.each(async () => {
  allowWrites?.();
  await server?.shutdown();
  server = undefined;
});

test.after(() => {
  if (fullDisk) execFileSync('umount', [fullDisk]);
  if (saveDisk) execFileSync('umount', [saveDisk]);
  rmSync(root, { recursive: true, force: true });
});

async function start(datadir: string): Promise<number> {
  const options = parseCliOptions(['--port', '0', '--host', '127.0.0.1', '--metrics-port', '0', '--nologfile', '--datadir', datadir], {});
  server = await ServerBuilder.fromCli(options)
    .logger(createLogger({ level: 'error', quiet: true }))
    .start();
  return server.adminAddr().port;
}

async function restart(datadir: string): Promise<number> {
  await server?.shutdown();
  server = undefined;
  return start(datadir);
}

/** A stub whose body makes the imposter file about `bytes` long. */
const bulky = (bytes: number, tag = 'x') => ({ responses: [{ is: { body: tag.repeat(bytes) } }] });

/** Every file in the directory: no temp file, and each `<port>.json` parses. */
function filesOnDisk(dir: string): Map<number, Record<string, unknown>> {
  const files = new Map<number, Record<string, unknown>>();
  for (const name of readdirSync(dir)) {
    if (name === 'lost+found') continue;
    assert.ok(!name.endsWith('.tmp'), `no temp file is left: ${name}`);
    const port = /^(\d+)\.json$/.exec(name);
    assert.ok(port, `only imposter files: ${name}`);
    files.set(Number(port[1]), JSON.parse(readFileSync(join(dir, name), 'utf8')));
  }
  return files;
}

function assertUnavailable(answer: { status: number; json: any }, cause: RegExp): void {
  assert.is(answer.status, 503, JSON.stringify(answer.json));
  const [entry] = answer.json.errors;
  assert.is(entry.type, 'service_unavailable');
  assert.match(entry.message, cause);
}

/**
 * Makes writes into `dir` fail with EACCES until the returned restore runs: a read-only mode, and, since
 * modes do not stop root, an unprivileged effective uid for this process meanwhile.
 */
function denyWrites(dir: string): void {
  chmodSync(dir, 0o555);
  if (isRoot) process.seteuid!(65534);
  allowWrites = () => {
    allowWrites = undefined;
    if (isRoot) process.seteuid!(0);
    chmodSync(dir, 0o755);
  };
}

/** Undoes denyWrites (also after a failed test). */
let allowWrites: (() => void) | undefined;

test('a full disk: 201 only for what is on disk, 503 with the cause for the rest, the running set unchanged, every file parses after a restart', async () => {
  const dir = fullDisk ?? join(root, 'read-only-instead');
  mkdirSync(dir, { recursive: true });
  const call = adminCaller(await start(dir));
  const cause = fullDisk ? /ENOSPC/ : /EACCES/;
  const created: number[] = [];
  let refused: { port: number; answer: { status: number; json: any } } | undefined;
  if (!fullDisk) {
    const port = await freePort();
    assert.is((await call('POST', '/imposters', { protocol: 'http', port, stubs: [bulky(6000)] })).status, 201);
    created.push(port);
    denyWrites(dir);
  }
  // ~6 KB imposters until the disk is full (16 of 4 KiB pages hold at most 8 of them).
  for (let i = 0; i < 16 && !refused; i++) {
    const port = await freePort();
    const answer = await call('POST', '/imposters', { protocol: 'http', port, stubs: [bulky(6000)] });
    if (answer.status === 201) created.push(port);
    else refused = { port, answer };
  }
  assert.ok(refused, 'the disk filled up');
  assert.ok(created.length > 0);
  assertUnavailable(refused.answer, cause);
  assert.is((await call('GET', `/imposters/${refused.port}`)).status, 404, 'the refused imposter is not running');
  assert.is((await http('GET', `http://127.0.0.1:${refused.port}/`).catch((err: NodeJS.ErrnoException) => err.code)) as string, 'ECONNREFUSED');
  assert.equal([...filesOnDisk(dir).keys()].sort(), [...created].sort(), 'exactly the 201s are on disk');

  // A stub list too big for the space left: 503, the imposter serves and reads as before, its file too.
  const [first] = created;
  const before = (await call('GET', `/imposters/${first}?replayable=true`)).json;
  const fileBefore = readFileSync(join(dir, `${first}.json`), 'utf8');
  assertUnavailable(await call('PUT', `/imposters/${first}/stubs`, { stubs: [bulky(40_000, 'y')] }), cause);
  assertUnavailable(await call('POST', `/imposters/${first}/stubs`, { stub: bulky(40_000, 'z') }), cause);
  assert.equal((await call('GET', `/imposters/${first}?replayable=true`)).json, before, 'the running imposter is unchanged');
  assert.is((await http('GET', `http://127.0.0.1:${first}/`)).body, 'x'.repeat(6000));
  assert.is(readFileSync(join(dir, `${first}.json`), 'utf8'), fileBefore, 'its file is unchanged');

  // A bulk replace that cannot be written keeps that imposter as it was too (reported, as bulk failures are).
  const everything = (await call('GET', '/imposters?replayable=true')).json.imposters as Array<{ port: number; stubs: unknown[] }>;
  const bulk = await call('PUT', '/imposters', {
    imposters: everything.map((imposter) => (imposter.port === first ? { ...imposter, stubs: [bulky(40_000, 'w')] } : imposter)),
  });
  assert.is(bulk.status, 500);
  const report = bulk.json.errors[0];
  assert.is(report.type, 'apply_failed');
  assert.ok(
    report.failed.some((f: { port: number; error: string }) => f.port === first && cause.test(f.error)),
    JSON.stringify(report.failed),
  );
  assert.is((await http('GET', `http://127.0.0.1:${first}/`)).body, 'x'.repeat(6000));

  // A ~12 KB imposter where one 6 KB one was: never a torn file.
  if (fullDisk) {
    const gone = created.pop()!;
    assert.is((await call('DELETE', `/imposters/${gone}`)).status, 200);
    const port = await freePort();
    assertUnavailable(await call('POST', '/imposters', { protocol: 'http', port, stubs: [bulky(12_000)] }), cause);
    assert.is((await call('GET', `/imposters/${port}`)).status, 404);
  }
  const onDisk = filesOnDisk(dir);
  assert.equal([...onDisk.keys()].sort(), [...created].sort());

  // After a restart every file parses and exactly the acknowledged imposters come back.
  allowWrites?.();
  const again = adminCaller(await restart(dir));
  const listed = (await again('GET', '/imposters')).json.imposters.map((i: { port: number }) => i.port);
  assert.equal(listed.sort(), [...created].sort());
  assert.equal((await again('GET', `/imposters/${first}?replayable=true`)).json, before);
});

test('EACCES: a data directory that refuses writes answers 503 and leaves the imposter as it was', async () => {
  const dir = join(root, 'eacces');
  mkdirSync(dir);
  const call = adminCaller(await start(dir));
  const port = await freePort();
  assert.is((await call('POST', '/imposters', { protocol: 'http', port, stubs: [bulky(10)] })).status, 201);
  const before = (await call('GET', `/imposters/${port}?replayable=true`)).json;
  const other = await freePort();
  // Root is never refused by file modes: the call runs with an unprivileged effective uid instead.
  denyWrites(dir);
  let stubs: { status: number; json: any };
  let create: { status: number; json: any };
  try {
    stubs = await call('PUT', `/imposters/${port}/stubs`, { stubs: [bulky(20, 'n')] });
    create = await call('POST', '/imposters', { protocol: 'http', port: other, stubs: [bulky(10)] });
  } finally {
    allowWrites?.();
  }
  assertUnavailable(stubs, /EACCES/);
  assertUnavailable(create, /EACCES/);
  assert.equal((await call('GET', `/imposters/${port}?replayable=true`)).json, before);
  assert.is((await call('GET', `/imposters/${other}`)).status, 404);
  assert.equal([...filesOnDisk(dir).keys()], [port]);
  // Writable again: the same calls succeed and are on disk.
  assert.is((await call('PUT', `/imposters/${port}/stubs`, { stubs: [bulky(20, 'n')] })).status, 200);
  assert.is((filesOnDisk(dir).get(port)!.stubs as any[])[0].responses[0].is.body, 'n'.repeat(20));
});

test('svc save onto a full disk (or a read-only directory) exits 1 naming the cause and leaves the old file whole', async () => {
  const dir = saveDisk ?? join(root, 'save-read-only');
  mkdirSync(dir, { recursive: true });
  const savefile = join(dir, 'svc.json');
  writeFileSync(savefile, '{"imposters": []}');
  const adminPort = await start(join(root, 'save-datadir'));
  const port = await freePort();
  assert.is((await adminCaller(adminPort)('POST', '/imposters', { protocol: 'http', port, stubs: [bulky(40_000)] })).status, 201);
  if (!saveDisk && isRoot) {
    // Root without a tmpfs of its own: file modes do not stop root, a file where a folder should be does.
    console.log('datadir-write-failures: svc save is refused by ENOTDIR instead of a full disk');
    const run = await runSvc(['save', '--port', String(adminPort), '--savefile', join(savefile, 'svc.json')]);
    assert.is(run.status, 1, run.stderr);
    assert.match(run.stderr, /ENOTDIR/);
    assert.equal(readdirSync(dir), ['svc.json']);
    return;
  }
  // The CLI is a child process: modes stop it unless it runs as root (handled above).
  const restore = saveDisk ? () => undefined : () => chmodSync(dir, 0o755);
  if (!saveDisk) chmodSync(dir, 0o555);
  let run: Awaited<ReturnType<typeof runSvc>>;
  try {
    run = await runSvc(['save', '--port', String(adminPort), '--savefile', savefile]);
  } finally {
    restore();
  }
  assert.is(run.status, 1, run.stderr);
  assert.match(run.stderr, saveDisk ? /ENOSPC/ : /EACCES/);
  assert.is(readFileSync(savefile, 'utf8'), '{"imposters": []}', 'the old file is whole');
  assert.equal(readdirSync(dir), ['svc.json'], 'no temp file is left');
});

test.run();
