// Runs before `npm start` and `npm test`: on a fresh clone (no node_modules)
// it installs the locked dependencies first, so each is one command.
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';

if (!existsSync('node_modules/.package-lock.json')) {
  process.stderr.write('Installing dependencies (npm ci) ...\n');
  execSync('npm ci --no-audit --no-fund', { stdio: 'inherit' });
}
