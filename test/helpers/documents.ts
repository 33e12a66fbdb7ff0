/** Whether the document converters are on this machine: a reason to skip by, naming the packages, or undefined. */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DOCUMENT_TOOLS_INSTALL_HINT, findTool } from '../../src/engine/tools/child-tools.js';
import { tempDir } from './files.js';

export const documentToolsMissing: string | undefined = (() => {
  try {
    for (const tool of ['pandoc', 'soffice', 'bwrap'] as const) findTool(tool);
    return undefined;
  } catch (error) {
    return `${(error as Error).message}: ${DOCUMENT_TOOLS_INSTALL_HINT}`;
  }
})();

/** A page of text printed by LibreOffice and rasterised by poppler, as a scan of it would be. */
export function scannedText(lines: string[], format: 'png' | 'jpeg'): Buffer {
  const dir = tempDir();
  const html = join(dir, 'scan.html');
  writeFileSync(html, `<html><body>${lines.map((line) => `<p style="font-size:24pt">${line}</p>`).join('')}</body></html>`);
  execFileSync('soffice', ['--headless', '--writer', `-env:UserInstallation=file://${dir}/profile`, '--convert-to', 'pdf', '--outdir', dir, html], {
    stdio: 'ignore',
  });
  execFileSync('pdftoppm', ['-r', '150', `-${format}`, '-singlefile', join(dir, 'scan.pdf'), join(dir, 'scan')]);
  return readFileSync(join(dir, format === 'png' ? 'scan.png' : 'scan.jpg'));
}
