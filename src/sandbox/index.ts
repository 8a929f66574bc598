/** The agent's tools in a sandbox: bubblewrap on Linux, one per chat turn. */
export { HelperError } from './box.js';
export { requireSandbox, Sandbox } from './sandbox.js';
export {
  DEFAULT_SANDBOX_LIMITS,
  SANDBOX_MODES,
  SANDBOX_NETWORKS,
  type SandboxLimits,
  type SandboxMode,
  type SandboxNetwork,
  type SandboxSettings,
  type SandboxStatus,
  sandboxEnv,
  sandboxWarning,
} from './settings.js';
export { type ExecOptions, type ExecOutcome, SandboxTurn } from './turn.js';
