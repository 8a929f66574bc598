// Compiles the bot (`tsc -p tsconfig.build.json` into dist/) when dist/ is
// missing or older than any source file, and does nothing otherwise. Runs as
// `npm install`'s `prepare` step (so an install from git gets a working
// package) and before `npm start` (so the ready bot runs compiled JavaScript,
// which starts in a fraction of the time tsx needs, without a manual build).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUTPUT = join(ROOT, 'dist', 'src', 'main.js');
const SOURCES = ['src', 'adapters', 'config'];
const CONFIGS = ['tsconfig.json', 'tsconfig.build.json', 'package.json'];

/** Newest modification time (ms) of the TypeScript sources and the build's settings. */
function newestSource() {
  let newest = 0;
  const visit = (path) => {
    const stat = statSync(path);
    if (stat.isDirectory()) {
      for (const name of readdirSync(path)) visit(join(path, name));
    } else if (path.endsWith('.ts')) {
      newest = Math.max(newest, stat.mtimeMs);
    }
  };
  for (const dir of SOURCES) if (existsSync(join(ROOT, dir))) visit(join(ROOT, dir));
  for (const file of CONFIGS)
    if (existsSync(join(ROOT, file))) newest = Math.max(newest, statSync(join(ROOT, file)).mtimeMs);
  return newest;
}

/** True when dist/ is missing or older than the sources. */
export function buildIsStale() {
  if (!existsSync(OUTPUT)) return true;
  // A package installed from a tarball ships dist/ and no sources: nothing to compare.
  if (!existsSync(join(ROOT, 'src'))) return false;
  return statSync(OUTPUT).mtimeMs < newestSource();
}

/** Builds when stale. Throws with a plain message when the compiler is not installed. */
export function buildIfStale() {
  if (!buildIsStale()) return false;
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  if (!existsSync(tsc)) {
    throw new Error(
      'dist/ is missing or older than the sources, and TypeScript is not installed to build it. ' +
        'Run `npm install` (with dev dependencies) and try again.',
    );
  }
  process.stderr.write('Building switchboard (tsc -p tsconfig.build.json) ...\n');
  execFileSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json')], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    buildIfStale();
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}
