// A seeded PRNG (mulberry32), keyed by a string so that each page draws the same numbers
// whatever the order or number of pages around it.
import { createHash } from 'node:crypto';

export function random(key) {
  let state = parseInt(createHash('sha1').update(String(key)).digest('hex').slice(0, 8), 16) >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = (list) => list[Math.floor(next() * list.length)];
  const shuffle = (list) => {
    const copy = [...list];
    for (let i = copy.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [copy[i], copy[j]] = [copy[j], copy[i]];
    }
    return copy;
  };
  const chars = (alphabet, n) => Array.from({ length: n }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
  return {
    next,
    int,
    pick,
    shuffle,
    chance: (p) => next() < p,
    hex: (n) => chars('0123456789abcdef', n),
    token: (n) => chars('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', n),
    base36: (n) => chars('0123456789abcdefghijklmnopqrstuvwxyz', n),
  };
}
