/**
 * `_svc.script` specs (docs/scripts.md) validated at the edge and resolved to source text: the engine
 * (explicit, from the file extension, or the imposter's default), and exactly one of `code`, `file`
 * or `ref` (a name in the imposter's `_svc.scripts` registry, which may not itself be a ref).
 *
 * `file` paths resolve against a ScriptBase: the config file's directory for imposters loaded from
 * files, the scripts directory for admin-created ones (`confined`: a path escaping it is refused).
 * Rhai sources are compiled here, so a syntax error is a 400 naming line and column.
 */
import { readFileSync } from 'node:fs';
import { Script } from 'node:vm';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { compileRhai, RhaiError } from '../rhai/index.js';
import { scriptTimeoutOf, svcFunctionSource } from '../js/index.js';
import { SvcFailure, errorText } from '../../model/index.js';

export type ScriptEngineName = 'rhai' | 'javascript';

/** Where `file:` scripts resolve. */
export interface ScriptBase {
  dir: string;
  /** Admin-created imposters: a path outside `dir` is refused. */
  confined: boolean;
}

/** An imposter's script settings: `_svc.scriptEngine`, `_svc.scripts`, and where files resolve. */
export interface ScriptSettings {
  timeoutMs: number;
  defaultEngine: ScriptEngineName;
  registry: Record<string, unknown>;
  base: ScriptBase;
}

export interface ScriptSource {
  engine: ScriptEngineName;
  code: string;
  /** For messages: the file, the ref, or `inline`. */
  origin: string;
}

/** A spec that cannot be used; the message is what the 400 says. */
export class ScriptSpecError extends SvcFailure {}

const MAX_TIMER_MS = 2 ** 31 - 1;

const ENGINES: Record<string, ScriptEngineName> = { rhai: 'rhai', javascript: 'javascript', js: 'javascript' };

/** An `engine` value (`rhai`, `javascript` or its alias `js`) as the engine it names; undefined when unknown. */
export function scriptEngineNamed(name: string): ScriptEngineName | undefined {
  return Object.hasOwn(ENGINES, name) ? ENGINES[name] : undefined;
}

/** The engine a script file's extension implies (`.rhai`, `.js`); undefined for any other name. */
export function scriptEngineOfFile(file: string): ScriptEngineName | undefined {
  if (file.endsWith('.rhai')) return 'rhai';
  if (file.endsWith('.js')) return 'javascript';
  return undefined;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function svcBlock(config: Record<string, unknown>): Record<string, unknown> {
  return isObject(config._svc) ? config._svc : {};
}

/** The imposter-level settings, or the problems with them. */
export function scriptSettingsOf(config: Record<string, unknown>, base: ScriptBase): { settings: ScriptSettings; problems: string[] } {
  const svc = svcBlock(config);
  const problems: string[] = [];
  let defaultEngine: ScriptEngineName = 'rhai';
  if (svc.scriptEngine !== undefined) {
    if (!isObject(svc.scriptEngine)) problems.push("'_svc.scriptEngine' must be an object");
    else {
      const timeoutMs = svc.scriptEngine.timeoutMs;
      // Timers fire at once beyond 2^31-1 ms, so a larger deadline would time every script out.
      if (timeoutMs !== undefined && !(typeof timeoutMs === 'number' && timeoutMs > 0 && timeoutMs <= MAX_TIMER_MS)) {
        problems.push(`'_svc.scriptEngine.timeoutMs' must be a positive number of milliseconds up to ${MAX_TIMER_MS}`);
      }
      const given = svc.scriptEngine.defaultEngine;
      if (given !== undefined) {
        const engine = typeof given === 'string' ? scriptEngineNamed(given) : undefined;
        if (engine) defaultEngine = engine;
        else problems.push("'_svc.scriptEngine.defaultEngine' must be rhai or javascript");
      }
    }
  }
  let registry: Record<string, unknown> = {};
  if (svc.scripts !== undefined) {
    if (!isObject(svc.scripts)) problems.push("'_svc.scripts' must be an object of name to {file} or {code}");
    else registry = svc.scripts;
  }
  const settings = { timeoutMs: scriptTimeoutOf(config), defaultEngine, registry, base };
  for (const [name, entry] of Object.entries(registry)) {
    try {
      resolveScript(entry, settings, `_svc.scripts.${name}`, false);
    } catch (err) {
      if (!(err instanceof ScriptSpecError)) throw err;
      problems.push(err.message);
    }
  }
  return { settings, problems };
}

function engineOf(spec: Record<string, unknown>, file: string | undefined, settings: ScriptSettings, where: string): ScriptEngineName {
  if (spec.engine !== undefined) {
    const engine = typeof spec.engine === 'string' ? scriptEngineNamed(spec.engine) : undefined;
    if (!engine) throw new ScriptSpecError(`${where}: 'engine' must be rhai, javascript or js`);
    return engine;
  }
  return (file === undefined ? undefined : scriptEngineOfFile(file)) ?? settings.defaultEngine;
}

function readScriptFile(file: string, base: ScriptBase, where: string): string {
  const path = resolve(base.dir, file);
  if (base.confined) {
    const rel = relative(base.dir, path);
    if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
      throw new ScriptSpecError(`${where}: file '${file}' is outside the scripts directory`);
    }
  }
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new ScriptSpecError(`${where}: cannot read script file '${file}': ${(err as NodeJS.ErrnoException).code ?? errorText(err)}`);
  }
}

/**
 * JavaScript is parsed (never run) by V8 as the function the sandbox will compile; the error's line is
 * the script's own (the wrapper adds one line before it).
 */
function checkJavaScript(code: string, where: string): void {
  try {
    new Script(`'use strict';(${svcFunctionSource(code, 'respond')})`, { filename: 'svc-script.js' });
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    // V8's stack starts "svc-script.js:<line>", the source line, then a caret under the column.
    const [first = '', , caret = ''] = (err.stack ?? '').split('\n');
    const line = /svc-script\.js:(\d+)/.exec(first)?.[1];
    const column = caret.indexOf('^') + 1;
    const at = line === undefined ? '' : ` at line ${Math.max(1, Number(line) - 1)}${column > 0 ? `:${column}` : ''}`;
    throw new ScriptSpecError(`${where}: script does not compile${at}: ${err.message}`);
  }
}

/** Syntax errors surface at create time with their position. */
function checkCompiles(source: ScriptSource, where: string): void {
  if (source.engine === 'javascript') {
    checkJavaScript(source.code, where);
    return;
  }
  try {
    compileRhai(source.code);
  } catch (err) {
    if (!(err instanceof RhaiError)) throw err;
    throw new ScriptSpecError(`${where}: script does not compile at line ${err.line}:${err.column}: ${err.description}`);
  }
}

/** Resolves one spec to its engine and source text; throws ScriptSpecError with the 400 message. */
export function resolveScript(spec: unknown, settings: ScriptSettings, where = '_svc.script', refs = true): ScriptSource {
  if (!isObject(spec)) throw new ScriptSpecError(`${where} must be an object with one of code, file or ref`);
  const given = (['code', 'file', 'ref'] as const).filter((key) => spec[key] !== undefined);
  if (given.length !== 1) throw new ScriptSpecError(`${where} must have exactly one of code, file or ref`);
  const [key] = given;
  const value = spec[key];
  if (typeof value !== 'string') throw new ScriptSpecError(`${where}.${key} must be a string`);
  if (key === 'ref') {
    if (!refs) throw new ScriptSpecError(`${where}: a registry entry may not be a ref`);
    if (!Object.hasOwn(settings.registry, value)) throw new ScriptSpecError(`${where}: unknown script ref '${value}'`);
    const entry = settings.registry[value];
    if (isObject(entry) && entry.ref !== undefined) throw new ScriptSpecError(`${where}: ref '${value}' points at another ref`);
    const source = resolveScript(entry, settings, `_svc.scripts.${value}`, false);
    // An engine on the ref itself wins over the registry entry's.
    return spec.engine === undefined ? source : { ...source, engine: engineOf(spec, undefined, settings, where) };
  }
  const code = key === 'code' ? value : readScriptFile(value, settings.base, where);
  const source: ScriptSource = { engine: engineOf(spec, key === 'file' ? value : undefined, settings, where), code, origin: key === 'file' ? value : 'inline' };
  checkCompiles(source, where);
  return source;
}
