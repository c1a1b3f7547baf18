import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import { inProcessForSuite, call } from '../../support/in-process.js';
import { freePort } from '../../support/servers.js';
import { h2Fetch } from '../../support/h2-frames.js';

const test = suite('imposter protocols: h2c, https, ALPN, malformed input');
const svc = inProcessForSuite(test);

const stubs = [
  { predicates: [{ equals: { path: '/p', headers: { 'x-k': 'v' } } }], responses: [{ is: { statusCode: 203, headers: { 'X-Out': 'o' }, body: 'matched' } }] },
];

test('plain port answers cleartext HTTP/2 with prior knowledge through the same stubs', async () => {
  const port = await freePort();
  await svc.admin('POST', '/imposters', { port, protocol: 'http', stubs });
  const res = await h2Fetch(`http://127.0.0.1:${port}`, { path: '/p', headers: { 'x-k': 'v' } });
  assert.is(res.status, 203);
  assert.is(res.body, 'matched');
  assert.is(res.headers['x-out'], 'o');
  assert.is((await call(port, 'GET', '/p', { headers: { 'x-k': 'v' } })).status, 203, 'HTTP/1 on the same port');
});

test('https imposter with the default certificate serves HTTP/1.1 and ALPN h2', async () => {
  const port = await freePort();
  const created = await svc.admin('POST', '/imposters', { port, protocol: 'https', stubs });
  assert.is(created.status, 201);
  const h1 = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    https
      .get({ host: '127.0.0.1', port, path: '/p', headers: { 'x-k': 'v' }, rejectUnauthorized: false, agent: false }, (res) => {
        let body = '';
        res.on('data', (d) => {
          body += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
  assert.is(h1.status, 203);
  assert.is(h1.body, 'matched');
  const h2 = await h2Fetch(`https://127.0.0.1:${port}`, { path: '/p', headers: { 'x-k': 'v' } });
  assert.is(h2.status, 203);
  assert.is(h2.alpn, 'h2');
});

test('malformed request line and bad chunk framing get 400 and the listener keeps serving', async () => {
  const port = await freePort();
  await svc.admin('POST', '/imposters', { port, protocol: 'http', stubs });
  for (const raw of ['NOT A REQUEST\r\n\r\n', 'POST /p HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZZ\r\n']) {
    const reply = await new Promise<string>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write(raw));
      let data = '';
      socket.on('data', (d) => {
        data += d.toString('latin1');
      });
      socket.on('close', () => resolve(data));
      socket.on('error', () => resolve(data));
    });
    assert.match(reply, /^HTTP\/1\.1 400 /);
  }
  assert.is((await call(port, 'GET', '/p', { headers: { 'x-k': 'v' } })).status, 203);
});

test('SVC_DISABLE_HTTP2 is honoured for imposters created while it is set', async () => {
  process.env.SVC_DISABLE_HTTP2 = 'yes';
  try {
    const port = await freePort();
    await svc.admin('POST', '/imposters', { port, protocol: 'https', stubs });
    const alpn = await new Promise<string | false | null>((resolve, reject) => {
      const socket = tls.connect({ host: '127.0.0.1', port, ALPNProtocols: ['h2', 'http/1.1'], rejectUnauthorized: false }, () => {
        resolve(socket.alpnProtocol);
        socket.destroy();
      });
      socket.on('error', reject);
    });
    assert.is(alpn, 'http/1.1');
  } finally {
    delete process.env.SVC_DISABLE_HTTP2;
  }
});

test.run();
