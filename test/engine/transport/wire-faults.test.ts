import http2 from 'node:http2';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RequestHandler } from '../../../engine/transport/index.js';
import { listen, RawClient } from '../../support/raw-http.js';

const GARBAGE = Buffer.from([0x00, 0xff, 0x13, 0x37, 0x0d, 0x0a, 0x80]);

/** /reset, /empty and /raw fire the matching fault; anything else is a normal 200. */
const faulty: RequestHandler = (request, sink) => {
  if (request.url === '/reset') sink.reset();
  else if (request.url === '/empty') sink.closeEmpty();
  else if (request.url === '/raw') sink.writeRawAndClose(GARBAGE);
  else sink.send(200, [], Buffer.from('ok'));
};

for (const protocol of ['http', 'https'] as const) {
  const tlsOptions = protocol === 'https' ? { rejectUnauthorized: false } : undefined;

  test(`${protocol}: reset() is a TCP RST (client sees ECONNRESET)`, async () => {
    const listener = await listen({ protocol }, faulty);
    try {
      const client = await RawClient.connect(listener.port, tlsOptions);
      client.send('GET /reset HTTP/1.1\r\nHost: x\r\n\r\n');
      const { data, errorCode } = await client.rest();
      assert.is(errorCode, 'ECONNRESET');
      assert.is(data.length, 0);
    } finally {
      await listener.close();
    }
  });

  test(`${protocol}: closeEmpty() ends the connection with no bytes and no RST`, async () => {
    const listener = await listen({ protocol }, faulty);
    try {
      const client = await RawClient.connect(listener.port, tlsOptions);
      client.send('GET /empty HTTP/1.1\r\nHost: x\r\n\r\n');
      const { data, errorCode } = await client.rest();
      assert.is(errorCode, null);
      assert.is(data.length, 0);
    } finally {
      await listener.close();
    }
  });

  test(`${protocol}: writeRawAndClose() delivers exactly the bytes, then FIN`, async () => {
    const listener = await listen({ protocol }, faulty);
    try {
      const client = await RawClient.connect(listener.port, tlsOptions);
      client.send('GET /raw HTTP/1.1\r\nHost: x\r\n\r\n');
      const { data, errorCode } = await client.rest();
      assert.is(errorCode, null);
      assert.ok(data.equals(GARBAGE), data.toString('hex'));
    } finally {
      await listener.close();
    }
  });
}

test('pipelined: a fault waits for the earlier answer, which is delivered first', async () => {
  const listener = await listen({}, (request, sink) => {
    if (request.url === '/slow') setTimeout(() => sink.send(200, [], Buffer.from('slow')), 30);
    else sink.closeEmpty();
  });
  try {
    const client = await RawClient.connect(listener.port);
    client.send('GET /slow HTTP/1.1\r\nHost: x\r\n\r\nGET /empty HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.is((await client.next()).body.toString(), 'slow');
    const { data, errorCode } = await client.rest();
    assert.is(data.length, 0);
    assert.is(errorCode, null);
  } finally {
    await listener.close();
  }
});

test('h2: reset() kills the connection with RST; closeEmpty() ends only its stream', async () => {
  const listener = await listen({}, faulty);
  try {
    const session = http2.connect(`http://127.0.0.1:${listener.port}`);
    const sessionError = new Promise<string>((resolve) => session.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? '')));
    const streamOutcome = (path: string) =>
      new Promise<string>((resolve) => {
        const stream = session.request({ ':path': path });
        let status = 'none';
        stream.on('response', (headers) => {
          status = String(headers[':status']);
        });
        stream.on('error', (e: NodeJS.ErrnoException) => resolve(`error ${e.code}`));
        stream.on('close', () => resolve(`closed ${status} rst=${stream.rstCode}`));
        stream.resume();
        stream.end();
      });
    assert.is(await streamOutcome('/empty'), `closed none rst=${http2.constants.NGHTTP2_NO_ERROR}`);
    assert.is(await streamOutcome('/fine'), `closed 200 rst=${http2.constants.NGHTTP2_NO_ERROR}`);
    void streamOutcome('/reset');
    assert.is(await sessionError, 'ECONNRESET');
    session.destroy();
  } finally {
    await listener.close();
  }
});

test.run();
