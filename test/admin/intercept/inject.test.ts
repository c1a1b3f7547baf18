import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { httpsViaProxy, startInterceptServer, viaProxy } from '../../support/intercept.js';

const test = suite('intercept inject rules: gated by --allowInjection on the admin plane, run in the sandbox');

const echo = `function (request) {
  return { statusCode: 209, headers: { 'X-Method': request.method },
           body: { host: request.host, path: request.path, q: request.query.q, body: request.body } };
}`;

test('without --allowInjection a scripted rule is 400 invalid injection, seeded or posted; nothing starts or is added', async () => {
  const svc = await startInterceptServer({ allowInjection: false });
  try {
    const seeded = await svc.admin('POST', '/intercept', { rules: [{ serve: { body: 'x' } }, { inject: echo }] });
    assert.is(seeded.status, 400);
    assert.is(seeded.json.errors[0].code, 'invalid injection');
    assert.match(seeded.json.errors[0].message, /--allowInjection/);
    assert.is((await svc.admin('GET', '/intercept')).status, 404);
    await svc.startIntercept();
    const posted = await svc.admin('POST', '/intercept/rules', { inject: echo });
    assert.is(posted.status, 400);
    assert.is(posted.json.errors[0].code, 'invalid injection');
    assert.equal((await svc.admin('GET', '/intercept/rules')).json, []);
    // The C ABI is trusted (docs/c-abi.md): the control itself does not gate.
    assert.is(svc.control.addRules({ inject: echo }).length, 1);
  } finally {
    await svc.stop();
  }
});

test('with --allowInjection an inject rule answers from the intercepted request; a throwing script is the 400 envelope', async () => {
  const svc = await startInterceptServer({ allowInjection: true });
  try {
    const started = await svc.startIntercept({
      returnCaKey: true,
      rules: [
        { match: { path: '/boom' }, inject: 'function () { throw new Error("nope"); }' },
        { match: { host: 'script.example.com' }, inject: echo },
      ],
    });
    const listed = await svc.admin('GET', '/intercept/rules');
    assert.is(listed.json[1].inject, echo);
    const answer = await httpsViaProxy(started.interceptPort, 'script.example.com:443', '/calc?q=7', started.caCertPem!, { method: 'POST', body: 'payload' });
    assert.is(answer.status, 209);
    assert.is(answer.headers['x-method'], 'POST');
    assert.is(answer.headers['content-type'], 'application/json');
    assert.equal(JSON.parse(answer.body), { host: 'script.example.com', path: '/calc', q: '7', body: 'payload' });
    const failed = await viaProxy(started.interceptPort, 'http://any.test/boom');
    assert.is(failed.status, 400);
    assert.is(JSON.parse(failed.body).errors[0].code, 'invalid injection');
  } finally {
    await svc.stop();
  }
});

test.run();
