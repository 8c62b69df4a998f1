// The demo's times tell one consistent story: every seeded pipeline and job, read through the REST API, was created
// before it started, started before it finished and finished before now; durations are finished − started and never
// negative; and cancelling, retrying or playing a job computes its times from real ones.
import { describe, expect, test } from 'vitest';
import { api, type JobAnswer, type Role } from './sandbox-client.js';
import { useSandbox } from '../../helpers/mcp.js';

const env = useSandbox();

interface TimedPipeline {
  id: number;
  status: string;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
  duration: number | null;
}

const ms = (iso: string | null) => (iso === null ? null : Date.parse(iso));
const enc = (path: string) => encodeURIComponent(path);

/** Every page of a list, as the admin (who sees every project). */
async function all<T>(path: string, as: Role = 'admin'): Promise<T[]> {
  const items: T[] = [];
  for (let page = 1; page < 50; page++) {
    const answer = await api(env.sandbox, 'GET', `${path}${path.includes('?') ? '&' : '?'}per_page=100&page=${page}`, {
      as,
    });
    expect(answer.status).toBe(200);
    items.push(...(answer.data as T[]));
    if (!answer.headers.get('x-next-page')) break;
  }
  return items;
}

/** Every seeded project's pipelines (full form) and jobs, and the time they were read by. */
async function readEverything(): Promise<{
  pipelines: Array<TimedPipeline & { project: string }>;
  jobs: Array<JobAnswer & { project: string }>;
  now: number;
}> {
  const projects = await all<{ id: number; path_with_namespace: string }>('/projects');
  const pipelines: Array<TimedPipeline & { project: string }> = [];
  const jobs: Array<JobAnswer & { project: string }> = [];
  for (const project of projects) {
    for (const { id } of await all<{ id: number }>(`/projects/${project.id}/pipelines`)) {
      const full = await api(env.sandbox, 'GET', `/projects/${project.id}/pipelines/${id}`, { as: 'admin' });
      pipelines.push({ ...(full.data as TimedPipeline), project: project.path_with_namespace });
    }
    for (const job of await all<JobAnswer>(`/projects/${project.id}/jobs`))
      jobs.push({ ...job, project: project.path_with_namespace });
  }
  return { pipelines, jobs, now: Date.now() };
}

/** The times of one job that break the rules, in words (empty when it keeps them all). */
function jobProblems(job: JobAnswer, now: number): string[] {
  const problems: string[] = [];
  const [created, started, finished] = [ms(job.created_at)!, ms(job.started_at), ms(job.finished_at)];
  if (created > now) problems.push('created in the future');
  if (started !== null && started < created) problems.push('started before it was created');
  if (started !== null && started > now) problems.push('started in the future');
  if (finished !== null && (started === null || finished < started)) problems.push('finished before it started');
  if (finished !== null && finished > now) problems.push('finished in the future');
  const ran = ['running', 'success', 'failed'].includes(job.status);
  if (ran && started === null) problems.push(`${job.status} but never started`);
  if (job.status === 'running' && finished !== null) problems.push('running but finished');
  if (['success', 'failed'].includes(job.status) && finished === null) problems.push(`${job.status} but not finished`);
  if (['created', 'pending', 'manual', 'skipped'].includes(job.status) && (started !== null || finished !== null))
    problems.push(`${job.status} but has run`);
  if (job.duration !== null && job.duration < 0) problems.push(`negative duration ${job.duration}`);
  if (started === null && job.duration !== null) problems.push('a duration without a start');
  if (started !== null && finished !== null && job.duration !== (finished - started) / 1000)
    problems.push(`duration ${job.duration} is not finished − started`);
  if (started !== null && finished === null && (job.duration === null || job.duration * 1000 > now - started))
    problems.push(`running duration ${job.duration} longer than since its start`);
  if (job.queued_duration !== null) {
    if (job.queued_duration < 0) problems.push(`negative queued_duration ${job.queued_duration}`);
    const queuedUntil = started ?? now;
    if (job.queued_duration * 1000 > queuedUntil - created)
      problems.push(`queued_duration ${job.queued_duration} longer than its whole wait`);
  }
  if (['created', 'manual', 'skipped'].includes(job.status) && job.queued_duration !== null)
    problems.push(`${job.status} (never queued) but queued_duration ${job.queued_duration}`);
  if (['pending', 'running', 'success', 'failed'].includes(job.status) && job.queued_duration === null)
    problems.push(`${job.status} without a queued_duration`);
  return problems;
}

function pipelineProblems(pipeline: TimedPipeline, now: number): string[] {
  const problems: string[] = [];
  const [created, updated, started, finished] = [
    ms(pipeline.created_at)!,
    ms(pipeline.updated_at)!,
    ms(pipeline.started_at),
    ms(pipeline.finished_at),
  ];
  if (created > now) problems.push('created in the future');
  if (updated < created || updated > now) problems.push('updated outside its life');
  if (started !== null && (started < created || started > now)) problems.push('started outside created…now');
  if (finished !== null && (finished > now || finished < (started ?? created)))
    problems.push('finished outside started…now');
  if (pipeline.status === 'running' && (started === null || finished !== null))
    problems.push('running without a start, or finished');
  if (pipeline.status === 'pending' && (started !== null || finished !== null)) problems.push('pending but has run');
  if (['success', 'failed', 'canceled'].includes(pipeline.status) && finished === null)
    problems.push(`${pipeline.status} but not finished`);
  if (
    pipeline.duration !== null &&
    (started === null ||
      finished === null ||
      pipeline.duration < 0 ||
      pipeline.duration !== Math.round((finished - started) / 1000))
  ) {
    problems.push(`duration ${pipeline.duration} is not finished − started`);
  }
  return problems;
}

describe('seeded times', () => {
  test('every seeded job: created ≤ started ≤ finished ≤ now, duration = finished − started, queued_duration sane', async () => {
    const { jobs, pipelines, now } = await readEverything();
    expect(jobs.length).toBeGreaterThan(40);
    expect(new Set(jobs.map((j) => j.status))).toEqual(
      // None skipped: the only jobs after a failed test are deploys that need only the build.
      new Set(['success', 'failed', 'canceled', 'manual', 'running', 'pending', 'created']),
    );
    const broken = jobs.flatMap((job) =>
      jobProblems(job, now).map((p) => `${job.project} job ${job.id} ${job.name} (${job.status}): ${p}`),
    );
    expect(broken).toEqual([]);
    // A job ran within its pipeline's run.
    const outside = jobs.filter((job) => {
      const pipeline = pipelines.find((p) => p.project === job.project && p.id === job.pipeline.id)!;
      const started = ms(job.started_at);
      return (
        started !== null &&
        (started < ms(pipeline.started_at)! ||
          (pipeline.finished_at !== null && ms(job.finished_at)! > ms(pipeline.finished_at)!))
      );
    });
    expect(outside.map((j) => `${j.project} job ${j.id} ${j.name}`)).toEqual([]);
  });

  test('every seeded pipeline: created ≤ started ≤ finished ≤ now, duration = finished − started', async () => {
    const { pipelines, now } = await readEverything();
    expect(new Set(pipelines.map((p) => p.status))).toEqual(
      new Set(['success', 'failed', 'canceled', 'skipped', 'running', 'pending']),
    );
    const broken = pipelines.flatMap((p) =>
      pipelineProblems(p, now).map((problem) => `${p.project} pipeline ${p.id} (${p.status}): ${problem}`),
    );
    expect(broken).toEqual([]);
  });
});

describe('times after a change', () => {
  const WEB = `/projects/${enc('acme/web')}`;

  test('cancelling the running test of the production redeploy gives a duration ≥ 0, and its pipeline too', async () => {
    const running = await all<JobAnswer>(`${WEB}/jobs?scope=running`);
    const testJob = running.find((j) => j.name === 'test' && j.pipeline.id === 10)!;
    expect(testJob).toBeDefined();
    const answer = await api(env.sandbox, 'POST', `${WEB}/jobs/${testJob.id}/cancel`, { as: 'developer' });
    expect(answer.status).toBe(201);
    const canceled = answer.data as JobAnswer;
    expect(canceled.status).toBe('canceled');
    expect(canceled.duration).toBeGreaterThanOrEqual(0);
    expect(canceled.duration).toBe((ms(canceled.finished_at)! - ms(canceled.started_at)!) / 1000);
    expect(jobProblems(canceled, Date.now())).toEqual([]);
    const pipeline = (await api(env.sandbox, 'GET', `${WEB}/pipelines/${testJob.pipeline.id}`, { as: 'developer' }))
      .data as TimedPipeline;
    expect(pipeline.status).toBe('canceled');
    expect(pipelineProblems(pipeline, Date.now())).toEqual([]);
  });

  test('a pipeline cancelled as a whole, a retried job and a played manual job keep their times consistent', async () => {
    const pending = (await all<TimedPipeline>(`${WEB}/pipelines?scope=pending`))[0];
    const canceled = await api(env.sandbox, 'POST', `${WEB}/pipelines/${pending.id}/cancel`, { as: 'developer' });
    expect(pipelineProblems(canceled.data as TimedPipeline, Date.now())).toEqual([]);

    const failed = (await all<JobAnswer>(`${WEB}/jobs?scope=failed`))[0];
    // A main job: main is protected for maintainers, whose jobs they retry.
    const retried = await api(env.sandbox, 'POST', `${WEB}/jobs/${failed.id}/retry`, { as: 'maintainer' });
    expect(retried.status).toBe(201);
    expect(jobProblems(retried.data as JobAnswer, Date.now())).toEqual([]);
    // Queued since the retry, not since the pipeline was created days ago.
    expect((retried.data as JobAnswer).queued_duration).toBeLessThan(60);

    const manual = (await all<JobAnswer>(`${WEB}/jobs?scope=manual`))[0];
    const played = await api(env.sandbox, 'POST', `${WEB}/jobs/${manual.id}/play`, { as: 'developer' });
    expect(played.status).toBe(200);
    expect(jobProblems(played.data as JobAnswer, Date.now())).toEqual([]);
    expect((played.data as JobAnswer).queued_duration).toBeLessThan(60);
  });
});
