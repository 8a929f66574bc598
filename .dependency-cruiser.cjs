/**
 * The import rules of CONTRIBUTING.md's "Layers", as dependency-cruiser rules.
 * test/layers.test.ts checks them in `npm test`; `npx depcruise src config adapters`
 * prints the same findings by hand. Type-only imports count
 * (`tsPreCompilationDeps`): a type is a dependency too, and a circle of types
 * is a circle.
 */

/** Files every layer below the assembly may import: the shared words and small helpers. */
const SHARED = [
  'src/vocabulary.ts',
  'src/clock.ts',
  'src/logger.ts',
  'src/errors.ts',
  'src/bytes.ts',
  'src/media-type.ts',
  'src/call-deadline.ts',
  'src/download.ts',
];

/**
 * What an adapter may import from src/: the contract, and the small helpers it
 * shares with the core. Anything else an adapter needs is added to the
 * contract (or this list) on purpose, not reached for.
 */
const ADAPTER_MAY_IMPORT = [
  'src/bot/adapter-contract.ts',
  'src/bot/platform-module.ts',
  // A dialect is built from the core's Markdown syntax and mention rules.
  'src/bot/format/dialect.ts',
  // A platform module declares its settings with the same field parsers as the core's.
  'config/fields.ts',
  // A platform's own small files are written and kept as the bot's are (atomic; a damaged one moved aside).
  'src/store/fs-util.ts',
  'src/bot/visible-text.ts',
  'src/bot/buttons.ts',
  'src/logger.ts',
  'src/errors.ts',
  'src/clock.ts',
  'src/call-deadline.ts',
  'src/download.ts',
  'src/media-type.ts',
  'src/bytes.ts',
];

/**
 * The layers below the assembly, each with the layers it may import (besides
 * its own folder and SHARED). Nothing in a list is above the layer that lists
 * it: that is what "nothing imports upward" means here. Nothing below
 * src/session imports from it, its types.ts included.
 */
const LAYERS = {
  'src/ops': ['src/bot/adapter-contract.ts', 'src/bot/outbound-calls.ts'],
  'src/bot': ['src/session', 'src/schedule', 'src/transcribe', 'src/cluster', 'src/store'],
  'src/session': ['src/provider', 'src/tools', 'src/sandbox', 'src/store'],
  'src/mcp': ['src/tools', 'src/store'],
  'src/tools': ['src/sandbox'],
  'src/provider': [],
  'src/sandbox': [],
  'src/transcribe': [],
  'src/schedule': ['src/store'],
  'src/cluster': ['src/store'],
  'src/store': [],
  // The configuration reads settings whose parsers live with what they set,
  // and composes each platform module's settings (the adapter rules below let it import them).
  config: ['src/provider', 'src/sandbox', 'src/mcp', 'src/schedule', 'src/bot/platform-module.ts'],
};

/**
 * The assembling files: they build the ready bot from every layer. They, and
 * the other files at src/'s root (the library's entry points index.ts and
 * postgres.ts, the command line's files), sit above every layer.
 */
const ASSEMBLY = ['^src/app[^/]*\\.ts$', '^src/main\\.ts$', '^src/cli\\.ts$', '^src/platform-packages\\.ts$'];
/** The only adapter files the assembly and config/ may import: the platform list and each platform's module. */
const PLATFORM_MODULES = ['^adapters/platforms\\.ts$', '^adapters/[^/]+/platform\\.ts$'];

const literal = (path) => path.replace(/[.]/g, '\\.');
/** A regular expression for a folder (with everything in it) or a single file. */
const pattern = (path) => (path.endsWith('.ts') ? `^${literal(path)}$` : `^${literal(path)}/`);
const ours = '^(src|config|adapters)/';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment:
        'no import circle, type-only imports included: move what both sides need to the file that owns it',
      severity: 'error',
      from: { path: ours },
      to: { circular: true },
    },
    ...Object.entries(LAYERS).map(([layer, allowed]) => ({
      name: `${layer}-imports-only-its-layers`,
      comment: `${layer} imports only ${[...allowed, 'the shared files'].join(', ')} (CONTRIBUTING.md, Layers)`,
      severity: 'error',
      from: { path: pattern(layer) },
      to: {
        path: '^(src|config)/',
        pathNot: [pattern(layer), ...allowed.map(pattern), ...SHARED.map(pattern)],
      },
    })),
    {
      name: 'shared-files-import-only-each-other',
      comment: `the shared files (${SHARED.join(', ')}) import only each other`,
      severity: 'error',
      from: { path: SHARED.map(pattern) },
      to: { path: '^(src|config)/', pathNot: SHARED.map(pattern) },
    },
    {
      name: 'adapter-imports-only-the-contract',
      comment: `an adapter imports from src/ only ${ADAPTER_MAY_IMPORT.join(', ')}`,
      severity: 'error',
      from: { path: '^adapters/' },
      to: { path: '^(src|config)/', pathNot: ADAPTER_MAY_IMPORT.map(pattern) },
    },
    {
      name: 'no-adapter-imports-another',
      comment: 'an adapter folder imports no other adapter folder',
      severity: 'error',
      from: { path: '^adapters/([^/]+)/' },
      to: { path: '^adapters/[^/]+/', pathNot: '^adapters/$1/' },
    },
    {
      name: 'core-imports-no-adapter',
      comment: 'src/ and config/ import from adapters/ only the platform list and the platform modules',
      severity: 'error',
      from: { path: '^(src|config)/' },
      to: { path: '^adapters/', pathNot: PLATFORM_MODULES },
    },
    {
      name: 'only-the-assembly-imports-platform-modules',
      comment:
        'in src/, only the assembling files (src/app*.ts, src/main.ts, src/cli.ts, src/platform-packages.ts) import the platform list and modules',
      severity: 'error',
      from: { path: '^src/', pathNot: ASSEMBLY },
      to: { path: PLATFORM_MODULES },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    includeOnly: ours,
  },
};
