/**
 * The remote API's address as webwatch uses and prints it. A user name and password in it
 * (https://user:secret@host/v2) are dropped: webwatch authenticates with the API key as a
 * bearer token, HTTP has room for one Authorization header, and a password in an address ends
 * up in logs, error messages and shell history. Dropping it here means no message can show it.
 */
import { UsageError } from '../errors/webwatch-error.js';

export interface ApiUrl {
  url: string;
  /** Whether the address given had a user name or password, which webwatch leaves out. */
  hadCredentials: boolean;
}

export const CREDENTIALS_IGNORED =
  "the API URL's user name and password are not used: webwatch sends only the API key (--api-key, WEBWATCH_API_KEY or webwatch login)";

export function apiUrlOf(given: string): ApiUrl {
  let parsed: URL;
  try {
    parsed = new URL(given);
  } catch {
    // Not echoed: the text may hold a password.
    throw new UsageError('the API URL is not a valid URL', { suggestion: 'give an http(s) address, like https://watch.example.com/v2' });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new UsageError(`the API URL must start with http:// or https://, not ${parsed.protocol}//`);
  }
  const hadCredentials = parsed.username !== '' || parsed.password !== '';
  parsed.username = '';
  parsed.password = '';
  return { url: parsed.href.replace(/\/+$/, ''), hadCredentials };
}
