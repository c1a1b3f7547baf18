/** Headers of the docs/errors.md envelopes the transport writes on its own (bodies: model's errorBody). */
export const JSON_HEADERS: Array<[string, string]> = [['Content-Type', 'application/json']];
