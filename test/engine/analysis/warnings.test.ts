import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { analyzeStubs, MAX_WARNINGS } from '../../../engine/analysis/index.js';
import { createLogger } from '../../../engine/log/index.js';
import { ImposterManager } from '../../../engine/manager/index.js';
import { inProcessForSuite } from '../../support/in-process.js';
import { freePort } from '../../support/servers.js';

const ok = [{ is: { statusCode: 200 } }];
const route = (method: string, path: string, extra: Record<string, unknown> = {}) => ({ predicates: [{ equals: { method, path } }], responses: ok, ...extra });

const unit = suite('stub analysis rules (docs/metrics-and-events.md)');

unit('a clean routing table has no warnings', () => {
  assert.equal(analyzeStubs([route('GET', '/a'), route('GET', '/b'), route('POST', '/a')]), []);
});

unit('duplicate_id names the id and the stub', () => {
  const warnings = analyzeStubs([
    { id: 'x', ...route('GET', '/a') },
    { id: 'x', ...route('GET', '/b') },
  ]);
  assert.equal(
    warnings.map((w) => [w.warningType, w.stubIndex, w.stubId]),
    [['duplicate_id', 1, 'x']],
  );
  assert.match(warnings[0]!.message, /stub 0/);
});

unit('exact_duplicate: the same predicates in any order, same eligibility', () => {
  const warnings = analyzeStubs([
    { predicates: [{ equals: { path: '/a' } }, { exists: { query: { q: true } } }], responses: ok },
    { predicates: [{ exists: { query: { q: true } } }, { equals: { path: '/a' } }], responses: ok },
    { predicates: [{ equals: { path: '/a' } }, { exists: { query: { q: true } } }], responses: ok, space: 'tenant-1' },
  ]);
  assert.equal(
    warnings.map((w) => [w.warningType, w.stubIndex, w.shadowedByIndex]),
    [
      ['exact_duplicate', 1, 0],
      ['potentially_shadowed', 2, 0],
    ],
    'a stub scoped to a space is not a duplicate of an unscoped one, which still answers that space first',
  );
});

unit('potentially_shadowed: an earlier stub whose predicates are implied by the later one', () => {
  const warnings = analyzeStubs([
    { predicates: [{ startsWith: { path: '/api/' } }], responses: ok },
    route('GET', '/api/orders'),
    { predicates: [{ equals: { path: '/other' } }], responses: ok },
    route('POST', '/other'),
    { predicates: [{ equals: { path: '/Other' }, caseSensitive: true }], responses: ok },
    { predicates: [{ contains: { headers: { 'X-Tenant': 'acme' } } }], responses: ok },
    { predicates: [{ equals: { headers: { 'x-tenant': 'ACME-1' } } }], responses: ok },
    { predicates: [{ equals: { path: '/s' } }], requiredScenarioState: 'open', scenarioName: 'door', responses: ok },
    { predicates: [{ equals: { path: '/s' } }, { equals: { method: 'GET' } }], requiredScenarioState: 'closed', scenarioName: 'door', responses: ok },
  ]);
  assert.equal(
    warnings.map((w) => [w.warningType, w.stubIndex, w.shadowedByIndex]),
    [
      ['potentially_shadowed', 1, 0],
      ['potentially_shadowed', 3, 2],
      ['potentially_shadowed', 6, 5],
    ],
    'case-sensitive /Other is not implied by case-insensitive /other; different states of one scenario never compete',
  );
});

unit('predicates beyond the simple operators shadow only when identical', () => {
  const warnings = analyzeStubs([
    { predicates: [{ matches: { path: '^/a' } }], responses: ok },
    { predicates: [{ matches: { path: '^/a' } }, { equals: { method: 'GET' } }], responses: ok },
    { predicates: [{ matches: { path: '^/ab' } }], responses: ok },
  ]);
  assert.equal(
    warnings.map((w) => [w.warningType, w.stubIndex, w.shadowedByIndex]),
    [['potentially_shadowed', 1, 0]],
  );
});

unit('catch_all and catch_all_not_last', () => {
  const warnings = analyzeStubs([{ responses: ok }, route('GET', '/a'), { predicates: [], responses: ok }]);
  assert.equal(
    warnings.map((w) => [w.warningType, w.stubIndex]),
    [
      ['catch_all', 0],
      ['catch_all_not_last', 0],
      ['exact_duplicate', 2],
      ['catch_all', 2],
    ],
  );
  assert.equal(
    analyzeStubs([route('GET', '/a'), { responses: ok }]).map((w) => w.warningType),
    ['catch_all'],
  );
});

unit('more than 100 warnings: the first 100 then one truncated summary', () => {
  const stubs = Array.from({ length: 130 }, () => route('GET', '/same'));
  const warnings = analyzeStubs(stubs);
  assert.is(warnings.length, MAX_WARNINGS + 1);
  assert.is(warnings[99]!.warningType, 'exact_duplicate');
  assert.equal(Object.keys(warnings[100]!).sort(), ['message', 'warningType']);
  assert.is(warnings[100]!.warningType, 'truncated');
  assert.match(warnings[100]!.message, /^29 more warnings suppressed$/);
});

unit('a large routing table is analysed in linear-ish time', () => {
  const table = (size: number) => Array.from({ length: size }, (_, n) => route('GET', `/item/${n}`));
  const small = table(5_000);
  const large = table(20_000);
  // CPU time of this process, fastest of alternating runs: other processes' load moves neither.
  const cpuMs = (stubs: ReturnType<typeof table>) => {
    const started = process.cpuUsage();
    assert.equal(analyzeStubs(stubs), []);
    const used = process.cpuUsage(started);
    return (used.user + used.system) / 1000;
  };
  let smallMs = Infinity;
  let largeMs = Infinity;
  for (let run = 0; run < 3; run += 1) {
    smallMs = Math.min(smallMs, cpuMs(small));
    largeMs = Math.min(largeMs, cpuMs(large));
  }
  // Four times the stubs: linear is 4x, quadratic 16x.
  assert.ok(largeMs < 10 * Math.max(smallMs, 1), `5k stubs ${smallMs.toFixed(1)} ms, 20k stubs ${largeMs.toFixed(1)} ms`);
});

unit.run();

const admin = suite('stub warnings on the admin plane');
const svc = inProcessForSuite(admin);
let port: number;

admin.before.each(async () => {
  port = await freePort();
});

const types = (detail: any) => detail._svc.warnings.map((w: any) => [w.warningType, w.stubIndex]);

admin("GET /imposters/{port} returns _svc.warnings, merged with the imposter's own _svc block", async () => {
  const created = await svc.admin('POST', '/imposters', {
    port,
    protocol: 'http',
    _svc: { flowState: { backend: 'inmemory' } },
    stubs: [route('GET', '/a'), route('GET', '/a'), { predicates: [{ startsWith: { path: '/a' } }], responses: ok }, route('GET', '/a/b'), { responses: ok }],
  });
  assert.is(created.status, 201, created.body);
  const detail = (await svc.admin('GET', `/imposters/${port}`)).json;
  assert.equal(detail._svc.flowState, { backend: 'inmemory' });
  assert.equal(types(detail), [
    ['exact_duplicate', 1],
    ['potentially_shadowed', 3],
    ['catch_all', 4],
  ]);
  assert.is(detail._svc.warnings[0].shadowedByIndex, 0);
  const replayable = (await svc.admin('GET', `/imposters/${port}?replayable=true`)).json;
  assert.is(replayable._svc.warnings, undefined, 'warnings are output only');
});

admin('warnings follow stub changes (replace, add, delete)', async () => {
  await svc.admin('POST', '/imposters', { port, protocol: 'http', stubs: [route('GET', '/a')] });
  assert.equal((await svc.admin('GET', `/imposters/${port}`)).json._svc.warnings, []);
  await svc.admin('POST', `/imposters/${port}/stubs`, { stub: { responses: ok }, index: 0 });
  assert.equal(types((await svc.admin('GET', `/imposters/${port}`)).json), [
    ['catch_all', 0],
    ['catch_all_not_last', 0],
  ]);
  await svc.admin('DELETE', `/imposters/${port}/stubs/1`);
  assert.equal(types((await svc.admin('GET', `/imposters/${port}`)).json), [['catch_all', 0]]);
  await svc.admin('PUT', `/imposters/${port}/stubs`, { stubs: Array.from({ length: 105 }, () => route('GET', '/x')) });
  const warnings = (await svc.admin('GET', `/imposters/${port}`)).json._svc.warnings;
  assert.is(warnings.length, 101);
  assert.is(warnings[100].warningType, 'truncated');
  assert.is(warnings[100].message, '4 more warnings suppressed');
});

admin('config_key_ignored: each unknown key of the imposter, _svc, stubs, responses and is, with its JSON path, logged', async () => {
  const log = createLogger({ level: 'warn', quiet: true });
  const manager = new ImposterManager({ allowInjection: false, log, host: '127.0.0.1' });
  try {
    await manager.createImposter({
      port,
      protocol: 'http',
      recordrequests: true,
      stubz: [],
      _svc: { flowstate: {} },
      stubs: [
        { predicates: [{ equals: { path: '/a' } }], respnses: [], responses: [{ is: { statuscode: 201, body: 'x' }, behaviours: {} }] },
        { id: 'kept', scenarioName: 's', required_scenario_state: 'Started', responses: [{ is: { body: 'y' }, _svc: { templated: true } }] },
      ],
    });
    const warnings = manager.get(port)!.warnings.filter((w) => w.warningType === 'config_key_ignored');
    assert.equal(
      warnings.map((w) => [w.path, w.stubIndex]),
      [
        ['recordrequests', undefined],
        ['stubz', undefined],
        ['_svc.flowstate', undefined],
        ['stubs[0].respnses', 0],
        ['stubs[0].responses[0].behaviours', 0],
        ['stubs[0].responses[0].is.statuscode', 0],
      ],
    );
    assert.match(warnings[0]!.message, /'recordrequests' is not a known key and is ignored \(did you mean 'recordRequests'\?\)/);
    assert.match(warnings[3]!.message, /did you mean 'responses'/);
    const lines = log
      .recent()
      .filter((e) => e.level === 'warn')
      .map((e) => e.message);
    assert.ok(
      lines.some((l) => l.includes(`imposter ${port}: config_key_ignored: 'stubz'`)),
      lines.join('\n'),
    );
  } finally {
    await manager.close();
  }
  await svc.admin('POST', '/imposters', { port, protocol: 'http', recordrequests: true, stubs: [route('GET', '/a')] });
  const detail = (await svc.admin('GET', `/imposters/${port}`)).json;
  assert.equal(
    detail._svc.warnings.map((w: any) => [w.warningType, w.path]),
    [['config_key_ignored', 'recordrequests']],
  );
  const roundTrip = await svc.admin('PUT', '/imposters', { imposters: [(await svc.admin('GET', `/imposters/${port}`)).json] });
  assert.is(roundTrip.status, 200);
  assert.equal(
    (await svc.admin('GET', `/imposters/${port}`)).json._svc.warnings.map((w: any) => w.path),
    ['recordrequests'],
    'a detail document posted back warns only about the typo, not about its output fields',
  );
});

admin('warnings are logged at warn level', async () => {
  const log = createLogger({ level: 'warn', quiet: true });
  const manager = new ImposterManager({ allowInjection: false, log, host: '127.0.0.1' });
  try {
    await manager.createImposter({ port, protocol: 'http', stubs: [{ responses: ok }, route('GET', '/a')] });
    const lines = log
      .recent()
      .filter((e) => e.level === 'warn')
      .map((e) => e.message);
    assert.ok(
      lines.some((l) => l.includes(`imposter ${port}: catch_all_not_last`)),
      lines.join('\n'),
    );
  } finally {
    await manager.close();
  }
});

admin.run();
