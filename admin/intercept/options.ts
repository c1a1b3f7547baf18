/** `POST /intercept` / `svc_start_intercept` options (docs/intercept.md), validated into `StartOptions`. */
import { isObject } from '../../engine/model/index.js';
import { interceptErrors } from './errors.js';

export type CaSource =
  | { kind: 'paths'; certPath: string; keyPath: string }
  | { kind: 'pem'; certPem: string; keyPem: string }
  | { kind: 'ephemeral'; returnKey: boolean };

export interface StartOptions {
  host: string;
  port: number;
  ca: CaSource;
  /** Seed rules, still unvalidated (the rule store validates them). */
  rules?: unknown;
}

const KEYS = new Set(['host', 'port', 'caCertPath', 'caKeyPath', 'caCertPem', 'caKeyPem', 'returnCaKey', 'rules']);

function optionalString(body: Record<string, unknown>, name: string): string | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value === '') throw interceptErrors.badOptions(`${name} must be a non-empty string`);
  return value;
}

/** Each CA pair is both-or-neither; a pair given by halves is named. */
function pair(body: Record<string, unknown>, cert: string, key: string): [string, string] | undefined {
  const certValue = optionalString(body, cert);
  const keyValue = optionalString(body, key);
  if ((certValue === undefined) !== (keyValue === undefined)) {
    throw interceptErrors.badOptions(`${cert} and ${key} go together: give both or neither`);
  }
  return certValue === undefined ? undefined : [certValue, keyValue!];
}

export function parseStartOptions(body: unknown): StartOptions {
  const options = body ?? {};
  if (!isObject(options)) throw interceptErrors.badOptions('intercept options must be a JSON object');
  for (const key of Object.keys(options)) {
    if (!KEYS.has(key)) throw interceptErrors.badOptions(`unknown intercept option '${key}' (allowed: ${[...KEYS].join(', ')})`);
  }
  const host = optionalString(options, 'host') ?? '127.0.0.1';
  const port = options.port ?? 0;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw interceptErrors.badOptions('port must be an integer from 0 (OS-assigned) to 65535');
  }
  const returnCaKey = options.returnCaKey ?? false;
  if (typeof returnCaKey !== 'boolean') throw interceptErrors.badOptions('returnCaKey must be a boolean');
  const paths = pair(options, 'caCertPath', 'caKeyPath');
  const pems = pair(options, 'caCertPem', 'caKeyPem');
  if (paths && pems) throw interceptErrors.badOptions('give the CA as caCertPath/caKeyPath or as caCertPem/caKeyPem, not both');
  if (returnCaKey && (paths || pems)) throw interceptErrors.badOptions('returnCaKey is only valid with an ephemeral CA (no CA source given)');
  let ca: CaSource;
  if (paths) ca = { kind: 'paths', certPath: paths[0], keyPath: paths[1] };
  else if (pems) ca = { kind: 'pem', certPem: pems[0], keyPem: pems[1] };
  else ca = { kind: 'ephemeral', returnKey: returnCaKey };
  return options.rules === undefined ? { host, port, ca } : { host, port, ca, rules: options.rules };
}
