import { ConfigFileError, readConfigFile } from '../../engine/config/index.js';
import { verifyImposters, type DynamicMode } from './run.js';
import { errorText } from '../../engine/model/index.js';

const USAGE = 'usage: svc verify <configfile> [--skip-dynamic] [--verify-dynamic] [--no-parse]\n';

/**
 * `svc verify <configfile>` (docs/recording-and-verify.md): one PASS/FAIL/SKIP line per stub, then a summary; exit 1
 * on any FAIL (or an unreadable file), 2 on bad usage.
 */
export async function verifyCommand(argv: string[]): Promise<number> {
  let skipDynamic = false;
  let verifyDynamic = false;
  let noParse = false;
  const files: string[] = [];
  for (const arg of argv) {
    if (arg === '--skip-dynamic') {
      skipDynamic = true;
    } else if (arg === '--verify-dynamic') {
      verifyDynamic = true;
    } else if (arg === '--no-parse') {
      noParse = true;
    } else if (arg.startsWith('-')) {
      process.stderr.write(`svc verify: unknown option '${arg}'\n${USAGE}`);
      return 2;
    } else {
      files.push(arg);
    }
  }
  // Both: a static pass (dynamic stubs skipped), then a dynamic pass over the dynamic stubs, as tools
  // that drive `_verify` corpora ask for.
  const mode: DynamicMode = skipDynamic && verifyDynamic ? 'both' : skipDynamic ? 'skip' : verifyDynamic ? 'verify' : 'default';
  if (files.length !== 1) {
    process.stderr.write(`svc verify: expected one config file, got ${files.length}\n${USAGE}`);
    return 2;
  }
  let imposters: unknown[];
  try {
    imposters = readConfigFile(files[0], { noParse }).imposters;
  } catch (err) {
    process.stderr.write(`svc verify: ${err instanceof ConfigFileError ? err.message : errorText(err)}\n`);
    return 1;
  }
  const counts = { PASS: 0, FAIL: 0, SKIP: 0 };
  await verifyImposters(imposters, mode, ({ verdict, label, reason }) => {
    counts[verdict] += 1;
    process.stdout.write(`${verdict} ${label}: ${reason}\n`);
  });
  process.stdout.write(`${counts.PASS} passed, ${counts.FAIL} failed, ${counts.SKIP} skipped\n`);
  return counts.FAIL > 0 ? 1 : 0;
}
