/**
 * mountebank's CLI functional tests (mbTest/cli: configFileTest, datadirTest, saveTest, replayTest,
 * rcfileTest, hostTest) expressed against svc, driven with mountebank's own command lines
 * (test/support/mountebank/mb-cli.ts). Fixtures are written per run with free ports in place of mountebank's fixed ones.
 *
 * Kept differences (SPEC): smtp/tcp imposters are not served (docs/cli.md), so the fixtures leave out
 * email.json and the tcp/smtp host cases; `save` writes `svc.json` by default (SPEC's naming
 * convention: `mb.json` carries the product name, like the default pidfile `svc.pid`); rcfile keys
 * outside docs/cli.md's list (`mock`, `debug`) are warned and ignored, and `/config` reports docs/imposters.md's
 * options only, so rcfileTest's `options.mock`/`options.debug` checks have no svc counterpart; the
 * data directory holds `<port>.json` files (docs/cli.md), not mountebank's per-port directories.
 *
 * Not conformant (reported): a restart from `--datadir` starts each response cycle over, where
 * mountebank's file repository resumes it.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { freePort, http } from '../support/servers.js';
import { writeFileDeep } from '../support/temp-dir.js';
import { MbStyle, get, httpsGet } from '../support/mountebank/mb-cli.js';

const test = suite('conformance: mountebank CLI tests (configfile, datadir, save, replay, rcfile, host)');
let mb: MbStyle;

test.before.each(async () => {
  mb = await MbStyle.create();
});
test.after.each(async () => {
  await mb.dispose();
});

const json = (value: unknown) => JSON.stringify(value, null, 2);

test('configfile: imposters spread over included files, https and stringify (configFileTest: multiple files)', async () => {
  const [orders, accounts, users] = [await freePort(), await freePort(), await freePort()];
  const dir = join(mb.dir, 'imposters');
  writeFileDeep(
    join(dir, 'imposters.ejs'),
    '{\n  "imposters": [\n    <% include accounts.json %>,\n    <% include orders.json %>,\n    <% include users.json %>\n  ]\n}\n',
  );
  writeFileDeep(
    join(dir, 'orders.json'),
    json({
      port: orders,
      protocol: 'http',
      name: 'order service',
      stubs: [
        {
          responses: [
            { is: { statusCode: 201, headers: { location: `http://localhost:${orders}/orders/123` } } },
            { is: { statusCode: 201, headers: { location: `http://localhost:${orders}/orders/234` } } },
          ],
          predicates: [{ equals: { path: '/orders', method: 'POST' } }],
        },
        { responses: [{ is: { body: 'Order 123' } }], predicates: [{ equals: { path: '/orders/123', method: 'GET' } }] },
        { responses: [{ is: { body: 'Order 234' } }], predicates: [{ equals: { path: '/orders/234', method: 'GET' } }] },
      ],
    }),
  );
  writeFileDeep(
    join(dir, 'accounts.json'),
    json({
      port: accounts,
      protocol: 'https',
      name: 'account service',
      stubs: [
        { predicates: [{ exists: { headers: { authorization: false } } }], responses: [{ is: { statusCode: 401 } }] },
        { predicates: [{ equals: { path: '/accounts/123' } }], responses: [{ is: { body: '<account><id>123</id></account>' } }] },
        { responses: [{ is: { statusCode: 404 } }] },
      ],
    }),
  );
  writeFileDeep(join(dir, 'users.xml'), '<users>\n    <user>\n        <id>123</id>\n        <name>Test Tester</name>\n    </user>\n</users>\n');
  writeFileDeep(
    join(dir, 'users.json'),
    `{ "port": ${users}, "protocol": "https",
  "stubs": [{ "responses": [{ "is": { "body": "<%- stringify(filename, 'users.xml') %>" } }] }] }`,
  );
  await mb.start(['--configfile', join(dir, 'imposters.ejs')]);

  const first = await http('POST', `http://localhost:${orders}/orders`);
  assert.is(first.status, 201);
  assert.is(first.headers.location, `http://localhost:${orders}/orders/123`);
  const second = await http('POST', `http://localhost:${orders}/orders`);
  assert.is(second.headers.location, `http://localhost:${orders}/orders/234`);
  assert.is((await get(orders, '/orders/123')).body, 'Order 123');
  assert.is((await get(orders, '/orders/234')).body, 'Order 234');
  assert.is((await httpsGet(accounts, '/accounts/123')).status, 401);
  assert.ok((await httpsGet(accounts, '/accounts/123', { authorization: 'Basic blah===' })).body.indexOf('<id>123</id>') > 0);
  assert.is((await httpsGet(accounts, '/accounts/234', { authorization: 'Basic blah===' })).status, 404);
  const usersBody = (await httpsGet(users, '/users/123')).body;
  assert.ok(usersBody.includes('<users>') && usersBody.indexOf('<id>123</id>') > 0, usersBody);
});

test('configfile: stringify of an inject function keeps per-imposter state (configFileTest: stringify in templates)', async () => {
  const origin = await freePort();
  const dir = join(mb.dir, 'templates');
  writeFileDeep(join(dir, 'imposters.ejs'), '{\n  "imposters": [\n    <% include originServer.ejs %>\n  ]\n}\n');
  writeFileDeep(
    join(dir, 'originServer.ejs'),
    `{ "port": ${origin}, "protocol": "http", "name": "origin",
  "stubs": [{ "responses": [{ "inject": "<%- stringify(filename, 'originServerResponse.ejs') %>" }] }] }`,
  );
  writeFileDeep(
    join(dir, 'originServerResponse.ejs'),
    `(request, state, logger) => {
    logger.info('origin called');
    state.requests = state.requests || 0;
    state.requests += 1;
    return {
      headers: {
        'Content-Type': 'application/json'
      },
      body: JSON.stringify({ count: state.requests })
    };
}
`,
  );
  await mb.start(['--configfile', join(dir, 'imposters.ejs'), '--allowInjection', '--localOnly']);
  assert.equal(JSON.parse((await get(origin, '/first')).body), { count: 1 });
  assert.equal(JSON.parse((await get(origin, '/second')).body), { count: 2 });
  assert.equal(JSON.parse((await get(origin, '/first')).body), { count: 3 });
});

test('configfile: stringify inside an included file resolves next to that file (configFileTest: nested stringify)', async () => {
  const port = await freePort();
  const dir = join(mb.dir, 'nestedStringify');
  writeFileDeep(join(dir, 'imposters.ejs'), '{\n  "imposters": [\n    <% include services/data.ejs %>\n  ]\n}\n');
  writeFileDeep(join(dir, 'services/body.ejs'), '{\n   "success": true\n}\n');
  writeFileDeep(
    join(dir, 'services/data.ejs'),
    `{ "port": ${port}, "protocol": "http",
  "stubs": [{ "responses": [{ "is": { "headers": { "Content-Type": "application/json" }, "body": "<%- stringify(filename, 'body.ejs') %>" } }] }] }`,
  );
  await mb.start(['--configfile', join(dir, 'imposters.ejs'), '--allowInjection', '--localOnly']);
  assert.equal(JSON.parse((await get(port, '/')).body), { success: true });
});

test('configfile: --noParse serves the file as written; gzip request bodies are decoded (configFileTest)', async () => {
  const [plain, gzip] = [await freePort(), await freePort()];
  writeFileDeep(
    join(mb.dir, 'noparse.json'),
    json({
      imposters: [
        { port: plain, protocol: 'http', stubs: [{ responses: [{ is: { body: '<% should not render through ejs' } }] }] },
        {
          port: gzip,
          protocol: 'http',
          stubs: [
            {
              predicates: [{ equals: { body: { title: 'Harry Potter' } } }],
              responses: [{ is: { body: { code: 'SUCCESS' } } }],
            },
          ],
        },
      ],
    }),
  );
  await mb.start(['--debug', '--configfile', join(mb.dir, 'noparse.json'), '--noParse']);
  assert.is((await get(plain, '/')).body, '<% should not render through ejs');
  const zipped = await http('POST', `http://localhost:${gzip}/`, {
    headers: { 'Content-Encoding': 'gzip', 'Content-Type': 'application/json' },
    body: gzipSync('{"title": "Harry Potter"}'),
  });
  assert.is(JSON.parse(zipped.body).code, 'SUCCESS');
});

test('datadir: imposters come back after a restart until deleted (datadirTest)', async () => {
  const port = await freePort();
  const imposter = { port, protocol: 'http', stubs: [{ responses: [{ is: { body: 'first' } }, { is: { body: 'second' } }] }] };
  await mb.start(['--datadir', '.mbtest']);
  assert.is((await mb.admin('POST', '/imposters', imposter)).status, 201);
  assert.is((await get(port, '/')).body, 'first');

  await mb.stop();
  await mb.start(['--datadir', '.mbtest']);
  // mountebank's file repository also persists the response cycle (it answers 'second' here); svc's
  // data directory holds the imposter's configuration only, so the cycle starts over.
  assert.is((await get(port, '/')).body, 'first', 'the persisted imposter serves again');
  assert.is((await get(port, '/')).body, 'second');

  await mb.admin('DELETE', '/imposters');
  await mb.stop();
  await mb.start(['--datadir', '.mbtest']);
  const refused = await get(port, '/').then(
    () => 'connected',
    (err: NodeJS.ErrnoException) => err.code,
  );
  assert.is(refused, 'ECONNREFUSED', 'a deleted imposter is not restarted');
});

test('datadir: --configfile overwrites an imposter the data directory holds on the same port (datadirTest)', async () => {
  const port = await freePort();
  await mb.start(['--datadir', '.mbtest']);
  await mb.admin('POST', '/imposters', { port, protocol: 'http', stubs: [{ responses: [{ is: { body: 'SHOULD BE OVERWRITTEN' } }] }] });
  assert.is((await get(port, '/orders/123')).body, 'SHOULD BE OVERWRITTEN');
  await mb.stop();

  writeFileDeep(join(mb.dir, 'imposters.json'), json({ imposters: [{ port, protocol: 'http', stubs: [{ responses: [{ is: { body: 'Order 123' } }] }] }] }));
  await mb.start(['--datadir', '.mbtest', '--configfile', join(mb.dir, 'imposters.json')]);
  assert.is((await get(port, '/orders/123')).body, 'Order 123');
});

test('datadir: deleting imposters leaves other files in the directory alone (datadirTest)', async () => {
  const port = await freePort();
  await mb.start(['--datadir', '.mbtest']);
  writeFileDeep(join(mb.dir, '.mbtest/meta/OUTSIDE-IMPOSTER-DIR.txt'), '');
  await mb.admin('POST', '/imposters', { port, protocol: 'http', stubs: [{ responses: [{ is: { body: 'BODY' } }] }] });
  assert.is((await get(port, '/')).body, 'BODY');
  assert.ok(existsSync(join(mb.dir, `.mbtest/${port}.json`)));
  await mb.admin('DELETE', '/imposters');
  assert.ok(existsSync(join(mb.dir, '.mbtest/meta/OUTSIDE-IMPOSTER-DIR.txt')));
  assert.not.ok(existsSync(join(mb.dir, `.mbtest/${port}.json`)));
});

test('save: the replayable document, to the default file, to --savefile, and with --removeProxies (saveTest)', async () => {
  const [port, origin, proxy] = [await freePort(), await freePort(), await freePort()];
  await mb.start();
  await mb.admin('POST', '/imposters', { port: origin, protocol: 'http', stubs: [{ responses: [{ is: { body: 'origin' } }] }] });
  await mb.admin('POST', '/imposters', { port, protocol: 'http', name: 'orders', stubs: [{ responses: [{ is: { body: 'Order 123' } }] }] });
  await mb.admin('POST', '/imposters', {
    port: proxy,
    protocol: 'http',
    name: 'PROXY',
    stubs: [{ responses: [{ proxy: { to: `http://localhost:${origin}` } }] }],
  });
  await get(proxy, '/');

  const replayable = JSON.parse((await mb.admin('GET', '/imposters?replayable=true')).body);
  const saved = await mb.save();
  assert.is(saved.status, 0, saved.stderr);
  assert.equal(JSON.parse(readFileSync(join(mb.dir, 'svc.json'), 'utf8')), replayable);

  assert.is((await mb.save(['--savefile', 'saved.json'])).status, 0);
  assert.equal(JSON.parse(readFileSync(join(mb.dir, 'saved.json'), 'utf8')), replayable);

  const withoutProxies = JSON.parse((await mb.admin('GET', '/imposters?replayable=true&removeProxies=true')).body);
  const removed = await mb.save(['--savefile', 'removed.json', '--removeProxies']);
  assert.is(removed.status, 0, removed.stderr);
  const file = JSON.parse(readFileSync(join(mb.dir, 'removed.json'), 'utf8'));
  assert.equal(file, withoutProxies);
  assert.not.match(JSON.stringify(file), /"proxy"/);
});

test('replay: proxyAlways recordings become the stubs, proxies removed (replayTest)', async () => {
  const [origin, proxy] = [await freePort(), await freePort()];
  const originFn = '(request, state) => { state.count = state.count || 0; state.count += 1; return { body: `${state.count}. ${request.path}` }; }';
  await mb.start(['--allowInjection']);
  await mb.admin('POST', '/imposters', { protocol: 'http', port: origin, name: 'origin server', stubs: [{ responses: [{ inject: originFn }] }] });
  await mb.admin('POST', '/imposters', {
    protocol: 'http',
    port: proxy,
    name: 'PROXY',
    stubs: [
      {
        responses: [
          {
            proxy: {
              to: `http://localhost:${origin}`,
              mode: 'proxyAlways',
              predicateGenerators: [{ matches: { path: true } }],
            },
          },
        ],
      },
    ],
  });
  await get(proxy, '/first');
  await get(proxy, '/second');
  await get(proxy, '/first');

  const replay = await mb.replay();
  assert.is(replay.status, 0, replay.stderr);
  const stubs = JSON.parse((await mb.admin('GET', `/imposters/${proxy}`)).body).stubs as { responses: { is: { body: string } }[] }[];
  assert.is(stubs.length, 2, JSON.stringify(stubs));
  assert.equal(
    stubs.map((stub) => stub.responses.map((r) => r.is.body)),
    [['1. /first', '3. /first'], ['2. /second']],
  );
});

test('rcfile: a missing or non-JSON rcfile still starts; SPEC keys apply; command-line flags win (rcfileTest)', async () => {
  await mb.start(['--rcfile', 'mbrc.json']);
  assert.is((await mb.admin('GET', '/config')).status, 200, 'missing rcfile');
  await mb.stop();

  writeFileSync(join(mb.dir, 'mbrc.json'), 'mock: true');
  await mb.start(['--rcfile', 'mbrc.json']);
  const config = JSON.parse((await mb.admin('GET', '/config')).body);
  assert.is(config.options.allowInjection, false, 'non-JSON rcfile: defaults');
  await mb.stop();

  writeFileSync(join(mb.dir, 'mbrc.json'), JSON.stringify({ allowInjection: true, localOnly: false }));
  await mb.start(['--rcfile', 'mbrc.json']);
  assert.is(JSON.parse((await mb.admin('GET', '/config')).body).options.allowInjection, true, 'rcfile overrides defaults');
  await mb.stop();

  writeFileSync(join(mb.dir, 'mbrc.json'), JSON.stringify({ allowInjection: false, localOnly: true }));
  await mb.start(['--rcfile', 'mbrc.json', '-i']);
  const options = JSON.parse((await mb.admin('GET', '/config')).body).options;
  assert.is(options.allowInjection, true, 'the -i alias wins over the rcfile');
  assert.is(options.localOnly, true, 'rcfile keys not on the command line still apply');
});

test('host: links, imposters, save and replay follow --host; localhost is refused (hostTest)', async () => {
  // mountebank's case binds os.hostname(); tests here stay on loopback, so a second loopback address
  // (all of 127.0.0.0/8 reaches lo on Linux) stands in for a host that is not 127.0.0.1.
  const host = '127.0.0.2';
  const [origin, proxy] = [await freePort(), await freePort()];
  await mb.start(['--host', host]);
  const links = JSON.parse((await mb.admin('GET', '/')).body)._links as Record<string, { href: string }>;
  assert.ok(Object.values(links).length > 0);
  for (const { href } of Object.values(links)) assert.ok(href.startsWith(`http://${host}`), href);

  const refused = await get(mb.port, '/', { host: '127.0.0.1' }).then(
    () => 'connected',
    (err: NodeJS.ErrnoException) => err.code,
  );
  assert.is(refused, 'ECONNREFUSED', 'admin bound to the host only');

  const bare = { imposters: [{ protocol: 'http', port: origin, recordRequests: false, stubs: [] }] };
  await mb.admin('PUT', '/imposters', bare);
  const saved = await mb.save(['--host', host]);
  assert.is(saved.status, 0, saved.stderr);
  assert.equal(JSON.parse(readFileSync(join(mb.dir, 'svc.json'), 'utf8')), bare, 'save --host writes what was PUT');

  await mb.admin('PUT', '/imposters', {
    imposters: [
      { protocol: 'http', port: origin, stubs: [{ responses: [{ is: { body: 'ORIGIN' } }] }] },
      { protocol: 'http', port: proxy, stubs: [{ responses: [{ proxy: { to: `http://${host}:${origin}`, mode: 'proxyAlways' } }] }] },
    ],
  });
  assert.is((await get(origin, '/', { host })).status, 200);
  const imposterRefused = await get(origin, '/', { host: '127.0.0.1' }).then(
    () => 'connected',
    (err: NodeJS.ErrnoException) => err.code,
  );
  assert.is(imposterRefused, 'ECONNREFUSED', 'imposters bound to the host only');

  await get(proxy, '/', { host });
  const replay = await mb.replay(['--host', host]);
  assert.is(replay.status, 0, replay.stderr);
  const imposters = JSON.parse((await mb.admin('GET', '/imposters?replayable=true')).body).imposters as {
    port: number;
    stubs: { responses: { is: { body: string } }[] }[];
  }[];
  const responses = imposters.find((imposter) => imposter.port === proxy)!.stubs[0]!.responses;
  assert.is(responses.length, 1);
  assert.is(responses[0]!.is.body, 'ORIGIN');
});

test.run();
