/**
 * docs/cli.md rule 4: the admin plane and the metrics server speak cleartext HTTP/2 with prior knowledge
 * next to HTTP/1, on the same port, unless SVC_DISABLE_HTTP2 is truthy.
 */
import http2 from 'node:http2';
import net from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startMetricsServer, type RunningMetrics } from '../../admin/index.js';
import { inProcessForSuite, startInProcess, type InProcessSvc } from '../support/in-process.js';
import { http } from '../support/servers.js';
import { h2Fetch, type H2Answer } from '../support/h2-frames.js';

/** One request over a fresh h2c session (prior knowledge); the session is closed afterwards. */
const h2 = (port: number, method: string, path: string, body?: string): Promise<H2Answer> =>
  h2Fetch(`http://127.0.0.1:${port}`, { method, path, body, headers: body === undefined ? {} : { 'content-type': 'application/json' } });

/** Opens `GET path` over h2c and resolves with the first SSE frame, then closes the session. */
function h2FirstEvent(port: number, path: string): Promise<{ status: number; headers: http2.IncomingHttpHeaders; frame: string }> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`http://127.0.0.1:${port}`);
    session.on('error', reject);
    const stream = session.request({ ':method': 'GET', ':path': path });
    let status = 0;
    let headers: http2.IncomingHttpHeaders = {};
    let text = '';
    stream.setEncoding('utf8');
    stream.on('response', (h) => {
      headers = h;
      status = Number(h[':status']);
    });
    stream.on('data', (chunk: string) => {
      text += chunk;
      const end = text.indexOf('\n\n');
      if (end < 0) return;
      session.destroy();
      resolve({ status, headers, frame: text.slice(0, end) });
    });
    stream.on('error', reject);
  });
}

const test = suite('admin and metrics planes over h2c');
const svc = inProcessForSuite(test, { keepImposters: true });
let metrics: RunningMetrics;
let imposterPort: number;

test.before(async () => {
  metrics = await startMetricsServer({ port: 0, host: '127.0.0.1', manager: svc.manager, admin: svc.server });
  imposterPort = await svc.createImposter({
    stubs: [{ responses: [{ is: { statusCode: 201, headers: { Connection: 'keep-alive', 'Set-Cookie': ['a=1', 'b=2'] }, body: 'hello' } }] }],
  });
});

test.after(async () => {
  await metrics.close();
});

test('JSON admin routes answer over h2c, with absolute links from :authority', async () => {
  const root = await h2(svc.adminPort, 'GET', '/');
  assert.is(root.status, 200);
  assert.match(root.headers['content-type'] ?? '', 'application/json');
  assert.is(JSON.parse(root.body)._links.imposters.href, `http://127.0.0.1:${svc.adminPort}/imposters`);
  const list = await h2(svc.adminPort, 'GET', '/imposters');
  assert.equal(
    JSON.parse(list.body).imposters.map((i: { port: number }) => i.port),
    [imposterPort],
  );
});

test('a POST body arrives over h2c', async () => {
  const created = await h2(svc.adminPort, 'POST', '/imposters', JSON.stringify({ protocol: 'http', stubs: [] }));
  assert.is(created.status, 201, created.body);
  const port = JSON.parse(created.body).port as number;
  assert.is((await h2(svc.adminPort, 'DELETE', `/imposters/${port}`)).status, 200);
});

test('errors keep the docs/errors.md envelope over h2c', async () => {
  const missing = await h2(svc.adminPort, 'GET', '/imposters/1');
  assert.is(missing.status, 404);
  assert.ok(Array.isArray(JSON.parse(missing.body).errors));
});

test('the gateway relays an imposter answer over h2c without its HTTP/1-only headers', async () => {
  const answer = await h2(svc.adminPort, 'GET', `/__svc/${imposterPort}/hello`);
  assert.is(answer.status, 201);
  assert.is(answer.body, 'hello');
  assert.is(answer.headers.connection, undefined);
  assert.equal(answer.headers['set-cookie'], ['a=1', 'b=2']);
});

test('gateway TCP faults over h2c end the request without an answer, and the admin plane serves on', async () => {
  const faulty = await svc.createImposter({
    stubs: ['CONNECTION_RESET_BY_PEER', 'EMPTY_RESPONSE', 'RANDOM_DATA_THEN_CLOSE', 'MALFORMED_RESPONSE_CHUNK'].map((fault) => ({
      predicates: [{ equals: { path: `/${fault}` } }],
      responses: [{ fault }],
    })),
  });
  for (const fault of ['CONNECTION_RESET_BY_PEER', 'EMPTY_RESPONSE', 'RANDOM_DATA_THEN_CLOSE', 'MALFORMED_RESPONSE_CHUNK']) {
    const outcome = await h2(svc.adminPort, 'GET', `/__svc/${faulty}/${fault}`).then(
      (answer) => `answered ${answer.status}`,
      () => 'no answer',
    );
    assert.ok(outcome === 'no answer' || outcome === 'answered 0', `${fault}: ${outcome}`);
  }
  assert.is((await h2(svc.adminPort, 'GET', '/imposters')).status, 200);
});

test('the event stream (SSE) starts with hello over h2c', async () => {
  const first = await h2FirstEvent(svc.adminPort, '/events');
  assert.is(first.status, 200);
  assert.is(first.headers['content-type'], 'text/event-stream');
  assert.match(first.frame, /^event: hello\ndata: \{/);
});

test('GET /metrics over h2c on the admin plane and on the metrics server', async () => {
  const adminMetrics = await h2(svc.adminPort, 'GET', '/metrics');
  assert.is(adminMetrics.status, 200);
  assert.match(adminMetrics.body, 'svc_imposters_total');
  const scraped = await h2(metrics.port, 'GET', '/metrics');
  assert.is(scraped.status, 200);
  assert.match(scraped.body, 'svc_requests_total');
});

test('a client resetting before its first byte does not take the process down', async () => {
  for (let attempt = 0; attempt < 5; attempt += 1) {
    await new Promise<void>((resolve, reject) => {
      const socket = net.connect(svc.adminPort, '127.0.0.1', () => {
        socket.resetAndDestroy();
        resolve();
      });
      socket.on('error', reject);
    });
  }
  await new Promise((done) => setTimeout(done, 100));
  assert.is((await svc.admin('GET', '/imposters')).status, 200);
});

test('HTTP/1 keeps working on the same ports', async () => {
  assert.is((await svc.admin('GET', '/imposters')).status, 200);
  assert.is((await http('GET', `http://127.0.0.1:${metrics.port}/metrics`)).status, 200);
  assert.is((await http('GET', `http://127.0.0.1:${svc.adminPort}/__svc/${imposterPort}/x`)).body, 'hello');
});

test.run();

const disabled = suite('SVC_DISABLE_HTTP2=1: admin and metrics are HTTP/1 only');
let plain: InProcessSvc;
let plainMetrics: RunningMetrics;

disabled.before(async () => {
  const previous = process.env.SVC_DISABLE_HTTP2;
  process.env.SVC_DISABLE_HTTP2 = '1';
  try {
    plain = await startInProcess();
    plainMetrics = await startMetricsServer({ port: 0, host: '127.0.0.1', manager: plain.manager });
  } finally {
    if (previous === undefined) delete process.env.SVC_DISABLE_HTTP2;
    else process.env.SVC_DISABLE_HTTP2 = previous;
  }
});

disabled.after(async () => {
  await plainMetrics.close();
  await plain.stop();
});

disabled('an h2c client is refused, HTTP/1 is served', async () => {
  for (const port of [plain.adminPort, plainMetrics.port]) {
    const outcome = await h2(port, 'GET', '/metrics').then(
      (answer) => `answered ${answer.status}`,
      () => 'refused',
    );
    assert.is(outcome, 'refused', `h2c on port ${port}`);
  }
  assert.is((await plain.admin('GET', '/imposters')).status, 200);
  assert.is((await http('GET', `http://127.0.0.1:${plainMetrics.port}/metrics`)).status, 200);
});

disabled.run();
