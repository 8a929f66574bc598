/**
 * The Teams app manifest and its package: valid against the manifest's
 * JSON schema (v1.29, vendored from OfficeDev/microsoft-teams-app-schema,
 * see test/fixtures/teams/manifest-schema/SOURCE.md), its command list
 * drawn from the command catalogue, its icons the sizes and colours the
 * schema asks for, and the zip that `npm run teams:package` writes.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { inflateSync } from 'node:zlib';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { buildPackage, fillManifest } from '../../../adapters/teams/manifest/package.mjs';
import { COMMAND_CATALOGUE } from '../../../src/bot/command-catalogue.js';

const dir = fileURLToPath(new URL('../../../adapters/teams/manifest/', import.meta.url));
const manifest = JSON.parse(readFileSync(`${dir}manifest.json`, 'utf8')) as Record<string, unknown>;
const schemaFile = new URL(
  '../../fixtures/teams/manifest-schema/MicrosoftTeams.schema.json',
  import.meta.url,
);
const APP_ID = '3f2a6c1e-8d4b-4a7e-9c0f-1b2d3e4f5a6b';

function validator() {
  const { $schema: _draft, ...schema } = JSON.parse(readFileSync(schemaFile, 'utf8')) as Record<
    string,
    unknown
  >;
  const ajv = new Ajv({ allErrors: true, strict: false });
  (addFormatsModule as unknown as (a: Ajv) => void)(ajv);
  return ajv.compile(schema);
}

/** Width, height and RGBA pixels of a PNG written with filter 0 on every row (what icons.mjs writes). */
function decodePng(bytes: Buffer): { width: number; height: number; colorType: number; pixels: Buffer[] } {
  expect(bytes.subarray(1, 4).toString('ascii')).toBe('PNG');
  const width = bytes.readUInt32BE(16);
  const height = bytes.readUInt32BE(20);
  const colorType = bytes[25] as number;
  const idat: Buffer[] = [];
  for (let at = 8; at < bytes.length; ) {
    const length = bytes.readUInt32BE(at);
    if (bytes.subarray(at + 4, at + 8).toString('ascii') === 'IDAT')
      idat.push(bytes.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = 1 + width * 4;
  const pixels: Buffer[] = [];
  for (let y = 0; y < height; y += 1) {
    expect(raw[y * stride]).toBe(0);
    for (let x = 0; x < width; x += 1)
      pixels.push(raw.subarray(y * stride + 1 + x * 4, y * stride + 5 + x * 4));
  }
  return { width, height, colorType, pixels };
}

type Bot = {
  botId: string;
  scopes: string[];
  supportsFiles: boolean;
  commandLists: { scopes: string[]; commands: { title: string; description: string }[] }[];
};

describe('Teams app manifest', () => {
  it('validates against the v1.29 manifest schema', () => {
    const validate = validator();
    expect(validate(manifest), JSON.stringify(validate.errors)).toBe(true);
    expect(manifest.manifestVersion).toBe('1.29');
    // The schema check can fail: an unknown field or a 13th command is refused.
    expect(validate({ ...manifest, unknownField: true })).toBe(false);
    const [bot] = manifest.bots as Bot[];
    const thirteen = Array.from({ length: 13 }, (_, i) => ({ title: `c${i}` }));
    const tooMany = { ...bot, commandLists: [{ scopes: ['personal'], commands: thirteen }] };
    expect(validate({ ...manifest, bots: [tooMany] })).toBe(false);
  });

  it('offers the bot in personal chats, teams and group chats, with files', () => {
    const [bot] = manifest.bots as Bot[];
    expect(bot?.scopes.sort()).toEqual(['groupChat', 'personal', 'team']);
    expect(bot?.supportsFiles).toBe(true);
    expect(bot?.botId).toBe(manifest.id);
  });

  // "Each menu supports up to 10 commands" (Create a commands menu,
  // https://learn.microsoft.com/en-us/microsoftteams/platform/bots/how-to/create-a-bot-commands-menu;
  // the schema allows 12), titles up to 32 and descriptions up to 128
  // characters (the manifest reference's limits before v1.2x raised them).
  it('lists the first ten commands of the catalogue, in its order, within the menu limits', () => {
    const [bot] = manifest.bots as Bot[];
    const lists = bot?.commandLists ?? [];
    expect(lists).toHaveLength(1);
    expect(lists[0]?.scopes.sort()).toEqual(['groupChat', 'personal', 'team']);
    const expected = COMMAND_CATALOGUE.slice(0, 10).map((c) => ({
      title: c.name.slice(0, 32),
      description: c.help.length <= 128 ? c.help : `${c.help.slice(0, 127)}…`,
    }));
    expect(lists[0]?.commands).toEqual(expected);
  });

  it('has a 192x192 colour icon and a 32x32 outline icon, white on transparent', () => {
    const icons = manifest.icons as { color: string; outline: string };
    const color = decodePng(readFileSync(`${dir}${icons.color}`));
    expect([color.width, color.height]).toEqual([192, 192]);
    const outline = decodePng(readFileSync(`${dir}${icons.outline}`));
    expect([outline.width, outline.height, outline.colorType]).toEqual([32, 32, 6]);
    expect(outline.pixels.every((p) => p[3] === 0 || (p[0] === 255 && p[1] === 255 && p[2] === 255))).toBe(
      true,
    );
    expect(outline.pixels.some((p) => p[3] === 0)).toBe(true);
  });
});

describe('Teams app package', () => {
  it('zips the filled manifest and both icons at the root, still valid', () => {
    const files = unzipSync(buildPackage(dir, APP_ID, 'bot.example.org'));
    expect(Object.keys(files).sort()).toEqual(['color.png', 'manifest.json', 'outline.png']);
    const filled = JSON.parse(new TextDecoder().decode(files['manifest.json'])) as Record<string, unknown>;
    expect(filled.id).toBe(APP_ID);
    expect((filled.bots as Bot[])[0]?.botId).toBe(APP_ID);
    expect(filled.validDomains).toEqual(['bot.example.org']);
    const validate = validator();
    expect(validate(filled), JSON.stringify(validate.errors)).toBe(true);
  });

  it('says what to pass when the app id or the host is missing or malformed', () => {
    expect(() => fillManifest(manifest, undefined, 'bot.example.org')).toThrow(
      /--app-id or set TEAMS_APP_ID/,
    );
    expect(() => fillManifest(manifest, 'not-a-guid', 'bot.example.org')).toThrow(/GUID/);
    expect(() => fillManifest(manifest, APP_ID, 'https://bot.example.org/api/messages')).toThrow(/--host/);
  });
});
