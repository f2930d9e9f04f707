// Plain text for many plans: the combined decision line first, then one section per root (its own text
// report, indented), so a CI log reads top-down like the single-plan report.
import { painter } from './color.js';
import { rootsDecisionLine, rootsViewOf } from './roots.js';
import type { ReportRenderOptions, RootsReport } from './subject.js';
import { terminalSafe, terminalSafeView } from './terminal-safe.js';
import { paintVerdict, textLines } from './text.js';

export function renderTextRoots(report: RootsReport, options: ReportRenderOptions): string {
  const p = painter(options.color);
  const v = rootsViewOf(report);
  const out: string[] = [paintVerdict(v.verdict, rootsDecisionLine(v), p)];
  for (const root of v.roots) {
    const packageId = root.view?.packageId ?? root.packageId;
    const title = `${terminalSafe(root.root)} (plan ${terminalSafe(root.plan)}${packageId ? `, package ${terminalSafe(packageId)}` : ''})`;
    out.push('', p.bold(`== ${title}`));
    if (root.view) {
      for (const line of textLines(terminalSafeView(root.view), p)) out.push(line === '' ? '' : `   ${line}`);
    } else {
      const reason = root.noDecision;
      out.push(
        `   ${p.bold(p.red(`NO DECISION: ${terminalSafe(reason?.message ?? 'the plan was not evaluated')}`))}`,
      );
      if (reason?.hint) out.push(`   Hint: ${terminalSafe(reason.hint)}`);
    }
  }
  return `${out.join('\n')}\n`;
}
