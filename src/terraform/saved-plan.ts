// What a saved plan is on disk, so that `tfgate plan --out` replaces an earlier plan and never anything else.
// Terraform and OpenTofu write a zip archive whose first entry is `tfplan` (internal/plans/planfile/writer.go
// in both); OpenTofu with plan encryption writes a JSON envelope instead, the same as its encrypted state.
import { open, stat } from 'node:fs/promises';

export type SavedPlanKind =
  /** A zip archive whose first entry is `tfplan`: a plan terraform or tofu saved. */
  | 'plan'
  /** OpenTofu's encrypted envelope ({"meta": …, "encrypted_data": …}): a plan or a state, which cannot be told. */
  | 'encrypted'
  /** Anything else: a directory, a device, another file. */
  | 'other';

const ZIP_LOCAL_FILE_HEADER = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const FIRST_ENTRY = 'tfplan';
/** The local file header's fixed part; the entry's name length is at 26, its name at 30. */
const HEADER_BYTES = 30;

/** What is at `path` (which exists): a saved plan, OpenTofu's encrypted envelope, or something else. */
export async function savedPlanKind(path: string): Promise<SavedPlanKind> {
  // A regular file only: opening a FIFO to read it would wait for a writer.
  if (!(await stat(path)).isFile()) return 'other';
  const file = await open(path, 'r');
  try {
    const head = Buffer.alloc(HEADER_BYTES + FIRST_ENTRY.length);
    const { bytesRead } = await file.read(head, 0, head.length, 0);
    const bytes = head.subarray(0, bytesRead);
    if (
      bytes.length === head.length &&
      bytes.subarray(0, 4).equals(ZIP_LOCAL_FILE_HEADER) &&
      bytes.readUInt16LE(26) === FIRST_ENTRY.length &&
      bytes.toString('latin1', HEADER_BYTES) === FIRST_ENTRY
    ) {
      return 'plan';
    }
    return /^\{\s*"meta"\s*:/.test(bytes.toString('latin1')) ? 'encrypted' : 'other';
  } finally {
    await file.close();
  }
}
