/**
 * The sandbox helper's commands: Bash run under the sandbox's limits in a
 * process group of its own, its output streamed, and every group killed when
 * asked or when the turn ends. Like the helper itself (helper.ts) this
 * function is sent to `node -e` as source text, so it must stay
 * self-contained: nothing from this module's scope, only what it `require`s.
 */

/** Runs and kills the helper's commands; `send` writes one protocol line. */
export function helperCommands(req: NodeJS.Require, root: string, send: (message: unknown) => void) {
  const childProcess = req('node:child_process') as typeof import('node:child_process');
  const groups = new Map<number, number>();
  const killGroup = (pid: number | undefined) => {
    if (pid === undefined) return;
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  };

  /** Runs `bash -c command` under the limits, in its own process group, streaming its output. */
  function exec(msg: {
    id: number;
    command: string;
    graceMs: number;
    limits: { processes: number; memoryKb: number; fileBlocks: number; cpuSeconds: number };
  }) {
    const l = msg.limits;
    const child = childProcess.spawn(
      '/bin/bash',
      [
        '-c',
        'ulimit -S -H -u "$1" -v "$2" -f "$3" -t "$4" || { echo "the sandbox could not set its limits" >&2; exit 126; }; exec /bin/bash -c "$5"',
        'bash',
        String(l.processes),
        String(l.memoryKb),
        String(l.fileBlocks),
        String(l.cpuSeconds),
        msg.command,
      ],
      { cwd: root, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    if (child.pid !== undefined) groups.set(msg.id, child.pid);
    let detachedHolder = false;
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => send({ id: msg.id, chunk }));
    child.stderr.on('data', (chunk: string) => send({ id: msg.id, chunk }));
    child.on('exit', () => {
      killGroup(child.pid);
      // What bash wrote is already in the pipe; a process that left the group
      // (setsid) may hold the pipe open for ever and must not hold the turn.
      setTimeout(() => {
        detachedHolder = true;
        child.stdout.destroy();
        child.stderr.destroy();
      }, msg.graceMs).unref();
    });
    child.on('error', (err) => {
      groups.delete(msg.id);
      send({ id: msg.id, ok: false, code: 'TOOL_FAILED', message: `Could not run bash: ${err.message}` });
    });
    child.on('close', (code, signal) => {
      groups.delete(msg.id);
      send({ id: msg.id, ok: true, result: { code, signal, detachedHolder } });
    });
  }

  return {
    exec,
    /** Kills the process group of the command with protocol id `target`. */
    kill: (target: number) => killGroup(groups.get(target)),
    /** Kills every command still running (the turn is over). */
    killAll: () => {
      for (const pid of groups.values()) killGroup(pid);
    },
  };
}
