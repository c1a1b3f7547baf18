import { readConfigFile, ConfigFileError, type ConfigDocument } from '../../engine/config/index.js';
import { parseRoutes, type Route } from '../../admin/front-door/index.js';
import { isObject, isSvcError, errorText } from '../../engine/model/index.js';
import { parseImposter } from '../../engine/validate/index.js';
import { DEFAULT_TTL_SECONDS, needsImplicitFlowStore } from '../../engine/state/index.js';
import { ignoredConfigKeys } from '../../engine/analysis/index.js';
import { dirname } from 'node:path';
import type { CliOptions } from '../../app/process/index.js';

function label(body: unknown, index: number): string {
  return isObject(body) && body.port !== undefined ? `imposter on port ${JSON.stringify(body.port)}` : `imposter #${index + 1} (no port)`;
}

/**
 * `svc --validate <file>`: renders and parses the config file and validates every imposter as startup
 * would (same injection permission, same template step), plus its front-door routes. Exit 0 when valid,
 * 1 with every problem listed.
 */
export function validateCommand(options: CliOptions, file: string): number {
  let doc: ConfigDocument;
  try {
    doc = readConfigFile(file, { noParse: options.noParse });
  } catch (err) {
    process.stderr.write(`${err instanceof ConfigFileError ? err.message : `${file}: ${errorText(err)}`}\n`);
    return 1;
  }
  const { imposters } = doc;
  const problems: string[] = [];
  /** Lint findings that do not fail validation (docs/flow-state.md rule 2: E042). */
  const warnings: string[] = [];
  const ports = new Set<number>();
  imposters.forEach((body, index) => {
    try {
      const scriptBase = { dir: dirname(file), confined: false };
      const definition = parseImposter(body, { allowInjection: options.allowInjection, generateIds: false, scriptBase });
      if (definition.port !== 0 && ports.has(definition.port)) problems.push(`${file}: duplicate port ${definition.port}`);
      ports.add(definition.port);
      for (const ignored of ignoredConfigKeys(
        definition.config,
        definition.stubs.map((s) => s.config),
      )) {
        warnings.push(`${file}: ${label(body, index)}: warning config_key_ignored: ${ignored.message}`);
      }
      if (needsImplicitFlowStore({ _svc: definition.config._svc, stubs: definition.stubs.map((s) => s.config) })) {
        warnings.push(
          `${file}: ${label(body, index)}: warning E042: script or scenario stubs without _svc.flowState; an in-memory flow store (ttlSeconds ${DEFAULT_TTL_SECONDS}) will be used`,
        );
      }
    } catch (err) {
      const messages = isSvcError(err) ? err.entries.map((e) => `${e.path === undefined ? '' : `${e.path}: `}${e.code}: ${e.message}`) : [errorText(err)];
      for (const message of messages) problems.push(`${file}: ${label(body, index)}: ${message}`);
    }
  });
  let routes: Route[] = [];
  try {
    routes = parseRoutes(doc.routes);
  } catch (err) {
    const messages = isSvcError(err) ? err.entries.map((e) => e.message) : [errorText(err)];
    for (const message of messages) problems.push(`${file}: ${message}`);
  }
  if (warnings.length > 0) process.stderr.write(`${warnings.join('\n')}\n`);
  if (problems.length > 0) {
    process.stderr.write(`${problems.join('\n')}\n`);
    return 1;
  }
  const routeCount = doc.routes === undefined ? '' : `, ${routes.length} route(s)`;
  process.stdout.write(`${file}: valid, ${imposters.length} imposter(s)${routeCount}\n`);
  return 0;
}
