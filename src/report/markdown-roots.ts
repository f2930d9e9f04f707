// Markdown for many plans: one pull-request comment, the combined decision first, then a section per root;
// a clean root (a pass) is folded into <details> so the roots that need a reviewer stand out.
import { nounFor } from '../errors/plural.js';
import { cell, code, htmlText, markdownBody, verdictIcon } from './markdown.js';
import { type RootView, rootsDecisionLine, rootsViewOf } from './roots.js';
import type { RootsReport } from './subject.js';
import { decisionLine } from './view.js';

function rootTitle(root: RootView): string {
  const packageId = root.view?.packageId ?? root.packageId;
  return `${code(root.root)}${packageId ? ` (package ${code(packageId)})` : ''}`;
}

/** The title in a <summary> line: raw HTML to Markdown, so HTML-escaped inside <code>, never a code span. */
function rootTitleHtml(root: RootView): string {
  const packageId = root.view?.packageId ?? root.packageId;
  const codeHtml = (text: string) => `<code>${htmlText(text)}</code>`;
  return `${codeHtml(root.root)}${packageId ? ` (package ${codeHtml(packageId)})` : ''}`;
}

function section(root: RootView): string[] {
  if (!root.view) {
    return [
      `#### ❌ ${rootTitle(root)}: no decision`,
      '',
      // Led by our own word: a message starting with "#" or ">" must not become a heading or a quote.
      `Reason: ${cell(root.noDecision?.message ?? 'the plan was not evaluated')}${root.noDecision?.hint ? `<br>Hint: ${cell(root.noDecision.hint)}` : ''}`,
      '',
    ];
  }
  if (root.view.verdict === 'pass') {
    // A root name (a directory, a plan map's root:) could close the <summary> and bring its own HTML.
    const summary = `${rootTitleHtml(root)}: ${htmlText(decisionLine(root.view))}`;
    return [`<details><summary>✅ ${summary}</summary>`, '', ...markdownBody(root.view), '</details>', ''];
  }
  const line = `${rootTitle(root)}: ${cell(decisionLine(root.view))}`;
  return [`#### ${verdictIcon(root.view.verdict)} ${line}`, '', ...markdownBody(root.view)];
}

export function renderMarkdownRoots(report: RootsReport): string {
  const v = rootsViewOf(report);
  const icon = v.verdict === 'pass' ? '✅' : v.verdict === 'fail' ? '❌' : '⚠️';
  const out: string[] = [`### ${icon} tfgate plan evaluation: ${cell(rootsDecisionLine(v))}`, ''];
  out.push(
    `**${v.roots.length}** ${nounFor(v.roots.length, 'root')} · **${v.blocked}** blocked · **${v.undecided}** no decision · **${v.roots.length - v.blocked - v.undecided}** pass`,
    '',
  );
  // The roots that need a reviewer first; the order within each group is the plans' order.
  const rank = (r: RootView) => (r.status === 'pass' ? 2 : r.status === 'block' ? 0 : 1);
  for (const root of [...v.roots].sort((a, b) => rank(a) - rank(b)))
    for (const line of section(root)) out.push(line);
  if (v.verdict === 'advisory') {
    out.push(
      '> [!WARNING]',
      '> Advisory mode: this would have stopped the run, and nothing was stopped.',
      '',
    );
  }
  return `${out.join('\n').trimEnd()}\n`;
}
