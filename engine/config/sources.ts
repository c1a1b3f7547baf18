import { errorEntries, errorEntry, isObject, isSvcError, StartupFailure, SvcError, type ErrorEntry, errorText } from '../model/index.js';
import type { ApplyReport, ImposterManager } from '../manager/index.js';
import { readConfigFile, ConfigFileError } from './config-file.js';
import { scanDataDir, type DataDirStore, type SkippedFile } from './datadir.js';
import { dirname } from 'node:path';
import type { ScriptBase } from '../script/svc/index.js';

export interface ConfigSourceOptions {
  configFile?: string;
  noParse: boolean;
  /** The data directory store (present with `--datadir`). */
  store?: DataDirStore;
  /** The wrapper's `routes` block: validated with the imposters before anything changes, applied after them. */
  routes?: RouteTableTarget;
}

/** Where a config file's route table goes (the front door); absent, `routes` is read and not checked. */
export interface RouteTableTarget {
  /** Throws an SvcError naming the route when the table is invalid; otherwise returns the step that installs it. */
  prepare(routes: unknown): () => void;
}

export interface StartupSummary {
  report: ApplyReport;
  fromConfigFile: number;
  fromDataDir: number;
  /** Data-directory files left alone (misnamed, port-less, unreadable, invalid). */
  skipped: SkippedFile[];
}

interface Candidate {
  body: unknown;
  origin: string;
  port: number;
}

interface LoadedSources {
  config: Candidate[];
  dataDir: Candidate[];
  skipped: SkippedFile[];
  routes?: unknown;
}

function portOf(body: unknown): number {
  return isObject(body) && typeof body.port === 'number' ? body.port : 0;
}

/** docs/scripts.md: `file:` scripts of file-loaded imposters resolve against their file's directory. */
function scriptBaseOf(candidate: Candidate): ScriptBase {
  return { dir: dirname(candidate.origin), confined: false };
}

function describe(candidate: Candidate): string {
  return candidate.port === 0 ? `${candidate.origin}: imposter without port` : `${candidate.origin}: imposter on port ${candidate.port}`;
}

function problems(err: unknown): ErrorEntry[] {
  if (isSvcError(err)) return err.entries;
  return [errorEntries.badData(errorText(err))];
}

/** `stubs[1].predicates[0]: message`, or the message alone when the entry has no path. */
function withPath(entry: ErrorEntry): string {
  return entry.path === undefined ? entry.message : `${entry.path}: ${entry.message}`;
}

function sourceError(entries: ErrorEntry[]): SvcError {
  return new SvcError(500, entries);
}

/**
 * The startup sources (`--configfile` and/or `--datadir`) read as one set: validated in full before
 * anything changes, then applied through the manager's reconcile (so a reload keeps unchanged imposters
 * with their recorded requests and response cycles).
 */
export class ConfigSources {
  /** Reloads run one at a time: each brackets the data directory store around its apply. */
  private reloading: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly manager: ImposterManager,
    private readonly options: ConfigSourceOptions,
  ) {}

  get hasSource(): boolean {
    return this.options.configFile !== undefined || this.options.store !== undefined;
  }

  private read(): LoadedSources {
    const loaded: LoadedSources = { config: [], dataDir: [], skipped: [] };
    const { configFile, store } = this.options;
    if (configFile !== undefined) {
      const doc = readConfigFile(configFile, { noParse: this.options.noParse });
      loaded.config = doc.imposters.map((body) => ({ body, origin: configFile, port: portOf(body) }));
      loaded.routes = doc.routes;
    }
    if (store) {
      const scan = scanDataDir(store.dir);
      loaded.dataDir = scan.imposters.map((entry) => ({ body: entry.body, origin: entry.file, port: entry.port }));
      loaded.skipped = scan.skipped;
    }
    return loaded;
  }

  /** The route table's install step; its problems are prefixed with the config file. */
  private prepareRoutes(routes: unknown): { install: () => void; invalid: ErrorEntry[] } {
    try {
      return { install: this.options.routes?.prepare(routes) ?? (() => undefined), invalid: [] };
    } catch (err) {
      const invalid = problems(err).map((entry) => ({ ...entry, message: `${this.options.configFile}: ${entry.message}` }));
      return { install: () => undefined, invalid };
    }
  }

  /** Validation errors of one candidate, as the manager reports them. */
  private problemsOf(candidate: Candidate): ErrorEntry[] {
    try {
      this.manager.parse(candidate.body, { generateIds: false, scriptBase: scriptBaseOf(candidate) });
      return [];
    } catch (err) {
      return problems(err);
    }
  }

  /** The same errors with the source, port and JSON path in every message. */
  private invalid(candidate: Candidate): ErrorEntry[] {
    return this.problemsOf(candidate).map((entry) => ({ ...entry, message: `${describe(candidate)}: ${withPath(entry)}` }));
  }

  private duplicates(candidates: Candidate[]): ErrorEntry[] {
    const seen = new Map<number, Candidate>();
    const found: ErrorEntry[] = [];
    for (const candidate of candidates) {
      if (candidate.port === 0) continue;
      const first = seen.get(candidate.port);
      if (first) {
        found.push(errorEntries.badData(`duplicate port ${candidate.port} in ${first.origin} and ${candidate.origin}`));
      } else {
        seen.set(candidate.port, candidate);
      }
    }
    return found;
  }

  private async apply(config: Candidate[], dataDir: Candidate[]): Promise<ApplyReport> {
    const { store } = this.options;
    const configPorts = config.map((c) => c.port).filter((port) => port !== 0);
    store?.beginLoad(configPorts);
    let created: number[] = [];
    try {
      const all = [...config, ...dataDir];
      const { report } = await this.manager.applyAll(
        all.map((c) => c.body),
        { generateIds: false, scriptBases: all.map(scriptBaseOf), partial: true, fromSources: true },
      );
      created = report.created;
      return report;
    } finally {
      store?.endLoad(
        created,
        dataDir.map((c) => c.port),
      );
    }
  }

  /**
   * Startup: a bad config file or config imposter aborts (naming file and port); a bad data-directory
   * file is skipped and listed in the summary, never modified.
   */
  async loadAtStartup(): Promise<StartupSummary> {
    let loaded: LoadedSources;
    try {
      loaded = this.read();
    } catch (err) {
      throw new StartupFailure(err instanceof ConfigFileError ? err.message : `cannot read the data directory: ${errorText(err)}`);
    }
    const routes = this.prepareRoutes(loaded.routes);
    const configProblems = [...loaded.config.flatMap((c) => this.invalid(c)), ...routes.invalid];
    if (configProblems.length > 0) throw new StartupFailure(configProblems.map((p) => p.message).join('\n'));
    // At startup the config file wins a port both sources declare, as mountebank's --configfile
    // overwrites what its data directory restored; the persisted file is left as it is.
    const configPorts = new Set(loaded.config.map((c) => c.port).filter((port) => port !== 0));
    const dataDir = loaded.dataDir.filter((candidate) => {
      if (configPorts.has(candidate.port)) {
        loaded.skipped.push({ file: candidate.origin, reason: `port ${candidate.port} is also in ${this.options.configFile}, which wins` });
        return false;
      }
      const found = this.problemsOf(candidate);
      if (found.length > 0) loaded.skipped.push({ file: candidate.origin, reason: found.map(withPath).join('; ') });
      return found.length === 0;
    });
    this.options.store?.leaveAlone(loaded.skipped.map((s) => s.file));
    const clashes = this.duplicates([...loaded.config, ...dataDir]);
    if (clashes.length > 0) throw new StartupFailure(clashes.map((p) => p.message).join('\n'));
    const report = await this.apply(loaded.config, dataDir);
    // A persisted imposter that cannot start (its port taken meanwhile) must not keep the server down.
    const persisted = new Map(dataDir.map((c) => [c.port, c.origin]));
    const fatal = report.failed.filter((f) => !persisted.has(f.port));
    if (fatal.length > 0) {
      throw new StartupFailure(fatal.map((f) => `imposter on port ${f.port} failed to start: ${f.error}`).join('\n'));
    }
    for (const failure of report.failed) {
      loaded.skipped.push({ file: persisted.get(failure.port)!, reason: `failed to start: ${failure.error}` });
    }
    routes.install();
    return {
      report,
      fromConfigFile: loaded.config.length,
      fromDataDir: dataDir.length - (report.failed.length - fatal.length),
      skipped: loaded.skipped.sort((a, b) => a.file.localeCompare(b.file)),
    };
  }

  /**
   * `POST /admin/reload`: nothing changes unless every source reads and validates (500 for an unreadable
   * config file or a bad data-directory file, 400 for invalid imposters, `invalid injection` included).
   */
  reload(): Promise<ApplyReport> {
    const run = this.reloading.then(
      () => this.reloadNow(),
      () => this.reloadNow(),
    );
    this.reloading = run.catch(() => undefined);
    return run;
  }

  private async reloadNow(): Promise<ApplyReport> {
    let loaded: LoadedSources;
    try {
      loaded = this.read();
    } catch (err) {
      throw sourceError([errorEntry('config_source_unreadable', errorText(err))]);
    }
    this.options.store?.leaveAlone(loaded.skipped.map((s) => s.file));
    if (loaded.skipped.length > 0) {
      throw sourceError(loaded.skipped.map((s) => errorEntry('bad_datadir_file', `${s.file}: ${s.reason}`, { file: s.file })));
    }
    const all = [...loaded.config, ...loaded.dataDir];
    const routes = this.prepareRoutes(loaded.routes);
    const invalid = [...all.flatMap((c) => this.invalid(c)), ...this.duplicates(all), ...routes.invalid];
    if (invalid.length > 0) throw new SvcError(400, invalid);
    const report = await this.apply(loaded.config, loaded.dataDir);
    // The table is swapped whole once the imposters are applied, even when some failed to bind.
    routes.install();
    return report;
  }
}
