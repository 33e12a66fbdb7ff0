/**
 * What every routes module of `webwatch serve` gets from the server: the engine of a team, the
 * key's concurrency limit, background work that the server waits for when it drains, the clock
 * and the private-address rule.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { LocalBackend } from '../../backend/local/local-backend.js';

export interface RouteDeps {
  backendOf(team: string): LocalBackend;
  /** Answers 429 (and returns true) when the key runs all it may at once. */
  tooBusy(request: FastifyRequest, reply: FastifyReply): Promise<boolean>;
  /** Runs `work` as one of the key's concurrent jobs, or answers 429. */
  limited<T>(request: FastifyRequest, reply: FastifyReply, work: () => Promise<T>): Promise<T | FastifyReply>;
  /** Runs `work` as one of the key's concurrent jobs, kept until the server drains. */
  runInBackground(request: FastifyRequest, reply: FastifyReply, work: () => Promise<unknown>): void;
  now(): Date;
  /** serve's private-address rule, unless private targets are allowed. */
  checkUrl?: (url: URL) => Promise<void>;
  /**
   * `value` (a document, a page result) with its screenshots and PDFs, files of this machine,
   * as URLs of this server (`/v2/artifacts/...`), readable with a key of the request's team.
   */
  served<T>(request: FastifyRequest, value: T): T;
}
