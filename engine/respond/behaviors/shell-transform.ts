import { exec } from 'node:child_process';
import { constants } from 'node:buffer';
import { BehaviorError, type ResponseFields, type StepRunner } from './types.js';

/** mountebank drops the JSON arguments once the command line would reach this length. */
const MAX_COMMAND_LENGTH = 2048;

/** One single-quoted shell word; an apostrophe inside (where mountebank's quoting breaks the command) is escaped. */
function quoted(value: unknown): string {
  return `'${JSON.stringify(value).replace(/'/g, "'\\''")}'`;
}

/**
 * shellTransform: runs the command with the request and response JSON in `MB_REQUEST` /
 * `MB_RESPONSE` (and, while short enough, as two quoted arguments, mountebank's older interface);
 * its stdout, parsed as JSON, is the new response.
 */
export function compileShellTransform(command: string): StepRunner {
  return (response: ResponseFields, ctx) =>
    new Promise((resolve, reject) => {
      const request = ctx.requestJson();
      const env = { ...process.env, MB_REQUEST: JSON.stringify(request), MB_RESPONSE: JSON.stringify(response) };
      let line = `${command} ${quoted(request)} ${quoted(response)}`;
      if (line.length >= MAX_COMMAND_LENGTH) line = command;
      exec(line, { env, maxBuffer: constants.MAX_STRING_LENGTH }, (error, stdout, stderr) => {
        if (error) {
          if (stderr) ctx.log(`shellTransform ${command}: ${stderr}`);
          reject(new BehaviorError('shell_transform_failed', error.message));
          return;
        }
        try {
          resolve(JSON.parse(stdout) as ResponseFields);
        } catch {
          reject(new BehaviorError('shell_transform_failed', `Shell command returned invalid JSON: '${stdout}'`));
        }
      });
    });
}
