import { spawn } from 'node:child_process';
import http2 from 'node:http2';
import https from 'node:https';
import type { ConnectionOptions, TLSSocket } from 'node:tls';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { echo, envelopeOf, headerOf, listen, makePki, RawClient, WEAK_KEY_CLIENT, type Pki } from '../../support/raw-http.js';

interface H2Answer {
  headers: http2.IncomingHttpHeaders;
  body: Buffer;
}

function h2Request(session: http2.ClientHttp2Session, headers: http2.OutgoingHttpHeaders, body?: Buffer): Promise<H2Answer> {
  return new Promise((resolve, reject) => {
    const stream = session.request(headers);
    const chunks: Buffer[] = [];
    let responseHeaders: http2.IncomingHttpHeaders = {};
    stream.on('response', (h) => {
      responseHeaders = h;
    });
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve({ headers: responseHeaders, body: Buffer.concat(chunks) }));
    stream.on('error', reject);
    stream.end(body);
  });
}

function connectH2(authority: string): Promise<http2.ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(authority, { rejectUnauthorized: false });
    session.once('connect', () => resolve(session));
    session.once('error', reject);
  });
}

function closeSession(session: http2.ClientHttp2Session): Promise<void> {
  return new Promise((resolve) => session.close(() => resolve()));
}

function httpsGet(
  port: number,
  options: https.RequestOptions & Pick<ConnectionOptions, 'ALPNProtocols'> = {},
): Promise<{ status: number; body: string; alpn: string | false | null; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const request = https.request(
      { host: '127.0.0.1', port, path: '/tls?q=1', method: 'POST', rejectUnauthorized: false, agent: false, ...options },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            body: Buffer.concat(chunks).toString(),
            alpn: (response.socket as TLSSocket).alpnProtocol,
            headers: response.headers,
          }),
        );
      },
    );
    request.on('error', reject);
    request.end('secret');
  });
}

test('h2c with prior knowledge: WireRequest shape, body, connection-specific headers dropped', async () => {
  const listener = await listen({}, (request, sink) => {
    sink.send(
      201,
      [
        ['X-Version', request.httpVersion],
        ['X-Raw-Headers', JSON.stringify(request.rawHeaders)],
        ['Connection', 'close'],
        ['Transfer-Encoding', 'chunked'],
        ['Keep-Alive', 'timeout=5'],
        ['Set-Cookie', 'a=1'],
        ['Set-Cookie', 'b=2'],
      ],
      Buffer.concat([Buffer.from(`${request.method} ${request.url} `), request.body]),
    );
  });
  const session = await connectH2(`http://127.0.0.1:${listener.port}`);
  try {
    const answer = await h2Request(session, { ':method': 'POST', ':path': '/h2?x=1', 'X-Custom': 'v' }, Buffer.from('payload'));
    assert.is(answer.headers[':status'], 201);
    assert.is(answer.headers['x-version'], '2.0');
    const raw = JSON.parse(String(answer.headers['x-raw-headers']));
    assert.equal(raw.slice(0, 2), ['host', `127.0.0.1:${listener.port}`]);
    assert.ok(raw.includes('x-custom'));
    assert.not.ok(raw.some((name: string) => name.startsWith(':')));
    assert.equal(answer.headers['set-cookie'], ['a=1', 'b=2']);
    assert.is(answer.headers.connection, undefined);
    assert.is(answer.headers['content-length'], String(answer.body.length));
    assert.is(answer.body.toString(), 'POST /h2?x=1 payload');
    // The session survives Connection: close (meaningless in HTTP/2).
    const again = await h2Request(session, { ':path': '/again' });
    assert.is(again.body.toString(), 'GET /again ');
  } finally {
    await closeSession(session);
    await listener.close();
  }
});

test('h2c and HTTP/1 share one plain port; h2 body cap answers 413', async () => {
  const listener = await listen({ maxBodyBytes: 8 }, echo);
  const session = await connectH2(`http://127.0.0.1:${listener.port}`);
  const client = await RawClient.connect(listener.port);
  try {
    client.send('GET /h1 HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.is(headerOf(await client.next(), 'x-version'), '1.1');
    const tooBig = await h2Request(session, { ':method': 'POST', ':path': '/' }, Buffer.alloc(9));
    assert.is(tooBig.headers[':status'], 413);
    assert.is(JSON.parse(tooBig.body.toString()).errors[0].type, 'payload_too_large');
    const fits = await h2Request(session, { ':method': 'POST', ':path': '/' }, Buffer.alloc(8, 1));
    assert.is(fits.headers[':status'], 200);
    assert.is(fits.body.length, 8);
  } finally {
    client.close();
    await closeSession(session);
    await listener.close();
  }
});

test('http2 disabled: the h2c preface is not sniffed (400, close)', async () => {
  const listener = await listen({ http2: false }, echo);
  const client = await RawClient.connect(listener.port);
  try {
    client.send('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
    const response = await client.next();
    assert.is(response.status, 400);
    assert.is(envelopeOf(response).type, 'bad_request');
    await client.rest();
    assert.ok(client.ended);
  } finally {
    client.close();
    await listener.close();
  }
});

test('https with the default self-signed pair: HTTP/1.1 over TLS, ALPN h2 via http2.connect', async () => {
  const listener = await listen({ protocol: 'https' }, echo);
  try {
    const h1 = await httpsGet(listener.port, { ALPNProtocols: ['http/1.1'] });
    assert.is(h1.status, 200);
    assert.is(h1.alpn, 'http/1.1');
    assert.is(h1.body, 'secret');
    assert.is(h1.headers['x-url'], '/tls?q=1');
    const noAlpn = await httpsGet(listener.port);
    assert.is(noAlpn.status, 200);

    const session = await connectH2(`https://127.0.0.1:${listener.port}`);
    assert.is((session.socket as TLSSocket).alpnProtocol, 'h2');
    const answer = await h2Request(session, { ':method': 'PUT', ':path': '/secure' }, Buffer.from('over h2'));
    assert.is(answer.headers['x-version'], '2.0');
    assert.is(answer.body.toString(), 'over h2');
    await closeSession(session);
  } finally {
    await listener.close();
  }
});

test('https with http2 disabled offers only http/1.1 through ALPN', async () => {
  const listener = await listen({ protocol: 'https', http2: false }, echo);
  try {
    const h1 = await httpsGet(listener.port, { ALPNProtocols: ['h2', 'http/1.1'] });
    assert.is(h1.alpn, 'http/1.1');
    assert.is(h1.status, 200);
    const failure = await new Promise<string>((resolve) => {
      const session = http2.connect(`https://127.0.0.1:${listener.port}`, { rejectUnauthorized: false });
      session.once('connect', () => {
        session.destroy();
        resolve('connected');
      });
      session.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    });
    assert.is.not(failure, 'connected');
  } finally {
    await listener.close();
  }
});

let pki: Pki | null = null;
function testPki(): Pki {
  pki ??= makePki();
  return pki;
}

test('https with a given key/cert: the client sees that certificate and can verify it', async () => {
  const { caCert, serverKey, serverCert } = testPki();
  const listener = await listen({ protocol: 'https', key: serverKey, cert: serverCert }, echo);
  try {
    const verified = await httpsGet(listener.port, { rejectUnauthorized: true, ca: caCert, ...WEAK_KEY_CLIENT });
    assert.is(verified.status, 200);
  } finally {
    await listener.close();
  }
});

/** What openssl s_client reports about the server's CertificateRequest, or null without openssl. */
function certificateRequestSeen(port: number): Promise<boolean | null> {
  return new Promise((resolve) => {
    const child = spawn('openssl', ['s_client', '-connect', `127.0.0.1:${port}`], { stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on('error', () => resolve(null));
    child.on('close', () => resolve(/^Requested Signature Algorithms/m.test(out)));
    child.stdin.end();
  });
}

test('mutualAuth requests a client certificate, refuses a client without one, and does not reject untrusted ones', async () => {
  const { clientKey, clientCert } = testPki();
  const mutual = await listen({ protocol: 'https', mutualAuth: true }, echo);
  const plain = await listen({ protocol: 'https' }, echo);
  try {
    const withCert = await httpsGet(mutual.port, { key: clientKey, cert: clientCert, ...WEAK_KEY_CLIENT });
    assert.is(withCert.status, 200);
    const withoutCert = await httpsGet(mutual.port).then(
      () => 'answered',
      (err: NodeJS.ErrnoException) => err.code,
    );
    assert.ok(withoutCert === 'ECONNRESET' || withoutCert === 'EPIPE', `refused without a certificate (${withoutCert})`);
    const requested = await certificateRequestSeen(mutual.port);
    if (requested === null) assert.unreachable('this check needs the openssl binary: apt-get install openssl');
    assert.ok(requested, 'mutualAuth: CertificateRequest sent');
    assert.not.ok(await certificateRequestSeen(plain.port), 'no mutualAuth: no CertificateRequest');
  } finally {
    await mutual.close();
    await plain.close();
  }
});

test('a bad key/cert pair rejects createListener instead of serving', async () => {
  const { serverKey } = testPki();
  const { clientCert } = testPki();
  const outcome = await listen({ protocol: 'https', key: serverKey, cert: clientCert }, echo).then(
    async (listener) => {
      await listener.close();
      return 'listening';
    },
    () => 'rejected',
  );
  assert.is(outcome, 'rejected');
});

test('close() ends h2 sessions too', async () => {
  const listener = await listen({}, echo);
  const session = await connectH2(`http://127.0.0.1:${listener.port}`);
  await h2Request(session, { ':path': '/' });
  const closed = new Promise<void>((resolve) => session.once('close', () => resolve()));
  session.on('error', () => {});
  await listener.close();
  await closed;
  assert.ok(session.destroyed || session.closed);
});

test.run();
