// What the sandbox's simulated jobs do, per project, as data: each job's stage, name, when, duration and the rule
// that decides whether it passes. The runner (./runner.ts) reads these tables and nothing else decides an outcome.
//
//   acme/web                  `test` fails on every commit whose tree carries bob's time-zone change (the shifted
//                             formatDate of eb4870be); a revert or a fix makes it pass.
//   acme/platform/payments-api  `test` is flaky: about one run in three fails on the same commit (decided by the
//                             job's id, so a test sees the same runs every time).
//   acme/platform/infra       `plan` loses its runner (runner_system_failure) on a pipeline's first attempt; a
//                             retry passes.
// Any other project with a CI configuration runs the default table, which always passes. A renamed project keeps
// the table of the path it was made at. In every table, `deploy:production` fails its health check while the commit's
// deploy/production.env says REPLICAS=0 (no seeded commit does): how a test makes a deployment fail.
import { ownEntry } from '../../core/own-key.js';

/** How a job ends. */
export type OutcomeRule =
  | { kind: 'pass' }
  /** Fails (script_failure) while the file at the pipeline's commit contains the text. */
  | { kind: 'fails_while_file_contains'; path: string; text: string; failure: FailureLog }
  /** Fails (script_failure) for about one job id in `oneIn`. */
  | { kind: 'flaky'; oneIn: number; failure: FailureLog }
  /** The runner fails (the job's first attempt in its pipeline); a retry passes. */
  | { kind: 'infrastructure_on_first_attempt'; reason: 'runner_system_failure' | 'stuck_or_timeout_failure' };

/** Which failure a job's log tells. */
type FailureLog = 'date_test' | 'webhook_timeout' | 'deploy_health_check';

export interface ScenarioJob {
  name: string;
  stage: string;
  /** Seconds it runs at time scale 1. */
  seconds: number;
  /** manual: waits for a person to play it (as `manual`); default on_success. */
  when?: 'on_success' | 'manual';
  /** Which refs get the job: the default branch only, every other ref, or all (default). */
  refs?: 'default_branch' | 'other_refs' | 'all';
  /**
   * The vendor's DAG `needs:`: the job starts (or, manual, may be played) as soon as these jobs of its pipeline
   * passed, whatever its stage; it is skipped when one of them failed. Without it, the job waits for earlier stages.
   */
  needs?: string[];
  outcome: OutcomeRule;
  /** The commands its log shows. */
  script: string[];
  /** A deploy job's `environment:` (name and url may use $CI_COMMIT_REF_SLUG and $CI_PROJECT_PATH_SLUG). */
  environment?: ScenarioEnvironment;
}

export interface ScenarioEnvironment {
  name: string;
  url?: string;
  /** Default start: the job deploys. */
  action?: 'start' | 'stop' | 'prepare' | 'verify';
}

export interface Scenario {
  /** Stages in the order they run. */
  stages: string[];
  /** The image the runner pulls (its log's opening). */
  image: string;
  jobs: ScenarioJob[];
}

/** Seconds a job waits in the queue before a runner takes it (at time scale 1). */
export const QUEUE_SECONDS = 1;

const PASS: OutcomeRule = { kind: 'pass' };

/**
 * How the application scenarios deploy: staging from the default branch, production from it too but by hand (a
 * protected environment that wants an approval, see ../jobs/deployments.ts), a review app by hand from any other branch.
 * Staging and production need only `build` (a common set-up: deploy as soon as the artefact exists), so a commit
 * whose tests fail still reaches staging, and can be played to production: how acme/web's culprit went live.
 */
const DEPLOY_JOBS: readonly ScenarioJob[] = [
  {
    name: 'deploy:staging',
    stage: 'deploy',
    seconds: 5,
    refs: 'default_branch',
    needs: ['build'],
    outcome: PASS,
    script: ['./scripts/deploy.sh staging'],
    environment: { name: 'staging', url: 'https://staging.$CI_PROJECT_PATH_SLUG.acme.example' },
  },
  {
    name: 'deploy:production',
    stage: 'deploy',
    seconds: 5,
    refs: 'default_branch',
    when: 'manual',
    needs: ['build'],
    outcome: {
      kind: 'fails_while_file_contains',
      path: 'deploy/production.env',
      text: 'REPLICAS=0',
      failure: 'deploy_health_check',
    },
    script: ['./scripts/deploy.sh production'],
    environment: { name: 'production', url: 'https://$CI_PROJECT_PATH_SLUG.acme.example' },
  },
  {
    name: 'review-app',
    stage: 'deploy',
    seconds: 5,
    refs: 'other_refs',
    when: 'manual',
    outcome: PASS,
    script: ['./scripts/deploy.sh review'],
    environment: { name: 'review/$CI_COMMIT_REF_SLUG', url: 'https://$CI_COMMIT_REF_SLUG.review.acme.example' },
  },
];

/** The service's slug of a ref or path: lower case, runs of other characters as one '-', at most 63 characters. */
export function ciSlug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, 63)
    .replace(/^-+|-+$/g, '');
}

/**
 * The environment a deploy job of this name deploys to, its variables expanded for the ref and project; null for a
 * job that deploys nothing. Seeded jobs are named like the scenarios' deploy jobs, so they deploy alike.
 */
export function jobEnvironment(
  row: Pick<ScenarioJob, 'name' | 'environment'> | undefined,
  ref: string,
  projectPath: string,
): { name: string; url: string | null; action: 'start' | 'stop' | 'prepare' | 'verify' } | null {
  const environment = row?.environment ?? DEPLOY_JOBS.find((job) => job.name === row?.name)?.environment;
  if (!environment) return null;
  const expand = (text: string) =>
    text.replaceAll('$CI_COMMIT_REF_SLUG', ciSlug(ref)).replaceAll('$CI_PROJECT_PATH_SLUG', ciSlug(projectPath));
  return {
    name: expand(environment.name),
    url: environment.url ? expand(environment.url) : null,
    action: environment.action ?? 'start',
  };
}

function nodeScenario(test: OutcomeRule): Scenario {
  return {
    stages: ['build', 'test', 'deploy'],
    image: 'node:20-alpine',
    jobs: [
      {
        name: 'build',
        stage: 'build',
        seconds: 4,
        outcome: PASS,
        script: ['npm ci --no-audit --prefer-offline', 'npm run build'],
      },
      { name: 'lint', stage: 'test', seconds: 3, outcome: PASS, script: ['npm run lint'] },
      {
        name: 'test',
        stage: 'test',
        seconds: 8,
        outcome: test,
        script: ['npm ci --no-audit --prefer-offline', 'npm test -- --ci'],
      },
      ...DEPLOY_JOBS,
    ],
  };
}

const SCENARIOS: Readonly<Record<string, Scenario>> = {
  'acme/web': nodeScenario({
    kind: 'fails_while_file_contains',
    path: 'src/utils/format date.ts',
    text: 'date.getTimezoneOffset() * 60_000',
    failure: 'date_test',
  }),
  'acme/platform/payments-api': {
    stages: ['build', 'test', 'deploy'],
    image: 'golang:1.22',
    jobs: [
      { name: 'build', stage: 'build', seconds: 4, outcome: PASS, script: ['go build ./...'] },
      { name: 'lint', stage: 'test', seconds: 3, outcome: PASS, script: ['go vet ./...'] },
      {
        name: 'test',
        stage: 'test',
        seconds: 9,
        outcome: { kind: 'flaky', oneIn: 3, failure: 'webhook_timeout' },
        script: ['go test ./...'],
      },
      ...DEPLOY_JOBS,
    ],
  },
  'acme/platform/infra': {
    stages: ['build', 'test', 'deploy'],
    image: 'hashicorp/terraform:1.7',
    jobs: [
      {
        name: 'validate',
        stage: 'build',
        seconds: 3,
        outcome: PASS,
        script: ['terraform init -backend=false', 'terraform validate'],
      },
      {
        name: 'plan',
        stage: 'test',
        seconds: 6,
        outcome: { kind: 'infrastructure_on_first_attempt', reason: 'runner_system_failure' },
        script: ['terraform plan -out=plan.tfplan'],
      },
      {
        name: 'apply',
        stage: 'deploy',
        seconds: 5,
        when: 'manual',
        refs: 'default_branch',
        outcome: PASS,
        script: ['terraform apply plan.tfplan'],
      },
    ],
  },
};

const DEFAULT_SCENARIO: Scenario = nodeScenario(PASS);

/** A project's table, by the path it was made at: renamed, it keeps its CI configuration, so its jobs run alike. */
export function scenarioFor(project: { made_at: string }): Scenario {
  return ownEntry(SCENARIOS, project.made_at) ?? DEFAULT_SCENARIO;
}

/** The jobs a new pipeline on `ref` gets. */
export function jobsForRef(scenario: Scenario, onDefaultBranch: boolean): ScenarioJob[] {
  return scenario.jobs.filter(
    (job) => (job.refs ?? 'all') === 'all' || (job.refs === 'default_branch') === onDefaultBranch,
  );
}

/** A job's table row by name; a job the table does not know (a seeded one) runs as a passing job of its stage. */
export function scenarioJob(scenario: Scenario, name: string, stage: string): ScenarioJob {
  return (
    scenario.jobs.find((job) => job.name === name) ?? {
      name,
      stage,
      seconds: 5,
      outcome: PASS,
      script: [`./scripts/${name.replace(/[^\w-]/g, '-')}.sh`],
    }
  );
}

/** A well-mixed 32-bit hash of a job id (murmur3's finaliser): the flaky job's dice, the same on every run. */
export function jobDice(jobId: number): number {
  let h = jobId >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return h >>> 0;
}
