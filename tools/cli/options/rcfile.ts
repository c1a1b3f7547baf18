import { readFileSync } from 'node:fs';
import { isObject, UsageError, errorText } from '../../../engine/model/index.js';
import { defaultCliOptions, type CliOptions } from '../../../app/process/index.js';
import { setFromText, type OptionKey, type OptionLayer } from './option-text.js';

/** rcfile keys (docs/cli.md) and the option each one sets. */
const RC_KEYS: Record<string, OptionKey> = {
  port: 'port',
  host: 'host',
  logLevel: 'logLevel',
  loglevel: 'logLevel',
  allowInjection: 'allowInjection',
  allow_injection: 'allowInjection',
  localOnly: 'localOnly',
  local_only: 'localOnly',
  datadir: 'datadir',
  configfile: 'configFile',
};

/**
 * The rcfile (JSON defaults): listed keys only; unknown keys are warned and ignored. A missing or
 * unparseable file is warned and the server starts on its other options, as mountebank's does.
 */
export function rcLayer(path: string, warnings: string[]): OptionLayer {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    warnings.push(`cannot read rcfile ${path}: ${code ?? errorText(err)}; ignored`);
    return {};
  }
  if (!isObject(doc)) {
    warnings.push(`rcfile ${path} does not hold a JSON object; ignored`);
    return {};
  }
  const layer: OptionLayer = {};
  for (const [name, value] of Object.entries(doc)) {
    const key = RC_KEYS[name];
    if (!key) {
      warnings.push(`rcfile ${path}: unknown key '${name}' ignored`);
      continue;
    }
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw new UsageError(`rcfile ${path}: '${name}' must be a string, number or boolean`);
    }
    setFromText(layer, key, String(value), `rcfile ${path}: '${name}'`);
  }
  return layer;
}

/**
 * For hosts that build CliOptions themselves (parseCliOptions already layers the rcfile): fills each
 * option still at its default from `options.rcFile`, so explicit settings win as on the command line.
 * Unknown keys and an unreadable file are added to `options.warnings`; a bad value throws UsageError.
 */
export function applyRcfileDefaults(options: CliOptions): CliOptions {
  if (options.rcFile === undefined) return options;
  const base = defaultCliOptions();
  const fromRc = rcLayer(options.rcFile, options.warnings);
  for (const key of Object.keys(fromRc) as OptionKey[]) {
    if (options[key] === base[key]) Object.assign(options, { [key]: fromRc[key] });
  }
  return options;
}
