/**
 * Project context: AGENTS.md / CLAUDE.md from the session's workspace. Read
 * only with trusted project access; a restricted session (the default)
 * loads nothing from the project, because those files steer the agent and
 * whoever can write them could otherwise instruct it.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ProjectAccess } from './types.js';

/** What a session takes from the project. */
export interface ProjectContext {
  /** Text added to the system prompt (empty when restricted or absent). */
  instructions: string;
  /** The CLAUDE.md "Compact Instructions" section, added to every compaction prompt. */
  compactInstructions: string | undefined;
  /** Files that were read, for logs. */
  files: string[];
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

async function readIfPresent(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Loads the project context of `cwd` according to `access`. */
export async function loadProjectContext(cwd: string, access: ProjectAccess): Promise<ProjectContext> {
  if (access !== 'trusted') return { instructions: '', compactInstructions: undefined, files: [] };
  const parts: string[] = [];
  const files: string[] = [];
  let compactInstructions: string | undefined;
  for (const name of PROJECT_FILES) {
    const text = await readIfPresent(join(cwd, name));
    if (text === undefined) continue;
    files.push(name);
    parts.push(`Contents of ${name} (project instructions):\n\n${text.trim()}`);
    if (name === 'CLAUDE.md') compactInstructions = extractCompactInstructions(text);
  }
  return { instructions: parts.join('\n\n'), compactInstructions, files };
}
