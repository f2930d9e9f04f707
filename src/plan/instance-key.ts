// Instance keys as Terraform and OpenTofu write them in addresses: addrs.IntKey.String and
// addrs.StringKey.String (toHCLQuotedString in internal/addrs/instance_key.go, the same in both).
import { isGoPrintable } from './go-printable.js';

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
