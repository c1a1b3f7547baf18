/**
 * mountebank's `--mock` flag, under which its functional API tests expect "access to all requests":
 * every imposter records requests whatever its `recordRequests` says, and `recordRequests` still reads
 * back as written. Run on mountebank 2.9.1 and on svc, both started with `--mock`.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { missingFrom, normalizeAdmin, svcIsMountebank, type Side } from '../support/mountebank/pair.js';
import { startMountebank, startSvc, type RunningServer } from '../support/servers.js';
import { freePorts, mbApi, mbClient } from '../support/mountebank/mb-client.js';

const test = suite('conformance: --mock');
let servers: { mb: RunningServer; svc: RunningServer } | Error;

// A throwing `before` would abort every file of the run: keep the error and fail the test instead.
test.before(async () => {
  const started = await Promise.allSettled([
    startMountebank({ args: ['--mock'] }),
    svcIsMountebank ? startMountebank({ args: ['--mock'] }) : startSvc({ args: ['--mock'] }),
  ]);
  const [mb, svc] = started;
  if (mb.status === 'fulfilled' && svc.status === 'fulfilled') {
    servers = { mb: mb.value, svc: svc.value };
    return;
  }
  await Promise.all(started.map((s) => (s.status === 'fulfilled' ? s.value.stop() : undefined)));
  const failed = (mb.status === 'rejected' ? mb : svc) as PromiseRejectedResult;
  servers = failed.reason instanceof Error ? failed.reason : new Error(String(failed.reason));
});
test.after(async () => {
  if (!(servers instanceof Error)) await Promise.all([servers.mb.stop(), servers.svc.stop()]);
});

test('--mock: an imposter without recordRequests records its requests; recordRequests reads back false', async () => {
  if (servers instanceof Error) throw servers;
  const observe = async (name: string, server: RunningServer) => {
    const ports = await freePorts(1);
    const [admin, imposters] = [mbClient('http'), mbClient('https')];
    try {
      const api = mbApi(server, admin);
      await api.post('/imposters', { protocol: 'https', port: ports[0] });
      await imposters.get('/first', ports[0]!);
      await imposters.get('/second?q=1', ports[0]!);
      const detail = (await api.get(`/imposters/${ports[0]}`)).body;
      const saved = await api.get(`/imposters/${ports[0]}/savedRequests`);
      await api.del('/imposters');
      const side: Side = { name, server, admin: `http://127.0.0.1:${server.adminPort}` };
      return normalizeAdmin(
        {
          recordRequests: detail.recordRequests,
          numberOfRequests: detail.numberOfRequests,
          requests: detail.requests.map((r: { method: string; path: string; query: unknown }) => ({ method: r.method, path: r.path, query: r.query })),
          savedRequests: saved.status === 200 ? saved.body.length : saved.status,
        },
        side,
        ports,
      );
    } finally {
      admin.close();
      imposters.close();
    }
  };
  const mb = await observe('mountebank', servers.mb);
  const svc = (await observe('svc', servers.svc)) as { savedRequests: unknown };
  // savedRequests is an svc route (docs/recording-and-verify.md); mountebank 2.9.1 has no such endpoint.
  assert.equal(missingFrom({ ...(mb as object), savedRequests: undefined }, { ...svc, savedRequests: undefined }), []);
  assert.equal(mb, {
    recordRequests: false,
    numberOfRequests: 2,
    requests: [
      { method: 'GET', path: '/first', query: {} },
      { method: 'GET', path: '/second', query: { q: '1' } },
    ],
    savedRequests: (mb as { savedRequests: unknown }).savedRequests,
  });
  if (!svcIsMountebank) assert.is(svc.savedRequests, 2);
});

test.run();
