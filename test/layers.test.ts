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

/** One broken rule: the import (or the circle) and the rule's name and reason. */
interface Finding {
  /** `importing → imported`, or the whole circle. */
  path: string;
  rule: string;
  reason: string;
}

/** Cruises `dirs` under `baseDir` with the project's rules. */
async function findings(baseDir: string, dirs: string[]): Promise<Finding[]> {
  const options: ICruiseOptions = await extractDepcruiseOptions(join(ROOT, '.dependency-cruiser.cjs'));
  const reasons = new Map((options.ruleSet?.forbidden ?? []).map((r) => [r.name, r.comment ?? '']));
  const tsConfig = extractTSConfig(join(ROOT, 'tsconfig.json'));
  const { output } = await cruise(dirs, { ...options, baseDir }, {}, { tsConfig });
  return (output as ICruiseResult).summary.violations.map((v) => ({
    path: [v.from, ...(v.cycle ? v.cycle.map((c) => c.name) : [v.to])].join(' → '),
    rule: v.rule.name,
    reason: reasons.get(v.rule.name) ?? '',
  }));
}

describe('layers', () => {
  it(
    'src/, config/ and adapters/ keep the import rules and hold no import circle',
    async () => {
      const found = (await findings(ROOT, ['src', 'config', 'adapters'])).map(
        (f) => `${f.path}\n    ${f.rule}: ${f.reason}`,
      );
      expect(found, `import rules broken (CONTRIBUTING.md, Layers):\n  ${found.join('\n  ')}\n`).toEqual([]);
    },
    CRUISE_TIMEOUT_MS,
  );

  it(
    'the rules see type-only imports: a circle of types, a type or a type query from a layer not listed',
    async () => {
      // A few files whose only imports are `import type` and one `import()` type query, each breaking one rule.
      const found = await findings(join(ROOT, 'test/fixtures/layers'), ['src', 'adapters']);
      expect(found.map((f) => `${f.path}  [${f.rule}]`).sort()).toEqual([
        'adapters/one/index.ts → adapters/two/index.ts  [no-adapter-imports-another]',
        'adapters/one/index.ts → src/bot/router.ts  [adapter-imports-only-the-contract]',
        'src/bot/router.ts → src/tools/types.ts  [src/bot-imports-only-its-layers]',
        'src/bot/status.ts → src/tools/types.ts  [src/bot-imports-only-its-layers]',
        'src/session/a.ts → src/session/b.ts → src/session/a.ts  [no-circular]',
        'src/tools/types.ts → src/session/types.ts  [src/tools-imports-only-its-layers]',
      ]);
      // Every finding says why, in words a contributor can act on.
      for (const f of found) expect(f.reason).not.toBe('');
    },
    CRUISE_TIMEOUT_MS,
  );
});
