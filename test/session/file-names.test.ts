/** Names for received files: nothing from the platform becomes a path, and names stay short and readable. */
import { describe, expect, it } from 'vitest';
import { candidateNames, safeBaseName, shownName } from '../../src/session/file-names.js';

describe('received file names', () => {
  it('keep letters of any script, digits, dots, dashes and underscores; nothing else', () => {
    expect(safeBaseName('отчёт за март.pdf')).toBe('отчёт_за_март.pdf');
    expect(safeBaseName('C:\\Users\\ann\\notes (final).txt')).toBe('notes_final.txt');
    expect(safeBaseName('../../.ssh/authorized_keys')).toBe('authorized_keys');
    expect(safeBaseName('-rf')).toBe('rf');
    expect(safeBaseName('...')).toBe('file');
    expect(safeBaseName(undefined)).toBe('file');
    expect(safeBaseName('a\u202Etxt.exe')).toBe('atxt.exe');
  });

  it('are bounded in bytes without splitting a character, keeping the extension', () => {
    const name = safeBaseName(`${'ж'.repeat(200)}.csv`);
    expect(Buffer.byteLength(name)).toBeLessThanOrEqual(120);
    expect(name.endsWith('ж.csv')).toBe(true);
  });

  it('start with the date, then try numbered names, then a random one', () => {
    const names = candidateNames('report.csv', '2026-12-01');
    expect(names.slice(0, 3)).toEqual([
      '2026-12-01-report.csv',
      '2026-12-01-report-2.csv',
      '2026-12-01-report-3.csv',
    ]);
    expect(names.at(-1)).toMatch(/^2026-12-01-report-[0-9a-f]{8}\.csv$/);
    expect(candidateNames(undefined, '2026-12-01', '.png')[0]).toBe('2026-12-01-file.png');
    expect(candidateNames('data.json', '2026-12-01', '.txt')[0]).toBe('2026-12-01-data.json');
  });

  it('are shown quoted and escaped, without format characters, bounded', () => {
    expect(shownName('say "hi"\n.txt')).toBe('"say \\"hi\\"\\n.txt"');
    expect(shownName('\u202Eevil')).toBe('"evil"');
    expect(shownName('')).toBe('an unnamed file');
    expect(shownName('x'.repeat(500)).length).toBeLessThan(130);
  });
});
