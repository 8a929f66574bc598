/** Small PDFs for tests, built in memory: a page tree of `pages` pages, optionally marked encrypted. */

/** A minimal PDF with `pages` page objects; `encrypted` adds an /Encrypt entry to the trailer. */
export function pdfBytes(pages: number, options: { encrypted?: boolean } = {}): Buffer {
  const kids = Array.from({ length: pages }, (_, i) => `${i + 3} 0 R`).join(' ');
  const objects = [
    '1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj',
    `2 0 obj << /Type /Pages /Kids [${kids}] /Count ${pages} >> endobj`,
    ...Array.from(
      { length: pages },
      (_, i) => `${i + 3} 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >> endobj`,
    ),
  ];
  const encrypt = options.encrypted ? ' /Encrypt 99 0 R' : '';
  return Buffer.from(
    `%PDF-1.4\n${objects.join('\n')}\ntrailer << /Root 1 0 R${encrypt} >>\n%%EOF\n`,
    'latin1',
  );
}
