/** SPEC §7 error envelope bodies the transport writes on its own (parse failures, size caps, crashes). */
export function errorEnvelope(status: number, type: string, message: string): Buffer {
  return Buffer.from(JSON.stringify({ errors: [{ code: String(status), type, message }] }));
}

export const JSON_HEADERS: Array<[string, string]> = [['Content-Type', 'application/json']];
