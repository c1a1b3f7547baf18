/**
 * Issue 12 scope 6: the shared request→response cases (transport-cases.ts) over HTTP/1.1, h2c, HTTPS/1.1,
 * h2 over TLS, the admin gateway and the front door, all served by one svc process.
 */
import { suite } from 'uvu';
import { suiteResource } from '../helpers/suite-resource.js';
import { tempDirForSuite } from '../helpers/temp-dir.js';
import { runTransportCases } from './transport-cases.js';
import { startCaseServer, transportsOf } from './transports.js';

const test = suite('shared transport cases');
const dir = tempDirForSuite(test, 'svc-transport-cases-');
const server = suiteResource(test, () => startCaseServer(dir.path), {
  stop: (svc) => svc.server.stop(),
  afterEach: async () => undefined,
});

for (const transport of transportsOf(server)) runTransportCases(test, transport);

test.run();
