#!/usr/bin/env node
/**
 * Benchmarks of the built CLI (dist/), timed with hyperfine:
 *
 *   1. start-up: the CPU time (user + system) of `node bin/webwatch.js --version`, `--help`,
 *      `scrape --help`, `monitor validate` of a small file and `monitor list` on the local
 *      engine (a few monitors), each against bare `node -e 0` (goal: within 2x of bare node;
 *      within 1.3x for --version, which the launcher answers alone);
 *   2. `node bin/webwatch.js monitor validate <file>` on a generated file of 1,000 valid,
 *      varied monitors (goal: mean under 1 s), plus the peak RSS of that run;
 *   3. a one-off scrape of a local page (goal: mean under 0.25 s).
 *
 * Usage (from the project root):  npm run build && node bench/startup-and-validate.mjs
 * Options: --runs N, --warmup N, --rounds N (start-up), --validate-runs N, --monitors N.
 *
 * Builds nothing. Writes scratch files to bench/.work/ and the results to
 * bench/results/startup-and-validate.json. Only Node built-ins; needs hyperfine on PATH.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const WORK = 'bench/.work';
const RESULTS = 'bench/results/startup-and-validate.json';
const at = (relative) => join(ROOT, relative);

const GOALS = { versionRatio: 1.3, commandRatio: 2, validateMs: 1000, scrapeMs: 250 };

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '40' },
    warmup: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '8' },
    'validate-runs': { type: 'string', default: '15' },
    'scrape-runs': { type: 'string', default: '20' },
    monitors: { type: 'string', default: '1000' },
  },
});
const positiveInt = (name) => {
  const n = Number(args[name]);
  if (!Number.isInteger(n) || n < 1) fail(`--${name} must be a positive integer, got "${args[name]}"`);
  return n;
};

function fail(message) {
  console.error(`bench: ${message}`);
  process.exit(1);
}

// ---------------------------------------------------------------------------------------------
// Preconditions

if (!existsSync(at('dist/src/cli/main.js'))) {
  fail('dist/src/cli/main.js is missing: build first with `npm run build`, then run this again.');
}
// The launcher runs the bundle only when it is newer than dist/src: say when it will not.
if (!existsSync(at('dist/webwatch.cjs')) || statSync(at('dist/webwatch.cjs')).mtimeMs < statSync(at('dist/src/cli/main.js')).mtimeMs) {
  console.warn(
    'bench: dist/webwatch.cjs is missing or older than dist/src (tsc without the bundle step): this times the separate modules; run `npm run build` to time what users run.',
  );
}

const hyperfineVersion = (() => {
  const probe = spawnSync('hyperfine', ['--version'], { encoding: 'utf8' });
  if (probe.error) {
    fail(
      'hyperfine is not installed (it is not on PATH).\n' +
        '  On Debian or Ubuntu: sudo apt-get install hyperfine\n' +
        '  Elsewhere: see https://github.com/sharkdp/hyperfine#installation',
    );
  }
  return probe.stdout.trim().replace(/^hyperfine\s+/, '');
})();

/**
 * The environment the benchmarks run in: the caller's, minus variables that make every Node
 * start-up do extra work. NODE_EXTRA_CA_CERTS in particular makes Node 20 read and parse a
 * certificate bundle before running any code, which adds the same fixed cost to both sides of
 * the start-up comparison and so hides webwatch's own share of it.
 */
const NOISY_VARIABLES = ['NODE_OPTIONS', 'NODE_EXTRA_CA_CERTS'];
const cleanEnv = { ...process.env };
for (const name of NOISY_VARIABLES) delete cleanEnv[name];
const removedVariables = NOISY_VARIABLES.filter((name) => process.env[name] !== undefined);

// ---------------------------------------------------------------------------------------------
// Helpers

function run(command, commandArgs, options = {}) {
  const result = spawnSync(command, commandArgs, { cwd: ROOT, encoding: 'utf8', env: cleanEnv, maxBuffer: 256 * 1024 * 1024, ...options });
  if (result.error) fail(`could not run ${command}: ${result.error.message}`);
  return result;
}

/**
 * Runs hyperfine (no intermediate shell) and returns per-command statistics, in ms. With
 * `rounds` > 1 the runs are split into that many hyperfine invocations, one after the other,
 * and the times pooled: hyperfine runs all of one command before the next, so on a machine
 * whose speed drifts, alternating short rounds keeps the drift from landing on one side only.
 */
function hyperfine(name, commands, { warmup, runs, rounds = 1, env = cleanEnv }) {
  const perRound = Math.ceil(runs / rounds);
  const exports = [];
  for (let round = 1; round <= rounds; round++) {
    const exportFile = `${WORK}/${name}${rounds > 1 ? `.round-${round}` : ''}.hyperfine.json`;
    if (rounds > 1) console.log(`-- round ${round} of ${rounds}`);
    const result = run(
      'hyperfine',
      ['-N', '--style', 'basic', '--warmup', String(warmup), '--runs', String(perRound), '--export-json', exportFile, ...commands],
      { env, stdio: ['ignore', 'inherit', 'inherit'] },
    );
    if (result.status !== 0) fail(`hyperfine failed (exit ${result.status}) for: ${commands.join(' | ')}`);
    exports.push(JSON.parse(readFileSync(at(exportFile), 'utf8')).results);
  }
  const ms = (seconds) => Math.round(seconds * 1e5) / 100; // ms, two decimals
  return commands.map((command, index) => {
    const parts = exports.map((results) => results[index]);
    const times = parts.flatMap((r) => r.times);
    const mean = times.reduce((sum, t) => sum + t, 0) / times.length;
    const stddev = times.length < 2 ? 0 : Math.sqrt(times.reduce((sum, t) => sum + (t - mean) ** 2, 0) / (times.length - 1));
    const weighted = (key) => parts.reduce((sum, r) => sum + r[key] * r.times.length, 0) / times.length;
    // hyperfine reports CPU time as a mean per command and round: the median of those rounds
    // is the figure the start-up goals are judged on (other work on the machine moves wall time
    // more than CPU time).
    const cpuOfRounds = parts.map((r) => r.user + r.system);
    return {
      command,
      runs: times.length,
      ...(rounds > 1 && { rounds }),
      meanMs: ms(mean),
      stddevMs: ms(stddev),
      medianMs: ms(median(times)),
      minMs: ms(Math.min(...times)),
      maxMs: ms(Math.max(...times)),
      userMs: ms(weighted('user')),
      systemMs: ms(weighted('system')),
      cpuMedianOfRoundsMs: ms(median(cpuOfRounds)),
      cpuOfRoundsMs: cpuOfRounds.map(ms),
    };
  });
}

/** a/b with the error propagated from both standard deviations, as hyperfine does. */
function ratio(a, b) {
  const value = a.meanMs / b.meanMs;
  const error = value * Math.sqrt((a.stddevMs / a.meanMs) ** 2 + (b.stddevMs / b.meanMs) ** 2);
  return { value, error, ofMedians: a.medianMs / b.medianMs };
}

const round3 = (n) => Math.round(n * 1000) / 1000;

const median = (values) => {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

// ---------------------------------------------------------------------------------------------
// The monitors file: valid, varied, unique names. Deterministic, so every run times the same file.

const SCHEDULES = [
  { cron: '*/15 * * * *' },
  { text: 'daily at 9 am', timezone: 'Europe/Paris' },
  { cron: '5,35 * * * *' },
  { text: 'every 30 minutes' },
  { cron: '0 9 * * mon-fri', timezone: 'America/New_York' },
  { text: 'hourly' },
  { text: 'weekly', timezone: 'Europe/Paris' },
  { cron: '0 9 * * mon-fri' },
  { text: 'every 30 minutes', timezone: 'America/New_York' },
  { cron: '*/15 * * * *', timezone: 'Europe/Paris' },
  { text: 'daily at 9 am' },
];
const FORMAT_SETS = [['markdown'], ['markdown', 'links'], ['html'], ['markdown', 'changeTracking'], ['summary', 'links']];
const SITES = ['example.com', 'example.org', 'example.net', 'shop.example.com', 'docs.example.org', 'news.example.net'];
const TOPICS = ['pricing', 'changelog', 'status', 'careers', 'security advisories', 'release notes', 'blog', 'terms'];

const q = (s) => JSON.stringify(s); // a JSON string is a valid double-quoted YAML scalar

function scheduleYaml(schedule) {
  const lines = ['  schedule:'];
  if (schedule.cron) lines.push(`    cron: ${q(schedule.cron)}`);
  if (schedule.text) lines.push(`    text: ${schedule.text}`);
  if (schedule.timezone) lines.push(`    timezone: ${schedule.timezone}`);
  return lines;
}

function targetYaml(kind, i) {
  const site = SITES[i % SITES.length];
  const topic = TOPICS[i % TOPICS.length];
  const slug = topic.replace(/\s+/g, '-');
  if (kind === 'scrape') {
    const formats = FORMAT_SETS[i % FORMAT_SETS.length];
    const lines = ['    - type: scrape', '      urls:', `        - https://${site}/${slug}`];
    if (i % 2 === 0) lines.push(`        - https://${site}/${slug}/archive?page=${i % 9}`);
    lines.push(
      '      scrapeOptions:',
      `        formats: [${formats.join(', ')}]`,
      `        onlyMainContent: ${i % 4 !== 1}`,
      `        timeout: ${15000 + (i % 6) * 5000}`,
    );
    if (i % 5 === 0) lines.push('        blockAds: true');
    return lines;
  }
  if (kind === 'crawl') {
    const lines = [
      '    - type: crawl',
      `      url: https://${site}/${slug}`,
      '      crawlOptions:',
      `        limit: ${10 + (i % 20) * 5}`,
      `        maxDepth: ${1 + (i % 4)}`,
      `        includePaths: [${q(`^/${slug}/.*`)}]`,
    ];
    if (i % 3 === 0) lines.push(`        excludePaths: [${q('^/private/.*')}]`);
    if (i % 4 === 0) lines.push('      scrapeOptions:', '        formats: [markdown]', '        onlyMainContent: true');
    return lines;
  }
  return [
    '    - type: search',
    '      queries:',
    `        - ${q(`${topic} ${site}`)}`,
    `        - ${q(`${site} announcement ${i}`)}`,
    `      maxResults: ${5 + (i % 10) * 4}`,
    `      searchWindow: ${['1h', '6h', '24h', '7d'][i % 4]}`,
    ...(i % 2 === 0 ? [`      includeDomains: [${site}]`] : []),
  ];
}

function monitorYaml(i) {
  const kinds = ['scrape', 'crawl', 'search'];
  const kind = kinds[i % 3];
  const lines = [`- name: ${q(`${kind} ${TOPICS[i % TOPICS.length]} #${String(i + 1).padStart(4, '0')}`)}`];
  lines.push(...scheduleYaml(SCHEDULES[i % SCHEDULES.length]));
  // Search targets need a goal (spec §2.1); others get one now and then.
  if (kind === 'search' || i % 4 === 0)
    lines.push(`  goal: ${q(`Tell me when the ${TOPICS[i % TOPICS.length]} page changes in a way a customer would notice`)}`);
  if (kind !== 'search' && i % 8 === 4) lines.push('  judgeEnabled: false');
  lines.push('  targets:', ...targetYaml(kind, i));
  // Some scrape and crawl monitors get a second target.
  if (i % 5 === 2 && kind !== 'search') lines.push(...targetYaml(kinds[(i + 1) % 2], i + 1));
  if (i % 3 === 1) {
    lines.push(
      '  webhook:',
      `    url: https://hooks.example.com/webwatch/${i}`,
      `    events: [${i % 2 ? 'monitor.page, monitor.check.completed' : 'monitor.check.completed'}]`,
      '    headers:',
      `      X-Token: ${q(`token-${i}`)}`,
    );
  }
  if (i % 4 === 2) {
    lines.push(
      '  notification:',
      '    email:',
      '      enabled: true',
      `      includeDiffs: ${i % 8 === 2}`,
      `      recipients: [team${i % 10}@example.com, alerts@example.org]`,
    );
  }
  if (i % 6 === 0) lines.push(`  retentionDays: ${7 + (i % 12) * 30}`);
  return lines.join('\n');
}

function generateMonitors(count) {
  const header = `# Generated by bench/startup-and-validate.mjs: ${count} monitors, all valid.\n`;
  return `${header + Array.from({ length: count }, (_, i) => monitorYaml(i)).join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------
// Peak RSS of one command: GNU time's `time -v` (Debian package `time`; the `time` program on
// PATH, not the shell keyword) when it works, else a --import hook that reports
// process.resourceUsage().maxRSS at exit. Both read the kernel's ru_maxrss of the node process.

const GNU_TIME = 'time';

function gnuTimeWorks() {
  const probe = spawnSync(GNU_TIME, ['-v', 'true'], { encoding: 'utf8' });
  return !probe.error && probe.status === 0 && /Maximum resident set size/.test(probe.stderr);
}

const RSS_HOOK = `data:text/javascript,${encodeURIComponent(
  "import{writeSync}from'node:fs';process.on('exit',()=>writeSync(2,'\\nmaxRSS-kB='+process.resourceUsage().maxRSS+'\\n'));",
)}`;

function peakRssKb(commandArgs, method) {
  const result = method === 'gnu-time' ? run(GNU_TIME, ['-v', 'node', ...commandArgs]) : run('node', [`--import=${RSS_HOOK}`, ...commandArgs]);
  if (result.status !== 0) fail(`peak RSS run failed (exit ${result.status}): node ${commandArgs.join(' ')}\n${result.stderr}`);
  const match = method === 'gnu-time' ? /Maximum resident set size \(kbytes\): (\d+)/.exec(result.stderr) : /maxRSS-kB=(\d+)/.exec(result.stderr);
  if (!match) fail(`could not read the peak RSS from the ${method} output`);
  return Number(match[1]);
}

// ---------------------------------------------------------------------------------------------
// Machine

function machine() {
  let cpuModel = os.cpus()[0]?.model ?? 'unknown';
  let cpuinfoProcessors;
  try {
    const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
    cpuModel = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? cpuModel;
    cpuinfoProcessors = cpuinfo.match(/^processor\s*:/gm)?.length;
  } catch {
    // not Linux: keep os.cpus()
  }
  return {
    cpuModel,
    cores: cpuinfoProcessors ?? os.cpus().length,
    availableParallelism: os.availableParallelism(),
    totalMemoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    hyperfine: hyperfineVersion,
    loadAverageAtStart: os.loadavg().map((n) => Math.round(n * 100) / 100),
  };
}

/** The commit measured, and whether files outside bench/ differ from it. */
function source() {
  const git = (...gitArgs) => spawnSync('git', gitArgs, { cwd: ROOT, encoding: 'utf8' });
  const head = git('rev-parse', '--short=12', 'HEAD');
  if (head.error || head.status !== 0) return { commit: null };
  const status = git('status', '--porcelain', '--', '.', ':(exclude)bench');
  return { commit: head.stdout.trim(), uncommittedChangesOutsideBench: status.stdout.trim() !== '' };
}

// ---------------------------------------------------------------------------------------------
// Main

const runs = positiveInt('runs');
const warmup = positiveInt('warmup');
const rounds = positiveInt('rounds');
const validateRuns = positiveInt('validate-runs');
const monitorCount = positiveInt('monitors');
const info = machine();
const date = new Date().toISOString();
const measured = source();

rmSync(at(WORK), { recursive: true, force: true });
mkdirSync(at(WORK), { recursive: true });
mkdirSync(dirname(at(RESULTS)), { recursive: true });

if (removedVariables.length > 0) {
  console.log(
    `Running with ${removedVariables.join(' and ')} unset: ${removedVariables.length === 1 ? 'it adds' : 'they add'} fixed work to every Node start-up.`,
  );
}

// 1. Start-up of each command, in CPU time against bare node. monitor list runs on an engine
// home of its own with the example monitors applied; validate reads the same example file.
const NODE_BARE = 'node -e 0';
const EXAMPLES = 'examples/monitors.yaml';
const STARTUP_COMMANDS = [
  { args: ['--version'], goal: GOALS.versionRatio },
  { args: ['--help'], goal: GOALS.commandRatio },
  { args: ['scrape', '--help'], goal: GOALS.commandRatio },
  { args: ['monitor', 'validate', EXAMPLES], goal: GOALS.commandRatio },
  { args: ['monitor', 'list'], goal: GOALS.commandRatio },
];
const startupHome = at(`${WORK}/startup-home`);
const startupEnv = { ...cleanEnv, WEBWATCH_HOME: join(startupHome, 'data'), XDG_CONFIG_HOME: join(startupHome, 'config') };
delete startupEnv.WEBWATCH_API_URL;
const applied = run('node', ['bin/webwatch.js', 'monitor', 'apply', '-f', EXAMPLES, '--yes'], { env: startupEnv });
if (applied.status !== 0) fail(`\`webwatch monitor apply -f ${EXAMPLES}\` exited with ${applied.status}:\n${applied.stderr}`);
const monitorsListed = run('node', ['bin/webwatch.js', 'monitor', 'list'], { env: startupEnv }).stdout.trim().split('\n').length;
for (const { args } of STARTUP_COMMANDS) {
  const check = run('node', ['bin/webwatch.js', ...args], { env: startupEnv });
  if (check.status !== 0) fail(`\`webwatch ${args.join(' ')}\` exited with ${check.status}:\n${check.stderr}`);
}
const startupCommands = [NODE_BARE, ...STARTUP_COMMANDS.map(({ args }) => `node bin/webwatch.js ${args.join(' ')}`)];

console.log(
  `\n== Start-up: ${startupCommands.length - 1} commands against ${NODE_BARE} (${runs} runs each in ${rounds} rounds, ${warmup} warm-up runs per round; monitor list of ${monitorsListed} monitors)`,
);
const [bare, ...timed] = hyperfine('startup', startupCommands, { warmup, runs, rounds, env: startupEnv });
const startupRows = timed.map((time, index) => {
  const cpuRatio = time.cpuMedianOfRoundsMs / bare.cpuMedianOfRoundsMs;
  return {
    ...time,
    goalRatio: STARTUP_COMMANDS[index].goal,
    cpuRatio: round3(cpuRatio),
    wallRatioOfMedians: round3(time.medianMs / bare.medianMs),
    goalMet: cpuRatio <= STARTUP_COMMANDS[index].goal,
  };
});

// The same pair as the caller's environment has it, for reference only.
let inherited;
if (removedVariables.length > 0) {
  const WEBWATCH_VERSION = startupCommands[1];
  console.log(`\n== Start-up again with the caller's environment (${removedVariables.join(', ')} set), for reference`);
  const [bareInherited, webwatchInherited] = hyperfine('startup-inherited-env', [NODE_BARE, WEBWATCH_VERSION], {
    warmup,
    runs,
    rounds,
    env: process.env,
  });
  const r = ratio(webwatchInherited, bareInherited);
  inherited = {
    variables: removedVariables,
    bare: bareInherited,
    webwatch: webwatchInherited,
    ratio: { value: round3(r.value), error: round3(r.error), ofMedians: round3(r.ofMedians) },
  };
}

// 2. monitor validate
const monitorsFile = `${WORK}/monitors-${monitorCount}.yaml`;
const yamlText = generateMonitors(monitorCount);
writeFileSync(at(monitorsFile), yamlText);
const validateArgs = ['bin/webwatch.js', 'monitor', 'validate', monitorsFile];
const VALIDATE = `node ${validateArgs.join(' ')}`;

const check = run('node', validateArgs);
if (check.status !== 0) {
  fail(`\`${VALIDATE}\` exited with ${check.status}, not 0: the generated file is not valid.\n${check.stdout}${check.stderr}`.trimEnd());
}
const checkJson = run('node', [...validateArgs, '--json']);
const report = JSON.parse(checkJson.stdout);
const checked = report.files.flatMap((f) => f.monitors);
if (checkJson.status !== 0 || !report.valid || checked.length !== monitorCount || !checked.every((m) => m.valid)) {
  fail(`the --json report does not show ${monitorCount} valid monitors (exit ${checkJson.status}, ${checked.length} monitors)`);
}
const count = (pattern) => {
  const counts = {};
  for (const match of yamlText.matchAll(pattern)) counts[match[1]] = (counts[match[1]] ?? 0) + 1;
  return counts;
};
const fileContents = {
  targets: count(/^ {4}- type: (scrape|crawl|search)$/gm),
  schedules: count(/^ {4}(cron|text): /gm),
  timezones: count(/^ {4}timezone: (\S+)$/gm),
  webhooks: (yamlText.match(/^ {2}webhook:$/gm) ?? []).length,
  emailNotifications: (yamlText.match(/^ {4}email:$/gm) ?? []).length,
};

console.log(`\n== ${VALIDATE} (${monitorCount} monitors, exit code 0 checked; 2 warm-up, ${validateRuns} runs)`);
const [validate] = hyperfine('validate', [VALIDATE], { warmup: 2, runs: validateRuns });

// 3. A one-off scrape of a small page on 127.0.0.1, end to end (fetch, conversion, the scrape
// cache, output), against bare node and against the hosted service's CLI answering --version.
// The page is served by a separate process: hyperfine runs while this one waits.
const server = spawn(
  process.execPath,
  [
    '-e',
    `
  const page = '<!doctype html><html><head><title>Start-up</title></head><body><main><h1>Start-up</h1><p>A small page, with a paragraph of text, scraped to time a one-off command.</p></main></body></html>';
  require('node:http').createServer((q, r) => r.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page))
    .listen(0, '127.0.0.1', function () { process.stdout.write(String(this.address().port) + '\\n'); });
`,
  ],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
const port = await new Promise((done) => server.stdout.once('data', (chunk) => done(Number(String(chunk).trim()))));
const scrapeHome = at(`${WORK}/scrape-home`);
const scrapeEnv = { ...cleanEnv, WEBWATCH_HOME: join(scrapeHome, 'data'), XDG_CONFIG_HOME: join(scrapeHome, 'config') };
delete scrapeEnv.WEBWATCH_API_URL;
// --max-age 0: every run fetches and converts, as a first scrape does, instead of answering from the cache.
const WEBWATCH_SCRAPE = `node bin/webwatch.js scrape --max-age 0 http://127.0.0.1:${port}/`;
const FIRECRAWL_VERSION = 'node node_modules/firecrawl-cli/dist/index.js --version';
const scrapeCheck = run('node', WEBWATCH_SCRAPE.split(' ').slice(1), { env: scrapeEnv });
if (scrapeCheck.status !== 0 || !scrapeCheck.stdout.includes('A small page'))
  fail(`\`${WEBWATCH_SCRAPE}\` failed (${scrapeCheck.status}):\n${scrapeCheck.stderr}`);
const haveFirecrawl = existsSync(at('node_modules/firecrawl-cli/dist/index.js')) && run('node', FIRECRAWL_VERSION.split(' ').slice(1)).status === 0;
const scrapeRuns = positiveInt('scrape-runs');
console.log(
  `\n== One-off scrape: ${WEBWATCH_SCRAPE} vs ${NODE_BARE}${haveFirecrawl ? ` and ${FIRECRAWL_VERSION}` : ''} (${scrapeRuns} runs in ${rounds} rounds)`,
);
const scrapeTimes = hyperfine('scrape', [NODE_BARE, WEBWATCH_SCRAPE, ...(haveFirecrawl ? [FIRECRAWL_VERSION] : [])], {
  warmup: 3,
  runs: scrapeRuns,
  rounds,
  env: scrapeEnv,
});
server.kill();
const [scrapeBare, scrape, firecrawl] = scrapeTimes;

const rssMethod = gnuTimeWorks() ? 'gnu-time' : 'resource-usage-hook';
const rssSamples = Array.from({ length: 5 }, () => peakRssKb(validateArgs.slice(), rssMethod));
const bareRssSamples = Array.from({ length: 5 }, () => peakRssKb(['-e', '0'], rssMethod));

const results = {
  date,
  source: measured,
  machine: info,
  environment: {
    unsetForTheRuns: removedVariables,
    note: 'NODE_OPTIONS and NODE_EXTRA_CA_CERTS are removed from the environment of every timed run.',
  },
  startup: {
    goal: `CPU time (user + system, median of the rounds' means) of each command within its ratio of "${NODE_BARE}": ${GOALS.commandRatio}x, ${GOALS.versionRatio}x for --version`,
    warmup,
    rounds,
    monitorsListed,
    bare,
    commands: startupRows,
    goalMet: startupRows.every((row) => row.goalMet),
    ...(inherited && { withCallerEnvironment: inherited }),
  },
  scrape: {
    goal: `mean of a one-off scrape of a local page under ${GOALS.scrapeMs} ms`,
    bare: scrapeBare,
    webwatch: scrape,
    ...(firecrawl && { firecrawlVersion: firecrawl }),
    goalMet: scrape.meanMs < GOALS.scrapeMs,
  },
  validate: {
    goal: `mean under ${GOALS.validateMs} ms`,
    file: monitorsFile,
    monitors: monitorCount,
    ...fileContents,
    fileBytes: Buffer.byteLength(yamlText),
    fileLines: yamlText.split('\n').length - 1,
    exitCodeChecked: 0,
    warmup: 2,
    time: validate,
    goalMet: validate.meanMs < GOALS.validateMs,
    peakRss: {
      method: rssMethod === 'gnu-time' ? 'GNU time -v (Maximum resident set size)' : 'node --import hook printing process.resourceUsage().maxRSS at exit',
      samples: rssSamples.length,
      samplesKiB: rssSamples,
      medianMiB: round3(median(rssSamples) / 1024),
      maxMiB: round3(Math.max(...rssSamples) / 1024),
      bareNodeMedianMiB: round3(median(bareRssSamples) / 1024),
    },
  },
};
writeFileSync(at(RESULTS), `${JSON.stringify(results, null, 2)}\n`);

// ---------------------------------------------------------------------------------------------
// Summary table

const ms = (s) => `${s.meanMs.toFixed(1)} ± ${s.stddevMs.toFixed(1)} ms`;
const mib = (n) => `${n.toFixed(1)} MiB`;
const verdict = (ok) => (ok ? 'met' : 'NOT met');
const rows = [
  ['Measurement', 'Result', 'Goal'],
  [NODE_BARE, `CPU ${bare.cpuMedianOfRoundsMs.toFixed(1)} ms; wall ${ms(bare)}`, ''],
  ...startupRows.map((row) => [
    row.command.replace('node bin/webwatch.js', 'webwatch'),
    `CPU ${row.cpuMedianOfRoundsMs.toFixed(1)} ms = ${row.cpuRatio.toFixed(2)}x; wall ${ms(row)}`,
    `<= ${row.goalRatio}x: ${verdict(row.goalMet)}`,
  ]),
  ...(inherited
    ? [
        [
          `  --version with ${inherited.variables.join(', ')}`,
          `${ms(inherited.bare)} vs ${ms(inherited.webwatch)}: ${inherited.ratio.value.toFixed(2)}x`,
          '(reference)',
        ],
      ]
    : []),
  [
    'scrape of a local page',
    `${ms(scrape)} (median ${scrape.medianMs.toFixed(1)}); node -e 0 ${ms(scrapeBare)}`,
    `< ${GOALS.scrapeMs} ms: ${verdict(results.scrape.goalMet)}`,
  ],
  ...(firecrawl ? [['firecrawl-cli --version', `${ms(firecrawl)} (median ${firecrawl.medianMs.toFixed(1)})`, '(reference)']] : []),
  [
    `validate, ${monitorCount} monitors`,
    `${ms(validate)} (median ${validate.medianMs.toFixed(1)})`,
    `< ${GOALS.validateMs} ms: ${verdict(results.validate.goalMet)}`,
  ],
  [
    'validate peak RSS',
    `${mib(results.validate.peakRss.medianMiB)} median, ${mib(results.validate.peakRss.maxMiB)} max`,
    `(node -e 0: ${mib(results.validate.peakRss.bareNodeMedianMiB)})`,
  ],
];
const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
console.log(`\n${info.cpuModel}, ${info.cores} cores, ${info.totalMemoryGiB} GiB, Node ${info.node}, hyperfine ${info.hyperfine}`);
for (const [index, row] of rows.entries()) {
  console.log(
    row
      .map((cell, c) => cell.padEnd(widths[c]))
      .join('  ')
      .trimEnd(),
  );
  if (index === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
}
console.log(`\nWritten to ${RESULTS}`);
