import { isLogLevel, type LogLevel } from '../../engine/log/index.js';

/** Options of `svc start` (SPEC §1, plus the mountebank flags CI scripts pass). */
export interface StartOptions {
  port: number;
  host?: string;
  allowInjection: boolean;
  logLevel: LogLevel;
  logFile?: string;
  pidFile?: string;
  localOnly: boolean;
  ipWhitelist: string[];
  configFile?: string;
  noParse: boolean;
  apiKey?: string;
  datadir?: string;
  metricsPort?: number;
  requireAdminAuth: boolean;
  warnings: string[];
}

const TRUTHY = new Set(['1', 'true', 'yes', 'on']);

/** Flags that take a value, by every spelling accepted. */
const VALUE_FLAGS: Record<string, keyof StartOptions | 'ignoredValue'> = {
  '--port': 'port',
  '--host': 'host',
  '--loglevel': 'logLevel',
  '--logfile': 'logFile',
  '--pidfile': 'pidFile',
  '--ipWhitelist': 'ipWhitelist',
  '--configfile': 'configFile',
  '--api-key': 'apiKey',
  '--apikey': 'apiKey',
  '--datadir': 'datadir',
  '--metrics-port': 'metricsPort',
  '--protofile': 'ignoredValue',
  '--impostersRepository': 'ignoredValue',
  '--origin': 'ignoredValue',
  '--front-door': 'ignoredValue',
  '--scripts-dir': 'ignoredValue',
  '--rcfile': 'ignoredValue',
  '--runtime': 'ignoredValue',
};

const BOOLEAN_FLAGS: Record<string, keyof StartOptions | 'ignored'> = {
  '--allowInjection': 'allowInjection',
  '--localOnly': 'localOnly',
  '--no-parse': 'noParse',
  '--noParse': 'noParse',
  '--require-admin-auth': 'requireAdminAuth',
  '--nologfile': 'ignored',
  '--mock': 'ignored',
  '--debug': 'ignored',
};

export class UsageError extends Error {}

function defaults(env: NodeJS.ProcessEnv): StartOptions {
  const envPort = env.MB_PORT !== undefined ? Number(env.MB_PORT) : undefined;
  const metrics = env.SVC_METRICS_PORT !== undefined ? Number(env.SVC_METRICS_PORT) : undefined;
  return {
    port: envPort !== undefined && Number.isInteger(envPort) ? envPort : 2525,
    allowInjection: TRUTHY.has(String(env.MB_ALLOW_INJECTION ?? '').toLowerCase()),
    logLevel: 'info',
    localOnly: false,
    ipWhitelist: ['*'],
    noParse: false,
    apiKey: env.MB_APIKEY,
    metricsPort: metrics,
    requireAdminAuth: false,
    warnings: [],
  };
}

function parsePort(value: string, flag: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new UsageError(`${flag} must be a port number, got '${value}'`);
  return port;
}

function assign(options: StartOptions, key: keyof StartOptions, value: string, flag: string): void {
  switch (key) {
    case 'port':
    case 'metricsPort':
      options[key] = parsePort(value, flag);
      return;
    case 'logLevel':
      if (!isLogLevel(value)) throw new UsageError(`${flag} must be one of debug, info, warn, error`);
      options.logLevel = value;
      return;
    case 'ipWhitelist':
      options.ipWhitelist = value.split('|');
      return;
    case 'host':
    case 'logFile':
    case 'pidFile':
    case 'configFile':
    case 'apiKey':
    case 'datadir':
      options[key] = value;
      return;
    default:
      throw new UsageError(`unexpected option ${flag}`);
  }
}

/** Parses `svc start` arguments; unknown flags are warned, never fatal (mountebank command lines must work). */
export function parseStartOptions(argv: string[], env: NodeJS.ProcessEnv = process.env): StartOptions {
  const options = defaults(env);
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    const eq = arg.indexOf('=');
    const flag = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    const inline = arg.startsWith('--') && eq > 0 ? arg.slice(eq + 1) : undefined;
    if (flag in VALUE_FLAGS) {
      const value = inline ?? argv[++i];
      if (value === undefined) throw new UsageError(`${flag} needs a value`);
      const key = VALUE_FLAGS[flag];
      if (key === 'ignoredValue') options.warnings.push(`option ${flag} is not supported yet and was ignored`);
      else assign(options, key, value, flag);
      continue;
    }
    if (flag in BOOLEAN_FLAGS) {
      const key = BOOLEAN_FLAGS[flag];
      const on = inline === undefined || TRUTHY.has(inline.toLowerCase());
      if (key !== 'ignored') (options as unknown as Record<string, unknown>)[key] = on;
      continue;
    }
    options.warnings.push(`unknown option ${arg} ignored`);
  }
  if (options.apiKey !== undefined && options.apiKey.trim() === '') throw new UsageError('--api-key must not be blank');
  return options;
}
