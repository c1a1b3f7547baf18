import http2 from 'node:http2';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { seededRandom } from '../../../../engine/respond/faults/index.js';
import { inProcessForSuite } from '../../../support/in-process.js';
import { clientRequest, createImposter, rawExchange, stubAt, withSeed } from '../../../support/faults.js';
import { h2Get } from '../../../support/h2-frames.js';

const test = suite('faults: latency, error and their precedence');
const svc = inProcessForSuite(test);

const OK = { body: 'fine' };
const faulty = (path: string, fault: Record<string, unknown>) => stubAt(path, { is: OK, _svc: { fault } });

test('fixed latency: the client waits at least the configured ms, then gets the response', async () => {
  const port = await createImposter(svc, 'http', [faulty('/', { latency: { probability: 1, ms: 150 } })]);
  const res = await clientRequest('http', port, '/');
  assert.is(res.status, 200);
  assert.is(res.body, 'fine');
  assert.ok(res.elapsedMs >= 150, `elapsed ${res.elapsedMs}`);
});

test('latency range: each request waits at least its seeded draw in [minMs, maxMs]', async () => {
  const [minMs, maxMs] = [30, 120];
  const random = seededRandom('range');
  const expected = Array.from({ length: 6 }, () => minMs + random() * (maxMs - minMs));
  assert.ok(
    expected.some((ms) => ms > minMs + 10),
    'the draws spread over the range',
  );
  await withSeed('range', async () => {
    const port = await createImposter(svc, 'http', [faulty('/', { latency: { minMs, maxMs } })]);
    for (const ms of expected) {
      const res = await clientRequest('http', port, '/');
      assert.is(res.status, 200);
      assert.ok(res.elapsedMs >= ms, `elapsed ${res.elapsedMs} < drawn ${ms}`);
    }
  });
});

test('a delayed request blocks neither other stubs nor other imposters', async () => {
  const port = await createImposter(svc, 'http', [faulty('/slow', { latency: { ms: 600 } }), stubAt('/fast', { is: OK })]);
  const other = await createImposter(svc, 'http', [stubAt('/', { is: OK })]);
  const order: string[] = [];
  const slow = clientRequest('http', port, '/slow').then((res) => {
    order.push('slow');
    return res;
  });
  const fast = await clientRequest('http', port, '/fast');
  order.push('fast');
  const elsewhere = await clientRequest('http', other, '/');
  order.push('other imposter');
  const slowRes = await slow;
  assert.equal(order, ['fast', 'other imposter', 'slow']);
  assert.is(fast.status, 200);
  assert.is(elsewhere.status, 200);
  assert.ok(slowRes.elapsedMs >= 600, `elapsed ${slowRes.elapsedMs}`);
});

test('latency probability 0 adds no delay draw and no wait', async () => {
  const port = await createImposter(svc, 'http', [faulty('/', { latency: { probability: 0, ms: 5000 } })]);
  const res = await clientRequest('http', port, '/');
  assert.is(res.status, 200);
});

test('error fault: status, body and headers as configured; Connection: close by default', async () => {
  const port = await createImposter(svc, 'http', [
    faulty('/503', { error: { probability: 1, status: 503, body: 'down for maintenance', headers: { 'Retry-After': '5', 'X-Multi': ['a', 'b'] } } }),
    faulty('/bare', { error: {} }),
  ]);
  const res = await clientRequest('http', port, '/503');
  assert.is(res.status, 503);
  assert.is(res.body, 'down for maintenance');
  assert.is(res.headers?.['retry-after'], '5');
  assert.is(res.headers?.['x-multi'], 'a, b');
  assert.is(res.headers?.connection, 'close');
  const bare = await clientRequest('http', port, '/bare');
  assert.is(bare.status, 500, 'status defaults to 500');
  assert.is(bare.body, '');
});

test('error fault works on https too', async () => {
  const port = await createImposter(svc, 'https', [faulty('/', { error: { status: 429, body: 'slow down' } })]);
  const res = await clientRequest('https', port, '/');
  assert.is(res.status, 429);
  assert.is(res.body, 'slow down');
});

test('latency and error faults keep HTTP/2 (h2c) and work over it', async () => {
  const port = await createImposter(svc, 'http', [faulty('/', { latency: { ms: 80 }, error: { status: 503, body: 'h2 down' } })]);
  const session = http2.connect(`http://127.0.0.1:${port}`);
  // A session error rejects the request below (h2Get); without a listener it would end the test process.
  session.on('error', () => undefined);
  try {
    const started = performance.now();
    const answer = await h2Get(session);
    assert.equal(answer, { status: 503, body: 'h2 down' });
    assert.ok(performance.now() - started >= 80);
  } finally {
    session.destroy();
  }
});

test('precedence: latency first, then the tcp fault ends the connection', async () => {
  const port = await createImposter(svc, 'http', [faulty('/', { latency: { ms: 120 }, tcp: 'reset', error: { status: 503 } })]);
  const started = performance.now();
  const end = await rawExchange('http', port, '/');
  assert.ok(performance.now() - started >= 120);
  assert.is(end.errorCode, 'ECONNRESET');
  assert.is(end.data.length, 0, 'no HTTP response, not even the error');
});

test('precedence: error applies only when tcp did not fire', async () => {
  const port = await createImposter(svc, 'http', [
    faulty('/tcp-wins', { tcp: { probability: 1, type: 'empty' }, error: { probability: 1, status: 503 } }),
    faulty('/error', { tcp: { probability: 0, type: 'empty' }, error: { probability: 1, status: 503, body: 'err' } }),
    faulty('/latency-error', { latency: { ms: 80 }, error: { status: 502 } }),
  ]);
  const tcpWins = await rawExchange('http', port, '/tcp-wins');
  assert.is(tcpWins.data.length, 0);
  assert.is(tcpWins.errorCode, null);
  const error = await clientRequest('http', port, '/error');
  assert.is(error.status, 503);
  assert.is(error.body, 'err');
  const delayed = await clientRequest('http', port, '/latency-error');
  assert.is(delayed.status, 502);
  assert.ok(delayed.elapsedMs >= 80);
});

test('a block on a top-level fault response: latency, then the fault', async () => {
  const port = await createImposter(svc, 'http', [stubAt('/', { fault: 'EMPTY_RESPONSE', _svc: { fault: { latency: { ms: 60 } } } })]);
  const started = performance.now();
  const end = await rawExchange('http', port, '/');
  assert.ok(performance.now() - started >= 60);
  assert.is(end.data.length, 0);
  assert.is(end.errorCode, null);
});

test('a block whose members never fire leaves the response alone', async () => {
  const port = await createImposter(svc, 'http', [
    faulty('/', {
      latency: { probability: 0, ms: 1000 },
      tcp: { probability: 0, type: 'reset' },
      error: { probability: 0, status: 503 },
    }),
  ]);
  const res = await clientRequest('http', port, '/');
  assert.is(res.status, 200);
  assert.is(res.body, 'fine');
});

test.run();
