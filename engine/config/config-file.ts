import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { extname } from 'node:path';
import type * as Yaml from 'yaml';
import { isObject, jsonNestingPath, MAX_JSON_DEPTH, SvcFailure, errorText } from '../model/index.js';
import { jsonErrorLocation } from './json-location.js';
import { renderTemplateFile, TemplateError } from './template.js';

// yaml is required on first use (a YAML file, or JSON that failed to parse): it costs ~65 ms at start-up.
const requireModule = createRequire(import.meta.url);
let yamlModule: typeof Yaml | undefined;
const parseYaml = (text: string): unknown => (yamlModule ??= requireModule('yaml') as typeof Yaml).parse(text);

/** What a `--configfile` holds once rendered and parsed. */
export interface ConfigDocument {
  imposters: unknown[];
  /** Front-door route table of the `{imposters, routes}` wrapper (validated by the front door). */
  routes?: unknown;
}

/** A config file that cannot be read, rendered or parsed; the message names the file. */
export class ConfigFileError extends SvcFailure {}

export interface ReadConfigOptions {
  /** `--no-parse`: skip the template step. */
  noParse: boolean;
}

export function readConfigFile(path: string, options: ReadConfigOptions): ConfigDocument {
  let text: string;
  try {
    text = options.noParse ? readFileSync(path, 'utf8') : renderTemplateFile(path);
  } catch (err) {
    if (err instanceof TemplateError) throw new ConfigFileError(err.message);
    throw new ConfigFileError(`${path}: cannot read: ${(err as NodeJS.ErrnoException).code ?? errorText(err)}`);
  }
  const extension = extname(path).toLowerCase();
  if (extension === '.yaml' || extension === '.yml') return fromYaml(path, text);
  return fromJson(path, text);
}

function fromJson(path: string, text: string): ConfigDocument {
  const tooDeep = jsonNestingPath(text);
  if (tooDeep !== undefined) throw new ConfigFileError(`${path}: JSON nesting deeper than ${MAX_JSON_DEPTH} levels at ${tooDeep}`);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (jsonError) {
    // A YAML sequence in a file without a YAML extension is still accepted; anything else reports the JSON error.
    const yaml = tryYaml(text);
    if (Array.isArray(yaml)) return { imposters: yaml };
    // V8's message without its offset or its echo of the text: the location says where.
    const reason = errorText(jsonError)
      .replace(/ in JSON at position \d+.*$/s, '')
      .replace(/, ".*" is not valid JSON$/s, '')
      .replace(/\n/g, '\\n');
    throw new ConfigFileError(`${path}: not valid JSON at ${jsonErrorLocation(text)} (${reason}) nor a YAML sequence of imposters`);
  }
  if (Array.isArray(doc)) return { imposters: doc };
  if (!isObject(doc)) throw new ConfigFileError(`${path}: expected {"imposters": [...]}, an imposter or an array of imposters`);
  if (!('imposters' in doc)) {
    if ('routes' in doc) throw new ConfigFileError(`${path}: a 'routes' block is only read from the {"imposters": [...], "routes": ...} wrapper`);
    return { imposters: [doc] };
  }
  return wrapper(path, doc);
}

function fromYaml(path: string, text: string): ConfigDocument {
  // The YAML parser recurses per flow level and aborts the process (out of memory) near 2,000 levels.
  if (jsonNestingPath(text) !== undefined) throw new ConfigFileError(`${path}: YAML flow nesting ([ and {) deeper than ${MAX_JSON_DEPTH} levels`);
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new ConfigFileError(`${path}: not valid YAML: ${errorText(err)}`);
  }
  if (Array.isArray(doc)) return { imposters: doc };
  if (isObject(doc) && 'imposters' in doc) return wrapper(path, doc);
  throw new ConfigFileError(`${path}: the YAML root must be a sequence of imposters (a single imposter is a one-element sequence)`);
}

function tryYaml(text: string): unknown {
  try {
    return parseYaml(text);
  } catch {
    return undefined;
  }
}

function wrapper(path: string, doc: Record<string, unknown>): ConfigDocument {
  if (!Array.isArray(doc.imposters)) throw new ConfigFileError(`${path}: 'imposters' must be an array`);
  if (doc.routes !== undefined && !isObject(doc.routes) && !Array.isArray(doc.routes)) {
    throw new ConfigFileError(`${path}: 'routes' must be a route table`);
  }
  return doc.routes === undefined ? { imposters: doc.imposters } : { imposters: doc.imposters, routes: doc.routes };
}
