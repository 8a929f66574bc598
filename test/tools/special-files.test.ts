import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeContext, makeSandbox, type Sandbox, tool } from './helpers.js';

describe('special files', () => {
  let box: Sandbox;
  beforeAll(async () => {
    box = await makeSandbox();
    await box.write({ 'plain.txt': 'needle\n' });
    execFileSync('mkfifo', [join(box.workspace, 'pipe')]);
  });
  afterAll(() => box.cleanup());

  // Opening a FIFO with no writer blocks forever; every file tool must refuse it instead.
  it('Read, Write and Edit refuse a FIFO instead of blocking on it', async () => {
    const context = makeContext(box.workspace);
    const expected = { content: 'pipe is not a regular file.', isError: true };
    expect(await tool('Read').run({ file_path: 'pipe' }, context)).toEqual(expected);
    expect(await tool('Write').run({ file_path: 'pipe', content: 'x' }, context)).toEqual(expected);
    expect(await tool('Edit').run({ file_path: 'pipe', old_string: 'a', new_string: 'b' }, context)).toEqual(
      expected,
    );
  });

  it('Grep skips a FIFO in a folder and refuses one named directly', async () => {
    const grep = tool('Grep');
    const context = makeContext(box.workspace);
    expect(await grep.run({ pattern: 'needle' }, context)).toEqual({ content: 'plain.txt:1:needle' });
    expect(await grep.run({ pattern: 'needle', path: 'pipe' }, context)).toEqual({
      content: 'pipe is not a regular file or folder.',
      isError: true,
    });
  });
});
