/** The core's commands as registered with setMyCommands (the same words on every platform). */
export const TELEGRAM_COMMANDS: readonly { command: string; description: string }[] = [
  { command: 'new', description: 'Start a fresh session in this chat' },
  { command: 'compact', description: 'Summarize the conversation to free context (optional focus)' },
  { command: 'rename', description: 'Name this session' },
  { command: 'stop', description: 'Stop the running reply and drop queued messages' },
  { command: 'status', description: 'Context use, model, mode and session' },
  { command: 'sessions', description: 'List your sessions' },
  { command: 'resume', description: 'Resume a session by name or id' },
  { command: 'fork', description: 'Continue in a copy of this session' },
  { command: 'mode', description: 'Set the permission mode' },
  { command: 'help', description: 'What this bot can do' },
];
