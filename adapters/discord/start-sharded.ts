/**
 * `npm run start:sharded` (scripts/start.mjs imports the compiled
 * dist/adapters/discord/start-sharded.js): the ready bot for Discord as
 * shard processes, see shard.ts. It runs on import, as src/main.ts does, so
 * it works however it is loaded.
 *
 * Exit codes: 2 when the configuration is invalid, 1 when shards cannot start.
 */
import { existsSync } from 'node:fs';
import type { ShardingManager } from 'discord.js';
import { planShards, type ShardPlan, startShards } from './shard.js';

async function main(): Promise<number> {
  if (existsSync('.env')) process.loadEnvFile('.env');
  let plan: ShardPlan;
  try {
    plan = planShards(process.env);
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\nSee docs/replicas.md.\n`);
    return 2;
  }
  let manager: ShardingManager;
  try {
    manager = await startShards(plan);
  } catch (err) {
    process.stderr.write(`shards could not start: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
  process.stderr.write(`switchboard: ${manager.shards.size} Discord shard(s) ready\n`);
  return new Promise<number>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        // Each shard stops gracefully on SIGTERM (running replies end with a notice).
        manager.respawn = false;
        const exits = [...manager.shards.values()].map(
          (shard) =>
            new Promise<void>((done) => {
              if (!shard.process || shard.process.exitCode !== null) return done();
              shard.process.once('exit', () => done());
              shard.process.kill('SIGTERM');
            }),
        );
        void Promise.all(exits).then(() => resolve(0));
      });
    }
  });
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`switchboard shards crashed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
