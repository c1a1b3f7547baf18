import { parseCliOptions, UsageError, type CliOptions } from './options.js';
import { commandUsage, USAGE } from './usage.js';
import { VERSION } from './version.js';

// Process helpers the embedding API (engine/embed) hands on. Only the commands (imported on demand)
// use engine/embed, so the two never form a static import cycle.
export { VERSION };
export type { CliOptions };
export { applyRcfileDefaults, DEFAULT_PIDFILE } from './options.js';
export { stopServer, stopForRestart } from './process-control.js';
export { saveImposters, type AdminTarget } from './snapshot.js';

const COMMANDS = new Set(['start', 'stop', 'restart', 'save', 'replay', 'healthcheck']);
const VERSION_FLAGS = new Set(['--version', '-v', '-V']);

/** `--help`, or `-h` with no value after it: mountebank's `-h` is `--host` only where a host follows. */
function wantsHelp(argv: string[]): boolean {
  return argv.some((arg, i) => arg === '--help' || (arg === '-h' && (argv[i + 1] === undefined || argv[i + 1].startsWith('-'))));
}

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
  if ((first === 'script' || first === 'verify') && (rest.includes('--help') || rest.includes('-h'))) {
    process.stdout.write(commandUsage(first) ?? USAGE);
    return 0;
  }
  if (first === 'script') {
    const { scriptCommand } = await import('../script/index.js');
    return scriptCommand(rest);
  }
  if (first === 'verify') {
    const { verifyCommand } = await import('../verify/index.js');
    return verifyCommand(rest);
  }
  if (first === 'version' || argv.some((arg) => VERSION_FLAGS.has(arg))) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (first === 'help') {
    const topic = rest[0];
    const text = topic === undefined ? USAGE : commandUsage(topic);
    if (text === undefined) {
      process.stderr.write(`svc: no help for '${topic}': not a command\n${USAGE}`);
      return 2;
    }
    process.stdout.write(text);
    return 0;
  }
  if (wantsHelp(argv)) {
    process.stdout.write((first !== undefined && COMMANDS.has(first) ? commandUsage(first) : undefined) ?? USAGE);
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
