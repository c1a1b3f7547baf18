import { parseCliOptions, UsageError, type CliOptions } from './options.js';
import { USAGE } from './usage.js';
import { VERSION } from './version.js';

// Process helpers the embedding API (engine/embed) hands on. Only the commands (imported on demand)
// use engine/embed, so the two never form a static import cycle.
export { VERSION };
export type { CliOptions };
export { applyRcfileDefaults, DEFAULT_PIDFILE } from './options.js';
export { stopServer, stopForRestart } from './process-control.js';
export { saveImposters, type AdminTarget } from './snapshot.js';

const COMMANDS = new Set(['start', 'stop', 'restart', 'save', 'replay', 'healthcheck']);

async function run(command: string, options: CliOptions, args: string[]): Promise<number | undefined> {
  switch (command) {
    case 'stop':
      return (await import('./process-control.js')).stopCommand(options);
    case 'restart':
      return (await import('./process-control.js')).restartCommand(options, args);
    case 'save':
      return (await import('./snapshot.js')).saveCommand(options);
    case 'replay':
      return (await import('./snapshot.js')).replayCommand(options);
    case 'healthcheck':
      return (await import('./snapshot.js')).healthcheckCommand(options);
    default:
      if (options.validate !== undefined) return (await import('./validate.js')).validateCommand(options, options.validate);
      return (await import('./start.js')).startCommand(options);
  }
}

/**
 * Dispatches `svc <subcommand>` (start when none is named, as mountebank does); returns the exit code,
 * or undefined for a long-running server.
 */
export async function runCli(argv: string[]): Promise<number | undefined> {
  const [first, ...rest] = argv;
  if (first === 'script') {
    const { scriptCommand } = await import('../script/index.js');
    return scriptCommand(rest);
  }
  if (first === 'verify') {
    const { verifyCommand } = await import('../verify/index.js');
    return verifyCommand(rest);
  }
  if (first === '--version' || first === '-v' || first === 'version') {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (first === 'help' || argv.includes('--help')) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (first !== undefined && !first.startsWith('-') && !COMMANDS.has(first)) {
    process.stderr.write(`svc: unknown command '${first}'\n${USAGE}`);
    return 2;
  }
  const command = first !== undefined && COMMANDS.has(first) ? first : 'start';
  const args = command === first ? rest : argv;
  let options: CliOptions;
  try {
    options = parseCliOptions(args);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`svc: ${err.message}\n`);
    return 2;
  }
  return run(command, options, args);
}
