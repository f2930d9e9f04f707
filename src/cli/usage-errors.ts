// How commander's usage errors read: the error, then where to look, rather than the whole help page, which
// pushed the one line that mattered out of a pipeline log's view.
import type { Command } from 'commander';
import { plural } from '../errors/plural.js';

/** The command path as typed: "tfgate findings list". */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** Every command under `command` follows a usage error with a pointer to its own --help. */
export function pointToHelpAfterErrors(command: Command): void {
  const lists = command.commands.length > 0 ? 'every command' : 'every option';
  // plan and apply: an unknown `-var` is a terraform flag given before `--`.
  const wraps = command.registeredArguments.some((argument) => argument.name() === 'terraform-plan-args');
  const dashes = wraps
    ? `terraform's plan flags go after --, e.g. ${commandPath(command)} … -- -var k=v; `
    : '';
  command.showHelpAfterError(`(${dashes}${commandPath(command)} --help lists ${lists})`);
  for (const sub of command.commands) pointToHelpAfterErrors(sub);
}

/**
 * Every command under `command` that takes a fixed number of arguments: an extra one is refused naming it,
 * and, when it looks like a plan, with the flag that takes it (`tfgate check plan.json` is the usual slip;
 * commander said only "too many arguments. Expected 0 arguments but got 1").
 */
export function explainExcessArguments(command: Command): void {
  for (const sub of command.commands) explainExcessArguments(sub);
  const last = command.registeredArguments.at(-1);
  if (command.commands.length > 0 || last?.variadic) return;
  command.allowExcessArguments(true).hook('preAction', () => {
    const expected = command.registeredArguments.length;
    if (command.args.length <= expected) return;
    const extra = command.args.slice(expected);
    const given = extra.map((argument) => JSON.stringify(argument)).join(', ');
    const names = command.registeredArguments.map((argument) => argument.name()).join(', ');
    const takes =
      expected === 0
        ? 'takes no arguments, but was given'
        : `takes at most ${plural(expected, 'argument')} (${names}), but was also given`;
    const flag = planFlagFor(command, extra[0]!);
    const fix = flag
      ? `; a plan is given with ${flag} ${asTyped(extra[0]!)}`
      : '; an option takes its value after the flag';
    command.error(`error: ${commandPath(command)} ${takes} ${given}${fix}`, {
      code: 'commander.excessArguments',
      exitCode: 1,
    });
  });
}

/** A plain path as it is, anything else quoted as JSON: spaces or an empty argument read unambiguously. */
function asTyped(argument: string): string {
  return /^[\w./@:+=,~-]+$/.test(argument) ? argument : JSON.stringify(argument);
}

/** The command's flag for a plan named like `argument`, if it has one. */
function planFlagFor(command: Command, argument: string): string | undefined {
  const flag = /\.json$/i.test(argument) || argument === '-' ? '--plan-json' : '--plan-file';
  const looksLikePlan = flag === '--plan-json' || /plan/i.test(argument);
  return looksLikePlan && command.options.some((option) => option.long === flag) ? flag : undefined;
}
