// SIGINT/SIGTERM/SIGHUP while terraform runs: forward each one to terraform and let it finish, so locks are
// released.

export const FORWARDED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
export type ForwardedSignal = (typeof FORWARDED_SIGNALS)[number];

export interface Killable {
  readonly pid?: number | undefined;
  kill(signal: NodeJS.Signals): boolean;
}

/**
 * What terraform is sent for a signal tfgate received. A closed terminal (SIGHUP) becomes SIGTERM, which
 * terraform winds down from as from an interrupt: SIGHUP itself it does not handle, and would die holding the lock.
 */
const SENT: Readonly<Record<ForwardedSignal, NodeJS.Signals>> = {
  SIGINT: 'SIGINT',
  SIGTERM: 'SIGTERM',
  SIGHUP: 'SIGTERM',
};

/**
 * Signal the child, and with `group` its whole process group (it leads one: spawned detached), as a
 * terminal's Ctrl-C reaches a foreground job: a wrapper such as terragrunt does not pass an interrupt on, and
 * the tofu it runs must stop too. terraform and tofu themselves get it alone, once (measured: signalled as a
 * group, terraform now and then counted two interrupts and exited at once, its lock held).
 */
function signalChild(child: Killable, signal: NodeJS.Signals, group: boolean): void {
  if (group && child.pid !== undefined) {
    try {
      process.kill(-child.pid, signal);
      return;
    } catch {
      // The group is gone (the child exited) or is not its own: the child alone.
    }
  }
  child.kill(signal);
}

/**
 * Installed for the length of one command. Terraform children are spawned in their own process group, so
 * a Ctrl-C on the terminal reaches tfgate alone and terraform gets exactly one interrupt from here (two
 * interrupts make terraform exit at once, lock held). A second signal is forwarded too, as the user asked.
 * While installed, Node does not exit on these signals: the command winds down and its finally blocks run.
 */
export class SignalGuard {
  #received: ForwardedSignal | undefined;
  /** Each tracked child, and whether its whole process group is signalled (a wrapper: terragrunt). */
  readonly #children = new Map<Killable, boolean>();
  readonly #callbacks = new Set<(signal: ForwardedSignal) => void>();
  readonly #handlers = new Map<ForwardedSignal, () => void>();

  static install(): SignalGuard {
    const guard = new SignalGuard();
    for (const signal of FORWARDED_SIGNALS) {
      const handler = () => guard.#onSignal(signal);
      guard.#handlers.set(signal, handler);
      process.on(signal, handler);
    }
    return guard;
  }

  /** The first signal received, if any: once set, nothing further is applied. */
  get received(): ForwardedSignal | undefined {
    return this.#received;
  }

  /** Forward signals to this child until it is untracked; with `group`, to its whole process group. */
  track(child: Killable, options: { group?: boolean } = {}): () => void {
    this.#children.set(child, options.group ?? false);
    return () => this.#children.delete(child);
  }

  /** Called on every signal (e.g. to abort an evaluation in flight). Returns an unsubscribe function. */
  onSignal(callback: (signal: ForwardedSignal) => void): () => void {
    this.#callbacks.add(callback);
    return () => this.#callbacks.delete(callback);
  }

  /** Send a signal to the tracked children on tfgate's own account (e.g. stop a plan whose policy failed). */
  forward(signal: ForwardedSignal): void {
    for (const [child, group] of this.#children) signalChild(child, SENT[signal], group);
  }

  dispose(): void {
    for (const [signal, handler] of this.#handlers) process.off(signal, handler);
    this.#handlers.clear();
    this.#children.clear();
    this.#callbacks.clear();
  }

  #onSignal(signal: ForwardedSignal): void {
    this.#received ??= signal;
    for (const [child, group] of this.#children) signalChild(child, SENT[signal], group);
    for (const callback of this.#callbacks) callback(signal);
  }
}
