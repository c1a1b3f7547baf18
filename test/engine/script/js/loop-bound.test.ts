/**
 * docs/limits.md: JavaScript loops are bounded at 10,000,000 iterations per call frame, for every hook that
 * runs JavaScript (`_svc.script`, inject, predicate inject, decorate); each answers its docs/errors.md row.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { inProcessForSuite, call } from '../../../support/in-process.js';

const svc = inProcessForSuite(test, { allowInjection: true, keepImposters: true });

/** A deadline far beyond the time the loops take, so only the loop bound can stop them. */
const roomy = { _svc: { scriptEngine: { timeoutMs: 120_000 } } };
const patient = { timeoutMs: 150_000 };
const js = (code: string) => ({ _svc: { script: { engine: 'javascript', code } } });

test('_svc.script: a loop of 50,000,000 iterations is a 500 script error (limit)', async () => {
  const port = await svc.createImposter({
    ...roomy,
    stubs: [{ responses: [js('let n = 0; for (let i = 0; i < 50000000; i++) n++; return http(200, String(n));')] }],
  });
  const res = await call(port, 'GET', '/', patient);
  assert.is(res.status, 500, res.body);
  assert.is(res.headers['x-svc-script-error'], 'true');
  const entry = JSON.parse(res.body).errors[0];
  assert.is(entry.errorType, 'limit');
  assert.match(entry.message, /loop bound exceeded/);
  assert.match(entry.message, /10000000 iterations per call frame/);
});

test('_svc.script: the bound is per call frame: two frames of 6,000,000 iterations each (12,000,000 in all) answer', async () => {
  const port = await svc.createImposter({
    ...roomy,
    stubs: [{ responses: [js('const spin = () => { let n = 0; while (n < 6000000) n++; return n; }; return http(200, String(spin() + spin()));')] }],
  });
  const res = await call(port, 'GET', '/', patient);
  assert.is(res.status, 200, res.body);
  assert.is(res.body, '12000000');
});

test('_svc.script: a caught loop-bound error still fails the script', async () => {
  const port = await svc.createImposter({
    ...roomy,
    stubs: [{ responses: [js('try { for (;;) {} } catch (e) { } return http(200, "escaped");')] }],
  });
  const res = await call(port, 'GET', '/', patient);
  assert.is(res.status, 500, res.body);
  assert.match(JSON.parse(res.body).errors[0].message, /loop bound exceeded/);
});

test('response inject: a runaway loop is a 400 invalid injection naming the loop bound', async () => {
  const port = await svc.createImposter({ ...roomy, stubs: [{ responses: [{ inject: 'function () { while (true) {} }' }] }] });
  const res = await call(port, 'GET', '/', patient);
  assert.is(res.status, 400, res.body);
  const entry = JSON.parse(res.body).errors[0];
  assert.is(entry.code, 'invalid injection');
  assert.match(entry.data, /loop bound exceeded \(more than 10000000 iterations per call frame\)/);
});

test('predicate inject: a runaway loop is a 400 invalid predicate injection', async () => {
  const port = await svc.createImposter({
    ...roomy,
    stubs: [{ predicates: [{ inject: 'function () { do {} while (true); }' }], responses: [{ is: { body: 'matched' } }] }],
  });
  const res = await call(port, 'GET', '/', patient);
  assert.is(res.status, 400, res.body);
  const entry = JSON.parse(res.body).errors[0];
  assert.is(entry.code, 'invalid predicate injection');
  assert.match(entry.data, /loop bound exceeded \(more than 10000000 iterations per call frame\)/);
});

test('decorate: a runaway loop serves the undecorated response marked x-svc-decorate-error', async () => {
  const port = await svc.createImposter({
    ...roomy,
    stubs: [
      {
        responses: [
          { is: { body: 'plain' }, _behaviors: { decorate: 'function (config) { for (const x of [1]) for (;;) config.response.body = "decorated"; }' } },
        ],
      },
    ],
  });
  const res = await call(port, 'GET', '/', patient);
  assert.is(res.status, 200);
  assert.is(res.body, 'plain');
  assert.is(res.headers['x-svc-decorate-error'], 'true');
  assert.is(res.headers['x-svc-script-timeout'], undefined);
});

test.run();
