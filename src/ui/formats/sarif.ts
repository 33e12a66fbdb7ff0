/**
 * `monitor validate --format sarif`: the report as a SARIF 2.1.0 log, the format code-scanning
 * tools read (GitHub code scanning shows each result on its line of the pull request).
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { formatLocated } from '../../spec/located-line.js';
import { reportedProblems, type ProblemReport, type ReportedProblem } from './reported-problems.js';
import { filePlace } from './file-place.js';

export const SARIF_SCHEMA_URI = 'https://json.schemastore.org/sarif-2.1.0.json';
/** Paths inside the checkout are relative to this base, as code scanning expects. */
const SOURCE_ROOT = '%SRCROOT%';

const RULES = [
  {
    id: 'invalid-definition-file',
    name: 'InvalidDefinitionFile',
    shortDescription: { text: 'A monitor definition file that cannot be read or parsed' },
    fullDescription: {
      text: 'The file cannot be read, is over the size limit of a definition file, is not UTF-8 or not valid YAML, or holds neither a monitor nor a list of monitors.',
    },
    defaultConfiguration: { level: 'error' },
  },
  {
    id: 'invalid-monitor',
    name: 'InvalidMonitor',
    shortDescription: { text: 'A monitor definition that breaks a rule of the v2 monitoring interface' },
    fullDescription: {
      text: 'A field is unknown, missing, of the wrong type or over a limit, a schedule runs more often than every 5 minutes, or a name is used twice.',
    },
    defaultConfiguration: { level: 'error' },
  },
] as const;

export interface SarifOptions {
  /** webwatch's version, for the log's tool. */
  version: string;
  /** The checkout's root: files inside it are named relative to it. */
  root: string;
  cwd: string;
}

function resultOf({ file, monitor, error }: ReportedProblem, options: SarifOptions) {
  const ruleIndex = monitor === undefined ? 0 : 1;
  const place = filePlace(file, options.root, options.cwd);
  const text = !place ? formatLocated(file, error) : error.path === '' ? error.message : `${error.path}: ${error.message}`;
  const artifactLocation = place?.inRoot
    ? { uri: place.path.split('/').map(encodeURIComponent).join('/'), uriBaseId: SOURCE_ROOT }
    : place && { uri: pathToFileURL(place.path).href };
  const region = error.line === null ? undefined : { startLine: error.line, ...(error.column !== null && { startColumn: error.column }) };
  return {
    ruleId: RULES[ruleIndex].id,
    ruleIndex,
    level: 'error' as const,
    message: { text },
    ...(artifactLocation && { locations: [{ physicalLocation: { artifactLocation, ...(region && { region }) } }] }),
    properties: {
      ...(error.path !== '' && { field: error.path }),
      ...(monitor != null && { monitor }),
    },
  };
}

export function validationSarif(report: ProblemReport, options: SarifOptions) {
  const rootUri = pathToFileURL(resolve(options.cwd, options.root)).href;
  return {
    $schema: SARIF_SCHEMA_URI,
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'webwatch', version: options.version, semanticVersion: options.version, rules: RULES } },
        invocations: [{ executionSuccessful: true }],
        originalUriBaseIds: { [SOURCE_ROOT]: { uri: rootUri.endsWith('/') ? rootUri : `${rootUri}/` } },
        // Columns count as JavaScript strings do, which is how the YAML parser gives them.
        columnKind: 'utf16CodeUnits',
        results: reportedProblems(report).map((problem) => resultOf(problem, options)),
      },
    ],
  };
}
