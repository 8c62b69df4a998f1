// Branch protection judged by its effect: the service applies the most permissive of all the rules matching a branch,
// wildcards included, so what a new rule opens (or lifting one leaves) depends on the project's other rules. These
// are the facts protect_branch and unprotect_branch read, and the words their approval requests say.
import { buildPath } from '../../../http/route.js';
import { quoteExactly } from '../../../text/visible.js';
import type { EffectFacts, RunContext } from '../../engine/define.js';
import { serviceList } from '../../engine/effect-facts.js';
import { asList, asRecord } from '../../engine/present.js';

/** One protection rule, reduced to who may do what on the branches it matches. */
export interface ProtectionRule {
  name: string;
  /** The most permissive level among the rule's push levels (users and groups named one by one aside). */
  push: number;
  merge: number;
  forcePush: boolean;
}

/** What the service sets when a protect call leaves a level out: maintainers push and merge, no force push. */
const DEFAULT_LEVEL = 40;

/** Who a level lets in, most permissive first: developers (30) > maintainers (40) > admins (60) > no one (0). */
function openness(level: number): number {
  return level === 0 ? Number.NEGATIVE_INFINITY : -level;
}

const WHO: Record<number, string> = { 0: 'no one', 30: 'developers', 40: 'maintainers', 60: 'admins' };
const who = (level: number) => WHO[level] ?? `access level ${level}`;

function mostPermissive(levels: unknown): number | undefined {
  const numbers = asList(levels)
    .map((entry) => entry.access_level)
    .filter((l): l is number => typeof l === 'number');
  return numbers.length === 0 ? undefined : numbers.reduce((a, b) => (openness(b) > openness(a) ? b : a));
}

function ruleOf(data: unknown): ProtectionRule | undefined {
  const rule = asRecord(data);
  if (typeof rule.name !== 'string') return undefined;
  return {
    name: rule.name,
    push: mostPermissive(rule.push_access_levels) ?? 0,
    merge: mostPermissive(rule.merge_access_levels) ?? 0,
    forcePush: rule.allow_force_push === true,
  };
}

/** Whether a rule's name (exact, or with `*` matching any characters, `/` included) covers a branch name. */
function ruleMatches(pattern: string, branch: string): boolean {
  if (!pattern.includes('*')) return pattern === branch;
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`, 's').test(branch);
}

/**
 * Whether two rules can cover a branch together: either matches the other's name. (Two wildcards may share a
 * branch neither spells out; a new wildcard is asked about anyway.)
 */
function overlap(a: string, b: string): boolean {
  return a !== b && (ruleMatches(a, b) || ruleMatches(b, a));
}

async function readRules(ctx: RunContext, project: unknown): Promise<ProtectionRule[]> {
  const list = await serviceList(ctx, buildPath('/projects/:id/protected_branches', { id: project }));
  return list.map(ruleOf).filter((r): r is ProtectionRule => r !== undefined);
}

interface ProtectInput {
  id: unknown;
  name: string;
  push_access_level?: number;
  merge_access_level?: number;
  allow_force_push?: boolean;
}

/** The facts of a call that adds or lifts a rule: the project's rules as they are now. */
export function protectionFacts<I extends { id: unknown }>(): EffectFacts<I, ProtectionRule[]> {
  return {
    what: "the project's protected branches (the service applies the most permissive rule matching a branch)",
    read: (ctx, input) => readRules(ctx, input.id),
  };
}

/** What `rule` lets in that `than` does not: "push by developers (now maintainers), force push (now refused)". */
function opened(rule: ProtectionRule, than: ProtectionRule): string[] {
  return [
    ...(openness(rule.push) > openness(than.push) ? [`push by ${who(rule.push)} (now ${who(than.push)})`] : []),
    ...(openness(rule.merge) > openness(than.merge) ? [`merge by ${who(rule.merge)} (now ${who(than.merge)})`] : []),
    ...(rule.forcePush && !than.forcePush ? ['force push (now refused)'] : []),
  ];
}

function allows(rule: ProtectionRule): string {
  return `${who(rule.push)} push, ${who(rule.merge)} merge, force push ${rule.forcePush ? 'allowed' : 'refused'}`;
}

/**
 * Why a new protection needs a human: a wildcard, or a name another rule also covers. The service lets through what
 * the most permissive matching rule allows, so a rule can open a branch another rule guards (`mai*` letting
 * developers force-push to `main`). Undefined for an exact name no other rule touches: that only adds a protection.
 */
export function protectReason(input: ProtectInput, rules: ProtectionRule[] | undefined): string | undefined {
  if (!rules) return undefined;
  const wildcard = input.name.includes('*');
  const others = rules.filter((rule) => overlap(input.name, rule.name));
  if (!wildcard && others.length === 0) return undefined;
  const mine: ProtectionRule = {
    name: input.name,
    push: input.push_access_level ?? DEFAULT_LEVEL,
    merge: input.merge_access_level ?? DEFAULT_LEVEL,
    forcePush: input.allow_force_push ?? false,
  };
  const sentences = ['The service applies the most permissive of all rules matching a branch, wildcards included.'];
  for (const rule of others) {
    const opens = opened(mine, rule);
    // Where both rules apply: the other rule's branches when this one covers them, else this rule's own branch.
    const where = ruleMatches(input.name, rule.name)
      ? quoteExactly(rule.name)
      : `${quoteExactly(input.name)} (now under ${quoteExactly(rule.name)})`;
    sentences.push(
      opens.length > 0
        ? `On ${where} it allows ${opens.join(', ')}.`
        : `It also covers ${where}, where ${allows(rule)}, and opens nothing there now.`,
    );
  }
  if (wildcard) {
    sentences.push(
      `${quoteExactly(input.name)} covers every branch it matches, now and later, and no stricter rule can narrow it there: ${allows(mine)}.`,
    );
  }
  return sentences.join(' ');
}

/**
 * What lifting a rule leaves: each branch it covers falls back to the other rules matching it, or to none. Said for
 * the name itself (an exact branch) and for the rules it covers or is covered by.
 */
export function unprotectNote(input: { name: string }, rules: ProtectionRule[] | undefined): string | undefined {
  if (!rules) return undefined;
  const others = rules.filter((rule) => overlap(input.name, rule.name) && ruleMatches(rule.name, input.name));
  if (input.name.includes('*')) {
    return `Every branch ${quoteExactly(input.name)} matches loses this rule; those no other rule matches are left unprotected.`;
  }
  if (others.length === 0) return `No other rule matches ${quoteExactly(input.name)}: it is left unprotected.`;
  return `${quoteExactly(input.name)} stays covered by ${others.map((rule) => `${quoteExactly(rule.name)} (${allows(rule)})`).join('; ')}.`;
}
