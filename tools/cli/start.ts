import { createLogger } from '../../engine/log/index.js';
import { errorText } from '../../engine/model/index.js';
import { HeapReclaim, removeOwnPidFile, ServerBuilder, StartupFailure, VERSION, writePidFile, type CliOptions, type RunningServer } from '../../app/index.js';

/**
 * `svc start`: the embedding API's ServerBuilder (app/) plus what belongs to the process:
 * option warnings, the pidfile, signals and the exit status. Returns undefined while serving.
 */
export async function startCommand(options: CliOptions): Promise<number | undefined> {
  const log = createLogger({ level: options.logLevel, quiet: options.logQuiet, file: options.noLogFile ? undefined : options.logFile });
  // Whatever a request leaves uncaught is logged: it must not take down every client's imposters.
  process.on('unhandledRejection', (reason: unknown) => log.error(`unhandled rejection: ${(reason as Error)?.stack ?? String(reason)}`));
  process.on('uncaughtException', (err: Error) => log.error(`uncaught exception: ${err.stack ?? String(err)}`));
  for (const warning of options.warnings) log.warn(warning);
  for (const operand of options.positionals) log.warn(`unexpected argument '${operand}' ignored`);
  if (options.workers !== undefined && options.runtime !== 'per-core') log.warn('--workers applies to --runtime per-core only; ignored');

  let server: RunningServer;
  try {
    server = await ServerBuilder.fromCli(options).logger(log).version(VERSION).start();
  } catch (err) {
    log.error(err instanceof StartupFailure ? err.message : `cannot start: ${errorText(err)}`);
    return 1;
  }
  // Written only once serving: tooling waits for this file to know the server is ready. A read-only
  // working directory must not stop a server that is already up.
  try {
    writePidFile(options.pidFile);
  } catch (err) {
    log.error(`cannot write pidfile ${options.pidFile}: ${errorText(err)}`);
  }
  const mb = (bytes: number) => (bytes / 1048576).toFixed(0);
  const reclaim = new HeapReclaim({
    onReclaim: (r) => log.info(`quiet after a burst: RSS ${mb(r.rssBefore)} -> ${mb(r.rssAfter)} MB (${r.pauseMs.toFixed(0)} ms)`),
  });
  log.info(`svc v${VERSION} now taking orders - point your browser to http://localhost:${server.adminAddr().port}/ for help`);

  let stopping = false;
  const exit = async (status: number) => {
    if (stopping) return;
    stopping = true;
    reclaim.stop();
    try {
      await server.shutdown();
    } finally {
      removeOwnPidFile(options.pidFile);
      process.exit(status);
    }
  };
  const shutdown = () => {
    log.info('Adios - see you soon?');
    void exit(0);
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  // A broken admin accept loop (EBADF...) leaves nothing to manage the imposters with: stop, status 1.
  server.wait().catch((err: unknown) => {
    log.error(`admin accept loop failed: ${errorText(err)}`);
    void exit(1);
  });
  return undefined;
}
