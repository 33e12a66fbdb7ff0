/**
 * The flags for scrape options, shared by `scrape` and `crawl` (declarations: light), and
 * their merge with --options into checked ScrapeOptions (in scrape-options-flags.ts, loaded
 * when a command runs).
 */
import { Option, type Command } from 'commander';

export const collect = (value: string, previous: string[] = []) => [...previous, value];

export function addScrapeOptionFlags(command: Command): Command {
  return command
    .option('-f, --format <formats>', 'comma-separated formats: markdown, html, rawHtml, rawBase64, links, images', collect)
    .option('--options <file>', 'scrape options in YAML (the ScrapeOptions of the v2 interface)')
    .addOption(new Option('--only-main-content', 'keep only the main content (the default)'))
    .addOption(new Option('--no-only-main-content', 'keep the whole page'))
    .option('--include-tag <selector>', 'keep only elements matching this CSS selector (repeatable)', collect)
    .option('--exclude-tag <selector>', 'drop elements matching this CSS selector (repeatable)', collect)
    .option('-H, --header <header>', 'request header "Name: value" (repeatable)', collect)
    .option('--timeout <ms>', 'request timeout in milliseconds (1000 to 300000)')
    .option('--mobile', 'fetch as a mobile device')
    .option('--country <code>', 'location country, two capital letters (sets Accept-Language)')
    .option('--language <locale>', 'preferred language, in order (repeatable)', collect)
    .option('--max-age <ms>', 'use a cached copy younger than this (0: always fetch, the default of scrape; crawl: two days)')
    .option('--min-age <ms>', 'answer only from the cache, with data at least this old (1: any)')
    .option('--lockdown', 'answer only from the cache and never contact the site')
    .option('--wait-for <ms>', 'in a browser, wait this long after the page loads before reading it')
    .addOption(new Option('--block-ads', "in a browser, block the page's advertising and tracking requests (the default)"))
    .addOption(new Option('--no-block-ads', "in a browser, let the page's advertising and tracking requests through"))
    .option('--profile <name>', "start the browser page with this profile's cookies and storage, and save them back at the end")
    .option('--profile-read-only', "with --profile: read the profile's storage without saving it back")
    .option('--verify-tls', 'verify TLS certificates (by default they are not checked, as in the v2 API)');
}
