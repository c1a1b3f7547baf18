import type { LogLevel } from '../../engine/log/index.js';

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

/**
 * Every option at its default, as `svc start` with no flags, environment or rcfile has it: embedding hosts
 * spread their own settings over it (`{ ...defaultCliOptions(), port: 0 }`); the CLI's parser (tools/cli)
 * layers rcfile, environment and flags over it.
 */
export function defaultCliOptions(): CliOptions {
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
    positionals: [],
    warnings: [],
  };
}
