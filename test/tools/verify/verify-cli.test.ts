/** `svc verify <configfile>` (docs/recording-and-verify.md) through the real CLI, and `_verify` on the admin API. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runSvc, type CliRun } from '../../support/run-svc.js';
import { startInProcess } from '../../support/in-process.js';
import { verifyCommand } from '../../../tools/verify/index.js';
import { tempDirForSuite } from '../../support/temp-dir.js';

const test = suite('svc verify');
const dir = tempDirForSuite(test, 'svc-verify-');

function config(name: string, stubs: unknown[]): string {
  return dir.file(name, JSON.stringify({ imposters: [{ protocol: 'http', port: 4545, stubs }] }));
}

/** The verdict line of stub `index` of imposter 4545. */
function line(run: CliRun, index: number): string {
  const found = run.stdout.split('\n').find((l) => l.includes(`imposter 4545 stub ${index}`));
  assert.ok(found, `no line for stub ${index} in:\n${run.stdout}${run.stderr}`);
  return found;
}

const hello = {
  id: 'hello',
  predicates: [{ equals: { method: 'POST', path: '/hello', body: 'ping', headers: { 'X-Kind': 'a' } } }],
  responses: [{ is: { statusCode: 201, body: 'hello world' } }],
  _verify: {
    sequence: [
      { request: { method: 'POST', path: '/hello', body: 'ping', headers: { 'X-Kind': 'a' } }, expect: { status: 201, bodyEquals: 'hello world' } },
      { request: { method: 'POST', path: '/hello', body: 'ping', headers: { 'X-Kind': 'a' } }, expect: { bodyContains: 'world' } },
      // Defaults: GET, no headers, no body; an empty expect matches any answer (here the 404 below).
      { request: { path: '/hello' }, expect: {} },
    ],
  },
};
const fallback = { responses: [{ is: { statusCode: 404, body: 'none' } }] };

test('static stubs: PASS when every step meets its expect, exit 0, one line per stub and a summary', async () => {
  const run = await runSvc(['verify', config('ok.json', [hello, fallback])]);
  assert.is(run.status, 0, run.stdout + run.stderr);
  assert.match(line(run, 0), /^PASS imposter 4545 stub 0 \(hello\): 3 step\(s\)$/);
  assert.match(line(run, 1), /^SKIP .*no _verify sequence/);
  assert.match(run.stdout, /1 passed, 0 failed, 1 skipped\n$/);
});

test('https imposters and YAML files are verified too', async () => {
  const file = dir.file(
    'secure.yaml',
    [
      '- protocol: https',
      '  port: 4545',
      '  stubs:',
      '    - responses: [{ is: { statusCode: 202, body: secure } }]',
      '      _verify: { sequence: [{ request: { path: /x }, expect: { status: 202, bodyEquals: secure } }] }',
      '',
    ].join('\n'),
  );
  const run = await runSvc(['verify', file]);
  assert.is(run.status, 0, run.stdout + run.stderr);
  assert.match(line(run, 0), /^PASS .*1 step\(s\)/);
});

test('a failed expectation and a malformed _verify are FAILs with reasons, exit 1', async () => {
  const wrongStatus = {
    predicates: [{ equals: { path: '/a' } }],
    responses: [{ is: { statusCode: 200, body: 'a' } }],
    _verify: { sequence: [{ request: { path: '/a' }, expect: { status: 500 } }] },
  };
  const wrongBody = {
    predicates: [{ equals: { path: '/b' } }],
    responses: [{ is: { body: 'bbb' } }],
    _verify: { sequence: [{ request: { path: '/b' }, expect: { bodyEquals: 'b' } }] },
  };
  const missingContains = {
    predicates: [{ equals: { path: '/c' } }],
    responses: [{ is: { body: 'ccc' } }],
    _verify: { sequence: [{ request: { path: '/c' }, expect: { bodyContains: 'zzz' } }] },
  };
  const noRequest = { predicates: [{ equals: { path: '/d' } }], responses: [{ is: {} }], _verify: { sequence: [{ expect: { status: 200 } }] } };
  const notArray = { predicates: [{ equals: { path: '/e' } }], responses: [{ is: {} }], _verify: { sequence: 'GET /e' } };
  const run = await runSvc(['verify', config('fail.json', [wrongStatus, wrongBody, missingContains, noRequest, notArray])]);
  assert.is(run.status, 1, run.stdout + run.stderr);
  assert.match(line(run, 0), /^FAIL .*step 1 \(GET \/a\): expected status 500, got 200/);
  assert.match(line(run, 1), /^FAIL .*expected body "b", got "bbb"/);
  assert.match(line(run, 2), /^FAIL .*expected body containing "zzz"/);
  assert.match(line(run, 3), /^FAIL .*malformed _verify: .*request/);
  assert.match(line(run, 4), /^FAIL .*malformed _verify: .*sequence/);
  assert.match(run.stdout, /0 passed, 5 failed, 0 skipped/);
});

const proxy = { predicates: [{ equals: { path: '/proxied' } }], responses: [{ proxy: { to: 'http://127.0.0.1:9', mode: 'proxyAlways' } }] };
const latency = { predicates: [{ equals: { path: '/slow' } }], responses: [{ is: { body: 'late' }, _svc: { fault: { latency: { ms: 150 } } } }] };
const error = { predicates: [{ equals: { path: '/err' } }], responses: [{ is: { body: 'x' }, _svc: { fault: { error: { probability: 1, status: 503 } } } }] };
const tcp = { predicates: [{ equals: { path: '/reset' } }], responses: [{ fault: 'CONNECTION_RESET_BY_PEER' }] };
const maybe = { predicates: [{ equals: { path: '/maybe' } }], responses: [{ is: {}, _svc: { fault: { tcp: { probability: 0.5, type: 'reset' } } } }] };
const injected = {
  predicates: [{ equals: { path: '/inj' } }],
  responses: [{ inject: "function (config) { return { statusCode: 202, body: 'injected ' + config.request.path }; }" }],
  _verify: { sequence: [{ request: { path: '/inj' }, expect: { status: 202, bodyEquals: 'injected /inj' } }] },
};
const dynamicStubs = [proxy, latency, error, tcp, maybe, injected, hello];

test('default mode: dynamic stubs without _verify are a visible SKIP; a dynamic stub with _verify is verified', async () => {
  const run = await runSvc(['verify', config('dynamic.json', dynamicStubs)]);
  assert.is(run.status, 0, run.stdout + run.stderr);
  for (const index of [0, 1, 2, 3, 4]) assert.match(line(run, index), /^SKIP .*dynamic \(.+\): nothing to verify with/);
  assert.match(line(run, 0), /dynamic \(proxy\)/);
  assert.match(line(run, 5), /^PASS .*1 step\(s\)/);
  assert.match(line(run, 6), /^PASS /);
});

test('--skip-dynamic: every dynamic stub is SKIP, static stubs are still verified', async () => {
  const run = await runSvc(['verify', config('skip.json', dynamicStubs), '--skip-dynamic']);
  assert.is(run.status, 0, run.stdout + run.stderr);
  for (const index of [0, 1, 2, 3, 4, 5]) assert.match(line(run, index), /^SKIP .*--skip-dynamic/);
  assert.match(line(run, 6), /^PASS /);
});

test('--verify-dynamic: proxy via the embedded upstream, deterministic faults checked, probabilistic ones SKIP', async () => {
  const run = await runSvc(['verify', config('verify-dynamic.json', dynamicStubs), '--verify-dynamic']);
  assert.is(run.status, 0, run.stdout + run.stderr);
  assert.match(line(run, 0), /^PASS .*GET \/proxied proxied to the embedded upstream/);
  assert.match(line(run, 1), /^PASS .*latency \d+ ms >= 150 ms/);
  assert.match(line(run, 2), /^PASS .*error status 503/);
  assert.match(line(run, 3), /^PASS .*tcp fault observed/);
  assert.match(line(run, 4), /^SKIP .*probabilistic/);
  assert.match(line(run, 5), /^PASS .*1 step\(s\)/);
});

test('--verify-dynamic: a fault the request never reaches is a FAIL', async () => {
  const catchAll = { responses: [{ is: { statusCode: 200 } }] };
  const run = await runSvc(['verify', config('shadowed.json', [catchAll, error, tcp]), '--verify-dynamic']);
  assert.is(run.status, 1, run.stdout + run.stderr);
  assert.match(line(run, 1), /^FAIL .*expected error status 503, got 200/);
  assert.match(line(run, 2), /^FAIL .*expected the connection reset, got status 200/);
});

test('a response with `is` and `proxy: null` is a static `is` (docs/responses.md precedence), in every mode', async () => {
  const isBesideNullProxy = {
    predicates: [{ equals: { path: '/plain' } }],
    responses: [{ is: { statusCode: 200, body: 'plain' }, proxy: null }],
    _verify: { sequence: [{ request: { path: '/plain' }, expect: { status: 200, bodyEquals: 'plain' } }] },
  };
  const withoutVerify = { predicates: [{ equals: { path: '/other' } }], responses: [{ is: { body: 'o' }, proxy: null, inject: null }] };
  for (const flags of [[], ['--skip-dynamic'], ['--verify-dynamic'], ['--skip-dynamic', '--verify-dynamic']]) {
    const run = await runSvc(['verify', config('is-null-proxy.json', [isBesideNullProxy, withoutVerify]), ...flags]);
    const shown = `${flags.join(' ') || 'default'}:\n${run.stdout}${run.stderr}`;
    assert.is(run.status, 0, shown);
    assert.match(line(run, 0), /^PASS imposter 4545 stub 0: 1 step\(s\)$/, shown);
    assert.match(line(run, 1), /^SKIP imposter 4545 stub 1: no _verify sequence$/, shown);
  }
});

test('--skip-dynamic with --verify-dynamic: a static pass, then the dynamic stubs as --verify-dynamic checks them', async () => {
  const failing = {
    predicates: [{ equals: { path: '/bad' } }],
    responses: [{ is: { body: 'x' } }],
    _verify: { sequence: [{ request: { path: '/bad' }, expect: { status: 500 } }] },
  };
  const stubs = [...dynamicStubs, failing];
  const run = await runSvc(['verify', config('both.json', stubs), '--skip-dynamic', '--verify-dynamic']);
  assert.is(run.status, 1, run.stdout + run.stderr);
  const lines = run.stdout.trim().split('\n');
  // Static stubs (6: hello, 7: failing) first, then the dynamic ones in file order; each stub once.
  assert.equal(
    lines.slice(0, -1).map((l) => /stub (\d+)/.exec(l)?.[1]),
    ['6', '7', '0', '1', '2', '3', '4', '5'],
  );
  assert.match(line(run, 6), /^PASS /);
  assert.match(line(run, 7), /^FAIL .*expected status 500, got 200/);
  assert.match(line(run, 0), /^PASS .*proxied to the embedded upstream/);
  assert.match(line(run, 1), /^PASS .*latency \d+ ms >= 150 ms/);
  assert.match(line(run, 2), /^PASS .*error status 503/);
  assert.match(line(run, 3), /^PASS .*tcp fault observed/);
  assert.match(line(run, 4), /^SKIP .*probabilistic/);
  assert.match(line(run, 5), /^PASS .*1 step\(s\)/);
  assert.is(lines.at(-1), '6 passed, 1 failed, 1 skipped');
});

test('usage errors exit 2; an unreadable file exits 1 (in-process, stderr captured)', async () => {
  const written: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string) => {
    written.push(String(chunk));
    return true;
  }) as typeof process.stderr.write;
  let statuses: number[];
  try {
    statuses = [await verifyCommand([]), await verifyCommand(['x.json', '--bogus']), await verifyCommand([dir.path + '/missing.json'])];
  } finally {
    process.stderr.write = write;
  }
  assert.equal(statuses, [2, 2, 1]);
  assert.match(written.join(''), 'expected one config file');
  assert.match(written.join(''), 'missing.json');
});

test('the admin API accepts _verify on stubs and gives it back, replayable too', async () => {
  const svc = await startInProcess();
  try {
    const port = await svc.createImposter({ stubs: [hello] });
    const detail = (await svc.admin('GET', `/imposters/${port}`)).json;
    assert.equal(detail.stubs[0]._verify, hello._verify);
    const replayable = (await svc.admin('GET', `/imposters/${port}?replayable=true`)).json;
    assert.equal(replayable.stubs[0]._verify, hello._verify);
    const added = await svc.admin('POST', `/imposters/${port}/stubs`, { stub: { ...fallback, _verify: { sequence: [] } } });
    assert.is(added.status, 200, JSON.stringify(added.json));
    assert.equal((await svc.admin('GET', `/imposters/${port}`)).json.stubs[1]._verify, { sequence: [] });
  } finally {
    await svc.stop();
  }
});

test.run();
