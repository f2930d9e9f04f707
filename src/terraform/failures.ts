// Terraform's failures, explained: a table from what terraform printed to what it means and what to do.
import { TerraformError } from '../errors/index.js';

export type TerraformStep = 'plan' | 'show' | 'state pull' | 'apply' | 'version';

interface KnownFailure {
  code: string;
  pattern: RegExp;
  explain: string;
  /** `$TF` stands for the binary the user runs (terraform, tofu or a path). */
  hint: string;
}

/** First match wins; patterns match terraform's and OpenTofu's wording (OpenTofu kept Terraform's). */
const KNOWN_FAILURES: readonly KnownFailure[] = [
  {
    code: 'stale_plan',
    pattern: /Saved plan is stale/,
    explain:
      'the saved plan is stale: the state changed after the plan was made (another apply ran, the state was edited, or another workspace is selected), so terraform refused to apply it',
    hint: 'nothing was applied; check `$TF workspace show`, then run `tfgate apply` again to plan, evaluate and apply against the current state',
  },
  {
    code: 'plan_for_other_state',
    pattern: /Saved plan does not match the given state/,
    explain:
      'the saved plan was made against another state (another directory, backend or workspace), so terraform refused to apply it',
    hint: 'nothing was applied; apply the plan where it was made (--chdir <dir>, and the same workspace), or plan again here',
  },
  {
    code: 'incomplete_plan',
    pattern: /Cannot apply incomplete plan/,
    explain: 'the saved plan is incomplete: planning failed when it was made, so it cannot be applied',
    hint: 'fix the errors terraform reported when planning, then plan again',
  },
  {
    code: 'state_locked',
    pattern: /Error acquiring the state lock/,
    explain: 'the state is locked by another terraform run',
    hint: 'wait for the other run to finish, or pass `-- -lock-timeout=5m`; use `$TF force-unlock` only when no run is active',
  },
  {
    code: 'init_required',
    pattern:
      /(Backend initialization required|Required plugins are not installed|Inconsistent dependency lock file|Module not installed|Missing required provider|please run "(terraform|tofu) init")/i,
    explain: 'the working directory is not initialized',
    hint: 'run `$TF init` in the configuration directory first',
  },
  {
    code: 'invalid_plan_file',
    pattern:
      /(Failed to read plan from plan file|Failed to load plan file|Failed to read the given file as a state or plan file|not a valid plan file|unsupported plan file format)/i,
    explain: 'the file is not a plan file this terraform can read',
    hint: 'pass a plan file written by `$TF plan -out` with the same version (Atlantis: $PLANFILE)',
  },
  {
    code: 'no_configuration',
    pattern: /No configuration files/,
    explain: 'the directory has no terraform configuration',
    hint: 'run tfgate in the configuration directory, or pass --chdir <dir>',
  },
];

/** Strip ANSI colour so patterns and the summary match whatever terraform's colour setting was. */
export function stripAnsi(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escape sequences start with ESC.
  return text.replace(/\u001b\[[0-9;]*m/g, '');
}

/** The first `Error: <summary>` terraform printed, without box-drawing and colour. */
export function firstErrorSummary(stderr: string): string | undefined {
  const match = /Error: ([^\n]+)/.exec(stripAnsi(stderr));
  return match?.[1]?.trim();
}

export interface FailureFacts {
  step: TerraformStep;
  command: string;
  exitCode: number | undefined;
  signal: string | undefined;
  /** The tail of what terraform wrote to stderr (it was already shown to the user live). */
  stderr: string;
}

export function explainFailure(facts: FailureFacts): TerraformError {
  const { step, command } = facts;
  const how = facts.signal ? `was killed by ${facts.signal}` : `exited with code ${facts.exitCode}`;
  const summary = firstErrorSummary(facts.stderr);
  const plain = stripAnsi(facts.stderr);
  const known = KNOWN_FAILURES.find((f) => f.pattern.test(plain));
  const details = { step, exit_code: facts.exitCode, signal: facts.signal, terraform_error: summary };
  if (known) {
    return new TerraformError(known.code, `${command} ${step} failed: ${known.explain}`, {
      hint: known.hint.replaceAll('$TF', command),
      details,
    });
  }
  return new TerraformError(
    `terraform_${step}_failed`,
    `${command} ${step} ${how}${summary ? `: ${summary}` : ''}`,
    {
      hint:
        step === 'plan'
          ? "see terraform's output above; nothing was applied"
          : step === 'apply'
            ? "see terraform's output above; the apply may be partial, so run `terraform plan` to see what remains"
            : "see terraform's output above",
      details,
    },
  );
}
