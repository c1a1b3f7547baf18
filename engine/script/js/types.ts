/** A request as scripts see it (`config.request`): mountebank's simplified request as plain JSON (model's plainRequest). */
export type ScriptRequest = Record<string, unknown>;

/** A response as scripts see and return it (mountebank's `{statusCode, headers, body, _mode}`). */
export type ScriptResponse = Record<string, unknown>;
