/**
 * Where to post for each conversation. Every activity names the regional
 * Bot Connector endpoint (`serviceUrl`, e.g. `https://smba.trafficmanager.net/emea/`)
 * that answers for its conversation, and a reply must go there. The chat
 * key holds the conversation id only, so the adapter keeps conversation id
 * -> serviceUrl in a small JSON file in the bot's data directory, written
 * (atomically, as the bot's own stores write) only when a conversation is
 * new or its endpoint changes. After a restart the bot can still answer a
 * chat whose last activity came before it, e.g. the end of a reply or a
 * scheduled run. A damaged file is reported and kept beside it, never
 * overwritten, as every file of the bot's.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Clock } from '../../src/clock.js';
import type { Logger } from '../../src/logger.js';
import { atomicWrite, moveAside, PRIVATE_DIR_MODE } from '../../src/store/fs-util.js';

/** The file's shape. */
interface ServiceUrlFile {
  version: 1;
  conversations: Record<string, string>;
}

/** Conversation endpoints, remembered across restarts when given a file. */
export class ServiceUrls {
  readonly #urls = new Map<string, string>();
  #writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly file: string | undefined,
    private readonly logger: Logger,
    private readonly clock: Clock,
  ) {}

  /**
   * Reads the file. A missing file is an empty map; a damaged one is moved
   * aside (`.corrupt-<time>`), reported, and the map starts empty: it only
   * caches what every new activity from a conversation tells the bot again.
   */
  async load(): Promise<void> {
    if (!this.file) return;
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    try {
      const parsed = JSON.parse(text) as ServiceUrlFile;
      for (const [id, url] of Object.entries(parsed.conversations ?? {})) {
        if (typeof url === 'string' && /^https?:\/\//.test(url)) this.#urls.set(id, url);
      }
    } catch (err) {
      const keptAs = await moveAside(this.file, this.clock.now());
      this.logger.error(
        { err, file: this.file, keptAs },
        'the Teams conversation endpoints file is not JSON; it was kept aside and the bot starts without it',
      );
    }
  }

  /** The endpoint of a conversation, if one of its activities was ever seen. */
  get(conversationId: string): string | undefined {
    return this.#urls.get(conversationId);
  }

  /** Remembers a conversation's endpoint; resolves once it is on disk (at once when unchanged). */
  remember(conversationId: string, serviceUrl: string): Promise<void> {
    const url = serviceUrl.replace(/\/+$/, '');
    if (this.#urls.get(conversationId) === url) return Promise.resolve();
    this.#urls.set(conversationId, url);
    if (!this.file) return Promise.resolve();
    const file = this.file;
    const write = async () => {
      const body: ServiceUrlFile = { version: 1, conversations: Object.fromEntries(this.#urls) };
      await mkdir(dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE });
      await atomicWrite(file, `${JSON.stringify(body)}\n`);
    };
    this.#writing = this.#writing.then(write).catch((err) => {
      this.logger.error({ err, file }, 'could not save the Teams conversation endpoints');
    });
    return this.#writing;
  }
}
