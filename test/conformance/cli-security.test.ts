/**
 * mountebank's mbTest/cli/securityTest.js against svc.
 *
 * Without --allowInjection every scripted config is a 400 `invalid injection`, checked on mountebank
 * 2.9.1 and svc side by side (the tcp-only endOfRequestResolver case has no http counterpart: docs/cli.md).
 * IP blocking: with --localOnly or --ipWhitelist a connection from a refused address is destroyed on
 * accept (the client sees ECONNRESET), on the admin port and on imposter ports. Tests stay on
 * loopback: 127.0.0.2 and 127.0.0.3 (other addresses of 127.0.0.0/8, which reach lo on Linux but are
 * not an interface's own address) stand in for remote peers.
 * `--apikey`: mountebank's x-api-key header and docs/cli.md's Authorization header both pass.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { request } from 'node:http';
import { networkInterfaces } from 'node:os';
import { freePort, http, startMountebank, startSvc, type RunningServer } from '../support/servers.js';
import { startPair, type Pair } from '../support/mountebank/pair.js';

interface Address {
  address: string;
  family: 4 | 6;
}

/** The loopback interface's own addresses: what --localOnly serves. */
function addresses(): Address[] {
  return Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .filter((a) => a.internal)
    .map((a) => ({ address: a.address, family: a.family === 'IPv4' ? (4 as const) : (6 as const) }));
}

/** POST /imposters (mountebank's probe) from a given local address to the loopback of its family. */
function connectFrom(from: Address, port: number): Promise<string> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: from.family === 4 ? '127.0.0.1' : '::1',
        port,
        path: '/imposters',
        method: 'POST',
        localAddress: from.address,
        headers: { 'content-type': 'application/json' },
        agent: false,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(`answered ${res.statusCode}`));
      },
    );
    req.setTimeout(5000, () => req.destroy(new Error('timeout')));
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    req.end(JSON.stringify({ protocol: 'http' }));
  });
}

const test = suite('conformance: mountebank securityTest (injection gating, --localOnly, --ipWhitelist)');

test('without --allowInjection each scripted config is a 400 invalid injection, as on mountebank', async () => {
  const pair: Pair = await startPair();
  try {
    const stub = (response: object, predicates: object[] = []) => ({ protocol: 'http', stubs: [{ predicates, responses: [response] }] });
    const cases: Record<string, object> = {
      'response injection': stub({ inject: '(request) => ({ body: `${request.method} INJECTED` })' }),
      'predicate injection': stub({ is: { body: 'Hello, World! ' } }, [{ inject: '() => true' }]),
      'decorate behavior': stub({ is: { body: 'Hello, World! ' }, _behaviors: { decorate: '(response) => response' } }),
      'wait behavior function': stub({ is: { body: 'Hello, World! ' }, _behaviors: { wait: '() => 1000' } }),
      'shellTransform behavior': stub({ is: {}, _behaviors: { shellTransform: 'command' } }),
      'proxy addDecorateBehavior': stub({ proxy: { to: 'http://google.com', addDecorateBehavior: '(request, response) => { response.body = ""; }' } }),
      'predicateGenerator inject': stub({ proxy: { to: 'http://google.com', predicateGenerators: [{ inject: 'fn () { return []; }' }] } }),
    };
    for (const [name, imposter] of Object.entries(cases)) {
      for (const side of [pair.mb, pair.svc]) {
        const port = await freePort();
        const res = await http('POST', `${side.admin}/imposters`, {
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ ...imposter, port }),
        });
        assert.is(res.status, 400, `${side.name}: ${name}: ${res.body}`);
        assert.is(JSON.parse(res.body).errors[0].code, 'invalid injection', `${side.name}: ${name}`);
      }
    }
    const latency = { ...stub({ is: { body: 'Hello, World! ' }, _behaviors: { wait: 100 } }), port: await freePort() };
    const allowed = await http('POST', `${pair.svc.admin}/imposters`, { body: JSON.stringify(latency) });
    assert.is(allowed.status, 201, 'a wait that directly specifies latency needs no permission');
  } finally {
    await pair.stop();
  }
});

test('--apikey: admin calls without the key are 401 unauthorized; x-api-key (mountebank) and Authorization (docs/cli.md) pass', async () => {
  const port = await freePort();
  const [mb, svc] = await Promise.all([
    startMountebank({ args: ['--apikey', 'secret'] }),
    startSvc({ args: ['--apikey', 'secret', '--metrics-port', String(await freePort())] }),
  ]);
  try {
    for (const server of [mb, svc]) {
      const url = `http://127.0.0.1:${server.adminPort}/imposters`;
      const denied = await http('GET', url);
      assert.is(denied.status, 401);
      assert.is(JSON.parse(denied.body).errors[0].code, 'unauthorized');
      assert.is((await http('GET', url, { headers: { 'x-api-key': 'wrong' } })).status, 401);
      assert.is((await http('GET', url, { headers: { 'x-api-key': 'secret' } })).status, 200);
    }
    assert.is((await http('GET', `http://127.0.0.1:${svc.adminPort}/imposters`, { headers: { Authorization: 'secret' } })).status, 200);
    const created = await http('POST', `http://127.0.0.1:${svc.adminPort}/imposters`, {
      headers: { 'x-api-key': 'secret' },
      body: JSON.stringify({ protocol: 'http', port }),
    });
    assert.is(created.status, 201);
    assert.is((await http('GET', `http://127.0.0.1:${port}/`)).status, 200, 'imposter ports are not gated');
  } finally {
    await Promise.all([mb.stop(), svc.stop()]);
  }
});

async function withSvc(args: string[], run: (svc: RunningServer) => Promise<void>): Promise<void> {
  const svc = await startSvc({ args: [...args, '--metrics-port', String(await freePort())] });
  try {
    await run(svc);
  } finally {
    await svc.stop();
  }
}

const nonLocal: Address[] = [
  { address: '127.0.0.2', family: 4 },
  { address: '127.0.0.3', family: 4 },
];
const local = addresses();

test('--localOnly: non-local peers are reset on the admin port and on imposters; local ones are served', async () => {
  await withSvc(['--localOnly'], async (svc) => {
    for (const from of nonLocal) assert.is(await connectFrom(from, svc.adminPort), 'ECONNRESET', from.address);
    assert.equal(JSON.parse((await http('GET', `http://127.0.0.1:${svc.adminPort}/imposters`)).body), { imposters: [] }, 'nothing was created');
    const imposter = await freePort();
    await http('POST', `http://127.0.0.1:${svc.adminPort}/imposters`, { body: JSON.stringify({ protocol: 'http', port: imposter }) });
    for (const from of nonLocal.filter((a) => a.family === 4)) assert.is(await connectFrom(from, imposter), 'ECONNRESET', from.address);
    for (const from of local.filter((a) => a.family === 4)) {
      assert.match(await connectFrom(from, svc.adminPort), /^answered 201/, from.address);
      assert.match(await connectFrom(from, imposter), /^answered 200/, from.address);
    }
  });
});

test('without --localOnly every address is served; --ipWhitelist admits the listed ones only, unless --localOnly', async () => {
  const v4 = nonLocal.filter((a) => a.family === 4);
  await withSvc([], async (svc) => {
    for (const from of [...local, ...nonLocal].filter((a) => a.family === 4))
      assert.match(await connectFrom(from, svc.adminPort), /^answered 201/, from.address);
  });
  const allowed = v4[0]!;
  await withSvc(['--ipWhitelist', `127.0.0.1|${allowed.address}`], async (svc) => {
    assert.match(await connectFrom(allowed, svc.adminPort), /^answered 201/, 'whitelisted');
    for (const from of nonLocal.filter((a) => a !== allowed)) assert.is(await connectFrom(from, svc.adminPort), 'ECONNRESET', from.address);
  });
  await withSvc(['--localOnly', '--ipWhitelist', `127.0.0.1|${allowed.address}`], async (svc) => {
    assert.is(await connectFrom(allowed, svc.adminPort), 'ECONNRESET', '--localOnly ignores the whitelist');
  });
});

test.run();
