/**
 * A conversion worker for tests: the real pipeline, except for pages whose path asks it to
 * misbehave as a hostile page could make it: /hang never finishes, /crash ends the thread.
 */
import { parentPort } from 'node:worker_threads';
import { convertPage } from '../../src/engine/scrape/convert.js';
import { answerConversions } from '../../src/engine/scrape/convert-pool.js';

answerConversions(parentPort!, async (page, options, formats, limits) => {
  const path = new URL(page.finalUrl).pathname;
  if (path === '/hang') for (;;);
  if (path === '/crash') process.exit(7);
  return convertPage(page, options, formats, limits);
});
