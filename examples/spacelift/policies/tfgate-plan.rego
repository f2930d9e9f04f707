# Spacelift plan policy: block the run when tfgate blocks the plan.
#
# The stack's after_plan hook (.spacelift/config.yml) writes tfgate's result to tfgate.custom.spacelift.json
# at the project root; Spacelift passes it to plan policies as input.third_party_metadata.custom.tfgate
# (Spacelift's "custom inputs"). Attach this policy to every stack that runs the hook.
#
# Fail closed: no result, or a result this policy cannot read, denies too. Findings below the threshold
# (tfgate --min-severity) are warnings: they mark the run for review, they do not fail it.
package spacelift

severities := ["low", "medium", "high", "critical"]

tfgate := input.third_party_metadata.custom.tfgate

rank(severity) := i if severities[i] == severity

# An acknowledged finding never blocks (tfgate lists it with its acknowledgement): it is a warning.
blocking(finding) if {
	rank(finding.severity) >= rank(tfgate.min_severity)
	not finding.acknowledgement
}

deny contains "tfgate: no result for this plan (tfgate.custom.spacelift.json was not written by the after_plan hook); nothing is applied without a decision" if {
	not input.third_party_metadata.custom.tfgate
}

deny contains sprintf("tfgate: the result is not one this policy can read (decision %v, min_severity %v)", [object.get(tfgate, "decision", null), object.get(tfgate, "min_severity", null)]) if {
	tfgate
	not readable
}

readable if {
	tfgate.decision in {"pass", "block"}
	rank(tfgate.min_severity)
	is_array(tfgate.findings)
}

deny contains sprintf("tfgate %s (%s): %s [package %s]", [f.rule, f.severity, f.message, tfgate.package_id]) if {
	readable
	tfgate.decision == "block"
	some f in tfgate.findings
	blocking(f)
}

# A block with no blocking finding to show (the service decided by status alone) still blocks.
deny contains sprintf("tfgate blocked the plan of package %s without naming a finding", [tfgate.package_id]) if {
	readable
	tfgate.decision == "block"
	count([f | some f in tfgate.findings; blocking(f)]) == 0
}

warn contains sprintf("tfgate %s (%s, below the threshold %s): %s", [f.rule, f.severity, tfgate.min_severity, f.message]) if {
	readable
	some f in tfgate.findings
	not f.acknowledgement
	not blocking(f)
}

warn contains sprintf("tfgate %s (%s, acknowledged by %v: %v): %s", [f.rule, f.severity, object.get(f.acknowledgement, "by", "?"), object.get(f.acknowledgement, "reason", "?"), f.message]) if {
	readable
	some f in tfgate.findings
	f.acknowledgement
}
