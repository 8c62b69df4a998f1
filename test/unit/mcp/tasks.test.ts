// The session's task store: a cap that refuses only when every task is still working, an expiry on ended tasks,
// and cancellation that stops the task's work.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SessionTaskStore } from '../../../src/mcp/tasks.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('SessionTaskStore', () => {
  it('refuses a task beyond the cap while all are working, and makes room by dropping the one that ended first', async () => {
    const store = new SessionTaskStore({ maxTasks: 2, ttlMs: 60_000 });
    const first = await store.createTask({});
    const second = await store.createTask({});
    await expect(store.createTask({})).rejects.toThrow(/2 tasks of this session are still working/);
    await store.storeTaskResult(second.taskId, 'completed', { content: [] });
    const third = await store.createTask({});
    expect(await store.getTask(second.taskId)).toBeNull();
    expect((await store.listTasks()).tasks.map((t) => t.taskId)).toEqual([first.taskId, third.taskId]);
    expect(store.size).toBe(2);
    store.close();
  });

  it('keeps the ttl within its cap, and drops an ended task ttl after it ended', async () => {
    vi.useFakeTimers();
    const store = new SessionTaskStore({ maxTasks: 4, ttlMs: 60_000 });
    expect((await store.createTask({ ttl: 10 * 60 * 60_000 })).ttl).toBe(60_000);
    expect((await store.createTask({ ttl: 1 })).ttl).toBe(1_000);
    const task = await store.createTask({ ttl: 5_000 });
    vi.advanceTimersByTime(10_000);
    expect((await store.getTask(task.taskId))?.status).toBe('working');
    await store.storeTaskResult(task.taskId, 'failed', { content: [], isError: true });
    expect(await store.getTaskResult(task.taskId)).toEqual({ content: [], isError: true });
    vi.advanceTimersByTime(5_000);
    expect(await store.getTask(task.taskId)).toBeNull();
    await expect(store.getTaskResult(task.taskId)).rejects.toThrow(/no result/);
    store.close();
  });

  it('stops the work of a cancelled task and takes no result for it afterwards', async () => {
    const store = new SessionTaskStore();
    const task = await store.createTask({});
    const signal = store.signalFor(task.taskId);
    await store.updateTaskStatus(task.taskId, 'working', 'check 1: pipeline #7 is running');
    expect((await store.getTask(task.taskId))?.statusMessage).toBe('check 1: pipeline #7 is running');
    await store.updateTaskStatus(task.taskId, 'cancelled');
    expect(signal.aborted).toBe(true);
    await expect(store.storeTaskResult(task.taskId, 'completed', { content: [] })).rejects.toThrow(
      /already ended \(cancelled\)/,
    );
    store.close();
  });

  it("stops every task's work and keeps nothing when the session closes", async () => {
    const store = new SessionTaskStore();
    const signals = await Promise.all([store.createTask({}), store.createTask({})]).then((tasks) =>
      tasks.map((t) => store.signalFor(t.taskId)),
    );
    store.close();
    expect(signals.every((s) => s.aborted)).toBe(true);
    expect((await store.listTasks()).tasks).toEqual([]);
  });
});
