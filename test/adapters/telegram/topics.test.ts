/** Topic names and links for the forum topics `/bg` opens. */
import { describe, expect, it } from 'vitest';
import { TOPIC_NAME_MAX_BYTES, topicName, topicUrl } from '../../../adapters/telegram/topics.js';

describe('Telegram forum topics', () => {
  it('names a topic after the first line, cut to 128 UTF-8 bytes between code points', () => {
    expect(topicName('🧵 Background: check the build\nand more')).toBe('🧵 Background: check the build');
    const long = topicName(`🧵 ${'é'.repeat(200)}`);
    expect(Buffer.byteLength(long, 'utf8')).toBeLessThanOrEqual(TOPIC_NAME_MAX_BYTES);
    expect(long.endsWith('é…')).toBe(true);
    expect(topicName('   ')).toBe('Background');
  });

  it('links a supergroup topic by its MTProto channel id, and nothing else', () => {
    expect(topicUrl(-1001234567890, 42)).toBe('https://t.me/c/1234567890/42');
    expect(topicUrl(-4242, 42)).toBeUndefined();
  });
});
