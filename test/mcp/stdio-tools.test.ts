/**
 * A real MCP server over stdio (the SDK's McpServer in a child process)
 * gives the agent its tools, through a real session and the fake Messages
 * API: what the model is offered, what runs without asking, what asks
 * first, and what comes back.
 */
import { describe, expect, it } from 'vitest';
import { isAllowedEnvName } from '../../src/tools/env.js';
import { toolResults } from '../fakes/anthropic.js';
import { PNG_1X1 } from '../fakes/images.js';
import type { BotHarness } from '../helpers/bot-harness.js';
import { approvalPrompt, button, closingMcpWorlds, notesEntry, toolNames, turnCalling } from './helpers.js';

const startMcpWorld = closingMcpWorlds();

const BUILT_IN = ['Read', 'Write', 'Edit', 'Glob', 'Grep', 'Bash', 'SendFile', 'Schedule'];
const NOTES_TOOLS = [
  // The fixture's name too long for the API, cut to fit and made unique by a hash of the whole.
  'mcp__notes__a_name_that_is_far_too_long_for_the_messages__7858ae',
  'mcp__notes__add_note',
  'mcp__notes__attachments',
  'mcp__notes__big',
  'mcp__notes__delete_note',
  'mcp__notes__fail',
  'mcp__notes__lookup',
  'mcp__notes__picture',
  'mcp__notes__show_env',
  'mcp__notes__sleeper',
  'mcp__notes__wait',
];

interface Call {
  tool: string;
  input: Record<string, unknown>;
  /** What the server answers. */
  result: string;
  /** What the approval prompt must show. */
  shown?: string;
}

/** One turn calling `unasked` then `asked`: the first runs at once, the second after its prompt is allowed. */
async function expectUnaskedThenAsked(h: BotHarness, unasked: Call, asked: Call): Promise<void> {
  h.fakeAnthropic.enqueue(
    { text: 'First.', toolUse: [{ name: unasked.tool, input: unasked.input }] },
    { text: 'Second.', toolUse: [{ name: asked.tool, input: asked.input }] },
    { text: 'Done.' },
  );
  await h.message('two calls');
  const prompt = await approvalPrompt(h);
  expect(prompt.text).toContain(asked.shown);
  expect(toolResults(h.fakeAnthropic.requests)).toEqual([{ text: unasked.result, isError: false }]);
  await h.press(button(prompt, 'a:'));
  await h.settle();
  expect(toolResults(h.fakeAnthropic.requests).at(-1)).toEqual({ text: asked.result, isError: false });
}

describe('MCP tools over stdio', () => {
  it('offers the tools as mcp__notes__<tool>, sorted, with their schemas, byte for byte the same on every turn; a name too long for the API is shortened to fit', async () => {
    const world = await startMcpWorld({ notes: notesEntry });
    const { h } = world;
    await h.message('first');
    await h.settle();
    await h.message('second');
    await h.settle();
    const [first, second] = h.fakeAnthropic.requests;
    expect(toolNames(first)).toEqual([...BUILT_IN, ...NOTES_TOOLS]);
    const lookup = first.tools.find((t: { name: string }) => t.name === 'mcp__notes__lookup');
    expect(lookup.description).toBe('Reads one note by key.');
    expect(lookup.input_schema.properties.key).toMatchObject({ type: 'string', description: 'The note key' });
    expect(JSON.stringify(second.tools)).toBe(JSON.stringify(first.tools));
  });

  it('runs a read-only tool without asking in default mode and gives the model its text', async () => {
    const world = await startMcpWorld({ notes: notesEntry });
    const { h } = world;
    await turnCalling(h, 'mcp__notes__lookup', { key: 'k1' }, 'It says buy milk.');
    expect(h.texts().some((t) => t.startsWith('🔐'))).toBe(false);
    expect(toolResults(h.fakeAnthropic.requests)).toEqual([{ text: 'note k1: buy milk', isError: false }]);
    expect(h.texts().join('\n')).toContain('It says buy milk.');
  });

  it('asks before a destructive tool, showing the server, the tool and the arguments; "allow for this session" covers the same arguments only', async () => {
    const world = await startMcpWorld({ notes: notesEntry });
    const { h } = world;
    const remove = (id: number) => ({
      text: `Deleting ${id}.`,
      toolUse: [{ name: 'mcp__notes__delete_note', input: { id } }],
    });
    h.fakeAnthropic.enqueue(remove(7), { text: 'Gone.' });
    await h.message('delete note 7');
    const prompt = await approvalPrompt(h);
    expect(prompt.text).toContain('delete\\_note on notes');
    expect(prompt.text).toContain('"id": 7');
    expect(await h.press(button(prompt, 's:'))).toEqual(['Allowed for this session.']);
    await h.settle();
    expect(toolResults(h.fakeAnthropic.requests).at(-1)).toEqual({ text: 'deleted note 7', isError: false });

    // The same call again runs at once; another id asks again.
    const seen = h.adapter.chatMessages(h.chat).length;
    h.fakeAnthropic.enqueue(remove(7), { text: 'Gone again.' });
    await h.message('delete note 7 again');
    await h.settle();
    expect(
      h.adapter
        .chatMessages(h.chat)
        .slice(seen)
        .some((m) => m.text.startsWith('🔐')),
    ).toBe(false);
    expect(toolResults(h.fakeAnthropic.requests).at(-1)).toEqual({ text: 'deleted note 7', isError: false });

    const before = h.adapter.chatMessages(h.chat).length;
    h.fakeAnthropic.enqueue(remove(8), { text: 'Not deleted.' });
    await h.message('delete note 8');
    const second = await approvalPrompt(h, before);
    expect(second.text).toContain('"id": 8');
    await h.press(button(second, 'd:'));
    await h.settle();
    const last = toolResults(h.fakeAnthropic.requests).at(-1);
    expect(last?.isError).toBe(true);
    expect(last?.text).toMatch(/Permission denied/);
  });

  it('sends images back inside the tool_result after the text; an image the API would refuse is named instead', async () => {
    const world = await startMcpWorld({ notes: notesEntry });
    const { h } = world;
    await turnCalling(h, 'mcp__notes__picture', {}, 'A tiny board.');
    const result = h.fakeAnthropic.requests[1].messages.at(-1).content[0];
    expect(result.type).toBe('tool_result');
    expect(result.content).toHaveLength(2);
    expect(result.content[0].type).toBe('text');
    expect(result.content[0].text).toContain('the board:');
    expect(result.content[0].text).toContain('[resource link: board notes://board]');
    expect(result.content[0].text).toMatch(/\[image 2 left out: it is image\/bmp/);
    expect(result.content[1]).toEqual({
      type: 'image',
      source: { type: 'base64', media_type: 'image/png', data: PNG_1X1 },
    });
    expect(h.texts().join('\n')).toContain('A tiny board.');
    // The session was saved with the image and reads back as a valid record.
    const [entry] = await h.sessionStore.list();
    const saved = await h.sessionStore.load(entry?.id as string);
    expect(saved.status).toBe('valid');
    const blocks = saved.status === 'valid' ? saved.record.messages.flatMap((m) => m.content) : [];
    expect(blocks.find((b) => b.type === 'tool_result')).toMatchObject({
      images: [{ mediaType: 'image/png', data: PNG_1X1 }],
    });
  });

  it('gives embedded text resources as text, names binary resources and audio, and keeps an error an error', async () => {
    const world = await startMcpWorld({ notes: notesEntry });
    const { h } = world;
    await turnCalling(h, 'mcp__notes__attachments', {}, 'Read them.');
    await turnCalling(h, 'mcp__notes__fail', {}, 'It failed.');
    const [attachments, failed] = toolResults(h.fakeAnthropic.requests);
    expect(attachments).toEqual({
      text: [
        '[resource notes://1.txt]\nthe note text',
        '[binary resource notes://1.pdf (application/pdf), 9 bytes, left out]',
        '[audio (audio/wav, 6 bytes) left out: the model cannot listen to it]',
      ].join('\n'),
      isError: false,
    });
    expect(failed?.isError).toBe(true);
    expect(failed?.text).toContain('the notes database is locked');
  });

  it('caps a long text result like Bash output, keeping its beginning and end', async () => {
    const world = await startMcpWorld({ notes: notesEntry });
    const { h } = world;
    await turnCalling(h, 'mcp__notes__big', {}, 'Long.');
    const [result] = toolResults(h.fakeAnthropic.requests);
    expect(result?.text.startsWith('a'.repeat(15_000))).toBe(true);
    expect(result?.text.endsWith('z'.repeat(15_000))).toBe(true);
    expect(result?.text).toContain('[output truncated: 70000 characters omitted]');
    expect(result?.text.length).toBeLessThan(30_100);
  });

  it('classes tools by annotation: a non-destructive change runs unasked in acceptEdits, a destructive one still asks', async () => {
    const world = await startMcpWorld({ notes: notesEntry });
    const { h } = world;
    expect(await h.ask('mode', 'acceptEdits')).toBe('Permission mode is now acceptEdits.');
    await expectUnaskedThenAsked(
      h,
      { tool: 'mcp__notes__add_note', input: { text: 'eggs' }, result: 'added: eggs' },
      {
        tool: 'mcp__notes__delete_note',
        input: { id: 3 },
        result: 'deleted note 3',
        shown: 'delete\\_note on notes',
      },
    );
  });

  it("lets the file's permission and toolPermissions override the annotations", async () => {
    const world = await startMcpWorld({
      notes: { ...notesEntry, permission: 'inspect', toolPermissions: { lookup: 'execute' } },
    });
    const { h } = world;
    await expectUnaskedThenAsked(
      h,
      { tool: 'mcp__notes__delete_note', input: { id: 4 }, result: 'deleted note 4' },
      {
        tool: 'mcp__notes__lookup',
        input: { key: 'k4' },
        result: 'note k4: buy milk',
        shown: 'lookup on notes',
      },
    );
  });

  it("starts the server with the scrubbed environment plus the file's env, never the bot's secrets", async () => {
    const world = await startMcpWorld(
      { notes: notesEntry },
      { env: { NOTES_TOKEN: 'notes-token-from-env' } },
    );
    const { h } = world;
    await turnCalling(h, 'mcp__notes__show_env', {}, 'Done.');
    const seen = JSON.parse(toolResults(h.fakeAnthropic.requests)[0]?.text ?? '{}');
    // The server got the value (only the exact value is scrubbed), and the model does not see it.
    expect(seen.token).toBe('[redacted]');
    const unexpected = (seen.names as string[]).filter(
      (name) => !isAllowedEnvName(name) && !['NOTES_EVENTS', 'NOTES_TOKEN'].includes(name),
    );
    expect(unexpected).toEqual([]);
  });

  it('/tools lists the tools by server and /status counts them', async () => {
    const world = await startMcpWorld({ notes: notesEntry });
    const { h } = world;
    const tools = await h.ask('tools');
    expect(tools).toContain('Built in: Read, Write, Edit, Glob, Grep, Bash');
    expect(tools).toContain(`MCP server notes (connected, 11 tools): ${NOTES_TOOLS.join(', ')}`);
    expect(await h.ask('status')).toContain('MCP server notes: connected, 11 tools');
  });
});
