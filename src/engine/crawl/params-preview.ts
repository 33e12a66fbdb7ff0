/**
 * The crawl params preview: the configured model turns a prompt ("only the blog, skip the tag
 * pages, 50 pages at most") into crawl options, which are then held to the crawl request's own
 * schema (spec/crawl-preview.ts): what would not pass POST /v2/crawl is dropped and said in a
 * warning. The prompt is the caller's and goes in the instructions; no page is fetched.
 */
import { WebwatchError } from '../../errors/webwatch-error.js';
import { checkProposedCrawlOptions } from '../../spec/crawl-preview.js';
import type { ChatMessage, ChatModel } from '../llm/chat.js';

/** Tries of an answer that is not a JSON object: the first, then once more with what was wrong. */
export const PREVIEW_ATTEMPTS = 2;

const INSTRUCTIONS = `You turn a user's description of what to crawl on a website into the options of a crawler. Answer with one JSON object and nothing else (no prose, no code fence), with only the options the description calls for, from these:
- includePaths: array of regular expressions; only URL paths matching one are crawled (e.g. "^/blog/.*")
- excludePaths: array of regular expressions; URL paths matching one are skipped (e.g. "^/admin/.*")
- limit: the most pages to crawl (a whole number, 1 or more)
- maxDepth: how many links deep from the start page (0 or more)
- maxDiscoveryDepth: how many links deep new URLs are discovered (0 or more)
- crawlEntireDomain: true to follow links to any path of the site, not only below the start URL
- allowSubdomains: true to follow links to subdomains
- allowExternalLinks: true to follow links to other sites
- sitemap: "include" (use the sitemap and links), "skip" (links only) or "only" (sitemap only)
- ignoreQueryParameters: true to treat URLs that differ only in their query as one
- deduplicateSimilarURLs: true to skip URLs that look like duplicates
- delay: seconds to wait between pages
Paths are matched against the URL's path, starting with "/".`;

/** The options the model derived from `prompt` for a crawl of `url`, and what was dropped. */
export async function previewCrawlParams(
  model: ChatModel,
  url: string,
  prompt: string,
  signal?: AbortSignal,
): Promise<{ data: Record<string, unknown> & { url: string }; warning?: string }> {
  const messages: ChatMessage[] = [
    { role: 'system', content: INSTRUCTIONS },
    { role: 'user', content: `The crawl starts at ${JSON.stringify(url)}. The user's description: ${JSON.stringify(prompt)}` },
  ];
  let problem = '';
  for (let attempt = 1; attempt <= PREVIEW_ATTEMPTS; attempt++) {
    const reply = await model.chat({ json: true, temperature: 0, messages, ...(signal && { signal }) });
    const text = (reply.content ?? '').trim().replace(/^```(?:json)?\s*|\s*```$/g, '');
    let proposed: unknown;
    try {
      proposed = JSON.parse(text);
    } catch (error) {
      problem = `the answer is not JSON (${(error as Error).message})`;
    }
    if (proposed !== undefined && (typeof proposed !== 'object' || proposed === null || Array.isArray(proposed))) problem = 'the answer is not a JSON object';
    else if (proposed !== undefined) {
      const { options, warnings } = checkProposedCrawlOptions(proposed);
      return { data: { url, ...options }, ...(warnings.length > 0 && { warning: warnings.join('; ') }) };
    }
    messages.push({ role: 'assistant', content: reply.content ?? '' });
    messages.push({ role: 'user', content: `That answer is not valid: ${problem}. Answer again with one JSON object of crawl options, and nothing else.` });
  }
  throw new WebwatchError(`the model did not answer with crawl options as a JSON object in ${PREVIEW_ATTEMPTS} attempts: ${problem}`, {
    status: 502,
    code: 'LLM_BAD_RESPONSE',
  });
}
