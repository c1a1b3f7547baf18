import { STATUS_CODES } from 'node:http';

/** Reason phrase for codes without a registered one, chosen by class (2xx "Success", ...). */
function classPhrase(code: number): string {
  switch (Math.floor(code / 100)) {
    case 1:
      return 'Informational';
    case 2:
      return 'Success';
    case 3:
      return 'Redirection';
    case 4:
      return 'Client Error';
    case 5:
      return 'Server Error';
    default:
      return 'Unknown';
  }
}

export function reasonPhrase(code: number): string {
  return STATUS_CODES[code] ?? classPhrase(code);
}

// Status lines are built once per code: the writer concatenates them on every response.
const statusLines: string[] = [];

/** `HTTP/1.1 <code> <reason>\r\n` for a code in 100..999. */
export function statusLine(code: number): string {
  let line = statusLines[code];
  if (line === undefined) {
    line = `HTTP/1.1 ${code} ${reasonPhrase(code)}\r\n`;
    statusLines[code] = line;
  }
  return line;
}
