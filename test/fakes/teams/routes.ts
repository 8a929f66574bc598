/**
 * The Bot Connector's routes (the REST reference's operations under
 * `/v3/`), and the records and fault rules of the fake's HTTP side.
 * https://learn.microsoft.com/en-us/azure/bot-service/rest-api/bot-framework-rest-connector-api-reference
 */

/** Connector operations by name. */
export type Operation =
  | 'send'
  | 'reply'
  | 'update'
  | 'delete'
  | 'createConversation'
  | 'members'
  | 'attachment';

/** One request as the fake saw it. */
export interface RecordedCall {
  method: string;
  path: string;
  /** The connector operation, or the identity/file endpoint hit. */
  op: Operation | 'openid' | 'keys' | 'token' | 'upload' | 'download' | 'unknown';
  conversationId?: string;
  activityId?: string;
  /** The JSON body (form fields for the token endpoint, secret left out). */
  body?: unknown;
  status: number;
  /** Error code answered, if any. */
  error?: string;
  /** The fake's clock when it arrived. */
  at: number;
}

/** A fault to inject into connector calls; matched in order, each used `times` times. */
export interface FaultRule {
  op?: Operation;
  conversationId?: string;
  status: number;
  /** Error code of the body (default by status). */
  code?: string;
  /** Seconds for Retry-After (429 only; default 1). */
  retryAfterSec?: number;
  /** How many calls it hits (default 1; Infinity for all). */
  times?: number;
  /** Close the connection without answering. */
  drop?: boolean;
}

/** A connector request, routed. */
export interface Route {
  op: Operation | 'unknown';
  conversationId?: string;
  activityId?: string;
  memberId?: string;
}

/** Which operation `method` on `path` (after `/teams`) is, with its ids. */
export function parseRoute(method: string, path: string): Route {
  const parts = path.split('/').slice(1).map(decodeURIComponent);
  if (parts[0] !== 'v3') return { op: 'unknown' };
  if (parts[1] === 'attachments' && method === 'GET' && parts.length === 5)
    return { op: 'attachment', activityId: parts[2] as string };
  if (parts[1] !== 'conversations') return { op: 'unknown' };
  if (parts.length === 2) return method === 'POST' ? { op: 'createConversation' } : { op: 'unknown' };
  const conversationId = parts[2] as string;
  if (parts[3] === 'members' && method === 'GET' && parts.length <= 5) {
    return parts[4] === undefined
      ? { op: 'members', conversationId }
      : { op: 'members', conversationId, memberId: parts[4] };
  }
  if (parts[3] !== 'activities') return { op: 'unknown' };
  if (parts.length === 4) return method === 'POST' ? { op: 'send', conversationId } : { op: 'unknown' };
  const activityId = parts[4] as string;
  if (parts.length !== 5) return { op: 'unknown' };
  const op =
    method === 'POST' ? 'reply' : method === 'PUT' ? 'update' : method === 'DELETE' ? 'delete' : 'unknown';
  return { op, conversationId, activityId };
}
