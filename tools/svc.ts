#!/usr/bin/env -S node --max-semi-space-size=16
// The shebang's flags are app/process/node-flags.ts's SERVER_NODE_FLAGS (test/cli/node-flags.test.ts checks they agree).
import { runCli } from './cli/index.js';
import { errorText } from '../engine/model/index.js';

runCli(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`svc: ${errorText(err)}\n`);
    process.exitCode = 1;
  },
);
