/**
 * Threat protection on the local engine (spec §2.7): the organisation policy from config,
 * per-request overrides, and the verdict for each host a scrape reaches. The local engine has
 * no outside URL-risk classifier, so `mode: normal` falls to `failurePolicy`.
 */
import { WebwatchError } from '../../errors/webwatch-error.js';

export interface ThreatRules {
  mode?: 'off' | 'normal' | undefined;
  blacklist?: string[] | undefined;
  whitelist?: string[] | undefined;
  blockedTlds?: string[] | undefined;
  failurePolicy?: 'open' | 'closed' | undefined;
  riskScoreThreshold?: number | undefined;
}

/** The team's policy: whether the feature is on, whether requests may override it, whether it is enforced. */
export interface OrganizationThreatPolicy extends ThreatRules {
  enabled: boolean;
  allowOverrides: boolean;
  enforced: boolean;
}

export const NO_THREAT_POLICY: OrganizationThreatPolicy = { enabled: false, allowOverrides: true, enforced: false };

const forbidden = (message: string, code: string) => new WebwatchError(message, { status: 403, code });

/**
 * The rules in force for one request: the organisation's, with the fields the request gives
 * replacing them. Throws the 403s of spec §2.7. Undefined when nothing applies.
 */
export function effectiveThreatRules(organization: OrganizationThreatPolicy, request: ThreatRules | undefined): ThreatRules | undefined {
  if (request !== undefined) {
    if (!organization.enabled) {
      throw forbidden('Threat protection is not enabled for this team', 'THREAT_PROTECTION_NOT_ENABLED');
    }
    if (!organization.allowOverrides) {
      throw forbidden('Threat protection overrides are disabled for this team', 'THREAT_PROTECTION_OVERRIDES_DISABLED');
    }
  }
  if (!organization.enabled) return undefined;
  const { enabled: _enabled, allowOverrides: _allow, enforced, ...defaults } = organization;
  const given = Object.fromEntries(Object.entries(request ?? {}).filter(([, value]) => value !== undefined));
  const rules: ThreatRules = { ...defaults, ...given };
  if (enforced && rules.mode === 'off') {
    throw forbidden('Threat protection is enforced for this team: mode cannot be off', 'THREAT_PROTECTION_ENFORCED');
  }
  return rules;
}

/** `example.com` matches that host only; `*.example.com` matches its subdomains. */
export function domainMatches(host: string, pattern: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  const p = pattern.toLowerCase();
  if (p.startsWith('*.')) return h.endsWith(p.slice(1));
  return h === p;
}

export type ThreatVerdict = { allowed: true; warning?: string; analyzed: boolean } | { allowed: false; reason: string };

export function judgeHost(host: string, rules: ThreatRules): ThreatVerdict {
  const whitelisted = rules.whitelist?.find((pattern) => domainMatches(host, pattern));
  if (whitelisted) return { allowed: true, analyzed: false };
  const blacklisted = rules.blacklist?.find((pattern) => domainMatches(host, pattern));
  if (blacklisted) return { allowed: false, reason: `${host} matches the blacklist entry ${blacklisted}` };
  const tld = rules.blockedTlds?.find((suffix) => host.toLowerCase().endsWith(`.${suffix}`));
  if (tld) return { allowed: false, reason: `${host} is under the blocked top-level domain ${tld}` };
  if (rules.mode === 'normal') {
    // No URL-risk classifier is reachable from the local engine.
    if (rules.failurePolicy === 'closed') {
      return { allowed: false, reason: `${host} could not be checked: no URL-risk classifier is available to the local engine and failurePolicy is closed` };
    }
    return {
      allowed: true,
      analyzed: false,
      warning: `threat protection could not check ${host}: no URL-risk classifier is available to the local engine (failurePolicy open)`,
    };
  }
  return { allowed: true, analyzed: false };
}

/** The checkUrl hook of a scrape: blocks with 403, collects warnings. */
export function threatGuard(rules: ThreatRules, warnings: string[]): (url: URL) => void {
  return (url) => {
    const verdict = judgeHost(url.hostname, rules);
    if (!verdict.allowed) {
      throw new WebwatchError(`URL blocked by threat protection: ${verdict.reason}`, { status: 403, code: 'THREAT_PROTECTION_BLOCKED' });
    }
    if (verdict.warning && !warnings.includes(verdict.warning)) warnings.push(verdict.warning);
  };
}
