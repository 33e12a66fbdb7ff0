/** The conversion worker that convert-pool.ts starts, as a thread or a process: the content pipeline, and nothing of the CLI. */
import { parentPort } from 'node:worker_threads';
import { convertPage } from './convert.js';
import { answerConversions, childProcessPort } from './convert-pool.js';

answerConversions(parentPort ?? childProcessPort(), convertPage);
