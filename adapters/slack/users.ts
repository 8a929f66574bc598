/**
 * Display names for user ids. Events carry only ids; the model is told who
 * said what by name, so names are looked up once (users.info) and cached.
 */
import type { webApi } from '@slack/bolt';
import type { Logger } from '../../src/logger.js';
import { BoundedMap } from './threads.js';

/** Looks up and caches display names. */
export class UserNames {
  readonly #names = new BoundedMap<Promise<string>>(10_000);

  constructor(
    private readonly client: webApi.WebClient,
    private readonly logger: Logger,
  ) {}

  /** The person's display name, or their id when Slack does not say. */
  name(id: string, hint?: string): Promise<string> {
    const cached = this.#names.get(id);
    if (cached) return cached;
    const lookup = this.#lookup(id, hint);
    this.#names.set(id, lookup);
    return lookup;
  }

  async #lookup(id: string, hint?: string): Promise<string> {
    try {
      const res = (await this.client.apiCall('users.info', { user: id })) as {
        user?: { name?: string; real_name?: string; profile?: { display_name?: string; real_name?: string } };
      };
      const u = res.user;
      return u?.profile?.display_name || u?.profile?.real_name || u?.real_name || u?.name || hint || id;
    } catch (err) {
      // Without users:read the id is still a stable name; try again later.
      this.logger.debug({ err, user: id }, 'users.info failed');
      this.#names.delete(id);
      return hint || id;
    }
  }
}
