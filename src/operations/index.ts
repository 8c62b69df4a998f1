// The operation registry: every API action forgeops knows, and the lookups the front ends use.
import type { Area, Operation } from './engine/define.js';
import { AREA_DEFINITIONS } from './areas.generated.js';
import { incidentIssueOperation, triageOperation } from './composed/triage.js';
import { revertAsMergeRequestOperation } from './composed/revert-as-merge-request.js';
import { buttonPremiseOperation } from './composed/button-premise.js';
import { rollbackEnvironmentOperation } from './composed/rollback-environment.js';
import { waitUntilSettledOperation } from './composed/wait-until-settled.js';

export const operations: readonly Operation[] = [
  // Every area's operations (areas.generated.ts, from src/operations/areas/*.ts), in the order tools, help and docs
  // show them.
  ...AREA_DEFINITIONS.flatMap((area) => area.operations),
  // Composed of the reads above; it looks them up when it runs (this list is not built yet when it is defined).
  triageOperation(() => operations),
  incidentIssueOperation(() => operations),
  revertAsMergeRequestOperation(() => operations),
  buttonPremiseOperation(() => operations),
  rollbackEnvironmentOperation(() => operations),
  waitUntilSettledOperation(() => operations),
];

/** The API areas, each with its operations and what the interop suites do not drive yet. */
export const areas = AREA_DEFINITIONS;

const byName = new Map(operations.map((op) => [op.name, op]));

export function findOperation(name: string): Operation | undefined {
  return byName.get(name);
}

export function operationsInArea(area: Area): Operation[] {
  return operations.filter((op) => op.area === area);
}
