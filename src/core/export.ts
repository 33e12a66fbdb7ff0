/**
 * Monitors as definition files: what `monitor apply` reads back as unchanged. Only the fields of
 * a create request go out (no id, status, times or summaries); header values, which hold
 * cookies and tokens, become `${VARIABLE}` references unless the caller asks for them.
 */
import { createRequestOf } from '../spec/monitor.js';
import type { MonitorResource } from '../contract/monitor.js';

/** A header value written as a reference: the variable to set, and where it was. */
export interface ExportedSecret {
  variable: string;
  monitor: string;
  path: string;
}

export interface Export {
  /** Multi-document YAML, one document per monitor. */
  yaml: string;
  secrets: ExportedSecret[];
}

const variableName = (...parts: string[]) =>
  parts
    .join('_')
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .replace(/^(\d)/, '_$1');

export async function exportDefinitions(monitors: readonly MonitorResource[], options: { showSecrets?: boolean } = {}): Promise<Export> {
  const { stringify } = await import('yaml');
  const secrets: ExportedSecret[] = [];
  const taken = new Set<string>();
  const documents = monitors.map((monitor) => {
    const walk = (value: unknown, path: string[]): unknown => {
      if (typeof value === 'string') return value.replaceAll('${', () => '$${'); // files are interpolated (a "$$" replacement would be one "$")
      if (Array.isArray(value)) return value.map((item, i) => walk(item, [...path, String(i)]));
      if (typeof value !== 'object' || value === null) return value;
      if (path.at(-1) === 'headers' && !options.showSecrets) {
        return Object.fromEntries(
          Object.keys(value).map((header) => {
            let variable = variableName(monitor.name, ...path.filter((part) => part !== 'headers' && part !== 'scrapeOptions'), header);
            for (let n = 2; taken.has(variable); n++) variable = `${variableName(monitor.name, ...path, header)}_${n}`;
            taken.add(variable);
            secrets.push({ variable, monitor: monitor.name, path: [...path, header].join('.') });
            return [header, `\${${variable}}`];
          }),
        );
      }
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, walk(item, [...path, key])]));
    };
    // Target ids are the resource's: a definition file names targets by their place.
    const request = { ...createRequestOf(monitor), targets: monitor.targets.map(({ id: _id, ...target }) => target) };
    return stringify(walk(request, []), { lineWidth: 0 });
  });
  const header =
    secrets.length > 0
      ? `# Header values are references: set these variables before applying this file\n${secrets.map((s) => `#   ${s.variable}  (${s.monitor}: ${s.path})`).join('\n')}\n`
      : '';
  return { yaml: header + documents.join('---\n'), secrets };
}
