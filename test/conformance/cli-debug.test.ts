/**
 * mountebank's mbTest/cli/debugTest.js: with `--debug` each stub lists the requests it matched
 * (`matches`: timestamp, request, response, responseConfig, processingTime), on mountebank 2.9.1 and
 * svc side by side; without the flag there is no `matches`. The tcp case has no svc counterpart
 * (docs/cli.md). svc's stubs also carry their generated `id` (docs/imposters.md), tolerated in the comparison.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort, http, startMountebank, startSvc, type RunningServer } from '../support/servers.js';
import { diffJson } from '../support/mountebank/docs-runner.js';

const test = suite('conformance: mountebank debugTest (--debug records stub matches)');
let mb: RunningServer;
let svc: RunningServer;

test.before(async () => {
  [mb, svc] = await Promise.all([startMountebank({ args: ['--debug'] }), startSvc({ args: ['--debug', '--metrics-port', String(await freePort())] })]);
});
test.after(async () => {
  await Promise.all([mb?.stop(), svc?.stop()]);
});

/** The per-run parts mountebank's test scrubs, plus each side's own ports. */
function scrub(stubs: unknown, ports: number[]): unknown {
  let text = JSON.stringify(stubs)
    .replace(/"timestamp":"[^"]+"/g, '"timestamp":"NOW"')
    .replace(/"processingTime":\d+/g, '"processingTime":0')
    .replace(/"requestFrom":"[^"]+"/g, '"requestFrom":"HERE"')
    .replace(/"ip":"[^"]+"/g, '"ip":"HERE"');
  ports.forEach((port, i) => {
    text = text.replaceAll(String(port), `PORT${i}`);
  });
  return JSON.parse(text);
}

async function onBoth(run: (server: RunningServer) => Promise<unknown>): Promise<[unknown, unknown]> {
  return [await run(mb), await run(svc)];
}

const post = (server: RunningServer, body: unknown) =>
  http('POST', `http://127.0.0.1:${server.adminPort}/imposters`, { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

test('an http stub records each match with the request, the response and its config', async () => {
  const [fromMb, fromSvc] = await onBoth(async (server) => {
    const port = await freePort();
    await post(server, { protocol: 'http', port, stubs: [{ responses: [{ is: { body: '1' } }, { is: { body: '2' } }] }] });
    const headers = { accept: 'application/json', Connection: 'keep-alive' };
    await http('GET', `http://localhost:${port}/first?q=1`, { headers });
    await http('GET', `http://localhost:${port}/second?q=2`, { headers });
    const stubs = JSON.parse((await http('GET', `http://127.0.0.1:${server.adminPort}/imposters/${port}`)).body).stubs;
    await http('DELETE', `http://127.0.0.1:${server.adminPort}/imposters/${port}`);
    return scrub(stubs, [server.adminPort, port]);
  });
  const matches = (fromSvc as Array<{ matches?: unknown[] }>)[0]!.matches;
  assert.is(matches?.length, 2, JSON.stringify(fromSvc));
  assert.equal(diffJson(fromMb, fromSvc), []);
});

test('the final response of a proxy is recorded on the proxy stub', async () => {
  const [fromMb, fromSvc] = await onBoth(async (server) => {
    const [origin, proxy] = [await freePort(), await freePort()];
    await post(server, { protocol: 'http', port: origin, stubs: [{ responses: [{ is: { body: 'ORIGIN' } }] }] });
    await post(server, { protocol: 'http', port: proxy, stubs: [{ responses: [{ proxy: { to: `http://localhost:${origin}` } }] }] });
    await http('GET', `http://localhost:${proxy}/`);
    const stubs = JSON.parse((await http('GET', `http://127.0.0.1:${server.adminPort}/imposters/${proxy}`)).body).stubs;
    await http('DELETE', `http://127.0.0.1:${server.adminPort}/imposters`);
    return stubs[1].matches.map((match: Record<string, unknown>) => ({ body: (match.response as { body: string }).body, to: match.responseConfig }));
  });
  assert.equal((fromSvc as unknown[]).length, 1);
  assert.is((fromSvc as Array<{ body: string }>)[0]!.body, 'ORIGIN');
  assert.is((fromMb as Array<{ body: string }>)[0]!.body, 'ORIGIN');
});

test('without --debug stubs carry no matches', async () => {
  const plain = await startSvc({ args: ['--metrics-port', String(await freePort())] });
  try {
    const port = await freePort();
    await post(plain, { protocol: 'http', port, stubs: [{ responses: [{ is: { body: '1' } }] }] });
    await http('GET', `http://localhost:${port}/first?q=1`);
    const stubs = JSON.parse((await http('GET', `http://127.0.0.1:${plain.adminPort}/imposters/${port}`)).body).stubs;
    assert.equal(Object.keys(stubs[0]).sort(), ['_links', 'id', 'responses']);
  } finally {
    await plain.stop();
  }
});

test.run();
