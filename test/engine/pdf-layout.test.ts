/** PDF detection and the layout pass (positioned words -> markdown, pages, blocks), on hand-made TSV of the two tools. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isPdf } from '../../src/engine/pdf/detect.js';
import { hocrLineSizes, parseLayoutTsv, readingOrder } from '../../src/engine/pdf/layout.js';
import { escapeMarkdown } from '../../src/engine/pdf/markdown.js';
import { assemble, splitHtmlMeta } from '../../src/engine/pdf/parse-pdf.js';
import { eraseRules } from '../../src/engine/pdf/rules.js';

const HEADER = 'level\tpage_num\tpar_num\tblock_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext';

/** A TSV as pdftotext -tsv writes it: pages of flows of blocks of lines of words `[x, y, text]`, height 12 a line. */
function popplerTsv(pages: { flows: { x: number; y: number; text: string; size?: number }[][][] }[]): string {
  const rows = [HEADER];
  pages.forEach((page, p) => {
    rows.push(`1\t${p + 1}\t0\t0\t0\t0\t0\t0\t600\t800\t-1\t###PAGE###`);
    page.flows.forEach((blocks, f) =>
      blocks.forEach((lines, b) => {
        rows.push(`3\t${p + 1}\t${f}\t${b}\t0\t0\t0\t0\t0\t0\t-1\t###FLOW###`);
        lines.forEach((line, l) => {
          rows.push(`4\t${p + 1}\t${f}\t${b}\t${l}\t0\t0\t0\t0\t0\t-1\t###LINE###`);
          const size = line.size ?? 12;
          let x = line.x;
          line.text.split(' ').forEach((word, w) => {
            const width = word.length * size * 0.5;
            rows.push(`5\t${p + 1}\t${f}\t${b}\t${l}\t${w}\t${x}\t${line.y}\t${width}\t${size}\t100\t${word}`);
            x += width + size * 0.25;
          });
        });
      }),
    );
  });
  return rows.join('\n');
}

const line = (x: number, y: number, text: string, size?: number) => ({ x, y, text, ...(size && { size }) });

describe('PDF detection', () => {
  const pdf = Buffer.from('%PDF-1.7\n%\xe2\xe3\n1 0 obj', 'latin1');
  it('by content type, whatever the body', () => {
    assert.equal(isPdf('application/pdf', Buffer.from('<html>')), true);
    assert.equal(isPdf('application/x-pdf', Buffer.from('')), true);
  });
  it('by signature, whatever the label or the URL', () => {
    assert.equal(isPdf('application/octet-stream', pdf), true);
    assert.equal(isPdf('text/html', pdf), true, 'a body that starts with %PDF- is a PDF even when labelled HTML');
    assert.equal(isPdf('', Buffer.concat([Buffer.from('junk before\r\n'), pdf])), true, 'within the first kilobyte');
  });
  it('not a page that merely quotes the signature, nor one without it', () => {
    assert.equal(isPdf('text/html', Buffer.from('<p>Files start with %PDF-1.7</p>')), false);
    assert.equal(isPdf('text/plain', Buffer.from('about %PDF-')), false);
    assert.equal(isPdf('application/octet-stream', Buffer.concat([Buffer.alloc(2000), pdf])), false, 'past the first kilobyte');
    assert.equal(isPdf('text/html', Buffer.from('<html><body>report.pdf</body></html>')), false);
  });
});

describe('PDF layout to markdown', () => {
  it("headings by size, paragraphs joined across lines (a hyphen at a line's end kept, without a space), lists by marker", () => {
    const [page] = parseLayoutTsv(
      popplerTsv([
        {
          flows: [
            [
              [line(50, 40, 'Annual report', 28)],
              [line(50, 90, 'The committee met four times this year and re-'), line(50, 104, 'viewed every account of the club.')],
              [line(50, 130, 'Decisions', 18)],
              [line(50, 160, '• Fees stay the same'), line(50, 174, '• The hall gets a new roof')],
              [line(50, 200, '1. Elect a treasurer'), line(50, 214, '2. Plan the summer fair')],
            ],
          ],
        },
      ]),
      'text',
    );
    const { markdown, blocks } = assemble([page!], false);
    assert.equal(
      markdown,
      [
        '# Annual report',
        'The committee met four times this year and re-viewed every account of the club.',
        '## Decisions',
        '- Fees stay the same\n- The hall gets a new roof',
        '1. Elect a treasurer\n2. Plan the summer fair',
      ].join('\n\n'),
    );
    assert.deepEqual(
      blocks[0]!.items.map((item) => [item.type, item.label]),
      [
        ['title', 'h1'],
        ['text', null],
        ['section_header', 'h2'],
        ['list_item', 'unordered'],
        ['list_item', 'unordered'],
        ['list_item', 'ordered'],
        ['list_item', 'ordered'],
      ],
    );
  });

  it('a table from rows of short cells lined up in columns, cut at wide gaps; a | in a cell escaped', () => {
    const [page] = parseLayoutTsv(
      popplerTsv([
        {
          flows: [
            [[line(50, 100, 'Item')], [line(50, 120, 'Spade')], [line(50, 140, 'Rake|hoe')]],
            [[line(200, 100, 'Price')], [line(200, 120, '24.50')], [line(200, 140, '18.00')]],
            [[line(300, 100, 'Stock')], [line(300, 120, '12')], [line(300, 140, '3')]],
          ],
        },
      ]),
      'text',
    );
    const { markdown, blocks } = assemble([page!], false);
    assert.equal(markdown, '| Item | Price | Stock |\n| --- | --- | --- |\n| Spade | 24.50 | 12 |\n| Rake\\|hoe | 18.00 | 3 |');
    assert.equal(blocks[0]!.items.length, 1);
    assert.equal(blocks[0]!.items[0]!.type, 'table');
  });

  it('running text in columns is text, read column by column, even when its paragraph gaps line up', () => {
    const column = (x: number, y: number, word: string) => [0, 1, 2].map((i) => line(x, y + i * 14, `${word} ${'word '.repeat(5)}end`));
    const [page] = parseLayoutTsv(
      popplerTsv([
        {
          flows: [
            // Poppler's own order is row by row here: reading order must not be.
            [column(50, 100, 'alpha'), column(250, 100, 'charlie')],
            [column(50, 160, 'bravo'), column(250, 160, 'delta')],
          ],
        },
      ]),
      'text',
    );
    const { markdown } = assemble([page!], false);
    assert.deepEqual(
      markdown.split('\n\n').map((paragraph) => paragraph.split(' ')[0]),
      ['alpha', 'bravo', 'charlie', 'delta'],
    );
    assert.doesNotMatch(markdown, /\|/);
  });

  it('a lone page number at the foot of a page is left out of the markdown but kept as a block', () => {
    const [page] = parseLayoutTsv(popplerTsv([{ flows: [[[line(50, 100, 'Some text here.')], [line(290, 770, '7')]]] }]), 'text');
    const { markdown, blocks } = assemble([page!], false);
    assert.equal(markdown, 'Some text here.');
    assert.deepEqual(
      blocks[0]!.items.map((item) => [item.type, item.markdownSpan]),
      [
        ['text', [0, 15]],
        ['page_footer', null],
      ],
    );
  });

  it('page markers exactly as spec §2.7: between pages only, none for a page with nothing on it', () => {
    const pages = parseLayoutTsv(
      popplerTsv([{ flows: [[[line(50, 100, 'First page.')]]] }, { flows: [] }, { flows: [[[line(50, 100, 'Third page.')]]] }]),
      'text',
    );
    const marked = assemble(pages, true);
    assert.equal(marked.markdown, 'First page.\n\n---\n\n<!-- page 3 -->\n\nThird page.');
    assert.deepEqual(marked.pages, [
      { pageNumber: 1, markdown: 'First page.' },
      { pageNumber: 2, markdown: '' },
      { pageNumber: 3, markdown: 'Third page.' },
    ]);
    assert.deepEqual(
      marked.blocks.map((b) => b.status),
      ['ok', 'empty', 'ok'],
    );
    assert.equal(assemble(pages, false).markdown, 'First page.\n\nThird page.');
    // Every span points at its block's markdown in the document's markdown.
    for (const block of marked.blocks.flatMap((b) => b.items)) {
      const [start, end] = block.markdownSpan!;
      assert.equal(marked.markdown.slice(start, end), block.content);
    }
  });

  it('blocks: normalized boxes, reading order, spans and confidence', () => {
    const [page] = parseLayoutTsv(popplerTsv([{ flows: [[[line(60, 80, 'Hello world')], [line(60, 400, 'Second block')]]] }]), 'text');
    const { blocks } = assemble([page!], false);
    const [first, second] = blocks[0]!.items;
    assert.equal(blocks[0]!.width, 600);
    assert.deepEqual(
      first!.bbox,
      [0.1, 0.1, 0.1 + (5 * 6 + 3 + 5 * 6) / 600, 0.115].map((v) => Math.round(v * 10000) / 10000),
    );
    assert.deepEqual([first!.readingOrder, second!.readingOrder], [0, 1]);
    assert.deepEqual(first!.confidence, { layout: 0.9, ocr: null });
    assert.equal(first!.source, 'text');
  });

  it("markdown in the PDF's text is escaped", () => {
    assert.equal(escapeMarkdown('# not a heading'), '\\# not a heading');
    assert.equal(escapeMarkdown('a *star* and [link](x) <b>'), 'a \\*star\\* and \\[link\\](x) \\<b\\>');
    assert.equal(escapeMarkdown('snake_case stays, _this_ does not'), 'snake_case stays, \\_this\\_ does not');
    assert.equal(escapeMarkdown('1. not a list'), '1\\. not a list');
  });
});

describe('OCR output', () => {
  const tsv = [
    HEADER,
    '1\t1\t0\t0\t0\t0\t0\t0\t2480\t3508\t-1\t',
    '4\t1\t1\t1\t1\t0\t100\t100\t800\t50\t-1\t',
    '5\t1\t1\t1\t1\t1\t100\t100\t80\t50\t95.5\te',
    '5\t1\t1\t1\t1\t2\t220\t100\t300\t50\t91\tSpade',
    '5\t1\t1\t1\t1\t3\t540\t100\t20\t50\t40\t|',
    '5\t1\t1\t1\t1\t4\t580\t100\t20\t50\t12\t~',
  ].join('\n');
  it("reads tesseract's TSV in points, drops rules and specks, keeps confidence", () => {
    const [page] = parseLayoutTsv(tsv, 'ocr', 300, [40]);
    assert.equal(Math.round(page!.width), 595);
    const words = page!.blocks[0]!.lines[0]!.words;
    assert.deepEqual(
      words.map((w) => w.text),
      ['e', 'Spade'],
    );
    assert.equal(words[1]!.confidence, 0.91);
    assert.equal(page!.blocks[0]!.lines[0]!.size, (40 * 72) / 300);
  });
  it("takes each line's type size from the hOCR's x-height", () => {
    const hocr = `<span class='ocr_line' id='line_1_1' title="bbox 1 2 3 4; baseline 0 -10; x_size 45; x_descenders 10; x_ascenders 9">`;
    assert.deepEqual(hocrLineSizes(hocr), [26 * 2.2]);
  });
});

describe('reading order', () => {
  const box = (x0: number, y0: number, x1: number, y1: number) => ({ x0, y0, x1, y1 });
  it('a title over two columns, then the columns one after the other', () => {
    const title = box(0, 0, 500, 20);
    const [a, b, c, d] = [box(0, 30, 240, 100), box(0, 110, 240, 200), box(260, 30, 500, 150), box(260, 160, 500, 200)];
    assert.deepEqual(readingOrder([title, a, c, b, d]), [title, a, b, c, d]);
  });
  it("keeps the tool's order where no cut separates blocks", () => {
    const [a, b] = [box(0, 0, 300, 100), box(200, 50, 500, 150)];
    assert.deepEqual(readingOrder([b, a]), [b, a]);
  });
});

describe('rules erased before OCR', () => {
  it('whitens long rules, keeps short strokes', () => {
    const [width, height] = [200, 20];
    const header = Buffer.from(`P5\n${width} ${height}\n255\n`);
    const pixels = Buffer.alloc(width * height, 255);
    pixels.fill(0, 5 * width, 5 * width + 150); // a rule 150 px long
    pixels.fill(0, 10 * width + 20, 10 * width + 40); // a stroke 20 px long
    const image = Buffer.concat([header, pixels]);
    assert.equal(eraseRules(image, 120), true);
    const after = image.subarray(header.length);
    assert.equal(after[5 * width + 10], 255);
    assert.ok(after[10 * width + 30]! < 10, 'the stroke stays dark');
    assert.equal(eraseRules(Buffer.from('not an image'), 120), false);
  });
});

describe("pdftotext's page of TSV with the document's head", () => {
  const page = (title: string, tsv: string) =>
    `<!DOCTYPE html><html>\n<head>\n${title}<meta name="Creator" content="x"/>\n</head>\n<body>\n<pre>\n${tsv}</pre>\n</body>\n</html>\n`;
  const tsv = 'level\tpage_num\n5\t1\t0\t0\t0\t0\t1\t2\t3\t4\t100\t</pre>\n5\t1\t0\t0\t0\t1\t1\t2\t3\t4\t100\t&amp;\n';

  it('the TSV as written (words are not escaped, even one that reads </pre>), the title unescaped', () => {
    const split = splitHtmlMeta(page('<title>Tools &amp; prices &lt;2026&gt; &quot;A&quot;</title>', tsv));
    assert.equal(split.tsv, tsv);
    assert.equal(split.title, 'Tools & prices <2026> "A"');
  });

  it('no title when the PDF states none; plain TSV passes through', () => {
    assert.equal(splitHtmlMeta(page('', tsv)).title, undefined);
    assert.equal(splitHtmlMeta(page('<title></title>', tsv)).title, undefined);
    assert.deepEqual(splitHtmlMeta(tsv), { tsv });
  });
});
