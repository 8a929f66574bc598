// `npm run test:peers`: the platform SDKs and pg at the lowest version each
// peer range admits. For every group of peers (Telegram, Slack, Discord,
// PostgreSQL) it installs the floors into a scratch folder, lays a copy of the
// sources and tests over this project's node_modules with only that group's
// packages swapped, and runs the typecheck and the group's tests there.
// Slow (one npm install and one test run per group); not part of `npm test`.
//
//   npm run test:peers              every group
//   npm run test:peers -- telegram  one group
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

/** Each group's peers and the tests that exercise them. */
const GROUPS = {
  telegram: {
    peers: ['grammy', '@grammyjs/runner', '@grammyjs/auto-retry'],
    tests: ['test/adapters/telegram'],
  },
  slack: { peers: ['@slack/bolt'], tests: ['test/adapters/slack'] },
  discord: { peers: ['discord.js'], tests: ['test/adapters/discord'] },
  // @types/pg is only types: the typecheck is its test.
  postgres: {
    peers: ['pg', '@types/pg'],
    tests: ['test/store-postgres', 'test/cluster'],
    typecheck: true,
    // Without a server those tests skip, which would pass the floor untested.
    needs: 'SWITCHBOARD_TEST_DATABASE_URL',
  },
};

/** The lowest version a `^x.y.z` range admits. */
function floor(range) {
  const match = /^\^(\d+\.\d+\.\d+)$/.exec(range);
  if (!match) throw new Error(`peer range ${range} is not of the form ^x.y.z`);
  return match[1];
}

const only = process.argv.slice(2);
let failed = 0;
for (const [group, { peers, tests, typecheck, needs }] of Object.entries(GROUPS)) {
  if (only.length > 0 && !only.includes(group)) continue;
  if (needs && !process.env[needs]) {
    failed++;
    process.stdout.write(`== ${group}: not run: set ${needs} (its tests skip without it)\n`);
    continue;
  }
  const specs = peers.map((name) => `${name}@${floor(manifest.peerDependencies[name])}`);
  const scratch = mkdtempSync(join(tmpdir(), `switchboard-peers-${group}-`));
  try {
    const floors = join(scratch, 'floors');
    mkdirSync(floors);
    writeFileSync(join(floors, 'package.json'), JSON.stringify({ name: 'floors', private: true }));
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', ...specs], {
      cwd: floors,
      stdio: 'inherit',
    });
    const tree = join(scratch, 'tree');
    const entries = ['src', 'adapters', 'config', 'test', 'bench', 'scripts'];
    for (const entry of [
      ...entries,
      'package.json',
      'tsconfig.json',
      'tsconfig.build.json',
      'vitest.config.ts',
    ]) {
      // Timestamps kept, so the tests' global setup finds this project's dist/ (linked below) fresh.
      cpSync(join(ROOT, entry), join(tree, entry), { recursive: true, preserveTimestamps: true });
    }
    symlinkSync(join(ROOT, 'dist'), join(tree, 'dist'), 'dir');
    // This project's node_modules, one link per package, the group's peers from the floors.
    const modules = join(tree, 'node_modules');
    mkdirSync(modules, { recursive: true });
    const link = (from, name) => {
      mkdirSync(dirname(join(modules, name)), { recursive: true });
      symlinkSync(join(from, name), join(modules, name), 'dir');
    };
    for (const entry of readdirSync(join(ROOT, 'node_modules'))) {
      if (entry === '.package-lock.json' || entry === '.bin') continue;
      const names = entry.startsWith('@')
        ? readdirSync(join(ROOT, 'node_modules', entry)).map((n) => `${entry}/${n}`)
        : [entry];
      for (const name of names) if (!peers.includes(name)) link(join(ROOT, 'node_modules'), name);
    }
    for (const name of peers) link(join(floors, 'node_modules'), name);
    process.stdout.write(`\n== ${group}: ${specs.join(' ')}: ${tests.join(' ')}\n`);
    const bin = (name) => join(ROOT, 'node_modules', name);
    // The runtime is what a peer range promises; the SDKs' newest types are for this
    // project's own compile (its devDependencies pin them).
    if (typecheck) {
      execFileSync(process.execPath, [bin('typescript/bin/tsc'), '-p', 'tsconfig.json', '--noEmit'], {
        cwd: tree,
        stdio: 'inherit',
      });
    }
    execFileSync(process.execPath, [bin('vitest/vitest.mjs'), 'run', ...tests, '--reporter=dot'], {
      cwd: tree,
      stdio: 'inherit',
    });
    process.stdout.write(`== ${group}: passed with ${specs.join(' ')}\n`);
  } catch (err) {
    failed++;
    process.stdout.write(`== ${group}: FAILED with ${specs.join(' ')}: ${err.message.split('\n')[0]}\n`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
process.exit(failed === 0 ? 0 : 1);
