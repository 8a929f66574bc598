/**
 * One request to a connected MCP server (a tool call, a resource read, a
 * prompt), bounded so no turn waits forever: a request that hears nothing
 * from the server for the call timeout (progress notifications count) is
 * given up, and the server marked down and restarted. Every request gets
 * one log line saying how it went and how long it took, and its failure
 * reaches the model as words it can act on: the server is down, needs a
 * sign-in, or did not answer.
 */
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Clock } from '../clock.js';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { ToolContext } from '../tools/types.js';
import type { ElicitationAsker } from './elicitation.js';
import { type ConnectionLifecycle, signInNeeded } from './lifecycle.js';
import { startSilenceTimer } from './silence.js';

/**
 * How long a call may go without a word from the server (its result or a
 * progress notification) before it is given up and the server restarted
 * (SWITCHBOARD_MCP_TIMEOUT). A server that died without closing its
 * connection (an HTTP server whose stream broke, a stdio server that hangs)
 * would otherwise hold the turn forever.
 */
export const MCP_CALL_TIMEOUT_MS = 30_000;
/** The SDK's own request timer, left far out of the way: the silence timer runs on the injected clock. */
const SDK_TIMEOUT_OFF_MS = 2_147_483_647;

/** What every SDK request of one of ours must carry, and how to tell the silence timer the server spoke. */
export interface RequestOptions {
  /** The caller's cancel and the silence timer's, together. */
  signal: AbortSignal;
  /** The SDK's own timeout, turned off (see the silence timer). */
  timeout: number;
  /** Starts the silence timer over: call it on every sign of life (a progress notification). */
  rearm: () => void;
}

/**
 * Runs one request: `what` names it in the log and in messages, `signal`
 * cancels it, and a question the server asks meanwhile goes to `elicit`
 * with the silence timer held. `run` makes the SDK request with the
 * options it is given and says how it went (`outcome`, for the log).
 */
export type RequestRunner = <T>(
  what: string,
  signal: AbortSignal,
  elicit: ToolContext['elicit'],
  run: (client: Client, options: RequestOptions) => Promise<{ result: T; outcome: string }>,
) => Promise<T>;

/** Options for {@link requestRunner}. */
export interface RequestRunnerOptions {
  /** The connection the requests run on, and which they mark down when it stops answering. */
  lifecycle: Pick<ConnectionLifecycle, 'name' | 'state' | 'client' | 'drop' | 'downMessage'>;
  clock: Clock;
  logger: Logger;
  /** Most silence during a request (see {@link MCP_CALL_TIMEOUT_MS}). */
  callTimeoutMs?: number;
  /** The requests running now; each one is in it while it runs, to take the server's questions. */
  askers: Set<ElicitationAsker>;
}

/** The requests of one server's connection. */
export function requestRunner(options: RequestRunnerOptions): RequestRunner {
  const { lifecycle, clock, logger, askers } = options;
  const server = lifecycle.name;
  return async (what, signal, elicit, run) => {
    const client = lifecycle.client;
    if (lifecycle.state !== 'connected' || !client) throw new Error(lifecycle.downMessage());
    // Only the connection this request used is dropped: by the time it fails, a new one may be up.
    const stillCurrent = () => client === lifecycle.client;
    const started = clock.now();
    const log = (outcome: string) =>
      logger.info({ server, tool: what, outcome, ms: clock.now() - started }, 'MCP call');
    const silence = startSilenceTimer(clock, options.callTimeoutMs ?? MCP_CALL_TIMEOUT_MS);
    const asker: ElicitationAsker = {
      ...(elicit === undefined ? {} : { elicit }),
      hold: silence.stop,
      release: silence.rearm,
    };
    askers.add(asker);
    try {
      const { result, outcome } = await run(client, {
        signal: AbortSignal.any([signal, silence.signal]),
        timeout: SDK_TIMEOUT_OFF_MS,
        rearm: silence.rearm,
      });
      log(outcome);
      return result;
    } catch (err) {
      if (silence.signal.aborted) {
        log('no answer');
        if (stillCurrent()) lifecycle.drop(`it did not answer ${what} for ${silence.seconds} s`);
        throw new Error(
          `The MCP server "${server}" did not answer ${what} for ${silence.seconds} s, so the call was given up and the server is being restarted. Tell the user, or do without it.`,
        );
      }
      log(signal.aborted ? 'cancelled' : `failed: ${describeError(err).slice(0, 200)}`);
      // Refused for want of a (new) sign-in: the token was revoked, or the call needs more scope.
      if (err instanceof UnauthorizedError && stillCurrent()) {
        lifecycle.drop(signInNeeded(server));
        throw new Error(
          `The MCP server "${server}" needs a new sign-in (an admin runs /mcp login ${server}), so its tools cannot run now. Tell the user.`,
        );
      }
      // An error the server answered with is the tool's; anything else means the link is broken.
      if (!signal.aborted && !(err instanceof McpError) && stillCurrent())
        lifecycle.drop(`the call failed: ${describeError(err)}`);
      // The connection went while the call waited: say that, not the SDK's "Connection closed".
      if (!signal.aborted && !stillCurrent()) throw new Error(lifecycle.downMessage());
      throw err;
    } finally {
      askers.delete(asker);
      silence.stop();
    }
  };
}
