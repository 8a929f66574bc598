/**
 * MCP elicitation (`elicitation/create`, form mode): a server asks the
 * person a question in the middle of a tool call. The question goes to the
 * call that is running on that server (the one asker), which puts it to
 * whoever started the turn; while they think, the call's silence timer is
 * held, so a person taking their time does not get the server restarted.
 *
 * Declined without asking anyone: a question when no call is running, when
 * more than one is (the protocol does not say which call a question belongs
 * to, and guessing could show one person's question to another), when the
 * call has no chat to ask in, and the URL mode (sending a person to a
 * server's page is left out; the client offers only the form mode).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../logger.js';
import type {
  ElicitationAnswer,
  ElicitationField,
  ElicitationQuestion,
  ElicitationValue,
} from '../tools/types.js';

/** A running call that can take a server's question. */
export interface ElicitationAsker {
  /** Puts the question to the call's person; absent when the call has no chat. */
  elicit?: (question: ElicitationQuestion) => Promise<ElicitationAnswer>;
  /** Holds the call's silence timer while the person is asked. */
  hold: () => void;
  /** Starts the silence timer over once they answered. */
  release: () => void;
}

/** Options for {@link installElicitation}. */
export interface ElicitationHandlerOptions {
  server: string;
  logger: Logger;
  /** The calls running on this server now. */
  askers: ReadonlySet<ElicitationAsker>;
}

/** Answers `elicitation/create` through the running call; call before connecting. */
export function installElicitation(client: Client, options: ElicitationHandlerOptions): void {
  const { server, logger, askers } = options;
  client.setRequestHandler(ElicitRequestSchema, async (request, extra): Promise<ElicitResult> => {
    const question = toQuestion(server, request.params);
    const [asker, ...others] = askers;
    const why =
      question === undefined
        ? 'it asked for a URL to be opened, which switchboard does not do'
        : !asker
          ? 'no call of its was running'
          : others.length > 0
            ? 'more than one of its calls was running, so whose question it was is unknown'
            : asker.elicit === undefined
              ? 'the call has no chat to ask in'
              : undefined;
    if (why !== undefined || !question || !asker?.elicit) {
      logger.info({ server }, `MCP server "${server}" asked a question that was declined: ${why}`);
      return { action: 'decline' };
    }
    asker.hold();
    try {
      const answer = await Promise.race([
        asker.elicit(question),
        new Promise<ElicitationAnswer>((resolve) =>
          extra.signal.addEventListener('abort', () => resolve({ action: 'cancel' }), { once: true }),
        ),
      ]);
      logger.info({ server, action: answer.action }, 'MCP elicitation answered');
      return answer;
    } finally {
      asker.release();
    }
  });
}

type FormParams = Extract<ElicitRequest['params'], { requestedSchema: unknown }>;
type Property = FormParams['requestedSchema']['properties'][string];

/** The question a form request asks; undefined for the URL mode. */
export function toQuestion(server: string, params: ElicitRequest['params']): ElicitationQuestion | undefined {
  if (!('requestedSchema' in params)) return undefined;
  const { properties, required = [] } = params.requestedSchema;
  const fields = Object.entries(properties).map(([name, property]) =>
    toField(name, property, required.includes(name)),
  );
  return { source: server, message: params.message, fields };
}

function toField(name: string, property: Property, required: boolean): ElicitationField {
  const p = property as Record<string, unknown>;
  const text = (key: string) => (typeof p[key] === 'string' ? (p[key] as string) : undefined);
  const num = (key: string) => (typeof p[key] === 'number' ? (p[key] as number) : undefined);
  const description = text('description');
  const base = {
    name,
    label: text('title') ?? name,
    required,
    ...(description === undefined ? {} : { description }),
    ...(p.default === undefined ? {} : { default: p.default as ElicitationValue }),
  };
  if (p.type === 'array') {
    const items = (p.items ?? {}) as Record<string, unknown>;
    return {
      ...base,
      kind: 'choices',
      options: optionsOf(items),
      ...bounds(num('minItems'), num('maxItems')),
    };
  }
  const options = optionsOf(p);
  if (options.length > 0) return { ...base, kind: 'choice', options };
  if (p.type === 'boolean') return { ...base, kind: 'boolean' };
  if (p.type === 'number' || p.type === 'integer')
    return { ...base, kind: p.type, ...bounds(num('minimum'), num('maximum')) };
  const format = text('format');
  return {
    ...base,
    kind: 'string',
    ...(format === undefined ? {} : { format }),
    ...bounds(num('minLength'), num('maxLength')),
  };
}

/** The options of an enum in any of the spec's spellings: `enum` (+ `enumNames`), `oneOf`/`anyOf` of `const`. */
function optionsOf(p: Record<string, unknown>): { value: string; label: string }[] {
  if (Array.isArray(p.enum)) {
    const names = Array.isArray(p.enumNames) ? (p.enumNames as unknown[]) : [];
    return (p.enum as unknown[]).map((value, i) => ({
      value: String(value),
      label: typeof names[i] === 'string' ? (names[i] as string) : String(value),
    }));
  }
  const list = Array.isArray(p.oneOf) ? p.oneOf : Array.isArray(p.anyOf) ? p.anyOf : [];
  return (list as Record<string, unknown>[])
    .filter((o) => typeof o.const === 'string')
    .map((o) => ({
      value: o.const as string,
      label: typeof o.title === 'string' ? o.title : (o.const as string),
    }));
}

function bounds(min: number | undefined, max: number | undefined): { min?: number; max?: number } {
  return { ...(min === undefined ? {} : { min }), ...(max === undefined ? {} : { max }) };
}
