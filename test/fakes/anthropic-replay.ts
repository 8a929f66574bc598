/**
 * Replays streams other projects recorded from the real Messages API
 * (test/fixtures/anthropic-recorded, sources in its README) over loopback:
 * each request is answered with the next recorded message, event for event,
 * and once they are used up with a short text reply. It checks nothing; it
 * only records what the client sent, so a test can see what came back.
 */

import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One recorded response: its stream events in order. */
export type RecordedMessage = Array<{ type: string } & Record<string, unknown>>;

/** The messages of a recorded `.chunks.txt` file (one JSON event a line), split at each message_start. */
export function readRecording(path: string): RecordedMessage[] {
  const messages: RecordedMessage[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const event = JSON.parse(line) as RecordedMessage[number];
    if (event.type === 'message_start') messages.push([]);
    messages.at(-1)?.push(event);
  }
  return messages;
}

/** The recorded model of a message (its message_start). */
export function recordedModel(message: RecordedMessage): string {
  const start = message.find((e) => e.type === 'message_start') as
    | { message?: { model?: string } }
    | undefined;
  return start?.message?.model ?? 'claude-sonnet-5-5';
}

const DONE: RecordedMessage = [
  {
    type: 'message_start',
    message: {
      id: 'msg_replay_done',
      type: 'message',
      role: 'assistant',
      model: 'replay',
      content: [],
      usage: { input_tokens: 1, output_tokens: 1 },
    },
  },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'ok' } },
  { type: 'content_block_stop', index: 0 },
  {
    type: 'message_delta',
    delta: { stop_reason: 'end_turn', stop_sequence: null },
    usage: { output_tokens: 1 },
  },
  { type: 'message_stop' },
];

/** The running replay server. */
export interface ReplayServer {
  url: string;
  // biome-ignore lint/suspicious/noExplicitAny: request bodies as parsed JSON.
  requests: any[];
  close(): Promise<void>;
}

/** Serves `messages` in order, then `ok` replies, on 127.0.0.1 and a random port. */
export async function startReplay(messages: readonly RecordedMessage[]): Promise<ReplayServer> {
  const queue = [...messages];
  const replay: ReplayServer = {
    url: '',
    requests: [],
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close').catch(() => undefined);
    },
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      replay.requests.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      const events = queue.shift() ?? DONE;
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'request-id': `req_replay_${replay.requests.length}`,
      });
      for (const event of events) res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
      res.end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  replay.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return replay;
}
