/**
 * The terminal chat as a platform module: it has no settings, runs when no
 * other platform is configured (or with `--console`), and its one person is
 * the machine's operator.
 */
import { join } from 'node:path';
import { plain } from '../../src/bot/format/dialect.js';
import { definePlatform } from '../../src/bot/platform-module.js';
import type { ConsoleAdapterOptions } from './index.js';

export default definePlatform<Record<string, never>, ConsoleAdapterOptions>({
  id: 'console',
  title: 'the terminal chat',
  userId: /^operator$/,
  exampleUserId: 'operator',
  operatorId: 'operator',
  env: {},
  secrets: [],
  packages: [],
  settings: () => ({}),
  fallback: true,
  terminal: true,
  // A terminal shows Markdown markers literally.
  dialect: plain,
  capabilities: {
    dialect: plain,
    nativeStream: false,
    replyFooter: true,
    filesAsPaths: true,
    privateChat: true,
  },
  async create(_settings, context, overrides) {
    const { createConsoleAdapter } = await import('./index.js');
    return createConsoleAdapter({
      input: process.stdin,
      output: process.stdout,
      historyFile: join(context.dataDir, 'console-history'),
      ...(context.logFile ? { logFile: context.logFile } : {}),
      ...overrides,
    });
  },
});
