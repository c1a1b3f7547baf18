import type { Server } from 'node:net';
import { classifyAcceptError } from '../admin/index.js';
import type { PlaneLifecycle } from './lifecycle.js';

/**
 * Ends `lifecycle` with the error when the server's accept loop breaks for good (EBADF, EINVAL...),
 * after `stop` has unbound what is left; transient and resource errors leave it serving (metrics
 * count those). Also keeps an unhandled 'error' event from taking the process down.
 */
export function watchAcceptLoop(server: Server, lifecycle: PlaneLifecycle, stop: () => Promise<void>): void {
  server.on('error', (error: Error) => {
    if (classifyAcceptError(error) !== 'fatal' || lifecycle.isEnded) return;
    stop().then(
      () => lifecycle.fail(error),
      () => lifecycle.fail(error),
    );
  });
}
