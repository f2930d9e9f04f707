// A large plan file read in two parts at once: a run of resource changes, from one of them to the end of their
// array, by one reader (in another thread: src/policy/evaluate-split.ts), and everything else by the main
// reader, each handing its changes on in batches. Where the run starts is a guess from the bytes (compact
// `terraform show -json`), checked: the run's reader starts as if between two items of $.resource_changes, and
// the main reader, on reaching that byte, checks that it is. A guess that fell elsewhere, a run that is not a
// valid run of resource changes, a run reader that failed: the main reader reads on from there itself. So the
// plan read, and any error in it, is always the one readPlan gives for the same bytes.
import { open } from 'node:fs/promises';
import { InvalidPlanError } from '../errors/index.js';
import type { PlanInput, ResourceChange } from '../model/index.js';
import { PlanRead, type ReadPlanOptions, resourceChangeRunScanner } from './read-plan.js';
import { toInvalidPlanError } from './scan-stream.js';
import { readRange } from './source.js';

/** The bytes between two resources of compact JSON; a run starts at the second one's brace. */
const ITEM_BOUNDARY = Buffer.from('},{"address":"');
const RESOURCE_START = Buffer.from('{"address":"');
/** What a resource change has and the resources of planned_values and prior_state have not. */
const CHANGE_KEY = Buffer.from(',"change":{');
/** How far into a resource its change key is looked for: terraform writes it after a few short fields. */
const PEEK_BYTES = 2048;
/** How far past the target a run start is looked for before giving up (the plan is then read in one part). */
const SEARCH_BYTES = 16 * 1024 * 1024;
const SEARCH_WINDOW_BYTES = 1024 * 1024;

/**
 * Where a run of resource changes could start: the brace of the first resource at or after `fraction` of the
 * file that has a change (planned_values and prior_state list resources too), or undefined when none is found
 * soon after. Only a guess from the bytes: readPlanAroundRun checks it.
 */
export async function findResourceChangeRun(path: string, fraction: number): Promise<number | undefined> {
  const file = await open(path, 'r');
  try {
    const size = (await file.stat()).size;
    const from = Math.floor(fraction * size);
    const window = Buffer.allocUnsafe(SEARCH_WINDOW_BYTES + PEEK_BYTES);
    for (let at = from; at < Math.min(size, from + SEARCH_BYTES); at += SEARCH_WINDOW_BYTES) {
      const { bytesRead } = await file.read(window, 0, window.length, at);
      const bytes = window.subarray(0, bytesRead);
      for (let i = bytes.indexOf(ITEM_BOUNDARY); i >= 0 && i < SEARCH_WINDOW_BYTES; ) {
        // The resource's own bytes: up to the next resource, whatever list it is in.
        const next = bytes.indexOf(RESOURCE_START, i + 3);
        const resource = bytes.subarray(i + 2, next < 0 ? i + PEEK_BYTES : Math.min(next, i + PEEK_BYTES));
        if (resource.includes(CHANGE_KEY)) return at + i + 2;
        i = bytes.indexOf(ITEM_BOUNDARY, i + 1);
      }
      if (bytesRead < window.length) return undefined;
    }
    return undefined;
  } finally {
    await file.close();
  }
}

export interface PlanReadAroundRun {
  plan: PlanInput;
  /** True when the run's reader read the run (its changes are not among this reader's batches). */
  runRead: boolean;
}

/**
 * The main reader: the plan at `path` up to `runStart`; there, if it is between two resource changes, the
 * offset of the array's closing bracket from `runEnd` (the run's reader), and on from after it. Otherwise, or
 * when runEnd gives undefined (the run was not read), on from `runStart` itself. Errors are readPlan's.
 */
export async function readPlanAroundRun(
  path: string,
  runStart: number,
  runEnd: () => Promise<number | undefined>,
  options: ReadPlanOptions,
): Promise<PlanReadAroundRun> {
  const read = new PlanRead(options);
  const scanner = read.scanner;
  let kept: unknown;
  let runRead = false;
  try {
    const file = await open(path, 'r');
    try {
      for await (const chunk of readRange(file, 0, runStart)) scanner.write(chunk as Buffer);
      let from = scanner.bytes;
      if (from === runStart && scanner.isBetweenItemsOf(read.resourceChanges)) {
        const closeAt = await runEnd();
        if (closeAt !== undefined) {
          scanner.resumeAfterItems(closeAt);
          from = closeAt + 1;
          runRead = true;
        }
      }
      for await (const chunk of readRange(file, from)) scanner.write(chunk as Buffer);
    } finally {
      await file.close();
    }
    kept = scanner.end();
  } catch (error) {
    read.failed(toInvalidPlanError(error, read.context, scanner.bytes));
  }
  return { plan: read.finish(kept), runRead };
}

/**
 * The run's reader: the resource changes of the plan at `path` from the one at `runStart` to the end of their
 * array, handed to onChanges (and onReducedChanges, as ReadPlanOptions says) in batches. Resolves to the offset of the array's closing bracket; rejects when
 * the bytes from runStart are not such a run (the main reader then reads them itself, and says what is wrong).
 */
export async function readResourceChangeRun(
  path: string,
  runStart: number,
  onChanges: (batch: ResourceChange[]) => void,
  batchChanges: number,
  onReducedChanges?: (json: Uint8Array, count: number) => void,
): Promise<number> {
  const { scanner, batches } = resourceChangeRunScanner(onChanges, batchChanges, onReducedChanges);
  scanner.write(Buffer.from('['));
  const file = await open(path, 'r');
  try {
    for await (const chunk of readRange(file, runStart)) {
      scanner.write(chunk as Buffer);
      if (scanner.valueEndOffset !== undefined) break;
    }
  } finally {
    await file.close();
  }
  const end = scanner.valueEndOffset;
  if (end === undefined) throw new InvalidPlanError(`the resource changes from byte ${runStart} never end`);
  scanner.end();
  batches.flush();
  // Scanner offset 0 is the added '[', offset k the file's runStart + k - 1; `end` is just after the ']'.
  return runStart + end - 2;
}
