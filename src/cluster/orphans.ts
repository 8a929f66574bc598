/**
 * Turns cut short by a replica that died. With several replicas, the turns
 * recorded in the state store include ones still running elsewhere; only a
 * turn whose chat lease nobody holds any more was really cut short.
 */
import type { ActiveTurn, BotStateStore } from '../store/types.js';
import type { ChatLease, Lease } from './types.js';

/** A turn no running replica owns, with its chat's lease now held by the caller. */
export interface OrphanedTurn {
  turn: ActiveTurn;
  lease: Lease;
}

/**
 * Claims the turns begun and never ended whose chat no live replica holds.
 * Each comes with the chat's lease (taken without keep-alive), so no other
 * replica claims it too: the caller tells the chat, calls
 * `state.endTurn(chat)` and releases the lease. A turn whose chat is leased
 * is left alone: it is still running on the holder. A dead replica's leases
 * free themselves only after their ttl, so call this at start-up and then
 * about once per ttl. With the in-process lease (one replica) every recorded
 * turn is claimed at start-up, as there is no one else to run it.
 *
 * @example
 * for (const { turn, lease } of await claimOrphanedTurns(state, leases, { ttlMs: 30_000 })) {
 *   await notify(turn.chat, 'The previous reply was interrupted by a restart.');
 *   await state.endTurn(turn.chat);
 *   await lease.release();
 * }
 */
export async function claimOrphanedTurns(
  state: BotStateStore,
  leases: ChatLease,
  options: { ttlMs: number },
): Promise<OrphanedTurn[]> {
  const claimed: OrphanedTurn[] = [];
  for (const turn of await state.activeTurns()) {
    // Ending a turn's record changes nothing a replica caches: the chat goes back under its last worker's name.
    const lease = await leases.acquire(turn.chat, { ttlMs: options.ttlMs, keepAlive: false, lookOnly: true });
    if (lease) claimed.push({ turn, lease });
  }
  return claimed;
}
