/** JSON Schema export of the definition-file schemas, for editors and other tools. */
import { z } from 'zod';
import { monitorSchemas } from './schemas.js';

export const SCHEMA_SUBJECTS = ['monitor', 'scrape-options'] as const;
export type SchemaSubject = (typeof SCHEMA_SUBJECTS)[number];

export function jsonSchemaFor(subject: SchemaSubject): Record<string, unknown> {
  const schemas = monitorSchemas('file');
  if (subject === 'scrape-options') {
    return {
      ...z.toJSONSchema(schemas.scrapeOptions, { io: 'input', unrepresentable: 'any' }),
      title: 'webwatch scrape options',
    };
  }
  const monitor = z.toJSONSchema(schemas.createRequest, { io: 'input', unrepresentable: 'any' });
  const { $schema, ...definition } = monitor;
  // A definition file holds one monitor or a list of them.
  return {
    $schema,
    title: 'webwatch monitor definitions',
    description: 'One monitor, or a list of monitors, as in the v2 monitor create request.',
    anyOf: [{ $ref: '#/$defs/monitor' }, { type: 'array', items: { $ref: '#/$defs/monitor' } }],
    $defs: { monitor: definition },
  };
}
