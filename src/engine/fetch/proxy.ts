/**
 * The operator's proxies behind the `proxy` scrape option: `proxy.basic` and `proxy.enhanced` of
 * the configuration (or WEBWATCH_PROXY_BASIC and WEBWATCH_PROXY_ENHANCED). An address may carry a
 * user name and password; they are secrets, so what is shown of a proxy is its scheme, host and
 * port, and any message that passes a proxied request's errors on goes through withoutSecrets.
 */

import { STATUS_CODES } from 'node:http';

export type ProxyLevel = 'basic' | 'enhanced';

/** The proxy address of each level (http:// or https://); a level without one fetches directly. */
export interface ProxySettings {
  basic?: string;
  enhanced?: string;
}

/** The proxy of one attempt: its level (metadata.proxyUsed) and its address, none for a direct fetch. */
export interface ProxyChoice {
  level: ProxyLevel;
  url?: string;
}

/**
 * The attempts of a scrape's `proxy` option, in order. `basic` is the basic proxy (or a direct
 * fetch); `enhanced` the enhanced proxy, or, without one, what basic does (nothing better is
 * there to use, and proxyUsed says so); `auto` basic, then enhanced when basic fails and an
 * enhanced proxy is configured.
 */
export function proxyAttempts(option: 'basic' | 'enhanced' | 'auto' | undefined, proxies: ProxySettings = {}): ProxyChoice[] {
  const basic: ProxyChoice = { level: 'basic', ...(proxies.basic && { url: proxies.basic }) };
  const enhanced: ProxyChoice | undefined = proxies.enhanced ? { level: 'enhanced', url: proxies.enhanced } : undefined;
  switch (option ?? 'auto') {
    case 'basic':
      return [basic];
    case 'enhanced':
      return [enhanced ?? basic];
    default:
      return enhanced ? [basic, enhanced] : [basic];
  }
}

/**
 * The header of the browser's in-process proxy's 502 when the operator's proxy could not be
 * reached or refused the request (public-proxy.ts): the page's failure is then the proxy's, not
 * the site's. Its value is a short reason, never the proxy's address or credentials.
 */
export const PROXY_FAILURE_HEADER = 'x-webwatch-proxy-failure';

/**
 * The statuses of a gateway that could not get an answer from upstream (HTTP's 502 Bad Gateway
 * and 504 Gateway Timeout). Asked as a forward proxy, the gateway is the operator's proxy: such an
 * answer to a plain-HTTP page is its failure, not a page of the site, and fails the scrape (an
 * empty or error page would be a success otherwise), as a refused CONNECT does for HTTPS.
 */
export const PROXY_GATEWAY_FAILURES: ReadonlySet<number> = new Set([502, 504]);

/** `the proxy answered 502 Bad Gateway` (`... to CONNECT` for a tunnel). */
export const proxyAnswered = (status: number, tunnel: boolean) =>
  `the proxy answered ${status}${STATUS_CODES[status] ? ` ${STATUS_CODES[status]}` : ''}${tunnel ? ' to CONNECT' : ''}`;

/** The proxy as it may be shown: `http://proxy.example:8080`, never a user name or password. */
export function shownProxy(address: string): string {
  try {
    const url = new URL(address);
    return `${url.protocol}//${url.host}`;
  } catch {
    return 'the configured proxy';
  }
}

/** The Proxy-Authorization header of an address with a user name and password, if it has them. */
export function proxyAuthorization(url: URL): string | undefined {
  if (!url.username && !url.password) return undefined;
  return `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
}

/**
 * `text` without the credentials of `addresses`: any `scheme://user:password@` has them masked,
 * and so has each user name, password (as written and decoded) and Basic token wherever it
 * appears on its own, as a library's message could quote one.
 */
export function withoutSecrets(text: string, addresses: readonly (string | undefined)[]): string {
  let cleaned = text.replace(/(\/\/)[^\s/?#@]*@/g, '$1***@');
  for (const address of addresses) {
    if (!address) continue;
    let url: URL;
    try {
      url = new URL(address);
    } catch {
      cleaned = cleaned.split(address).join('***');
      continue;
    }
    const authorization = proxyAuthorization(url);
    const secrets = [url.password, safeDecode(url.password), url.username, safeDecode(url.username), authorization?.slice('Basic '.length)]
      // Long enough not to mask ordinary words of the message with a one- or two-letter name.
      .filter((secret): secret is string => secret !== undefined && secret.length >= 3)
      .sort((a, b) => b.length - a.length);
    for (const secret of secrets) cleaned = cleaned.split(secret).join('***');
  }
  return cleaned;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
