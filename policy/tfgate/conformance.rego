# tfgate's conformance policy: a Terraform plan (or observed state) judged against an approved design.
#
# data.tfgate is the compiled design (src/policy/data.ts, compilePolicyData):
#   package_id, sanctioned_kinds, catalog (type -> kind, built-in plus the design's additions),
#   capabilities [{name, depends_on, patterns}] (patterns: anchored RE2, one per depends_on entry),
#     and matchers [{prefix, parts?, key_prefix?}] (one per pattern: see entry_matches),
#   dependency_pattern (every pattern in one alternation, or "" when there are none; unused here),
#   plan_acknowledgements (optional) [{rule, address, expires_at?, acknowledgement}]: plan findings a
#     platform team waived, one rule on one address each (exact match, never a pattern), at most one per
#     finding; expires_at in canonical UTC form (2026-12-31T18:00:00.000Z).
#
# Time: the policy never reads the clock (no time.now_ns()), so a decision can be replayed. The plan
# entrypoint takes the evaluation time as input.now, RFC 3339 in UTC ("2026-11-25T02:00:00Z" or with
# milliseconds); tfgate passes the moment it evaluates. An acknowledgement holds while now < expires_at.
# input.min_severity (optional, default "low") is the threshold of plan.decision.
#
# Entrypoints (wasm and opa eval):
#   tfgate/conformance/plan   input: `terraform show -json` of a saved plan (whole or reduced)
#   tfgate/conformance/drift  input: {"resources": [{address, mode, type, name, module_address}]}
#
# Everything below iterates the changes a constant number of times, so a plan costs linear time:
# kinds are object lookups, sanctioned kinds a set, and only destructions meet the address patterns.
# Every plan rule and count looks at one change at a time, so evaluating resource_changes in chunks and
# adding the counts gives the same result as one evaluation (the in-process engine relies on this).
package tfgate.conformance

# Every action string Terraform 1.0-1.11 and OpenTofu write in change.actions. Anything else is an error.
known_actions := {"no-op", "create", "read", "update", "delete", "forget"}

sanctioned := {kind | some kind in data.tfgate.sanctioned_kinds}

default changes := []

changes := input.resource_changes if is_array(input.resource_changes)

# --- plan -------------------------------------------------------------------------------------------

plan := {
	"findings": plan_findings,
	"counts": counts,
	"errors": plan_errors,
	"expired_acknowledgements": expired_acknowledgements,
	"decision": decision,
}

detected_findings := array.concat(creation_findings, destruction_findings)

# A finding whose acknowledgement holds at input.now carries it, is reported, and never blocks.
plan_findings := [with_acknowledgement(f) | some f in detected_findings]

with_acknowledgement(f) := object.union(f, {"acknowledgement": ack.acknowledgement}) if {
	ack := acknowledgement_of[ack_key(f.rule, f.address)]
	ack_holds(ack)
} else := f

expired_acknowledgements := [{"rule": f.rule, "address": f.address, "acknowledgement": ack.acknowledgement} |
	some f in detected_findings
	ack := acknowledgement_of[ack_key(f.rule, f.address)]
	ack_expired(ack)
]

default plan_acknowledgements := []

plan_acknowledgements := data.tfgate.plan_acknowledgements if is_array(data.tfgate.plan_acknowledgements)

# Rule names hold no newline, so rule + newline + address names one finding.
ack_key(rule, address) := concat("\n", [rule, address])

acknowledgement_of := {ack_key(a.rule, a.address): a | some a in plan_acknowledgements}

ack_holds(ack) if not has_expiry(ack)

ack_holds(ack) if ack.expires_at > now

ack_expired(ack) if ack.expires_at <= now

has_expiry(ack) if is_string(ack.expires_at)

# input.now in the canonical form the expiries are written in, so that text order is time order.
# The forms are checked with string builtins, not regex.match: RE2 would compile the patterns in every
# evaluation. Each ASCII digit becomes 0, so the result equals the template exactly when the text matches
# ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}([.][0-9]{3})?Z$ (with the milliseconds or without).
now := input.now if {
	is_string(input.now)
	digits_as_zero(input.now) == "0000-00-00T00:00:00.000Z"
}

now := concat("", [trim_suffix(input.now, "Z"), ".000Z"]) if {
	is_string(input.now)
	digits_as_zero(input.now) == "0000-00-00T00:00:00Z"
}

digits_as_zero(text) := strings.replace_n(
	{"1": "0", "2": "0", "3": "0", "4": "0", "5": "0", "6": "0", "7": "0", "8": "0", "9": "0"},
	text,
)

has_now if now

severity_rank := {"low": 0, "medium": 1, "high": 2, "critical": 3}

default min_severity := "low"

min_severity := input.min_severity if severity_rank[input.min_severity] >= 0

# Blocked when a finding no acknowledgement holds for is at or above the threshold, or when the input cannot
# be judged (errors): tfgate then reaches no decision (exit 4); `opa eval` reading only .decision is never
# told "pass" about a plan it could not read.
default decision := "pass"

decision := "block" if {
	some f in plan_findings
	not f.acknowledgement
	severity_rank[f.severity] >= severity_rank[min_severity]
}

decision := "block" if count(plan_errors) > 0

# Counts, each over resource_changes[] entries (one entry per resource instance or deposed object):
#   resource_changes  every entry, whatever its mode or action
#   creations         managed entries whose actions contain "create" (a replace counts here and in destructions)
#   destructions      managed entries whose actions contain "delete", deposed objects excepted
#   updates           managed entries whose actions contain "update"
#   reads             entries (any mode) whose actions contain "read"
#   forgets           managed entries whose actions contain "forget" ([create,forget] counts here and in creations)
#   imports           managed entries with change.importing (an import that also updates counts in updates too)
#   no_ops            entries whose actions are exactly ["no-op"] and that import nothing
#   unrecognized      managed entries whose type the catalog does not map to a kind, whatever their actions
#   findings          plan findings
counts := {
	"resource_changes": count(changes),
	"creations": count([1 | some rc in changes; is_managed_with(rc, "create")]),
	"destructions": count([1 | some rc in changes; is_destruction(rc)]),
	"updates": count([1 | some rc in changes; is_managed_with(rc, "update")]),
	"reads": count([1 | some rc in changes; rc.change.actions[_] == "read"]),
	"forgets": count([1 | some rc in changes; is_managed_with(rc, "forget")]),
	"imports": count([1 | some rc in changes; rc.mode == "managed"; is_import(rc)]),
	"no_ops": count([1 | some rc in changes; rc.change.actions == ["no-op"]; not is_import(rc)]),
	"unrecognized": count([1 | some rc in changes; rc.mode == "managed"; not data.tfgate.catalog[rc.type]]),
	"findings": count(plan_findings),
}

is_managed_with(rc, action) if {
	rc.mode == "managed"
	rc.change.actions[_] == action
}

# Helpers wrap the tests that sit under `not`: OPA hoists a reference out of a negated call, so
# `not is_object(rc.change.importing)` would be undefined, not true, when the field is absent.
is_import(rc) if is_object(rc.change.importing)

has_actions(rc) if is_array(rc.change.actions)

has_resources if is_array(input.resources)

# Deleting a deposed object leaves the resource's live object in place: not a destruction.
is_destruction(rc) if {
	is_managed_with(rc, "delete")
	not rc.deposed
}

# Arrays, not sets: one entry per change at most, in plan order, with no hashing of finding objects.
creation_findings := [finding |
	some rc in changes
	is_managed_with(rc, "create")
	kind := data.tfgate.catalog[rc.type]
	not sanctioned[kind]
	finding := {
		"rule": "unsanctioned_creation",
		"severity": "high",
		"address": rc.address,
		"type": rc.type,
		"kind": kind,
		"actions": rc.change.actions,
		"message": concat("", [
			creation_verb(rc.change.actions), " ", rc.address, " (kind ", kind,
			"), which the approved design of package ", data.tfgate.package_id, " does not sanction",
		]),
	}
]

# One finding per destroyed address, naming every capability that depends on it (finding ids are
# per package, rule and address, so one address never yields two findings of the same rule).
destruction_findings := [finding |
	some rc in changes
	is_destruction(rc)
	kind := data.tfgate.catalog[rc.type]
	names := sort({c.name | some c in data.tfgate.capabilities; some i, p in c.patterns; entry_matches(c, i, p, rc.address)})
	count(names) > 0
	finding := {
		"rule": "capability_dependency_destroyed",
		"severity": "critical",
		"address": rc.address,
		"type": rc.type,
		"kind": kind,
		"actions": rc.change.actions,
		"capability": concat(", ", names),
		"message": concat("", [
			destruction_verb(rc.change.actions), " ", rc.address, " (kind ", kind, "), which ",
			capability_phrase(names), " of package ", data.tfgate.package_id, " ", depend_verb(names), " on",
		]),
	}
]

# Whether address matches capability c's i-th depends_on entry, whose pattern is p: exactly
# regex.match(p, address), from the entry's matcher (src/policy/data.ts, compileAddressMatcher) so that
# RE2, which compiles every pattern again in each evaluation, meets only the addresses string builtins
# cannot judge. Data without matchers (older bundles carry their own policy, but be safe) uses the pattern.
entry_matches(c, i, p, address) if {
	not has_matchers(c)
	regex.match(p, address)
}

entry_matches(c, i, p, address) if {
	m := c.matchers[i]
	startswith(address, m.prefix)
	matcher_matches(m, p, address)
}

has_matchers(c) if is_array(c.matchers)

# No parts: the pattern decides. With a key_prefix, an address that has an instance key there is the
# pattern's to judge; any other address matches only the entry's text without a key.
matcher_matches(m, p, address) if {
	not m.parts
	regex.match(p, address)
}

matcher_matches(m, p, address) if {
	key_follows(m, address)
	regex.match(p, address)
}

matcher_matches(m, _, address) if {
	not key_follows(m, address)
	glob_matches(m.parts, address)
}

key_follows(m, address) if startswith(address, m.key_prefix)

# parts joined by `.*`: RE2's `.` matches any character but a newline, and the parts hold none.
glob_matches(parts, address) if {
	count(parts) == 1
	address == parts[0]
}

glob_matches(parts, address) if {
	count(parts) == 2
	not contains(address, "\n")
	startswith(address, parts[0])
	endswith(trim_prefix(address, parts[0]), parts[1])
}

glob_matches(parts, address) if {
	count(parts) == 3
	not contains(address, "\n")
	startswith(address, parts[0])
	rest := trim_prefix(address, parts[0])
	endswith(rest, parts[2])
	contains(trim_suffix(rest, parts[2]), parts[1])
}

creation_verb(actions) := "replaces" if {
	actions[_] == "delete"
} else := "creates"

destruction_verb(actions) := "replaces" if {
	actions[_] == "create"
} else := "destroys"

capability_phrase(names) := concat("", ["capability ", names[0]]) if {
	count(names) == 1
} else := concat("", ["capabilities ", concat(", ", names)])

depend_verb(names) := "depends" if {
	count(names) == 1
} else := "depend"

# The address, not the position, names the change: the engine may evaluate resource_changes in chunks.
# Not a plan: resource_changes that is not a list, or neither resource_changes nor planned_values (which
# terraform always writes; a state has values instead). tfgate's reader refuses these before the policy runs.
plan_errors contains "input.resource_changes is not a list: this is not `terraform show -json` output of a plan" if {
	has_key(input, "resource_changes")
	not is_array(input.resource_changes)
}

plan_errors contains "the input has neither resource_changes nor planned_values: this is not `terraform show -json` output of a plan" if {
	not has_key(input, "resource_changes")
	not has_key(input, "planned_values")
}

# A change the rules cannot place: no actions list, an action tfgate does not know, or a mode, address or type
# that is not what terraform writes. One pass over the changes, the messages made only for a change that fails:
# a plan of 100,000 changes pays one cheap test each.
plan_errors contains message if {
	some rc in changes
	not valid_change(rc)
	some message in change_errors(rc)
}

valid_change(rc) if {
	well_formed(rc)
	every action in rc.change.actions {
		known_actions[action]
	}
}

well_formed(rc) if {
	shaped(rc)
	has_actions(rc)
}

modes := {"managed", "data"}

change_errors(rc) := (missing_actions(rc) | unknown_actions(rc)) | misshapen(rc)

missing_actions(rc) := {message |
	not has_actions(rc)
	message := concat("", ["resource change ", address_of(rc), " has no change.actions list"])
}

unknown_actions(rc) := {message |
	some action in rc.change.actions
	not known_actions[action]
	message := concat("", [
		"resource change ", address_of(rc), " has unknown action ", json.marshal(action),
		" (tfgate knows no-op, create, read, update, delete and forget)",
	])
}

misshapen(rc) := {message |
	not shaped(rc)
	message := concat("", [
		"resource change ", address_of(rc),
		" is not as terraform writes it (mode \"managed\" or \"data\", address and type non-empty strings)",
	])
}

shaped(rc) if {
	modes[rc.mode]
	is_string(rc.address)
	rc.address != ""
	is_string(rc.type)
	rc.type != ""
}

# Present, whatever its value (null and false too); absent is undefined.
has_key(object, key) if object[key] != null

has_key(object, key) if object[key] == null

# An expiry cannot be judged without the time: no decision rather than a guess.
plan_errors contains message if {
	some ack in plan_acknowledgements
	has_expiry(ack)
	not has_now
	message := concat("", [
		"input.now is missing or not RFC 3339 in UTC (e.g. 2026-11-25T02:00:00Z), ",
		"and the acknowledgement of ", ack.rule, " on ", ack.address, " expires at ", ack.expires_at,
	])
}

address_of(rc) := rc.address if {
	is_string(rc.address)
} else := "without an address"

# --- drift ------------------------------------------------------------------------------------------

drift := {
	"findings": drift_findings,
	"errors": drift_errors,
}

drift_findings := array.concat(unsanctioned_resources, missing_dependencies)

default resources := []

resources := input.resources if is_array(input.resources)

observed_managed := [r | some r in resources; r.mode == "managed"]

unsanctioned_resources := [finding |
	some r in observed_managed
	kind := data.tfgate.catalog[r.type]
	not sanctioned[kind]
	finding := {
		"rule": "unsanctioned_resource",
		"severity": "high",
		"address": r.address,
		"type": r.type,
		"kind": kind,
		"message": concat("", [
			r.address, " (kind ", kind, ") exists, but the approved design of package ",
			data.tfgate.package_id, " does not sanction kind ", kind,
		]),
	}
]

# A depends_on entry with no observed managed resource matching it; one finding per entry.
missing_entries contains entry if {
	some c in data.tfgate.capabilities
	some i, entry in c.depends_on
	not dependency_observed(c, i)
}

dependency_observed(c, i) if {
	some r in observed_managed
	entry_matches(c, i, c.patterns[i], r.address)
}

missing_dependencies := [finding |
	some entry in missing_entries
	names := sort({c.name | some c in data.tfgate.capabilities; entry in c.depends_on})
	finding := {
		"rule": "capability_dependency_missing",
		"severity": "critical",
		"address": entry,
		"capability": concat(", ", names),
		"message": concat("", [
			capability_phrase(names), " of package ", data.tfgate.package_id, " ", depend_verb(names), " on ",
			entry, ", but no managed resource matching it was observed",
		]),
	}
]

drift_errors contains "observed state has no resources list" if not has_resources
