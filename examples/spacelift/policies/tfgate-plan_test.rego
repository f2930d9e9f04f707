# `opa test examples/spacelift/policies`: the plan policy on hand-written inputs. The suite also evaluates it
# on inputs built from real tfgate runs (test/examples/spacelift.test.ts).
package spacelift_test

import data.spacelift

finding(severity) := {
	"id": "f_1",
	"rule": "unsanctioned_creation",
	"severity": severity,
	"address": "aws_sqs_queue.jobs",
	"message": "creates aws_sqs_queue.jobs (kind queue), which the approved design does not sanction",
}

with_result(result) := {"third_party_metadata": {"custom": {"tfgate": result}}}

test_pass_denies_nothing if {
	count(spacelift.deny) == 0 with input as with_result({"package_id": "p", "decision": "pass", "min_severity": "low", "findings": []})
}

test_block_denies_each_blocking_finding if {
	denied := spacelift.deny with input as with_result({"package_id": "p", "decision": "block", "min_severity": "high", "findings": [finding("high"), finding("low")]})
	count(denied) == 1
	some message in denied
	startswith(message, "tfgate unsanctioned_creation (high)")
}

test_findings_below_the_threshold_warn if {
	warned := spacelift.warn with input as with_result({"package_id": "p", "decision": "pass", "min_severity": "critical", "findings": [finding("high")]})
	count(warned) == 1
}

test_missing_result_denies if {
	count(spacelift.deny) == 1 with input as {"third_party_metadata": {"custom": {}}}
	count(spacelift.deny) == 1 with input as {}
}

test_unreadable_result_denies if {
	count(spacelift.deny) == 1 with input as with_result({"decision": "maybe", "min_severity": "low", "findings": []})
	count(spacelift.deny) == 1 with input as with_result({"decision": "pass", "min_severity": "extreme", "findings": []})
}

test_block_without_findings_denies if {
	count(spacelift.deny) == 1 with input as with_result({"package_id": "p", "decision": "block", "min_severity": "low", "findings": []})
}

test_acknowledged_finding_is_a_warning_not_a_reason_to_deny if {
	acknowledged := object.union(finding("critical"), {"address": "aws_db_instance.ledger", "acknowledgement": {"by": "platform", "account": "default", "at": "2026-11-28T00:00:00Z", "reason": "planned migration"}})
	result := {"package_id": "p", "decision": "block", "min_severity": "high", "findings": [finding("high"), acknowledged]}
	denied := spacelift.deny with input as with_result(result)
	count(denied) == 1
	every message in denied {
		not contains(message, "planned migration")
	}
	warned := spacelift.warn with input as with_result(result)
	some warning in warned
	contains(warning, "acknowledged by platform: planned migration")
}
