// HTML built by a tagged template that escapes every interpolated value, unless it is already Html built
// the same way. Values from plans, state and users (addresses, names, reasons) can only ever be text.
import { htmlSafeControls } from '../../../report/terminal-safe.js';

export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export type HtmlValue = Html | string | number | boolean | null | undefined | readonly HtmlValue[];

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/** Escapes text for an element's content or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ENTITIES[c]!);
}

function render(value: HtmlValue): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  // A bidirectional override would reorder what a reviewer reads, as in the text report: shown, not obeyed.
  return escapeHtml(htmlSafeControls(String(value)));
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i] as HtmlValue) + strings[i + 1]!;
  return new Html(out);
}

/**
 * A dashboard URL: fixed path segments and path parameters, each percent-encoded, and a query. Never a URL
 * that came from input, so no `javascript:` can reach an href.
 */
export function uiPath(segments: readonly string[], query?: Record<string, string | undefined>): string {
  const path = `/ui/${segments.map(encodeURIComponent).join('/')}`;
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) search.set(name, value);
  const text = search.toString();
  return text === '' ? path : `${path}?${text}`;
}
