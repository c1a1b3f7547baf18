/**
 * The admin plane as an embedder serves it (createAdminServer + listenAdmin, no CLI around it): an accept
 * failure node reports as the server's 'error' event is logged and the plane keeps serving; it never
 * ends the process.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createAdminServer, listenAdmin } from '../../admin/index.js';
import { createLogger } from '../../engine/log/index.js';
import { ImposterManager } from '../../engine/manager/index.js';
import { testAdminSettings } from '../support/in-process.js';
import { http } from '../support/servers.js';

const test = suite('admin plane: accept failures');

test('an accept failure after listening is logged at warn and the plane keeps serving', async () => {
  const log = createLogger({ level: 'warn', quiet: true });
  const manager = new ImposterManager({ allowInjection: false, log });
  const admin = await listenAdmin(createAdminServer({ manager, log, settings: testAdminSettings() }), 0, '127.0.0.1');
  try {
    // What node emits when accept(2) fails (the process ran out of descriptors).
    admin.server.emit('error', Object.assign(new Error('accept EMFILE'), { code: 'EMFILE', syscall: 'accept' }));
    const warned = log.recent().filter((entry) => entry.level === 'warn' && entry.message.includes('accept EMFILE'));
    assert.is(warned.length, 1, JSON.stringify(log.recent()));
    assert.is((await http('GET', `http://127.0.0.1:${admin.port}/health`)).status, 200);
  } finally {
    await manager.close();
    await admin.close();
  }
});

test('a port already bound is listenAdmin rejecting, not a log line', async () => {
  const log = createLogger({ level: 'warn', quiet: true });
  const manager = new ImposterManager({ allowInjection: false, log });
  const first = await listenAdmin(createAdminServer({ manager, log, settings: testAdminSettings() }), 0, '127.0.0.1');
  try {
    const outcome = await listenAdmin(createAdminServer({ manager, log, settings: testAdminSettings() }), first.port, '127.0.0.1').then(
      (second) => second.close().then(() => 'listening'),
      (err: NodeJS.ErrnoException) => err.code,
    );
    assert.is(outcome, 'EADDRINUSE');
    assert.equal(
      log.recent().filter((entry) => entry.level === 'warn'),
      [],
    );
  } finally {
    await manager.close();
    await first.close();
  }
});

test.run();
