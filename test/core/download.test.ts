/**
 * The shared bounded download against a loopback server: a body is cut off
 * as soon as it passes the limit, whether or not its length was declared; a
 * server that stalls is given up on the injected clock; an error status is a
 * typed failure. The server counts the bytes it managed to send.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock.js';
import { boundedDownload } from '../../src/download.js';
import { isErrorCode } from '../../src/errors.js';

const MB = 1024 * 1024;
let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** Serves `handler` on a random port; returns the base URL. */
async function serve(handler: (res: ServerResponse) => void): Promise<string> {
  server = createServer((_req, res) => handler(res));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/file`;
}

/** Streams `total` bytes in 64 KB chunks without a Content-Length, honouring back-pressure. */
function streamBytes(total: number, sent: { bytes: number; closed: boolean }) {
  return (res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'image/png' });
    const chunk = Buffer.alloc(64 * 1024, 7);
    const pump = () => {
      while (sent.bytes < total) {
        sent.bytes += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    res.on('close', () => {
      sent.closed = true;
    });
    pump();
  };
}

describe('boundedDownload', () => {
  it('returns a body within the limit', async () => {
    const url = await serve((res) => res.writeHead(200, { 'content-type': 'image/png' }).end('png-bytes'));
    const got = await boundedDownload(url, { maxBytes: 1024, timeoutMs: 5000 });
    expect(got.bytes.toString()).toBe('png-bytes');
    expect(got.contentType).toBe('image/png');
  });

  it('cuts off an undeclared body at the limit instead of reading it all', async () => {
    const sent = { bytes: 0, closed: false };
    const url = await serve(streamBytes(512 * MB, sent));
    const err = await boundedDownload(url, { maxBytes: 5 * MB, timeoutMs: 60_000 }).catch((e: unknown) => e);
    expect(isErrorCode(err, 'DOWNLOAD_TOO_LARGE')).toBe(true);
    expect((err as Error).message).toMatch(/larger than 5242880 bytes/);
    // The server saw the connection go long before it could send 512 MB.
    await new Promise<void>((resolve) => {
      const check = () => (sent.closed ? resolve() : setImmediate(check));
      check();
    });
    expect(sent.bytes).toBeLessThan(128 * MB);
  });

  it('refuses a declared length over the limit before reading the body', async () => {
    const url = await serve((res) =>
      res.writeHead(200, { 'content-length': String(6 * MB) }).end(Buffer.alloc(6 * MB)),
    );
    const err = await boundedDownload(url, { maxBytes: 5 * MB, timeoutMs: 5000 }).catch((e: unknown) => e);
    expect(isErrorCode(err, 'DOWNLOAD_TOO_LARGE')).toBe(true);
  });

  it('gives up on a server that stalls, on the injected clock', async () => {
    const clock = new VirtualClock();
    const url = await serve((res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.write('a little, then nothing');
    });
    const pending = boundedDownload(url, { maxBytes: MB, timeoutMs: 30_000, clock }).catch((e: unknown) => e);
    await clock.advance(29_999);
    await clock.advance(1);
    const err = await pending;
    expect(isErrorCode(err, 'DOWNLOAD_FAILED')).toBe(true);
    expect((err as Error).message).toMatch(/longer than 30 s/);
  });

  it('turns an error status into a typed failure that does not quote the URL', async () => {
    const url = await serve((res) => res.writeHead(404).end('not here'));
    const err = await boundedDownload(`${url}?token=secret`, { maxBytes: MB, timeoutMs: 5000 }).catch(
      (e: unknown) => e,
    );
    expect(isErrorCode(err, 'DOWNLOAD_FAILED')).toBe(true);
    expect((err as { detail: { status: number } }).detail.status).toBe(404);
    expect((err as Error).message).not.toContain('secret');
  });
});
