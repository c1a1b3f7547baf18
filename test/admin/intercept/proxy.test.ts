import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, createServer as createNetServer, type AddressInfo } from 'node:net';
import { connectTunnel, freePort, httpsViaProxy, requestOver, startInterceptServer, viaProxy, type InterceptServer } from '../../support/intercept.js';

const test = suite('intercept proxy: rules, forwarding and pass-through over real sockets');
let svc: InterceptServer;
let proxyPort: number;
let ca: string;
let origin: Server;
let secureOrigin: Server;
let originPort: number;
let secureOriginPort: number;
/** What the loopback origins last received. */
let seen: { method?: string; url?: string; host?: string; body?: string; proxyHeader?: string } = {};

function record(request: IncomingMessage, reply: (text: string) => void): void {
  let body = '';
  request.on('data', (chunk) => {
    body += chunk;
  });
  request.on('end', () => {
    seen = {
      method: request.method,
      url: request.url,
      host: request.headers.host,
      body,
      proxyHeader: request.headers['proxy-connection'] as string | undefined,
    };
    reply(body);
  });
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

test.before(async () => {
  svc = await startInterceptServer();
  const started = await svc.startIntercept({ returnCaKey: true });
  proxyPort = started.interceptPort;
  ca = started.caCertPem!;
  origin = createHttpServer((req, res) => record(req, (body) => res.end(`origin saw ${req.method} ${req.url} ${body}`)));
  // The https origin presents a self-signed certificate the client never sees: the proxy accepts it,
  // as mountebank's proxy accepts any upstream certificate.
  const { certPem, keyPem } = await selfSigned();
  secureOrigin = createHttpsServer({ cert: certPem, key: keyPem }, (req, res) => record(req, () => res.end(`secure origin saw ${req.url}`)));
  originPort = await listen(origin);
  secureOriginPort = await listen(secureOrigin);
});

test.after(async () => {
  await svc.stop();
  origin.close();
  secureOrigin.close();
  origin.closeAllConnections();
  secureOrigin.closeAllConnections();
});

test.after.each(async () => {
  await svc.admin('DELETE', '/intercept/rules');
  await svc.admin('DELETE', '/imposters');
  seen = {};
});

/** A certificate for 127.0.0.1 from a second, unrelated intercept CA (any self-made certificate would do). */
async function selfSigned(): Promise<{ certPem: string; keyPem: string }> {
  const other = await startInterceptServer();
  try {
    const started = await other.startIntercept({ returnCaKey: true });
    return { certPem: started.caCertPem!, keyPem: started.caKeyPem! };
  } finally {
    await other.stop();
  }
}

async function addRules(rules: unknown): Promise<void> {
  const res = await svc.admin('POST', '/intercept/rules', rules);
  assert.is(res.status, 201, res.body);
}

test('HTTPS through CONNECT: the client trusts the exported CA and gets a serve rule answer (JSON body, headers, status)', async () => {
  await addRules({
    match: { host: 'api.example.com', method: 'GET', path: '/users/1' },
    serve: { statusCode: 202, headers: { 'X-Served-By': 'rule', 'Set-Cookie': ['a=1', 'b=2'] }, body: { id: 1, tags: ['x'] } },
  });
  const pem = (await svc.admin('GET', '/intercept/ca.pem')).body;
  const answer = await httpsViaProxy(proxyPort, 'api.example.com:443', '/users/1', pem);
  assert.is(answer.status, 202);
  assert.is(answer.headers['x-served-by'], 'rule');
  assert.equal(answer.headers['set-cookie'], ['a=1', 'b=2']);
  assert.is(answer.headers['content-type'], 'application/json');
  assert.equal(JSON.parse(answer.body), { id: 1, tags: ['x'] });
});

test('serve rules: a string body goes out as given, "status" is accepted, a given content type wins', async () => {
  await addRules([
    { match: { path: '/text' }, serve: { status: 418, body: 'short and stout' } },
    { match: { path: '/typed' }, serve: { headers: { 'content-type': 'application/vnd.api+json' }, body: [1, 2] } },
    { match: { path: '/number' }, serve: { body: 42 } },
  ]);
  const text = await viaProxy(proxyPort, 'http://anything.test/text');
  assert.is(text.status, 418);
  assert.is(text.body, 'short and stout');
  assert.is(text.headers['content-type'], undefined);
  const typed = await viaProxy(proxyPort, 'http://anything.test/typed');
  assert.is(typed.status, 200);
  assert.is(typed.headers['content-type'], 'application/vnd.api+json');
  assert.is(typed.body, '[1,2]');
  assert.is((await viaProxy(proxyPort, 'http://anything.test/number')).body, '42');
});

test('matching: host wildcards, path prefixes, methods and headers; the first matching rule wins', async () => {
  await addRules([
    { match: { host: '*.example.net', pathPrefix: '/v2/', headers: { 'X-Tenant': 'blue' } }, serve: { body: 'blue tenant' } },
    { match: { host: '*.example.net', method: 'post' }, serve: { body: 'any post' } },
    { match: { host: 'example.net' }, serve: { body: 'bare domain' } },
    { serve: { body: 'fallback' } },
  ]);
  const secure = (path: string, authority: string, options = {}) => httpsViaProxy(proxyPort, authority, path, ca, options).then((r) => r.body);
  assert.is(await secure('/v2/items?x=1', 'a.example.net:443', { headers: { 'x-tenant': 'blue' } }), 'blue tenant');
  assert.is(await secure('/v2/items', 'a.example.net:443', { headers: { 'x-tenant': 'red' } }), 'fallback');
  assert.is(await secure('/v1/items', 'deep.a.example.net:443', { method: 'POST', body: 'x' }), 'any post');
  assert.is(await secure('/', 'example.net:443'), 'bare domain');
  assert.is(await secure('/', 'example.org:443'), 'fallback');
});

test('a forward rule sends the request to the imposter on that local port (http and https imposters)', async () => {
  const plainPort = await freePort();
  const securePort = await freePort();
  for (const [port, protocol] of [
    [plainPort, 'http'],
    [securePort, 'https'],
  ] as const) {
    const created = await svc.admin('POST', '/imposters', {
      port,
      protocol,
      recordRequests: true,
      stubs: [
        { predicates: [{ equals: { method: 'POST', path: '/orders', body: 'one' } }], responses: [{ is: { statusCode: 201, body: `${protocol} imposter` } }] },
      ],
    });
    assert.is(created.status, 201, created.body);
  }
  await addRules([
    { match: { host: 'orders.example.com' }, forward: { port: plainPort } },
    { match: { host: 'secure-orders.example.com' }, forward: { port: securePort } },
  ]);
  const plain = await httpsViaProxy(proxyPort, 'orders.example.com:443', '/orders', ca, { method: 'POST', body: 'one' });
  assert.is(plain.status, 201);
  assert.is(plain.body, 'http imposter');
  const secure = await viaProxy(proxyPort, 'http://secure-orders.example.com/orders', { method: 'POST', body: 'one' });
  assert.is(secure.status, 201);
  assert.is(secure.body, 'https imposter');
  const recorded = await svc.admin('GET', `/imposters/${plainPort}`);
  assert.is(recorded.json.requests[0].headers.Host ?? recorded.json.requests[0].headers.host, 'orders.example.com', 'the imposter sees the original Host');
});

test('unmatched requests pass through to the origin: absolute-form http, a TLS tunnel to an https origin, a cleartext tunnel', async () => {
  await addRules({ match: { host: 'never.example' }, serve: { body: 'no' } });
  const plain = await viaProxy(proxyPort, `http://127.0.0.1:${originPort}/echo?q=1`, {
    method: 'PUT',
    body: 'payload',
    headers: { 'Proxy-Connection': 'keep-alive' },
  });
  assert.is(plain.status, 200);
  assert.is(plain.body, 'origin saw PUT /echo?q=1 payload');
  assert.is(seen.host, `127.0.0.1:${originPort}`);
  assert.is(seen.proxyHeader, undefined, 'hop-by-hop proxy headers are not relayed');
  const secure = await httpsViaProxy(proxyPort, `127.0.0.1:${secureOriginPort}`, '/secure?z=2', ca);
  assert.is(secure.body, 'secure origin saw /secure?z=2');
  const tunnel = await connectTunnel(proxyPort, `127.0.0.1:${originPort}`);
  assert.is(tunnel.status, 200);
  const cleartext = await requestOver(tunnel.socket, `127.0.0.1:${originPort}`, '/plain', { method: 'POST', body: 'inside' });
  assert.is(cleartext.body, 'origin saw POST /plain inside');
});

test('an unreachable origin is a 502 envelope; a request to the proxy itself is refused as a loop', async () => {
  const closedPort = await freePort();
  const unreachable = await viaProxy(proxyPort, `http://127.0.0.1:${closedPort}/`);
  assert.is(unreachable.status, 502);
  assert.is(JSON.parse(unreachable.body).errors[0].type, 'bad_gateway');
  const loop = await viaProxy(proxyPort, `http://127.0.0.1:${proxyPort}/`);
  assert.is(loop.status, 508);
  const originForm = await viaProxy(proxyPort, '/just-a-path');
  assert.is(originForm.status, 400);
});

test('an origin answering a status node:http cannot relay (099) is a 502; the proxy keeps serving', async () => {
  const odd = createNetServer((socket) => {
    socket.on('error', () => undefined);
    socket.once('data', () => socket.end('HTTP/1.1 099 Odd\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok'));
  });
  const oddPort = await new Promise<number>((resolve) => odd.listen(0, '127.0.0.1', () => resolve((odd.address() as AddressInfo).port)));
  try {
    const answer = await viaProxy(proxyPort, `http://127.0.0.1:${oddPort}/`);
    assert.is(answer.status, 502, answer.body);
    assert.is(JSON.parse(answer.body).errors[0].type, 'bad_gateway');
    assert.match(JSON.parse(answer.body).errors[0].message, /099|status code/i);
    const fine = await viaProxy(proxyPort, `http://127.0.0.1:${originPort}/after`);
    assert.is(fine.body, 'origin saw GET /after ');
  } finally {
    await new Promise((resolve) => odd.close(resolve));
  }
});

test('a malformed CONNECT authority is a 400', async () => {
  const { status } = await connectTunnel(proxyPort, 'no-port-here');
  assert.is(status, 400);
});

test('a client that resets after the 400 to a malformed CONNECT leaves the proxy serving', async () => {
  await addRules({ serve: { body: 'still here' } });
  const client = connect(proxyPort, '127.0.0.1');
  client.on('error', () => undefined);
  await new Promise((resolve) => client.once('connect', resolve));
  client.write('CONNECT no-port-here HTTP/1.1\r\nHost: no-port-here\r\n\r\n');
  const answer = await new Promise<string>((resolve) => {
    let text = '';
    client.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (text.includes('\r\n\r\n')) resolve(text);
    });
  });
  assert.match(answer, /^HTTP\/1\.1 400 /);
  // The proxy has sent its FIN and still reads this side: the RST reaches a socket node:http no longer listens on.
  client.resetAndDestroy();
  await new Promise((resolve) => client.once('close', resolve));
  assert.is((await viaProxy(proxyPort, 'http://after-reset.test/')).body, 'still here');
});

test('clients that vanish mid-body, send a broken handshake or reject the leaf leave the proxy serving', async () => {
  await addRules({ serve: { body: 'still here' } });
  const partial = connect(proxyPort, '127.0.0.1');
  // The proxy may answer and close before the body ends; a reset then is this client's to swallow, not a crash.
  partial.on('error', () => undefined);
  await new Promise((resolve) => partial.once('connect', resolve));
  partial.write(`POST http://127.0.0.1:${originPort}/upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nhalf`);
  await new Promise((resolve) => setTimeout(resolve, 50));
  partial.destroy();
  const garbage = await connectTunnel(proxyPort, 'broken.example.com:443');
  garbage.socket.end(Buffer.from([0x16, 0x03, 0x01, 0x00, 0x05, 1, 2, 3, 4, 5]));
  const distrustful = await httpsViaProxy(proxyPort, 'x.example.com:443', '/', (await selfSigned()).certPem).then(
    () => 'trusted',
    (err: Error) => err.message,
  );
  assert.match(distrustful, /certificate/i, 'a client that does not trust the CA refuses the leaf');
  assert.is((await viaProxy(proxyPort, 'http://after.test/')).body, 'still here');
  assert.is((await httpsViaProxy(proxyPort, 'after.example.com:443', '/', ca)).body, 'still here');
});

test.run();
