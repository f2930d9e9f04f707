// The approved design document (YAML or JSON), validated with zod. See the contract's "Approved design document".
import { z } from 'zod';

export const PACKAGE_ID_PATTERN = /^[a-z0-9][a-z0-9._-]{0,62}$/;

export const designSchema = z
  .object({
    package_id: z.string().regex(PACKAGE_ID_PATTERN),
    name: z.string().optional(),
    sanctioned_kinds: z.array(z.string().min(1)),
    capabilities: z
      .array(z.object({ name: z.string().min(1), depends_on: z.array(z.string().min(1)) }).strict())
      .default([]),
    catalog: z.record(z.string(), z.string().min(1)).default({}),
  })
  .strict();

export type Design = z.infer<typeof designSchema>;

/** Parse a design from YAML or JSON text. Throws UsageError pointing at the offending field. */
export function parseDesign(_text: string, _source: string): Design {
  throw new Error('parseDesign: not implemented yet');
}

/** Read and parse a design file. */
export async function loadDesign(_path: string): Promise<Design> {
  throw new Error('loadDesign: not implemented yet');
}
