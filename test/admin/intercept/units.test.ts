import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseStartOptions } from '../../../admin/intercept/options.js';
import { parseRule, ruleMatches, type InterceptedRequest } from '../../../admin/intercept/rules.js';
import { answerFrom } from '../../../admin/intercept/inject.js';

const test = suite('intercept pure pieces: start options, rule matching, inject answers');

test('parseStartOptions: defaults, null body, each CA source', () => {
  assert.equal(parseStartOptions({}), { host: '127.0.0.1', port: 0, ca: { kind: 'ephemeral', returnKey: false } });
  assert.equal(parseStartOptions(null), parseStartOptions({}));
  assert.equal(parseStartOptions({ returnCaKey: true, port: 8080, host: '0.0.0.0' }), {
    host: '0.0.0.0',
    port: 8080,
    ca: { kind: 'ephemeral', returnKey: true },
  });
  assert.equal(parseStartOptions({ caCertPath: 'c', caKeyPath: 'k' }).ca, { kind: 'paths', certPath: 'c', keyPath: 'k' });
  assert.equal(parseStartOptions({ caCertPem: 'c', caKeyPem: 'k' }).ca, { kind: 'pem', certPem: 'c', keyPem: 'k' });
  assert.equal(parseStartOptions({ rules: [] }).rules, []);
  assert.throws(() => parseStartOptions({ caCertPem: '', caKeyPem: 'k' }), /non-empty string/);
});

function request(overrides: Partial<InterceptedRequest> = {}): InterceptedRequest {
  return { host: 'api.example.com', method: 'GET', path: '/v1/users', headers: { 'x-tenant': 'blue', accept: 'a' }, ...overrides };
}

function matches(match: Record<string, unknown>, req: InterceptedRequest): boolean {
  return ruleMatches(parseRule({ match, serve: {} }, 'rule', () => 'r').match, req);
}

test('ruleMatches: every given clause must hold; names and hosts compare case-insensitively', () => {
  assert.ok(matches({}, request()));
  assert.ok(matches({ host: 'API.example.com', method: 'get', pathPrefix: '/v1/', headers: { 'X-Tenant': 'blue' } }, request()));
  assert.not.ok(matches({ host: 'other.example.com' }, request()));
  assert.not.ok(matches({ method: 'POST' }, request()));
  assert.not.ok(matches({ path: '/v1' }, request()));
  assert.ok(matches({ path: '/v1/users' }, request()));
  assert.not.ok(matches({ headers: { 'x-tenant': 'Blue' } }, request()), 'header values are exact');
  assert.not.ok(matches({ headers: { 'x-missing': '' } }, request()));
  assert.ok(matches({ headers: { 'set-thing': 'b' } }, request({ headers: { 'set-thing': ['a', 'b'] } })), 'any value of a repeated header');
});

test('host wildcards match subdomains at any depth, never the bare domain or a lookalike', () => {
  assert.ok(matches({ host: '*.example.com' }, request({ host: 'a.example.com' })));
  assert.ok(matches({ host: '*.example.com' }, request({ host: 'a.b.example.com' })));
  assert.not.ok(matches({ host: '*.example.com' }, request({ host: 'example.com' })));
  assert.not.ok(matches({ host: '*.example.com' }, request({ host: 'badexample.com' })));
});

test('answerFrom: an inject result becomes status, header list and body bytes', () => {
  assert.equal(answerFrom({ statusCode: 201, headers: { 'X-A': ['1', '2'], 'X-B': 3 }, body: 'text' }), {
    statusCode: 201,
    headers: [
      ['X-A', '1'],
      ['X-A', '2'],
      ['X-B', '3'],
    ],
    body: Buffer.from('text'),
  });
  const json = answerFrom({ body: { ok: true } });
  assert.is(json.statusCode, 200);
  assert.equal(json.headers, [['Content-Type', 'application/json']]);
  assert.is(json.body.toString(), '{"ok":true}');
  assert.equal(answerFrom('not an object'), { statusCode: 200, headers: [], body: Buffer.alloc(0) });
  assert.is(answerFrom({ statusCode: 'abc' }).statusCode, 200);
});

test.run();
