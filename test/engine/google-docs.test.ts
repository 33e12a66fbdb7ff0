/** Google Docs and Slides URLs to their PDF export, and every other URL left alone (no network). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { googleExportUrl } from '../../src/engine/pdf/google-docs.js';

const ID = '1AbC-dEf_123456789012345678901234567890123';

describe('googleExportUrl', () => {
  it('a document or a presentation, whatever follows its id, is fetched as its PDF export', () => {
    const cases: [string, string][] = [
      [`https://docs.google.com/document/d/${ID}/edit`, `https://docs.google.com/document/d/${ID}/export?format=pdf`],
      [`https://docs.google.com/document/d/${ID}/edit?usp=sharing#heading=h.1`, `https://docs.google.com/document/d/${ID}/export?format=pdf`],
      [`https://docs.google.com/document/d/${ID}`, `https://docs.google.com/document/d/${ID}/export?format=pdf`],
      [`https://docs.google.com/document/d/${ID}/`, `https://docs.google.com/document/d/${ID}/export?format=pdf`],
      [`https://docs.google.com/document/u/1/d/${ID}/view`, `https://docs.google.com/document/d/${ID}/export?format=pdf`],
      [`https://DOCS.Google.com/document/d/${ID}/edit`, `https://docs.google.com/document/d/${ID}/export?format=pdf`],
      [`https://docs.google.com/presentation/d/${ID}/edit#slide=id.p`, `https://docs.google.com/presentation/d/${ID}/export?format=pdf`],
      [`https://docs.google.com/presentation/d/${ID}/present`, `https://docs.google.com/presentation/d/${ID}/export?format=pdf`],
      // The scheme and port asked are kept (tests serve the host on loopback).
      [`http://docs.google.com:8123/document/d/${ID}/edit`, `http://docs.google.com:8123/document/d/${ID}/export?format=pdf`],
    ];
    for (const [asked, fetched] of cases) assert.equal(googleExportUrl(asked), fetched, asked);
  });

  it('leaves sheets, published copies, exports, other hosts and other paths alone', () => {
    for (const url of [
      `https://docs.google.com/spreadsheets/d/${ID}/edit#gid=0`,
      'https://docs.google.com/document/d/e/2PACX-1vQabc/pub',
      `https://docs.google.com/document/d/${ID}/export?format=docx`,
      `https://docs.google.com/document/d/${ID}/export?format=pdf`,
      `https://drive.google.com/file/d/${ID}/view`,
      `https://docs.google.com.example/document/d/${ID}/edit`,
      `https://example.com/document/d/${ID}/edit`,
      'https://docs.google.com/document/',
      'https://docs.google.com/forms/d/x/viewform',
      `ftp://docs.google.com/document/d/${ID}/edit`,
      'not a url',
    ])
      assert.equal(googleExportUrl(url), undefined, url);
  });
});
