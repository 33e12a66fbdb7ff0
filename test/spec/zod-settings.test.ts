/**
 * Schemas parse without compiling code: zod's per-schema compilation (`new Function` on the first
 * parse of each object) costs a one-off command milliseconds and saves nothing after.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { validateMonitorRequest } from '../../src/spec/schemas.js';
import { validMonitor } from '../helpers/monitors.js';

it('validating a monitor compiles no function from source', () => {
  const original = globalThis.Function;
  let compiled = 0;
  globalThis.Function = new Proxy(original, {
    construct(target, args) {
      compiled += 1;
      return Reflect.construct(target, args);
    },
  });
  try {
    // Built and parsed here for the first time in this process, with a closed and an open object.
    assert.equal(validateMonitorRequest(validMonitor(), 'file').ok, true);
    assert.equal(validateMonitorRequest(validMonitor(), 'wire').ok, true);
  } finally {
    globalThis.Function = original;
  }
  assert.equal(compiled, 0);
});
