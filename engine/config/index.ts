export { readConfigFile, ConfigFileError, type ConfigDocument, type ReadConfigOptions } from './config-file.js';
export { renderTemplateFile, TemplateError } from './template.js';
export { scanDataDir, DataDirStore, type DataDirEntry, type DataDirScan, type SkippedFile } from './datadir.js';
export { ConfigSources, type ConfigSourceOptions, type RouteTableTarget, type StartupSummary } from './sources.js';
export { writeFileDurably, tempFileFor } from './durable-file.js';
