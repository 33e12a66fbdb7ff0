/** GET /v2/artifacts/{name}: a screenshot or PDF of the browser, or a video or audio file, to the key of the team that made it. */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { ARTIFACT_NAME, ARTIFACT_TYPES, artifactsDir, isMediaArtifact, KEPT_DIR } from '../../engine/browser/artifacts.js';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { ERROR_MESSAGES } from '../../spec/errors.js';
import type { RouteDeps } from './deps.js';

export const artifactRoutes: FastifyPluginAsync<RouteDeps> = async (app, { env, now, mediaLinks }) => {
  const send = async (reply: FastifyReply, directory: string, name: string, kept: string) => {
    const notFound = () =>
      new WebwatchError(ERROR_MESSAGES.notFound, {
        status: 404,
        details: { artifact: name, reason: `no such screenshot, PDF, video or audio file for this key's team (${kept})` },
      });
    // Only names the browser writes: no path, no other team's directory.
    if (!ARTIFACT_NAME.test(name)) throw notFound();
    const path = join(directory, name);
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile()) throw notFound();
    return reply
      .header('content-type', ARTIFACT_TYPES[name.split('.').pop()!]!)
      .header('content-length', info.size)
      .header('cache-control', 'private, max-age=3600')
      .send(createReadStream(path));
  };
  app.get<{ Params: { name: string } }>('/v2/artifacts/:name', async (request, reply) =>
    send(reply, artifactsDir(env, request.team), request.params.name, 'they are kept 24 hours'),
  );
  // A video or audio file by its signed link, without a key: a link that is not this server's,
  // was changed or has expired is 403, whether the file exists or not.
  app.get<{ Params: { name: string }; Querystring: Record<string, unknown> }>('/v2/media/:name', async (request, reply) => {
    const { name } = request.params;
    if (!mediaLinks?.valid(name, request.query, now().getTime()) || !isMediaArtifact(name)) {
      throw new WebwatchError(ERROR_MESSAGES.forbidden, {
        status: 403,
        details: { reason: 'this link is not valid: it was changed, or it has expired (links last a day, as the files do)' },
      });
    }
    return send(reply, artifactsDir(env, request.query.team as string), name, 'they are kept 24 hours');
  });
  // Screenshots kept with monitor checks, for as long as their checks.
  app.get<{ Params: { name: string } }>(`/v2/artifacts/${KEPT_DIR}/:name`, async (request, reply) =>
    send(reply, join(artifactsDir(env, request.team), KEPT_DIR), request.params.name, "a check keeps them for its monitor's retention"),
  );
};
