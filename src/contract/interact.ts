/**
 * `POST` and `DELETE /v2/scrape/{scrapeId}/interact`, as the hosted API answers them (the SDK's
 * BrowserExecuteResponse and BrowserDeleteResponse): what every side of interact sees.
 */

/** A call: a plain-language prompt, or code run against the page (`timeout` in seconds). */
export interface InteractRequest {
  prompt?: string;
  code?: string;
  language?: 'node' | 'python' | 'bash';
  timeout?: number;
}

export interface InteractAnswer {
  success: true;
  /** A prompt's answer. */
  output?: string;
  /** Code: the program's value, its streams and how it ended. */
  result?: string;
  stdout?: string;
  stderr?: string;
  exitCode?: number;
  killed?: boolean;
  truncated?: boolean;
  /** A signed link to watch the page; the interactive one takes clicks and keys too. */
  liveViewUrl?: string;
  interactiveLiveViewUrl?: string;
}

export interface InteractStopped {
  success: true;
  status: 'stopped';
  sessionDurationMs: number;
  creditsBilled: number;
}

/** Where a scrape was, for a session on an engine that does not keep its scrapes (the command line's). */
export interface InteractOrigin {
  url: string;
  profile?: { name: string; saveChanges?: boolean };
  mobile?: boolean;
}
