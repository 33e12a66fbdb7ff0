/**
 * zod's settings for the whole process, imported for its effect by the schemas' building blocks
 * (fields.ts) and the flag parser, so that they apply before the interface's, the
 * configuration's and the flags' schemas are built. Without `jitless`, zod compiles a parser for
 * each object schema with `new Function` on its first parse: 2-3 ms of a command that validates
 * one file, for no gain after (a monitor request parses in about 18 us either way, 5,000 times
 * in a row). The setting changes speed only, never what a schema accepts.
 */
import { z } from 'zod';

z.config({ jitless: true });
