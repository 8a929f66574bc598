/**
 * /sessions and /resume: the commands that look across the store. People
 * see and resume their own sessions (linked identities count as one person);
 * admins see and resume every session. A session someone else owns looks
 * exactly like one that does not exist.
 */
import { describeError } from '../errors.js';
import { validateSessionId, validateSessionName } from '../store/index.js';
import type { SessionMeta, StoreListEntry } from '../store/types.js';
import { type CommandContext, whenIdle } from './command-context.js';
import { say } from './text.js';

const MAX_LISTED = 25;

function updated(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function canSee(ctx: CommandContext, meta: SessionMeta): boolean {
  return ctx.access.isAdmin(ctx.user) || ctx.access.owns(ctx.user, meta.owner);
}

/** /sessions: yours (admins: all), newest first, the current one marked. */
export async function listSessions(ctx: CommandContext): Promise<void> {
  const admin = ctx.access.isAdmin(ctx.user);
  const current = await ctx.registry.boundId(ctx.chat);
  const entries = await ctx.sessions.sessionStore.list();
  const valid: SessionMeta[] = [];
  const broken: StoreListEntry[] = [];
  for (const entry of entries) {
    if (entry.outcome.status === 'valid') {
      if (canSee(ctx, entry.outcome.record)) valid.push(entry.outcome.record);
    } else if (admin || entry.id === current) {
      broken.push(entry);
    }
  }
  if (!valid.length && !broken.length) {
    await ctx.answer('You have no saved sessions yet; send a message to start one.');
    return;
  }
  valid.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  const lines = valid.slice(0, MAX_LISTED).map((m) => {
    const mark = m.id === current ? '▶' : '•';
    const owner = admin && m.owner ? ` · ${m.owner}` : '';
    const here = m.id === current ? ' (this chat)' : '';
    return `${mark} ${say.listedName(m.name)} · ${m.id} · updated ${updated(m.updatedAt)}${owner}${here}`;
  });
  if (valid.length > MAX_LISTED) lines.push(`…and ${valid.length - MAX_LISTED} more.`);
  for (const entry of broken) {
    const o = entry.outcome;
    const why = o.status === 'corrupt' ? `corrupt: ${o.reason}` : o.status;
    lines.push(`✗ ${entry.id} · ${why} (cannot be resumed)`);
  }
  lines.push('Resume one with /resume <name|id>.');
  await ctx.answer([admin ? 'All sessions:' : 'Your sessions:', ...lines].join('\n'));
}

/** /resume <name|id>: by id, or by a name unique among the sessions you may see. */
export async function resumeSession(ctx: CommandContext, arg: string): Promise<void> {
  if (!arg) {
    await ctx.answer('Usage: /resume <name|id>. /sessions lists them.');
    return;
  }
  let asId = true;
  try {
    validateSessionId(arg);
  } catch {
    asId = false;
    try {
      validateSessionName(arg);
    } catch (err) {
      await ctx.answer(`Can't resume that: ${describeError(err)}`);
      return;
    }
  }
  const shown = JSON.stringify(arg);
  const notFound = `No session named ${shown}. See /sessions.`;
  const entries = await ctx.sessions.sessionStore.list();
  const byId = asId ? entries.find((e) => e.id === arg) : undefined;
  let target: SessionMeta | undefined;
  if (byId) {
    if (byId.outcome.status !== 'valid') {
      const visible = ctx.access.isAdmin(ctx.user) || byId.id === (await ctx.registry.boundId(ctx.chat));
      await ctx.answer(visible ? `Session ${arg} can't be resumed: it is ${byId.outcome.status}.` : notFound);
      return;
    }
    if (canSee(ctx, byId.outcome.record)) target = byId.outcome.record;
  } else {
    const named = entries.flatMap((e) =>
      e.outcome.status === 'valid' && e.outcome.record.name === arg.trim() && canSee(ctx, e.outcome.record)
        ? [e.outcome.record]
        : [],
    );
    if (named.length > 1) {
      const ids = named.map((m) => m.id).join(', ');
      await ctx.answer(`Several sessions are named ${shown} (${ids}); resume one by id.`);
      return;
    }
    target = named[0];
  }
  if (!target) {
    await ctx.answer(notFound);
    return;
  }
  const meta = target;
  if ((await ctx.registry.boundId(ctx.chat)) === meta.id) {
    await ctx.answer(say.alreadyOn(meta.name, meta.id));
    return;
  }
  await whenIdle(ctx, 'resume', async () => {
    await ctx.registry.resume(ctx.chat, meta.id, meta.owner);
    return say.resumed(meta.name, meta.id, meta.messageCount, updated(meta.updatedAt));
  });
}
