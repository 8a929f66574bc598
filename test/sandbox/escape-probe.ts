/**
 * Runs commands in a real sandbox turn and prints what each returned, as
 * JSON on stdout. The escapes test starts this file as a child process under
 * the uid the bot should run as (root, or an unprivileged user), because the
 * sandbox must hold for both and a test runner has only one uid of its own.
 *
 * Argument: JSON `{ workspace, hidden, limits, commands: { name: { command, timeoutMs } } }`.
 */
import { systemClock } from '../../src/clock.js';
import { Sandbox } from '../../src/sandbox/index.js';

interface Spec {
  workspace: string;
  hidden: string[];
  limits: { memoryBytes: number; tmpBytes: number };
  commands: Record<string, { command: string; timeoutMs: number }>;
}

const spec = JSON.parse(process.argv[2] ?? '{}') as Spec;
const sandbox = new Sandbox({ mode: 'required', hidden: spec.hidden, limits: spec.limits });
const status = await sandbox.check();
const turn = sandbox.openTurn(spec.workspace, systemClock);
const results: Record<string, { text: string; code: number | null; ended?: string; ms: number }> = {};
try {
  for (const [name, { command, timeoutMs }] of Object.entries(spec.commands)) {
    let text = '';
    const started = Date.now();
    const outcome = await turn.exec(command, {
      timeoutMs,
      signal: new AbortController().signal,
      onChunk: (chunk) => {
        text += chunk;
      },
    });
    results[name] = {
      text,
      code: outcome.code,
      ...(outcome.ended ? { ended: outcome.ended } : {}),
      ms: Date.now() - started,
    };
  }
  // The file tools' view of the covered .env: refused or empty, never the file.
  const helperReadEnv = await turn
    .request<{ data?: string }>('read', { path: '.env', maxBytes: 1024 })
    .catch((err: Error) => ({ error: err.message }));
  process.stdout.write(`${JSON.stringify({ uid: process.getuid?.(), status, results, helperReadEnv })}\n`);
} finally {
  await turn.close();
}
