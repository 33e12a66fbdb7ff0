/**
 * The engine's schema is written three times by hand: SQLite's migrations (migrations.ts), the
 * PostgreSQL baseline (postgres-baseline.ts, then the shared migrations) and the query layer's
 * table types (tables.ts). This test reads each as it really is and says where they differ:
 * SQLite's from a database migrated from nothing (PRAGMA table_info), PostgreSQL's from
 * information_schema.columns, the types' with the TypeScript compiler's checker. They must
 * agree on the tables, the columns, which columns may be null, and the rough kind of each
 * (text, integer, real, blob, boolean; a TypeScript number is integer or real), and a column the
 * types let an insert leave out must have a default.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import ts from 'typescript';
import { openDatabase, schemaVersion, type Db } from '../../src/engine/store/database.js';
import { LATEST_VERSION } from '../../src/engine/store/migrations.js';
import { POSTGRES_BASELINE } from '../../src/engine/store/postgres-baseline.js';
import { tempDir } from '../helpers/files.js';
import { POSTGRES_SKIP, postgresServer, stopPostgresServer } from '../helpers/postgres.js';
import { sqlRows } from '../helpers/sql.js';

const TABLES_FILE = fileURLToPath(new URL('../../../src/engine/store/tables.ts', import.meta.url));
/**
 * Where kysely declares ColumnType and Generated, the only names tables.ts imports: the checker
 * reads that file alone instead of the whole package (a second, not four). Were it to move, the
 * checker would resolve 'kysely' as usual, only more slowly.
 */
const KYSELY_COLUMN_TYPES = join(dirname(createRequire(import.meta.url).resolve('kysely')), 'util', 'column-type.d.ts');

/** `number` is TypeScript's: integer or real, it cannot say which. */
type Family = 'text' | 'integer' | 'real' | 'blob' | 'boolean' | 'number';

interface Column {
  family: Family;
  nullable: boolean;
  /** The database fills it when an insert leaves it out (a default, a rowid, an identity). */
  hasDefault: boolean;
  /** tables.ts: an insert may leave it out (Generated<...>). */
  insertOptional?: boolean;
}

/** Table name -> column name -> column. */
type Schema = Map<string, Map<string, Column>>;

interface Source {
  /** How messages name it: "the SQLite migrations", "tables.ts (the Kysely types)"... */
  name: string;
  schema: Schema;
}

function add(schema: Schema, table: string, column: string, value: Column): void {
  if (!schema.has(table)) schema.set(table, new Map());
  schema.get(table)!.set(column, value);
}

// --- SQLite -----------------------------------------------------------------------------------

/** The type family of a declared SQLite type, by SQLite's own affinity rules (datatype3.html, 3.1). */
function sqliteFamily(declared: string): Family {
  const type = declared.toUpperCase();
  if (type.includes('INT')) return 'integer';
  if (/CHAR|CLOB|TEXT/.test(type)) return 'text';
  if (type === '' || type.includes('BLOB')) return 'blob';
  if (/REAL|FLOA|DOUB/.test(type)) return 'real';
  return 'number';
}

async function sqliteSchema(db: Db): Promise<Schema> {
  const rows = await sqlRows<{ t: string; c: string; type: string; notnull: number; pk: number; dflt: string | null; pks: number }>(
    db,
    `
    SELECT m.name AS t, p.name AS c, p.type, p."notnull" AS "notnull", p.pk, p.dflt_value AS dflt,
           (SELECT count(*) FROM pragma_table_info(m.name) k WHERE k.pk > 0) AS pks
    FROM sqlite_master m JOIN pragma_table_info(m.name) p
    WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\'`,
  );
  const schema: Schema = new Map();
  for (const row of rows) {
    // The rowid's alias: SQLite numbers it when an insert leaves it out, and it is never null.
    const rowid = row.pk === 1 && row.pks === 1 && row.type.toUpperCase() === 'INTEGER';
    add(schema, row.t, row.c, {
      family: sqliteFamily(row.type),
      // SQLite lets a PRIMARY KEY column without NOT NULL hold NULL (a bug of its early versions,
      // kept for compatibility). Every key webwatch writes is generated, never null, and the
      // other two sources say NOT NULL: a primary key counts as NOT NULL here.
      nullable: row.notnull === 0 && row.pk === 0,
      hasDefault: row.dflt !== null || rowid,
    });
  }
  return schema;
}

// --- PostgreSQL -------------------------------------------------------------------------------

function postgresFamily(dataType: string): Family {
  if (['smallint', 'integer', 'bigint'].includes(dataType)) return 'integer';
  if (['text', 'character varying', 'character'].includes(dataType)) return 'text';
  if (['real', 'double precision', 'numeric'].includes(dataType)) return 'real';
  if (dataType === 'bytea') return 'blob';
  if (dataType === 'boolean') return 'boolean';
  throw new Error(`no type family for PostgreSQL's ${dataType}: add it to postgresFamily`);
}

/** The table of PostgreSQL's schema version; SQLite keeps its version in PRAGMA user_version. */
const POSTGRES_VERSION_TABLE = 'webwatch_schema';
/** PostgreSQL's counterpart of SQLite's rowid, in the tables read in the order rows were written (Db.writtenOrder). */
const POSTGRES_ONLY_COLUMNS = ['outbox.seq', 'snapshots.seq'];

async function postgresSchema(db: Db): Promise<Schema> {
  const rows = await sqlRows<{ t: string; c: string; data_type: string; is_nullable: string; column_default: string | null; is_identity: string }>(
    db,
    `
    SELECT table_name AS t, column_name AS c, data_type, is_nullable, column_default, is_identity
    FROM information_schema.columns WHERE table_schema = current_schema() AND table_name != ?`,
    POSTGRES_VERSION_TABLE,
  );
  const schema: Schema = new Map();
  for (const row of rows) {
    add(schema, row.t, row.c, {
      family: postgresFamily(row.data_type),
      nullable: row.is_nullable === 'YES',
      hasDefault: row.column_default !== null || row.is_identity === 'YES',
    });
  }
  // The columns PostgreSQL has alone are there, then left out of the comparison.
  for (const name of POSTGRES_ONLY_COLUMNS) {
    const [table, column] = name.split('.') as [string, string];
    assert.ok(schema.get(table)?.delete(column), `PostgreSQL has ${name}, the counterpart of SQLite's rowid (Db.writtenOrder)`);
  }
  return schema;
}

// --- tables.ts --------------------------------------------------------------------------------

const KYSELY = 'tables.ts (the Kysely types)';

/**
 * The interface Tables of tables.ts as the TypeScript checker sees it: each table a property,
 * each column a property of that; Kysely's ColumnType (Generated<...>) read through its
 * `__select__` and `__insert__` types.
 */
function kyselySchema(file: string): Schema {
  const program = ts.createProgram([file], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2022.d.ts'],
    types: [],
    paths: { kysely: [KYSELY_COLUMN_TYPES] },
    strict: true,
    skipLibCheck: true,
    noEmit: true,
  });
  const source = program.getSourceFile(file);
  assert.ok(source, `TypeScript reads ${file}`);
  // A type it cannot resolve (kysely not found, a typo) would read as any: refuse instead.
  const problems = ts.getPreEmitDiagnostics(program, source).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  assert.deepEqual(problems, [], `${file} type-checks`);
  const checker = program.getTypeChecker();
  const tables = checker.getExportsOfModule(checker.getSymbolAtLocation(source)!).find((symbol) => symbol.name === 'Tables');
  assert.ok(tables, `${file} exports the interface Tables`);

  const schema: Schema = new Map();
  for (const table of checker.getDeclaredTypeOfSymbol(tables).getProperties()) {
    for (const column of checker.getTypeOfSymbol(table).getProperties()) {
      const where = `${table.name}.${column.name} in ${file}`;
      const type = checker.getTypeOfSymbol(column);
      const select = type.getProperty('__select__');
      const insert = type.getProperty('__insert__');
      const read = describeType(checker, select ? checker.getTypeOfSymbol(select) : type, where);
      const written = insert ? checker.getTypeOfSymbol(insert) : undefined;
      add(schema, table.name, column.name, {
        ...read,
        hasDefault: false,
        insertOptional:
          written !== undefined &&
          ((written.flags & ts.TypeFlags.Never) !== 0 || unionParts(written).some((part) => (part.flags & ts.TypeFlags.Undefined) !== 0)),
      });
    }
  }
  return schema;
}

let tablesTs: Schema | undefined;
/** A copy of tables.ts's schema, read once: the checker takes a second or two. */
function kyselySource(): Source {
  tablesTs ??= kyselySchema(TABLES_FILE);
  return { name: KYSELY, schema: new Map([...tablesTs].map(([table, columns]) => [table, new Map(columns)])) };
}

const unionParts = (type: ts.Type) => (type.isUnion() ? type.types : [type]);

function describeType(checker: ts.TypeChecker, type: ts.Type, where: string): { family: Family; nullable: boolean } {
  let nullable = false;
  const families = new Set<Family>();
  for (const part of unionParts(type)) {
    if (part.flags & ts.TypeFlags.Null) nullable = true;
    else if (part.flags & ts.TypeFlags.StringLike) families.add('text');
    else if (part.flags & ts.TypeFlags.NumberLike) families.add('number');
    else if (part.flags & ts.TypeFlags.BooleanLike) families.add('boolean');
    else if (part.flags & ts.TypeFlags.BigIntLike) families.add('integer');
    else if (['Buffer', 'Uint8Array'].includes(part.getSymbol()?.name ?? '')) families.add('blob');
    else throw new Error(`${where}: no column type family for ${checker.typeToString(part)}`);
  }
  assert.equal(families.size, 1, `${where}: one type family, not ${[...families].join(' | ') || 'none'} (${checker.typeToString(type)})`);
  return { family: [...families][0]!, nullable };
}

// --- Comparing --------------------------------------------------------------------------------

const sameFamily = (a: Family, b: Family) =>
  a === b || (a === 'number' && (b === 'integer' || b === 'real')) || (b === 'number' && (a === 'integer' || a === 'real'));
const nullability = (column: Column) => (column.nullable ? 'nullable' : 'NOT NULL');

/**
 * Every way `a` and `b` disagree, one line each, naming the table, the column and the source
 * that lacks it or says otherwise. `defaults`: whether both say where the database fills a
 * column in (two databases); with tables.ts, a column it lets an insert leave out, and that is
 * NOT NULL, needs a default in `a`.
 */
function disagreements(a: Source, b: Source, options: { defaults: 'equal' | 'for optional inserts' }): string[] {
  const found: string[] = [];
  const tables = [...new Set([...a.schema.keys(), ...b.schema.keys()])].sort();
  for (const table of tables) {
    const columnsA = a.schema.get(table);
    const columnsB = b.schema.get(table);
    if (!columnsA || !columnsB) {
      found.push(`table ${table}: in ${(columnsA ? a : b).name}, missing from ${(columnsA ? b : a).name}`);
      continue;
    }
    for (const name of [...new Set([...columnsA.keys(), ...columnsB.keys()])].sort()) {
      const inA = columnsA.get(name);
      const inB = columnsB.get(name);
      const column = `column ${table}.${name}`;
      if (!inA || !inB) {
        found.push(`${column}: in ${(inA ? a : b).name}, missing from ${(inA ? b : a).name}`);
        continue;
      }
      if (inA.nullable !== inB.nullable) found.push(`${column}: ${nullability(inA)} in ${a.name}, ${nullability(inB)} in ${b.name}`);
      if (!sameFamily(inA.family, inB.family)) found.push(`${column}: ${inA.family} in ${a.name}, ${inB.family} in ${b.name}`);
      if (options.defaults === 'equal' && inA.hasDefault !== inB.hasDefault) {
        found.push(`${column}: ${inA.hasDefault ? 'a default' : 'no default'} in ${a.name}, ${inB.hasDefault ? 'a default' : 'no default'} in ${b.name}`);
      }
      if (options.defaults === 'for optional inserts' && inB.insertOptional && !inA.nullable && !inA.hasDefault) {
        found.push(`${column}: ${b.name} lets an insert leave it out (Generated), but it is NOT NULL without a default in ${a.name}`);
      }
    }
  }
  return found;
}

function assertAgree(a: Source, b: Source, options: Parameters<typeof disagreements>[2]): void {
  const found = disagreements(a, b, options);
  assert.deepEqual(found, [], `${a.name} and ${b.name} disagree:\n  ${found.join('\n  ')}`);
}

async function sqliteAt(options: { migrate: boolean }): Promise<Source> {
  const db = await openDatabase(join(tempDir(), 'webwatch.db'), options);
  try {
    const version = await schemaVersion(db);
    return { name: `the SQLite migrations (version ${version})`, schema: await sqliteSchema(db) };
  } finally {
    await db.close();
  }
}

describe('the schema, written three times, agrees with itself', () => {
  it('a SQLite database migrated from nothing has the tables and columns of tables.ts', async () => {
    const sqlite = await sqliteAt({ migrate: true });
    assert.match(sqlite.name, new RegExp(`version ${LATEST_VERSION}\\)`));
    assertAgree(sqlite, kyselySource(), { defaults: 'for optional inserts' });
  });

  it("reads each column's family, nullability and default from SQLite and from tables.ts", async () => {
    const sqlite = await sqliteAt({ migrate: true });
    const kysely = kyselySource();
    // The rowid's alias, a nullable column, a NOT NULL one with a default, a Generated one.
    assert.deepEqual(sqlite.schema.get('usage')?.get('id'), { family: 'integer', nullable: false, hasDefault: true });
    assert.deepEqual(sqlite.schema.get('monitors')?.get('last_run_at'), { family: 'text', nullable: true, hasDefault: false });
    assert.deepEqual(sqlite.schema.get('snapshots')?.get('gone'), { family: 'integer', nullable: false, hasDefault: true });
    assert.deepEqual(kysely.schema.get('snapshots')?.get('gone'), { family: 'number', nullable: false, hasDefault: false, insertOptional: true });
    assert.deepEqual(kysely.schema.get('monitors')?.get('last_run_at'), { family: 'text', nullable: true, hasDefault: false, insertOptional: false });
    assert.deepEqual(kysely.schema.get('checks')?.get('status'), { family: 'text', nullable: false, hasDefault: false, insertOptional: false });
  });

  it('names the table, the column and the source that lacks it or says otherwise', () => {
    const text = (nullable: boolean, more: Partial<Column> = {}): Column => ({ family: 'text', nullable, hasDefault: false, ...more });
    const schema = (tables: Record<string, Record<string, Column>>): Schema =>
      new Map(Object.entries(tables).map(([table, columns]) => [table, new Map(Object.entries(columns))]));
    const database: Source = {
      name: 'the database',
      schema: schema({
        checks: { id: text(false), error: text(true) },
        rate_windows: { key_id: text(false) },
        usage: { key_id: text(true), credits: { family: 'integer', nullable: false, hasDefault: true } },
      }),
    };
    const types: Source = {
      name: 'types.ts',
      schema: schema({
        checks: { id: text(false), credits: { family: 'number', nullable: true, hasDefault: false }, error: text(false, { insertOptional: true }) },
        usage: {
          key_id: { family: 'number', nullable: false, hasDefault: false },
          credits: { family: 'number', nullable: false, hasDefault: false, insertOptional: true },
        },
      }),
    };
    assert.deepEqual(disagreements(database, types, { defaults: 'for optional inserts' }), [
      'column checks.credits: in types.ts, missing from the database',
      'column checks.error: nullable in the database, NOT NULL in types.ts',
      'table rate_windows: in the database, missing from types.ts',
      'column usage.key_id: nullable in the database, NOT NULL in types.ts',
      'column usage.key_id: text in the database, number in types.ts',
    ]);
    types.schema.get('checks')!.set('error', text(false, { insertOptional: true }));
    database.schema.get('checks')!.set('error', text(false));
    assert.deepEqual(disagreements(database, types, { defaults: 'for optional inserts' }).slice(0, 2), [
      'column checks.credits: in types.ts, missing from the database',
      'column checks.error: types.ts lets an insert leave it out (Generated), but it is NOT NULL without a default in the database',
    ]);
    const other: Source = { name: 'the other database', schema: schema({ usage: { credits: { family: 'integer', nullable: false, hasDefault: false } } }) };
    assert.deepEqual(
      disagreements({ name: 'the database', schema: schema({ usage: { credits: { family: 'integer', nullable: false, hasDefault: true } } }) }, other, {
        defaults: 'equal',
      }),
      ['column usage.credits: a default in the database, no default in the other database'],
    );
  });
});

describe("the schema on PostgreSQL agrees with SQLite's", { skip: POSTGRES_SKIP }, () => {
  after(stopPostgresServer);

  it("the PostgreSQL baseline is the schema SQLite's migrations reach at its version", async () => {
    const sqlite = await sqliteAt({ migrate: false });
    assert.equal(sqlite.name, `the SQLite migrations (version ${POSTGRES_BASELINE.version})`, "SQLite's own history ends at the baseline's version");
    const db = await openDatabase(await (await postgresServer()).createDatabase(), { migrate: false });
    try {
      await sql.raw(POSTGRES_BASELINE.sql).execute(db.query);
      assertAgree(sqlite, { name: 'the PostgreSQL baseline', schema: await postgresSchema(db) }, { defaults: 'equal' });
    } finally {
      await db.close();
    }
  });

  it('after the shared migrations, a new PostgreSQL database has the schema of a new SQLite one', async () => {
    const sqlite = await sqliteAt({ migrate: true });
    const db = await openDatabase(await (await postgresServer()).createDatabase());
    try {
      assert.equal(await schemaVersion(db), LATEST_VERSION);
      assertAgree(
        sqlite,
        { name: `the PostgreSQL baseline and migrations (version ${LATEST_VERSION})`, schema: await postgresSchema(db) },
        { defaults: 'equal' },
      );
    } finally {
      await db.close();
    }
  });
});
