#!/usr/bin/env node
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
