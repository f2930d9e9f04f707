// Pass-through arguments: which `terraform plan` flags tfgate forwards, and which also belong on apply.
import { UsageError } from '../errors/index.js';
import type { TerraformProduct } from './binary.js';

interface PassThroughFlag {
  /** Takes a value (`-var k=v` or `-var=k=v`); otherwise boolean (`-refresh=false`, `-destroy`). */
  value: boolean;
  /** Also valid on `apply <planfile>`; plan-shaping flags are baked into the saved plan and rejected there. */
  apply: boolean;
  /** Only this product knows the flag. */
  only?: TerraformProduct;
}

/** The plan flags tfgate forwards. A table, so adding one is one line. */
export const PASS_THROUGH_FLAGS: Readonly<Record<string, PassThroughFlag>> = {
  var: { value: true, apply: false },
  'var-file': { value: true, apply: false },
  target: { value: true, apply: false },
  'target-file': { value: true, apply: false, only: 'opentofu' },
  exclude: { value: true, apply: false, only: 'opentofu' },
  'exclude-file': { value: true, apply: false, only: 'opentofu' },
  replace: { value: true, apply: false },
  refresh: { value: false, apply: false },
  'refresh-only': { value: false, apply: false },
  destroy: { value: false, apply: false },
  lock: { value: false, apply: true },
  'lock-timeout': { value: true, apply: true },
  parallelism: { value: true, apply: true },
  'compact-warnings': { value: false, apply: true },
  'no-color': { value: false, apply: true },
  concise: { value: false, apply: true, only: 'opentofu' },
};

/** Flags tfgate owns: a user's value would break the plan → evaluate → apply-the-same-plan guarantee. */
const OWNED_FLAGS: Readonly<Record<string, string>> = {
  out: 'tfgate writes the plan to a private temporary file (use `tfgate plan --out <file>` to keep it)',
  input: 'tfgate always runs terraform with -input=false: pass variables with -var or -var-file',
  'detailed-exitcode': 'tfgate uses -detailed-exitcode itself to tell a no-change plan apart',
  'auto-approve=false':
    'tfgate applies the saved plan it evaluated without a prompt: there is nothing to approve',
  json: "terraform's machine-readable output would hide its live human output; use tfgate --format json",
  state: 'legacy local-state flags are not supported; configure a backend instead',
  'state-out': 'legacy local-state flags are not supported; configure a backend instead',
  backup: 'legacy local-state flags are not supported; configure a backend instead',
};

export interface PassThroughArgs {
  /** From `-chdir=<dir>` among the pass-through arguments, if given there. */
  chdir: string | undefined;
  /** Forwarded to `terraform plan`, in the user's order, normalized to `-name=value`. */
  plan: string[];
  /** The subset that also applies to `terraform apply <planfile>`. */
  apply: string[];
}

/**
 * Split what follows `--` into the plan and apply arguments. Both `-var k=v` and `-var=k=v` are accepted
 * (Go's flag package takes both, and one or two dashes); anything unknown is a usage error naming the flag.
 */
export function parsePassThrough(
  args: readonly string[],
  /** Undefined (a binary not yet identified): product-specific flags are all accepted, terraform decides. */
  product: TerraformProduct | undefined,
): PassThroughArgs {
  const parsed: PassThroughArgs = { chdir: undefined, plan: [], apply: [] };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const match = /^--?([a-z][a-z0-9-]*)(?:=(.*))?$/s.exec(arg);
    if (!match) {
      throw new UsageError('invalid_terraform_argument', `unexpected terraform argument "${arg}"`, {
        hint: 'after `--`, pass only terraform plan flags such as -var k=v, -var-file f, -target a, -refresh=false',
      });
    }
    const name = match[1]!;
    let value = match[2];
    if (name === 'chdir') {
      if (value === undefined) value = args[++i];
      if (value === undefined || value === '') throw missingValue(name);
      parsed.chdir = value;
      continue;
    }
    // `terraform apply -auto-approve` carried over: what tfgate apply does anyway (it never prompts).
    if (name === 'auto-approve' && (value === undefined || value === 'true')) continue;
    const owned = OWNED_FLAGS[name === 'auto-approve' ? 'auto-approve=false' : name];
    if (owned !== undefined) {
      throw new UsageError('owned_terraform_flag', `-${name} cannot be passed through: ${owned}`, {
        hint: `drop -${name}${value === undefined ? '' : `=${value}`} after --; tfgate sets what terraform needs itself`,
      });
    }
    const flag = PASS_THROUGH_FLAGS[name];
    if (flag?.only !== undefined && product !== undefined && flag.only !== product) {
      throw wrongProduct(name, flag.only);
    }
    if (flag === undefined) {
      const known = Object.entries(PASS_THROUGH_FLAGS)
        .filter(([, f]) => f.only === undefined || product === undefined || f.only === product)
        .map(([n]) => `-${n}`)
        .join(', ');
      throw new UsageError('unknown_terraform_flag', `terraform plan flag -${name} is not passed through`, {
        hint: `tfgate forwards: -chdir, ${known}`,
      });
    }
    if (flag.value && value === undefined) {
      value = args[++i];
      if (value === undefined) throw missingValue(name);
    }
    const normalized = value === undefined ? `-${name}` : `-${name}=${value}`;
    parsed.plan.push(normalized);
    if (flag.apply) parsed.apply.push(normalized);
  }
  return parsed;
}

/** A flag only the other product knows (e.g. OpenTofu's -exclude given to terraform): say which, and how. */
function wrongProduct(name: string, only: TerraformProduct): UsageError {
  const [owner, other] = only === 'opentofu' ? ['OpenTofu', 'terraform'] : ['Terraform', 'OpenTofu'];
  const switchTo = only === 'opentofu' ? 'tofu' : 'terraform';
  return new UsageError(
    'unknown_terraform_flag',
    `-${name} is ${owner}-only: ${other} has no -${name} flag`,
    {
      hint: `run ${owner} with --terraform-bin ${switchTo} (or TFGATE_TERRAFORM_BIN=${switchTo})${name.startsWith('exclude') ? ', or select what to plan with -target' : ''}`,
    },
  );
}

function missingValue(name: string): UsageError {
  return new UsageError('invalid_terraform_argument', `terraform flag -${name} needs a value`, {
    hint: `write -${name}=<value> or -${name} <value>`,
  });
}
