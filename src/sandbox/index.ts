/** The agent's tools in a sandbox: bubblewrap on Linux, one per chat turn. */
export { HelperError } from './box.js';
export { requireSandbox, Sandbox } from './sandbox.js';
export * from './settings.js';
export { type ExecOptions, type ExecOutcome, SandboxTurn } from './turn.js';
