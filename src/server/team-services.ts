/**
 * serve's services of each team: one set per team, private-address rule and key, made on first
 * use and kept for the process's life (each holds its model clients and judge).
 */
import { teamServices, type TeamServices } from '../services/team-services.js';
import { LOCAL_TEAM } from '../services/team.js';
import { refusePrivateTargets } from '../engine/fetch/network-policy.js';
import type { Db } from '../engine/store/database.js';
import type { RunContext } from '../engine/store/work-queue.js';
import type { OrganizationThreatPolicy } from '../engine/threat/threat-protection.js';
import type { CheckServices } from '../config/config.js';
import type { Env } from '../lib/env.js';
import type { InteractHost } from '../services/team.js';

export interface ServicesByTeamOptions extends Pick<CheckServices, 'llm' | 'search' | 'browser' | 'proxies' | 'onlyMeaningfulChanges'> {
  db: Db;
  version: string;
  env: Env;
  now(): Date;
  threatPolicy?: OrganizationThreatPolicy | undefined;
  /** Lets what keys ask for reach private, loopback and link-local addresses. */
  allowPrivateTargets: boolean;
  /** Teams that pay no zero data retention surcharge. */
  zeroDataRetentionSurchargeWaived?: readonly string[] | undefined;
  /** Each team's interact: serve's sessions and code policy (interact.ts). */
  interact?: (team: string) => InteractHost;
}

export interface ServicesByTeam {
  /** What a key asks for: serve's private-address rule, spending counted under the key. */
  forKey(team: string, keyId: string): TeamServices;
  /** A claimed job: the rule of the process that queued it, for the key that queued it. */
  forJob(team: string, context: RunContext | undefined): TeamServices;
  /**
   * A scheduled check: no key. The command line's own team (`local`) keeps the command line's
   * rule, as `monitor run --due` would run them: its monitors are the operator's.
   */
  forSchedule(team: string): TeamServices;
  /** Whether a team's scheduled work may notify private addresses: forSchedule's rule. */
  privateTargetsAllowed(team: string): boolean;
  /** Ends the agent runs of every team (serve stopping). */
  stopAgents(): Promise<void>;
}

export function servicesByTeam(options: ServicesByTeamOptions): ServicesByTeam {
  const services = new Map<string, TeamServices>();
  const guardedByDefault = !options.allowPrivateTargets;
  const surchargeWaived = new Set(options.zeroDataRetentionSurchargeWaived ?? []);
  const servicesOf = (team: string, guarded: boolean, keyId: string | undefined) => {
    const id = `${team}\n${guarded}\n${keyId ?? ''}`;
    let found = services.get(id);
    if (!found) {
      found = teamServices({
        version: options.version,
        env: options.env,
        now: options.now,
        team,
        db: options.db,
        exactMonitorRefs: true,
        convertOffLoop: true,
        ...(keyId && { keyId }),
        ...(options.threatPolicy && { threatPolicy: options.threatPolicy }),
        ...(guarded && { checkUrl: refusePrivateTargets, publicAddressesOnly: true }),
        ...(options.llm && { llm: options.llm }),
        ...(options.search && { search: options.search }),
        ...(options.browser && { browser: options.browser }),
        ...(options.proxies && { proxies: options.proxies }),
        ...(surchargeWaived.has(team) && { zeroDataRetentionSurchargeWaived: true }),
        ...(options.interact && { interact: options.interact(team) }),
        ...(options.onlyMeaningfulChanges && { notifications: { waitSeconds: 0, onlyMeaningful: true } }),
      });
      services.set(id, found);
    }
    return found;
  };
  return {
    forKey: (team, keyId) => servicesOf(team, guardedByDefault, keyId),
    forJob: (team, context) => (context ? servicesOf(team, !context.privateTargetsAllowed, context.keyId) : servicesOf(team, guardedByDefault, undefined)),
    forSchedule: (team) => servicesOf(team, guardedByDefault && team !== LOCAL_TEAM, undefined),
    privateTargetsAllowed: (team) => !(guardedByDefault && team !== LOCAL_TEAM),
    stopAgents: async () => {
      await Promise.all([...services.values()].map((each) => each.agents.stopAll()));
    },
  };
}
