// Reports rendered by the real parsers: GitHub's cmark-gfm (pinned from PyPI by scripts/setup-tools.sh as
// .tools/bin/cmark-gfm-python) for markdown, Python's expat for JUnit XML. One process for many documents.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { REPO_ROOT } from './cli.js';

const PYTHON = join(REPO_ROOT, '.tools', 'bin', 'cmark-gfm-python');
const SCRIPT = join(import.meta.dirname, 'github-markdown.py');

export type XmlElement = [tag: string, attributes: Record<string, string>, text: string | null];
export type Rendered = string | XmlElement[] | { error: string };

export async function renderWithRealParsers(
  documents: readonly { kind: 'markdown' | 'xml'; text: string }[],
): Promise<Rendered[]> {
  if (!existsSync(PYTHON)) {
    throw new Error(
      `cmark-gfm is not installed at ${PYTHON}: run \`bash scripts/setup-tools.sh cmark-gfm\` (.ci/run does)`,
    );
  }
  const { stdout } = await execa(PYTHON, [SCRIPT], { input: JSON.stringify(documents) });
  return JSON.parse(stdout) as Rendered[];
}
