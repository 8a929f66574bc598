/** Types of package.mjs (the Teams app package builder), for the tests that call it. */

/** The manifest with the bot's app id and public host filled in; throws with what to fix when either is bad. */
export function fillManifest(
  manifest: unknown,
  appId: string | undefined,
  host: string | undefined,
): Record<string, unknown>;

/** The app package's zip bytes: the filled manifest and the two icons from `dir`. */
export function buildPackage(dir: string, appId: string | undefined, host: string | undefined): Uint8Array;
