import { parseLogFilter } from '../../../engine/log/index.js';
import { errorText } from '../../../engine/model/index.js';
import { setFromText, type OptionKey, type OptionLayer } from './option-text.js';

/**
 * The environment's layer (MB_PORT, MB_ALLOW_INJECTION, MB_APIKEY, SVC_*, SVC_LOG/RUST_LOG). A bad value
 * is warned and ignored, as a stray variable must not stop a server; a bad SVC_FLEET throws.
 */
export function envLayer(env: NodeJS.ProcessEnv, warnings: string[]): OptionLayer {
  const layer: OptionLayer = {};
  const read = (name: string, key: OptionKey) => {
    const value = env[name];
    if (value === undefined || value === '') return;
    try {
      setFromText(layer, key, value, name);
    } catch (err) {
      warnings.push(`${errorText(err)}; ${name} ignored`);
    }
  };
  read('MB_PORT', 'port');
  read('MB_ALLOW_INJECTION', 'allowInjection');
  read('SVC_METRICS_PORT', 'metricsPort');
  read('SVC_KEEP_ALIVE_TIMEOUT', 'keepAliveTimeout');
  read('SVC_HEADERS_TIMEOUT', 'headersTimeout');
  read('SVC_REQUEST_TIMEOUT', 'requestTimeout');
  read('SVC_MAX_BUFFERED_BODY_BYTES', 'maxBufferedBodyBytes');
  read('SVC_COMPAT', 'compat');
  read('SVC_RUNTIME', 'runtime');
  read('SVC_WORKERS', 'workers');
  // A bad fleet URL must not start a lone node that serves a different set: it fails start-up.
  if (env.SVC_FLEET !== undefined && env.SVC_FLEET !== '') setFromText(layer, 'fleet', env.SVC_FLEET, 'SVC_FLEET');
  if (env.MB_APIKEY !== undefined) layer.apiKey = env.MB_APIKEY;
  const filterName = env.SVC_LOG !== undefined && env.SVC_LOG !== '' ? 'SVC_LOG' : 'RUST_LOG';
  const filter = env[filterName];
  if (filter !== undefined && filter !== '') {
    const level = parseLogFilter(filter);
    if ('error' in level) warnings.push(`${filterName}: ${level.error}; ignored`);
    else {
      layer.logLevel = level.level;
      layer.logQuiet = level.quiet;
    }
  }
  return layer;
}
