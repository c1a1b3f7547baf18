import type { ScriptBase } from '../script/svc/index.js';
import { parseImposter, type ImposterDefinition, type ParseOptions as ConfigParseOptions } from '../validate/index.js';
import type { Imposter } from './imposter.js';
import type { RenderOptions } from './imposter-json.js';
import type { CallOptions, ManagerOptions, ParseOptions, StubEditOptions } from './options.js';

/**
 * What a call may do and how its input is read: the injection gate, stub ids, where `file:` scripts and
 * lookup CSVs resolve, and mountebank compatibility.
 */
export class CallPolicy {
  /** The gate for untrusted calls (admin routes, config files, reload); starts as `options.allowInjection`. */
  injectionAllowed: boolean;

  constructor(private readonly options: Readonly<ManagerOptions>) {
    this.injectionAllowed = options.allowInjection;
  }

  admitsInjection(call: CallOptions): boolean {
    return call.trusted === true || this.injectionAllowed;
  }

  /** Stub ids are generated (docs/imposters.md) unless the caller or mountebank compatibility says not to. */
  generatesIds(requested: boolean | undefined): boolean {
    return requested !== false && this.options.compat !== 'mountebank';
  }

  rendering(render: RenderOptions): RenderOptions {
    return { ...render, compat: this.options.compat };
  }

  /** Lookup CSVs are confined like `file:` scripts: under `--scripts-dir`, for imposters not loaded from a config file. */
  csvRoot(base: ScriptBase | undefined): string | undefined {
    return base === undefined || base.confined ? this.options.scriptsDir : undefined;
  }

  /** How the stubs an edit of `imposter` brings are validated. */
  stubOptions(options: StubEditOptions, imposter: Imposter): ConfigParseOptions {
    return {
      allowInjection: this.admitsInjection(options),
      generateIds: this.generatesIds(options.generateIds),
      scripts: imposter.scriptSettings,
      csvRoot: this.csvRoot(imposter.scriptSettings.base),
    };
  }

  /** Validates an imposter config without starting it (POST /imposters, config files and data directories). */
  parse(body: unknown, options: ParseOptions = {}): ImposterDefinition {
    const { scriptBase } = options;
    const base = scriptBase ?? { dir: this.options.scriptsDir ?? process.cwd(), confined: true };
    return parseImposter(body, {
      allowInjection: this.admitsInjection(options),
      generateIds: this.generatesIds(options.generateIds),
      scriptBase: base,
      csvRoot: this.csvRoot(scriptBase),
      requireProtocol: this.options.compat === 'mountebank',
    });
  }
}
