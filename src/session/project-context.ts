/**
 * Project context: AGENTS.md / CLAUDE.md from the session's workspace. Read
 * only with trusted project access; a restricted session (the default)
 * loads nothing from the project, because those files steer the agent and
 * whoever can write them could otherwise instruct it. The agent can write
 * them too, so they are opened without following a symbolic link (a link to
 * `/proc/self/environ` would put the bot's tokens in the system prompt) and
 * only when they are plain files with a single link.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { ProjectAccess } from './types.js';

/** Larger project files are skipped: instructions, not data. */
export const PROJECT_FILE_MAX_BYTES = 256 * 1024;

/** What a session takes from the project. */
export interface ProjectContext {
  /** Text added to the system prompt (empty when restricted or absent). */
  instructions: string;
  /** The CLAUDE.md "Compact Instructions" section, added to every compaction prompt. */
  compactInstructions: string | undefined;
  /** Files that were read, for logs. */
  files: string[];
  /** Files present but not read, and why (a link, a hard link, not a plain file, too large). */
  skipped: { file: string; reason: string }[];
}

const PROJECT_FILES = ['AGENTS.md', 'CLAUDE.md'] as const;

/**
 * Extracts the section under a heading named "Compact Instructions" (any
 * level), up to the next heading of the same or a higher level.
 */
export function extractCompactInstructions(markdown: string): string | undefined {
  const lines = markdown.split(/\r?\n/);
  const start = lines.findIndex((l) => /^#{1,6}\s+compact instructions\s*#*\s*$/i.test(l.trim()));
  if (start < 0) return undefined;
  const level = (lines[start]?.trim().match(/^#+/)?.[0] ?? '#').length;
  const body: string[] = [];
  let inFence = false;
  for (const line of lines.slice(start + 1)) {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    const heading = !inFence ? line.match(/^(#{1,6})\s/) : null;
    if (heading && (heading[1]?.length ?? 7) <= level) break;
    body.push(line);
  }
  const text = body.join('\n').trim();
  return text.length > 0 ? text : undefined;
}

/** The file's text; undefined when absent; a reason string when it is refused. */
async function readPlainFile(path: string): Promise<{ text: string } | { refused: string } | undefined> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    // O_NONBLOCK: a FIFO planted under the name must not hang the session's start.
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') return { refused: 'it is a symbolic link' };
    return { refused: `it cannot be opened (${code ?? String(err)})` };
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return { refused: 'it is not a plain file' };
    if (info.nlink > 1) return { refused: `it has ${info.nlink} hard links` };
    if (info.size > PROJECT_FILE_MAX_BYTES) return { refused: `it is over ${PROJECT_FILE_MAX_BYTES} bytes` };
    return { text: await handle.readFile('utf8') };
  } finally {
    await handle.close();
  }
}

/** Loads the project context of `cwd` according to `access`. */
export async function loadProjectContext(cwd: string, access: ProjectAccess): Promise<ProjectContext> {
  if (access !== 'trusted')
    return { instructions: '', compactInstructions: undefined, files: [], skipped: [] };
  const parts: string[] = [];
  const files: string[] = [];
  const skipped: ProjectContext['skipped'] = [];
  let compactInstructions: string | undefined;
  for (const name of PROJECT_FILES) {
    const read = await readPlainFile(join(cwd, name));
    if (read === undefined) continue;
    if ('refused' in read) {
      skipped.push({ file: name, reason: read.refused });
      continue;
    }
    const { text } = read;
    files.push(name);
    parts.push(`Contents of ${name} (project instructions):\n\n${text.trim()}`);
    if (name === 'CLAUDE.md') compactInstructions = extractCompactInstructions(text);
  }
  return { instructions: parts.join('\n\n'), compactInstructions, files, skipped };
}
