/**
 * `svc script eval` end to end: spawns the real CLI and checks stdout, stderr and exit codes.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { svcCli } from '../../support/svc-cli.js';

const root = new URL('../../..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'svc-rhai-cli-'));

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

function svc(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [...svcCli, 'script', 'eval', ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('prints the last expression as JSON and exits 0; print goes to stderr', () => {
  const f = file('ok.rhai', 'print("side note");\nlet m = #{b: [1, 2.5, ()], a: "x"};\nm.c = 40 + 2;\nm\n');
  const r = svc(f);
  assert.is(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout), { a: 'x', b: [1, 2.5, null], c: 42 });
  assert.match(r.stderr, /side note/);
  assert.not.match(r.stdout, /side note/);
});

test('unit prints null', () => {
  const r = svc(file('unit.rhai', 'let x = 1;'));
  assert.is(r.code, 0);
  assert.is(r.stdout.trim(), 'null');
});

test('--request builds ctx and calls respond(ctx)', () => {
  const script = file(
    'respond.rhai',
    [
      'fn respond(ctx) {',
      '  let hits = ctx.state.incr("hits");',
      '  if ctx.request.method == "POST" && ctx.request.json.name != () {',
      '    http(201, #{ greeting: `hi ${ctx.request.json.name}`, hits: hits, ua: ctx.request.header("USER-AGENT") })',
      '      .header("X-Flow", ctx.flowId)',
      '  } else {',
      '    http(400, "bad request")',
      '  }',
      '}',
    ].join('\n'),
  );
  const req = file('req.json', JSON.stringify({ method: 'post', path: '/users', headers: { 'User-Agent': 'cli-test' }, body: { name: 'ann' } }));
  const r = svc(script, '--request', req);
  assert.is(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.is(out.status, 201);
  assert.equal(out.headers, { 'X-Flow': 'cli', 'Content-Type': 'application/json' });
  assert.equal(JSON.parse(out.body), { greeting: 'hi ann', hits: 1, ua: 'cli-test' });

  const get = file('get.json', JSON.stringify({ method: 'GET', path: '/users' }));
  const r2 = svc(script, '--request', get);
  assert.equal(JSON.parse(r2.stdout), { status: 400, headers: {}, body: 'bad request' });
});

test('--request without respond runs the top level with ctx in scope; logger goes to stderr', () => {
  const script = file('bare.rhai', 'ctx.logger.info("path is " + ctx.request.path);\nif ctx.request.query.id == "7" { delay(250) } else { pass() }\n');
  const req = file('q.json', JSON.stringify({ path: '/x', query: { id: '7' } }));
  const r = svc(script, '--request', req);
  assert.is(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout), { delay: 250 });
  assert.match(r.stderr, /INFO path is \/x/);
});

test('a parse error prints file:line:column and exits 1', () => {
  const f = file('bad.rhai', 'let a = 1;\nlet b = (a + ;\n');
  const r = svc(f);
  assert.is(r.code, 1);
  assert.is(r.stdout, '');
  assert.ok(r.stderr.includes(`${f}:2:14: parse error: Unexpected ';'`), r.stderr);
});

test('a runtime error prints file:line:column and exits 1', () => {
  const f = file('boom.rhai', 'let a = [1, 2];\nlet i = 5;\na[i]\n');
  const r = svc(f);
  assert.is(r.code, 1);
  assert.ok(r.stderr.includes(`${f}:3:2: runtime error: Array index 5 out of bounds`), r.stderr);
});

test('a runaway script hits the deadline and exits 1', () => {
  const r = svc(file('spin.rhai', 'loop {}'), '--deadline-ms', '100');
  assert.is(r.code, 1);
  assert.match(r.stderr, /timeout error: Script terminated/);
});

test('--engine javascript runs the script as a _svc.script body: returned values and result constructors print as JSON', () => {
  const value = svc(file('x.js', 'return [1 + 1, "a"];'));
  assert.is(value.code, 0, value.stderr);
  assert.equal(JSON.parse(value.stdout), [2, 'a']);
  const req = file('js-req.json', JSON.stringify({ method: 'post', path: '/users', body: { name: 'ann' } }));
  const script = file(
    'respond.js',
    'function respond(ctx) { ctx.state.incr("n"); return http(201, { hi: ctx.request.json.name, n: ctx.state.get("n") }).header("X-A", "1"); }',
  );
  const r = svc(script, '--request', req);
  assert.is(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal([out.status, out.headers, JSON.parse(out.body)], [201, { 'X-A': '1', 'Content-Type': 'application/json' }, { hi: 'ann', n: 1 }]);
  const broken = svc(file('broken.js', 'throw new Error("nope");'), '--engine', 'js');
  assert.is(broken.code, 1);
  assert.match(broken.stderr, /runtime error: Error: nope/);
});

test('usage errors exit 2', () => {
  assert.is(svc(file('x.rhai', '1'), '--engine', 'lua').code, 2);
  assert.is(svc().code, 2);
  assert.is(svc(join(dir, 'missing.rhai')).code, 2);
});

test.run();
