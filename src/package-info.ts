/**
 * switchboard's own package: its folder and manifest, found upwards from
 * this module, so the same code works from the sources (`src/`), from the
 * build (`dist/src/`) and from an installed package.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The fields of package.json the ready bot reads. */
export interface PackageManifest {
  name: string;
  version: string;
  peerDependencies?: Record<string, string>;
}

/** The folder holding switchboard's package.json, or undefined when it cannot be found. */
export function packageRoot(): string | undefined {
  for (const candidate of ['..', '../..']) {
    const file = new URL(`${candidate}/package.json`, import.meta.url);
    if (!existsSync(file)) continue;
    const manifest = JSON.parse(readFileSync(file, 'utf8')) as Partial<PackageManifest>;
    if (manifest.name === 'switchboard') return fileURLToPath(new URL(`${candidate}/`, import.meta.url));
  }
  return undefined;
}

/** switchboard's package.json, or undefined when it cannot be found. */
export function packageManifest(): PackageManifest | undefined {
  const root = packageRoot();
  return root ? (JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as PackageManifest) : undefined;
}
