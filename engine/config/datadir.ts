import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { errors, isObject, jsonNestingPath, MAX_JSON_DEPTH } from '../model/index.js';
import type { ImposterManager, LifecycleAction } from '../manager/index.js';
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
    return { file, reason: `not readable as JSON${at} (${(err as Error).message})` };
  }
  if (!isObject(body)) return { file, reason: 'not an imposter object' };
  if (body.port === undefined) return { file, reason: 'declares no port' };
  if (body.port !== namedPort) return { file, reason: `declares port ${JSON.stringify(body.port)} but is named ${namedPort}.json` };
  return { port: namedPort, file, body };
}

/**
 * Persists runtime imposters as `<port>.json`, atomically (temp file, fsync, rename, directory fsync),
 * synchronously inside the lifecycle callback so the file is on disk before the admin call answers.
 * Imposters from the config file are never written.
 */
export class DataDirStore {
  /** Ports whose imposter came from the config file (and its runtime edits). */
  private readonly configOwned = new Set<number>();
  /** While sources are applied: their ports are already on disk or config-owned. */
  private loading: Set<number> | undefined;
  /** Ports created while sources were applied; whether they came from the sources is known only after. */
  private createdWhileLoading = new Set<number>();
  private manager: ImposterManager | undefined;
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

  /** Follows the manager's lifecycle; returns the unsubscribe. */
  attach(manager: ImposterManager): () => void {
    this.manager = manager;
    return manager.observe({ onLifecycle: (action, port) => this.onLifecycle(action, port) });
  }

  /**
   * Brackets applying the startup/reload sources: `sourcePorts` need no write (the files are the source,
   * or they belong to the config file).
   */
  beginLoad(sourcePorts: Iterable<number>, configPorts: Iterable<number>): void {
    this.configOwned.clear();
    for (const port of configPorts) this.configOwned.add(port);
    this.loading = new Set(sourcePorts);
    this.createdWhileLoading.clear();
  }

  /**
   * `createdByLoad`: the ports the apply created. Those outside the source ports are auto-assigned
   * config-file imposters; anything else created meanwhile came from a concurrent admin call and is written.
   */
  endLoad(createdByLoad: number[]): void {
    this.loading = undefined;
    const fromLoad = new Set(createdByLoad);
    for (const port of this.createdWhileLoading) {
      if (fromLoad.has(port)) this.configOwned.add(port);
      else this.persist(port);
    }
    this.createdWhileLoading.clear();
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
      throw errors.serviceUnavailable(`cannot remove ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { port, file });
    }
  }

  private onLifecycle(action: LifecycleAction, port: number | null): void {
    if (action === 'allDeleted') {
      this.configOwned.clear();
      return;
    }
    if (port === null) return;
    if (action === 'deleted') {
      this.configOwned.delete(port);
      return;
    }
    if (this.loading) {
      if (this.loading.has(port)) return;
      if (action === 'created') {
        this.createdWhileLoading.add(port);
        return;
      }
    }
    this.persist(port);
  }

  private persist(port: number): void {
    const manager = this.manager;
    if (this.configOwned.has(port) || !manager?.get(port)) return;
    this.write(port, JSON.stringify(manager.render(port, { replayable: true, baseUrl: '' }), null, 2));
  }

  private write(port: number, text: string): void {
    const target = this.fileFor(port);
    if (this.untouchable.has(target)) {
      this.log.error(`imposter ${port} is not persisted: ${target} was skipped at load and is left untouched`);
      return;
    }
    const temp = join(this.dir, `.${port}.json.${process.pid}.tmp`);
    try {
      const fd = openSync(temp, 'w');
      try {
        writeSync(fd, text);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(temp, target);
      syncDirectory(this.dir);
    } catch (err) {
      rmSync(temp, { force: true });
      this.log.error(`cannot persist imposter ${port} to ${target}: ${(err as Error).message}`);
    }
  }
}

/** Makes the rename itself durable; some filesystems refuse to fsync a directory, which is harmless here. */
function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // best effort: the rename is already atomic for readers
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
