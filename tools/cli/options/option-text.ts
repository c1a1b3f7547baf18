import { isLogLevel } from '../../../engine/log/index.js';
import { UsageError, errorText } from '../../../engine/model/index.js';
import { parseListenAddress } from '../../../engine/transport/index.js';
import { parseWorkers } from '../../../engine/runtime/index.js';
import { fleetUrlProblem } from '../../../engine/fleet/index.js';
import type { CliOptions } from '../../../app/process/index.js';

/** An option a flag, an environment variable or an rcfile key can set. */
export type OptionKey = Exclude<keyof CliOptions, 'positionals' | 'warnings'>;
/** The options one source (flags, environment, rcfile) sets; sources are layered by precedence. */
export type OptionLayer = Partial<Pick<CliOptions, OptionKey>>;

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

/** Sets one option from its text form (flags, environment, rcfile strings); `source` names it in errors. */
export function setFromText(layer: OptionLayer, key: OptionKey, value: string, source: string): void {
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
