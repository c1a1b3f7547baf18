import type { ApplyReport } from '../../engine/manager/index.js';
import { errorEntry } from '../../engine/model/index.js';
import type { Router } from '../http/index.js';

/** Re-applies the process's startup sources; throws an SvcError (400/500) when nothing may change. */
export interface Reloader {
  readonly hasSource: boolean;
  reload(): Promise<ApplyReport>;
}

function summary(report: ApplyReport): Record<string, number[]> {
  const { created, replaced, stubPatched, deleted, unchanged } = report;
  return { created, replaced, stubPatched, deleted, unchanged };
}

/** `POST /admin/reload` (docs/imposters.md): a no-op without a startup source. */
export function reloadRoutes(router: Router, reloader: Reloader | undefined): void {
  router.on('POST', '/admin/reload', async () => {
    if (!reloader?.hasSource) {
      return { status: 200, body: { message: 'no config source to reload', ...summary(emptyReport()) } };
    }
    const report = await reloader.reload();
    if (report.failed.length > 0) {
      return {
        status: 500,
        body: { errors: [errorEntry('apply_failed', 'some imposters failed to apply', { ...report })] },
      };
    }
    return { status: 200, body: summary(report) };
  });
}

function emptyReport(): ApplyReport {
  return { created: [], replaced: [], stubPatched: [], deleted: [], unchanged: [], failed: [] };
}
