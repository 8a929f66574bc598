/** What the files-out tests of every platform share: a file in the workspace, and what the model heard back. */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** Writes `data` at `path` inside `workspace` (folders created); returns the full path. */
export async function putWorkspaceFile(
  workspace: string,
  path: string,
  data: string | Buffer,
): Promise<string> {
  const full = join(workspace, path);
  await mkdir(dirname(full), { recursive: true });
  await writeFile(full, data);
  return full;
}

/** The first tool_result of the newest message of a recorded Messages API request. */
// biome-ignore lint/suspicious/noExplicitAny: recorded request bodies are parsed JSON.
export function lastToolResult(body: any): { content: string; is_error?: boolean } {
  return body.messages.at(-1).content.find((b: { type: string }) => b.type === 'tool_result');
}
