// Instance keys as Terraform and OpenTofu write them in addresses: addrs.IntKey.String and
// addrs.StringKey.String (toHCLQuotedString in internal/addrs/instance_key.go, the same in both).
import { GO_PRINTABLE_RANGES } from './go-printable.js';

/** `[0]` for a count index, `["key"]` (HCL-quoted) for a for_each key. */
export function instanceKeyString(key: number | string): string {
  return typeof key === 'number' ? `[${key}]` : `[${toHCLQuotedString(key)}]`;
}

/**
 * Go's toHCLQuotedString: \n \r \t \" \\ escaped, `${` and `%{` doubled to `$${` and `%%{`, and every code
 * point Go's unicode.IsPrint refuses as \u%04x (BMP) or \U%08x, lower-case hex.
 */
export function toHCLQuotedString(text: string): string {
  if (text === '') return '""';
  let out = '"';
  for (let i = 0; i < text.length; ) {
    const codePoint = text.codePointAt(i)!;
    const width = codePoint > 0xffff ? 2 : 1;
    switch (codePoint) {
      case 0x0a:
        out += '\\n';
        break;
      case 0x0d:
        out += '\\r';
        break;
      case 0x09:
        out += '\\t';
        break;
      case 0x22:
        out += '\\"';
        break;
      case 0x5c:
        out += '\\\\';
        break;
      case 0x24: // $
      case 0x25: // %
        out += text[i];
        if (text[i + 1] === '{') out += text[i];
        break;
      default:
        if (isGoPrintable(codePoint)) out += text.slice(i, i + width);
        else if (codePoint < 0x10000) out += `\\u${codePoint.toString(16).padStart(4, '0')}`;
        else out += `\\U${codePoint.toString(16).padStart(8, '0')}`;
    }
    i += width;
  }
  return `${out}"`;
}

const starts: number[] = [];
const ends: number[] = [];
{
  const numbers = GO_PRINTABLE_RANGES.trim().split(' ');
  let end = -1;
  for (let i = 0; i < numbers.length; i += 2) {
    const start = end + 1 + Number.parseInt(numbers[i]!, 36);
    end = start + Number.parseInt(numbers[i + 1]!, 36);
    starts.push(start);
    ends.push(end);
  }
}

/** Go's unicode.IsPrint(codePoint): letters, marks, numbers, punctuation, symbols and the ASCII space. */
export function isGoPrintable(codePoint: number): boolean {
  let low = 0;
  let high = starts.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (codePoint < starts[middle]!) high = middle - 1;
    else if (codePoint > ends[middle]!) low = middle + 1;
    else return true;
  }
  return false;
}
