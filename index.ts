/**
 * The package entry (`import ... from 'svc'`): the embedding API (app/: typed options in, a running server
 * out) plus the CLI's option parser (tools/cli/options), with which a host builds those options from
 * argv as `svc start` does. Outside every room: it only gathers what two rooms offer; nothing imports it.
 */
export * from './app/index.js';
export { parseCliOptions, applyRcfileDefaults, KNOWN_FLAGS } from './tools/cli/options/index.js';
