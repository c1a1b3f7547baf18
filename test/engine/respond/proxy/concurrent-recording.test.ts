/**
 * proxyOnce under concurrency (issue 18): requests that would record the same predicates while the
 * first is still at the upstream wait for its recording and replay it, so the upstream sees one call
 * and the imposter gets one stub. The suite runs under SVC_RUNTIME=per-core too (test:per-core).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { inProcessForSuite, call } from '../../../support/in-process.js';
import { startUpstream, type Upstream } from '../../../support/upstream.js';

const test = suite('proxy recordings under concurrency');
const svc = inProcessForSuite(test, { allowInjection: true, keepImposters: true });
let upstream: Upstream;

test.before.each(async () => {
  // 5 ms at the origin: every request of a burst arrives while the first is still there.
  upstream = await startUpstream('http', (seen, res) => {
    setTimeout(() => {
      res.setHeader('Content-Type', 'text/plain');
      res.end(`origin saw ${seen.url}`);
    }, 5);
  });
});
test.after.each(async () => {
  await svc.admin('DELETE', '/imposters');
  await upstream.stop();
});

async function stubs(port: number): Promise<any[]> {
  return (await svc.admin('GET', `/imposters/${port}`)).json.stubs;
}

test('200 concurrent requests to a proxyOnce stub: one upstream call, one recorded stub, every answer the same', async () => {
  const port = await svc.createImposter({
    stubs: [{ responses: [{ proxy: { to: upstream.origin, mode: 'proxyOnce', predicateGenerators: [{ matches: { path: true } }] } }] }],
  });
  const answers = await Promise.all(Array.from({ length: 200 }, () => call(port, 'GET', '/once')));
  assert.equal([...new Set(answers.map((res) => `${res.status} ${res.body}`))], ['200 origin saw /once']);
  assert.is(upstream.seen.length, 1);
  const recorded = await stubs(port);
  assert.is(recorded.length, 2, 'one recorded stub before the proxy');
  assert.equal(recorded[0].predicates, [{ deepEquals: { path: '/once' } }]);
  assert.ok(recorded[1].responses[0].proxy);
  // The next request is answered by the recording.
  assert.is((await call(port, 'GET', '/once')).body, 'origin saw /once');
  assert.is(upstream.seen.length, 1);
});

test('concurrent proxyOnce requests with different predicates each record once', async () => {
  const port = await svc.createImposter({
    stubs: [{ responses: [{ proxy: { to: upstream.origin, predicateGenerators: [{ matches: { path: true } }] } }] }],
  });
  const paths = ['/a', '/b', '/c', '/d'];
  const answers = await Promise.all(Array.from({ length: 80 }, (_, i) => call(port, 'GET', paths[i % 4])));
  assert.equal(
    answers.map((res) => res.body),
    answers.map((_, i) => `origin saw ${paths[i % 4]}`),
  );
  assert.equal(upstream.seen.map((seen) => seen.url).sort(), paths);
  const recorded = await stubs(port);
  assert.equal(
    recorded
      .slice(0, 4)
      .map((stub) => stub.predicates[0].deepEquals.path)
      .sort(),
    paths,
  );
  assert.is(recorded.length, 5);
});

test('waiting requests replay the recording with its wait behavior (addWaitBehavior)', async () => {
  const port = await svc.createImposter({
    stubs: [{ responses: [{ proxy: { to: upstream.origin, addWaitBehavior: true, predicateGenerators: [{ matches: { path: true } }] } }] }],
  });
  const answers = await Promise.all(Array.from({ length: 20 }, () => call(port, 'GET', '/slow')));
  for (const res of answers) assert.is(res.body, 'origin saw /slow');
  assert.is(upstream.seen.length, 1);
  const recorded = await stubs(port);
  assert.is(recorded.length, 2);
  assert.is(typeof recorded[0].responses[0].behaviors[0].wait, 'number');
});

test('when the first call fails, a waiting request calls the upstream itself and records', async () => {
  let calls = 0;
  upstream.handler = (seen, res) => {
    calls += 1;
    // The first call's connection is dropped: the proxy answers 500 and records nothing.
    if (calls === 1) setTimeout(() => res.socket?.destroy(), 5);
    else setTimeout(() => res.end(`origin saw ${seen.url}`), 5);
  };
  const port = await svc.createImposter({
    stubs: [{ responses: [{ proxy: { to: upstream.origin, predicateGenerators: [{ matches: { path: true } }] } }] }],
  });
  const answers = await Promise.all(Array.from({ length: 10 }, () => call(port, 'GET', '/retry')));
  assert.is(answers.filter((res) => res.status === 500).length, 1, 'only the first request failed');
  assert.is(answers.filter((res) => res.body === 'origin saw /retry').length, 9);
  assert.is(upstream.seen.length, 2);
  assert.is((await stubs(port)).length, 2);
});

test('proxyAlways keeps calling the upstream and appends every response to one stub', async () => {
  const port = await svc.createImposter({
    stubs: [{ responses: [{ proxy: { to: upstream.origin, mode: 'proxyAlways', predicateGenerators: [{ matches: { path: true } }] } }] }],
  });
  await Promise.all(Array.from({ length: 20 }, () => call(port, 'GET', '/always')));
  assert.is(upstream.seen.length, 20);
  const recorded = await stubs(port);
  assert.is(recorded.length, 2);
  assert.is(recorded[1].responses.length, 20);
});

test('a request its own recording would not answer (ignore drops a field it has) is proxied and recorded itself', async () => {
  const port = await svc.createImposter({
    stubs: [{ responses: [{ proxy: { to: upstream.origin, predicateGenerators: [{ matches: { query: true }, ignore: { query: 'ts' } }] } }] }],
  });
  // Each recording is deepEquals {q: '1'}: a request with ts never matches it, so, as in mountebank,
  // every one goes to the upstream, at once or one after another.
  const stamped = await Promise.all(Array.from({ length: 5 }, (_, i) => call(port, 'GET', `/x?q=1&ts=${i}`)));
  assert.equal(
    stamped.map((res) => res.body),
    stamped.map((_, i) => `origin saw /x?q=1&ts=${i}`),
  );
  assert.is((await call(port, 'GET', '/x?q=1&ts=9')).body, 'origin saw /x?q=1&ts=9');
  assert.is(upstream.seen.length, 6);
  const recorded = await stubs(port);
  assert.is(recorded.length, 7, 'six recordings and the proxy');
  assert.ok(recorded.slice(0, 6).every((stub) => JSON.stringify(stub.predicates) === JSON.stringify([{ deepEquals: { query: { q: '1' } } }])));
  // Without ts the request matches a recording: replayed, the upstream sees nothing more.
  assert.match((await call(port, 'GET', '/x?q=1')).body, /^origin saw \/x\?q=1&ts=/);
  assert.is(upstream.seen.length, 6);
});

test.run();
