/**
 * A conversion worker for tests, as a thread or a process: the real pipeline, except for pages
 * whose path asks it to misbehave as a hostile page could make it: /hang never finishes, /crash
 * ends the worker, /abort grows one array past any heap limit, which aborts the whole process
 * it runs in, not just a worker thread (nodejs/node#47224).
 */
import { parentPort } from 'node:worker_threads';
import { convertPage } from '../../src/engine/scrape/convert.js';
import { answerConversions, childProcessPort } from '../../src/engine/scrape/convert-pool.js';

answerConversions(parentPort ?? childProcessPort(), async (page, options, formats, limits) => {
  const path = new URL(page.finalUrl).pathname;
  if (path === '/hang') for (;;);
  if (path === '/crash') process.exit(7);
  if (path === '/abort') {
    const grown: number[] = [];
    for (let i = 0; i < 1e9; i++) grown.push(i);
  }
  return convertPage(page, options, formats, limits);
});
