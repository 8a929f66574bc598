/**
 * `/rules`: what runs in this chat without asking. The stored rules (made
 * with `Always allow`) and the session's "allow for this session" grants,
 * each with an id, who made it and when; `/rules revoke <id>` takes one
 * back (a rule: admins; a grant: admins and the session's owner).
 */
import type { CommandContext } from './command-context.js';
import { markdownInlineCode } from './format/syntax.js';
import type { StoredRule } from './rules.js';

const USAGE = 'Usage: /rules, or /rules revoke <id>';
/** Session grants are numbered `g1`, `g2`… in the order they were made. */
const GRANT_ID = /^g(\d{1,4})$/;

const when = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

function ruleLine(rule: StoredRule): string {
  const what =
    'prefix' in rule.match
      ? `${rule.tool} commands that start with ${markdownInlineCode(rule.match.prefix)}`
      : `${rule.tool} with exactly ${markdownInlineCode(JSON.stringify(rule.match.args))}`;
  return `• ${rule.id}: ${what}, by ${rule.by}, ${when(rule.at)}`;
}

/** Runs `/rules [revoke <id>]`. */
export async function runRules(ctx: CommandContext, args: string): Promise<void> {
  const rules = ctx.rules;
  if (!rules) {
    await ctx.answer('Rules are not kept by this bot.');
    return;
  }
  if (args) return revoke(ctx, args);
  const stored = await rules.list(ctx.chat);
  const session = await ctx.registry.existing(ctx.chat);
  const grants = session?.getSession().listGrants() ?? [];
  const notes = session ? await rules.grantNotes(session.getSession().getSessionId()) : new Map();
  if (stored.length === 0 && grants.length === 0) {
    await ctx.answer(
      'No rules or session grants in this chat: every tool call that needs approval asks. Admins make a rule with Always allow on a prompt.',
    );
    return;
  }
  const lines: string[] = [];
  if (stored.length) lines.push('Rules of this chat (Always allow):', ...stored.map(ruleLine));
  if (grants.length) {
    lines.push('Grants of this session (Allow for this session):');
    grants.forEach((scope, i) => {
      const note = notes.get(scope);
      lines.push(
        `• g${i + 1}: ${markdownInlineCode(scope)}${note ? `, by ${note.by}, ${when(note.at)}` : ''}`,
      );
    });
  }
  lines.push('/rules revoke <id> takes one back.');
  await ctx.answer(lines.join('\n'));
}

async function revoke(ctx: CommandContext, args: string): Promise<void> {
  const id = /^revoke\s+([0-9a-z]{1,24})$/i.exec(args.trim())?.[1]?.toLowerCase();
  if (!id) {
    await ctx.answer(USAGE);
    return;
  }
  const grant = GRANT_ID.exec(id);
  if (grant) return revokeGrant(ctx, id, Number(grant[1]));
  if (!ctx.access.isAdmin(ctx.user)) {
    await ctx.answer('Only an admin can revoke a rule.');
    return;
  }
  const rule = await ctx.rules?.revoke(ctx.chat, id);
  ctx.logger.info({ chat: ctx.chat, rule: id, found: rule !== undefined }, 'rule revoked');
  await ctx.answer(
    rule ? `Revoked rule ${id}: ${rule.tool} asks again.` : `No rule ${id} in this chat. /rules lists them.`,
  );
}

async function revokeGrant(ctx: CommandContext, id: string, n: number): Promise<void> {
  let answer = `No grant ${id} in this session. /rules lists them.`;
  await ctx.runtime.exclusive(async () => {
    const session = await ctx.registry.existing(ctx.chat);
    if (!session) return;
    if (!ctx.access.isAdmin(ctx.user) && !ctx.access.owns(ctx.user, session.getOwner())) {
      answer = "Only an admin or the session's owner can revoke its grants.";
      return;
    }
    const handle = session.getSession();
    const scope = handle.listGrants()[n - 1];
    if (scope === undefined || !handle.revokeGrant(scope)) return;
    await ctx.reportSave(session);
    answer = `Revoked grant ${id}: ${markdownInlineCode(scope)} asks again.`;
  });
  await ctx.answer(answer);
}
