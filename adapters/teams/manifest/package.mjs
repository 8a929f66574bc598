#!/usr/bin/env node
/**
 * Builds the Teams app package to upload (Teams admin center, Developer
 * Portal, or "Upload a custom app" in Teams): a zip of manifest.json,
 * color.png and outline.png at its root, with the bot's app id and the
 * bot's public host filled into the manifest.
 *
 *   npm run teams:package -- --app-id <Microsoft App ID> --host bot.example.com [--out switchboard-teams.zip]
 *
 * `--app-id` defaults to TEAMS_APP_ID. The manifest in the repository keeps
 * placeholders (a zero GUID, switchboard.example.com) so it stays valid
 * against the manifest schema and never holds a real registration.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { zipSync } from 'fflate';

const PLACEHOLDER_ID = '00000000-0000-0000-0000-000000000000';
const PLACEHOLDER_HOST = 'switchboard.example.com';
const GUID = /^[0-9a-fA-F]{8}-([0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$/;
const HOST = /^(?!-)[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/;

/**
 * The manifest with `appId` and `host` filled in; throws with what to fix
 * when either is missing or malformed.
 */
export function fillManifest(manifest, appId, host) {
  if (typeof appId !== 'string' || !GUID.test(appId)) {
    throw new Error(
      `The Teams app package needs the bot's Microsoft App ID (a GUID): pass --app-id or set TEAMS_APP_ID (got ${JSON.stringify(appId ?? null)}).`,
    );
  }
  if (typeof host !== 'string' || !HOST.test(host)) {
    throw new Error(
      `The Teams app package needs the bot's public host name, the one in https://<host>/api/messages: pass --host (got ${JSON.stringify(host ?? null)}).`,
    );
  }
  const text = JSON.stringify(manifest).replaceAll(PLACEHOLDER_ID, appId).replaceAll(PLACEHOLDER_HOST, host);
  return JSON.parse(text);
}

/** The zip's bytes: the filled manifest and the two icons from `dir`. */
export function buildPackage(dir, appId, host) {
  const manifest = JSON.parse(readFileSync(resolve(dir, 'manifest.json'), 'utf8'));
  const filled = fillManifest(manifest, appId, host);
  return zipSync({
    'manifest.json': new TextEncoder().encode(`${JSON.stringify(filled, null, 2)}\n`),
    [filled.icons.color]: readFileSync(resolve(dir, filled.icons.color)),
    [filled.icons.outline]: readFileSync(resolve(dir, filled.icons.outline)),
  });
}

function main() {
  const { values } = parseArgs({
    options: {
      'app-id': { type: 'string' },
      host: { type: 'string' },
      out: { type: 'string', default: 'switchboard-teams.zip' },
    },
  });
  const dir = new URL('.', import.meta.url).pathname;
  const zip = buildPackage(dir, values['app-id'] ?? process.env.TEAMS_APP_ID, values.host);
  writeFileSync(values.out, zip);
  process.stdout.write(
    `Wrote ${values.out} (${zip.length} bytes): upload it in Teams (Apps > Manage your apps > Upload an app).\n`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    main();
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
