// Rewrites package.json for the ready bot's runtime (the container image's
// build stage runs it before `npm prune --omit=dev`). The platform SDKs and pg
// are optional peers of the library and dev dependencies of this repository,
// so a production install would leave them out and the bot could start no
// platform. Here each peer the bot loads becomes a production dependency at
// the version the lock file pins (its devDependency), and the prune keeps it.
import { readFileSync, writeFileSync } from 'node:fs';

const file = process.argv[2] ?? 'package.json';
const manifest = JSON.parse(readFileSync(file, 'utf8'));
for (const name of Object.keys(manifest.peerDependencies ?? {})) {
  // Type declarations are for library users' compilers, not for the bot.
  if (name.startsWith('@types/')) continue;
  const locked = manifest.devDependencies?.[name];
  if (!locked) {
    process.stderr.write(`${name} is a peer dependency without a devDependency to take its version from.\n`);
    process.exit(1);
  }
  manifest.dependencies[name] = locked;
  delete manifest.devDependencies[name];
}
writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
