import { errors } from '../../engine/model/index.js';
import type { InterceptControl } from '../../admin/index.js';
import { json, optionalText, options, text } from './arguments.js';
import type { HostContext, Operations } from './operations.js';

type TruststoreFormat = Parameters<InterceptControl['exportTruststore']>[0];

function truststoreFormat(value: string): TruststoreFormat {
  if (value !== 'pkcs12' && value !== 'jks') throw errors.badData(`truststore format must be pkcs12 or jks, not ${value}`);
  return value;
}

/** The intercept proxy (docs/intercept.md) through the handle's one `InterceptControl` slot. */
export function interceptOperations({ intercept }: HostContext): Operations {
  return {
    start_intercept: async (args) => JSON.stringify(await intercept.start(options(args, 0, 'options_json'))),
    stop_intercept: async () => {
      await intercept.stop();
      return 0;
    },
    intercept_add_rules: (args) => {
      intercept.addRules(json(args, 0, 'rules_json'));
      return 0;
    },
    intercept_list_rules: () => JSON.stringify(intercept.listRules()),
    intercept_clear_rules: () => {
      intercept.clearRules();
      return 0;
    },
    intercept_ca_pem: () => intercept.caPem(),
    intercept_export_truststore: async (args) => {
      const format = truststoreFormat(text(args, 0, 'format'));
      // NULL password means the default (changeit).
      await intercept.exportTruststore(format, optionalText(args, 1), text(args, 2, 'out_path'));
      return 0;
    },
  };
}
