import type { CliOptions } from '../../engine/embed/process/index.js';
import { VERSION } from '../../engine/version/index.js';
import { USAGE } from './usage.js';

// embed's server options and process helpers (engine/embed/process) are imported once a command needs
// them, so `--version` and `--help` load two small modules; only `start` loads the server.
type Embed = typeof import('../../engine/embed/process/index.js');

const COMMANDS = new Set(['start', 'stop', 'restart', 'save', 'replay', 'healthcheck']);

async function run(embed: Embed, command: string, options: CliOptions, args: string[]): Promise<number | undefined> {
  switch (command) {
    case 'stop':
      return embed.stopCommand(options);
    case 'restart':
      return embed.restartCommand(options, args);
    case 'save':
      return embed.saveCommand(options);
    case 'replay':
      return embed.replayCommand(options);
    case 'healthcheck':
      return embed.healthcheckCommand(options);
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
  const embed = await import('../../engine/embed/process/index.js');
  let options: CliOptions;
  try {
    options = embed.parseCliOptions(args);
  } catch (err) {
    if (!(err instanceof embed.UsageError)) throw err;
    process.stderr.write(`svc: ${err.message}\n`);
    return 2;
  }
  return run(embed, command, options, args);
}
