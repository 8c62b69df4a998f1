// Nudges to one project kept at least a minimum spacing apart: a flood of webhooks becomes one check now and one
// after the spacing, never none — the last nudge always leads to a check at or after its arrival.
import type { Clock } from '../clock.js';
import { DEFAULT_NUDGE_SPACING_MS } from '../defaults.js';

interface ProjectSpacing {
  /** When the last nudge went out. */
  lastAt: number;
  /** Cancels the nudge waiting for the spacing to pass; present while one waits. */
  pending?: () => void;
  /** Forgets the project once the spacing passed with nothing waiting, so the map holds only recent projects. */
  forget?: () => void;
}

export class SpacedNudges {
  private readonly projects = new Map<string, ProjectSpacing>();

  constructor(
    private readonly nudge: (project: string) => void,
    private readonly clock: Clock,
    private readonly spacingMs: number = DEFAULT_NUDGE_SPACING_MS,
  ) {}

  /** "Look now": at once when the project was not nudged within the spacing, else once when the spacing has passed. */
  ask(project: string): 'now' | 'later' {
    const now = this.clock.now();
    const seen = this.projects.get(project);
    if (!seen || now - seen.lastAt >= this.spacingMs) {
      seen?.forget?.();
      this.send(project, now);
      return 'now';
    }
    // Any number of asks within the spacing share the one nudge that waits for it.
    if (!seen.pending) {
      seen.forget?.();
      seen.forget = undefined;
      seen.pending = this.clock.wakeAt(seen.lastAt + this.spacingMs, () => {
        seen.pending = undefined;
        this.send(project, this.clock.now());
      });
    }
    return 'later';
  }

  /** Cancels every nudge still waiting (the listener is closing). */
  close(): void {
    for (const spacing of this.projects.values()) {
      spacing.pending?.();
      spacing.forget?.();
    }
    this.projects.clear();
  }

  private send(project: string, at: number): void {
    const spacing: ProjectSpacing = { lastAt: at };
    spacing.forget = this.clock.wakeAt(at + this.spacingMs, () => {
      if (this.projects.get(project) === spacing && !spacing.pending) this.projects.delete(project);
    });
    this.projects.set(project, spacing);
    this.nudge(project);
  }
}
