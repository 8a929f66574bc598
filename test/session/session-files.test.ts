/**
 * Files handed to a session with a prompt, against the fake Messages API and
 * a real workspace (through the real sandbox helper): each is saved under
 * uploads/ with a safe, unique name, the model is told what arrived and
 * where, and it sees PDFs as documents, text as text and images as images
 * within the API's limits; everything else stays in the workspace for the
 * tools. Nothing the sender names becomes a path, and a link the agent
 * planted is not followed.
 */
import { lstat, mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PNG_1X1 } from '../fakes/images.js';
import { pdfBytes } from '../fakes/pdfs.js';
import { lastUserBlocks, recordEvents, removeDir, tempDir, useSessionFixture } from './helpers.js';

const fx = useSessionFixture();
const DATED = /^\d{4}-\d{2}-\d{2}-/;

// biome-ignore lint/suspicious/noExplicitAny: request bodies from the fake.
type Block = any;
const blocksOf = (i = 0): Block[] => lastUserBlocks(fx.fake.requests[i]);
const notes = (blocks: Block[]) =>
  blocks.filter((b) => b.type === 'text' && b.text.startsWith('[File received')).map((b) => b.text);
const uploads = async () => (await readdir(join(fx.cwd, 'uploads'))).sort();

describe('files sent with a prompt', () => {
  it('saves a PDF, a CSV and an archive under uploads/; the model reads the PDF and the CSV and is told where the archive is', async () => {
    const s = fx.session();
    const csv = 'name,total\nann,3\nbob,4\n';
    const zip = Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0, 0, 0, 0xff, 0xfe]);
    const { completed } = await s.submit({
      text: 'sum these up',
      files: [
        { name: 'report.pdf', mediaType: 'application/pdf', bytes: pdfBytes(3) },
        { name: 'totals.csv', mediaType: 'text/csv', bytes: Buffer.from(csv) },
        { name: 'logs.zip', mediaType: 'application/zip', bytes: zip },
      ],
    });
    await completed;
    const saved = await uploads();
    expect(saved.map((n) => n.replace(DATED, ''))).toEqual(['logs.zip', 'report.pdf', 'totals.csv']);
    expect(saved.every((n) => DATED.test(n))).toBe(true);
    const pdfName = saved.find((n) => n.endsWith('report.pdf')) as string;
    expect(await readFile(join(fx.cwd, 'uploads', pdfName))).toEqual(pdfBytes(3));

    const blocks = blocksOf();
    // The files come first, the question last (long-context tips).
    expect(blocks.at(-1)).toMatchObject({ type: 'text', text: 'sum these up' });
    const document = blocks.find((b) => b.type === 'document');
    expect(document).toMatchObject({
      source: { type: 'base64', media_type: 'application/pdf', data: pdfBytes(3).toString('base64') },
      title: 'report.pdf',
    });
    expect(blocks.some((b) => b.type === 'text' && b.text === csv)).toBe(true);
    const [pdfNote, csvNote, zipNote] = notes(blocks);
    expect(pdfNote).toContain(`"report.pdf"`);
    expect(pdfNote).toContain(`saved as uploads/${pdfName}`);
    expect(pdfNote).toContain('3 page(s) follow');
    expect(csvNote).toContain('text/csv');
    expect(csvNote).toContain('Its text follows');
    expect(zipNote).toMatch(/not text, an image or a PDF.*archives are not unpacked/);
    // The archive was saved as sent, not unpacked.
    expect(saved).toHaveLength(3);
  });

  it('a name from the platform never becomes a path: traversal, dots, control and bidi characters are removed', async () => {
    const s = fx.session();
    const hostile = '../../../etc/\u202Egpj.exe\u0007 "quoted".txt';
    const { completed } = await s.submit({
      text: '',
      files: [
        { name: hostile, bytes: Buffer.from('one') },
        { name: '..', bytes: Buffer.from('two') },
        { name: '.bashrc', bytes: Buffer.from('three') },
        { name: `${'x'.repeat(400)}.txt`, bytes: Buffer.from('four') },
      ],
    });
    await completed;
    const saved = await uploads();
    expect(saved).toHaveLength(4);
    for (const name of saved) {
      expect(name).toMatch(/^\d{4}-\d{2}-\d{2}-[\p{L}\p{N}._-]+$/u);
      expect(Buffer.byteLength(name)).toBeLessThanOrEqual(140);
    }
    expect(saved.map((n) => n.replace(DATED, ''))).toEqual(
      expect.arrayContaining(['gpj.exe_quoted.txt', 'file.txt', 'bashrc.txt']),
    );
    // Nothing was written outside uploads/ (the workspace holds only that folder).
    expect(await readdir(fx.cwd)).toEqual(['uploads']);
    // The model sees the original name, escaped, without the bidi override.
    const note = notes(blocksOf())[0] as string;
    expect(note).toContain('"../../../etc/gpj.exe\\u0007 \\"quoted\\".txt"');
    expect(note).not.toContain('\u202E');
  });

  it('never overwrites or follows a link the agent planted: the same name again gets a suffix', async () => {
    const outside = await tempDir('sb-outside-');
    try {
      const target = join(outside, 'secret.txt');
      await writeFile(target, 'untouched');
      const s = fx.session();
      await (await s.submit({ text: 'first', files: [{ name: 'notes.txt', bytes: Buffer.from('v1') }] }))
        .completed;
      const [first] = await uploads();
      const date = (first as string).slice(0, 10);
      // The agent (which owns the workspace) plants a link under the next name the bot would try.
      await symlink(target, join(fx.cwd, 'uploads', `${date}-notes-2.txt`));
      await (await s.submit({ text: 'second', files: [{ name: 'notes.txt', bytes: Buffer.from('v2') }] }))
        .completed;
      expect(await readFile(target, 'utf8')).toBe('untouched');
      expect(await readFile(join(fx.cwd, 'uploads', `${date}-notes.txt`), 'utf8')).toBe('v1');
      expect(await readFile(join(fx.cwd, 'uploads', `${date}-notes-3.txt`), 'utf8')).toBe('v2');
      expect(notes(blocksOf(1))[0]).toContain(`saved as uploads/${date}-notes-3.txt`);
    } finally {
      await removeDir(outside);
    }
  });

  it('a platform attachment handed over without its content is named to the chat; the others still arrive', async () => {
    const s = fx.session();
    const rec = recordEvents(s);
    const { completed } = await s.submit({
      text: 'both please',
      files: [
        { kind: 'document', name: 'never-fetched.pdf', size: 2048 },
        { kind: 'document', name: 'here.txt', bytes: Buffer.from('present') },
      ],
    });
    await completed;
    expect(rec.of('notice').map(([text]) => text)).toEqual([
      '"never-fetched.pdf" came without its content, so it was not saved; send it again.',
    ]);
    expect((await uploads()).map((n) => n.replace(DATED, ''))).toEqual(['here.txt']);
    expect(blocksOf().some((b) => b.type === 'text' && b.text === 'present')).toBe(true);
  });

  it('an uploads folder linked outside the workspace is refused: nothing is written there, the chat and the model are told', async () => {
    const outside = await tempDir('sb-outside-');
    try {
      await symlink(outside, join(fx.cwd, 'uploads'));
      const s = fx.session();
      const rec = recordEvents(s);
      await (await s.submit({ text: 'read it', files: [{ name: 'a.txt', bytes: Buffer.from('hello') }] }))
        .completed;
      expect(await readdir(outside)).toEqual([]);
      expect((await lstat(join(fx.cwd, 'uploads'))).isSymbolicLink()).toBe(true);
      expect(rec.of('notice').map(([text]) => text)).toEqual([
        '"a.txt" could not be saved in the workspace; the model was told.',
      ]);
      const blocks = blocksOf();
      expect(notes(blocks)[0]).toContain('not saved (the workspace refused it)');
      // Its text still reaches the model.
      expect(blocks.some((b) => b.type === 'text' && b.text === 'hello')).toBe(true);
    } finally {
      await removeDir(outside);
    }
  });

  it('PDFs past the 100 pages one request takes, and encrypted ones, stay in the workspace with a note', async () => {
    const s = fx.session();
    await (await s.submit({ text: 'a', files: [{ name: 'big.pdf', bytes: pdfBytes(80) }] })).completed;
    await (
      await s.submit({
        text: 'b',
        files: [
          { name: 'more.pdf', bytes: pdfBytes(30) },
          { name: 'locked.pdf', bytes: pdfBytes(1, { encrypted: true }) },
        ],
      })
    ).completed;
    // Both requests were accepted by the fake, which refuses over 100 pages and encrypted PDFs.
    expect(fx.fake.requests).toHaveLength(2);
    const blocks = blocksOf(1);
    expect(blocks.filter((b) => b.type === 'document')).toHaveLength(0);
    const [more, locked] = notes(blocks);
    expect(more).toMatch(/30 pages; .*more than one request takes \(100 pages/);
    expect(locked).toContain('encrypted');
    expect(await uploads()).toHaveLength(3);
  });

  it('a PDF the API refuses (truncated) is replaced by a note once, the chat told, and the turn answered', async () => {
    const s = fx.session();
    const rec = recordEvents(s);
    const truncated = pdfBytes(2).subarray(0, -8);
    const result = await (await s.submit({ text: 'read it', files: [{ name: 'cut.pdf', bytes: truncated }] }))
      .completed;
    expect(result.state).toBe('complete');
    expect(fx.fake.requests).toHaveLength(2);
    expect(blocksOf(1).some((b) => b.type === 'document')).toBe(false);
    expect(JSON.stringify(blocksOf(1))).toContain(
      'a PDF the API refused was removed; the file is still in the workspace',
    );
    expect(rec.of('notice').map(([text]) => text)).toEqual([
      'The API refused one document block of this conversation; it was replaced by a note.',
    ]);
    expect(await uploads()).toHaveLength(1);
    // The next turn goes out without it: the session is not locked.
    await (await s.submit('and now?')).completed;
    expect(fx.fake.requests).toHaveLength(3);
  });

  it('a text file longer than the bound, and an image over the API limits, are left for the tools', async () => {
    const s = fx.session();
    const long = 'line of log text\n'.repeat(10_000);
    await (
      await s.submit({
        text: 'look',
        files: [
          { name: 'app.log', bytes: Buffer.from(long) },
          { name: 'dot.png', mediaType: 'image/png', bytes: Buffer.from(PNG_1X1, 'base64') },
          {
            name: 'fake.png',
            mediaType: 'image/png',
            bytes: Buffer.from('\x89PNG\r\n\x1a\nbroken', 'latin1'),
          },
        ],
      })
    ).completed;
    const blocks = blocksOf();
    const [log, dot, broken] = notes(blocks);
    // The default model's 200K window shows at most 80,000 characters (a tenth of it, about 4 per token).
    expect(log).toMatch(/\(166 KB, text\).*170,000 characters of text, more than the 80,000 shown at once/);
    expect(blocks.some((b) => b.type === 'text' && b.text === long)).toBe(false);
    expect(dot).toContain('It follows');
    expect(blocks.filter((b) => b.type === 'image')).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_1X1 } },
    ]);
    expect(broken).toMatch(/not shown to you: its size could not be read/);
    expect(await uploads()).toHaveLength(3);
  });
});

it('keeps the workspace it was given: files of one session do not land in another', async () => {
  const other = await tempDir('sb-other-');
  try {
    await mkdir(join(other, 'nested'));
    const a = fx.session();
    const b = fx.session({ cwd: join(other, 'nested') });
    await (await a.submit({ text: 'a', files: [{ name: 'a.txt', bytes: Buffer.from('A') }] })).completed;
    await (await b.submit({ text: 'b', files: [{ name: 'b.txt', bytes: Buffer.from('B') }] })).completed;
    expect((await uploads()).map((n) => n.replace(DATED, ''))).toEqual(['a.txt']);
    expect((await readdir(join(other, 'nested', 'uploads'))).map((n) => n.replace(DATED, ''))).toEqual([
      'b.txt',
    ]);
  } finally {
    await removeDir(other);
  }
});
