// Settings that a flag or a variable may give, and the name each is given in messages: its flag when the flag
// gave it, its variable when the environment did. Flags win over the environment; an empty variable is unset.
// Every normaliser reads such a setting here, so a usage error (and advisory mode's notices) never names a
// flag the user did not give: `TFGATE_MIN_SEVERITY: must be one of …`, not `--min-severity: …`.
import { envBoolean, nonEmpty } from '../../options/common.js';

export class GivenSettings {
  readonly #env: NodeJS.ProcessEnv;
  readonly #names: Record<string, string>;
  readonly #givenAs = new Map<string, string>();

  /** `flagNames`: how each option path is written as a flag, for parseOptions (src/errors/options.ts). */
  constructor(env: NodeJS.ProcessEnv, flagNames: Readonly<Record<string, string>>) {
    this.#env = env;
    this.#names = { ...flagNames };
  }

  /** The option at `path`: the flag's value, else the variable's. */
  text(path: string, flag: string | undefined, variable: string): string | undefined {
    if (flag !== undefined) return flag;
    const value = nonEmpty(this.#env[variable]);
    if (value !== undefined) this.#fromEnvironment(path, variable);
    return value;
  }

  /** A boolean option at `path`: the flag, else the variable (1/true/yes, 0/false/no). */
  boolean(path: string, flag: boolean | undefined, variable: string): boolean | undefined {
    if (flag !== undefined) return flag;
    const value = envBoolean(this.#env, variable);
    if (value !== undefined) this.#fromEnvironment(path, variable);
    return value;
  }

  /**
   * How the option at `path` was given, when the environment gave it: the variable with its value
   * (`TFGATE_ADVISORY=1`), for a notice that says why it acts. Undefined when the flag gave it, or nothing did.
   */
  givenAs(path: string): string | undefined {
    return this.#givenAs.get(path);
  }

  /** The names parseOptions gives the options in errors: the flag, or the variable that gave the value. */
  get flagNames(): Readonly<Record<string, string>> {
    return this.#names;
  }

  #fromEnvironment(path: string, variable: string): void {
    this.#names[path] = variable;
    this.#givenAs.set(path, `${variable}=${this.#env[variable]}`);
  }
}
