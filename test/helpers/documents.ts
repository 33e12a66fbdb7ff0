/** Whether the document converters are on this machine: a reason to skip by, naming the packages, or undefined. */
import { DOCUMENT_TOOLS_INSTALL_HINT, findTool } from '../../src/engine/tools/child-tools.js';

export const documentToolsMissing: string | undefined = (() => {
  try {
    for (const tool of ['pandoc', 'soffice', 'bwrap'] as const) findTool(tool);
    return undefined;
  } catch (error) {
    return `${(error as Error).message}: ${DOCUMENT_TOOLS_INSTALL_HINT}`;
  }
})();
