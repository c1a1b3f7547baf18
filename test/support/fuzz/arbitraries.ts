/**
 * fast-check generators for the robustness suite: admin requests (method, path, query, body) shaped
 * around the mountebank admin protocol, and raw bytes for an imposter port.
 */
import fc from 'fast-check';

export interface AdminCase {
  method: string;
  /** The request target exactly as sent (path and query). */
  target: string;
  /** Raw body bytes (latin1 text); undefined sends no body. */
  body?: string;
  /** Sent chunked instead of with Content-Length. */
  chunked: boolean;
}

export interface RawCase {
  bytes: Buffer;
  /** Whether the bytes form complete, well-framed requests (then each must be answered). */
  wellFormed: boolean;
}

/** Ports the generated requests name: the fuzzed imposter, one reserved free port, nonsense. */
export interface FuzzPorts {
  imposter: number;
  spare: number;
}

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'];

const ROUTES = [
  '/',
  '/health',
  '/config',
  '/logs',
  '/metrics',
  '/imposters',
  '/imposters/:port',
  '/imposters/:port/enable',
  '/imposters/:port/disable',
  '/imposters/:port/stubs',
  '/imposters/:port/stubs/:index',
  '/imposters/:port/stubs/by-id/:id',
  '/imposters/:port/savedRequests',
  '/imposters/:port/requests',
  '/imposters/:port/savedProxyResponses',
  '/imposters/:port/verify',
  '/imposters/:port/scenarios',
  '/imposters/:port/scenarios/:name/state',
  '/imposters/:port/scenarios/reset',
  '/imposters/:port/spaces/:flowId',
  '/imposters/:port/spaces/:flowId/stubs',
  '/admin/imposters/:port/flow-state/:flowId',
  '/admin/imposters/:port/flow-state/:flowId/:key',
  '/admin/reload',
  '/intercept',
  '/intercept/rules',
  '/intercept/ca.pem',
  '/intercept/:file',
  '/events',
  '/__svc/:port',
  '/__svc/:port/:any',
];

const ODD_SEGMENTS = [
  '%',
  '%E0',
  '%zz',
  '%00',
  '%C3%28',
  '%2F',
  '..',
  '.',
  '',
  '[',
  ']',
  '%5B',
  '\u00ff',
  '\u2028',
  ';',
  '@',
  '*',
  'x'.repeat(3000),
  '-1',
  '0',
  '65536',
  '1e3',
  '0x10',
  ' ',
];

function segment(ports: FuzzPorts): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.constantFrom(String(ports.imposter), String(ports.spare), 's1', 's2', '0', '1'), weight: 4 },
    { arbitrary: fc.constantFrom(...ODD_SEGMENTS), weight: 2 },
    { arbitrary: fc.webSegment(), weight: 1 },
    { arbitrary: fc.string({ maxLength: 12 }), weight: 1 },
  );
}

function path(ports: FuzzPorts): fc.Arbitrary<string> {
  const templated = fc.tuple(fc.constantFrom(...ROUTES), fc.array(segment(ports), { minLength: 6, maxLength: 6 })).map(([route, fills]) => {
    let i = 0;
    return route.replace(/:\w+/g, () => encodeURIComponentLoosely(fills[i++ % fills.length]));
  });
  return fc.oneof(
    { arbitrary: templated, weight: 6 },
    { arbitrary: fc.tuple(templated, segment(ports)).map(([p, extra]) => `${p}/${extra}`), weight: 1 },
    { arbitrary: fc.webPath(), weight: 1 },
    {
      arbitrary: fc.constantFrom('http://[', '//[', '*', 'http://localhost/imposters', '//imposters', '/\\imposters', '/imposters?', '/imposters#x'),
      weight: 1,
    },
  );
}

/** Escapes what would break the request line (space, CR, LF) and leaves other odd bytes as they are. */
function encodeURIComponentLoosely(text: string): string {
  return text.replace(/[ \r\n]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

const QUERY_KEYS = ['replayable', 'removeProxies', 'since', 'match', 'limit', 'format', 'page', 'stubIndex'];

function query(): fc.Arbitrary<string> {
  const value = fc.oneof(fc.constantFrom('true', 'false', 'TRUE', '0', '-1', '1e308', '', '%', '%E0', 'x'.repeat(500)), fc.webSegment());
  const pair = fc.tuple(fc.oneof(fc.constantFrom(...QUERY_KEYS), fc.webSegment()), value).map(([k, v]) => `${k}=${v}`);
  return fc.oneof(
    { arbitrary: fc.constant(''), weight: 3 },
    { arbitrary: fc.array(pair, { minLength: 1, maxLength: 4 }).map((pairs) => `?${pairs.join('&')}`), weight: 2 },
    { arbitrary: fc.webQueryParameters().map((q) => `?${q}`), weight: 1 },
  );
}

const anyJson = fc.jsonValue({ maxDepth: 3 });

function imposterPort(ports: FuzzPorts): fc.Arbitrary<unknown> {
  return fc.oneof(fc.constant(ports.spare), fc.constant(ports.imposter), fc.constantFrom(-1, 0, 65536, 1e308, 3.5, '4545', null, true, [], {}));
}

function predicate(): fc.Arbitrary<unknown> {
  const operator = fc.constantFrom('equals', 'deepEquals', 'contains', 'startsWith', 'endsWith', 'matches', 'exists', 'not', 'or', 'and', 'inject', 'bogus');
  const fields = fc.dictionary(fc.constantFrom('method', 'path', 'query', 'headers', 'body', 'requestFrom'), anyJson, { maxKeys: 3 });
  return fc
    .tuple(
      operator,
      fc.oneof(fields, anyJson),
      fc.option(fc.dictionary(fc.constantFrom('caseSensitive', 'except', 'jsonpath', 'xpath', 'keyCaseSensitive'), anyJson, { maxKeys: 2 }), {
        nil: undefined,
      }),
    )
    .map(([op, value, extra]) => ({ [op]: value, ...(extra ?? {}) }));
}

function response(): fc.Arbitrary<unknown> {
  const isField = fc.record(
    {
      statusCode: fc.oneof(fc.integer({ min: -10, max: 1000 }), anyJson),
      headers: fc.oneof(
        fc.dictionary(
          fc.string({ maxLength: 8 }),
          fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 })),
        ),
        anyJson,
      ),
      body: anyJson,
      _mode: fc.constantFrom('text', 'binary', 'bogus'),
    },
    { requiredKeys: [] },
  );
  const kind = fc.oneof(
    isField.map((is) => ({ is })),
    anyJson.map((proxy) => ({ proxy })),
    fc.string({ maxLength: 30 }).map((inject) => ({ inject })),
    fc.constantFrom('CONNECTION_RESET_BY_PEER', 'RANDOM_DATA_THEN_CLOSE', 'bogus').map((fault) => ({ fault })),
    anyJson.map((value) => ({ _svc: value })),
  );
  return fc
    .tuple(
      kind,
      fc.option(fc.dictionary(fc.constantFrom('wait', 'decorate', 'copy', 'lookup', 'shellTransform', 'repeat', 'bogus'), anyJson, { maxKeys: 2 }), {
        nil: undefined,
      }),
      fc.option(fc.integer({ min: -2, max: 1000 }), { nil: undefined }),
    )
    .map(([base, behaviors, repeat]) => ({ ...base, ...(behaviors ? { _behaviors: behaviors } : {}), ...(repeat === undefined ? {} : { repeat }) }));
}

function stub(): fc.Arbitrary<unknown> {
  return fc.record(
    {
      id: fc.oneof(fc.string({ maxLength: 6 }), anyJson),
      predicates: fc.oneof(fc.array(predicate(), { maxLength: 3 }), anyJson),
      responses: fc.oneof(fc.array(response(), { maxLength: 3 }), anyJson),
    },
    { requiredKeys: [] },
  );
}

function imposterConfig(ports: FuzzPorts): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(
    {
      port: imposterPort(ports),
      protocol: fc.oneof(fc.constantFrom('http', 'https', 'tcp', 'smtp', 'HTTP', ''), anyJson),
      name: anyJson,
      recordRequests: anyJson,
      stubs: fc.oneof(fc.array(stub(), { maxLength: 3 }), anyJson),
      defaultResponse: fc.oneof(response(), anyJson),
      allowCORS: anyJson,
      _svc: anyJson,
    },
    { requiredKeys: ['port'] },
  );
}

function deepNesting(): fc.Arbitrary<string> {
  return fc
    .tuple(fc.integer({ min: 90, max: 12_000 }), fc.constantFrom('{"a":', '['), fc.constantFrom('stubs', 'defaultResponse', 'imposters', 'x'))
    .map(([levels, open, field]) => {
      const close = open === '[' ? ']' : '}';
      return `{"${field}":${open.repeat(levels)}${open === '[' ? '' : '1'}${close.repeat(levels)}}`;
    });
}

function body(ports: FuzzPorts): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 3 },
    { arbitrary: imposterConfig(ports).map((c) => JSON.stringify(c)), weight: 6 },
    { arbitrary: fc.array(imposterConfig(ports), { maxLength: 3 }).map((imposters) => JSON.stringify({ imposters })), weight: 2 },
    {
      arbitrary: fc.record({ stubs: fc.array(stub(), { maxLength: 3 }), stub: stub(), index: anyJson }, { requiredKeys: [] }).map((b) => JSON.stringify(b)),
      weight: 3,
    },
    { arbitrary: fc.json({ maxDepth: 4 }), weight: 2 },
    { arbitrary: fc.string({ maxLength: 200 }), weight: 1 },
    {
      arbitrary: fc.constantFrom('{', '[', '"', '{"port":', 'null', '1e999', '\u0000', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}'),
      weight: 1,
    },
    { arbitrary: deepNesting(), weight: 1 },
  );
}

export function adminCase(ports: FuzzPorts): fc.Arbitrary<AdminCase> {
  const method = fc.oneof({ arbitrary: fc.constantFrom(...METHODS), weight: 9 }, { arbitrary: fc.stringMatching(/^[A-Za-z]{1,8}$/), weight: 1 });
  return fc
    .record({ method, path: path(ports), query: query(), body: body(ports), chunked: fc.boolean() })
    .map(({ method, path, query, body, chunked }) => ({ method, target: path + query, body, chunked }));
}

function header(): fc.Arbitrary<string> {
  const name = fc.oneof(
    fc.constantFrom('Content-Length', 'Transfer-Encoding', 'Host', 'Content-Type', 'Connection', 'Expect', 'Upgrade', 'X-A'),
    fc.stringMatching(/^[!-9;-~]{1,10}$/),
  );
  const value = fc.oneof(
    fc.constantFrom('0', '5', '-1', '1e3', 'chunked', 'gzip, chunked', 'close', 'keep-alive', '100-continue', 'h2c', 'application/json'),
    fc.string({ maxLength: 40 }),
  );
  return fc.tuple(name, value).map(([n, v]) => `${n}: ${v}`);
}

/** A request with correct framing (answerable), optionally pipelined. */
function wellFormedRequest(): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'HEAD', 'OPTIONS', 'PATCH'),
      fc.webPath().map((p) => p || '/'),
      fc.option(fc.webQueryParameters(), { nil: undefined }),
      fc.array(fc.tuple(fc.stringMatching(/^X-[A-Za-z0-9-]{1,10}$/), fc.stringMatching(/^[ -~]{0,40}$/)), { maxLength: 5 }),
      fc.option(fc.string({ maxLength: 300 }), { nil: undefined }),
      fc.boolean(),
    )
    .map(([method, p, q, headers, payload, chunked]) => {
      const lines = [`${method} ${p}${q ? `?${q}` : ''} HTTP/1.1`, 'Host: fuzz', ...headers.map(([n, v]) => `${n}: ${v.trim()}`)];
      const bytes = payload === undefined ? '' : Buffer.from(payload, 'utf8').toString('latin1');
      if (payload === undefined) return `${lines.join('\r\n')}\r\n\r\n`;
      if (chunked) return `${lines.join('\r\n')}\r\nTransfer-Encoding: chunked\r\n\r\n${bytes.length.toString(16)}\r\n${bytes}\r\n0\r\n\r\n`;
      return `${lines.join('\r\n')}\r\nContent-Length: ${bytes.length}\r\n\r\n${bytes}`;
    });
}

/** A request with mutated pieces: odd methods, targets, versions, header lines, framing. */
function mangledRequest(): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.oneof(fc.constantFrom('GET', 'get', 'POST', 'PRI', 'CONNECT', 'G ET', ''), fc.string({ maxLength: 8 })),
      fc.oneof(fc.webPath(), fc.constantFrom('*', 'http://[', '//[', '/%E0', '/\u00ff', 'http://a:b@c/', '/a b', ''), fc.string({ maxLength: 30 })),
      fc.constantFrom('HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/0.9', 'HTTP/1.1 ', 'http/1.1', 'HTTP/9.9', ''),
      fc.array(header(), { maxLength: 6 }),
      fc.constantFrom('\r\n', '\n', '\r\n '),
      fc.string({ maxLength: 100 }),
    )
    .map(([method, target, version, headers, eol, tail]) => `${method} ${target} ${version}${eol}${headers.join(eol)}${eol}${eol}${tail}`);
}

export function rawCase(): fc.Arbitrary<RawCase> {
  return fc.oneof(
    {
      arbitrary: fc
        .array(wellFormedRequest(), { minLength: 1, maxLength: 3 })
        .map((reqs) => ({ bytes: Buffer.from(reqs.join(''), 'latin1'), wellFormed: true })),
      weight: 3,
    },
    { arbitrary: mangledRequest().map((text) => ({ bytes: Buffer.from(text, 'latin1'), wellFormed: false })), weight: 4 },
    { arbitrary: fc.uint8Array({ maxLength: 600 }).map((bytes) => ({ bytes: Buffer.from(bytes), wellFormed: false })), weight: 2 },
  );
}
