/**
 * The commands registered with setMyCommands, built from the core's command
 * catalogue (the same words on every platform).
 */
import { COMMAND_CATALOGUE } from '../../src/bot/adapter-contract.js';

/** Telegram shows a command's description beside it; a capitalised help line reads as one. */
const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** The core's commands in setMyCommands' shape. */
export const TELEGRAM_COMMANDS: readonly { command: string; description: string }[] = COMMAND_CATALOGUE.map(
  (c) => ({ command: c.name, description: capitalise(c.help) }),
);
