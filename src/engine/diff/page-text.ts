/**
 * The text a monitor check keeps of a page and compares: the page's headings (its <title> and
 * its headline, which a reader sees even where the main content starts below them) as markdown
 * comments, then the page's markdown. A diff shows a changed title as a changed line, and the
 * text stays markdown: a viewer shows the comments as nothing.
 */
import type { PageHeadings } from '../content/metadata.js';

const HEADING_LINE = /^<!-- (title|headline): (.*) -->$/;

/** A line that carries a heading: not page content, and no place in it. */
export const isHeadingLine = (line: string) => HEADING_LINE.test(line);

/** A heading as one line of a comment: no line breaks, and no `-->` that would end it early. */
const asCommentText = (text: string) =>
  text
    .replace(/\s+/g, ' ')
    .replace(/--+>?/g, (dashes) => dashes.replace(/-/g, '\u2010'))
    .trim();

/** The plain text of a markdown heading line (`## Pricing` -> `Pricing`), undefined for another line. */
const headingText = (line: string) => /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];

/**
 * The page's text as a check keeps it. The headline is left out when the markdown already
 * shows it as a heading (most pages: the main content starts with it), and when it is the title.
 */
export function pageText(markdown: string, headings: PageHeadings | undefined): string {
  const lines: string[] = [];
  const title = headings?.title && asCommentText(headings.title);
  const headline = headings?.headline && asCommentText(headings.headline);
  if (title) lines.push(`<!-- title: ${title} -->`);
  if (headline && headline !== title && !shownAsHeading(markdown, headline)) lines.push(`<!-- headline: ${headline} -->`);
  if (lines.length === 0) return markdown;
  return markdown ? `${lines.join('\n')}\n\n${markdown}` : `${lines.join('\n')}\n`;
}

/** Does a heading line of the markdown read as this headline? Only the first lines are looked at. */
function shownAsHeading(markdown: string, headline: string): boolean {
  const normalized = headline.replace(/\s+/g, ' ');
  let looked = 0;
  for (const line of markdown.split('\n', 400)) {
    const text = headingText(line.trim());
    if (text === undefined) continue;
    if (text.replace(/\s+/g, ' ').replace(/[*_`]/g, '') === normalized.replace(/[*_`]/g, '')) return true;
    if (++looked >= 20) break;
  }
  return false;
}

/**
 * A kept text split back into its headings and its markdown. `headings` is undefined for a text
 * kept before checks kept headings (or of a page without any): such a text is compared without them.
 */
export function splitPageText(text: string): { headings: PageHeadings | undefined; body: string } {
  const headings: PageHeadings = {};
  let rest = text;
  for (;;) {
    const end = rest.indexOf('\n');
    const line = end === -1 ? rest : rest.slice(0, end);
    const match = HEADING_LINE.exec(line);
    if (!match) break;
    headings[match[1] as 'title' | 'headline'] = match[2]!;
    rest = end === -1 ? '' : rest.slice(end + 1);
  }
  if (rest === text) return { headings: undefined, body: text };
  return { headings, body: rest.replace(/^\n/, '') };
}
