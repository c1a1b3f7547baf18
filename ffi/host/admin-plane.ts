import type { ImposterManager } from '../../engine/manager/index.js';
import type { Logger } from '../../engine/log/index.js';
import type { InterceptControl } from '../../admin/index.js';
import { errors } from '../../engine/model/index.js';
import { parseServeAdminOptions, serveAdmin, type ServedAdmin } from '../../app/index.js';
import { VERSION } from '../../engine/version/index.js';

/** The admin (and optional metrics) plane a handle may serve once (svc_serve_admin), over the handle's manager. */
export class EmbeddedAdmin {
  private served: ServedAdmin | undefined;
  private busy = false;

  constructor(
    private readonly manager: ImposterManager,
    private readonly intercept: InterceptControl,
    private readonly log: Logger,
  ) {}

  async serve(source: unknown): Promise<Record<string, unknown>> {
    const options = parseServeAdminOptions(source);
    if (this.busy || this.served) throw errors.badData('the admin plane is already serving');
    this.busy = true;
    try {
      // The plane's allowInjection gates its routes, configFile and reload; inline config is the caller's own (docs/c-abi.md).
      this.served = await serveAdmin(this.manager, options, {
        version: VERSION,
        log: this.log,
        trustInlineConfig: true,
        // `/intercept*` over HTTP and the svc_*intercept* functions share the handle's one slot.
        intercept: this.intercept,
      });
      const { adminPort, adminUrl, metricsPort } = this.served;
      return { adminPort, adminUrl, metricsPort };
    } finally {
      this.busy = false;
    }
  }

  async close(): Promise<void> {
    const served = this.served;
    this.served = undefined;
    await served?.close();
  }
}
