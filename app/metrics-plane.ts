import { startMetricsServer } from '../admin/index.js';
import type { ImposterManager } from '../engine/manager/index.js';
import { watchAcceptLoop } from './accept-loop.js';
import { PlaneLifecycle } from './lifecycle.js';
import { parseListenAddr, type ListenAddr, type SocketAddr } from './listen-addr.js';

export interface RunningMetrics {
  readonly localAddr: SocketAddr;
  shutdown(): Promise<void>;
  /** Resolves once the server has ended; rejects (first caller) with a fatal accept-loop error. */
  join(): Promise<void>;
}

/** The metrics server (docs/metrics-and-events.md) following `manager`'s engine; port 0 is OS-assigned. */
export async function bindMetricsServer(addr: ListenAddr, manager: ImposterManager): Promise<RunningMetrics> {
  const { host, port } = parseListenAddr(addr);
  const running = await startMetricsServer({ port, host, manager });
  const lifecycle = new PlaneLifecycle();
  watchAcceptLoop(running.server, lifecycle, () => running.close());
  return {
    localAddr: { host: host ?? '::', port: running.port },
    async shutdown() {
      await running.close();
      lifecycle.finish();
    },
    join: () => lifecycle.wait(),
  };
}

/** Serves metrics until `signal` aborts (then resolves) or the accept loop breaks (then rejects). */
export async function runMetricsServer(addr: ListenAddr, manager: ImposterManager, signal?: AbortSignal): Promise<void> {
  const running = await bindMetricsServer(addr, manager);
  if (signal?.aborted) await running.shutdown();
  else
    signal?.addEventListener(
      'abort',
      () => {
        void running.shutdown();
      },
      { once: true },
    );
  await running.join();
}
