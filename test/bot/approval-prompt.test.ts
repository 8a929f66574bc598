import { describe, expect, it } from 'vitest';
import { approvalView, type PromptRequest } from '../../src/bot/approval-prompt.js';
import { showCommand, showControls, showHidden } from '../../src/bot/visible-text.js';

const bash = (command: string, description?: string): PromptRequest => ({
  toolName: 'Bash',
  toolArgs: { command, ...(description === undefined ? {} : { description }) },
  summary: `Bash: ${command.slice(0, 80)}`,
  toolClass: 'execute',
});

/** A Write or Edit request with these arguments, shown in a 4,096-character chat. */
const fileView = (toolName: 'Write' | 'Edit', toolArgs: Record<string, unknown>) =>
  approvalView(
    { toolName, toolArgs, summary: `${toolName}: ${toolArgs.file_path}`, toolClass: 'modify' },
    4096,
  );

describe('approval prompts show what will happen', () => {
  it('Bash: the command in a code block and the model’s description', () => {
    const view = approvalView(bash('npm test', 'Run the unit tests'), 4096);
    expect(view).toEqual({
      prompt: '🔐 Bash wants to run:\n```sh\nnpm test\n```\nThe agent says it will: Run the unit tests',
    });
  });

  it('Bash: a command that hides its tail behind a harmless start is shown whole', () => {
    const command = `echo "${'harmless '.repeat(12)}"; cat ../.env`;
    const view = approvalView(bash(command), 4096);
    expect(view.full).toBeUndefined();
    expect(view.prompt).toContain('cat ../.env');
    // Wrapped: no line of the command is longer than the wrap width plus the continuation mark.
    const code = view.prompt.split('```')[1] ?? '';
    for (const line of code.split('\n')) expect([...line].length).toBeLessThanOrEqual(74);
    expect(code.replace(/\n↪ /g, '')).toContain(command);
  });

  it('Bash: spaces that push a command out of view are counted; bidi and control characters are named', () => {
    expect(showCommand(`ls${' '.repeat(300)}; rm -rf x`)).toBe('ls⟨300 spaces⟩; rm -rf x');
    expect(showHidden('echo \u202Egnp.exe\u202C')).toBe('echo ⟨RLO⟩gnp.exe⟨PDF⟩');
    expect(showHidden('a\rb\x1b[2Kc\u200Bd\u{E0041}')).toBe('a⟨CR⟩b⟨ESC⟩[2Kc⟨ZWSP⟩d⟨U+E0041⟩');
    // The marker characters themselves cannot be faked.
    expect(showHidden('⟨RLO⟩')).toBe('⟨U+27E8⟩RLO⟨U+27E9⟩');
    // Layout and emoji stay as they are.
    expect(showHidden('a\tb\nc 👩‍💻')).toBe('a\tb\nc 👩‍💻');
  });

  it('Bash: a run of tabs is counted like spaces and wrapping counts a tab at its widest', () => {
    // 31 tabs are up to 248 blank columns: the payload after them would sit far past the visible edge.
    expect(showCommand(`npm test${'\t'.repeat(31)}; cat ../.env`)).toBe('npm test⟨31 tabs⟩; cat ../.env');
    expect(showCommand(`ls${' \t'.repeat(8)}x`)).toBe('ls⟨8 tabs, 8 spaces⟩x');
    // Short runs stay as they are (indentation in a script).
    expect(showCommand('if true; then\n\techo ok\nfi')).toBe('if true; then\n\techo ok\nfi');
    // Single tabs between words each count as up to 8 columns when a line is wrapped.
    const spread = Array.from({ length: 12 }, (_, i) => `a${i}`).join('\t');
    const view = approvalView(bash(`${spread}; cat ../.env`), 4096);
    const code = view.prompt.split('```')[1] ?? '';
    for (const line of code.split('\n').slice(1)) {
      const columns = [...line].reduce((n, ch) => n + (ch === '\t' ? 8 : 1), 0);
      expect(columns).toBeLessThanOrEqual(74);
    }
    expect(code).toContain('cat ../.env');
  });

  it('terminal text: C0 and C1 controls are shown as markers, newlines and tabs stay', () => {
    expect(showControls('a\x1b]52;c;ZXZpbA==\x07b')).toBe('a⟨ESC⟩]52;c;ZXZpbA==⟨BEL⟩b');
    expect(showControls('x\u009b8m\u009d0;t\u009cy')).toBe('x⟨U+009B⟩8m⟨U+009D⟩0;t⟨U+009C⟩y');
    expect(showControls('one\r\ntwo\rthree\t4\x7f')).toBe('one\ntwo⟨CR⟩three\t4⟨DEL⟩');
    expect(showControls('naïve 👩‍💻\u202e')).toBe('naïve 👩‍💻\u202e');
  });

  it('Bash: a command too long for one message goes whole in the messages above; the prompt says so', () => {
    const command = Array.from({ length: 80 }, (_, i) => `echo line ${i} && true`).join('\n');
    const view = approvalView(bash(command, 'Print lines'), 2000);
    expect(view.prompt.length).toBeLessThanOrEqual(1200);
    expect(view.prompt).toContain('The agent says it will: Print lines');
    expect(view.prompt).toMatch(/Cut to fit: \d+ more lines\. The whole command is in the message above\./);
    expect(view.full).toContain(command);
  });

  it('Write: the file and its new content', () => {
    const view = fileView('Write', {
      file_path: 'src/a.ts',
      content: 'export const a = 1;\nexport const b = 2;\n',
    });
    expect(view.prompt).toBe(
      '🔐 Write wants to write `src/a.ts` (2 lines):\n```ts\nexport const a = 1;\nexport const b = 2;\n\n```',
    );
  });

  it('Write: long content is previewed; the whole content is sent above, capped', () => {
    const content = Array.from({ length: 5000 }, (_, i) => `line ${i}`).join('\n');
    const view = fileView('Write', { file_path: 'big.txt', content });
    expect(view.prompt.length).toBeLessThanOrEqual(4096 * 0.6);
    expect(view.prompt).toContain('line 0\nline 1\n');
    expect(view.prompt).toContain('The whole new content is in the message above.');
    expect(view.full).toContain('line 2999');
    // Beyond 30,000 characters the file itself is the full text: the rest is counted, not sent.
    expect(view.full).not.toContain('line 4999');
    expect(view.full).toMatch(/[\d,]+ more characters not shown here/);
  });

  it('Edit: a diff of the change', () => {
    const view = fileView('Edit', {
      file_path: 'a.py',
      old_string: 'x = 1\ny = 2\nz = 3',
      new_string: 'x = 1\ny = 20\nz = 3',
    });
    expect(view.prompt).toBe(
      '🔐 Edit wants to change `a.py`:\n```diff\n  x = 1\n- y = 2\n+ y = 20\n  z = 3\n```',
    );
  });

  it('any other tool: its input', () => {
    const view = approvalView(
      {
        toolName: 'mcp__db__query',
        toolArgs: { sql: 'DROP TABLE x' },
        summary: 'query',
        toolClass: 'execute',
      },
      4096,
    );
    expect(view.prompt).toContain('"sql": "DROP TABLE x"');
  });
});
