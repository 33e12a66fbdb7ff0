/**
 * The bundle is written in ASCII (build/ascii-source.mjs) so that every command reads it as a
 * one-byte string; the escapes must mean exactly what the characters meant.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runInNewContext } from 'node:vm';
import { describe, it } from 'node:test';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
type Escapers = { asciiJavaScript: (file: string, text: string) => string; asciiJson: (text: string) => string };
const load = async () => (await import(pathToFileURL(join(ROOT, 'build/ascii-source.mjs')).href)) as Escapers;
// Through JSON: values of another realm are never deep-equal to this one's.
const evaluate = (code: string): unknown => JSON.parse(runInNewContext(`JSON.stringify((() => { ${code} })())`) as string);

describe('the bundle in ASCII', () => {
  it('strings, templates, regular expressions and comments keep their meaning', async () => {
    const { asciiJavaScript } = await load();
    const code = [
      '// a comment — with a dash',
      "const s = 'café \\é ✓ 😀';",
      'const t = `naïve ${s.length} — ok`;',
      "const r = /[–—]+|😀/u.exec('a – b');",
      "const q = /é/.test('é') && /[\\u00e9]/.test('é');",
      '/* ünïcode block */',
      'return [s, t, r && r[0], q];',
    ].join('\n');
    const escaped = asciiJavaScript('x.js', code);
    assert.doesNotMatch(escaped, /[^\x00-\x7f]/, 'every character written as an escape');
    assert.deepEqual(evaluate(escaped), evaluate(code));
    assert.deepEqual(evaluate(escaped), ['café é ✓ 😀', 'naïve 11 — ok', '–', true]);
  });

  it('a tagged template keeps its raw text, and so the module keeps its characters', async () => {
    const { asciiJavaScript } = await load();
    const code = "const raw = String.raw`é\\n`; const other = 'ü'; return [raw, other];";
    const escaped = asciiJavaScript('x.js', code);
    assert.match(escaped, /String\.raw`é\\n`/);
    assert.match(escaped, /'\\u00fc'/);
    assert.deepEqual(evaluate(escaped), ['é\\n', 'ü']);
  });

  it('a non-ASCII identifier or a separator ending a line comment is left as it is', async () => {
    const { asciiJavaScript } = await load();
    const identifier = 'const café = 1; return café;';
    assert.equal(asciiJavaScript('x.js', identifier), identifier);
    const separator = '// comment\u2028return 2;';
    assert.equal(evaluate(asciiJavaScript('x.js', separator)), 2);
  });

  it('JSON tables keep their values', async () => {
    const { asciiJson } = await load();
    const json = '{"a": "€ and 中文", "b": ["😀"]}';
    assert.deepEqual(JSON.parse(asciiJson(json)), JSON.parse(json));
    assert.doesNotMatch(asciiJson(json), /[^\x00-\x7f]/);
  });

  it('the built bundle and its chunks are ASCII', { skip: !existsSync(join(ROOT, 'dist/webwatch.cjs')) && 'no bundle built' }, () => {
    const chunks = readdirSync(join(ROOT, 'dist/webwatch'))
      .filter((name) => name.endsWith('.cjs'))
      .map((name) => `dist/webwatch/${name}`);
    assert.ok(chunks.length > 0, 'the bundle has chunks');
    for (const file of ['dist/webwatch.cjs', ...chunks]) {
      const bundle = readFileSync(join(ROOT, file));
      const at = bundle.findIndex((byte) => byte > 0x7f);
      assert.equal(at, -1, `${file}: a non-ASCII byte at ${at}: ${bundle.subarray(Math.max(0, at - 80), at + 20).toString()}`);
    }
  });
});
