/**
 * A PDF corpus made on the spot: HTML printed to PDF by the system's Chromium (text PDFs whose
 * text is known: the page's own innerText in print media), the same PDFs rasterized to
 * image-only PDFs (for OCR), encrypted copies (qpdf) and word-level scoring against the known
 * text. Shared by the tests and bench/pdf.mjs.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import { findChromium } from '../../src/engine/browser/chromium.js';

export interface PrintedPdf {
  pdf: Buffer;
  /** The page's text as printed (innerText in print media). */
  text: string;
}

export class PdfPrinter {
  private constructor(
    private readonly browser: Browser,
    private readonly context: BrowserContext,
  ) {}

  static async open(): Promise<PdfPrinter> {
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({ executablePath: findChromium(process.env, undefined, 'printing test PDFs') });
    // Saved pages print as they are: no scripts, and nothing fetched but inline data.
    const context = await browser.newContext({ javaScriptEnabled: false });
    await context.route('**/*', (route) => (route.request().url().startsWith('data:') ? route.continue() : route.abort()));
    return new PdfPrinter(browser, context);
  }

  async print(html: string, options: { format?: string; margin?: string; preferCSSPageSize?: boolean } = {}): Promise<PrintedPdf> {
    const page = await this.context.newPage();
    try {
      await page.setContent(html, { waitUntil: 'domcontentloaded' });
      await page.emulateMedia({ media: 'print' });
      const text = await page.evaluate<string>('document.body ? document.body.innerText : ""');
      const margin = options.margin ?? '15mm';
      const pdf = await page.pdf({
        format: options.format ?? 'A4',
        margin: { top: margin, bottom: margin, left: margin, right: margin },
        preferCSSPageSize: options.preferCSSPageSize ?? false,
      });
      return { pdf, text };
    } finally {
      await page.close();
    }
  }

  /** The PDF as pictures of its pages and nothing else, like a scan (`dpi` of the pictures). */
  async imageOnly(pdf: Buffer, dpi = 150): Promise<Buffer> {
    const dir = mkdtempSync(join(tmpdir(), 'webwatch-scan-'));
    try {
      writeFileSync(join(dir, 'in.pdf'), pdf);
      const size = /Page size:\s+([\d.]+) x ([\d.]+) pts/.exec(execFileSync('pdfinfo', [join(dir, 'in.pdf')], { encoding: 'utf8' }));
      execFileSync('pdftoppm', ['-r', String(dpi), '-gray', '-png', join(dir, 'in.pdf'), join(dir, 'page')]);
      const images = readdirSync(dir)
        .filter((name) => name.endsWith('.png'))
        .sort();
      const [width, height] = [size?.[1] ?? '595', size?.[2] ?? '842'];
      const html = `<html><head><style>@page{size:${width}pt ${height}pt;margin:0}body{margin:0}img{display:block;width:${width}pt;height:${height}pt;break-after:page}</style></head><body>${images
        .map((name) => `<img src="data:image/png;base64,${readFileSync(join(dir, name)).toString('base64')}">`)
        .join('')}</body></html>`;
      return (await this.print(html, { margin: '0', preferCSSPageSize: true })).pdf;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  async close(): Promise<void> {
    await this.browser.close();
  }
}

/** `pdf` encrypted with qpdf (AES-256): a user password to open it, an owner password to change it. */
export function encryptPdf(pdf: Buffer, userPassword: string, ownerPassword: string, restrictions: string[] = []): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'webwatch-encrypt-'));
  try {
    writeFileSync(join(dir, 'in.pdf'), pdf);
    execFileSync('qpdf', ['--encrypt', userPassword, ownerPassword, '256', ...restrictions, '--', join(dir, 'in.pdf'), join(dir, 'out.pdf')]);
    return readFileSync(join(dir, 'out.pdf'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Words as compared: letters and digits, lower case, compatibility forms folded. */
export function words(text: string): string[] {
  return (
    text
      .toLowerCase()
      .normalize('NFKC')
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/**
 * Word recall and precision of `actual` against `expected`, as bags of words: recall is the
 * share of the expected words found, precision the share of the words found that were expected.
 */
export function wordScores(expected: string, actual: string): { recall: number; precision: number } {
  const bag = new Map<string, number>();
  const wanted = words(expected);
  for (const word of wanted) bag.set(word, (bag.get(word) ?? 0) + 1);
  const found = words(actual);
  let hits = 0;
  for (const word of found) {
    const left = bag.get(word);
    if (left) {
      hits++;
      bag.set(word, left - 1);
    }
  }
  return { recall: wanted.length ? hits / wanted.length : 1, precision: found.length ? hits / found.length : wanted.length ? 0 : 1 };
}
