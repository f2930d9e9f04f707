// Which of the types a route can answer with the client prefers, by its Accept header (RFC 9110 §12.5.1):
// `q=0` refuses a type, a higher q wins, a tie goes to the first the route lists (its default). Hand-written:
// a few lines over one header, where a library would bring a dependency for the whole of content negotiation.

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of header.split(',')) {
    const [range = '', ...params] = part.split(';');
    const [type, subtype] = range.trim().toLowerCase().split('/');
    if (!type || !subtype) continue;
    let q = 1;
    for (const param of params) {
      const [name, value] = param.split('=').map((s) => s.trim());
      if (name?.toLowerCase() === 'q') {
        const parsed = Number(value);
        q = Number.isFinite(parsed) && parsed >= 0 && parsed <= 1 ? parsed : 0;
      }
    }
    ranges.push({ type, subtype, q });
  }
  return ranges;
}

/**
 * The q the client gives `mediaType` and how specifically: its most specific matching range's (exact 2, then
 * type/* 1, then *\/* 0); q 0 when no range matches.
 */
function quality(ranges: readonly MediaRange[], mediaType: string): { q: number; specificity: number } {
  const [type, subtype] = mediaType.split('/');
  const exact = ranges.find((r) => r.type === type && r.subtype === subtype);
  if (exact) return { q: exact.q, specificity: 2 };
  const ofType = ranges.find((r) => r.type === type && r.subtype === '*');
  if (ofType) return { q: ofType.q, specificity: 1 };
  const any = ranges.find((r) => r.type === '*' && r.subtype === '*');
  return { q: any?.q ?? 0, specificity: 0 };
}

/**
 * The type of `offered` to answer with: the client's preferred (highest q above 0; on a tie, the one it named
 * over one it reached by a wildcard, then the first offered). No Accept header, or one that accepts none of
 * them, gets the first (the route's default).
 */
export function preferredType<T extends string>(
  accept: string | undefined,
  offered: readonly [T, ...T[]],
): T {
  if (accept === undefined || accept.trim() === '') return offered[0];
  const ranges = parseAccept(accept);
  let best = offered[0];
  let bestQ = 0;
  let bestSpecificity = -1;
  for (const type of offered) {
    const { q, specificity } = quality(ranges, type);
    if (q > bestQ || (q > 0 && q === bestQ && specificity > bestSpecificity)) {
      best = type;
      bestQ = q;
      bestSpecificity = specificity;
    }
  }
  return best;
}
