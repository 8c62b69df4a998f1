// Demo jobs for every seeded pipeline, consistent with its status, and their logs. The incident story is acme/web's
// default branch: green at the 1.1.0 release (which alice deployed to production), then red since bob's time-zone
// commit, whose `test` job fails a date test (and so does the head's) — but whose deploys need only the build, so it
// reached staging, and bob played it to production. Their logs are what a runner really writes: colours, collapsed sections, an npm
// failure with a stack trace, a masked variable, and a token a test printed by mistake.
import type { SeedContext } from '../../core/area.js';
import type { Pipeline, Project, Store } from '../../core/store.js';
import { jobsOf, setJobLog, type Job, type JobArtifact, type JobStatus } from './state.js';
import { ownEntry } from '../../core/own-key.js';
import { deploymentOfJob, syncDeployments } from './deployments.js';
import { jobEnvironment, scenarioFor, scenarioJob } from './scenarios.js';

interface PlannedJob {
  name: string;
  stage: 'build' | 'test' | 'deploy';
  status: JobStatus;
  manual?: boolean;
  /** Canceled before its stage came: it never queued or started. */
  neverRan?: boolean;
  /** When it ran, as fractions of the pipeline's run; default its stage's window. */
  window?: readonly [number, number];
}

/** A deploy job that needs only `build` (the scenarios' DAG) runs while the tests do, right after the build. */
const AFTER_BUILD = [0.2, 0.4] as const;

/**
 * Manual deploys someone played in the seeded history: the 1.1.0 release went to production (alice played it once
 * its pipeline passed), so production ran v1.1.0 until bob's commit (see seedCulpritProductionDeploy).
 */
const PLAYED: ReadonlyArray<{ project: string; ref: string; name: string }> = [
  { project: 'acme/web', ref: 'v1.1.0', name: 'deploy:production' },
];

/** The jobs a pipeline ran, by its status. A pipeline with YAML errors or skipped by [ci skip] has none. */
function plan(pipeline: Pipeline, project: Project): PlannedJob[] {
  if (pipeline.yaml_errors !== null || pipeline.status === 'skipped') return [];
  const deployName = pipeline.tag
    ? 'deploy:production'
    : pipeline.ref === project.default_branch
      ? 'deploy:staging'
      : 'review-app';
  const deployManual = pipeline.tag || pipeline.ref !== project.default_branch;
  // Deploys that need only the build (the scenario's `needs`) do not wait for the tests.
  const dag = scenarioJob(scenarioFor(project), deployName, 'deploy').needs?.includes('build') === true;
  const played = PLAYED.some((p) => p.project === project.full_path && p.ref === pipeline.ref && p.name === deployName);
  const jobs = (build: JobStatus, lint: JobStatus, test: JobStatus, deploy: PlannedJob['status']): PlannedJob[] => [
    { name: 'build', stage: 'build', status: build },
    { name: 'lint', stage: 'test', status: lint },
    { name: 'test', stage: 'test', status: test },
    {
      name: deployName,
      stage: 'deploy',
      status: deploy,
      manual: deployManual,
      ...(dag && !deployManual ? { window: AFTER_BUILD } : {}),
    },
  ];
  // Once the build passed, a DAG deploy ran (an automatic one) or waits to be played (a manual one).
  const afterBuild: JobStatus = deployManual ? 'manual' : 'success';
  switch (pipeline.status) {
    case 'success':
      return jobs('success', 'success', 'success', deployManual && !played ? 'manual' : 'success');
    case 'failed':
      // The tests failed: a stage-bound deploy was skipped, a DAG one deployed all the same.
      return jobs('success', 'success', 'failed', dag ? afterBuild : 'skipped');
    case 'canceled':
      // Canceled while testing: the deploy stage never came, or a DAG deploy was canceled while it ran.
      return jobs('success', 'canceled', 'canceled', 'canceled').map((j) =>
        j.stage !== 'deploy' ? j : dag ? { ...j, window: [AFTER_BUILD[0], 1] as const } : { ...j, neverRan: true },
      );
    case 'running':
      // Still testing. A named deploy pipeline (alice's redeploy of the 1.1.0 release, started minutes ago) has its
      // deploy:production ready since the build passed, but manual: nobody played it, so it does not move production.
      return pipeline.name?.startsWith('Deploy')
        ? [
            { name: 'build', stage: 'build', status: 'success' },
            { name: 'lint', stage: 'test', status: 'success' },
            { name: 'test', stage: 'test', status: 'running' },
            { name: 'deploy:production', stage: 'deploy', status: 'manual', manual: true },
          ]
        : jobs('success', 'success', 'running', dag ? afterBuild : 'created');
    case 'pending':
      return jobs('pending', 'created', 'created', 'created');
  }
}

export const ESC = '\x1b';
export const RESET = `${ESC}[0;m`;
export const cmd = (line: string) => `${ESC}[32;1m$ ${line}${RESET}`;
const info = (line: string) => `${ESC}[36;1m${line}${RESET}`;
export const start = (at: number, name: string, header: string, collapsed = false) =>
  `section_start:${at}:${name}${collapsed ? '[collapsed=true]' : ''}\r${ESC}[0K${info(header)}`;
export const end = (at: number, name: string) => `section_end:${at}:${name}\r${ESC}[0K`;

/** The runner's usual opening: executor, sources, cache. `at` is the job's start in epoch seconds. */
export function opening(at: number, project: Project, pipeline: Pipeline, image: string): string[] {
  return [
    `${ESC}[0KRunning with gitlab-runner 16.9.1 (782c6ecb)${RESET}`,
    `${ESC}[0K  on acme-docker-3 xT4kPq9s, system ID: s_7f2b1c9e0a11${RESET}`,
    start(at, 'prepare_executor', 'Preparing the "docker" executor', true),
    `${ESC}[0KUsing Docker executor with image ${image} ...${RESET}`,
    `${ESC}[0KPulling docker image ${image} ...${RESET}`,
    `${ESC}[0KUsing docker image sha256:5c8f3e2a9b1d for ${image} ...${RESET}`,
    end(at + 6, 'prepare_executor'),
    start(at + 6, 'get_sources', 'Getting source from Git repository', true),
    `${ESC}[32;1mFetching changes with git depth set to 20...${RESET}`,
    `Initialized empty Git repository in /builds/${project.full_path}/.git/`,
    `${ESC}[32;1mCreated fresh repository.${RESET}`,
    `${ESC}[32;1mChecking out ${pipeline.sha.slice(0, 8)} as detached HEAD (ref is ${pipeline.ref})...${RESET}`,
    `${ESC}[32;1mSkipping Git submodules setup${RESET}`,
    end(at + 9, 'get_sources'),
  ];
}

/** The log of the failed `test` job of acme/web's main: the incident. */
export function incidentLog(at: number, project: Project, pipeline: Pipeline): string {
  const s = at + 9;
  return [
    ...opening(at, project, pipeline, 'node:20-alpine'),
    start(s, 'restore_cache', 'Restoring cache', true),
    `${ESC}[32;1mChecking cache for main-node-modules-protected...${RESET}`,
    `${ESC}[32;1mSuccessfully extracted cache${RESET}`,
    end(s + 4, 'restore_cache'),
    start(s + 4, 'step_script', 'Executing "step_script" stage of the job script'),
    `${ESC}[0KUsing docker image sha256:5c8f3e2a9b1d for node:20-alpine ...${RESET}`,
    cmd('npm config set //registry.acme.example/:_authToken "${NPM_REGISTRY_TOKEN}"'),
    `Authenticating to registry.acme.example with NPM_REGISTRY_TOKEN=[MASKED]`,
    cmd('npm ci --no-audit --prefer-offline'),
    'npm ci: reifying 412 packages 12%\rnpm ci: reifying 412 packages 58%\rnpm ci: reifying 412 packages 100%',
    '',
    'added 412 packages in 11s',
    cmd('npm test -- --ci'),
    '',
    '> @acme/web@1.1.0 test',
    '> jest --ci --reporters=default --reporters=jest-junit',
    '',
    `${ESC}[0m${ESC}[7m${ESC}[1m${ESC}[32m PASS ${ESC}[39m${ESC}[22m${ESC}[27m${ESC}[0m ${ESC}[2msrc/components/${ESC}[22m${ESC}[1mheader.test.ts${ESC}[22m`,
    `${ESC}[0m${ESC}[7m${ESC}[1m${ESC}[32m PASS ${ESC}[39m${ESC}[22m${ESC}[27m${ESC}[0m ${ESC}[2msrc/search/${ESC}[22m${ESC}[1msearch.test.ts${ESC}[22m (5.118 s)`,
    '  console.log',
    '    fixtures: seeding the catalogue with token glpat-x8Kd92nFq3LmZp7TvW1c',
    '',
    '      at Object.<anonymous> (test/setup.ts:14:11)',
    '',
    `${ESC}[0m${ESC}[7m${ESC}[1m${ESC}[31m FAIL ${ESC}[39m${ESC}[22m${ESC}[27m${ESC}[0m ${ESC}[2msrc/utils/${ESC}[22m${ESC}[1mdate.test.ts${ESC}[22m`,
    `${ESC}[1m${ESC}[31m  ${ESC}[1m● ${ESC}[22m${ESC}[1mformatDate › renders the order date in the store's time zone${ESC}[39m${ESC}[22m`,
    '',
    `    ${ESC}[2mexpect(${ESC}[22m${ESC}[31mreceived${ESC}[39m${ESC}[2m).${ESC}[22mtoBe${ESC}[2m(${ESC}[22m${ESC}[32mexpected${ESC}[39m${ESC}[2m) // Object.is equality${ESC}[22m`,
    '',
    `    Expected: ${ESC}[32m"2024-03-10"${ESC}[39m`,
    `    Received: ${ESC}[31m"2024-03-09"${ESC}[39m`,
    '',
    `    ${ESC}[0m ${ESC}[90m 12 |${ESC}[39m   it(${ESC}[32m"renders the order date in the store's time zone"${ESC}[39m${ESC}[33m,${ESC}[39m () ${ESC}[33m=>${ESC}[39m {${ESC}[0m`,
    `    ${ESC}[0m ${ESC}[90m 13 |${ESC}[39m     ${ESC}[36mconst${ESC}[39m placed ${ESC}[33m=${ESC}[39m ${ESC}[36mnew${ESC}[39m ${ESC}[33mDate${ESC}[39m(${ESC}[32m'2024-03-10T00:30:00Z'${ESC}[39m)${ESC}[33m;${ESC}[39m${ESC}[0m`,
    `    ${ESC}[0m${ESC}[31m${ESC}[1m>${ESC}[22m${ESC}[39m${ESC}[90m 14 |${ESC}[39m     expect(formatDate(placed${ESC}[33m,${ESC}[39m ${ESC}[32m'Europe/Berlin'${ESC}[39m))${ESC}[33m.${ESC}[39mtoBe(${ESC}[32m'2024-03-10'${ESC}[39m)${ESC}[33m;${ESC}[39m${ESC}[0m`,
    `    ${ESC}[0m ${ESC}[90m    |${ESC}[39m                                                 ${ESC}[31m${ESC}[1m^${ESC}[22m${ESC}[39m${ESC}[0m`,
    `    ${ESC}[0m ${ESC}[90m 15 |${ESC}[39m   })${ESC}[33m;${ESC}[39m${ESC}[0m`,
    '',
    `      ${ESC}[2mat Object.<anonymous> (${ESC}[22m${ESC}[2m${ESC}[0m${ESC}[36msrc/utils/date.test.ts${ESC}[39m${ESC}[0m${ESC}[2m:14:49)${ESC}[22m`,
    `      ${ESC}[2mat Promise.then.completed (${ESC}[22m${ESC}[2mnode_modules/jest-circus/build/utils.js${ESC}[2m:298:28)${ESC}[22m`,
    `      ${ESC}[2mat new Promise (<anonymous>)${ESC}[22m`,
    `      ${ESC}[2mat callAsyncCircusFn (${ESC}[22m${ESC}[2mnode_modules/jest-circus/build/utils.js${ESC}[2m:231:10)${ESC}[22m`,
    '',
    `${ESC}[1mTest Suites: ${ESC}[22m${ESC}[1m${ESC}[31m1 failed${ESC}[39m${ESC}[22m, ${ESC}[1m${ESC}[32m2 passed${ESC}[39m${ESC}[22m, 3 total`,
    `${ESC}[1mTests:       ${ESC}[22m${ESC}[1m${ESC}[31m1 failed${ESC}[39m${ESC}[22m, ${ESC}[1m${ESC}[32m23 passed${ESC}[39m${ESC}[22m, 24 total`,
    `${ESC}[1mSnapshots:   ${ESC}[22m0 total`,
    `${ESC}[1mTime:${ESC}[22m        7.412 s`,
    `${ESC}[2mRan all test suites${ESC}[22m${ESC}[2m.${ESC}[22m`,
    'npm ERR! Lifecycle script `test` failed with error:',
    'npm ERR! Error: command failed',
    'npm ERR!   in workspace: @acme/web@1.1.0',
    end(s + 31, 'step_script'),
    start(s + 31, 'upload_artifacts_on_failure', 'Uploading artifacts for failed job', true),
    `${ESC}[32;1mUploading artifacts...${RESET}`,
    'junit.xml: found 1 matching artifact files and directories',
    `Uploading artifacts as "junit" to coordinator... 201 Created${RESET}  id=${pipeline.id} responseStatus=201 Created`,
    end(s + 33, 'upload_artifacts_on_failure'),
    start(s + 33, 'cleanup_file_variables', 'Cleaning up project directory and file based variables', true),
    end(s + 34, 'cleanup_file_variables'),
    `${ESC}[31;1mERROR: Job failed: exit code 1`,
    `${RESET}`,
  ].join('\n');
}

const SCRIPTS: Record<string, string[]> = {
  build: ['npm ci --no-audit --prefer-offline', 'npm run build'],
  lint: ['npm run lint'],
  test: ['npm test -- --ci'],
};

/** A short, ordinary log for any other job that ran. */
function plainLog(at: number, project: Project, pipeline: Pipeline, job: Job): string {
  const script = ownEntry(SCRIPTS, job.name) ?? [`./scripts/deploy.sh ${job.name.split(':')[1] ?? 'review'}`];
  const go = project.languages.Go !== undefined;
  const lines = [
    ...opening(at, project, pipeline, go ? 'golang:1.22' : 'node:20-alpine'),
    start(at + 9, 'step_script', 'Executing "step_script" stage of the job script'),
    ...script.flatMap((line) => [cmd(go ? line.replace(/^npm (ci|test|run build).*/, 'go test ./...') : line), 'ok']),
  ];
  if (job.status === 'failed') {
    lines.push(
      '--- FAIL: TestRefundWebhookRetries (30.01s)',
      '    webhooks_test.go:88: timed out waiting for the sandbox acquirer',
      'FAIL',
      end(at + 40, 'step_script'),
      `${ESC}[31;1mERROR: Job failed: exit code 1`,
      RESET,
    );
  } else if (job.status === 'success') {
    lines.push(end(at + 30, 'step_script'), `${ESC}[32;1mJob succeeded${RESET}`);
  } else if (job.status === 'canceled') {
    lines.push(`${ESC}[31;1mERROR: Job failed: canceled${RESET}`);
  }
  return lines.join('\n');
}

function artifactsFor(job: Job, log: string): JobArtifact[] {
  const trace: JobArtifact = {
    file_type: 'trace',
    size: Buffer.byteLength(log),
    filename: 'job.log',
    file_format: null,
  };
  if (job.name === 'build' && job.status === 'success')
    return [
      { file_type: 'archive', size: 1_482_113, filename: 'artifacts.zip', file_format: 'zip' },
      { file_type: 'metadata', size: 211, filename: 'metadata.gz', file_format: 'gzip' },
      trace,
    ];
  if (job.name === 'test' && (job.status === 'success' || job.status === 'failed'))
    return [{ file_type: 'junit', size: 3_904, filename: 'junit.xml.gz', file_format: 'gzip' }, trace];
  return [trace];
}

/** The seeded job of a planned one, with its times within its pipeline's run, its log and artifacts. */
function addSeededJob(store: Store, project: Project, pipeline: Pipeline, p: PlannedJob, userId: number): Job {
  const began = pipeline.started_at?.getTime() ?? null;
  // A finished pipeline's jobs share its run; a running one's, the time it has run so far: nothing starts or
  // finishes after now, so every duration (and a cancel's) is finished − started, never negative.
  const total =
    pipeline.finished_at && began !== null
      ? pipeline.finished_at.getTime() - began
      : began !== null
        ? Math.max(0, Date.now() - began)
        : 0;
  // Stages take a fifth, three fifths and a fifth of the pipeline's time.
  const stageWindow = { build: [0, 0.2], test: [0.2, 0.8], deploy: [0.8, 1] } as const;
  const ran =
    p.status !== 'created' &&
    p.status !== 'pending' &&
    p.status !== 'manual' &&
    p.status !== 'skipped' &&
    !p.neverRan &&
    began !== null;
  const [from, to] = p.window ?? stageWindow[p.stage];
  const started = ran ? new Date(began + Math.round(from * total)) : null;
  const finishes = p.status === 'success' || p.status === 'failed' || p.status === 'canceled';
  const finished = ran && finishes ? new Date(began + Math.round(to * total)) : null;
  // Queued when the pipeline was created (the first stage, and a job still waiting for a runner), or when
  // its turn came or it was played (it started at once); never for a job nobody started or whose turn never came.
  const queued = p.status === 'pending' || (ran && p.stage === 'build') ? pipeline.created_at : started;
  const job: Job = {
    id: store.nextId('job'),
    project_id: project.id,
    pipeline_id: pipeline.id,
    name: p.name,
    stage: p.stage,
    status: p.status,
    failure_reason: p.status === 'failed' ? 'script_failure' : null,
    allow_failure: p.manual === true,
    manual: p.manual === true,
    user_id: userId,
    created_at: pipeline.created_at,
    queued_at: queued,
    started_at: started,
    finished_at: finished,
    erased_at: null,
    coverage:
      p.name === 'test' && p.status === 'success' && pipeline.coverage !== null ? Number(pipeline.coverage) : null,
    retried: false,
    artifacts: [],
    environment: jobEnvironment({ name: p.name }, pipeline.ref, project.full_path),
  };
  jobsOf(store).jobs.push(job);
  if (!started) return job;
  const at = Math.floor(started.getTime() / 1000);
  const incident =
    project.full_path === 'acme/web' &&
    pipeline.ref === project.default_branch &&
    job.status === 'failed' &&
    job.name === 'test';
  const log = incident ? incidentLog(at, project, pipeline) : plainLog(at, project, pipeline, job);
  setJobLog(store, job.id, log);
  if (finishes) job.artifacts = artifactsFor(job, log);
  return job;
}

/**
 * How acme/web's culprit went live: on the pipeline that turned main red (the first failed one after the last
 * green), staging had deployed as soon as the build passed, and bob played deploy:production (it needs only the
 * build) while the tests still ran; alice approved it, production being protected by then. So production runs the
 * culprit, and the deployment before it (v1.1.0) is the one to roll back to.
 *
 * Seeded after every other job, so that the ids of all the others (and of their deployments) stay where they were:
 * this job and its deployment take the last seeded ids (a main pipeline's jobs are otherwise seeded together).
 */
function seedCulpritProductionDeploy(store: Store, seed: SeedContext): void {
  const project = store.projects.find((p) => p.full_path === 'acme/web');
  const onMain = project?.pipelines.filter((p) => p.ref === project.default_branch && !p.tag) ?? [];
  const lastGreen = onMain.findLastIndex((p) => p.status === 'success');
  const culprit = onMain.slice(lastGreen + 1).find((p) => p.status === 'failed');
  const [bob, alice] = [seed.users.get('bob'), seed.users.get('alice')];
  if (!project || !culprit || !bob || !alice) return;
  const job = addSeededJob(
    store,
    project,
    culprit,
    { name: 'deploy:production', stage: 'deploy', status: 'success', manual: true, window: [0.45, 0.7] },
    bob.id,
  );
  syncDeployments(store);
  const deployment = deploymentOfJob(store, job);
  if (!deployment || !job.started_at) return;
  deployment.required_approvals = 1;
  deployment.approvals.push({
    user_id: alice.id,
    status: 'approved',
    comment: 'Staging looks fine',
    represented_as: null,
    created_at: new Date(job.started_at.getTime() - 5_000),
  });
}

export function seedJobs(store: Store, seed: SeedContext): void {
  for (const project of store.projects)
    for (const pipeline of project.pipelines)
      for (const p of plan(pipeline, project)) addSeededJob(store, project, pipeline, p, pipeline.user_id);
  seedCulpritProductionDeploy(store, seed);
}
