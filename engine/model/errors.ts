/**
 * Errors that reach a client as the SPEC §7 envelope `{errors: [{code, type, message}]}`.
 * `code` keeps mountebank's legacy value where mountebank has one (clients branch on it);
 * `type` is the stable slug.
 */
export interface ErrorEntry {
  code: string;
  type: string;
  message: string;
  source?: unknown;
  /** JSON path of the field at fault in the posted document (`stubs[3].predicates[0]`), where known. */
  path?: string;
  [extra: string]: unknown;
}

export class SvcError extends Error {
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

function entry(code: string, type: string, message: string, source?: unknown): ErrorEntry {
  return source === undefined ? { code, type, message } : { code, type, message, source };
}

export const errorEntries = {
  badData: (message: string, source?: unknown) => entry('bad data', 'bad_data', message, source),
  invalidInjection: (message: string, source?: unknown) =>
    entry('invalid injection', 'invalid_injection', message, source),
};

export const errors = {
  validation: (list: ErrorEntry[]) => new SvcError(400, list),
  badData: (message: string, source?: unknown) => new SvcError(400, [errorEntries.badData(message, source)]),
  invalidJson: (source?: string) =>
    new SvcError(400, [entry('invalid JSON', 'invalid_json', 'Unable to parse body as JSON', source)]),
  nestingTooDeep: (path: string, limit: number) =>
    new SvcError(400, [{ ...entry('bad data', 'nesting_too_deep', `JSON nesting deeper than ${limit} levels at ${path}`), path }]),
  payloadTooLarge: (limit: number) =>
    new SvcError(413, [entry('413', 'payload_too_large', `Request body exceeds the limit of ${limit} bytes`)]),
  badRequest: (message: string) => new SvcError(400, [entry('400', 'bad_request', message)]),
  noSuchResource: (message: string) => new SvcError(404, [entry('no such resource', 'no_such_resource', message)]),
  portInUse: (port: number) =>
    new SvcError(400, [entry('resource conflict', 'port_in_use', `Port ${port} is already in use`)]),
  insufficientAccess: () =>
    new SvcError(403, [entry('insufficient access', 'insufficient_access', 'Run svc in superuser mode if you want access')]),
  unauthorized: () =>
    new SvcError(401, [entry('unauthorized', 'unauthorized', 'If you set the apiKey option, make sure you are sending the correct apiKey in the Authorization header.')]),
  notFoundRoute: (path: string) => new SvcError(404, [entry('404', 'not_found', `No route for ${path}`)]),
  serviceUnavailable: (message: string, extra: Record<string, unknown> = {}) =>
    new SvcError(503, [{ ...entry('503', 'service_unavailable', message), ...extra }]),
  internal: (message: string) => new SvcError(500, [entry('500', 'internal_error', message)]),
};

export function isSvcError(err: unknown): err is SvcError {
  return err instanceof SvcError;
}
