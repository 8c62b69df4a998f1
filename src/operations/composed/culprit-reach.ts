// Where triage's culprit went: for each of the project's environments (review apps aside), whether the commit it runs
// now holds the culprit — the culprit itself, or a descendant of it (the repository's merge base of the two is the
// culprit) — and, where it does, the deployment to roll back to: the newest successful one made before the culprit's
// first pipeline, which cannot hold it. Bounded: one environment list, then per environment (at most
// TRIAGE_ENVIRONMENTS) one read of it, at most one merge base and, where the culprit is live, one page of deployments.
import type { FollowUp } from '../engine/define.js';
import { asList, asRecord, momentText, shortSha, show, type Fields } from '../engine/present.js';
import type { TolerantRead } from './tolerant-read.js';

/** Environments read, review apps (tier development) left out: beyond them, "more" is said in `unread`. */
export const TRIAGE_ENVIRONMENTS = 5;
/** Successful deployments of an environment read to find the one before the culprit. */
const DEPLOYMENTS_READ = 20;

export interface DeployedEnvironment {
  environment: string;
  environment_id: number;
  tier?: string;
  /** reached: it runs the culprit or a commit after it; before: it runs a commit without it; unknown: not read. */
  holds: 'reached' | 'before' | 'unknown';
  /** Its last successful deployment: what it runs now. */
  deployment_id: number;
  sha: string;
  ref: string;
  /** The deployed ref is a tag (a release). */
  tag?: boolean;
  /** When that deployment finished (or was made), ISO 8601. */
  at?: string;
  /** While reached: the newest successful deployment made before the culprit's first pipeline, to roll back to. */
  rollback_to?: { deployment_id: number; sha: string; ref: string };
}

export interface CulpritReach {
  /** The commit followed: the first red pipeline's. */
  culprit: string;
  environments: DeployedEnvironment[];
  /** When no environment holds it: the stage the branch's failing pipeline stopped at. */
  stopped_at?: string;
  /** All of it in one line, as of the report (what the MCP App view shows). */
  said?: string;
}

/** Whether `deployed` holds `culprit`: the same commit, or the culprit is their merge base (an ancestor). */
async function holdsCulprit(
  read: TolerantRead,
  id: string | number,
  culprit: string,
  deployed: string,
): Promise<DeployedEnvironment['holds']> {
  if (deployed === culprit) return 'reached';
  const base = await read('get_merge_base', { id, refs: [culprit, deployed] });
  if (!base) return 'unknown';
  return asRecord(base.data).id === culprit ? 'reached' : 'before';
}

/** The environments and whether each runs the culprit; `since` is when the culprit's first pipeline was created. */
export async function readCulpritReach(
  read: TolerantRead,
  id: string | number,
  culprit: string,
  since: string | undefined,
  unread: string[],
): Promise<CulpritReach | undefined> {
  const listed = await read('list_environments', { id, states: 'available', per_page: 20 });
  if (!listed) return undefined;
  const all = asList(listed.data).filter((e) => e.tier !== 'development');
  const chosen = all.slice(0, TRIAGE_ENVIRONMENTS);
  if (all.length > chosen.length || listed.page?.has_more)
    unread.push(`only ${chosen.length} environments were checked for the culprit; more were not`);
  const environments = await Promise.all(
    chosen.map(async (listedEnvironment): Promise<DeployedEnvironment | undefined> => {
      const environment = asRecord(
        (await read('get_environment', { id, environment_id: Number(listedEnvironment.id) }))?.data,
      );
      const last = asRecord(environment.last_deployment);
      if (last.id === undefined || typeof last.sha !== 'string') return undefined;
      const job = asRecord(last.deployable);
      const at = [last.finished_at, last.created_at].find((t) => typeof t === 'string') as string | undefined;
      const holds = await holdsCulprit(read, id, culprit, last.sha);
      const entry: DeployedEnvironment = {
        environment: show(environment.name),
        environment_id: Number(environment.id),
        ...(typeof environment.tier === 'string' ? { tier: environment.tier } : {}),
        holds,
        deployment_id: Number(last.id),
        sha: last.sha,
        ref: show(last.ref),
        ...(job.tag === true || last.tag === true ? { tag: true } : {}),
        ...(at ? { at } : {}),
      };
      if (holds === 'reached' && since) {
        const earlier = asList(
          (
            await read('list_deployments', {
              id,
              environment: entry.environment,
              status: 'success',
              order_by: 'id',
              sort: 'desc',
              per_page: DEPLOYMENTS_READ,
            })
          )?.data,
        ).find((d: Fields) => Date.parse(String(d.created_at)) < Date.parse(since) && d.sha !== culprit);
        if (earlier)
          entry.rollback_to = { deployment_id: Number(earlier.id), sha: show(earlier.sha), ref: show(earlier.ref) };
      }
      return entry;
    }),
  );
  return { culprit, environments: environments.filter((e) => e !== undefined) };
}

/** "staging at 13:20 UTC (deployment #12)" or "production runs v1.1.0, before it": one environment, in words. */
function environmentWords(e: DeployedEnvironment, now: number): string {
  const runs = e.tag ? e.ref : shortSha(e.sha);
  if (e.holds === 'reached')
    return `${e.environment}${e.at ? ` at ${momentText(e.at, now)}` : ''} (deployment #${e.deployment_id}${e.tag ? `, ${e.ref}` : ''})`;
  if (e.holds === 'before') return `${e.environment} runs ${runs}, before it`;
  return `${e.environment} runs ${runs} (whether it holds it was not read)`;
}

/**
 * Where the culprit went, in one line: "4d7b7da8 reached staging at 13:20 UTC (deployment #12); production runs
 * v1.1.0, before it", or "4d7b7da8 reached no environment (its pipelines stopped at test)".
 */
export function reachText(reach: CulpritReach, now: number): string {
  const reached = reach.environments.filter((e) => e.holds === 'reached');
  const others = reach.environments.filter((e) => e.holds !== 'reached').map((e) => environmentWords(e, now));
  const sha = shortSha(reach.culprit);
  if (reached.length === 0) {
    const stopped = reach.stopped_at ? ` (its pipelines stopped at ${reach.stopped_at})` : '';
    return [`${sha} reached no environment${stopped}`, ...others].join('; ');
  }
  const live = `${sha} reached ${reached.map((e) => environmentWords(e, now)).join(' and ')}`;
  const production = reached.some((e) => e.tier === 'production' || e.environment === 'production')
    ? ' — it is live in PRODUCTION'
    : '';
  return [`${live}${production}`, ...others].join('; ');
}

/** Roll back, for each environment the culprit is live in with a deployment before it to go back to. */
export function rollbackActions(id: string | number, reach: CulpritReach | undefined): FollowUp[] {
  return (reach?.environments ?? [])
    .filter((e) => e.holds === 'reached' && e.rollback_to)
    .map((e) => ({
      label: `Roll back ${e.environment}`,
      operation: 'rollback_environment',
      // Pinned as the confirmation pins it: the environment by id, the deployment to go back to, and the current
      // one as the premise (the call runs only while the environment still runs it).
      input: {
        id,
        environment: e.environment_id,
        to: e.rollback_to!.deployment_id,
        current_deployment_id: e.deployment_id,
      },
      style: 'danger' as const,
    }));
}

/**
 * What a Roll back button stands on (its check_button_premise fields): the deployment the environment ran when the
 * offer was drawn, and the environment's name. A rollback made since (or any deployment after it) ends the offer.
 */
export function rollbackStandsOn(
  input: Record<string, unknown>,
  reach: CulpritReach | undefined,
): { deployment_id?: number; environment?: string } {
  const current = input.current_deployment_id;
  if (typeof current !== 'number') return {};
  const environment = reach?.environments.find((e) => e.environment_id === input.environment)?.environment;
  return { deployment_id: current, ...(environment ? { environment } : {}) };
}
