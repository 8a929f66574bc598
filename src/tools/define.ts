/**
 * Shared plumbing for the built-in tools: input validation with zod (bad
 * input becomes an error result naming the field), the JSON schema the model
 * sees, and turning expected failures into `isError` results instead of
 * exceptions that would end the turn.
 */
import { z } from 'zod';
import { describeError, SwitchboardError } from '../errors.js';
import type { ToolClass } from '../vocabulary.js';
import type { Tool, ToolContext, ToolResult } from './types.js';

/** The longest summary line a tool produces (approval prompts, status lines). */
export const SUMMARY_MAX_CHARS = 80;

/** The `file_path` input of Read, Write and Edit, described the same way to the model. */
export const filePathField = z
  .string()
  .min(1)
  .describe('Path of the file, relative to the workspace or absolute inside it.');

/** What a built-in tool declares; {@link defineTool} adds validation and error handling. */
export interface ToolSpec<S extends z.ZodObject> {
  name: string;
  description: string;
  toolClass: ToolClass;
  schema: S;
  /** The interesting part of the input for the summary line (`npm test`, `src/a.ts`). */
  subject(input: Record<string, unknown>): string;
  scopeKey(input: Record<string, unknown>): string;
  run(input: z.infer<S>, context: ToolContext): Promise<ToolResult>;
}

/** Squeezes `text` onto one line of at most `max` characters, ending with `…` when cut. */
export function oneLine(text: string, max = SUMMARY_MAX_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** A string field of an unvalidated input, or undefined. */
export function stringField(input: Record<string, unknown>, field: string): string | undefined {
  const value = input[field];
  return typeof value === 'string' ? value : undefined;
}

/**
 * `subject` and `scopeKey` of a tool that acts on one `file_path`: the status
 * line names the file, and "allow for this session" covers that file only.
 */
export const onFilePath = {
  subject: (input: Record<string, unknown>): string => stringField(input, 'file_path') ?? '?',
  scopeKey: (input: Record<string, unknown>): string => pathScope(input, 'file_path'),
};

/**
 * `subject` and `scopeKey` of a search tool (`pattern` in an optional `path`):
 * "allow for this session" covers that folder.
 */
export const onPatternInPath = {
  subject: (input: Record<string, unknown>): string => {
    const pattern = stringField(input, 'pattern') ?? '?';
    const path = stringField(input, 'path');
    return path === undefined ? pattern : `${pattern} in ${path}`;
  },
  scopeKey: (input: Record<string, unknown>): string => pathScope(input, 'path'),
};

/** A path field normalised for approval scopes, so `./a.ts` and `a.ts` share one approval. */
export function pathScope(input: Record<string, unknown>, field: string): string {
  const value = stringField(input, field);
  if (value === undefined || value.trim() === '') return '*';
  const parts: string[] = [];
  for (const part of value.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..' && parts.length > 0 && parts[parts.length - 1] !== '..') parts.pop();
    else parts.push(part);
  }
  const joined = parts.join('/');
  if (value.startsWith('/')) return `/${joined}`;
  return joined === '' ? '.' : joined;
}

/** An error result for the model. */
export function toolError(message: string): ToolResult {
  return { content: message, isError: true };
}

function formatIssues(name: string, error: z.ZodError): string {
  const lines = error.issues.map((issue) => {
    const field = issue.path.length > 0 ? issue.path.join('.') : 'input';
    return `${field}: ${issue.message}`;
  });
  return `Invalid input for ${name}: ${lines.join('; ')}`;
}

function jsonSchemaOf(schema: z.ZodObject): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema) as Record<string, unknown>;
  return rest;
}

/**
 * Builds a {@link Tool} from a spec. Expected failures (bad input, a path
 * outside the workspace, a missing file) come back as `isError` results;
 * only programming errors would escape, and even those are reported as
 * results so one broken tool cannot wedge a session.
 */
export function defineTool<S extends z.ZodObject>(spec: ToolSpec<S>): Tool {
  return {
    name: spec.name,
    description: spec.description,
    inputSchema: jsonSchemaOf(spec.schema),
    toolClass: spec.toolClass,
    summarize: (input) => oneLine(`${spec.name}: ${spec.subject(input)}`),
    scopeKey: (input) => spec.scopeKey(input),
    async run(input, context) {
      const parsed = spec.schema.safeParse(input);
      if (!parsed.success) return toolError(formatIssues(spec.name, parsed.error));
      try {
        return await spec.run(parsed.data, context);
      } catch (err) {
        if (err instanceof SwitchboardError) {
          // A refusal about a file already says what is wrong with it.
          return toolError(err.detail.plain === true ? err.message : `${spec.name} failed: ${err.message}`);
        }
        return toolError(`${spec.name} failed: ${describeError(err)}`);
      }
    },
  };
}

/** Reports a file-system error in words the model can act on. */
export function describeFsError(err: unknown, shownPath: string): string {
  switch ((err as NodeJS.ErrnoException | undefined)?.code) {
    case 'ENOENT':
      return `${shownPath} does not exist.`;
    case 'EISDIR':
      return `${shownPath} is a directory, not a file.`;
    case 'ENOTDIR':
      return `A part of ${shownPath} is a file, not a directory.`;
    case 'EACCES':
    case 'EPERM':
      return `Permission denied for ${shownPath}.`;
    default:
      return `${shownPath}: ${describeError(err)}`;
  }
}
