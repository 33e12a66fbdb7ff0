/**
 * Markers around untrusted data sent to a model. Random each time they are made: a page that
 * writes a marker of its own cannot close the fence it stands in and put words outside it.
 */
import { randomBytes } from 'node:crypto';

export const untrustedFence = (label: string) => `<<<${label} ${randomBytes(6).toString('hex')}>>>`;
