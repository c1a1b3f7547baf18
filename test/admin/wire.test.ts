/**
 * Issue 10 items 5, 8 (admin part) and 9: client mistakes on the admin and metrics ports are 4xx docs/errors.md
 * envelopes (never a 500, an empty body or a dropped socket), and the API key is checked before a body
 * is read.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createAdminServer, listenAdmin, startMetricsServer, type AdminServer, type RunningMetrics } from '../../admin/index.js';
import { createLogger } from '../../engine/log/index.js';
import { ImposterManager } from '../../engine/manager/index.js';
import { inProcessForSuite, testAdminSettings } from '../support/in-process.js';
import { envelopeOf, headerOf, RawClient, type RawResponse } from '../support/raw-http.js';

const test = suite('admin: hostile requests get 4xx envelopes');
const KEY = 'secret-key';
const SMALL_CAP = 1024;
const svc = inProcessForSuite(test, { keepImposters: true });
const keyed = inProcessForSuite(test, { apiKey: KEY, keepImposters: true });
let capped: AdminServer;
let cappedManager: ImposterManager;
let metrics: RunningMetrics;

test.before(async () => {
  const log = createLogger({ level: 'error', quiet: true });
  cappedManager = new ImposterManager({ allowInjection: false, log });
  capped = await listenAdmin(
    createAdminServer({
      manager: cappedManager,
      log,
      maxBodyBytes: SMALL_CAP,
      settings: testAdminSettings(),
    }),
    0,
    '127.0.0.1',
  );
  metrics = await startMetricsServer({ port: 0, host: '127.0.0.1', manager: svc.manager });
});
test.after(async () => {
  await cappedManager.close();
  await capped.close();
  await metrics.close();
});

/** Sends raw bytes on a fresh connection and returns the first response. */
async function rawExchange(port: number, bytes: string | Buffer): Promise<RawResponse> {
  const client = await RawClient.connect(port);
  try {
    client.send(bytes);
    return await client.next();
  } finally {
    client.close();
  }
}

function assertEnvelope(response: RawResponse, status: number, type: string): void {
  assert.is(response.status, status, response.body.toString());
  assert.match(headerOf(response, 'content-type') ?? '', /application\/json/);
  const error = envelopeOf(response);
  assert.is(error.type, type, JSON.stringify(error));
  assert.type(error.code, 'string');
  assert.type(error.message, 'string');
}

test('a malformed %-escape in any path parameter is a 400 envelope, not a 500 "URI malformed"', async () => {
  const port = await svc.createImposter({ stubs: [{ responses: [{ is: {} }] }] });
  for (const path of ['/imposters/%E0', '/imposters/%E0/stubs', `/imposters/${port}/stubs/by-id/%C3%28`, `/imposters/${port}/stubs/%`]) {
    const res = await svc.admin('GET', path);
    assert.is(res.status, 400, `${path}: ${res.body}`);
    assert.is(res.json.errors[0].type, 'bad_request', path);
  }
});

test('raw request targets the URL parser refuses are 400 envelopes, not a 500 "Invalid URL"', async () => {
  for (const target of ['http://[', '//[', 'http://[::1', '//[/imposters']) {
    assertEnvelope(await rawExchange(svc.adminPort, `GET ${target} HTTP/1.1\r\nHost: x\r\n\r\n`), 400, 'bad_request');
  }
});

test("node:http's own 400 and 431 replies carry the envelope on the admin and metrics ports", async () => {
  for (const port of [svc.adminPort, metrics.port]) {
    assertEnvelope(await rawExchange(port, 'GARBAGE\r\n\r\n'), 400, 'bad_request');
    assertEnvelope(await rawExchange(port, 'GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'), 400, 'bad_request');
    assertEnvelope(await rawExchange(port, `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`), 431, 'header_fields_too_large');
  }
});

test('garbage pipelined behind a request does not answer in its place: the request gets its own answer', async () => {
  const port = await svc.createImposter({ stubs: [{ responses: [{ is: {} }] }] });
  const body = JSON.stringify({ stubs: [{ responses: [{ is: { body: 'replaced' } }] }] });
  const response = await rawExchange(
    svc.adminPort,
    `PUT /imposters/${port}/stubs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}GARBAGE\r\n\r\n`,
  );
  assert.is(response.status, 200, response.body.toString());
  const stubs = await svc.admin('GET', `/imposters/${port}/stubs`);
  assert.is(stubs.json.stubs[0].responses[0].is.body, 'replaced', 'the answer told the truth: the change was applied');
});

test('the metrics port answers unknown paths and methods with a 404 envelope', async () => {
  assertEnvelope(await rawExchange(metrics.port, 'GET /nope HTTP/1.1\r\nHost: x\r\n\r\n'), 404, 'not_found');
  assertEnvelope(await rawExchange(metrics.port, 'POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n'), 404, 'not_found');
});

test('with --api-key a request announcing a 60 MiB body is refused 401 before any of it is sent', async () => {
  const head = `POST /imposters HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${60 * 1024 * 1024}\r\n\r\n`;
  const response = await rawExchange(keyed.adminPort, head);
  assertEnvelope(response, 401, 'unauthorized');
  assert.is(headerOf(response, 'connection'), 'close', 'the unread body is not drained');
  const chunked = await rawExchange(
    keyed.adminPort,
    'PUT /imposters HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n100\r\n' + 'a'.repeat(256) + '\r\n',
  );
  assertEnvelope(chunked, 401, 'unauthorized');
});

test('an admin body over the cap is a 413 envelope, announced or chunked (was a destroyed socket)', async () => {
  const announced = await rawExchange(capped.port, `POST /imposters HTTP/1.1\r\nHost: x\r\nContent-Length: ${SMALL_CAP + 1}\r\n\r\n`);
  assertEnvelope(announced, 413, 'payload_too_large');
  const chunk = 'a'.repeat(600);
  const streamed = await rawExchange(
    capped.port,
    `POST /imposters HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${(600).toString(16)}\r\n${chunk}\r\n${(600).toString(16)}\r\n${chunk}\r\n`,
  );
  assertEnvelope(streamed, 413, 'payload_too_large');
  const inside = await rawExchange(capped.port, 'POST /imposters HTTP/1.1\r\nHost: x\r\nContent-Length: 12\r\n\r\n{"port":"x"}');
  assert.is(inside.status, 400, 'a body within the cap is read and validated');
  assert.is(envelopeOf(inside).type, 'bad_data');
});

test.run();
