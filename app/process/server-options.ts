import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { isLogLevel, parseLogFilter, type LogLevel } from '../../engine/log/index.js';
import { isObject, UsageError, errorText } from '../../engine/model/index.js';
import { parseListenAddress } from '../../engine/transport/index.js';
import { parseWorkers } from '../../engine/runtime/index.js';
import { fleetUrlProblem } from '../../engine/fleet/index.js';

/** Options of every `svc` subcommand (docs/cli.md, plus the mountebank flags CI scripts pass). */
export interface CliOptions {
  port: number;
  host?: string;
  allowInjection: boolean;
  /** mountebank's `--mock`: record requests on every imposter. */
  mock: boolean;
  /** mountebank's `--debug`: stubs list the requests they matched (`matches`). */
  debug: boolean;
  logLevel: LogLevel;
  /** `off` in the log filter: nothing on the console. */
  logQuiet: boolean;
  logFile?: string;
  noLogFile: boolean;
  pidFile: string;
  localOnly: boolean;
  ipWhitelist: string[];
  configFile?: string;
  noParse: boolean;
  apiKey?: string;
  datadir?: string;
  metricsPort?: number;
  requireAdminAuth: boolean;
  rcFile?: string;
  scriptsDir?: string;
  frontDoor?: string;
  /** `--runtime` / SVC_RUNTIME; absent when neither was given (a manager then reads SVC_RUNTIME itself). */
  runtime?: 'single' | 'per-core';
  /** `--workers N` / SVC_WORKERS: engine threads under per-core, the main thread included (default: the core count). */
  workers?: number;
  /** Imposter connection timeouts in ms (0: off); mountebank's node:http values when absent. */
  keepAliveTimeout?: number;
  headersTimeout?: number;
  requestTimeout?: number;
  /** Request-body bytes buffered at once across all imposter connections (503 beyond). */
  maxBufferedBodyBytes?: number;
  /** `--compat mountebank` / `SVC_COMPAT`: mountebank 2.9.1's admin behaviour where the spec departs from it. */
  compat?: 'mountebank';
  /** `--fleet redis://HOST:PORT[/DB]` / SVC_FLEET: serve the imposter set shared by every node on that Redis (issue 20). */
  fleet?: string;
  /** `--fleet-prefix`: Redis key prefix of the fleet (default `svc:fleet:`). */
  fleetPrefix?: string;
  /** `--node-id`: this node's id in the fleet (default: host name, then the admin host and port). */
  nodeId?: string;
  /** `--validate <file>`: check a config file instead of serving. */
  validate?: string;
  /** `save`: target file (`--savefile` or the first positional argument). */
  saveFile?: string;
  removeProxies: boolean;
  /** Arguments that are not options (subcommand operands). */
  positionals: string[];
  /** Ignored or unknown options, reported once a logger exists. */
  warnings: string[];
}

export const DEFAULT_PIDFILE = 'svc.pid';
/** As mountebank writes `mb.log`: a detached server (`svc restart`) keeps its log somewhere. */
export const DEFAULT_LOGFILE = 'svc.log';
export const DEFAULT_SAVEFILE = 'svc.json';

type Key = Exclude<keyof CliOptions, 'positionals' | 'warnings'>;
type Layer = Partial<Pick<CliOptions, Key>>;

/** Flags that take a value, by every spelling accepted (mountebank's yargs aliases included). */
const VALUE_FLAGS: Record<string, Key | 'ignored'> = {
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

const BOOLEAN_FLAGS: Record<string, Key | 'ignored'> = {
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

/** rcfile keys (docs/cli.md) and the option each one sets. */
const RC_KEYS: Record<string, Key> = {
  port: 'port',
  host: 'host',
  logLevel: 'logLevel',
  loglevel: 'logLevel',
  allowInjection: 'allowInjection',
  allow_injection: 'allowInjection',
  localOnly: 'localOnly',
  local_only: 'localOnly',
  datadir: 'datadir',
  configfile: 'configFile',
};

const TRUTHY = new Set(['1', 'true', 'yes', 'on']);
const FALSY = new Set(['0', 'false', 'no', 'off']);

function parseMillis(value: string, source: string): number {
  const ms = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(ms)) throw new UsageError(`${source} must be a number of milliseconds (0: off), got '${value}'`);
  return ms;
}

function parsePort(value: string, source: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new UsageError(`${source} must be a port number, got '${value}'`);
  return port;
}

/** Sets one option from its text form (flags, environment, rcfile strings). */
function setFromText(layer: Layer, key: Key, value: string, source: string): void {
  switch (key) {
    case 'port':
    case 'metricsPort':
      layer[key] = parsePort(value, source);
      return;
    case 'keepAliveTimeout':
    case 'headersTimeout':
    case 'requestTimeout':
      layer[key] = parseMillis(value, source);
      return;
    case 'maxBufferedBodyBytes': {
      const bytes = Number(value);
      if (!/^\d+$/.test(value) || !Number.isSafeInteger(bytes) || bytes === 0)
        throw new UsageError(`${source} must be a positive number of bytes, got '${value}'`);
      layer.maxBufferedBodyBytes = bytes;
      return;
    }
    case 'logLevel':
      if (!isLogLevel(value)) throw new UsageError(`${source} must be one of debug, info, warn, error`);
      layer.logLevel = value;
      layer.logQuiet = false;
      return;
    case 'ipWhitelist':
      layer.ipWhitelist = value.split('|');
      return;
    case 'runtime':
      if (value !== 'per-core' && value !== 'single') throw new UsageError(`${source} must be per-core or single, got '${value}'`);
      layer.runtime = value;
      return;
    case 'workers':
      try {
        layer.workers = parseWorkers(value, source);
      } catch (err) {
        throw new UsageError(errorText(err));
      }
      return;
    case 'compat':
      if (value !== 'mountebank') throw new UsageError(`${source} must be mountebank, got '${value}'`);
      layer.compat = value;
      return;
    case 'frontDoor':
      if (parseListenAddress(value) === undefined) {
        throw new UsageError(`${source} must be [host:]port or :port, got '${value}'`);
      }
      layer.frontDoor = value;
      return;
    case 'fleet': {
      const problem = fleetUrlProblem(value);
      if (problem !== undefined) throw new UsageError(`${source} ${problem}, got '${value}'`);
      layer.fleet = value;
      return;
    }
    case 'fleetPrefix':
    case 'nodeId':
      if (value.trim() === '') throw new UsageError(`${source} must not be blank`);
      layer[key] = value;
      return;
    case 'allowInjection':
    case 'mock':
    case 'debug':
    case 'localOnly':
    case 'noParse':
    case 'noLogFile':
    case 'requireAdminAuth':
    case 'removeProxies': {
      const lower = value.toLowerCase();
      if (!TRUTHY.has(lower) && !FALSY.has(lower)) throw new UsageError(`${source} must be true or false, got '${value}'`);
      layer[key] = TRUTHY.has(lower);
      return;
    }
    default:
      layer[key] = value as never;
  }
}

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

interface FlagParse {
  layer: Layer;
  positionals: string[];
  warnings: string[];
}

function parseFlags(argv: string[]): FlagParse {
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

function envLayer(env: NodeJS.ProcessEnv, warnings: string[]): Layer {
  const layer: Layer = {};
  const read = (name: string, key: Key) => {
    const value = env[name];
    if (value === undefined || value === '') return;
    try {
      setFromText(layer, key, value, name);
    } catch (err) {
      warnings.push(`${errorText(err)}; ${name} ignored`);
    }
  };
  read('MB_PORT', 'port');
  read('MB_ALLOW_INJECTION', 'allowInjection');
  read('SVC_METRICS_PORT', 'metricsPort');
  read('SVC_KEEP_ALIVE_TIMEOUT', 'keepAliveTimeout');
  read('SVC_HEADERS_TIMEOUT', 'headersTimeout');
  read('SVC_REQUEST_TIMEOUT', 'requestTimeout');
  read('SVC_MAX_BUFFERED_BODY_BYTES', 'maxBufferedBodyBytes');
  read('SVC_COMPAT', 'compat');
  read('SVC_RUNTIME', 'runtime');
  read('SVC_WORKERS', 'workers');
  // A bad fleet URL must not start a lone node that serves a different set: it fails start-up.
  if (env.SVC_FLEET !== undefined && env.SVC_FLEET !== '') setFromText(layer, 'fleet', env.SVC_FLEET, 'SVC_FLEET');
  if (env.MB_APIKEY !== undefined) layer.apiKey = env.MB_APIKEY;
  const filterName = env.SVC_LOG !== undefined && env.SVC_LOG !== '' ? 'SVC_LOG' : 'RUST_LOG';
  const filter = env[filterName];
  if (filter !== undefined && filter !== '') {
    const level = parseLogFilter(filter);
    if ('error' in level) warnings.push(`${filterName}: ${level.error}; ignored`);
    else {
      layer.logLevel = level.level;
      layer.logQuiet = level.quiet;
    }
  }
  return layer;
}

/**
 * The rcfile (JSON defaults): listed keys only; unknown keys are warned and ignored. A missing or
 * unparseable file is warned and the server starts on its other options, as mountebank's does.
 */
function rcLayer(path: string, warnings: string[]): Layer {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    warnings.push(`cannot read rcfile ${path}: ${code ?? errorText(err)}; ignored`);
    return {};
  }
  if (!isObject(doc)) {
    warnings.push(`rcfile ${path} does not hold a JSON object; ignored`);
    return {};
  }
  const layer: Layer = {};
  for (const [name, value] of Object.entries(doc)) {
    const key = RC_KEYS[name];
    if (!key) {
      warnings.push(`rcfile ${path}: unknown key '${name}' ignored`);
      continue;
    }
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw new UsageError(`rcfile ${path}: '${name}' must be a string, number or boolean`);
    }
    setFromText(layer, key, String(value), `rcfile ${path}: '${name}'`);
  }
  return layer;
}

function defaults(): Omit<CliOptions, 'positionals' | 'warnings'> {
  return {
    port: 2525,
    allowInjection: false,
    mock: false,
    debug: false,
    logLevel: 'info',
    logQuiet: false,
    logFile: DEFAULT_LOGFILE,
    noLogFile: false,
    pidFile: DEFAULT_PIDFILE,
    localOnly: false,
    ipWhitelist: ['*'],
    noParse: false,
    requireAdminAuth: false,
    removeProxies: false,
  };
}

/**
 * For hosts that build CliOptions themselves (parseCliOptions already layers the rcfile): fills each
 * option still at its default from `options.rcFile`, so explicit settings win as on the command line.
 * Unknown keys and an unreadable file are added to `options.warnings`; a bad value throws UsageError.
 */
export function applyRcfileDefaults(options: CliOptions): CliOptions {
  if (options.rcFile === undefined) return options;
  const base = defaults();
  const fromRc = rcLayer(options.rcFile, options.warnings);
  for (const key of Object.keys(fromRc) as Key[]) {
    if (options[key] === base[key]) Object.assign(options, { [key]: fromRc[key] });
  }
  return options;
}

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
    ...defaults(),
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
