package atlantis

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/runatlantis/atlantis/server/core/config/valid"
)

func repoCfgText(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(examplesDir, "atlantis", "atlantis.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// parseRepoCfg validates atlantis.yaml text against the example's repos.yaml, as the server does on every pull request.
func parseRepoCfg(t *testing.T, s *server, text string) (valid.RepoCfg, error) {
	t.Helper()
	return s.parser.ParseRepoCfgData([]byte(text), s.globalCfg, repoID, "main")
}

func TestExampleConfigIsAcceptedByAtlantis(t *testing.T) {
	s := newServer(t)
	repoCfg, err := parseRepoCfg(t, s, repoCfgText(t))
	if err != nil {
		t.Fatalf("Atlantis refuses examples/atlantis/atlantis.yaml: %v", err)
	}
	merged := s.globalCfg.MergeProjectCfg(s.log, repoID, repoCfg.Projects[0], repoCfg)
	if merged.Name != packageID || merged.Workflow.Name != "tfgate" {
		t.Fatalf("project %q with workflow %q; want %q with tfgate", merged.Name, merged.Workflow.Name, packageID)
	}
	if !merged.PolicyCheck || !merged.CustomPolicyCheck {
		t.Fatalf("policy_check %v, custom_policy_check %v: both must be on", merged.PolicyCheck, merged.CustomPolicyCheck)
	}
	// Atlantis adds policies_passed itself, and no repository can remove it: apply waits for the policy check.
	if !slices.Contains(merged.ApplyRequirements, valid.PoliciesPassedCommandReq) {
		t.Fatalf("apply requirements %v lack policies_passed", merged.ApplyRequirements)
	}
	sets := merged.PolicySets
	if len(sets.PolicySets) != 1 || sets.PolicySets[0].Name != "tfgate-approved-design" || !sets.Owners.IsOwner(policyOwner, nil) || sets.Owners.IsOwner(prAuthor, nil) {
		t.Fatalf("policy sets %+v: want one, tfgate-approved-design, owned by %s only", sets.PolicySets, policyOwner)
	}
	for _, name := range []string{"tfgate", "tfgate-offline"} {
		w := s.globalCfg.Workflows[name]
		check := stepCommands(w.PolicyCheck.Steps)
		apply := stepCommands(w.Apply.Steps)
		if !strings.Contains(check, "tfgate check --custom-policy-check") || !strings.Contains(check, `--output "$POLICYCHECKFILE"`) {
			t.Errorf("%s: the policy check does not run tfgate in custom-policy-check mode: %s", name, check)
		}
		if !strings.Contains(apply, `--approved-findings "$POLICYCHECKFILE"`) || !strings.HasSuffix(apply, "| apply") {
			t.Errorf("%s: apply does not check the plan again before Atlantis's apply step: %s", name, apply)
		}
	}
}

func stepCommands(steps []valid.Step) string {
	var parts []string
	for _, step := range steps {
		if step.StepName == "run" {
			parts = append(parts, step.RunCommand)
		} else {
			parts = append(parts, step.StepName)
		}
	}
	return strings.Join(parts, " | ")
}

func TestRepositoryCanPickOnlyTheServersTfgateWorkflows(t *testing.T) {
	s := newServer(t)
	offline := strings.Replace(repoCfgText(t), "workflow: tfgate", "workflow: tfgate-offline", 1)
	if _, err := parseRepoCfg(t, s, offline); err != nil {
		t.Fatalf("the README's offline variant is refused: %v", err)
	}
	for name, text := range map[string]string{
		"Atlantis's default workflow": strings.Replace(repoCfgText(t), "workflow: tfgate", "workflow: default", 1),
		"a workflow of its own": repoCfgText(t) + `workflows:
  mine:
    apply:
      steps: [apply]
`,
	} {
		if _, err := parseRepoCfg(t, s, text); err == nil {
			t.Errorf("a repository could switch tfgate off with %s", name)
		} else {
			t.Logf("%s refused: %v", name, err)
		}
	}
}
