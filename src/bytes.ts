/**
 * Sizes as people read them, for messages to the model and the chat
 * (`12.3 MB`, `840 KB`, `512 bytes`). On the ground floor beside `errors`:
 * the tools and the bot core both word limits with it.
 */

/** `bytes` in MB (1024 x 1024), KB or bytes, one decimal at most. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} bytes`;
}
