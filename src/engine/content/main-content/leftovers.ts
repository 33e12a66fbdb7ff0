/**
 * What step 6 (the ends) asks of the blocks after the article's last paragraph of prose: links
 * written loose after it that lead back up the page or the site, links that lead only to social
 * networks and app stores, a heading over loose text, and a paragraph set in a component like
 * the prose's.
 */
import type { AnyNode, Element, Text } from 'domhandler';
import { isTag } from 'domutils';
import { removeAll } from '../dom-edit.js';
import { MIN_TEXT } from './measure.js';
import { BLOCK, MEDIA, SPACE_RUNS, VISIBLE, everyLink, findLink, parentElement, sameKind, textOf } from './tree.js';

/** Hosts of social networks and app stores, and their subdomains (www., m., ...). */
const SOCIAL_HOSTS = new Set([
  'twitter.com',
  'x.com',
  'facebook.com',
  'fb.me',
  'instagram.com',
  't.me',
  'telegram.me',
  'youtube.com',
  'youtu.be',
  'whatsapp.com',
  'wa.me',
  'linkedin.com',
  'tiktok.com',
  'pinterest.com',
  'plus.google.com',
  'apps.apple.com',
  'itunes.apple.com',
  'play.google.com',
]);

/** Links that share the page through a messenger app, or by an e-mail with no addressee. */
const SHARE_SCHEME = /^(?:whatsapp|fb-messenger|tg|viber):|^mailto:\s*\?/i;

function isSocialLink(href: string): boolean {
  if (SHARE_SCHEME.test(href.trim())) return true;
  const host = /^(?:https?:)?\/\/([^/?#:]+)/i.exec(href.trim())?.[1]?.toLowerCase();
  // A host name has at most 253 characters: longer is not one (and would cost a join per label).
  if (!host || host.length > 253) return false;
  const labels = host.split('.');
  for (let start = 0; start < labels.length - 1; start++) if (SOCIAL_HOSTS.has(labels.slice(start).join('.'))) return true;
  return false;
}

/** A block whose links all lead to social networks or app stores: "Follow us on ...", "Get our app". */
export const pointsToSocial = (element: Element) => everyLink(element, isSocialLink);

/**
 * Whether text written loose, not in a block, follows `element` in its parent: prose set with
 * <br>s, at least a paragraph's worth of it besides links.
 */
export function headsLooseText(element: Element): boolean {
  let said = '';
  for (let next = element.next; next && said.length < MIN_TEXT; next = next.next) {
    if (next.type === 'text') said += (next as Text).data;
    else if (isTag(next)) {
      if (BLOCK.has(next.name)) break;
      if (next.name !== 'a') said += textOf(next);
    }
    said = said.replace(SPACE_RUNS, ' ').trimStart();
  }
  return said.length >= MIN_TEXT;
}

/**
 * Whether a paragraph sits in a named wrapper of the same kind as `box`, under a parent of the
 * same kind too: an article that wraps each paragraph in a component of its own.
 */
export function sameBox(paragraph: Element, box: AnyNode | null): boolean {
  const parent = parentElement(paragraph);
  const above = parent && parentElement(parent);
  const boxAbove = box && isTag(box) ? parentElement(box) : undefined;
  return !!above && !!boxAbove && !!parent.attribs.class && sameKind(parent, box as Element) && sameKind(above, boxAbove);
}

/**
 * After `from` inside `holder`: a run of inline nodes at the end whose every visible word is a
 * link's back up (see `linksBackUp`) goes.
 */
export function removeTrailingLinks(holder: Element, from: Element) {
  const nodes = holder.children;
  const run: AnyNode[] = [];
  const start = nodes.indexOf(from);
  for (let index = nodes.length - 1; index > start; index--) {
    const node = nodes[index]!;
    if (isTag(node) && (BLOCK.has(node.name) || MEDIA.has(node.name))) break;
    run.push(node);
  }
  const text = (node: AnyNode): string => (node.type === 'text' ? (node as Text).data : isTag(node) ? textOf(node) : '');
  const visible = run.filter((node) => VISIBLE.test(text(node)));
  const link = (node: AnyNode) => (isTag(node) ? (node.name === 'a' ? node : findLink(node)) : undefined);
  if (
    visible.length > 0 &&
    visible.every((node) => {
      const a = link(node);
      return !!a && linksBackUp(a) && textOf(a).trim() === text(node).trim();
    })
  )
    removeAll(visible);
}

/**
 * A link back up: to the top of the page (`#`, `#top`) or to a section's front page on the same
 * site (`/press`), not to a page of its own or elsewhere ("Learn more" after a feature).
 */
function linksBackUp(link: Element): boolean {
  const href = (link.attribs.href ?? '').trim();
  return href === '' || /^#[\w-]*$/.test(href) || /^\/(?!\/)[^/?#]*\/?$/.test(href);
}
