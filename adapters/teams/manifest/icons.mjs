#!/usr/bin/env node
/**
 * Draws the Teams app's two icons and writes them beside this file:
 * - color.png, 192x192: the full-colour icon (accent colour background,
 *   a white switch);
 * - outline.png, 32x32: the outline icon, white on a transparent
 *   background, as the app manifest's `icons.outline` requires
 *   ("A relative file path to a transparent PNG outline icon. The border
 *   color needs to be white. Size 32x32.").
 * The PNGs are committed; run `node adapters/teams/manifest/icons.mjs`
 * again only to redraw them. Plain Node, no image library: RGBA rows,
 * filter 0, one zlib stream.
 */
import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

const ACCENT = [0x4f, 0x6b, 0xed];
const WHITE = [0xff, 0xff, 0xff];

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** An RGBA PNG of `size`x`size` whose pixel (x, y) is `pixel(x, y)` -> [r, g, b, a]. */
function png(size, pixel) {
  const rows = [];
  for (let y = 0; y < size; y += 1) {
    const row = Buffer.alloc(1 + size * 4);
    for (let x = 0; x < size; x += 1) row.set(pixel(x, y), 1 + x * 4);
    rows.push(row);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8-bit, RGBA, deflate, filter method 0, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * How much of the pixel the switch covers (0..1), in units of the icon's
 * side: a rounded track drawn as a ring and a filled knob on its right,
 * sampled 4x4 per pixel for smooth edges.
 */
function switchCover(size, x, y) {
  let hits = 0;
  for (let sy = 0; sy < 4; sy += 1) {
    for (let sx = 0; sx < 4; sx += 1) {
      const u = (x + (sx + 0.5) / 4) / size;
      const v = (y + (sy + 0.5) / 4) / size;
      if (inSwitch(u, v)) hits += 1;
    }
  }
  return hits / 16;
}

function inSwitch(u, v) {
  const cy = 0.5;
  const r = 0.2;
  const left = 0.3;
  const right = 0.7;
  // Distance to the track's centre line (a capsule from left to right).
  const px = Math.min(Math.max(u, left), right);
  const d = Math.hypot(u - px, v - cy);
  const ring = d <= r && d >= r - 0.06;
  const knob = Math.hypot(u - right, v - cy) <= r - 0.1;
  return ring || knob;
}

const here = new URL('.', import.meta.url);
writeFileSync(
  new URL('color.png', here),
  png(192, (x, y) => {
    const a = switchCover(192, x, y);
    return [...ACCENT.map((c, i) => Math.round(c * (1 - a) + (WHITE[i] ?? 0) * a)), 255];
  }),
);
writeFileSync(
  new URL('outline.png', here),
  png(32, (x, y) => [...WHITE, Math.round(switchCover(32, x, y) * 255)]),
);
