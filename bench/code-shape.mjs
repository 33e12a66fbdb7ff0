// The shape of the source, for reviews of its structure: the longest functions of src/ (by
// lines, a closure counted whole with what it defines inside) and the longest files.
// Usage: node bench/code-shape.mjs [count]
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('..', import.meta.url));
const count = Number(process.argv[2] ?? 10);
const files = [];
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) files.push(path);
  }
};
walk(join(root, 'src'));

const functions = [];
const fileLines = [];
for (const file of files) {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lineOf = (pos) => source.getLineAndCharacterOfPosition(pos).line + 1;
  fileLines.push({ file: relative(root, file), lines: text.split('\n').length });
  const visit = (node) => {
    if (ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node) || ts.isArrowFunction(node) || ts.isMethodDeclaration(node)) {
      const name =
        node.name?.getText(source) ??
        (ts.isVariableDeclaration(node.parent) || ts.isPropertyAssignment(node.parent) ? node.parent.name.getText(source) : '(anonymous)');
      const lines = lineOf(node.end) - lineOf(node.getStart(source)) + 1;
      functions.push({ name, file: relative(root, file), line: lineOf(node.getStart(source)), lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}
functions.sort((a, b) => b.lines - a.lines);
fileLines.sort((a, b) => b.lines - a.lines);
console.log(`longest functions of src/ (${functions.length} in ${files.length} files):`);
for (const f of functions.slice(0, count)) console.log(`${String(f.lines).padStart(5)}  ${f.name}  ${f.file}:${f.line}`);
console.log(`\nlongest files:`);
for (const f of fileLines.slice(0, count)) console.log(`${String(f.lines).padStart(5)}  ${f.file}`);
