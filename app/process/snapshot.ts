import { writeFileDurably } from '../../engine/config/index.js';
import { adminBase, adminCall, describeFailure, type AdminResponse } from './admin-client.js';
import { DEFAULT_SAVEFILE, type CliOptions } from './server-options.js';
import { errorText } from '../../engine/model/index.js';

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

/** Puts back the replayable configuration without proxies (record mode becomes replay mode); a failed call throws. */
export async function replayImposters(admin: AdminTarget): Promise<void> {
  let current: AdminResponse;
  let applied: AdminResponse;
  try {
    current = await adminCall(admin, 'GET', replayablePath(true));
    if (current.status !== 200) throw new Error(`${current.status} ${current.body}`);
    applied = await adminCall(admin, 'PUT', '/imposters', JSON.parse(current.body));
  } catch (err) {
    throw new Error(describeFailure(admin, err));
  }
  if (applied.status !== 200) throw new Error(`${applied.status} ${applied.body}`);
}

/** Resolves when `GET /health` answers 200 within 5 s; throws with the reason otherwise. */
export async function checkHealth(admin: AdminTarget): Promise<void> {
  let response: AdminResponse;
  try {
    response = await adminCall(admin, 'GET', '/health', undefined, 5000);
  } catch (err) {
    throw new Error(describeFailure(admin, err));
  }
  if (response.status !== 200) throw new Error(`${adminBase(admin)}/health answered ${response.status}`);
}
