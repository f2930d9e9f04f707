# The bench's peer policy: tfgate's two plan rules written as a conftest user would write them
# (`conftest test --policy bench/conftest --data <data.json> plan.json`), on the same data as the
# bundle: data.design.sanctioned_kinds, data.design.catalog (type -> kind), data.design.capabilities
# [{name, depends_on}] with `*` globs matched over the whole address.
package main

import rego.v1

sanctioned contains kind if some kind in data.design.sanctioned_kinds

managed_with(rc, action) if {
	rc.mode == "managed"
	action in rc.change.actions
}

# Unsanctioned creation: a managed resource created (or replaced) whose kind the design does not sanction.
deny contains msg if {
	some rc in input.resource_changes
	managed_with(rc, "create")
	kind := data.design.catalog[rc.type]
	not sanctioned[kind]
	msg := sprintf("%s creates %s (kind %s), which the design does not sanction", [rc.address, rc.type, kind])
}

# Capability dependency destroyed: a managed resource deleted that a capability depends on.
deny contains msg if {
	some rc in input.resource_changes
	managed_with(rc, "delete")
	not rc.deposed
	data.design.catalog[rc.type]
	some capability in data.design.capabilities
	some pattern in capability.depends_on
	glob.match(pattern, null, rc.address)
	msg := sprintf("%s is destroyed, and capability %s depends on it", [rc.address, capability.name])
}
