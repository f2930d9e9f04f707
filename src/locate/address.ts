// Plan addresses (`module.a["k"].module.b[0].data.t.n[1]`) reduced to what declares them: the chain of module
// calls and the resource block, instance keys dropped (every instance of a block is declared by that block).

export interface DeclaredAddress {
  /** The module call names from the root, e.g. ["a", "b"]; empty for the root module. */
  modules: string[];
  mode: 'managed' | 'data';
  type: string;
  name: string;
}

// Terraform identifiers: a letter or underscore, then letters, digits, underscores and dashes.
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_-]*/;

/** Skip an instance key (`[0]` or `["a.b[0]"]`) at `at`; returns the index after it, or -1 if malformed. */
function skipInstanceKey(address: string, at: number): number {
  if (address[at] !== '[') return at;
  if (address[at + 1] === '"') {
    for (let i = at + 2; i < address.length; i++) {
      if (address[i] === '\\') i++;
      else if (address[i] === '"') return address[i + 1] === ']' ? i + 2 : -1;
    }
    return -1;
  }
  const digits = /^[0-9]+\]/.exec(address.slice(at + 1));
  return digits ? at + 1 + digits[0].length : -1;
}

function identifierAt(address: string, at: number): string | undefined {
  return IDENTIFIER.exec(address.slice(at))?.[0];
}

/** The declaration behind a resource instance address, or undefined for anything else. */
export function parseResourceAddress(address: string): DeclaredAddress | undefined {
  const modules: string[] = [];
  let at = 0;
  while (address.startsWith('module.', at)) {
    const name = identifierAt(address, at + 7);
    if (name === undefined) return undefined;
    at = skipInstanceKey(address, at + 7 + name.length);
    if (at < 0 || address[at] !== '.') return undefined;
    modules.push(name);
    at++;
  }
  let mode: DeclaredAddress['mode'] = 'managed';
  if (address.startsWith('data.', at)) {
    mode = 'data';
    at += 5;
  }
  const type = identifierAt(address, at);
  if (type === undefined || address[at + type.length] !== '.') return undefined;
  at += type.length + 1;
  const name = identifierAt(address, at);
  if (name === undefined) return undefined;
  at = skipInstanceKey(address, at + name.length);
  return at === address.length ? { modules, mode, type, name } : undefined;
}
