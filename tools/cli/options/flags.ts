import { UsageError } from '../../../engine/model/index.js';
import { setFromText, type OptionKey, type OptionLayer } from './option-text.js';

/** Flags that take a value, by every spelling accepted (mountebank's yargs aliases included). */
const VALUE_FLAGS: Record<string, OptionKey | 'ignored'> = {
  '--port': 'port',
  '-p': 'port',
  '--host': 'host',
  '-h': 'host',
  '--loglevel': 'logLevel',
  '--logLevel': 'logLevel',
  '--logfile': 'logFile',
  '--pidfile': 'pidFile',
  '--ipWhitelist': 'ipWhitelist',
  '--ip-whitelist': 'ipWhitelist',
  '-w': 'ipWhitelist',
  '--configfile': 'configFile',
  '--imposters': 'configFile',
  '--api-key': 'apiKey',
  '--apikey': 'apiKey',
  '--datadir': 'datadir',
  '--metrics-port': 'metricsPort',
  '--rcfile': 'rcFile',
  '--scripts-dir': 'scriptsDir',
  '--front-door': 'frontDoor',
  '--runtime': 'runtime',
  '--workers': 'workers',
  '--keep-alive-timeout': 'keepAliveTimeout',
  '--headers-timeout': 'headersTimeout',
  '--request-timeout': 'requestTimeout',
  '--max-buffered-body-bytes': 'maxBufferedBodyBytes',
  '--compat': 'compat',
  '--validate': 'validate',
  '--fleet': 'fleet',
  '--fleet-prefix': 'fleetPrefix',
  '--node-id': 'nodeId',
  '--savefile': 'saveFile',
  '--protofile': 'ignored',
  '--impostersRepository': 'ignored',
  '--imposters-repository': 'ignored',
  '--origin': 'ignored',
  '-o': 'ignored',
  '--formatter': 'ignored',
  '--log': 'ignored',
};

const BOOLEAN_FLAGS: Record<string, OptionKey | 'ignored'> = {
  '--allowInjection': 'allowInjection',
  '--allow-injection': 'allowInjection',
  '-i': 'allowInjection',
  '--localOnly': 'localOnly',
  '--local-only': 'localOnly',
  '-l': 'localOnly',
  '--no-parse': 'noParse',
  '--noParse': 'noParse',
  '--nologfile': 'noLogFile',
  '--require-admin-auth': 'requireAdminAuth',
  '--removeProxies': 'removeProxies',
  '--remove-proxies': 'removeProxies',
  '-r': 'removeProxies',
  '--mock': 'mock',
  '-m': 'mock',
  '--debug': 'debug',
  '-d': 'debug',
};

/** Every option spelling, for "did you mean" (help and version flags included). */
export const KNOWN_FLAGS = [...Object.keys(VALUE_FLAGS), ...Object.keys(BOOLEAN_FLAGS), '--help', '--version'];

/** Edit distance (insertions, deletions, substitutions, adjacent swaps), for near-miss suggestions. */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j += 1) d[0][j] = j;
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** `unknown option --x`, with the closest known long option when it is a near miss (case ignored). */
export function unknownOption(flag: string): string {
  const wanted = flag.toLowerCase();
  let best: { flag: string; cost: number } | undefined;
  for (const known of KNOWN_FLAGS) {
    if (!known.startsWith('--')) continue;
    const cost = distance(wanted, known.toLowerCase());
    if (!best || cost < best.cost) best = { flag: known, cost };
  }
  const near = best !== undefined && best.cost <= Math.max(2, Math.floor(wanted.length / 4));
  return `unknown option ${flag}${near ? ` (did you mean ${best!.flag}?)` : ''}; see svc --help`;
}

export interface FlagParse {
  layer: OptionLayer;
  positionals: string[];
  warnings: string[];
}

/** The command line's layer: `--flag value`, `--flag=value`, booleans, mountebank's short aliases. */
export function parseFlags(argv: string[]): FlagParse {
  const parsed: FlagParse = { layer: {}, positionals: [], warnings: [] };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    const eq = arg.indexOf('=');
    const flag = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    const inline = arg.startsWith('--') && eq > 0 ? arg.slice(eq + 1) : undefined;
    if (flag in VALUE_FLAGS) {
      const value = inline ?? argv[++i];
      if (value === undefined) throw new UsageError(`${flag} needs a value`);
      const key = VALUE_FLAGS[flag];
      if (key === 'ignored') parsed.warnings.push(`option ${flag} is not supported and was ignored`);
      else setFromText(parsed.layer, key, value, flag);
      continue;
    }
    if (flag in BOOLEAN_FLAGS) {
      const key = BOOLEAN_FLAGS[flag];
      if (key !== 'ignored') setFromText(parsed.layer, key, inline ?? 'true', flag);
      continue;
    }
    // A typo must not start a server that silently serves nothing (`--confgfile x.json`).
    if (arg.startsWith('-') && arg !== '-') throw new UsageError(unknownOption(flag));
    parsed.positionals.push(arg);
  }
  return parsed;
}
