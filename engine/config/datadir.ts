import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { errors, isObject, jsonNestingPath, MAX_JSON_DEPTH, errorText } from '../model/index.js';
import type { ImposterManager, LifecycleAction, PersistenceHooks } from '../manager/index.js';
import { writeFileDurably } from './durable-file.js';
import type { Logger } from '../log/index.js';
import { jsonErrorLocation } from './json-location.js';

/** One `<port>.json` of the data directory. */
export interface DataDirEntry {
  port: number;
  file: string;
  body: Record<string, unknown>;
}

/** A file left alone: misnamed, port-less, unreadable or (at startup) invalid. */
export interface SkippedFile {
  file: string;
  reason: string;
}

export interface DataDirScan {
  imposters: DataDirEntry[];
  skipped: SkippedFile[];
}

const IMPOSTER_FILE = /^(\d{1,5})\.json$/;
/** Our own temp files (`.<port>.json.<pid>.tmp`); a kill -9 mid-write can leave one behind. */
const TEMP_FILE = /^\.\d{1,5}\.json\.\d+\.tmp$/;

/** Reads every `<port>.json`; anything else is listed as skipped and never touched. */
export function scanDataDir(dir: string): DataDirScan {
  mkdirSync(dir, { recursive: true });
  const scan: DataDirScan = { imposters: [], skipped: [] };
  for (const dirent of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const file = join(dir, dirent.name);
    if (TEMP_FILE.test(dirent.name) && dirent.isFile()) {
      rmSync(file, { force: true });
      continue;
    }
    const named = IMPOSTER_FILE.exec(dirent.name);
    if (!named || !dirent.isFile()) {
      scan.skipped.push({ file, reason: 'not named <port>.json' });
      continue;
    }
    const entry = readEntry(file, Number(named[1]));
    if ('reason' in entry) scan.skipped.push(entry);
    else scan.imposters.push(entry);
  }
  return scan;
}

function readEntry(file: string, namedPort: number): DataDirEntry | SkippedFile {
  let body: unknown;
  let text: string | undefined;
  try {
    text = readFileSync(file, 'utf8');
    const tooDeep = jsonNestingPath(text);
    if (tooDeep !== undefined) return { file, reason: `JSON nesting deeper than ${MAX_JSON_DEPTH} levels at ${tooDeep}` };
    body = JSON.parse(text);
  } catch (err) {
    const at = text === undefined ? '' : ` at ${jsonErrorLocation(text)}`;
    return { file, reason: `not readable as JSON${at} (${errorText(err)})` };
  }
  if (!isObject(body)) return { file, reason: 'not an imposter object' };
  if (body.port === undefined) return { file, reason: 'declares no port' };
  if (body.port !== namedPort) return { file, reason: `declares port ${JSON.stringify(body.port)} but is named ${namedPort}.json` };
  return { port: namedPort, file, body };
}

/**
 * Keeps runtime imposters as `<port>.json`: the manager's persistence hooks. Every write is durable
 * (writeFileDurably) and done inside the admin call, so a call answers success only once its file is on
 * disk; a failed write throws a 503 and the change is refused (not applied, or undone). Config-file imposters
 * are never written, and neither is the set a startup or reload applies (the files are its source).
 */
export class DataDirStore implements PersistenceHooks {
  /** Ports whose imposter came from the config file (and its runtime edits). */
  private readonly configOwned = new Set<number>();
  /** Files the last scan skipped: never written nor removed, even when an imposter takes their port. */
  private untouchable = new Set<string>();

  constructor(
    readonly dir: string,
    private readonly log: Logger,
  ) {
    mkdirSync(dir, { recursive: true });
  }

  fileFor(port: number): string {
    return join(this.dir, `${port}.json`);
  }

  /** Follows the manager's deletions; returns the unsubscribe. */
  attach(manager: ImposterManager): () => void {
    return manager.observe({ onLifecycle: (action, port) => this.onLifecycle(action, port) });
  }

  /** Before the startup/reload sources are applied: `configPorts` belong to the config file. */
  beginLoad(configPorts: Iterable<number>): void {
    this.configOwned.clear();
    for (const port of configPorts) this.configOwned.add(port);
  }

  /** `createdByLoad`: what the apply created; those not from the data directory are auto-assigned config-file imposters. */
  endLoad(createdByLoad: number[], dataDirPorts: Iterable<number>): void {
    const persisted = new Set(dataDirPorts);
    for (const port of createdByLoad) if (!persisted.has(port)) this.configOwned.add(port);
  }

  /** The skipped files of the latest scan. */
  leaveAlone(files: string[]): void {
    this.untouchable = new Set(files);
  }

  /** Manager pre-delete hook: the file goes first; failing to remove it keeps the imposter (503). */
  beforeDelete(port: number): void {
    const file = this.fileFor(port);
    if (this.configOwned.has(port) || this.untouchable.has(file)) return;
    try {
      rmSync(file, { force: true });
    } catch (err) {
      throw errors.serviceUnavailable(`cannot remove ${file}: ${causeOf(err)}`, { port, file });
    }
  }

  /** Manager persistence hook: `document` (its JSON text) written durably as `<port>.json`, or a 503 naming the cause. */
  persist(port: number, document: () => readonly Uint8Array[]): void {
    if (this.configOwned.has(port)) return;
    const target = this.fileFor(port);
    if (this.untouchable.has(target)) {
      this.log.error(`imposter ${port} is not persisted: ${target} was skipped at load and is left untouched`);
      return;
    }
    try {
      writeFileDurably(target, document());
    } catch (err) {
      this.log.error(`cannot persist imposter ${port} to ${target}: ${causeOf(err)}`);
      throw errors.serviceUnavailable(`cannot write ${target}: ${causeOf(err)}; the imposter is left as it was`, { port, file: target });
    }
  }

  private onLifecycle(action: LifecycleAction, port: number | null): void {
    if (action === 'allDeleted') this.configOwned.clear();
    else if (action === 'deleted' && port !== null) this.configOwned.delete(port);
  }
}

/** The error as Node words it: the errno code first (`ENOSPC: no space left on device, open ...`). */
function causeOf(err: unknown): string {
  return errorText(err);
}
