/**
 * The CLI's option parsing: flags, environment and rcfile layered over app's defaults into the typed
 * `CliOptions` the embedding API takes (docs/cli.md). A room of its own so the package entry and
 * `svc/cli` offer the parser to embedding hosts without the rest of the CLI.
 */
export { parseCliOptions } from './parse.js';
export { applyRcfileDefaults } from './rcfile.js';
export { KNOWN_FLAGS } from './flags.js';
