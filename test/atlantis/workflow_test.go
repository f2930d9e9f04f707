package atlantis

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var (
	applyComment   = regexp.MustCompile("atlantis apply -p " + packageID)
	approveComment = regexp.MustCompile("atlantis approve_policies -p " + packageID)
)

// commandOffered finds the command a comment tells the reader to post next, or fails.
func commandOffered(t *testing.T, comment string, command *regexp.Regexp) string {
	t.Helper()
	found := command.FindString(comment)
	if found == "" {
		t.Fatalf("the pull request comment does not offer %q:\n%s", command, comment)
	}
	return found
}

func mustContain(t *testing.T, what string, text string, parts ...string) {
	t.Helper()
	for _, part := range parts {
		if !strings.Contains(text, part) {
			t.Errorf("%s lacks %q:\n%s", what, part, text)
		}
	}
}

var bothResources = []string{"terraform_data.ledger[0]", "terraform_data.queue"}

// mustSucceed fails the test when a stage errored or failed.
func mustSucceed(t *testing.T, what string, s stage) {
	t.Helper()
	if s.result.Error != nil || s.result.Failure != "" {
		t.Fatalf("%s: error %v, failure %q", what, s.result.Error, s.result.Failure)
	}
}

// mustHaveApplied compares what terraform applied in Atlantis's checkout with want (nil: nothing).
func mustHaveApplied(t *testing.T, pr *pullRequest, want []string) {
	t.Helper()
	if got := pr.appliedAddresses(); !slices.Equal(got, want) {
		t.Fatalf("applied %v, want %v", got, want)
	}
}

func TestPassingPlanPassesThePolicyCheckAndIsApplied(t *testing.T) {
	approveDesign(t, "design.yaml")
	s := newServer(t)
	pr := s.openPullRequest(nil)
	_, check := pr.autoplan()
	mustSucceed(t, "policy check", check)
	sets := check.result.PolicyCheckResults.PolicySetResults
	if len(sets) != 1 || sets[0].PolicySetName != "tfgate-approved-design" || !sets[0].Passed {
		t.Fatalf("policy set results %+v: want tfgate-approved-design passed", sets)
	}
	mustContain(t, "the policy check comment", check.comment, "PASS: 0 blocking findings", "tfgate-approved-design")
	apply := pr.comment(prAuthor, commandOffered(t, check.comment, applyComment))
	mustSucceed(t, "apply", apply)
	mustContain(t, "the apply comment", apply.comment, "PASS: 0 blocking findings", "Apply complete!")
	mustHaveApplied(t, pr, bothResources)
}

func TestBlockIsAPolicyFailureWithTheFindingsThatAPolicyOwnerCanApprove(t *testing.T) {
	approveDesign(t, "design-strict.yaml")
	s := newServer(t)
	pr := s.openPullRequest(nil)
	_, check := pr.autoplan()
	// A policy failure, not an error: Atlantis read tfgate's output and shows it.
	if check.result.Error != nil {
		t.Fatalf("the block reached Atlantis as an error, so its findings are not a policy result: %v", check.result.Error)
	}
	if check.result.Failure == "" || check.result.PolicyCheckResults == nil {
		t.Fatalf("the block is not a policy failure: %+v", check.result)
	}
	set := check.result.PolicyCheckResults.PolicySetResults[0]
	if set.Passed || !strings.HasPrefix(set.PolicyOutput, "FAIL: 2 failures") {
		t.Fatalf("policy set %s passed=%v, output:\n%s", set.PolicySetName, set.Passed, set.PolicyOutput)
	}
	mustContain(t, "the policy check comment", check.comment, "FAIL: 2 failures", "unsanctioned_creation",
		"terraform_data.ledger[0]", "terraform_data.queue", "How to fix")

	applyCmd := "atlantis apply -p " + packageID
	refused := pr.comment(prAuthor, applyCmd)
	if !strings.Contains(refused.result.Failure, "All policies must pass") {
		t.Fatalf("apply before approval: error %v, failure %q", refused.result.Error, refused.result.Failure)
	}
	mustHaveApplied(t, pr, nil)

	approve := commandOffered(t, check.comment, approveComment)
	byAuthor := pr.comment(prAuthor, approve)
	if byAuthor.result.Error == nil || !strings.Contains(byAuthor.result.Error.Error(), "is not a policy owner") {
		t.Fatalf("the pull request's author approved their own block: error %v", byAuthor.result.Error)
	}
	byOwner := pr.comment(policyOwner, approve)
	mustSucceed(t, "approval by the policy owner", byOwner)

	// The approved findings do not block again at apply: tfgate shows them as acknowledged.
	apply := pr.comment(prAuthor, applyCmd)
	mustSucceed(t, "apply after approval", apply)
	mustContain(t, "the apply comment", apply.comment, "PASS: 0 blocking findings (2 acknowledged)",
		"atlantis approve_policies", "Apply complete!")
	mustHaveApplied(t, pr, bothResources)
}

func TestDesignTightenedAfterThePolicyCheckStopsTheApply(t *testing.T) {
	approveDesign(t, "design.yaml")
	s := newServer(t)
	pr := s.openPullRequest(nil)
	_, check := pr.autoplan()
	mustSucceed(t, "policy check", check)
	approveDesign(t, "design-strict.yaml")
	apply := pr.comment(prAuthor, commandOffered(t, check.comment, applyComment))
	if apply.result.Error == nil {
		t.Fatalf("apply went ahead on a plan the current design blocks:\n%s", apply.comment)
	}
	mustContain(t, "the apply error", apply.result.Error.Error(), "exit status 3", "FAIL: 2 failures")
	mustHaveApplied(t, pr, nil)
}

// closedPort is a loopback URL nothing listens on: the service is down.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String()
	_ = l.Close()
	return url
}

// expectNoDecision asserts a policy check that reached no decision: an Atlantis error, never a policy result,
// with tfgate's message in the job output (Atlantis 0.47 drops the output of a failed custom policy step from
// the comment), and an apply Atlantis refuses although tfgate would now decide.
func expectNoDecision(t *testing.T, pr *pullRequest, check stage, tfgateSays string) {
	t.Helper()
	if check.result.Error == nil || check.result.PolicyCheckResults != nil {
		t.Fatalf("no decision was not an error: %+v", check.result)
	}
	mustContain(t, "the policy check comment", check.comment, "**Policy Check Error**")
	mustContain(t, "the policy check's job output", pr.s.jobOutput(check.jobID, tfgateSays), tfgateSays)
	apply := pr.comment(prAuthor, "atlantis apply -p "+packageID)
	if apply.result.Error == nil && apply.result.Failure == "" {
		t.Fatalf("Atlantis applied after a policy check with no decision:\n%s", apply.comment)
	}
	t.Logf("apply refused: error %v, failure %q", apply.result.Error, apply.result.Failure)
	mustHaveApplied(t, pr, nil)
}

func TestServiceDownIsAnErrorThatStopsTheApply(t *testing.T) {
	approveDesign(t, "design.yaml")
	s := newServer(t)
	pr := s.openPullRequest(nil)
	up := os.Getenv("TFGATE_BASE_URL")
	t.Setenv("TFGATE_BASE_URL", closedPort(t))
	_, check := pr.autoplan()
	t.Setenv("TFGATE_BASE_URL", up)
	expectNoDecision(t, pr, check, "error: could not reach the tfgate service")
}

// tamperBundle adds a key to one JSON file of a bundle, keeping it a valid gzip tarball.
func tamperBundle(t *testing.T, path string, name string) {
	t.Helper()
	in, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	zr, err := gzip.NewReader(in)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	tw := tar.NewWriter(zw)
	tr := tar.NewReader(zr)
	tampered := false
	for {
		header, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimPrefix(header.Name, "/") == name {
			var doc map[string]any
			if err := json.Unmarshal(data, &doc); err != nil {
				t.Fatal(err)
			}
			doc["tampered"] = true
			if data, err = json.Marshal(doc); err != nil {
				t.Fatal(err)
			}
			header.Size = int64(len(data))
			tampered = true
		}
		if err := tw.WriteHeader(header); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if !tampered {
		t.Fatalf("%s has no %s", path, name)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, out.String())
}

// offline is the README's variant: the project picks the tfgate-offline workflow, and the platform keeps the
// package's signed bundle in TFGATE_BUNDLE_DIR with `tfgate bundle pull`; the platform key is pinned.
func offline(t *testing.T, s *server, designFile string) *pullRequest {
	t.Helper()
	approveDesign(t, designFile)
	bundles := t.TempDir()
	pull := exec.Command("tfgate", "bundle", "pull", "--package", packageID, "--dir", bundles)
	if out, err := pull.CombinedOutput(); err != nil {
		t.Fatalf("tfgate bundle pull: %v\n%s", err, out)
	}
	pinned := filepath.Join(t.TempDir(), "platform.pem")
	key, err := os.ReadFile(filepath.Join(bundles, packageID, "public-key.pem"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, pinned, string(key))
	t.Setenv("TFGATE_BUNDLE_DIR", bundles)
	t.Setenv("TFGATE_PUBLIC_KEY", pinned)
	return s.openPullRequest(func(cfg string) string {
		return strings.Replace(cfg, "workflow: tfgate", "workflow: tfgate-offline", 1)
	})
}

func TestOfflineBundleDecidesWithTheServiceDown(t *testing.T) {
	s := newServer(t)
	pr := offline(t, s, "design-strict.yaml")
	t.Setenv("TFGATE_BASE_URL", closedPort(t))
	_, check := pr.autoplan()
	if check.result.Error != nil || check.result.PolicyCheckResults == nil {
		t.Fatalf("the offline policy check did not decide: %v", check.result.Error)
	}
	mustContain(t, "the policy check comment", check.comment, "FAIL: 2 failures", "terraform_data.queue")
	mustSucceed(t, "approval by the policy owner", pr.comment(policyOwner, commandOffered(t, check.comment, approveComment)))
	apply := pr.comment(prAuthor, "atlantis apply -p "+packageID)
	mustSucceed(t, "apply after approval", apply)
	mustHaveApplied(t, pr, bothResources)
}

func TestTamperedBundleIsAnErrorThatStopsTheApply(t *testing.T) {
	s := newServer(t)
	pr := offline(t, s, "design.yaml")
	// Someone with write access to the bundle directory widens the design: the signature no longer matches.
	tamperBundle(t, filepath.Join(os.Getenv("TFGATE_BUNDLE_DIR"), packageID, "bundle.tar.gz"), "data.json")
	_, check := pr.autoplan()
	expectNoDecision(t, pr, check, "data.json")
}

// A monorepo (examples/monorepo/atlantis.yaml): each project is its own package, planned and policy-checked on its
// own. network's design sanctions its creations; app's sanctions none, so only app's policy check fails.
func TestMonorepoEachProjectIsCheckedAgainstItsOwnPackage(t *testing.T) {
	for _, root := range []string{"network", "app"} {
		approvePackageDesign(t, "monorepo-"+root, []byte(readExample(t, "monorepo", "designs", root+".yaml")))
	}
	s := newServer(t)
	network := s.openMonorepoPullRequest()
	network.project = "monorepo-network"
	_, check := network.autoplan()
	mustSucceed(t, "monorepo-network policy check", check)
	mustContain(t, "monorepo-network's policy check output", s.jobOutput(check.jobID, "PASS"), "PASS: 0 blocking findings", "package monorepo-network")

	app := *network
	app.project = "monorepo-app"
	_, check = app.autoplan()
	if check.result.Failure == "" && check.result.Error == nil {
		t.Fatalf("monorepo-app: the policy check passed; its package sanctions nothing")
	}
	mustContain(t, "monorepo-app's pull request comment", check.comment, "FAIL: 2 failures", "package monorepo-app", "atlantis approve_policies -p monorepo-app")
}
