/**
 * Encryption at rest for MCP sign-in credentials (access and refresh tokens,
 * registered client secrets, PKCE verifiers): AES-256-GCM from node:crypto,
 * with a key from the environment (SWITCHBOARD_SECRET_KEY). A stolen state
 * file or database dump then holds no usable token; a changed or wrong key
 * is detected (GCM's tag) instead of yielding garbage.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { SwitchboardError } from '../../errors.js';

/** The environment variable holding the key (32 bytes, base64 or hex). */
export const SECRET_KEY_VARIABLE = 'SWITCHBOARD_SECRET_KEY';

/** Prefix of a sealed value: the format's version, so a later format can still read this one. */
const PREFIX = 'v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Seals and opens text with one key. */
export interface SecretBox {
  /** `text` encrypted, as printable text (`v1:` + base64 of iv, tag and ciphertext). */
  seal(text: string): string;
  /** The text `sealed` holds; throws when it was sealed with another key or altered. */
  open(sealed: string): string;
}

/** The 32-byte key `value` names (base64 or hex); throws a message saying how to make one. */
export function parseSecretKey(value: string): Buffer {
  const text = value.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (key.length !== 32)
    throw new SwitchboardError(
      'CONFIG_INVALID',
      `${SECRET_KEY_VARIABLE} must be 32 random bytes in base64 or hex; make one with \`openssl rand -base64 32\`.`,
    );
  return key;
}

/** A box for `key` (see {@link parseSecretKey}). */
export function createSecretBox(key: Buffer): SecretBox {
  return {
    seal(text) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
      return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
    },
    open(sealed) {
      const bytes = sealed.startsWith(PREFIX)
        ? Buffer.from(sealed.slice(PREFIX.length), 'base64')
        : undefined;
      if (!bytes || bytes.length < IV_BYTES + TAG_BYTES)
        throw new SwitchboardError(
          'CONFIG_INVALID',
          'A stored MCP sign-in is not in a format this version reads.',
        );
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
        decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
        return Buffer.concat([
          decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)),
          decipher.final(),
        ]).toString('utf8');
      } catch (err) {
        throw new SwitchboardError(
          'CONFIG_INVALID',
          `A stored MCP sign-in cannot be opened with this ${SECRET_KEY_VARIABLE} (another key sealed it, or it was altered); sign in again with /mcp login.`,
          { cause: err },
        );
      }
    },
  };
}
