import { availableParallelism } from 'node:os';
import { errorText } from '../model/index.js';

export type RuntimeMode = 'single' | 'per-core';

/** `--runtime` / `--workers`: how many engine threads serve imposter traffic (the main thread included). */
export interface RuntimeSettings {
  mode: RuntimeMode;
  workers: number;
}

export function defaultWorkers(): number {
  return availableParallelism();
}

/** `--workers N` text: a positive integer (the main thread counts), else an error naming `source`. */
export function parseWorkers(value: string, source: string): number {
  const count = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(count) || count < 1 || count > 1024) {
    throw new Error(`${source} must be a number of engine threads between 1 and 1024, got '${value}'`);
  }
  return count;
}

export function parseRuntimeMode(value: string, source: string): RuntimeMode {
  if (value !== 'per-core' && value !== 'single') throw new Error(`${source} must be per-core or single, got '${value}'`);
  return value;
}

/**
 * SVC_RUNTIME / SVC_WORKERS, for a manager built without explicit settings (so the whole suite can run
 * per-core whatever way a test builds its server). A bad value is reported and the default kept.
 */
export function runtimeFromEnv(env: NodeJS.ProcessEnv, warn: (message: string) => void): RuntimeSettings {
  const settings: RuntimeSettings = { mode: 'single', workers: defaultWorkers() };
  try {
    if (env.SVC_RUNTIME) settings.mode = parseRuntimeMode(env.SVC_RUNTIME, 'SVC_RUNTIME');
  } catch (err) {
    warn(`${errorText(err)}; ignored`);
  }
  try {
    if (env.SVC_WORKERS) settings.workers = parseWorkers(env.SVC_WORKERS, 'SVC_WORKERS');
  } catch (err) {
    warn(`${errorText(err)}; ignored`);
  }
  return settings;
}
