/** A JSON Schema given as a file (`--schema`): .json, or .yaml / .yml. */
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { UsageError } from '../errors/webwatch-error.js';

export async function readSchemaFile(file: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read the schema ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
  let value: unknown;
  try {
    value = ['.yaml', '.yml'].includes(extname(file).toLowerCase()) ? (await import('yaml')).parse(text) : JSON.parse(text);
  } catch (error) {
    throw new UsageError(`the schema ${file} is not valid ${extname(file) === '.json' ? 'JSON' : 'YAML'}: ${(error as Error).message.split('\n')[0]}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new UsageError(`the schema ${file} must be a JSON Schema object`);
  return value as Record<string, unknown>;
}
