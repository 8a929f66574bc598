/**
 * Slack's side of HTTP mode: requests to the bot's `/slack/events`, signed
 * the way Slack signs them (`v0=` HMAC-SHA256 of `v0:<ts>:<body>` with the
 * signing secret), and deliberately unsigned, badly signed, stale and
 * replayed ones for the tests that must see them rejected.
 */
import { createHmac } from 'node:crypto';

/** Slack's request signature. */
export function slackSignature(secret: string, timestampSec: number, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestampSec}:${body}`).digest('hex')}`;
}

/** How to sign one request. */
export interface SignOptions {
  /** `valid` (default), `none` (no signature headers) or `bad` (wrong secret). */
  signature?: 'valid' | 'none' | 'bad';
  /** Request timestamp in seconds; default now. */
  timestampSec?: number;
  /** Adds `x-slack-retry-num` / `x-slack-retry-reason` as Slack does on redelivery. */
  retryNum?: number;
}

/** A request as sent, for replaying it byte for byte. */
export interface SentRequest {
  body: string;
  headers: Record<string, string>;
}

/** The answer the bot gave. */
export interface SignedResponse {
  status: number;
  text: string;
  request: SentRequest;
}

/** Sends Slack's requests to a bot in HTTP mode. */
export class SlackRequestSender {
  constructor(
    /** The bot's events URL, e.g. `http://127.0.0.1:PORT/slack/events`. */
    readonly url: string,
    readonly signingSecret: string,
  ) {}

  /** An Events API callback (JSON). */
  event(body: unknown, options: SignOptions = {}): Promise<SignedResponse> {
    return this.post(JSON.stringify(body), 'application/json', options);
  }

  /** A slash command (form-encoded fields). */
  command(fields: Record<string, string>, options: SignOptions = {}): Promise<SignedResponse> {
    return this.post(new URLSearchParams(fields).toString(), 'application/x-www-form-urlencoded', options);
  }

  /** An interactivity payload (`payload=<json>`). */
  interactive(payload: unknown, options: SignOptions = {}): Promise<SignedResponse> {
    const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
    return this.post(body, 'application/x-www-form-urlencoded', options);
  }

  async post(body: string, contentType: string, options: SignOptions = {}): Promise<SignedResponse> {
    const ts = options.timestampSec ?? Math.floor(Date.now() / 1000);
    const headers: Record<string, string> = { 'content-type': contentType };
    const mode = options.signature ?? 'valid';
    if (mode !== 'none') {
      headers['x-slack-request-timestamp'] = String(ts);
      headers['x-slack-signature'] = slackSignature(
        mode === 'bad' ? `${this.signingSecret}-wrong` : this.signingSecret,
        ts,
        body,
      );
    }
    if (options.retryNum !== undefined) {
      headers['x-slack-retry-num'] = String(options.retryNum);
      headers['x-slack-retry-reason'] = 'http_timeout';
    }
    return this.replay({ body, headers });
  }

  /** Sends exactly the same bytes and headers again. */
  async replay(request: SentRequest): Promise<SignedResponse> {
    const res = await fetch(this.url, { method: 'POST', headers: request.headers, body: request.body });
    return { status: res.status, text: await res.text(), request };
  }
}
