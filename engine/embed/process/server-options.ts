import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { isLogLevel, parseLogFilter, type LogLevel } from '../../log/index.js';
import { isObject } from '../../model/index.js';
import { parseListenAddress } from '../../transport/index.js';

/** Options of every `svc` subcommand (SPEC §1, plus the mountebank flags CI scripts pass). */
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
  runtime: 'single' | 'per-core';
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

export class UsageError extends Error {}

export const DEFAULT_PIDFILE = 'svc.pid';
export const DEFAULT_SAVEFILE = 'svc.json';

type Key = Exclude<keyof CliOptions, 'positionals' | 'warnings'>;
type Layer = Partial<Pick<CliOptions, Key>>;

/** Flags that take a value, by every spelling accepted (mountebank's yargs aliases included). */
const VALUE_FLAGS: Record<string, Key | 'ignored'> = {
  '--port': 'port', '-p': 'port',
  '--host': 'host', '-h': 'host',
  '--loglevel': 'logLevel', '--logLevel': 'logLevel',
  '--logfile': 'logFile',
  '--pidfile': 'pidFile',
  '--ipWhitelist': 'ipWhitelist', '-w': 'ipWhitelist',
  '--configfile': 'configFile', '--imposters': 'configFile',
  '--api-key': 'apiKey', '--apikey': 'apiKey',
  '--datadir': 'datadir',
  '--metrics-port': 'metricsPort',
  '--rcfile': 'rcFile',
  '--scripts-dir': 'scriptsDir',
  '--front-door': 'frontDoor',
  '--runtime': 'runtime',
  '--validate': 'validate',
  '--savefile': 'saveFile',
  '--protofile': 'ignored',
  '--impostersRepository': 'ignored',
  '--origin': 'ignored', '-o': 'ignored',
  '--formatter': 'ignored',
  '--log': 'ignored',
};

const BOOLEAN_FLAGS: Record<string, Key | 'ignored'> = {
  '--allowInjection': 'allowInjection', '-i': 'allowInjection',
  '--localOnly': 'localOnly', '-l': 'localOnly',
  '--no-parse': 'noParse', '--noParse': 'noParse',
  '--nologfile': 'noLogFile',
  '--require-admin-auth': 'requireAdminAuth',
  '--removeProxies': 'removeProxies', '-r': 'removeProxies',
  '--mock': 'mock', '-m': 'mock',
  '--debug': 'debug', '-d': 'debug',
};

/** rcfile keys (SPEC §1) and the option each one sets. */
const RC_KEYS: Record<string, Key> = {
  port: 'port',
  host: 'host',
  logLevel: 'logLevel', loglevel: 'logLevel',
  allowInjection: 'allowInjection', allow_injection: 'allowInjection',
  localOnly: 'localOnly', local_only: 'localOnly',
  datadir: 'datadir',
  configfile: 'configFile',
};

const TRUTHY = new Set(['1', 'true', 'yes', 'on']);
const FALSY = new Set(['0', 'false', 'no', 'off']);

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
    case 'frontDoor':
      if (parseListenAddress(value) === undefined) {
        throw new UsageError(`${source} must be [host:]port or :port, got '${value}'`);
      }
      layer.frontDoor = value;
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
    if (arg.startsWith('-') && arg !== '-') parsed.warnings.push(`unknown option ${arg} ignored`);
    else parsed.positionals.push(arg);
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
      warnings.push(`${(err as Error).message}; ${name} ignored`);
    }
  };
  read('MB_PORT', 'port');
  read('MB_ALLOW_INJECTION', 'allowInjection');
  read('SVC_METRICS_PORT', 'metricsPort');
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
    warnings.push(`cannot read rcfile ${path}: ${code ?? (err as Error).message}; ignored`);
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
    noLogFile: false,
    pidFile: DEFAULT_PIDFILE,
    localOnly: false,
    ipWhitelist: ['*'],
    noParse: false,
    requireAdminAuth: false,
    runtime: 'single',
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
 * rcfile, then defaults. Unknown flags are warned, never fatal (mountebank command lines must work).
 */
export function parseCliOptions(argv: string[], env: NodeJS.ProcessEnv = process.env): CliOptions {
  const flags = parseFlags(argv);
  const warnings = [...flags.warnings];
  const fromEnv = envLayer(env, warnings);
  const rcFile = flags.layer.rcFile;
  const fromRc = rcFile === undefined ? {} : rcLayer(rcFile, warnings);
  const options: CliOptions = {
    ...defaults(), ...fromRc, ...fromEnv, ...flags.layer, positionals: flags.positionals, warnings,
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
