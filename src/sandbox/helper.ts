/**
 * The program that runs inside a chat turn's sandbox: it serves the file
 * tools and Bash over JSON lines on stdin/stdout. Paths are resolved here,
 * where they are used, one component at a time from a descriptor of the
 * workspace with `O_NOFOLLOW` (through `/proc/self/fd/N/name`, Node's stand-in
 * for `openat`), so swapping a folder for a symlink between a check and a use
 * cannot lead anywhere the resolver did not see. Links are followed by hand
 * and only while they stay inside the workspace; files with more than one
 * hard link are refused, since the other name may be outside.
 *
 * {@link sandboxHelperMain} must stay self-contained: it is sent to `node -e`
 * as source text (`Function.prototype.toString`), so it may use nothing from
 * this module's scope, only what it `require`s. Commands do not run here:
 * each gets a sandbox of its own (command.ts), out of this process's reach.
 */

/** The helper's source, ready for `node -e`; its one argument is the workspace path. */
export function helperSource(): string {
  // Transpilers that keep function names (esbuild's keepNames, used by tsx)
  // wrap them in a `__name` call defined at module scope; give it one here.
  return `const __name = (target) => target;\n(${sandboxHelperMain.toString()})(require);`;
}

/**
 * The helper's entry point (run in a separate process; see the module note).
 * The protocol: a request `{ id, op, ...}` per line; answers
 * `{ id, ok: true, result }` or `{ id, ok: false, code, message }`.
 */
export function sandboxHelperMain(req: NodeJS.Require): void {
  const fs = req('node:fs') as typeof import('node:fs');
  const C = fs.constants;
  const root = process.argv[1] ?? '';
  const rootFd = fs.openSync(root, C.O_RDONLY | C.O_DIRECTORY);
  const MAX_LINKS = 40;
  const SKIPPED = new Set(['node_modules', '.git']);

  class ToolFault extends Error {
    constructor(
      readonly code: string,
      message: string,
    ) {
      super(message);
    }
  }
  const at = (fd: number, name: string) => `/proc/self/fd/${fd}/${name}`;
  const shownOf = (parts: string[]) => (parts.length === 0 ? '.' : parts.join('/'));
  const outsideError = (path: string) =>
    new ToolFault(
      'TOOL_PATH_ESCAPE',
      `The path "${path}" leads outside the workspace; tools are confined to the workspace (${root}). Use a path inside it.`,
    );
  const errno = (err: unknown) => (err as NodeJS.ErrnoException).code;

  /** Splits a path (relative to the workspace, or absolute inside it) into components. */
  function components(path: string, asked = path): string[] {
    let rel = path;
    if (path.startsWith('/')) {
      if (path !== root && !path.startsWith(`${root}/`)) throw outsideError(asked);
      rel = path.slice(root.length);
    }
    return rel.split('/').filter((p) => p !== '' && p !== '.');
  }

  /** Opens the folder `parts` (real components, no links) from the root, refusing links. */
  function openDir(parts: string[]): number {
    let fd = fs.openSync(`/proc/self/fd/${rootFd}`, C.O_RDONLY | C.O_DIRECTORY);
    for (const part of parts) {
      const next = fs.openSync(at(fd, part), C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW);
      fs.closeSync(fd);
      fd = next;
    }
    return fd;
  }

  type Mode = 'read' | 'write' | 'any' | 'dir';
  interface Opened {
    fd: number;
    parts: string[];
    stat: import('node:fs').Stats;
    created: boolean;
  }

  /**
   * Resolves `path` and opens its last component without following a link
   * the resolver has not judged. `write` creates missing folders and the
   * file; `dir` creates missing folders and opens the last one; `read` and
   * `any` open for reading (non-blocking, so a FIFO cannot hang).
   */
  function resolveOpen(path: string, mode: Mode): Opened {
    const pending = components(path);
    let parts: string[] = [];
    let dir = openDir(parts);
    let links = 0;
    try {
      if (pending.length === 0) pending.push('.');
      while (pending.length > 0) {
        const name = pending.shift() as string;
        if (name === '..') {
          if (parts.length === 0) throw outsideError(path);
          parts = parts.slice(0, -1);
          fs.closeSync(dir);
          dir = openDir(parts);
          if (pending.length === 0) pending.push('.');
          continue;
        }
        const last = pending.length === 0;
        const flags = last
          ? mode === 'write'
            ? C.O_WRONLY | C.O_NONBLOCK | C.O_NOFOLLOW
            : mode === 'dir'
              ? C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW
              : C.O_RDONLY | C.O_NONBLOCK | C.O_NOFOLLOW
          : C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW;
        let fd: number;
        let created = false;
        try {
          fd =
            name === '.'
              ? fs.openSync(`/proc/self/fd/${dir}`, C.O_RDONLY)
              : fs.openSync(at(dir, name), flags);
        } catch (err) {
          const code = errno(err);
          // A link fails O_NOFOLLOW with ELOOP, or ENOTDIR when a folder was asked for.
          if ((code === 'ELOOP' || code === 'ENOTDIR') && fs.lstatSync(at(dir, name)).isSymbolicLink()) {
            if (++links > MAX_LINKS)
              throw new ToolFault('TOOL_FAILED', `Too many levels of symbolic links in ${path}.`);
            const target = fs.readlinkSync(at(dir, name));
            if (target.startsWith('/')) {
              pending.unshift(...components(target, path));
              parts = [];
              fs.closeSync(dir);
              dir = openDir(parts);
            } else {
              pending.unshift(...target.split('/').filter((p) => p !== '' && p !== '.'));
            }
            if (pending.length === 0) pending.push('.');
            continue;
          }
          if (code === 'EISDIR' && last && mode === 'write') {
            throw new ToolFault('EISDIR', `${shownOf([...parts, name])} is a directory; give a file path.`);
          }
          if (code !== 'ENOENT' || (mode !== 'write' && mode !== 'dir')) throw err;
          if (last && mode === 'write') {
            fd = fs.openSync(at(dir, name), C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, 0o644);
            created = true;
          } else {
            fs.mkdirSync(at(dir, name));
            pending.unshift(name);
            continue;
          }
        }
        if (name !== '.') parts = [...parts, name];
        if (!last) {
          fs.closeSync(dir);
          dir = fd;
          continue;
        }
        // The descriptor's own path is the last word on where it leads.
        const real = fs.readlinkSync(`/proc/self/fd/${fd}`);
        if (real !== root && !real.startsWith(`${root}/`)) {
          fs.closeSync(fd);
          throw outsideError(path);
        }
        const stat = fs.fstatSync(fd);
        if (stat.isFile() && stat.nlink > 1 && mode !== 'any') {
          fs.closeSync(fd);
          throw new ToolFault(
            'TOOL_FAILED',
            `${shownOf(parts)} has ${stat.nlink} hard links; tools refuse such files, because another link may lie outside the workspace. Copy the file (cp) and use the copy.`,
          );
        }
        return { fd, parts, stat, created };
      }
      throw outsideError(path);
    } finally {
      fs.closeSync(dir);
    }
  }

  function kindOf(stat: import('node:fs').Stats): string {
    return stat.isFile() ? 'file' : stat.isDirectory() ? 'dir' : 'other';
  }

  /**
   * Reads at most `max` bytes of `fd`: the contents, or undefined when there
   * is more. The size fstat gave is no bound, since the file may grow
   * meanwhile; what counts is what is actually read.
   */
  function readBounded(fd: number, max: number): Buffer | undefined {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(1024 * 1024, max + 1 - total));
      const n = fs.readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) return Buffer.concat(chunks, total);
      total += n;
      if (total > max) return undefined;
      chunks.push(n === chunk.length ? chunk : chunk.subarray(0, n));
    }
  }

  function read(msg: { path: string; maxBytes: number }) {
    const { fd, parts, stat } = resolveOpen(msg.path, 'read');
    try {
      const info = { shown: shownOf(parts), kind: kindOf(stat), size: stat.size };
      if (!stat.isFile() || stat.size > msg.maxBytes) return info;
      const data = readBounded(fd, msg.maxBytes);
      // Grown past the limit since fstat: answered like a file that was too large from the start.
      if (data === undefined) return { ...info, size: Math.max(stat.size, msg.maxBytes + 1) };
      return { ...info, size: data.length, data: data.toString('base64') };
    } finally {
      fs.closeSync(fd);
    }
  }

  function write(msg: { path: string; content: string }) {
    const { fd, parts, stat, created } = resolveOpen(msg.path, 'write');
    try {
      if (!stat.isFile()) throw new ToolFault('TOOL_FAILED', `${shownOf(parts)} is not a regular file.`);
      fs.ftruncateSync(fd, 0);
      fs.writeSync(fd, Buffer.from(msg.content, 'utf8'), 0, undefined, 0);
      return { shown: shownOf(parts), existed: !created };
    } finally {
      fs.closeSync(fd);
    }
  }

  /**
   * Writes base64 `data` to a new file in the folder `dir` (made if missing),
   * under the first of `names` not taken: created exclusively, so nothing
   * existing is overwritten and no link planted under that name is followed.
   */
  function saveNew(msg: { dir: string; names: string[]; data: string }) {
    const { fd, parts } = resolveOpen(msg.dir, 'dir');
    try {
      for (const name of msg.names) {
        if (name === '' || name === '.' || name === '..' || name.includes('/'))
          throw new ToolFault('TOOL_FAILED', 'a file name may not be empty, . or .., nor hold a /');
        let file: number;
        try {
          file = fs.openSync(at(fd, name), C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, 0o644);
        } catch (err) {
          if (errno(err) === 'EEXIST') continue;
          throw err;
        }
        try {
          const bytes = Buffer.from(msg.data, 'base64');
          for (let done = 0; done < bytes.length; )
            done += fs.writeSync(file, bytes, done, bytes.length - done, done);
          return { shown: [...parts, name].join('/'), size: bytes.length };
        } finally {
          fs.closeSync(file);
        }
      }
      throw new ToolFault('EEXIST', `every name tried in ${shownOf(parts)} is taken`);
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Every regular file under `path` (depth first, name order), links judged by the resolver. */
  function walk(msg: { path: string; maxEntries: number }) {
    const start = resolveOpen(msg.path, 'any');
    const files: { shown: string; rel: string; mtimeMs: number; size: number }[] = [];
    let entries = 0;
    let truncated = false;
    const visit = (fd: number, parts: string[], rel: string[]) => {
      const names = fs.readdirSync(`/proc/self/fd/${fd}`, { withFileTypes: true });
      names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const entry of names) {
        if (truncated || ++entries > msg.maxEntries) {
          truncated = true;
          return;
        }
        const childParts = [...parts, entry.name];
        const childRel = [...rel, entry.name];
        if (entry.isDirectory()) {
          if (SKIPPED.has(entry.name)) continue;
          let child: number;
          try {
            child = fs.openSync(at(fd, entry.name), C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW);
          } catch {
            continue;
          }
          try {
            visit(child, childParts, childRel);
          } finally {
            fs.closeSync(child);
          }
        } else if (entry.isFile() || entry.isSymbolicLink()) {
          try {
            const found = resolveOpen(childParts.join('/'), 'read');
            fs.closeSync(found.fd);
            if (!found.stat.isFile()) continue;
            files.push({
              shown: childParts.join('/'),
              rel: childRel.join('/'),
              mtimeMs: found.stat.mtimeMs,
              size: found.stat.size,
            });
          } catch {
            // Links out, dangling links and hard-linked files are left out of searches.
          }
        }
      }
    };
    try {
      if (start.stat.isDirectory()) visit(start.fd, start.parts, []);
    } finally {
      fs.closeSync(start.fd);
    }
    return { shown: shownOf(start.parts), kind: kindOf(start.stat), files, truncated };
  }

  /** Matches a regular expression line by line in `files`; the caller bounds the time. */
  function grep(msg: {
    files: string[];
    pattern: string;
    flags: string;
    maxBytes: number;
    maxLines: number;
    perFile: number;
  }) {
    const regex = new RegExp(msg.pattern, msg.flags);
    const out: { shown: string; count: number; lines: [number, string][] }[] = [];
    let total = 0;
    for (const file of msg.files) {
      let text: string;
      try {
        const opened = resolveOpen(file, 'read');
        try {
          if (!opened.stat.isFile() || opened.stat.size > msg.maxBytes) continue;
          const buffer = readBounded(opened.fd, msg.maxBytes);
          if (buffer === undefined || buffer.subarray(0, 8192).includes(0)) continue;
          text = buffer.toString('utf8');
        } finally {
          fs.closeSync(opened.fd);
        }
      } catch {
        continue;
      }
      const lines = text.split(/\r?\n/);
      const hits: [number, string][] = [];
      let count = 0;
      for (let i = 0; i < lines.length && count < msg.perFile; i++) {
        if (!regex.test(lines[i] as string)) continue;
        count++;
        if (total + hits.length <= msg.maxLines) hits.push([i + 1, lines[i] as string]);
      }
      if (count === 0) continue;
      out.push({ shown: file, count, lines: hits });
      total += hits.length;
      if (msg.maxLines > 0 && total > msg.maxLines) break;
    }
    return out;
  }

  const send = (message: unknown) => process.stdout.write(`${JSON.stringify(message)}\n`);

  const ops: Record<string, (msg: never) => unknown> = { read, write, saveNew, walk, grep };
  let pieces: string[] = [];
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    // A line end is looked for in the new piece only, as box.ts reads the answers: a saved upload
    // or a Write comes in one line of megabytes, and searching it again for every piece is quadratic.
    let start = 0;
    for (let nl = chunk.indexOf('\n'); nl >= 0; nl = chunk.indexOf('\n', start)) {
      pieces.push(chunk.slice(start, nl));
      start = nl + 1;
      const line = pieces.join('');
      pieces = [];
      const msg = JSON.parse(line) as { id: number; op: string };
      try {
        const op = ops[msg.op];
        if (!op) throw new ToolFault('TOOL_FAILED', `unknown operation ${msg.op}`);
        send({ id: msg.id, ok: true, result: op(msg as never) });
      } catch (err) {
        const code = err instanceof ToolFault ? err.code : (errno(err) ?? 'TOOL_FAILED');
        send({ id: msg.id, ok: false, code, message: (err as Error).message });
      }
    }
    if (start < chunk.length) pieces.push(chunk.slice(start));
  });
  send({ id: 0, ready: true });
  // The turn is over.
  process.stdin.on('end', () => process.exit(0));
}
