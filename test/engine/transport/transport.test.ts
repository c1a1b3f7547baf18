import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createListener, isHttp2Disabled, type ResponseSink } from '../../../engine/transport/index.js';
import type { WireRequest } from '../../../engine/model/request.js';
import { delay, echo, envelopeOf, headerOf, listen, portIsClosed, RawClient } from '../../support/raw-http.js';
import { FRAME, FrameCounter, frame, OPENING, request } from '../../support/h2-frames.js';

test('keep-alive: several requests on one connection, raw headers kept as sent', async () => {
  const listener = await listen({}, echo);
  const client = await RawClient.connect(listener.port);
  try {
    client.send('GET /one?x=1 HTTP/1.1\r\nHost: a\r\nX-Multi: 1\r\nx-multi: 2\r\n\r\n');
    const first = await client.next();
    assert.is(first.status, 200);
    assert.is(first.reason, 'OK');
    assert.is(headerOf(first, 'x-url'), '/one?x=1');
    assert.equal(JSON.parse(headerOf(first, 'x-raw-headers') ?? ''), ['Host', 'a', 'X-Multi', '1', 'x-multi', '2']);
    assert.ok(headerOf(first, 'date'), 'Date added');
    assert.is(headerOf(first, 'transfer-encoding'), 'chunked', 'no Content-Length given: chunked, as node:http frames it');
    assert.is(headerOf(first, 'content-length'), undefined);
    client.send('DELETE /two HTTP/1.1\r\nHost: a\r\n\r\n');
    const second = await client.next();
    assert.is(headerOf(second, 'x-method'), 'DELETE');
    assert.is(client.ended, false);
  } finally {
    client.close();
    await listener.close();
  }
});

test('pipelining: answers leave in request order even when the handler answers out of order', async () => {
  const listener = await listen({}, (request, sink) => {
    const wait = Number(request.url.slice(1));
    setTimeout(() => sink.send(200, [], Buffer.from(request.url)), wait);
  });
  const client = await RawClient.connect(listener.port);
  try {
    client.send('GET /60 HTTP/1.1\r\nHost: x\r\n\r\nGET /0 HTTP/1.1\r\nHost: x\r\n\r\nGET /30 HTTP/1.1\r\nHost: x\r\n\r\nGET /1 HTTP/1.1\r\nHost: x\r\n\r\n');
    const bodies: string[] = [];
    for (let k = 0; k < 4; k++) bodies.push((await client.next()).body.toString());
    assert.equal(bodies, ['/60', '/0', '/30', '/1']);
  } finally {
    client.close();
    await listener.close();
  }
});

test('bytes split at every position still parse (head and body across reads)', async () => {
  const listener = await listen({}, echo);
  const request = 'POST /split HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello';
  try {
    for (const cut of [1, 5, 17, 30, 40, request.length - 6, request.length - 1]) {
      const client = await RawClient.connect(listener.port);
      client.send(request.slice(0, cut));
      await delay(5);
      client.send(request.slice(cut));
      const response = await client.next();
      assert.is(response.body.toString(), 'hello', `cut at ${cut}`);
      client.close();
    }
  } finally {
    await listener.close();
  }
});

test('chunked request body with extensions and trailers', async () => {
  const listener = await listen({}, echo);
  const client = await RawClient.connect(listener.port);
  try {
    client.send('POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5;name=v\r\nhello\r\n');
    await delay(5);
    client.send('1\r\n \r\nA\r\n0123456789\r\n0\r\nX-Trailer: yes\r\n\r\nGET /after HTTP/1.1\r\nHost: x\r\n\r\n');
    const response = await client.next();
    assert.is(response.body.toString(), 'hello 0123456789');
    assert.equal(JSON.parse(headerOf(response, 'x-raw-headers') ?? ''), ['Host', 'x', 'Transfer-Encoding', 'chunked']);
    assert.is(headerOf(await client.next(), 'x-url'), '/after');
  } finally {
    client.close();
    await listener.close();
  }
});

test('Expect: 100-continue is answered before the body is sent', async () => {
  const listener = await listen({}, echo);
  const client = await RawClient.connect(listener.port);
  try {
    client.send('PUT /e HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n');
    const interim = await client.next();
    assert.is(interim.status, 100);
    assert.is(interim.reason, 'Continue');
    client.send('data');
    const final = await client.next();
    assert.is(final.status, 200);
    assert.is(final.body.toString(), 'data');
  } finally {
    client.close();
    await listener.close();
  }
});

test('413 envelope then close: Content-Length over the cap (no 100 Continue), chunked over the cap', async () => {
  const listener = await listen({ maxBodyBytes: 10 }, echo);
  try {
    for (const request of [
      'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\nExpect: 100-continue\r\n\r\n',
      'POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nabcdef\r\n5\r\nghijk\r\n0\r\n\r\n',
    ]) {
      const client = await RawClient.connect(listener.port);
      client.send(request);
      const response = await client.next();
      assert.is(response.status, 413);
      assert.is(headerOf(response, 'content-type'), 'application/json');
      const error = envelopeOf(response);
      assert.is(error.code, '413');
      assert.is(error.type, 'payload_too_large');
      assert.is(headerOf(response, 'connection'), 'close');
      assert.is((await client.rest()).data.length, 0);
      assert.ok(client.ended);
    }
    const ok = await RawClient.connect(listener.port);
    ok.send('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n0123456789');
    assert.is((await ok.next()).body.toString(), '0123456789');
    ok.close();
  } finally {
    await listener.close();
  }
});

test('a body cut short by the client (half-close) is answered 400 incomplete_body', async () => {
  let calls = 0;
  const listener = await listen({}, (request, sink) => {
    calls++;
    echo(request, sink);
  });
  try {
    for (const request of [
      'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc',
      'POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab',
    ]) {
      const client = await RawClient.connect(listener.port);
      client.send(request);
      await delay(5);
      client.socket.end();
      const response = await client.next();
      assert.is(response.status, 400);
      const error = envelopeOf(response);
      assert.is(error.type, 'incomplete_body');
      assert.match(error.message, /transmission/);
      await client.rest();
    }
    assert.is(calls, 0, 'the handler never saw the truncated requests');
  } finally {
    await listener.close();
  }
});

test('malformed requests get a 400 envelope and close; the listener keeps serving', async () => {
  const listener = await listen({}, echo);
  const cases: Array<[string, number]> = [
    ['NOT A REQUEST\r\n\r\n', 400],
    ['GET /x HTTP/1.1 extra\r\n\r\n', 400],
    ['GET /x HTTP/2.5\r\n\r\n', 400],
    ['GET /x HTTP/1.1\r\nHost: x\r\nBad Header: v\r\n\r\n', 400],
    ['GET /x HTTP/1.1\r\nHost: x\r\nX: a\r\n  folded\r\n\r\n', 400],
    ['GET /x HTTP/1.1\r\nHost: x\r\nX: a\x00b\r\n\r\n', 400],
    ['POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 1x\r\n\r\n', 400],
    ['POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n', 400],
    ['POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n', 400],
    ['POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n', 400],
    ['POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', 400],
    ['POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n0\r\n\r\n', 400],
    [`GET /x HTTP/1.1\r\nX-Big: ${'a'.repeat(70 * 1024)}\r\n\r\n`, 431],
  ];
  try {
    for (const [request, status] of cases) {
      const client = await RawClient.connect(listener.port);
      client.send(request);
      const response = await client.next();
      assert.is(response.status, status, JSON.stringify(request.slice(0, 60)));
      assert.is(envelopeOf(response).type, status === 400 ? 'bad_request' : 'header_too_large');
      await client.rest();
      assert.ok(client.ended);
    }
    const client = await RawClient.connect(listener.port);
    client.send('GET /still-alive HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.is(headerOf(await client.next(), 'x-url'), '/still-alive');
    client.close();
  } finally {
    await listener.close();
  }
});

test('binary bodies round-trip byte-exact', async () => {
  const listener = await listen({ maxBodyBytes: 1024 * 1024 }, echo);
  const client = await RawClient.connect(listener.port);
  try {
    const every = Buffer.from(Array.from({ length: 256 }, (_, k) => k));
    const big = randomBytes(300 * 1024);
    for (const body of [every, big]) {
      client.send(Buffer.concat([Buffer.from(`POST /bin HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n`), body]));
      const response = await client.next();
      assert.ok(response.body.equals(body), `${body.length} bytes`);
    }
  } finally {
    client.close();
    await listener.close();
  }
});

test('HEAD gets the head only (no framing header, no body), as node:http; 204/304 carry neither', async () => {
  const listener = await listen({}, (request, sink) => {
    const status = request.url === '/204' ? 204 : request.url === '/304' ? 304 : 200;
    sink.send(status, [], Buffer.from('twelve bytes'));
  });
  const client = await RawClient.connect(listener.port);
  try {
    client.send('HEAD / HTTP/1.1\r\nHost: x\r\n\r\n');
    const head = await client.next({ head: true });
    assert.is(headerOf(head, 'content-length'), undefined);
    assert.is(headerOf(head, 'transfer-encoding'), undefined);
    client.send('GET /204 HTTP/1.1\r\nHost: x\r\n\r\n');
    const noContent = await client.next();
    assert.is(noContent.status, 204);
    assert.is(headerOf(noContent, 'content-length'), undefined);
    client.send('GET /304 HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.is((await client.next()).status, 304);
    client.send('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    const get = await client.next();
    // No stray body bytes from the HEAD/204/304 answers came before this one.
    assert.is(get.status, 200);
    assert.is(get.body.toString(), 'twelve bytes');
  } finally {
    client.close();
    await listener.close();
  }
});

test('Connection: close (response header or request header) closes after the answer', async () => {
  const listener = await listen({}, (request, sink) => {
    const headers: Array<[string, string]> = request.url === '/close' ? [['Connection', 'close']] : [];
    sink.send(200, headers, Buffer.from('x'));
  });
  try {
    const byResponse = await RawClient.connect(listener.port);
    byResponse.send('GET /close HTTP/1.1\r\nHost: x\r\n\r\nGET /never HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.is(headerOf(await byResponse.next(), 'connection'), 'close');
    assert.is((await byResponse.rest()).data.length, 0, 'the pipelined second request is not answered');

    const byRequest = await RawClient.connect(listener.port);
    byRequest.send('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    assert.is(headerOf(await byRequest.next(), 'connection'), 'close');
    await byRequest.rest();
    assert.ok(byRequest.ended);
  } finally {
    await listener.close();
  }
});

test('HTTP/1.0: closes by default; with Connection: keep-alive stays open when the length is known', async () => {
  const listener = await listen({}, (request, sink) => {
    if (request.url === '/sized') sink.send(200, [['Content-Length', '5']], Buffer.from('sized'));
    else echo(request, sink);
  });
  try {
    const plain = await RawClient.connect(listener.port);
    plain.send('GET /a HTTP/1.0\r\n\r\n');
    const first = await plain.next();
    assert.is(headerOf(first, 'x-version'), '1.0');
    assert.is(headerOf(first, 'connection'), 'close');
    await plain.rest();
    assert.ok(plain.ended);

    const keep = await RawClient.connect(listener.port);
    keep.send('GET /sized HTTP/1.0\r\nConnection: keep-alive\r\n\r\n');
    const sized = await keep.next();
    assert.is(headerOf(sized, 'connection'), 'keep-alive');
    assert.is(sized.body.toString(), 'sized');
    keep.send('GET /b HTTP/1.0\r\nConnection: keep-alive\r\n\r\n');
    const unsized = await keep.next();
    assert.is(headerOf(unsized, 'x-url'), '/b');
    assert.is(headerOf(unsized, 'connection'), 'close', 'no length for HTTP/1.0: the body ends with the connection');
    await keep.rest();
    assert.ok(keep.ended);
  } finally {
    await listener.close();
  }
});

test('writer: header order and repeats kept, Transfer-Encoding answers chunked, reason phrases', async () => {
  const listener = await listen({}, (request, sink) => {
    if (request.url === '/chunked') {
      sink.send(200, [['Transfer-Encoding', 'chunked']], Buffer.from('chunky body'));
    } else if (request.url === '/empty-chunked') {
      sink.send(200, [['Transfer-Encoding', 'chunked']], Buffer.alloc(0));
    } else if (request.url === '/own-date') {
      sink.send(
        299,
        [
          ['Date', 'yesterday'],
          ['Content-Length', '3'],
        ],
        Buffer.from('abc'),
      );
    } else {
      sink.send(
        418,
        [
          ['Set-Cookie', 'a=1'],
          ['X-B', 'b'],
          ['Set-Cookie', 'c=2'],
        ],
        Buffer.alloc(0),
      );
    }
  });
  const client = await RawClient.connect(listener.port);
  try {
    client.send('GET /chunked HTTP/1.1\r\nHost: x\r\n\r\n');
    const chunked = await client.next();
    assert.is(headerOf(chunked, 'content-length'), undefined);
    assert.is(chunked.body.toString(), 'chunky body');
    client.send('GET /empty-chunked HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.is((await client.next()).body.length, 0);
    client.send('GET /own-date HTTP/1.1\r\nHost: x\r\n\r\n');
    const own = await client.next();
    assert.is(own.reason, 'Success');
    assert.equal(
      own.headers.filter(([n]) => n === 'Date'),
      [['Date', 'yesterday']],
    );
    assert.equal(
      own.headers.filter(([n]) => n === 'Content-Length'),
      [['Content-Length', '3']],
    );
    client.send('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    const teapot = await client.next();
    assert.is(teapot.reason, "I'm a Teapot");
    assert.equal(teapot.headers.slice(0, 3), [
      ['Set-Cookie', 'a=1'],
      ['X-B', 'b'],
      ['Set-Cookie', 'c=2'],
    ]);
  } finally {
    client.close();
    await listener.close();
  }
});

test('one header list reused across answers with different status, body, HEAD and close', async () => {
  const shared: Array<[string, string]> = [['X-Shared', 'yes']];
  const listener = await listen({}, (request, sink) => {
    sink.send(request.url === '/404' ? 404 : 200, shared, Buffer.from(request.url));
  });
  const client = await RawClient.connect(listener.port);
  try {
    client.send('GET /a HTTP/1.1\r\nHost: x\r\n\r\n');
    const a = await client.next();
    assert.is(a.body.toString(), '/a');
    assert.is(headerOf(a, 'x-shared'), 'yes');
    client.send('HEAD /abc HTTP/1.1\r\nHost: x\r\n\r\n');
    const head = await client.next({ head: true });
    assert.is(head.status, 200);
    assert.is(headerOf(head, 'x-shared'), 'yes');
    client.send('GET /404 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    const last = await client.next();
    assert.is(last.status, 404);
    assert.is(last.body.toString(), '/404');
    assert.is(headerOf(last, 'connection'), 'close');
    await client.rest();
    assert.ok(client.ended);
  } finally {
    client.close();
    await listener.close();
  }
});

test('a frozen header list is encoded per answer; the list it answered with is not changed', async () => {
  const frozen = Object.freeze([Object.freeze(['X-Frozen', 'a']), Object.freeze(['Content-Type', 'text/plain'])]) as unknown as Array<[string, string]>;
  const fresh: Array<Array<[string, string]>> = [];
  const listener = await listen({}, (request, sink) => {
    if (request.url === '/frozen') {
      sink.send(200, frozen, Buffer.from('f'));
      return;
    }
    const list: Array<[string, string]> = [['X-Fresh', request.url]];
    fresh.push(list);
    sink.send(201, list, Buffer.from(request.url));
  });
  const client = await RawClient.connect(listener.port);
  try {
    for (const url of ['/frozen', '/one', '/frozen', '/two']) {
      client.send(`GET ${url} HTTP/1.1\r\nHost: x\r\n\r\n`);
      const answer = await client.next();
      if (url === '/frozen') {
        assert.is(answer.status, 200);
        assert.is(headerOf(answer, 'x-frozen'), 'a');
        assert.is(headerOf(answer, 'content-type'), 'text/plain');
      } else {
        assert.is(answer.status, 201);
        assert.is(headerOf(answer, 'x-fresh'), url);
      }
    }
    assert.equal(
      fresh.map((list) => JSON.stringify(list)),
      ['[["X-Fresh","/one"]]', '[["X-Fresh","/two"]]'],
    );
    assert.equal(Object.keys(fresh[0]!), ['0'], 'no enumerable property added to the list');
  } finally {
    client.close();
    await listener.close();
  }
});

test('a static answer served again is byte-identical within a second and carries the new Date after one', async () => {
  const headers: Array<[string, string]> = [['X-Static', '1']];
  const body = Buffer.from('same');
  const listener = await listen({}, (_request, sink) => sink.send(200, headers, body));
  const client = await RawClient.connect(listener.port);
  try {
    client.send('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    const first = await client.next();
    client.send('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    const second = await client.next();
    assert.is(second.body.toString(), 'same');
    assert.is(headerOf(second, 'date'), headerOf(first, 'date'));
    await delay(1100);
    client.send('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    const later = await client.next();
    assert.is.not(headerOf(later, 'date'), headerOf(first, 'date'), 'Date follows the clock');
    assert.is(later.body.toString(), 'same');
  } finally {
    client.close();
    await listener.close();
  }
});

test('a throwing handler or an illegal header answers 500 and the connection carries on', async () => {
  const listener = await listen({}, (request, sink) => {
    if (request.url === '/throw') throw new Error('boom');
    if (request.url === '/reject') return Promise.reject(new Error('async boom')) as unknown as void;
    if (request.url === '/bad-header') return sink.send(200, [['X-Split', 'a\r\nInjected: yes']], Buffer.alloc(0));
    sink.send(200, [], Buffer.from('fine'));
  });
  const client = await RawClient.connect(listener.port);
  try {
    for (const [path, type] of [
      ['/throw', 'internal_error'],
      ['/reject', 'internal_error'],
      ['/bad-header', 'invalid_response'],
    ]) {
      client.send(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
      const response = await client.next();
      assert.is(response.status, 500, path);
      assert.is(envelopeOf(response).type, type);
      assert.is(headerOf(response, 'injected'), undefined);
    }
    client.send('GET /ok HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.is((await client.next()).body.toString(), 'fine');
  } finally {
    client.close();
    await listener.close();
  }
});

test('a second send on the same sink is ignored', async () => {
  const listener = await listen({}, (_request, sink) => {
    sink.send(201, [], Buffer.from('first'));
    sink.send(202, [], Buffer.from('second'));
  });
  const client = await RawClient.connect(listener.port);
  try {
    client.send('GET / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.is((await client.next()).status, 201);
    assert.is((await client.next()).status, 201);
  } finally {
    client.close();
    await listener.close();
  }
});

test('close() unbinds the port and ends keep-alive connections, even with a pending answer', async () => {
  const sinks: ResponseSink[] = [];
  const listener = await listen({}, (request: WireRequest, sink) => {
    if (request.url === '/hang') sinks.push(sink);
    else sink.send(200, [], Buffer.alloc(0));
  });
  const idle = await RawClient.connect(listener.port);
  idle.send('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
  await idle.next();
  const hanging = await RawClient.connect(listener.port);
  hanging.send('GET /hang HTTP/1.1\r\nHost: x\r\n\r\n');
  await delay(10);
  await listener.close();
  assert.ok(await portIsClosed(listener.port));
  await idle.rest();
  await hanging.rest();
  assert.ok(idle.ended && hanging.ended);
  sinks[0].send(200, [], Buffer.from('late'));
});

test('EADDRINUSE rejects with the code; port 0 gets a port', async () => {
  const first = await listen({}, echo);
  try {
    assert.ok(first.port > 0);
    const error = await createListener({ protocol: 'http', port: first.port, host: '127.0.0.1', http2: false, maxBodyBytes: 10 }, echo).then(
      () => null,
      (e: NodeJS.ErrnoException) => e,
    );
    assert.is(error?.code, 'EADDRINUSE');
  } finally {
    await first.close();
  }
});

function canListenOn(host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(0, host, () => probe.close(() => resolve(true)));
  });
}

test('default host binds every interface: reachable over IPv4 and IPv6 loopback', async () => {
  const listener = await createListener({ protocol: 'http', port: 0, http2: true, maxBodyBytes: 10 }, echo);
  try {
    const hosts = (await canListenOn('::1')) ? ['127.0.0.1', '::1'] : ['127.0.0.1'];
    for (const host of hosts) {
      const response = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(listener.port, host, () => socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
        socket.once('data', (data) => {
          socket.destroy();
          resolve(data.toString('latin1'));
        });
        socket.once('error', reject);
      });
      assert.match(response, /^HTTP\/1\.1 200 OK\r\n/, host);
    }
  } finally {
    await listener.close();
  }
});

test('h2c: body bytes over the limit that arrive after the 408 are dropped, the listener keeps serving', async () => {
  const requestMs = 200;
  const listener = await listen({ maxBodyBytes: 10, timeouts: { keepAliveMs: 5000, headersMs: requestMs, requestMs } }, echo);
  const socket = net.connect(listener.port, '127.0.0.1');
  socket.on('error', () => undefined);
  try {
    await new Promise((resolve) => socket.once('connect', resolve));
    const frames = new FrameCounter(socket);
    // A POST whose body has begun (1 byte of at most 10).
    socket.write(Buffer.concat([OPENING, request(1, 'POST'), frame(FRAME.DATA, 0, 1, Buffer.from('x'))]));
    for (let i = 0; i < 200 && frames.count(FRAME.SETTINGS) === 0; i += 1) await delay(10);
    assert.ok(frames.count(FRAME.SETTINGS) > 0, 'the server opened the session');
    await delay(50);
    // From a setImmediate callback the loop's next turn runs its timers before it reads sockets: blocked past
    // the request timeout, the session guard answers 408 first, then the over-limit bytes sent now are read.
    await new Promise((resolve) => setImmediate(resolve));
    socket.write(frame(FRAME.DATA, 0, 1, Buffer.alloc(100)));
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, requestMs * 2);
    for (let i = 0; i < 200 && frames.count(FRAME.HEADERS) === 0; i += 1) await delay(10);
    assert.is(frames.count(FRAME.HEADERS), 1, 'one answer (the 408), not a second one for the over-limit body');
    const after = await RawClient.connect(listener.port);
    try {
      after.send('GET /after HTTP/1.1\r\nHost: x\r\n\r\n');
      assert.is((await after.next()).status, 200);
    } finally {
      after.close();
    }
  } finally {
    socket.destroy();
    await listener.close();
  }
});

test('isHttp2Disabled reads SVC_DISABLE_HTTP2 truthy values', () => {
  for (const value of ['1', 'true', 'YES', 'On', ' on ']) assert.ok(isHttp2Disabled({ SVC_DISABLE_HTTP2: value }), value);
  for (const value of [undefined, '', '0', 'false', 'no', 'off', 'maybe']) {
    assert.not.ok(isHttp2Disabled({ SVC_DISABLE_HTTP2: value }), String(value));
  }
});

test.run();
