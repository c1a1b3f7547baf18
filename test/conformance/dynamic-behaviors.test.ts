/**
 * Conformance: the behaviors cases of mountebank's functional API suite (httpBehaviorsTest), over
 * http and https imposters, svc against mountebank 2.9.1 side by side. Each case asserts
 * mountebank's documented outcome on the mountebank side (so the case exercises what it says) and
 * the same observation on svc.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { admin, call, onBoth, dynamicPairForSuite, timed, view, type Protocol } from '../support/mountebank/side-by-side.js';
import { tempDirForSuite } from '../support/temp-dir.js';

const test = suite('conformance: dynamic behaviors');
const temp = tempDirForSuite(test, 'svc-conf-behaviors-');

const ready = dynamicPairForSuite(test);

const year = String(new Date().getFullYear());

/** A one-stub imposter of the protocol on the first port. */
const single = (protocol: Protocol, stub: object) => (ports: number[]) => [{ protocol, port: ports[0], stubs: [stub] }];

/** A script file for shellTransform, written in the case's temp dir. */
function script(name: string, source: string): string {
  const path = join(temp.path, name);
  writeFileSync(path, source);
  return path;
}

for (const protocol of ['http', 'https'] as const) {
  const get = (port: number, path = '/', headers: Record<string, string> = {}) => call({ protocol, port, path, headers });
  const post = (port: number, body: string, path = '/') => call({ protocol, port, method: 'POST', path, body });

  test(`${protocol}: wait adds latency`, async () => {
    const { mb, svc } = await onBoth(
      ready(),
      1,
      single(protocol, { responses: [{ is: { body: 'stub' }, _behaviors: { wait: 500 } }] }),
      async (_side, [port]) => {
        const [res, ms] = await timed(() => get(port!));
        return { body: res.body, waited: ms >= 490 };
      },
    );
    assert.equal(mb, { body: 'stub', waited: true });
    assert.equal(svc, mb);
  });

  test(`${protocol}: wait as a function adds latency`, async () => {
    const { mb, svc } = await onBoth(
      ready(),
      1,
      single(protocol, { responses: [{ is: { body: 'stub' }, _behaviors: { wait: '() => 500' } }] }),
      async (_side, [port]) => {
        const [res, ms] = await timed(() => get(port!));
        return { body: res.body, waited: ms >= 490 };
      },
    );
    assert.equal(mb, { body: 'stub', waited: true });
    assert.equal(svc, mb);
  });

  const decorators: Array<[string, string, string, string]> = [
    [
      'decorate (request, response) rewrites the body',
      '(request, response) => { response.body = response.body.replace("${YEAR}", new Date().getFullYear()); }',
      'the year is ${YEAR}',
      `the year is ${year}`,
    ],
    [
      'decorate (config) rewrites the body',
      'config => { config.response.body = config.response.body.replace("${YEAR}", new Date().getFullYear()); }',
      'the year is ${YEAR}',
      `the year is ${year}`,
    ],
    [
      'decorate (request, response) reads the request path',
      '(request, response) => { response.body = response.body.replace("${PATH}", request.path); }',
      'the path is ${PATH}',
      'the path is /test',
    ],
    [
      'decorate (config) reads the request path',
      'config => { config.response.body = config.response.body.replace("${PATH}", config.request.path); }',
      'the path is ${PATH}',
      'the path is /test',
    ],
    [
      'decorate (request, response) returning a new response',
      '(request, response) => { const c = JSON.parse(JSON.stringify(response)); c.body = "This is a clone"; return c; }',
      'This is the original',
      'This is a clone',
    ],
    [
      'decorate (config) returning a new response',
      'config => { const c = JSON.parse(JSON.stringify(config.response)); c.body = "This is a clone"; return c; }',
      'This is the original',
      'This is a clone',
    ],
    ['decorate returning a value that is no response (served as an empty one)', '() => "text"', 'This is the original', ''],
  ];
  for (const [name, decorate, body, expected] of decorators) {
    test(`${protocol}: ${name}`, async () => {
      const { mb, svc } = await onBoth(ready(), 1, single(protocol, { responses: [{ is: { body }, _behaviors: { decorate } }] }), async (_side, [port]) =>
        view(await get(port!, '/test')),
      );
      assert.is(mb.body, expected);
      assert.equal(svc, mb);
    });
  }

  test(`${protocol}: decorate fixes a numeric content-length it made stale (mountebank issue 155)`, async () => {
    const { mb, svc } = await onBoth(
      ready(),
      1,
      single(protocol, {
        responses: [
          { is: { body: 'len-5', headers: { 'content-length': 5 } }, _behaviors: { decorate: '(request, response) => { response.body = "length-8"; }' } },
        ],
      }),
      async (_side, [port]) => {
        const res = await get(port!);
        return { body: res.body, length: res.headers['content-length'] };
      },
    );
    assert.equal(mb, { body: 'length-8', length: '8' });
    assert.equal(svc, mb);
  });

  test(`${protocol}: decorate sees each request's query (mountebank issue 173)`, async () => {
    const { mb, svc } = await onBoth(
      ready(),
      1,
      single(protocol, {
        responses: [
          {
            is: { body: 'request ${id}' },
            _behaviors: { decorate: '(request, response) => { response.body = response.body.replace("${id}", request.query.id); }' },
          },
        ],
      }),
      async (_side, [port]) => {
        const bodies: string[] = [];
        for (const id of ['100', '200', '300']) bodies.push((await get(port!, `/test?id=${id}`)).body);
        return bodies;
      },
    );
    assert.equal(mb, ['request 100', 'request 200', 'request 300']);
    assert.equal(svc, mb);
  });

  test(`${protocol}: a decorate source that is not a function is accepted at creation`, async () => {
    const imposter = {
      protocol,
      stubs: [{ responses: [{ is: { body: 'This is the original' }, _behaviors: { decorate: "response.body = 'This should not work';" } }] }],
    };
    const [mb, svc] = await Promise.all(ready().sides.map(async (side) => (await admin(side, 'POST', '/imposters', imposter)).status));
    assert.is(mb, 201);
    assert.is(svc, mb);
  });

  test(`${protocol}: repeat holds each response, then the cycle wraps (mountebank issue 165)`, async () => {
    const { mb, svc } = await onBoth(
      ready(),
      1,
      single(protocol, {
        responses: [
          { is: { body: 'first response', statusCode: 400, headers: { 'Content-Type': 'text/plain' } }, _behaviors: { repeat: 2 } },
          { is: { body: 'second response' }, _behaviors: { repeat: 3 } },
          { is: { body: 'third response' } },
        ],
      }),
      async (_side, [port]) => {
        const seen: string[] = [];
        for (let i = 0; i < 8; i += 1) {
          const res = await get(port!);
          seen.push(`${res.status} ${res.body}`);
        }
        return seen;
      },
    );
    assert.equal(mb, [
      '400 first response',
      '400 first response',
      '200 second response',
      '200 second response',
      '200 second response',
      '200 third response',
      '400 first response',
      '400 first response',
    ]);
    assert.equal(svc, mb);
  });

  test(`${protocol}: repeat with response headers (mountebank issue 158)`, async () => {
    const { mb, svc } = await onBoth(
      ready(),
      1,
      single(protocol, {
        responses: [
          { is: { body: 'first response', headers: { 'Content-Type': 'application/xml' } }, _behaviors: { repeat: 2 } },
          { is: { body: 'second response' } },
        ],
      }),
      async (_side, [port]) => {
        const seen = [];
        for (let i = 0; i < 3; i += 1) seen.push(view(await get(port!)));
        return seen;
      },
    );
    assert.equal(
      mb.map((r) => r.body),
      ['first response', 'first response', 'second response'],
    );
    assert.equal(svc, mb);
  });

  test(`${protocol}: repeat under a predicate on a JSON body key named repeat (mountebank issue 237)`, async () => {
    const { mb, svc } = await onBoth(
      ready(),
      1,
      single(protocol, {
        predicates: [{ equals: { body: { repeat: true } } }],
        responses: [{ is: { body: 'This should repeat 2 times' }, _behaviors: { repeat: 2 } }, { is: { body: 'Then you should see this' } }],
      }),
      async (_side, [port]) => {
        const seen: string[] = [];
        for (let i = 0; i < 3; i += 1) seen.push((await post(port!, JSON.stringify({ repeat: true }))).body);
        return seen;
      },
    );
    assert.equal(mb, ['This should repeat 2 times', 'This should repeat 2 times', 'Then you should see this']);
    assert.equal(svc, mb);
  });

  test(`${protocol}: shellTransform as a single command string reads the response argument`, async () => {
    const exec = script(`argv-${protocol}.cjs`, "console.log(process.argv[3].replace('{YOU}', 'mountebank'));\n");
    const { mb, svc } = await onBoth(
      ready(),
      1,
      single(protocol, { responses: [{ is: { body: 'Hello, {YOU}!' }, _behaviors: { shellTransform: `node ${exec}` } }] }),
      async (_side, [port]) => view(await get(port!)),
    );
    assert.is(mb.body, 'Hello, mountebank!');
    assert.equal(svc, mb);
  });

  test(`${protocol}: an array of shellTransforms runs in order on a numeric body`, async () => {
    const double = script(`double-${protocol}.cjs`, 'const r = JSON.parse(process.argv[3]); r.body *= 2; console.log(JSON.stringify(r));\n');
    const increment = script(`increment-${protocol}.cjs`, 'const r = JSON.parse(process.argv[3]); r.body += 1; console.log(JSON.stringify(r));\n');
    const { mb, svc } = await onBoth(
      ready(),
      1,
      single(protocol, { responses: [{ is: { body: 1 }, _behaviors: { shellTransform: [`node ${double}`, `node ${increment}`] } }] }),
      async (_side, [port]) => view(await get(port!)),
    );
    assert.is(mb.body, '3');
    assert.equal(svc, mb);
  });

  test(`${protocol}: copy with regex from path, a header and a query (ignoreCase) into status, header and body`, async () => {
    const { mb, svc } = await onBoth(
      ready(),
      1,
      single(protocol, {
        responses: [
          {
            is: { statusCode: '${code}', headers: { 'X-Test': '${header}' }, body: '${body}' },
            _behaviors: {
              copy: [
                { from: 'path', into: '${code}', using: { method: 'regex', selector: '\\d+' } },
                { from: { headers: 'X-Request' }, into: '${header}', using: { method: 'regex', selector: '.+' } },
                { from: { query: 'body' }, into: '${body}', using: { method: 'regex', selector: 'he\\w+$', options: { ignoreCase: true } } },
              ],
            },
          },
        ],
      }),
      async (_side, [port]) => view(await get(port!, '/400/this-will-be-ignored?body=body%20is%20HERE', { 'x-request': 'header value' })),
    );
    assert.is(mb.status, 400);
    assert.equal(mb.headers['x-test'], ['header value']);
    assert.is(mb.body, 'HERE');
    assert.equal(svc, mb);
  });

  test(`${protocol}: a statusCode token filled by the behaviors array form; a value that is no status answers 500`, async () => {
    const { mb, svc } = await onBoth(
      ready(),
      1,
      single(protocol, {
        responses: [
          {
            is: { statusCode: '${code}', body: 'coded' },
            behaviors: [{ copy: { from: 'path', into: '${code}', using: { method: 'regex', selector: '\\w+' } } }],
          },
        ],
      }),
      async (_side, [port]) => {
        const good = await get(port!, '/201');
        const bad = await get(port!, '/abc');
        return { good: `${good.status} ${good.body}`, bad: bad.status, code: typeof bad.json?.errors?.[0]?.code };
      },
    );
    assert.equal(mb, { good: '201 coded', bad: 500, code: 'string' });
    assert.equal(svc, mb);
  });

  test(`${protocol}: copy with a namespaced xpath from the body`, async () => {
    const { mb, svc } = await onBoth(
      ready(),
      1,
      single(protocol, {
        responses: [
          {
            is: { body: 'Hello, NAME! Good to see you, NAME.' },
            _behaviors: { copy: [{ from: 'body', into: 'NAME', using: { method: 'xpath', selector: '//mb:name', ns: { mb: 'http://example.com/mb' } } }] },
          },
        ],
      }),
      async (_side, [port]) => view(await post(port!, '<doc xmlns:mb="http://example.com/mb"><mb:name>mountebank</mb:name></doc>')),
    );
    assert.is(mb.body, 'Hello, mountebank! Good to see you, mountebank.');
    assert.equal(svc, mb);
  });

  test(`${protocol}: copy with jsonpath from an upper-case BODY field name`, async () => {
    const { mb, svc } = await onBoth(
      ready(),
      1,
      single(protocol, {
        responses: [
          {
            is: { body: 'Hello, NAME! Good to see you, NAME.' },
            _behaviors: { copy: [{ from: 'BODY', into: 'NAME', using: { method: 'jsonpath', selector: '$..name' } }] },
          },
        ],
      }),
      async (_side, [port]) => view(await post(port!, JSON.stringify({ name: 'mountebank' }))),
    );
    assert.is(mb.body, 'Hello, mountebank! Good to see you, mountebank.');
    assert.equal(svc, mb);
  });

  test(`${protocol}: lookup from CSV keyed by regex (with a group index) into status, header and body`, async () => {
    const csv = script(
      `regex-${protocol}.csv`,
      'name,code,occupation,location\nmountebank,400,tester,worldwide\nBrandon,404,mountebank,Dallas\n'
        + 'Bob Barker,500,"The Price Is Right","Darrington, Washington"',
    );
    const { mb, svc } = await onBoth(
      ready(),
      1,
      single(protocol, {
        responses: [
          {
            is: {
              statusCode: '${mountebank}["code"]',
              headers: { 'X-Occupation': '${mountebank}[occupation]' },
              body: "Hello ${mountebank}['name']. Have you been to ${bob}[location]?",
            },
            _behaviors: {
              lookup: [
                {
                  key: { from: 'path', using: { method: 'regex', selector: '/(.*)$' }, index: 1 },
                  fromDataSource: { csv: { path: csv, keyColumn: 'name' } },
                  into: '${mountebank}',
                },
                {
                  key: { from: { headers: 'X-Bob' }, using: { method: 'regex', selector: '.+' } },
                  fromDataSource: { csv: { path: csv, keyColumn: 'occupation' } },
                  into: '${bob}',
                },
              ],
            },
          },
        ],
      }),
      async (_side, [port]) => view(await get(port!, '/mountebank', { 'x-bob': 'The Price Is Right' })),
    );
    assert.is(mb.status, 400);
    assert.equal(mb.headers['x-occupation'], ['tester']);
    assert.is(mb.body, 'Hello mountebank. Have you been to Darrington, Washington?');
    assert.equal(svc, mb);
  });

  const lookupCsv =
    'name,occupation,location\nmountebank,tester,worldwide\nBrandon,mountebank,Dallas\nBob Barker,"The Price Is Right","Darrington, Washington"';

  test(`${protocol}: lookup from CSV keyed by a namespaced xpath`, async () => {
    const csv = script(`xpath-${protocol}.csv`, lookupCsv);
    const { mb, svc } = await onBoth(
      ready(),
      1,
      single(protocol, {
        responses: [
          {
            is: { body: "Hello, YOU[name]! How is YOU['location'] today?" },
            _behaviors: {
              lookup: [
                {
                  key: { from: 'body', using: { method: 'xpath', selector: '//mb:name', ns: { mb: 'http://example.com/mb' } } },
                  fromDataSource: { csv: { path: csv, keyColumn: 'occupation' } },
                  into: 'YOU',
                },
              ],
            },
          },
        ],
      }),
      async (_side, [port]) => view(await post(port!, '<doc xmlns:mb="http://example.com/mb"><mb:name>mountebank</mb:name></doc>')),
    );
    assert.is(mb.body, 'Hello, Brandon! How is Dallas today?');
    assert.equal(svc, mb);
  });

  test(`${protocol}: lookup from CSV keyed by jsonpath`, async () => {
    const csv = script(`jsonpath-${protocol}.csv`, lookupCsv);
    const { mb, svc } = await onBoth(
      ready(),
      1,
      single(protocol, {
        responses: [
          {
            is: { body: 'Hello, YOU["name"]! How is YOU[location] today?' },
            _behaviors: {
              lookup: [
                {
                  key: { from: 'body', using: { method: 'jsonpath', selector: '$..occupation' } },
                  fromDataSource: { csv: { path: csv, keyColumn: 'occupation' } },
                  into: 'YOU',
                },
              ],
            },
          },
        ],
      }),
      async (_side, [port]) => view(await post(port!, JSON.stringify({ occupation: 'mountebank' }))),
    );
    assert.is(mb.body, 'Hello, Brandon! How is Dallas today?');
    assert.equal(svc, mb);
  });

  test(`${protocol}: _behaviors composes wait, repeat, shellTransform, decorate and copy`, async () => {
    const exec = script(`salute-${protocol}.cjs`, "console.log(process.argv[3].replace('${SALUTATION}', 'Hello'));\n");
    const { mb, svc } = await onBoth(
      ready(),
      1,
      single(protocol, {
        responses: [
          {
            is: { body: '${SALUTATION}, ${SUBJECT}${PUNCTUATION}' },
            _behaviors: {
              wait: 300,
              repeat: 2,
              shellTransform: [`node ${exec}`],
              decorate: '(request, response) => { response.body = response.body.replace("${SUBJECT}", "mountebank"); }',
              copy: [{ from: { query: 'punctuation' }, into: '${PUNCTUATION}', using: { method: 'regex', selector: '[,.?!]' } }],
            },
          },
          { is: { body: 'No behaviors' } },
        ],
      }),
      async (_side, [port]) => {
        const seen: Array<{ body: string; waited: boolean }> = [];
        for (let i = 0; i < 3; i += 1) {
          const [res, ms] = await timed(() => get(port!, '/?punctuation=!'));
          seen.push({ body: res.body, waited: ms >= 250 });
        }
        return seen;
      },
    );
    assert.equal(mb, [
      { body: 'Hello, mountebank!', waited: true },
      { body: 'Hello, mountebank!', waited: true },
      { body: 'No behaviors', waited: false },
    ]);
    assert.equal(svc, mb);
  });

  test(`${protocol}: the behaviors array runs in the order written`, async () => {
    const add = (n: number) => `config => { config.response.body += "${n}"; }`;
    const { mb, svc } = await onBoth(
      ready(),
      1,
      single(protocol, {
        responses: [{ is: { body: '' }, behaviors: [{ decorate: add(1) }, { decorate: add(3) }, { decorate: add(2) }] }],
      }),
      async (_side, [port]) => view(await get(port!)),
    );
    assert.is(mb.body, '132');
    assert.equal(svc, mb);
  });

  test(`${protocol}: the behaviors array with a response-level repeat, repeated steps, MB_RESPONSE and waits`, async () => {
    const exec = script(`env-${protocol}.cjs`, "const r = JSON.parse(process.env.MB_RESPONSE); r.body += '-shellTransform'; console.log(JSON.stringify(r));\n");
    const decorate = 'config => { config.response.body += "-${decorate}"; }';
    const { mb, svc } = await onBoth(
      ready(),
      1,
      single(protocol, {
        responses: [
          {
            is: { body: '' },
            repeat: 2,
            behaviors: [
              { decorate },
              { copy: { from: 'path', into: '${decorate}', using: { method: 'regex', selector: '.+' } } },
              { shellTransform: `node ${exec}` },
              { wait: 100 },
              { decorate },
              { wait: 150 },
            ],
          },
          { is: { body: 'no behaviors' } },
        ],
      }),
      async (_side, [port]) => {
        const [first, ms] = await timed(() => get(port!, '/first'));
        const second = await get(port!, '/second');
        const third = await get(port!, '/third');
        return { bodies: [first.body, second.body, third.body], waited: ms >= 220 };
      },
    );
    assert.equal(mb, { bodies: ['-/first-shellTransform-${decorate}', '-/second-shellTransform-${decorate}', 'no behaviors'], waited: true });
    assert.equal(svc, mb);
  });
}

test.run();
