/**
 * The house rules for imports between rooms (README "Working on svc"). A room is a folder under
 * app/, engine/, admin/, ffi/ or tools/ (engine/match, admin/routes, ffi/host, tools/cli, ...); a folder
 * inside a room (engine/script/js, engine/respond/behaviors) is a room of its own for its siblings.
 *
 * Run: npx depcruise --config .dependency-cruiser.cjs --ignore-known app engine admin ffi tools
 * Violations that predate the rules are listed in .dependency-cruiser-known-violations.json and
 * only shrink (regenerate it with `--output-type baseline` after removing some, never to add).
 * test/architecture/dependency-rules.test.ts runs this and also checks for cycles between rooms.
 */
const ROOT = '(?:app|engine|admin|ffi|tools)';

/**
 * The folder rule: no folder imports a file of a folder above it. A parent composes its sub-rooms, so a
 * sub-room reaching back into it makes the two import each other; what sub-rooms share lives in a leaf
 * room of its own (admin/http, engine/script/shared, engine/respond/shared). A path pattern names one
 * ancestor, so there is one rule per depth (the deepest room is four folders down).
 */
const parentImportRules = [0, 1, 2, 3].map((depth) => ({
  name: 'no-parent-import',
  severity: 'error',
  comment: 'A folder imports no file of a folder above it (its parent composes it); move what both need to a leaf room.',
  from: { path: `^(${ROOT}${'/[^/]+'.repeat(depth)})/[^/]+/` },
  to: { path: '^$1/[^/]+$' },
}));

module.exports = {
  forbidden: [
    ...parentImportRules,
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A module cycle: one of its imports must move or be inverted.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'room-door',
      severity: 'error',
      comment: "Another room is entered only through its index.ts; its other files are its own business.",
      from: { path: `^(${ROOT}/[^/]+)/` },
      to: { path: `^${ROOT}/[^/]+/`, pathNot: ['^$1/', '/index\\.ts$'] },
    },
    {
      name: 'sub-room-door',
      severity: 'error',
      comment: 'A sibling room inside a room (engine/script/js beside engine/script/svc) is entered only through its index.ts.',
      from: { path: `^(${ROOT}/[^/]+/[^/]+)/` },
      to: { path: `^${ROOT}/[^/]+/[^/]+/`, pathNot: ['^$1/', '/index\\.ts$'] },
    },
    {
      name: 'child-room-door',
      severity: 'error',
      comment: 'A room enters a room inside it (respond → respond/behaviors) through its index.ts too.',
      from: { path: `^(${ROOT}/[^/]+)/[^/]+\\.ts$` },
      to: { path: '^$1/[^/]+/', pathNot: '/index\\.ts$' },
    },
    {
      name: 'top-room-door',
      severity: 'error',
      comment: 'Files at the top of admin/ (the admin room) enter admin/routes, admin/intercept, ... through their index.ts.',
      from: { path: `^(${ROOT})/[^/]+\\.ts$` },
      to: { path: '^$1/[^/]+/', pathNot: '/index\\.ts$' },
    },
    {
      name: 'root-files-door',
      severity: 'error',
      comment: 'Files at the top of admin/ are the admin room: outside admin/, reach them through admin/index.ts.',
      from: { pathNot: '^admin/' },
      to: { path: '^admin/[^/]+\\.ts$', pathNot: '^admin/index\\.ts$' },
    },
    {
      name: 'app-files-door',
      severity: 'error',
      comment: 'Files at the top of app/ are the app room: outside app/, reach them through app/index.ts.',
      from: { pathNot: '^app/' },
      to: { path: '^app/[^/]+\\.ts$', pathNot: '^app/index\\.ts$' },
    },
    {
      name: 'engine-is-below-adapters',
      severity: 'error',
      comment: 'The engine serves traffic; admin, tools and ffi are adapters over it and app/ composes them all: the engine imports none of them.',
      from: { path: '^engine/' },
      to: { path: '^(?:app|admin|tools|ffi)/' },
    },
    {
      name: 'app-below-tools-and-ffi',
      severity: 'error',
      comment: 'The composition root (app/, the embedding API) owns server options, process helpers and VERSION; the CLI and the C host map onto it, not the other way round.',
      from: { path: '^app/' },
      to: { path: '^(?:tools|ffi)/' },
    },
    {
      name: 'admin-below-app-tools-and-ffi',
      severity: 'error',
      comment: 'The admin plane is an adapter over the manager; it never imports the composition root, the CLI or the C host.',
      from: { path: '^admin/' },
      to: { path: '^(?:app|tools|ffi)/' },
    },
    {
      name: 'ffi-below-tools',
      severity: 'error',
      comment: 'The C host maps C calls onto the engine; VERSION and server options come from app/, not the CLI.',
      from: { path: '^ffi/' },
      to: { path: '^tools/' },
    },
    {
      name: 'ffi-not-imported',
      severity: 'error',
      comment: 'ffi/host is a process entry (the C library spawns it); nothing in the product imports it.',
      from: { path: `^${ROOT}/`, pathNot: '^ffi/' },
      to: { path: '^ffi/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules|test|bench)/' },
    // Type-only imports count: a type cycle still couples the rooms' edits.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
