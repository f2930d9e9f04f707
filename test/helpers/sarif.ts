// Checking the SARIF tfgate writes against the real tools' rules: Microsoft's SARIF multitool (the SARIF 2.1.0
// schema, its SARIF rules, and its GitHub Advanced Security rules, `--rule-kind "Gh;Sarif"`), and GitHub's
// documented upload requirements, written out below as a checked function.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { parseUntrustedJson } from '../../src/json/untrusted.js';

/** The multitool's self-contained binary for this platform (@microsoft/sarif-multitool, pinned). */
export const SARIF_MULTITOOL = createRequire(import.meta.url)('@microsoft/sarif-multitool') as string;

/**
 * Validate SARIF logs with the multitool in one run; returns its error lines (empty: valid). Each line names
 * the log (by its key in `logs`), the position, the rule (JSON schema errors are JSON10xx, GitHub's GHxxxx,
 * SARIF's SARIFxxxx) and the message.
 */
export async function multitoolErrors(logs: Record<string, string>): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'tfgate-sarif-'));
  try {
    const names = Object.keys(logs);
    const files = names.map((_name, i) => join(dir, `log-${i}.sarif`));
    names.forEach((name, i) => {
      writeFileSync(files[i] as string, logs[name] as string);
    });
    const output = join(dir, 'validation.sarif');
    const run = await execa(
      SARIF_MULTITOOL,
      ['validate', ...files, '--output', output, '--log', 'ForceOverwrite', '--rule-kind', 'Gh;Sarif'],
      // The tool is self-contained .NET: no ICU on minimal images, no telemetry.
      {
        reject: false,
        env: { DOTNET_SYSTEM_GLOBALIZATION_INVARIANT: '1', DOTNET_CLI_TELEMETRY_OPTOUT: '1' },
      },
    );
    if (run.exitCode !== 0) return [`the multitool exited ${run.exitCode}: ${run.stderr}${run.stdout}`];
    // It exits 0 whatever it finds; its own SARIF log must exist, and its console lines say what failed.
    parseUntrustedJson(readFileSync(output));
    return run.stdout
      .split('\n')
      .filter((line) => /\): error /.test(line))
      .map((line) => {
        const i = files.findIndex((f) => line.startsWith(f));
        return i >= 0 ? `${names[i]}${line.slice((files[i] as string).length)}` : line;
      });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): v is string => typeof v === 'string' && v !== '';

/**
 * GitHub code scanning's upload requirements, as documented in "SARIF support for code scanning"
 * (https://docs.github.com/en/code-security/reference/code-scanning/sarif-files/sarif-support) and its upload
 * limits (https://docs.github.com/en/code-security/how-tos/scan-code-for-vulnerabilities/integrate-with-existing-tools/uploading-a-sarif-file-to-github):
 * version 2.1.0 with `$schema` and `runs`; each run's `tool.driver.name`; each rule an `id`; each result a
 * `ruleId`, a `message.text`, and 1 to 10 `locations`, each with a `physicalLocation` whose
 * `artifactLocation.uri` is a non-empty relative path (or a file URI) and whose `region`, when present, has a
 * `startLine` line number; at most 20 runs, 25,000 results a run, 25,000 rules a run. Returns what is missing (empty: ok).
 */
export function githubUploadProblems(log: unknown): string[] {
  const problems: string[] = [];
  if (!isObject(log)) return ['the log is not a JSON object'];
  if (log.version !== '2.1.0') problems.push('version must be "2.1.0"');
  if (!text(log.$schema)) problems.push('$schema is required');
  if (!Array.isArray(log.runs)) return [...problems, 'runs is required'];
  if (log.runs.length > 20) problems.push('at most 20 runs');
  log.runs.forEach((run: unknown, r) => {
    const at = `runs[${r}]`;
    if (!isObject(run)) {
      problems.push(`${at} is not an object`);
      return;
    }
    const driver = isObject(run.tool) && isObject(run.tool.driver) ? run.tool.driver : undefined;
    if (!driver || !text(driver.name)) problems.push(`${at}.tool.driver.name is required`);
    const rules = Array.isArray(driver?.rules) ? driver.rules : [];
    if (rules.length > 25_000) problems.push(`${at}: at most 25,000 rules`);
    rules.forEach((rule: unknown, i) => {
      if (!isObject(rule) || !text(rule.id)) problems.push(`${at}.tool.driver.rules[${i}].id is required`);
    });
    const results = Array.isArray(run.results) ? run.results : [];
    if (results.length > 25_000) problems.push(`${at}: at most 25,000 results`);
    results.forEach((result: unknown, i) => {
      const where = `${at}.results[${i}]`;
      if (!isObject(result)) {
        problems.push(`${where} is not an object`);
        return;
      }
      if (!text(result.ruleId)) problems.push(`${where}.ruleId is required`);
      if (!isObject(result.message) || !text(result.message.text))
        problems.push(`${where}.message.text is required`);
      const locations = Array.isArray(result.locations) ? result.locations : [];
      if (locations.length < 1 || locations.length > 10)
        problems.push(`${where}.locations: 1 to 10 are required`);
      locations.forEach((location: unknown, l) => {
        const physical = isObject(location) ? location.physicalLocation : undefined;
        const artifact = isObject(physical) ? physical.artifactLocation : undefined;
        const uri = isObject(artifact) ? artifact.uri : undefined;
        const otherScheme = text(uri) && /^[a-z][a-z0-9+.-]*:/i.test(uri) && !uri.startsWith('file:');
        if (!text(uri) || otherScheme) {
          problems.push(
            `${where}.locations[${l}].physicalLocation.artifactLocation.uri must be a relative path`,
          );
        }
        // A location without a region is the artifact as a whole (tfgate's directory fallback); a region, when
        // present, needs its start line (the multitool's GH1003 asks for no more).
        const region = isObject(physical) ? physical.region : undefined;
        const line = isObject(region) ? region.startLine : undefined;
        if (region !== undefined && (!Number.isInteger(line) || (line as number) < 1)) {
          problems.push(`${where}.locations[${l}].physicalLocation.region.startLine is required`);
        }
      });
    });
  });
  return problems;
}
