/** Whether interact code can run here as serve runs it: Chromium and bubblewrap; a reason to skip by, or undefined. */
import { findChromium } from '../../src/engine/browser/chromium.js';
import { findTool } from '../../src/engine/tools/child-tools.js';

export const interactToolsMissing: string | undefined = (() => {
  try {
    findChromium(process.env, undefined, 'the tests');
    findTool('bwrap');
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
})();
