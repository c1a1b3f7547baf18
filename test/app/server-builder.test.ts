/** docs/embedding.md ServerBuilder: the server `svc start` runs, started in-process. */
import { createServer, type AddressInfo, type Server } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { defaultCliOptions, ServerBuilder, StartupFailure, type CliOptions } from '../../app/index.js';
import { createLogger } from '../../engine/log/index.js';
import { ImposterManager } from '../../engine/manager/index.js';
import { freePort, http } from '../support/servers.js';
import { tempDirForSuite } from '../support/temp-dir.js';

const log = createLogger({ level: 'error', quiet: true });
const test = suite('ServerBuilder');
const dir = tempDirForSuite(test, 'svc-embed-builder-');

/** Typed options in, as an embedding host writes them (no argv: parsing is the CLI's, tools/cli). */
function options(settings: Partial<CliOptions>): CliOptions {
  return { ...defaultCliOptions(), host: '127.0.0.1', port: 0, metricsPort: 0, ...settings };
}

function occupy(): Promise<Server> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

test('fromCli(typed options).start(): OS-assigned admin and metrics ports, config file loaded; shutdown ends wait() and closes the imposters', async () => {
  const imposterPort = await freePort();
  const file = dir.file(
    'imposters.json',
    JSON.stringify({ imposters: [{ protocol: 'http', port: imposterPort, stubs: [{ responses: [{ is: { body: 'built' } }] }] }] }),
  );
  const server = await ServerBuilder.fromCli(options({ configFile: file }))
    .logger(log)
    .version('9.9.9')
    .start();
  const admin = server.adminAddr();
  assert.is(admin.host, '127.0.0.1');
  assert.ok(admin.port > 0);
  const metrics = server.metricsAddr();
  assert.ok(metrics !== undefined && metrics.port > 0);
  assert.is((await http('GET', `http://127.0.0.1:${imposterPort}/`)).body, 'built');
  const config = JSON.parse((await http('GET', `http://127.0.0.1:${admin.port}/config`)).body);
  assert.is(config.version, '9.9.9');
  assert.is((await http('GET', `http://127.0.0.1:${metrics!.port}/metrics`)).status, 200);
  const waited = server.wait();
  await server.shutdown();
  await waited;
  const after = await http('GET', `http://127.0.0.1:${imposterPort}/`).then(
    () => 'answered',
    () => 'refused',
  );
  assert.is(after, 'refused', 'the builder-made manager is closed');
});

test(".manager(m): the injected manager is served and stays the caller's after shutdown", async () => {
  const manager = new ImposterManager({ allowInjection: false, log });
  try {
    const imposter = await manager.createImposter({ protocol: 'http', port: await freePort(), stubs: [{ responses: [{ is: { body: 'mine' } }] }] });
    const server = await ServerBuilder.fromCli(options({})).logger(log).manager(manager).start();
    const list = JSON.parse((await http('GET', `http://127.0.0.1:${server.adminAddr().port}/imposters`)).body);
    assert.equal(
      list.imposters.map((i: { port: number }) => i.port),
      [imposter.port],
    );
    await server.shutdown();
    assert.is((await http('GET', `http://127.0.0.1:${imposter.port}/`)).body, 'mine');
  } finally {
    await manager.close();
  }
});

test('a busy metrics port leaves the server serving without metricsAddr()', async () => {
  const busy = await occupy();
  try {
    const server = await ServerBuilder.fromCli(options({ metricsPort: (busy.address() as AddressInfo).port }))
      .logger(log)
      .start();
    assert.is(server.metricsAddr(), undefined);
    assert.is((await http('GET', `http://127.0.0.1:${server.adminAddr().port}/imposters`)).status, 200);
    await server.shutdown();
  } finally {
    busy.close();
  }
});

test('a busy admin port fails start() and run() with a StartupFailure naming it', async () => {
  const busy = await occupy();
  try {
    const port = (busy.address() as AddressInfo).port;
    const busyAdmin = options({ port });
    for (const attempt of [() => ServerBuilder.fromCli(busyAdmin).logger(log).start(), () => ServerBuilder.fromCli(busyAdmin).logger(log).run()]) {
      const failure = await attempt().then(
        () => undefined,
        (err: unknown) => err,
      );
      assert.instance(failure, StartupFailure);
      assert.match((failure as Error).message, `cannot bind admin port ${port}`);
    }
  } finally {
    busy.close();
  }
});

test.run();
