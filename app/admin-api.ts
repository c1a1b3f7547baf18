import type { ConfigSources } from '../engine/config/index.js';
import { createLogger, type Logger } from '../engine/log/index.js';
import type { ImposterManager } from '../engine/manager/index.js';
import { watchAcceptLoop } from './accept-loop.js';
import { configSourcesFor, type ConfigSource } from './config-source.js';
import { PlaneLifecycle } from './lifecycle.js';
import { parseListenAddr, type ListenAddr, type SocketAddr } from './listen-addr.js';
import { servePlanes } from './planes.js';

export interface RunningAdminApi {
  readonly localAddr: SocketAddr;
  /** Unbinds the port and drops open connections; the manager and its imposters are the caller's. */
  shutdown(): Promise<void>;
  /** Resolves once the plane has ended; rejects with a fatal accept-loop error. */
  join(): Promise<void>;
  /** Like `join`, callable many times: the accept-loop error goes to the first caller, later calls resolve. */
  wait(): Promise<void>;
}

/** The admin plane alone over a caller's manager (docs/embedding.md `AdminApiServer`). */
export class AdminApiServer {
  private source: ConfigSource | undefined;
  private allowInjection: boolean | undefined;
  private log: Logger | undefined;
  private version = 'embedded';

  /** `apiKey` gates every admin route through the `Authorization` header (docs/cli.md). */
  constructor(
    private readonly addr: ListenAddr,
    private readonly manager: ImposterManager,
    private readonly apiKey?: string,
  ) {
    if (apiKey !== undefined && apiKey.trim() === '') throw new Error('the API key must not be blank');
  }

  /** Loaded at `bind` and re-read by `POST /admin/reload`. */
  withConfigSource(source: ConfigSource): this {
    this.source = source;
    return this;
  }

  /** Admits scripted configs on the admin routes, the config source and reload (sets the manager's permission). */
  withAllowInjection(allow: boolean): this {
    this.allowInjection = allow;
    return this;
  }

  withLogger(log: Logger): this {
    this.log = log;
    return this;
  }

  /** Reported by `/config` and the event stream. */
  withVersion(version: string): this {
    this.version = version;
    return this;
  }

  /** Binds the port, then loads the config source; a failing source unbinds again and throws. */
  async bind(): Promise<RunningAdminApi> {
    const log = this.log ?? createLogger({ level: 'warn' });
    const { host, port } = parseListenAddr(this.addr);
    if (this.allowInjection !== undefined) this.manager.setAllowInjection(this.allowInjection);
    const sources: ConfigSources | undefined = this.source && configSourcesFor(this.manager, this.source, log);
    const planes = await servePlanes({
      manager: this.manager,
      log,
      reloader: sources,
      adminPort: port,
      adminHost: host,
      settings: {
        version: this.version,
        port,
        host,
        apiKey: this.apiKey,
        localOnly: false,
        ipWhitelist: ['*'],
        configFile: this.source?.kind === 'file' ? this.source.path : undefined,
        noParse: this.source?.kind === 'file' && this.source.noParse,
        requireAdminAuth: false,
        datadir: this.source?.kind === 'dir' ? this.source.path : undefined,
      },
    });
    try {
      await sources?.loadAtStartup();
    } catch (err) {
      await planes.close();
      throw err;
    }
    const lifecycle = new PlaneLifecycle();
    const shutdown = async () => {
      await planes.close();
      lifecycle.finish();
    };
    watchAcceptLoop(planes.admin.server, lifecycle, () => planes.close());
    return {
      localAddr: { host: host ?? '::', port: planes.admin.port },
      shutdown,
      join: () => lifecycle.wait(),
      wait: () => lifecycle.wait(),
    };
  }
}
