import { writeFileDurably } from '../../engine/config/index.js';
import { adminBase, adminCall, describeFailure, type AdminResponse } from './admin-client.js';
import { DEFAULT_SAVEFILE, type CliOptions } from './server-options.js';
import { errorText } from '../../engine/model/index.js';

function fail(command: string, message: string): number {
  process.stderr.write(`svc ${command}: ${message}\n`);
  return 1;
}

function replayablePath(removeProxies: boolean): string {
  return `/imposters?replayable=true${removeProxies ? '&removeProxies=true' : ''}`;
}

/** What `saveImposters` needs to reach the admin API. */
export type AdminTarget = Pick<CliOptions, 'host' | 'port' | 'apiKey'>;

/**
 * Writes `GET /imposters?replayable=true` (`removeProxies` honoured) to `target`, atomically; a
 * non-2xx answer, a non-JSON answer or an unreachable server throws and writes nothing.
 */
export async function saveImposters(admin: AdminTarget, target: string = DEFAULT_SAVEFILE, removeProxies = false): Promise<void> {
  let response: AdminResponse;
  try {
    response = await adminCall(admin, 'GET', replayablePath(removeProxies));
  } catch (err) {
    throw new Error(describeFailure(admin, err));
  }
  if (response.status < 200 || response.status > 299) throw new Error(`${response.status} ${response.body}`);
  let imposters: unknown;
  try {
    imposters = JSON.parse(response.body);
  } catch {
    throw new Error('the server answered with something other than JSON; nothing written');
  }
  try {
    writeFileDurably(target, JSON.stringify(imposters, null, 2));
  } catch (err) {
    throw new Error(`cannot write ${target}: ${errorText(err)}`);
  }
}

/** `svc save [savefile]` (or `--savefile`): `saveImposters` to the file (default svc.json). */
export async function saveCommand(options: CliOptions): Promise<number> {
  try {
    await saveImposters(options, options.saveFile ?? options.positionals[0] ?? DEFAULT_SAVEFILE, options.removeProxies);
  } catch (err) {
    return fail('save', errorText(err));
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
