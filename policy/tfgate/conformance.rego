# tfgate's conformance policy: a Terraform plan (or observed state) judged against an approved design.
#
# data.tfgate is the compiled design (src/policy/data.ts, compilePolicyData):
#   package_id, sanctioned_kinds, catalog (type -> kind, built-in plus the design's additions),
#   capabilities [{name, depends_on, patterns}] (patterns: anchored RE2, one per depends_on entry),
#   dependency_pattern (every pattern in one alternation, or "" when there are none).
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
}

plan_findings := array.concat(creation_findings, destruction_findings)

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
	data.tfgate.dependency_pattern != ""
	some rc in changes
	is_destruction(rc)
	kind := data.tfgate.catalog[rc.type]
	regex.match(data.tfgate.dependency_pattern, rc.address)
	names := sort({c.name | some c in data.tfgate.capabilities; some p in c.patterns; regex.match(p, rc.address)})
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
plan_errors contains message if {
	some rc in changes
	not has_actions(rc)
	message := concat("", ["resource change ", address_of(rc), " has no change.actions list"])
}

plan_errors contains message if {
	some rc in changes
	some action in rc.change.actions
	not known_actions[action]
	message := concat("", [
		"resource change ", address_of(rc), " has unknown action ", json.marshal(action),
		" (tfgate knows no-op, create, read, update, delete and forget)",
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
	not dependency_observed(c.patterns[i])
}

dependency_observed(pattern) if {
	some r in observed_managed
	regex.match(pattern, r.address)
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
