/**
 * CONTRIBUTING.md's "Layers", enforced: dependency-cruiser reads every import
 * in src/, config/ and adapters/ (type-only imports included) and checks the
 * rules in .dependency-cruiser.cjs — who may import whom, and no import
 * circle anywhere. A finding names the importing file, the imported file and
 * the rule, with the rule's reason.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseOptions, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** One cruise of the whole tree takes a few seconds; a busy machine may stretch it. */
const CRUISE_TIMEOUT_MS = 60_000;

/** Cruises `dirs` under `baseDir` with the project's rules; returns one line per violation. */
async function violations(baseDir: string, dirs: string[]): Promise<string[]> {
  const options: ICruiseOptions = await extractDepcruiseOptions(join(ROOT, '.dependency-cruiser.cjs'));
  const comments = new Map((options.ruleSet?.forbidden ?? []).map((r) => [r.name, r.comment]));
  const tsConfig = extractTSConfig(join(ROOT, 'tsconfig.json'));
  const { output } = await cruise(dirs, { ...options, baseDir }, {}, { tsConfig });
  const result = output as ICruiseResult;
  return result.summary.violations.map((v) => {
    const rule = `${v.rule.name}: ${comments.get(v.rule.name) ?? ''}`;
    if (v.cycle) return `${[v.from, ...v.cycle.map((c) => c.name)].join(' → ')}\n    (${rule})`;
    return `${v.from} → ${v.to}\n    (${rule})`;
  });
}

describe('layers', () => {
  it(
    'src/, config/ and adapters/ keep the import rules and hold no import circle',
    async () => {
      const found = await violations(ROOT, ['src', 'config', 'adapters']);
      expect(found, `import rules broken (CONTRIBUTING.md, Layers):\n  ${found.join('\n  ')}\n`).toEqual([]);
    },
    CRUISE_TIMEOUT_MS,
  );

  it(
    'the rules see type-only imports: a circle of types and a type from a layer not listed are found',
    async () => {
      // A tree of a few files whose only imports are `import type`, each breaking one rule.
      const found = await violations(join(ROOT, 'test/fixtures/layers'), ['src', 'adapters']);
      expect(found.sort()).toEqual([
        'adapters/one/index.ts → adapters/two/index.ts\n    (no-adapter-imports-another: an adapter folder imports no other adapter folder)',
        expect.stringMatching(
          /^adapters\/one\/index\.ts → src\/bot\/router\.ts\n {4}\(adapter-imports-only-the-contract: /,
        ),
        expect.stringMatching(
          /^src\/bot\/router\.ts → src\/tools\/types\.ts\n {4}\(src\/bot-imports-only-its-layers: /,
        ),
        expect.stringMatching(
          /^src\/session\/a\.ts → src\/session\/b\.ts → src\/session\/a\.ts\n {4}\(no-circular: /,
        ),
        expect.stringMatching(
          /^src\/tools\/types\.ts → src\/session\/types\.ts\n {4}\(src\/tools-imports-only-its-layers: /,
        ),
      ]);
    },
    CRUISE_TIMEOUT_MS,
  );
});
