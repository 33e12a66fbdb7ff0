/** The conversion worker that convert-pool.ts starts: the content pipeline, and nothing of the CLI. */
import { parentPort } from 'node:worker_threads';
import { convertPage } from './convert.js';
import { answerConversions } from './convert-pool.js';

answerConversions(parentPort!, convertPage);
