/**
 * An MCP tool's input schema as the Messages API takes it. The API refuses
 * a schema whose top level is not `type: "object"` or has `oneOf`, `allOf`
 * or `anyOf` ("input_schema does not support oneOf, allOf, or anyOf at the
 * top level"), and one such tool fails every request of every chat. So:
 *
 * - a top-level `allOf` of plain object schemas is merged into one object
 *   schema (properties and `required` joined; a property two branches both
 *   describe keeps both as a nested `allOf`, which the API takes);
 * - a `oneOf`/`anyOf` with a single branch is that branch;
 * - anything else has no equivalent without the combinator, and the tool is
 *   left out with the reason, rather than offered with a looser schema the
 *   server would then refuse in ways the model cannot foresee.
 */

type Schema = Record<string, unknown>;

/** The schema to send, or why the tool cannot be offered. */
export type ApiSchema = { schema: Schema } | { reason: string };

const COMBINATORS = ['allOf', 'anyOf', 'oneOf'] as const;
/** Keys a branch of a top-level allOf may have for the merge to mean the same thing. */
const MERGEABLE = new Set(['type', 'properties', 'required', 'description', 'title', 'additionalProperties']);

/**
 * `input` made acceptable to the API, without changing what it accepts.
 *
 * @example
 * apiInputSchema({ type: 'object', allOf: [{ properties: { a: {} } }, { required: ['a'] }] });
 * // { schema: { type: 'object', properties: { a: {} }, required: ['a'] } }
 */
export function apiInputSchema(input: Schema): ApiSchema {
  if (input.type !== undefined && input.type !== 'object')
    return {
      reason: `its input schema is of type ${JSON.stringify(input.type)}, and the API takes only objects`,
    };
  let schema: Schema = { ...input, type: 'object' };
  for (const key of ['oneOf', 'anyOf'] as const) {
    const branches = schema[key];
    if (branches === undefined) continue;
    if (!Array.isArray(branches) || branches.length !== 1)
      return {
        reason: `its input schema has a top-level ${key} of ${Array.isArray(branches) ? branches.length : 'no'} alternatives, which the Messages API refuses and which has no equivalent without it`,
      };
    const { [key]: _, ...rest } = schema;
    schema = { ...rest, allOf: [...((rest.allOf as Schema[] | undefined) ?? []), branches[0] as Schema] };
  }
  const all = schema.allOf;
  if (all === undefined) return { schema };
  if (!Array.isArray(all)) return { reason: 'its input schema has a top-level allOf that is not a list' };
  const { allOf: _, ...merged } = schema;
  for (const branch of all as unknown[]) {
    const problem = mergeInto(merged, branch);
    if (problem) return { reason: `its input schema has a top-level allOf that ${problem}` };
  }
  return COMBINATORS.some((k) => Object.hasOwn(merged, k))
    ? { reason: 'its input schema nests combinators at the top level, which the Messages API refuses' }
    : { schema: merged };
}

/** Merges one allOf `branch` into `target`; says why it cannot be merged faithfully. */
function mergeInto(target: Schema, branch: unknown): string | undefined {
  if (typeof branch !== 'object' || branch === null || Array.isArray(branch)) return 'holds a non-schema';
  const b = branch as Schema;
  const odd = Object.keys(b).find((k) => !MERGEABLE.has(k));
  if (odd) return `uses ${JSON.stringify(odd)} in a branch, which cannot be merged`;
  if (b.type !== undefined && b.type !== 'object') return 'has a branch that is not an object';
  // additionalProperties only sees its own schema's properties: merging would loosen or tighten it.
  if (b.additionalProperties !== undefined && b.additionalProperties !== true)
    return 'limits additionalProperties in a branch';
  const own = (target.properties as Schema | undefined) ?? {};
  const extra = (b.properties as Schema | undefined) ?? {};
  if (target.additionalProperties === false && Object.keys(extra).some((k) => !Object.hasOwn(own, k)))
    return 'adds properties the top level forbids';
  const properties: Schema = { ...own };
  for (const [key, value] of Object.entries(extra))
    properties[key] =
      Object.hasOwn(own, key) && JSON.stringify(own[key]) !== JSON.stringify(value)
        ? { allOf: [own[key], value] }
        : value;
  if (Object.keys(properties).length > 0) target.properties = properties;
  const required = [...new Set([...asStrings(target.required), ...asStrings(b.required)])];
  if (required.length > 0) target.required = required;
  return undefined;
}

function asStrings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
