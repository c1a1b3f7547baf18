/** What the admin plane reports and enforces; filled from the CLI (or an embedding host). */
export interface AdminSettings {
  version: string;
  port: number;
  host?: string;
  apiKey?: string;
  localOnly: boolean;
  ipWhitelist: string[];
  metricsPort?: number;
  configFile?: string;
  noParse: boolean;
  requireAdminAuth: boolean;
  /** `--rcfile`, reported as `serveOptions.config`. */
  rcFile?: string;
  datadir?: string;
  /** Root for `file:` scripts of admin-created imposters. */
  scriptsDir?: string;
  /** Where the front door listens (`host:port`, as bound); absent without `--front-door`. */
  frontDoor?: string;
  runtime?: 'single' | 'per-core';
}
