/**
 * The engine host behind libsvc_ffi (docs/c-abi.md): one process per C handle. It reads request frames
 * `[op, args]` on stdin and answers each, in order, with `[true, result]` or `[false, message]` on
 * stdout. It stops on the `stop` operation, or when stdin ends (the calling program went away).
 */
import { decode, encode } from '@msgpack/msgpack';
import { createLogger, isLogLevel } from '../../engine/log/index.js';
import { ImposterManager } from '../../engine/manager/index.js';
import { errorText, isSvcError } from '../../engine/model/index.js';
import { InterceptControl, imposterProtocols } from '../../admin/intercept/index.js';
import { EmbeddedAdmin } from './admin-plane.js';
import { frame, FrameReader } from './frames.js';
import type { HostContext, OperationResult, Operations } from './operations.js';
import { imposterOperations } from './imposter-operations.js';
import { stateOperations } from './state-operations.js';
import { interceptOperations } from './intercept-operations.js';
import type { Argument } from './arguments.js';

// stdout carries frames only: anything else written there (log lines) goes to stderr instead.
const writeFrame = process.stdout.write.bind(process.stdout);
process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;

const level = process.env.SVC_LOG;
// Quiet by default: the host shares the calling program's stderr; warnings are readable via svc_stub_warnings.
const log = createLogger({ level: isLogLevel(level) ? level : 'error' });
// Gates the embedded admin plane only (svc_serve_admin sets it); the C functions call the manager trusted.
const manager = new ImposterManager({ allowInjection: false, log });
// Forward rules without `protocol` use the protocol of this handle's imposter on that port.
const intercept = new InterceptControl({ log, protocolOf: imposterProtocols(manager) });
const admin = new EmbeddedAdmin(manager, intercept, log);
const context: HostContext = { manager, admin, intercept };
const operations: Operations = { ...imposterOperations(context), ...stateOperations(context), ...interceptOperations(context) };

function reply(ok: boolean, value: OperationResult | null): void {
  writeFrame(frame(encode([ok, value])));
}

let stopping: Promise<void> | undefined;
function stop(): Promise<void> {
  stopping ??= (async () => {
    await intercept.stop();
    await admin.close();
    await manager.close();
  })();
  return stopping;
}

async function handle(payload: Buffer): Promise<void> {
  let op: unknown;
  let args: Argument[] = [];
  try {
    const request = decode(payload);
    if (!Array.isArray(request) || typeof request[0] !== 'string' || !Array.isArray(request[1])) throw new Error('malformed request frame');
    [op, args] = request as [string, Argument[]];
  } catch (err) {
    reply(false, errorText(err));
    return;
  }
  if (op === 'stop') {
    await stop().catch((err: unknown) => log.error(`engine host stop: ${errorText(err)}`));
    // Exit once the reply has been handed to the kernel, so the caller reads it before end of stream.
    writeFrame(frame(encode([true, 0])), () => process.exit(0));
    return;
  }
  const operation = typeof op === 'string' && Object.hasOwn(operations, op) ? operations[op] : undefined;
  if (!operation) {
    reply(false, `unknown operation '${String(op)}'`);
    return;
  }
  try {
    reply(true, await operation(args));
  } catch (err) {
    if (!isSvcError(err)) {
      log.error(`engine host ${String(op)}: ${(err as Error)?.stack ?? String(err)}`);
    }
    reply(false, errorText(err));
  }
}

// Requests are answered strictly in order, one at a time, as the C side expects.
const reader = new FrameReader();
let queue = Promise.resolve();
process.stdin.on('data', (chunk: Buffer) => {
  for (const payload of reader.push(chunk)) queue = queue.then(() => handle(payload));
});
process.stdin.on('end', () => {
  queue = queue.then(() => stop()).finally(() => process.exit(0));
});
// The C handle owns this process: a signal meant for the calling program's group must not stop the
// host behind a live handle, and an unexpected error is logged rather than taking the imposters down.
process.on('SIGINT', () => undefined);
process.on('uncaughtException', (err) => log.error(`engine host: ${err.stack ?? String(err)}`));
process.on('unhandledRejection', (reason: unknown) => log.error(`engine host: ${(reason as Error)?.stack ?? String(reason)}`));
