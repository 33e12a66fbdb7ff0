/**
 * Where a misplaced field belongs. `limit` written beside `crawlOptions` rather than inside it is
 * an unknown field where it stands, but a known one a level down: the error says where it goes
 * ("it belongs in targets[0].crawlOptions") rather than leaving the reader to search the spec.
 */
import type { z } from 'zod';
import { formatPath, type PathSegment, type Problem } from './issues.js';

type Schema = z.core.$ZodType;
type Def = { type: string; [key: string]: unknown };

const defOf = (schema: Schema): Def => schema._zod.def as unknown as Def;

/** The schema under wrappers that do not change a value's shape (optional, nullable, default...). */
function unwrap(schema: Schema): Schema {
  let current = schema;
  for (let depth = 0; depth < 20; depth++) {
    const def = defOf(current);
    if ('innerType' in def) current = def.innerType as Schema;
    else if (def.type === 'pipe') current = def.in as Schema;
    else if (def.type === 'lazy') current = (def.getter as () => Schema)();
    else return current;
  }
  return current;
}

const shapeOf = (schema: Schema): Record<string, Schema> | undefined => {
  const def = defOf(schema);
  return def.type === 'object' ? (def.shape as Record<string, Schema>) : undefined;
};

/** The objects a value at `schema` may be: a union's branches, chosen by the value's discriminator when it has one. */
function objectsOf(schema: Schema, value: unknown): Record<string, Schema>[] {
  const bare = unwrap(schema);
  const def = defOf(bare);
  if (def.type !== 'union') {
    const shape = shapeOf(bare);
    return shape ? [shape] : [];
  }
  const branches = (def.options as Schema[]).flatMap((option) => objectsOf(option, value));
  const discriminator = def.discriminator as string | undefined;
  const given = discriminator && value && typeof value === 'object' ? (value as Record<string, unknown>)[discriminator] : undefined;
  if (given === undefined) return branches;
  const chosen = branches.filter((shape) => {
    const literal = shape[discriminator!] && defOf(unwrap(shape[discriminator!]!));
    return literal?.type === 'literal' && (literal.values as unknown[]).includes(given);
  });
  return chosen.length > 0 ? chosen : branches;
}

const child = (value: unknown, segment: PathSegment): unknown =>
  value && typeof value === 'object' ? (value as Record<PathSegment, unknown>)[segment] : undefined;

/** The object shapes found at `path`, following the input's values through lists and unions. */
function shapesAt(root: Schema, input: unknown, path: readonly PathSegment[]): Record<string, Schema>[] {
  let schemas: Schema[] = [root];
  let value = input;
  for (const segment of path) {
    const next: Schema[] = [];
    for (const schema of schemas) {
      const bare = unwrap(schema);
      const def = defOf(bare);
      if (typeof segment === 'number') {
        if (def.type === 'array') next.push(def.element as Schema);
        continue;
      }
      for (const shape of objectsOf(bare, value)) if (shape[segment]) next.push(shape[segment]);
    }
    schemas = next;
    value = child(value, segment);
  }
  return schemas.flatMap((schema) => objectsOf(schema, value));
}

/** Where `key` is known in the objects that are fields (or list items) of the object at `path`. */
function placeBelow(root: Schema, input: unknown, path: readonly PathSegment[], key: string, skip?: PathSegment): string | undefined {
  const value = path.reduce<unknown>(child, input);
  for (const shape of shapesAt(root, input, path)) {
    for (const [field, schema] of Object.entries(shape)) {
      if (field === skip) continue;
      const bare = unwrap(schema);
      const isList = defOf(bare).type === 'array';
      const inner = isList ? (defOf(bare).element as Schema) : bare;
      const sample = isList ? (child(value, field) as unknown[] | undefined)?.[0] : child(value, field);
      if (objectsOf(inner, sample).some((shape) => key in shape)) {
        const where = formatPath([...path, field]);
        return isList ? `in each item of ${where}` : `in ${where}`;
      }
    }
  }
  return undefined;
}

/**
 * Where `key`, unknown in the object at `path`, is known: one level down, one level up, or in a
 * sibling object (`onlyMainContent` written in `crawlOptions` belongs in `scrapeOptions`).
 */
export function placementOf(root: Schema, input: unknown, path: readonly PathSegment[], key: string): string | undefined {
  const below = placeBelow(root, input, path, key);
  if (below || path.length === 0) return below;
  // The object holding this one: past the list index when this one is a list's item.
  const up = path.slice(0, typeof path[path.length - 1] === 'number' ? -2 : -1);
  if (shapesAt(root, input, up).some((shape) => key in shape)) {
    return up.length === 0 ? 'at the top level' : `in ${formatPath(up)}`;
  }
  return placeBelow(root, input, up, key, path[up.length]);
}

/**
 * Rewrites each "unknown field" problem whose field exists one level down or up to say where it
 * belongs. A near spelling of a field allowed here comes first (`url` in a target is most likely
 * `urls`, not the webhook's `url`); where it belongs elsewhere follows it.
 */
export function withPlacement(root: Schema, input: unknown, problems: Problem[]): Problem[] {
  return problems.map((problem) => {
    const key = problem.path[problem.path.length - 1];
    if (typeof key !== 'string' || !problem.message.startsWith(`unknown field ${JSON.stringify(key)}`)) return problem;
    const where = placementOf(root, input, problem.path.slice(0, -1), key);
    if (!where) return problem;
    const nearHere = problem.message.includes('(did you mean ');
    return { ...problem, message: nearHere ? `${problem.message}, or it belongs ${where}` : `unknown field ${JSON.stringify(key)}: it belongs ${where}` };
  });
}
