// Epics (higher licence tier): the sandbox's epic state beyond the epics themselves (in workItemsOf(store).epics):
// to-dos, and which groups' plan lacks the feature.
import { areaState } from '../../core/area.js';

interface EpicTodo {
  id: number;
  user_id: number;
  epic_id: number;
  created_at: Date;
}

class EpicState {
  readonly todos: EpicTodo[] = [];
  /**
   * Top-level groups whose plan lacks epics: every epic call on them or below them is 403, as on the service when
   * the feature is unavailable. Empty by default (the demo runs on the higher tier).
   */
  readonly unlicensed = new Set<number>();
}

/** Epic to-dos and licensing. */
export const epicStateOf = areaState('epics', () => new EpicState());
