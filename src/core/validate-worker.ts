/** The worker of untrusted-validation.ts: validates the definitions it is sent, one after another. */
import { parentPort } from 'node:worker_threads';
import { answerValidations } from './untrusted-validation.js';

answerValidations(parentPort!);
