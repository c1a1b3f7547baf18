import { renameSync, writeFileSync } from 'node:fs';
import { adminBase, adminCall, describeFailure } from './admin-client.js';
import { DEFAULT_SAVEFILE, type CliOptions } from './options.js';

function fail(command: string, message: string): number {
  process.stderr.write(`svc ${command}: ${message}\n`);
  return 1;
}

function replayablePath(removeProxies: boolean): string {
  return `/imposters?replayable=true${removeProxies ? '&removeProxies=true' : ''}`;
}

/**
 * `svc save [savefile]` (or `--savefile`): writes `GET /imposters?replayable=true` (`--removeProxies`
 * honoured); a non-2xx answer is an error and nothing is written.
 */
export async function saveCommand(options: CliOptions): Promise<number> {
  const target = options.saveFile ?? options.positionals[0] ?? DEFAULT_SAVEFILE;
  let response;
  try {
    response = await adminCall(options, 'GET', replayablePath(options.removeProxies));
  } catch (err) {
    return fail('save', describeFailure(options, err));
  }
  if (response.status < 200 || response.status > 299) return fail('save', `${response.status} ${response.body}`);
  let imposters: unknown;
  try {
    imposters = JSON.parse(response.body);
  } catch {
    return fail('save', 'the server answered with something other than JSON; nothing written');
  }
  const temp = `${target}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, JSON.stringify(imposters, null, 2));
    renameSync(temp, target);
  } catch (err) {
    return fail('save', `cannot write ${target}: ${(err as Error).message}`);
  }
  return 0;
}

/** `svc replay`: puts back the replayable configuration without proxies (record mode becomes replay mode). */
export async function replayCommand(options: CliOptions): Promise<number> {
  try {
    const current = await adminCall(options, 'GET', replayablePath(true));
    if (current.status !== 200) return fail('replay', `${current.status} ${current.body}`);
    const applied = await adminCall(options, 'PUT', '/imposters', JSON.parse(current.body));
    if (applied.status !== 200) return fail('replay', `${applied.status} ${applied.body}`);
    return 0;
  } catch (err) {
    return fail('replay', describeFailure(options, err));
  }
}

/** `svc healthcheck`: exit status 0 when `GET /health` answers 200, 1 otherwise (no shell or curl needed). */
export async function healthcheckCommand(options: CliOptions): Promise<number> {
  try {
    const response = await adminCall(options, 'GET', '/health', undefined, 5000);
    if (response.status === 200) return 0;
    return fail('healthcheck', `${adminBase(options)}/health answered ${response.status}`);
  } catch (err) {
    return fail('healthcheck', describeFailure(options, err));
  }
}
