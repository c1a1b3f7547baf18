import type { CliOptions } from '../../app/process/index.js';
import { VERSION } from '../../engine/version/index.js';
import { commandUsage, USAGE } from './usage.js';

// The option parser (./options) and the process commands (./process-commands, over app/process) are
// imported once a command needs them, so `--version` and `--help` load two small modules; only `start`
// loads the server.
type Commands = typeof import('./process-commands.js');

const COMMANDS = new Set(['start', 'stop', 'restart', 'save', 'replay', 'healthcheck']);
const VERSION_FLAGS = new Set(['--version', '-v', '-V']);

/** `--help`, or `-h` with no value after it: mountebank's `-h` is `--host` only where a host follows. */
function wantsHelp(argv: string[]): boolean {
  return argv.some((arg, i) => arg === '--help' || (arg === '-h' && (argv[i + 1] === undefined || argv[i + 1].startsWith('-'))));
}

async function run(commands: Commands, command: string, options: CliOptions, args: string[]): Promise<number | undefined> {
  switch (command) {
    case 'stop':
      return commands.stopCommand(options);
    case 'restart':
      return commands.restartCommand(options, args);
    case 'save':
      return commands.saveCommand(options);
    case 'replay':
      return commands.replayCommand(options);
    case 'healthcheck':
      return commands.healthcheckCommand(options);
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
  const [commands, { parseCliOptions }, { UsageError }] = await Promise.all([
    import('./process-commands.js'),
    import('./options/index.js'),
    import('../../app/process/index.js'),
  ]);
  let options: CliOptions;
  try {
    options = parseCliOptions(args);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`svc: ${err.message}\n`);
    return 2;
  }
  return run(commands, command, options, args);
}
