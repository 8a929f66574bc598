// `npm start`: the ready bot as compiled JavaScript. Builds dist/ first when
// it is missing or older than the sources, then runs dist/src/main.js in this
// same process, so SIGINT / SIGTERM reach the bot directly whether it runs
// under npm, npx, systemd or a container. `--sharded` runs the Discord
// ShardingManager entry (dist/adapters/discord/start-sharded.js) instead.
import { buildIfStale } from './build-if-stale.mjs';

const sharded = process.argv.includes('--sharded');
if (sharded) process.argv.splice(process.argv.indexOf('--sharded'), 1);
try {
  buildIfStale();
} catch (err) {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
await import(sharded ? '../dist/adapters/discord/start-sharded.js' : '../dist/src/main.js');
