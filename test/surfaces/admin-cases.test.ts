/**
 * Issue 12 scope 6: the shared admin cases (test/support/surfaces/admin-cases.ts) over admin HTTP (the svc binary), the
 * embedding API (ServerBuilder in this process), the C ABI (libsvc_ffi through ctypes) and the admin
 * plane a C handle serves.
 */
import { suite } from 'uvu';
import { suiteResource } from '../support/suite-resource.js';
import { tempDirForSuite } from '../support/temp-dir.js';
import { runAdminCases, type SurfaceId } from '../support/surfaces/admin-cases.js';
import { adminHttpSurface, cAbiAdminSurface, cAbiSurface, embedSurface, type AdminSurface } from '../support/surfaces/surfaces.js';

const SURFACES: Array<[SurfaceId, string, (dir: string) => Promise<AdminSurface>]> = [
  ['adminHttp', 'admin HTTP', adminHttpSurface],
  ['embed', 'embedding API', embedSurface],
  ['cAbi', 'C ABI', () => cAbiSurface()],
  ['cAbiAdmin', 'C ABI admin plane (svc_serve_admin)', () => cAbiAdminSurface()],
];

for (const [id, label, start] of SURFACES) {
  const test = suite(`shared admin cases: ${label}`);
  const dir = tempDirForSuite(test, 'svc-admin-cases-');
  const surface = suiteResource(test, () => start(dir.path), { stop: (s) => s.stop(), afterEach: async () => undefined });
  runAdminCases(test, id, label, surface);
  test.run();
}
