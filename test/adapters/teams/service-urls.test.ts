/** The conversation endpoints the Teams adapter keeps in the data directory. */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ServiceUrls } from '../../../adapters/teams/service-urls.js';
import { systemClock } from '../../../src/clock.js';
import { createLogger } from '../../../src/logger.js';
import { useCleanups } from '../../helpers/cleanups.js';

const cleanups = useCleanups();
const DAMAGED = '{"version":1,"conversations":{"a:1":"https://x';

function logs() {
  const lines: string[] = [];
  const logger = createLogger({
    level: 'debug',
    destination: { write: (l: string) => lines.push(l) } as never,
  });
  return { lines, logger };
}

describe('ServiceUrls', () => {
  it('keeps each conversation endpoint across a restart, writing only when one changes', async () => {
    const file = join(await cleanups.tempRoot('teams-urls'), 'teams', 'service-urls.json');
    const { logger } = logs();
    const first = new ServiceUrls(file, logger, systemClock);
    await first.load();
    await first.remember('a:1', 'https://smba.trafficmanager.net/emea/');
    const written = await readFile(file, 'utf8');
    await first.remember('a:1', 'https://smba.trafficmanager.net/emea');
    expect(await readFile(file, 'utf8')).toBe(written);
    const second = new ServiceUrls(file, logger, systemClock);
    await second.load();
    expect(second.get('a:1')).toBe('https://smba.trafficmanager.net/emea');
    expect(second.get('a:2')).toBeUndefined();
  });

  it('a damaged file is reported, kept aside untouched and not trusted; the next change writes a good one', async () => {
    const file = join(await cleanups.tempRoot('teams-urls'), 'service-urls.json');
    await writeFile(file, DAMAGED, 'utf8');
    const { lines, logger } = logs();
    const urls = new ServiceUrls(file, logger, systemClock);
    await urls.load();
    expect(urls.get('a:1')).toBeUndefined();
    expect(lines.join('\n')).toContain('not JSON');
    const kept = (await readdir(dirname(file))).filter((name) =>
      name.startsWith('service-urls.json.corrupt-'),
    );
    expect(kept).toHaveLength(1);
    expect(await readFile(join(dirname(file), kept[0] ?? ''), 'utf8')).toBe(DAMAGED);
    await urls.remember('a:2', 'https://smba.trafficmanager.net/amer/');
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({
      version: 1,
      conversations: { 'a:2': 'https://smba.trafficmanager.net/amer' },
    });
  });
});
