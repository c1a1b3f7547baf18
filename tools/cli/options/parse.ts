import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError } from '../../../engine/model/index.js';
import { defaultCliOptions, type CliOptions } from '../../../app/process/index.js';
import { parseFlags } from './flags.js';
import { envLayer } from './environment.js';
import { rcLayer } from './rcfile.js';

/**
 * Parses a subcommand's arguments. Precedence: explicit flags, then environment variables, then the
 * rcfile, then defaults. mountebank flags svc does not implement are warned and ignored (mountebank
 * command lines must work); any other unknown flag is a UsageError naming it.
 */
export function parseCliOptions(argv: string[], env: NodeJS.ProcessEnv = process.env): CliOptions {
  const flags = parseFlags(argv);
  const warnings = [...flags.warnings];
  const fromEnv = envLayer(env, warnings);
  const rcFile = flags.layer.rcFile;
  const fromRc = rcFile === undefined ? {} : rcLayer(rcFile, warnings);
  const options: CliOptions = {
    ...defaultCliOptions(),
    ...fromRc,
    ...fromEnv,
    ...flags.layer,
    positionals: flags.positionals,
    warnings,
  };
  if (options.apiKey !== undefined && options.apiKey.trim() === '') throw new UsageError('--api-key must not be blank');
  if (options.scriptsDir !== undefined) {
    options.scriptsDir = resolve(options.scriptsDir);
    if (!statSync(options.scriptsDir, { throwIfNoEntry: false })?.isDirectory()) {
      throw new UsageError(`--scripts-dir ${options.scriptsDir} is not a directory`);
    }
  }
  return options;
}
