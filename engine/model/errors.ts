import { ERROR_CATALOGUE, type ErrorSlug } from './error-catalogue.js';
import { SvcFailure } from './failures.js';

/**
 * Errors that reach a client as the docs/errors.md envelope `{errors: [{code, type, message}]}`.
 * `code` keeps mountebank's legacy value where mountebank has one (clients branch on it);
 * `type` is the stable slug. Both come from ERROR_CATALOGUE.
 */
export interface ErrorEntry {
  code: string;
  type: ErrorSlug;
  message: string;
  source?: unknown;
  /** JSON path of the field at fault in the posted document (`stubs[3].predicates[0]`), where known. */
  path?: string;
  [extra: string]: unknown;
}

export class SvcError extends SvcFailure {
  readonly status: number;
  readonly entries: ErrorEntry[];

  constructor(status: number, entries: ErrorEntry[]) {
    super(entries.map((e) => e.message).join('; '));
    this.status = status;
    this.entries = entries;
  }

  envelope(): { errors: ErrorEntry[] } {
    return { errors: this.entries };
  }
}

/** One envelope entry: the slug's catalogue code, then the message, then any extra fields in order. */
export function errorEntry(type: ErrorSlug, message: string, extra: Record<string, unknown> = {}): ErrorEntry {
  return { code: ERROR_CATALOGUE[type].code, type, message, ...extra };
}

/** A one-entry SvcError answered with the slug's catalogue status. */
export function errorOf(type: ErrorSlug, message: string, extra: Record<string, unknown> = {}): SvcError {
  return new SvcError(ERROR_CATALOGUE[type].status, [errorEntry(type, message, extra)]);
}

/** The serialised one-entry envelope, for doors that write bytes themselves (transport, imposter ports). */
export function errorBody(type: ErrorSlug, message: string, extra: Record<string, unknown> = {}): Buffer {
  return Buffer.from(JSON.stringify({ errors: [errorEntry(type, message, extra)] }));
}

/** The catalogue status of a slug. */
export function statusOf(type: ErrorSlug): number {
  return ERROR_CATALOGUE[type].status;
}

function withSource(source: unknown): Record<string, unknown> {
  return source === undefined ? {} : { source };
}

export const errorEntries = {
  badData: (message: string, source?: unknown) => errorEntry('bad_data', message, withSource(source)),
  invalidInjection: (message: string, source?: unknown) => errorEntry('invalid_injection', message, withSource(source)),
};

/** node's listen error for a taken port, which mountebank 2.9.1 answers as the error entry itself. */
export interface ListenFailure {
  code: 'EADDRINUSE';
  errno: number;
  syscall: string;
  address: string;
  port: number;
}

/**
 * The entry as mountebank 2.9.1 writes it, kept beside svc's (not enumerable: never serialised) for
 * `--compat mountebank`; see `mountebankFormOf`.
 */
const MOUNTEBANK_FORM = Symbol('mountebank form');

function withMountebankForm(err: SvcError, form: object | undefined): SvcError {
  if (form !== undefined) Object.defineProperty(err.entries[0]!, MOUNTEBANK_FORM, { value: form, enumerable: false });
  return err;
}

/** The entry mountebank 2.9.1 would answer in place of this one, where it differs beyond `type`/`path`. */
export function mountebankFormOf(entry: ErrorEntry): object | undefined {
  return (entry as { [MOUNTEBANK_FORM]?: object })[MOUNTEBANK_FORM];
}

export const errors = {
  validation: (list: ErrorEntry[]) => new SvcError(400, list),
  badData: (message: string, source?: unknown) => new SvcError(400, [errorEntries.badData(message, source)]),
  invalidJson: (source?: string) => errorOf('invalid_json', 'Unable to parse body as JSON', withSource(source)),
  nestingTooDeep: (path: string, limit: number) => errorOf('nesting_too_deep', `JSON nesting deeper than ${limit} levels at ${path}`, { path }),
  payloadTooLarge: (limit: number) => errorOf('payload_too_large', `Request body exceeds the limit of ${limit} bytes`),
  badRequest: (message: string) => errorOf('bad_request', message),
  noSuchResource: (message: string) => errorOf('no_such_resource', message),
  portInUse: (port: number, listen?: ListenFailure) => withMountebankForm(errorOf('port_in_use', `Port ${port} is already in use`), listen),
  insufficientAccess: () => errorOf('insufficient_access', 'Run svc in superuser mode if you want access'),
  unauthorized: () => errorOf('unauthorized', 'If you set the apiKey option, make sure you are sending the correct apiKey in the Authorization header.'),
  notFoundRoute: (path: string) => errorOf('not_found', `No route for ${path}`),
  serviceUnavailable: (message: string, extra: Record<string, unknown> = {}) => errorOf('service_unavailable', message, extra),
  internal: (message: string) => errorOf('internal_error', message),
};

export function isSvcError(err: unknown): err is SvcError {
  return err instanceof SvcError;
}

/** The message to show or log for anything thrown: an envelope's messages joined, an error's message, else its string form. */
export function errorText(err: unknown): string {
  if (isSvcError(err)) return err.entries.map((e) => e.message).join('; ');
  if (err instanceof Error) return err.message;
  const message = (err as { message?: unknown } | null | undefined)?.message;
  return typeof message === 'string' ? message : String(err);
}
