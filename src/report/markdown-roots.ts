// Markdown for many plans: one pull-request comment, the combined decision first, then a section per root;
// a clean root (a pass) is folded into <details> so the roots that need a reviewer stand out.
import { cell, code, markdownBody, verdictIcon } from './markdown.js';
import { type RootView, rootsDecisionLine, rootsViewOf } from './roots.js';
import type { RootsReport } from './subject.js';
import { decisionLine } from './view.js';

function rootTitle(root: RootView): string {
  const packageId = root.view?.packageId ?? root.packageId;
  return `${code(root.root)}${packageId ? ` (package ${code(packageId)})` : ''}`;
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
  const line = `${rootTitle(root)}: ${cell(decisionLine(root.view))}`;
  if (root.view.verdict === 'pass') {
    return [`<details><summary>✅ ${line}</summary>`, '', ...markdownBody(root.view), '</details>', ''];
  }
  return [`#### ${verdictIcon(root.view.verdict)} ${line}`, '', ...markdownBody(root.view)];
}

export function renderMarkdownRoots(report: RootsReport): string {
  const v = rootsViewOf(report);
  const icon = v.verdict === 'pass' ? '✅' : v.verdict === 'fail' ? '❌' : '⚠️';
  const out: string[] = [`### ${icon} tfgate plan evaluation: ${cell(rootsDecisionLine(v))}`, ''];
  out.push(
    `**${v.roots.length}** roots · **${v.blocked}** blocked · **${v.undecided}** no decision · **${v.roots.length - v.blocked - v.undecided}** pass`,
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
