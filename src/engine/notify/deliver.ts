/**
 * Delivering the outbox. E-mail goes over SMTP with nodemailer, retried on 4xx replies and
 * network failures. Each webhook is a POST of its stored body with the monitor's (or job's) headers,
 * signed with `X-Webwatch-Signature: sha256=<hex HMAC-SHA256 of the body>` when a secret is
 * configured, within 10 s. 2xx is delivered. 408, 429, 5xx and network failures are retried with
 * backoff (Retry-After honoured), up to MAX_ATTEMPTS; other answers fail the delivery for good.
 */
import { inParallel } from '../../lib/in-parallel.js';
import { createHmac } from 'node:crypto';
import type { Agent } from 'undici';
import { retryAfterSeconds, RETRYABLE_STATUSES } from '../../spec/errors.js';
import { DELIVERY_MAX_ATTEMPTS } from '../../spec/limits.js';
import { publicOnlyLookup, refusePrivateTargets } from '../fetch/network-policy.js';
import type { EmailMessage, OutboxEntry, OutboxStore } from './outbox.js';

export const WEBHOOK_TIMEOUT_MS = 10_000;
export const MAX_ATTEMPTS = DELIVERY_MAX_ATTEMPTS;
const CLAIMED_ELSEWHERE_POLL_MS = 250;
const BACKOFF_CAP_SECONDS = 3600;
const DELIVERY_CONCURRENCY = 4;

export interface DeliveryOptions {
  outbox: OutboxStore;
  now(): Date;
  /** The HMAC key of signatures (webhookSecret in config, WEBWATCH_WEBHOOK_SECRET). */
  secret?: string;
  random?: () => number;
  version: string;
  timeoutMs?: number;
  /** The SMTP server (smtp://, smtps://) and sender of e-mail summaries. */
  smtp?: { url: string; from: string };
}

export const signature = (secret: string, body: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** When to try again after `attempts` failed attempts, or undefined to give up. */
export function retryAt(attempts: number, retryAfter: number | undefined, now: Date, random: () => number): Date | undefined {
  if (attempts >= MAX_ATTEMPTS) return undefined;
  const seconds = retryAfter ?? Math.min(2 ** attempts, BACKOFF_CAP_SECONDS) + random();
  return new Date(now.getTime() + seconds * 1000);
}

const dispatchers = new Map<boolean, Agent>();

const transports = new Map<string, import('nodemailer').Transporter>();

/** SMTP replies 4xx and connection trouble may pass; 5xx replies, bad credentials and bad addresses will not. */
function emailRetryable(error: { responseCode?: number; code?: string }): boolean {
  if (error.responseCode !== undefined) return error.responseCode >= 400 && error.responseCode < 500;
  return !['EAUTH', 'EENVELOPE', 'EMESSAGE'].includes(error.code ?? '');
}

async function deliverEmail(entry: OutboxEntry, options: DeliveryOptions): Promise<Date | undefined> {
  const random = options.random ?? Math.random;
  const attempts = entry.attempts + 1;
  if (!options.smtp) {
    await options.outbox.attemptFailed(
      entry.id,
      'no SMTP server is configured: set smtp.url and smtp.from in the config, or WEBWATCH_SMTP_URL and WEBWATCH_SMTP_FROM',
      undefined,
    );
    return undefined;
  }
  const message = JSON.parse(entry.body) as EmailMessage;
  try {
    let transport = transports.get(options.smtp.url);
    if (!transport) {
      const nodemailer = await import('nodemailer');
      const timeout = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
      const server = new URL(options.smtp.url);
      transport = nodemailer.createTransport({
        host: server.hostname,
        ...(server.port && { port: Number(server.port) }),
        secure: server.protocol === 'smtps:',
        ...(server.username && { auth: { user: decodeURIComponent(server.username), pass: decodeURIComponent(server.password) } }),
        connectionTimeout: timeout,
        greetingTimeout: timeout,
        socketTimeout: timeout * 3,
      });
      transports.set(options.smtp.url, transport);
    }
    await transport.sendMail({
      from: options.smtp.from,
      to: message.to,
      subject: message.subject,
      text: message.text,
      html: message.html,
      headers: { 'X-Webwatch-Delivery': entry.id },
    });
    await options.outbox.delivered(entry.id, options.now());
    return undefined;
  } catch (error) {
    const failure = error as Error & { responseCode?: number; code?: string };
    const again = emailRetryable(failure) ? retryAt(attempts, undefined, options.now(), random) : undefined;
    await options.outbox.attemptFailed(entry.id, failure.message, again);
    return again;
  }
}

/** One attempt at a delivery; when it will be attempted again, if it will. */
async function deliverOne(entry: OutboxEntry, options: DeliveryOptions): Promise<Date | undefined> {
  if (entry.channel === 'email') return deliverEmail(entry, options);
  const random = options.random ?? Math.random;
  const attempts = entry.attempts + 1;
  const fail = async (error: string, retryable: boolean, retryAfter?: number) => {
    const again = retryable ? retryAt(attempts, retryAfter, options.now(), random) : undefined;
    await options.outbox.attemptFailed(entry.id, error, again);
    return again;
  };
  try {
    const url = new URL(entry.target);
    // The rule of the process that queued the delivery: private targets refused unless it allowed them.
    const publicOnly = !entry.privateTargetsAllowed;
    if (publicOnly) await refusePrivateTargets(url);
    const headers: Record<string, string> = {
      ...entry.headers,
      'content-type': 'application/json',
      'user-agent': `webwatch/${options.version}`,
      ...(options.secret && { 'x-webwatch-signature': signature(options.secret, entry.body) }),
    };
    // undici loads only when a webhook is due: a check that queued none does not pay for it.
    const { Agent, request } = await import('undici');
    let dispatcher = dispatchers.get(publicOnly);
    if (!dispatcher) {
      dispatcher = new Agent({ connectTimeout: options.timeoutMs ?? WEBHOOK_TIMEOUT_MS, ...(publicOnly && { connect: { lookup: publicOnlyLookup } }) });
      dispatchers.set(publicOnly, dispatcher);
    }
    const response = await request(url, {
      method: 'POST',
      headers,
      body: entry.body,
      dispatcher,
      signal: AbortSignal.timeout(options.timeoutMs ?? WEBHOOK_TIMEOUT_MS),
    });
    await response.body.dump();
    if (response.statusCode >= 200 && response.statusCode < 300) {
      await options.outbox.delivered(entry.id, options.now());
      return undefined;
    }
    const retryable = RETRYABLE_STATUSES.has(response.statusCode);
    return await fail(`HTTP ${response.statusCode}`, retryable, retryAfterSeconds(response.headers['retry-after'], options.now().getTime()));
  } catch (error) {
    const status = (error as { status?: number }).status;
    // A refused target (403 from the URL rule) will not change by waiting.
    return await fail(error instanceof Error ? error.message : String(error), status === undefined);
  }
}

/**
 * A job's claimed deliveries, one after another in the order written; one that is to be retried
 * holds back the rest until then (a delivery that failed for good does not: it is no longer due).
 */
async function deliverInOrder(entries: readonly OutboxEntry[], options: DeliveryOptions): Promise<void> {
  for (const entry of entries) {
    const again = await deliverOne(entry, options);
    if (again && entry.jobId) return options.outbox.holdBackJob(entry.jobId, again);
  }
}

/**
 * Delivers every delivery that is due now and that no other worker holds, once each; returns
 * how many were attempted.
 */
export async function deliverDue(options: DeliveryOptions): Promise<number> {
  const due = await options.outbox.claimDue(options.now());
  // A monitor's deliveries go out side by side; a job's in order, one at a time.
  const runs: OutboxEntry[][] = [];
  const ofJob = new Map<string, OutboxEntry[]>();
  for (const delivery of due) {
    if (!delivery.jobId) runs.push([delivery]);
    else if (ofJob.has(delivery.jobId)) ofJob.get(delivery.jobId)!.push(delivery);
    else {
      const run = [delivery];
      ofJob.set(delivery.jobId, run);
      runs.push(run);
    }
  }
  await inParallel(runs, DELIVERY_CONCURRENCY, (run) => deliverInOrder(run, options));
  return due.length;
}

/**
 * Delivers until nothing is pending or the next attempt would come after `waitMs` of real time
 * have passed; what is still pending then stays in the outbox for the next webwatch process
 * that runs checks. The budget is measured on the monotonic clock, so a stopped or injected
 * `now` cannot make it loop for ever.
 */
export async function deliverUntil(options: DeliveryOptions & { waitMs: number; sleep?: (ms: number) => Promise<void> }): Promise<void> {
  const sleep = options.sleep ?? ((ms: number) => new Promise((resolve) => setTimeout(resolve, ms)));
  const stopAt = performance.now() + options.waitMs;
  for (;;) {
    const attempted = await deliverDue(options);
    const next = await options.outbox.nextAttemptAt();
    if (!next) return;
    // Due but attempted by none: another worker holds them; look again shortly.
    const wait = Math.max(attempted === 0 ? CLAIMED_ELSEWHERE_POLL_MS : 0, Date.parse(next) - options.now().getTime());
    // A retry due now (Retry-After: 0) is made at once; one that waits, only within waitMs.
    if (wait > 0 && performance.now() + wait > stopAt) return;
    await sleep(wait);
  }
}
