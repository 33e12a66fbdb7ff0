/**
 * The caller's JSON Schema, compiled once into a validator of a model's answers (Ajv, draft
 * 2020-12, which reads most draft-07 schemas the same). A schema that is not one is 422, as
 * spec §7.2 says of an invalid JSON Schema.
 */
import { WebwatchError } from '../../errors/webwatch-error.js';
import { ERROR_MESSAGES } from '../../spec/errors.js';

/** The problems of a value against the schema, one line each; none when it matches. */
export type SchemaValidator = (value: unknown) => string[];

export async function compileSchema(schema: Record<string, unknown>, path = 'schema'): Promise<SchemaValidator> {
  const { Ajv2020 } = await import('ajv/dist/2020.js');
  // The declared draft is not enforced: 2020-12 reads the others' common keywords alike.
  const { $schema: _declared, ...body } = schema;
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  let validate: ReturnType<typeof ajv.compile>;
  try {
    validate = ajv.compile(body);
  } catch (error) {
    throw new WebwatchError(ERROR_MESSAGES.unprocessable, {
      status: 422,
      details: [{ path, message: `is not a valid JSON Schema: ${(error as Error).message}` }],
    });
  }
  return (value) => (validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '(the result)'} ${e.message ?? 'is invalid'}`));
}
