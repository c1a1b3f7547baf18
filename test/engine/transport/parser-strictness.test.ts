/**
 * Issue 10 item 10: the imposter-port HTTP/1 parser refuses what node:http (llhttp, which
 * mountebank's imposters run on) refuses, with a 400 envelope and at once, and still accepts what
 * node accepts. Each case was checked against node 20's http server.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ServerBuilder, type RunningServer } from '../../../app/index.js';
import { createLogger } from '../../../engine/log/index.js';
import { parseCliOptions } from '../../../index.js';
import { RawClient, envelopeOf, headerOf } from '../../support/raw-http.js';
import { freePort, http } from '../../support/servers.js';

const log = createLogger({ level: 'error', quiet: true });
const test = suite('HTTP/1 parser strictness');

let server: RunningServer | undefined;
let port = 0;

test.before(async () => {
  const options = parseCliOptions(['--port', '0', '--host', '127.0.0.1', '--metrics-port', '0'], {});
  server = await ServerBuilder.fromCli(options).logger(log).start();
  port = await freePort();
  const created = await http('POST', `http://127.0.0.1:${server.adminAddr().port}/imposters`, {
    body: JSON.stringify({ protocol: 'http', port, stubs: [{ responses: [{ is: { body: 'served' } }] }] }),
  });
  assert.is(created.status, 201);
});

test.after(async () => {
  await server?.shutdown();
});

/** Sends the bytes without closing, so an answer must come from the server deciding, not from EOF. */
async function exchange(bytes: string | Buffer): Promise<{ status: number; type?: string; body: string }> {
  const client = await RawClient.connect(port);
  try {
    client.send(bytes);
    const response = await client.next();
    const isJson = headerOf(response, 'content-type') === 'application/json';
    return { status: response.status, type: isJson ? envelopeOf(response).type : undefined, body: response.body.toString('latin1') };
  } finally {
    client.close();
  }
}

const refused: Array<[string, string | Buffer]> = [
  ['identical duplicated Content-Length', 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc'],
  ['Content-Length in chunked trailers', 'POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nContent-Length: 3\r\n\r\n'],
  ['HTTP/1.1 without Host', 'GET / HTTP/1.1\r\n\r\n'],
  ['HTTP/1.1 absolute-form without Host', 'GET http://x/ HTTP/1.1\r\n\r\n'],
  ['lower-case method', 'get / HTTP/1.1\r\nHost: x\r\n\r\n'],
  ['unknown method', 'FETCH / HTTP/1.1\r\nHost: x\r\n\r\n'],
  ['raw 0xFF in the target', Buffer.concat([Buffer.from('GET /a'), Buffer.from([0xff]), Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n')])],
  ['raw 0x80 in the target', Buffer.concat([Buffer.from('GET /a'), Buffer.from([0x80]), Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n')])],
  ['bare-LF request', 'GET / HTTP/1.1\nHost: x\n\n'],
  ['bare LF after the request line, head unfinished', 'GET / HTTP/1.1\nHost: x'],
  ['bare LF ending the head', 'GET / HTTP/1.1\r\nHost: x\r\n\n'],
];

for (const [name, bytes] of refused) {
  test(`400 at once: ${name}`, async () => {
    const answer = await exchange(bytes);
    assert.is(answer.status, 400);
    assert.is(answer.type, 'bad_request');
  });
}

test('a bare LF arriving in a later packet is refused too', async () => {
  const client = await RawClient.connect(port);
  try {
    client.send('GET / HTTP/1.1\r\nHo');
    await new Promise((resolve) => setTimeout(resolve, 50));
    client.send('st: x\nX: y');
    assert.is((await client.next()).status, 400);
  } finally {
    client.close();
  }
});

const accepted: Array<[string, string | Buffer]> = [
  ['HTTP/1.0 without Host', 'GET / HTTP/1.0\r\n\r\n'],
  ['an empty line (bare LF) before the request line', '\nGET / HTTP/1.1\r\nHost: x\r\n\r\n'],
  ['methods llhttp knows beyond the common ones', 'M-SEARCH / HTTP/1.1\r\nHost: x\r\n\r\n'],
  ['obs-text in a header value', Buffer.concat([Buffer.from('GET / HTTP/1.1\r\nHost: x\r\nX: a'), Buffer.from([0xff]), Buffer.from('\r\n\r\n')])],
  ['other trailer fields', 'POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nX-Checksum: 1\r\n\r\n'],
];

for (const [name, bytes] of accepted) {
  test(`served: ${name}`, async () => {
    const answer = await exchange(bytes);
    assert.is(answer.status, 200);
    assert.is(answer.body, 'served');
  });
}

test.run();
