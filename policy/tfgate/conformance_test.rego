# Unit tests for the conformance policy: `opa test policy/` (run by test/policy/rego.test.ts).
package tfgate.conformance_test

import data.tfgate.conformance

design := {
	"package_id": "payments",
	"sanctioned_kinds": ["object_storage"],
	"catalog": {"aws_s3_bucket": "object_storage", "aws_iam_user": "iam", "aws_db_instance": "relational_database"},
	"capabilities": [{
		"name": "ledger",
		"depends_on": ["aws_db_instance.ledger"],
		"patterns": [`^aws_db_instance\.ledger(?:\[(?:[0-9]+|"(?:[^"\\]|\\.)*")\])?$`],
	}],
	"dependency_pattern": `^aws_db_instance\.ledger(?:\[(?:[0-9]+|"(?:[^"\\]|\\.)*")\])?$`,
}

change(address, type, actions) := {"address": address, "mode": "managed", "type": type, "change": {"actions": actions}}

# data.tfgate also holds the policy itself, so each data field is replaced on its own.
plan_of(changes) := result if {
	result := conformance.plan with input as {"resource_changes": changes}
		with data.tfgate.package_id as design.package_id
		with data.tfgate.sanctioned_kinds as design.sanctioned_kinds
		with data.tfgate.catalog as design.catalog
		with data.tfgate.capabilities as design.capabilities
		with data.tfgate.dependency_pattern as design.dependency_pattern
}

drift_of(resources) := result if {
	result := conformance.drift with input as {"resources": resources}
		with data.tfgate.package_id as design.package_id
		with data.tfgate.sanctioned_kinds as design.sanctioned_kinds
		with data.tfgate.catalog as design.catalog
		with data.tfgate.capabilities as design.capabilities
		with data.tfgate.dependency_pattern as design.dependency_pattern
}

test_unsanctioned_creation if {
	result := plan_of([change("aws_iam_user.ci", "aws_iam_user", ["create"])])
	[finding] := result.findings
	finding.rule == "unsanctioned_creation"
	finding.severity == "high"
	finding.kind == "iam"
	finding.message == "creates aws_iam_user.ci (kind iam), which the approved design of package payments does not sanction"
	result.counts.creations == 1
	result.counts.findings == 1
}

test_sanctioned_creation_is_not_flagged if {
	result := plan_of([change("aws_s3_bucket.b", "aws_s3_bucket", ["create"])])
	result.findings == []
	result.counts.creations == 1
}

test_destruction_of_dependency_instance if {
	result := plan_of([change(`aws_db_instance.ledger["a"]`, "aws_db_instance", ["delete"])])
	[finding] := result.findings
	finding.rule == "capability_dependency_destroyed"
	finding.severity == "critical"
	finding.capability == "ledger"
	result.counts.destructions == 1
}

test_replace_counts_creation_and_destruction if {
	result := plan_of([change("aws_db_instance.ledger", "aws_db_instance", ["delete", "create"])])
	result.counts.creations == 1
	result.counts.destructions == 1
	{f.rule | some f in result.findings} == {"unsanctioned_creation", "capability_dependency_destroyed"}
}

test_deposed_delete_is_not_a_destruction if {
	deposed := object.union(change("aws_db_instance.ledger", "aws_db_instance", ["delete"]), {"deposed": "00000001"})
	result := plan_of([deposed])
	result.findings == []
	result.counts.destructions == 0
}

test_unrecognized_type_is_counted_never_flagged if {
	result := plan_of([change("aws_db_instance.ledger", "foo_thing", ["delete", "create"])])
	result.findings == []
	result.counts.unrecognized == 1
}

test_unknown_action_is_an_error if {
	result := plan_of([change("aws_s3_bucket.b", "aws_s3_bucket", ["destroy"])])
	count(result.errors) == 1
	result.decision == "block"
}

# Terraform omits resource_changes when nothing changes, and always writes planned_values.
test_plan_without_resource_changes if {
	result := conformance.plan with input as {"format_version": "1.2", "planned_values": {}}
	result.counts.resource_changes == 0
	result.findings == []
	result.errors == set()
	result.decision == "pass"
}

# What tfgate's reader refuses is an error here too, and never a pass for `opa eval` reading .decision.
test_input_that_is_not_a_plan_is_an_error_and_blocks if {
	not_a_plan := [
		{"format_version": "1.2"},
		{"format_version": "1.0", "values": {"root_module": {}}},
		{"format_version": "1.2", "resource_changes": null},
		{"format_version": "1.2", "resource_changes": {}},
		{"format_version": "1.2", "resource_changes": false},
	]
	every input_value in not_a_plan {
		result := conformance.plan with input as input_value
		count(result.errors) == 1
		result.decision == "block"
	}
}

test_change_not_as_terraform_writes_it_is_an_error_and_blocks if {
	malformed := [
		{"address": "aws_s3_bucket.b", "type": "aws_s3_bucket", "change": {"actions": ["create"]}},
		{"address": "aws_s3_bucket.b", "mode": "MANAGED", "type": "aws_s3_bucket", "change": {"actions": ["create"]}},
		{"address": "", "mode": "managed", "type": "aws_s3_bucket", "change": {"actions": ["create"]}},
		{"address": "aws_s3_bucket.b", "mode": "managed", "type": 7, "change": {"actions": ["create"]}},
	]
	every rc in malformed {
		result := plan_of([rc])
		count(result.errors) == 1
		result.decision == "block"
	}
	plan_of([change("aws_s3_bucket.b", "aws_s3_bucket", ["create"])]).errors == set()
}

test_drift_rules if {
	result := drift_of([
		{"address": "aws_iam_user.ci", "mode": "managed", "type": "aws_iam_user"},
		{"address": "aws_s3_bucket.b", "mode": "managed", "type": "aws_s3_bucket"},
	])
	{[f.rule, f.address] | some f in result.findings} == {
		["unsanctioned_resource", "aws_iam_user.ci"],
		["capability_dependency_missing", "aws_db_instance.ledger"],
	}
}

test_observed_dependency_is_not_missing if {
	result := drift_of([{"address": "aws_db_instance.ledger[0]", "mode": "managed", "type": "aws_db_instance"}])
	[finding] := result.findings
	finding.rule == "unsanctioned_resource"
}

test_data_sources_are_not_observed_resources if {
	result := drift_of([{"address": "data.aws_db_instance.ledger", "mode": "data", "type": "aws_db_instance"}])
	[finding] := result.findings
	finding.rule == "capability_dependency_missing"
}

# Absent fields, as terraform writes them (no "importing" key unless importing).
test_no_op_without_importing_key_is_a_no_op if {
	result := plan_of([change("aws_s3_bucket.b", "aws_s3_bucket", ["no-op"])])
	result.counts.no_ops == 1
	result.counts.imports == 0
}

test_import_is_counted_not_as_no_op if {
	imported := {"address": "aws_s3_bucket.b", "mode": "managed", "type": "aws_s3_bucket", "change": {"actions": ["no-op"], "importing": {"id": "b"}}}
	result := plan_of([imported])
	result.counts.no_ops == 0
	result.counts.imports == 1
}

test_change_without_actions_is_an_error if {
	result := plan_of([{"address": "aws_s3_bucket.b", "mode": "managed", "type": "aws_s3_bucket", "change": {}}])
	result.errors == {"resource change aws_s3_bucket.b has no change.actions list"}
}

test_state_without_resources_is_an_error if {
	result := conformance.drift with input as {"format_version": "1.0"}
	result.errors == {"observed state has no resources list"}
}

# --- plan acknowledgements and input.now --------------------------------------------------------------

iam_ack(expires_at) := {
	"rule": "unsanctioned_creation",
	"address": "aws_iam_user.u",
	"expires_at": expires_at,
	"acknowledgement": {"by": "k", "account": "a", "at": "2026-01-01T00:00:00.000Z", "reason": "r", "expires_at": expires_at},
}

acked_plan_at(now, acks, min_severity) := result if {
	result := conformance.plan with input as {"now": now, "min_severity": min_severity, "resource_changes": [change("aws_iam_user.u", "aws_iam_user", ["create"])]}
		with data.tfgate.package_id as design.package_id
		with data.tfgate.sanctioned_kinds as design.sanctioned_kinds
		with data.tfgate.catalog as design.catalog
		with data.tfgate.capabilities as design.capabilities
		with data.tfgate.dependency_pattern as design.dependency_pattern
		with data.tfgate.plan_acknowledgements as acks
}

test_acknowledgement_holds_before_its_expiry if {
	result := acked_plan_at("2026-06-30T23:59:59.999Z", [iam_ack("2026-07-01T00:00:00.000Z")], "low")
	[finding] := result.findings
	finding.acknowledgement.reason == "r"
	result.decision == "pass"
	result.expired_acknowledgements == []
}

test_acknowledgement_expires_at_its_expiry if {
	result := acked_plan_at("2026-07-01T00:00:00Z", [iam_ack("2026-07-01T00:00:00.000Z")], "low")
	[finding] := result.findings
	not finding.acknowledgement
	result.decision == "block"
	[expired] := result.expired_acknowledgements
	expired.address == "aws_iam_user.u"
}

test_acknowledgement_names_one_address_only if {
	other := object.union(iam_ack("2027-01-01T00:00:00.000Z"), {"address": "aws_iam_user.other"})
	result := acked_plan_at("2026-07-01T00:00:00Z", [other], "low")
	[finding] := result.findings
	not finding.acknowledgement
	result.decision == "block"
}

test_decision_respects_min_severity if {
	result := acked_plan_at("2026-07-01T00:00:00Z", [], "critical")
	result.decision == "pass"
}

test_expiry_without_now_is_an_error if {
	result := acked_plan_at("yesterday", [iam_ack("2026-07-01T00:00:00.000Z")], "low")
	count(result.errors) == 1
}

# input.now: exactly ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}([.][0-9]{3})?Z$, checked without a regex.
test_now_accepts_the_two_utc_forms if {
	conformance.now == "2026-11-25T02:00:00.000Z" with input as {"now": "2026-11-25T02:00:00Z"}
	conformance.now == "2026-11-25T02:00:00.123Z" with input as {"now": "2026-11-25T02:00:00.123Z"}
	conformance.now == "9999-19-39T99:99:99.999Z" with input as {"now": "9999-19-39T99:99:99.999Z"}
}

test_now_refuses_near_misses if {
	every now in [
		"2026-11-25T02:00:00.000Z\n", "2026-11-25T02:00:00.00Z", "2026-11-25T02:00:0Z", "2026-11-25 02:00:00Z",
		"2026-11-25T02:00:00+00:00", "2026-11-25t02:00:00Z", "2026-11-25T02:0a:00Z", "２026-11-25T02:00:00Z",
		"2026-11-25T02:00:00.0000Z", "x2026-11-25T02:00:00Z", "", "0000-00-00T00:00:00.000Z0",
	] {
		not conformance.has_now with input as {"now": now}
	}
	not conformance.has_now with input as {"now": 20261125}
}
