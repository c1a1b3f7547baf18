/**
 * Issue 12 scope 6: the shared request→response cases (test/support/surfaces/transport-cases.ts) over HTTP/1.1, h2c, HTTPS/1.1,
 * h2 over TLS, the admin gateway and the front door, all served by one svc process.
 */
import { suite } from 'uvu';
import { suiteResource } from '../support/suite-resource.js';
import { tempDirForSuite } from '../support/temp-dir.js';
import { runTransportCases } from '../support/surfaces/transport-cases.js';
import { startCaseServer, transportsOf } from '../support/surfaces/transports.js';

const test = suite('shared transport cases');
const dir = tempDirForSuite(test, 'svc-transport-cases-');
const server = suiteResource(test, () => startCaseServer(dir.path), {
  stop: (svc) => svc.server.stop(),
  afterEach: async () => undefined,
});

for (const transport of transportsOf(server)) runTransportCases(test, transport);

test.run();
