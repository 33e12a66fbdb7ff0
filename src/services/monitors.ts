/**
 * Monitors of one team: listed, read by id or name (on the command line also by id prefix, with
 * suggestions), created, changed, paused and deleted. A definition saved under the rule that
 * refuses private addresses is judged by it now (each host once), and the monitor keeps the rule:
 * a later run by a process that allows them (the command line, serve's scheduler of the command
 * line's monitors) still refuses them.
 */
import { refusePrivateHosts, targetUrls } from '../engine/fetch/target-hosts.js';
import { monitorStore, nameConflict, type SavedUnder, type StoredMonitor } from '../engine/monitors/monitor-store.js';
import { monitorResource } from '../engine/monitors/resource.js';
import { WebwatchError } from '../errors/webwatch-error.js';
import { ERROR_MESSAGES } from '../spec/errors.js';
import type { NormalizedMonitor } from '../spec/monitor.js';
import type { MonitorService } from './interfaces.js';
import { resolveMonitorRef } from './monitor-ref.js';
import type { Team } from './team.js';

export interface TeamMonitorService extends MonitorService {
  /** The stored monitor a reference names, deleted ones included; 404 when none. */
  existing(idOrName: string): Promise<StoredMonitor>;
  /** A monitor that may be checked now: 404 when there is none, 409 when it is deleted or paused. */
  runnable(idOrName: string): Promise<StoredMonitor>;
  /** The monitor by id as stored, deleted or not; undefined when the team has none of that id. */
  find(id: string): Promise<StoredMonitor | undefined>;
}

export function monitorService(team: Team): TeamMonitorService {
  const { options } = team;
  const store = async () => monitorStore(await team.db());
  const resource = (monitor: StoredMonitor) => monitorResource(monitor, team.now());
  const savedUnder: SavedUnder = { privateTargetsAllowed: !options.publicAddressesOnly };
  const admitted = async (definition: NormalizedMonitor) => {
    if (options.checkUrl) await refusePrivateHosts(targetUrls(definition), options.checkUrl);
    return definition;
  };
  const existing = async (idOrName: string): Promise<StoredMonitor> => {
    const monitors = await store();
    const monitor = await monitors.find(team.name, idOrName);
    if (monitor) return monitor;
    if (options.exactMonitorRefs)
      throw new WebwatchError(ERROR_MESSAGES.notFound, {
        status: 404,
        details: { monitor: idOrName, reason: "no monitor of this key's team has this id or name" },
      });
    const all = (await monitors.list(team.name, { includeDeleted: true })).map((stored) => ({ ...stored, name: stored.definition.name }));
    return resolveMonitorRef(idOrName, all);
  };
  const alive = async (id: string) => {
    const monitor = await existing(id);
    if (monitor.status === 'deleted')
      throw new WebwatchError(ERROR_MESSAGES.conflict, { status: 409, details: { monitor: id, reason: `monitor "${monitor.definition.name}" is deleted` } });
    return monitor;
  };
  return {
    existing,
    runnable: async (idOrName) => {
      const monitor = await alive(idOrName);
      if (monitor.status === 'paused') {
        throw new WebwatchError(ERROR_MESSAGES.conflict, {
          status: 409,
          details: { monitor: monitor.id, reason: `monitor "${monitor.definition.name}" is paused` },
          suggestion: `resume it with: webwatch monitor resume "${monitor.definition.name}"`,
        });
      }
      return monitor;
    },
    find: async (id) => (await store()).find(team.name, id),
    list: async (list = {}) => (await (await store()).list(team.name, list)).map(resource),
    get: async (idOrName) => resource(await existing(idOrName)),
    create: async (definition) => {
      const monitors = await store();
      // The insert refuses a name taken since this look-up (by another process) with the same 409.
      if (await monitors.find(team.name, definition.name)) throw nameConflict(definition.name);
      return resource(await monitors.insert(team.name, await admitted(definition), team.now(), savedUnder));
    },
    update: async (id, change) => {
      const monitor = await alive(id);
      const monitors = await store();
      let updated = monitor;
      if (change.definition) updated = await monitors.update(team.name, monitor.id, await admitted(change.definition), team.now(), savedUnder);
      if (change.status) updated = await monitors.setStatus(team.name, monitor.id, change.status, team.now());
      return resource(updated);
    },
    delete: async (id) => resource(await (await store()).setStatus(team.name, (await alive(id)).id, 'deleted', team.now())),
  };
}
