import net from 'node:net';
import tls from 'node:tls';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { inProcessForSuite, startInProcess, type InProcessSvc } from '../../../support/in-process.js';
import { clientRequest, createImposter, rawExchange, stubAt } from '../../../support/faults.js';

const OK = { is: { body: 'fine' } };
const withTcp = (tcp: unknown) => ({ ...OK, _svc: { fault: { tcp } } });

/** Every TCP fault spelling, as `_svc.fault.tcp` and as mountebank's top-level `fault`. */
const stubs = [
  stubAt('/ok', OK),
  ...[
    'reset',
    'CONNECTION_RESET_BY_PEER',
    'empty',
    'EMPTY_RESPONSE',
    'random',
    'garbage',
    'RANDOM_DATA_THEN_CLOSE',
    'malformed',
    'MALFORMED_RESPONSE_CHUNK',
  ].flatMap((name) => [stubAt(`/svc/${name}`, withTcp(name)), stubAt(`/top/${name}`, { fault: name })]),
  stubAt('/object/reset', withTcp({ probability: 1, type: 'reset' })),
  stubAt('/object/never', withTcp({ probability: 0, type: 'reset' })),
  stubAt('/unknown/string', withTcp('SLOW_LORIS')),
  stubAt('/unknown/object', withTcp({ probability: 1, type: 'nope' })),
  stubAt('/unknown/top', { fault: 'NOPE' }),
];

for (const protocol of ['http', 'https'] as const) {
  const test = suite(`faults: TCP faults over ${protocol}`);
  let svc: InProcessSvc;
  let port: number;

  test.before(async () => {
    svc = await startInProcess();
    port = await createImposter(svc, protocol, stubs);
  });
  test.after(async () => {
    await svc.stop();
  });

  const exchange = (path: string) => rawExchange(protocol, port, path);

  test('the imposter answers normally where no fault is configured', async () => {
    const res = await clientRequest(protocol, port, '/ok');
    assert.is(res.status, 200);
    assert.is(res.body, 'fine');
  });

  for (const name of ['reset', 'CONNECTION_RESET_BY_PEER']) {
    for (const where of ['svc', 'top']) {
      test(`${where} ${name}: a real RST, the client sees ECONNRESET and no bytes`, async () => {
        const end = await exchange(`/${where}/${name}`);
        assert.is(end.errorCode, 'ECONNRESET');
        assert.is(end.data.length, 0);
      });
    }
  }

  for (const name of ['empty', 'EMPTY_RESPONSE']) {
    for (const where of ['svc', 'top']) {
      test(`${where} ${name}: zero bytes then FIN`, async () => {
        const end = await exchange(`/${where}/${name}`);
        assert.is(end.errorCode, null);
        assert.is(end.data.length, 0);
      });
    }
  }

  for (const name of ['random', 'garbage', 'RANDOM_DATA_THEN_CLOSE']) {
    for (const where of ['svc', 'top']) {
      test(`${where} ${name}: non-HTTP bytes then FIN; an HTTP client cannot parse them`, async () => {
        const end = await exchange(`/${where}/${name}`);
        assert.is(end.errorCode, null);
        assert.ok(end.data.length > 0);
        assert.not.ok(end.data.toString('latin1').startsWith('HTTP/'), end.data.toString('hex'));
        const res = await clientRequest(protocol, port, `/${where}/${name}`);
        assert.is(res.status, undefined);
        assert.match(String(res.errorCode), /^HPE_/);
      });
    }
  }

  for (const name of ['malformed', 'MALFORMED_RESPONSE_CHUNK']) {
    for (const where of ['svc', 'top']) {
      test(`${where} ${name}: status line, then a chunked body an HTTP client fails to parse`, async () => {
        const end = await exchange(`/${where}/${name}`);
        assert.is(end.errorCode, null);
        assert.match(end.data.toString('latin1'), /^HTTP\/1\.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n/);
        const res = await clientRequest(protocol, port, `/${where}/${name}`);
        assert.is(res.errorCode, 'HPE_INVALID_CHUNK_SIZE');
      });
    }
  }

  test('object form {probability: 1, type} fires; probability 0 never does', async () => {
    const end = await exchange('/object/reset');
    assert.is(end.errorCode, 'ECONNRESET');
    for (let i = 0; i < 5; i += 1) {
      const res = await clientRequest(protocol, port, '/object/never');
      assert.is(res.status, 200);
      assert.is(res.body, 'fine');
    }
  });

  for (const [path, name] of [
    ['/unknown/string', 'SLOW_LORIS'],
    ['/unknown/object', 'nope'],
    ['/unknown/top', 'NOPE'],
  ]) {
    test(`unknown fault ${name} (${path}): 500 plain text, the connection is not faulted`, async () => {
      const res = await clientRequest(protocol, port, path);
      assert.is(res.status, 500);
      assert.is(res.headers?.['content-type'], 'text/plain');
      assert.is(res.body, `Unknown fault: ${name}`);
    });
  }

  test.run();
}

const h1 = suite('faults: an imposter using a TCP fault serves HTTP/1 only');
const svc = inProcessForSuite(h1);

const PREFACE = 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n';
/** Frame type byte of an HTTP/2 SETTINGS frame (RFC 9113 §6.5), the first thing an h2 server sends. */
const SETTINGS_FRAME = 0x04;

/** What a plain port answers to the HTTP/2 preface: an h2 SETTINGS frame, or HTTP/1 text. */
function prefaceReply(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(PREFACE));
    socket.once('data', (chunk: Buffer) => {
      socket.destroy();
      resolve(chunk[3] === SETTINGS_FRAME ? 'h2 settings' : chunk.toString('latin1').slice(0, 8));
    });
    socket.once('error', () => resolve('error'));
    socket.once('end', () => resolve('closed'));
  });
}

function alpnOf(port: number): Promise<string | false> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ port, host: '127.0.0.1', rejectUnauthorized: false, ALPNProtocols: ['h2', 'http/1.1'] }, () => {
      const chosen = socket.alpnProtocol;
      socket.destroy();
      resolve(chosen ?? false);
    });
    socket.once('error', reject);
  });
}

const configs: Record<string, Record<string, unknown>> = {
  'no fault': OK,
  'latency-only _svc.fault': { ...OK, _svc: { fault: { latency: { ms: 0 } } } },
  '_svc.fault.tcp string': withTcp('reset'),
  '_svc.fault.tcp object': withTcp({ probability: 0.1, type: 'empty' }),
  'top-level fault': { fault: 'CONNECTION_RESET_BY_PEER' },
};
const h2Expected: Record<string, boolean> = {
  'no fault': true,
  'latency-only _svc.fault': true,
  '_svc.fault.tcp string': false,
  '_svc.fault.tcp object': false,
  'top-level fault': false,
};

for (const [label, response] of Object.entries(configs)) {
  const http2Offered = h2Expected[label];
  h1(`${label}: h2c preface ${http2Offered ? 'served' : 'not served'}; ALPN ${http2Offered ? 'picks h2' : 'offers only http/1.1'}`, async () => {
    const stubList = [stubAt('/ok', OK), stubAt('/x', response)];
    const plain = await createImposter(svc, 'http', stubList);
    const secure = await createImposter(svc, 'https', stubList);
    const reply = await prefaceReply(plain);
    if (http2Offered) assert.is(reply, 'h2 settings');
    else assert.is(reply, 'HTTP/1.1');
    assert.is(await alpnOf(secure), http2Offered ? 'h2' : 'http/1.1');
  });
}

h1('stubs changed later decide too: a TCP fault added withdraws HTTP/2 from new connections, removing it restores it', async () => {
  const plain = await createImposter(svc, 'http', [stubAt('/ok', OK)]);
  const secure = await createImposter(svc, 'https', [stubAt('/ok', OK)]);
  assert.is(await prefaceReply(plain), 'h2 settings');
  assert.is(await alpnOf(secure), 'h2');
  for (const port of [plain, secure]) {
    const res = await svc.admin('POST', `/imposters/${port}/stubs`, { stub: stubAt('/x', withTcp('empty')) });
    assert.is(res.status, 200, JSON.stringify(res.json));
  }
  assert.is(await prefaceReply(plain), 'HTTP/1.1');
  assert.is(await alpnOf(secure), 'http/1.1');
  for (const port of [plain, secure]) {
    assert.is((await svc.admin('PUT', `/imposters/${port}/stubs`, { stubs: [stubAt('/y', { fault: 'reset' })] })).status, 200);
  }
  assert.is(await prefaceReply(plain), 'HTTP/1.1');
  assert.is(await alpnOf(secure), 'http/1.1');
  for (const port of [plain, secure]) {
    assert.is((await svc.admin('PUT', `/imposters/${port}/stubs`, { stubs: [stubAt('/ok', OK)] })).status, 200);
  }
  assert.is(await prefaceReply(plain), 'h2 settings');
  assert.is(await alpnOf(secure), 'h2');
});

h1('a TLS client offering only h2 to an HTTP/1-only imposter is refused in the handshake', async () => {
  const secure = await createImposter(svc, 'https', [stubAt('/x', withTcp('reset'))]);
  const outcome = await new Promise<string>((resolve) => {
    const socket = tls.connect({ port: secure, host: '127.0.0.1', rejectUnauthorized: false, ALPNProtocols: ['h2'] }, () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(String(error.code)));
  });
  assert.is(outcome, 'ERR_SSL_TLSV1_ALERT_NO_APPLICATION_PROTOCOL');
});

h1.run();
