// Package atlantis runs examples/atlantis through Atlantis's own code, pinned in go.mod: the server-side
// repos.yaml and the repo-level atlantis.yaml through Atlantis's parser and validator, and every stage of a
// pull request (plan, policy check, approve_policies, apply) through the project command runner the Atlantis
// server wires up, with its real step runners, git working directory, locks, requirement checks, apply plan
// validator, BoltDB pull status and pull request comment renderer, on real terraform and the real tfgate.
//
// Run by test/examples/atlantis.test.ts, which starts the tfgate service and puts tfgate and terraform on
// PATH. Inputs (the Atlantis server's environment, as examples/atlantis/README.md describes it):
//
//	TFGATE_BASE_URL, TFGATE_API_KEY   the service and a compliance:read key, seen by every run step
//	TFGATE_HARNESS_ADMIN_KEY          the platform team's key: approves designs (the harness only)
//
// The one double: the lock URL generator (the Atlantis server's HTTP router), named lockURLDouble.
package atlantis

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/runatlantis/atlantis/server/core/boltdb"
	"github.com/runatlantis/atlantis/server/core/config"
	"github.com/runatlantis/atlantis/server/core/config/valid"
	"github.com/runatlantis/atlantis/server/core/locking"
	"github.com/runatlantis/atlantis/server/core/runtime"
	"github.com/runatlantis/atlantis/server/core/terraform"
	"github.com/runatlantis/atlantis/server/core/terraform/tfclient"
	"github.com/runatlantis/atlantis/server/events"
	"github.com/runatlantis/atlantis/server/events/command"
	"github.com/runatlantis/atlantis/server/events/models"
	"github.com/runatlantis/atlantis/server/jobs"
	"github.com/runatlantis/atlantis/server/logging"
	tally "github.com/uber-go/tally/v4"
)

const (
	examplesDir  = "../../examples"
	packageID    = "example-terraform"
	policyOwner  = "platform-team-lead"
	prAuthor     = "app-developer"
	repoFullName = "acme/infra"
	vcsHostname  = "github.com"
)

var repoID = vcsHostname + "/" + repoFullName

func TestMain(m *testing.M) {
	var missing []string
	for _, name := range []string{"TFGATE_BASE_URL", "TFGATE_API_KEY", "TFGATE_HARNESS_ADMIN_KEY"} {
		if os.Getenv(name) == "" {
			missing = append(missing, name)
		}
	}
	for _, bin := range []string{"tfgate", "terraform", "git"} {
		if _, err := exec.LookPath(bin); err != nil {
			missing = append(missing, bin+" on PATH")
		}
	}
	if len(missing) > 0 {
		fmt.Fprintf(os.Stderr, "the Atlantis harness needs %s: run it with `npx vitest run test/examples/atlantis.test.ts`\n", strings.Join(missing, ", "))
		os.Exit(2)
	}
	os.Exit(m.Run())
}

// lockURLDouble stands in for the Atlantis server's router, which turns a lock id into a link on the pull request.
type lockURLDouble struct{}

func (lockURLDouble) GenerateLockURL(lockID string) string {
	return "https://atlantis.example/lock?id=" + lockID
}

// server is one Atlantis server: its config, database, working directory and project command runner.
type server struct {
	t             *testing.T
	log           logging.SimpleLogging
	globalCfg     valid.GlobalCfg
	parser        *config.ParserValidator
	db            *boltdb.BoltDB
	workingDir    *events.FileWorkspace
	tf            *tfclient.DefaultClient
	runner        *events.DefaultProjectCommandRunner
	ctxBuilder    events.ProjectCommandContextBuilder
	commentParser *events.CommentParser
	renderer      *events.MarkdownRenderer
	// jobs is the job output the Atlantis UI shows behind each commit status: what run steps print, live.
	jobs *jobs.AsyncProjectCommandOutputHandler
}

// newServer wires the parts as server/server.go does, with --enable-policy-checks and the example's repos.yaml.
func newServer(t *testing.T) *server {
	t.Helper()
	log := logging.NewNoopLogger(t)
	parser := &config.ParserValidator{}
	globalCfg, err := parser.ParseGlobalCfg(filepath.Join(examplesDir, "atlantis", "repos.yaml"),
		valid.NewGlobalCfgFromArgs(valid.GlobalCfgArgs{PolicyCheckEnabled: true}))
	if err != nil {
		t.Fatalf("Atlantis refuses examples/atlantis/repos.yaml: %v", err)
	}
	dataDir := t.TempDir()
	db, err := boltdb.New(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	lines := make(chan *jobs.ProjectCmdOutputLine)
	outputs := jobs.NewAsyncProjectCommandOutputHandler(lines, log).(*jobs.AsyncProjectCommandOutputHandler)
	go outputs.Handle()
	t.Cleanup(func() { close(lines) })
	dist := terraform.NewDistributionTerraform()
	binDir := filepath.Join(dataDir, "bin")
	tf, err := tfclient.NewClient(log, dist, binDir, filepath.Join(dataDir, "plugin-cache"), "", "", "",
		"default-tf-version", "", false, false, outputs)
	if err != nil {
		t.Fatal(err)
	}
	version := tf.DefaultVersion()
	workingDir := &events.FileWorkspace{DataDir: dataDir}
	runStep := &runtime.RunStepRunner{
		TerraformExecutor:       tf,
		DefaultTFDistribution:   dist,
		DefaultTFVersion:        version,
		TerraformBinDir:         binDir,
		ProjectCmdOutputHandler: outputs,
	}
	showStep, err := runtime.NewShowStepRunner(tf, dist, version)
	if err != nil {
		t.Fatal(err)
	}
	planStore := &runtime.LocalPlanStore{}
	runner := &events.DefaultProjectCommandRunner{
		Locker:           &events.DefaultProjectLocker{Locker: locking.NewClient(db), NoOpLocker: locking.NewNoOpLocker(), ExecutableName: "atlantis"},
		LockURLGenerator: lockURLDouble{},
		Logger:           log,
		InitStepRunner:   &runtime.InitStepRunner{TerraformExecutor: tf, DefaultTFDistribution: dist, DefaultTFVersion: version},
		// The commit status updater only reports remote (HCP Terraform) runs, which this plan is not.
		PlanStepRunner: runtime.NewPlanStepRunner(tf, dist, version, nil, tf, planStore),
		ShowStepRunner: showStep,
		ApplyStepRunner: &runtime.ApplyStepRunner{
			TerraformExecutor: tf, DefaultTFDistribution: dist, DefaultTFVersion: version, AsyncTFExec: tf, PlanStore: planStore,
		},
		RunStepRunner:             runStep,
		EnvStepRunner:             &runtime.EnvStepRunner{RunStepRunner: runStep},
		MultiEnvStepRunner:        &runtime.MultiEnvStepRunner{RunStepRunner: runStep},
		WorkingDir:                workingDir,
		WorkingDirLocker:          events.NewDefaultWorkingDirLocker(),
		CommandRequirementHandler: &events.DefaultCommandRequirementHandler{WorkingDir: workingDir, VCSStatusName: "atlantis"},
		ApplyPlanValidator:        &events.DefaultApplyPlanValidator{PullStatusFetcher: db},
		PlanStore:                 planStore,
	}
	commentParser := events.NewCommentParser("atlantis-bot", "", "", "", "", "atlantis",
		[]command.Name{command.Plan, command.Apply, command.ApprovePolicies, command.Unlock}, nil)
	return &server{
		t:             t,
		log:           log,
		globalCfg:     globalCfg,
		parser:        parser,
		db:            db,
		workingDir:    workingDir,
		tf:            tf,
		runner:        runner,
		ctxBuilder:    events.NewProjectCommandContextBuilder(true, commentParser, tally.NoopScope),
		commentParser: commentParser,
		renderer:      events.NewMarkdownRenderer(false, false, false, false, false, false, "", "atlantis", false, false),
		jobs:          outputs,
	}
}

// pullRequest is one pull request against a repository holding examples/terraform/main.tf and the example's
// atlantis.yaml (changed by editRepoCfg, when given, as a user would edit it).
type pullRequest struct {
	s    *server
	pull models.PullRequest
	head models.Repo
	// cloneDir is Atlantis's checkout of the pull request (after the first plan).
	cloneDir string
	// project is the atlantis.yaml project the commands run for, when the repository has several.
	project string
}

var pullNumbers = 0

func (s *server) openPullRequest(editRepoCfg func(string) string) *pullRequest {
	cfg := readExample(s.t, "atlantis", "atlantis.yaml")
	if editRepoCfg != nil {
		cfg = editRepoCfg(cfg)
	}
	return s.openPullRequestWith(map[string]string{
		"main.tf":       readExample(s.t, "terraform", "main.tf"),
		"atlantis.yaml": cfg,
	})
}

// openMonorepoPullRequest opens a pull request against examples/monorepo: a root per project, each its own package.
func (s *server) openMonorepoPullRequest() *pullRequest {
	files := map[string]string{"atlantis.yaml": readExample(s.t, "monorepo", "atlantis.yaml")}
	for _, root := range []string{"network", "app"} {
		files[filepath.Join("stacks", root, "main.tf")] = readExample(s.t, "monorepo", "stacks", root, "main.tf")
	}
	return s.openPullRequestWith(files)
}

func readExample(t *testing.T, path ...string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(append([]string{examplesDir}, path...)...))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// openPullRequestWith opens a pull request whose head holds files (path relative to the repository: content).
func (s *server) openPullRequestWith(files map[string]string) *pullRequest {
	t := s.t
	t.Helper()
	repoDir := t.TempDir()
	for path, content := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(repoDir, path)), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(repoDir, path), content)
	}
	git(t, repoDir, "init", "-q", "-b", "main")
	git(t, repoDir, "add", ".")
	git(t, repoDir, "commit", "-q", "-m", "the payments system")
	git(t, repoDir, "checkout", "-q", "-b", "add-queue")
	head := strings.TrimSpace(git(t, repoDir, "rev-parse", "HEAD"))
	// Each pull request clones its own repository: FileWorkspace's documented test override of the clone URL.
	s.workingDir.TestingOverrideHeadCloneURL = "file://" + repoDir
	repo := models.Repo{
		FullName: repoFullName, Owner: "acme", Name: "infra", CloneURL: "file://" + repoDir,
		SanitizedCloneURL: "file://" + repoDir, VCSHost: models.VCSHost{Hostname: vcsHostname, Type: models.Github},
	}
	pullNumbers++
	return &pullRequest{
		s:    s,
		head: repo,
		pull: models.PullRequest{
			Num: pullNumbers, HeadCommit: head, HeadBranch: "add-queue", BaseBranch: "main", Author: prAuthor,
			State: models.OpenPullState, BaseRepo: repo, URL: fmt.Sprintf("https://github.com/%s/pull/%d", repoFullName, pullNumbers),
		},
	}
}

// commandContext is what the Atlantis server builds for a command on this pull request: the pull request's
// review state (approved and mergeable, as apply_requirements asks) and the pull status recorded in BoltDB.
func (pr *pullRequest) commandContext(user string) *command.Context {
	status, err := pr.s.db.GetPullStatus(pr.pull)
	if err != nil {
		pr.s.t.Fatal(err)
	}
	return &command.Context{
		HeadRepo: pr.head,
		Pull:     pr.pull,
		Scope:    tally.NoopScope,
		User:     models.User{Username: user},
		Log:      pr.s.log,
		PullRequestStatus: models.PullReqStatus{
			ApprovalStatus:  models.ApprovalStatus{IsApproved: true},
			MergeableStatus: models.MergeableStatus{IsMergeable: true},
		},
		PullStatus: status,
	}
}

// projectContexts clones the pull request (as Atlantis does before reading atlantis.yaml), parses and validates
// atlantis.yaml against the server's config, and builds the project contexts of cmd for its one project.
func (pr *pullRequest) projectContexts(cmdCtx *command.Context, cmd command.Name) []command.ProjectContext {
	t := pr.s.t
	t.Helper()
	cloneDir, err := pr.s.workingDir.Clone(pr.s.log, pr.head, pr.pull, "default")
	if err != nil {
		t.Fatalf("clone: %v", err)
	}
	pr.cloneDir = cloneDir
	repoCfg, err := pr.s.parser.ParseRepoCfg(cloneDir, pr.s.globalCfg, repoID, pr.pull.BaseBranch)
	if err != nil {
		t.Fatalf("Atlantis refuses atlantis.yaml: %v", err)
	}
	project := repoCfg.Projects[0]
	if pr.project != "" {
		found := slices.IndexFunc(repoCfg.Projects, func(p valid.Project) bool { return p.GetName() == pr.project })
		if found < 0 {
			t.Fatalf("atlantis.yaml has no project %q", pr.project)
		}
		project = repoCfg.Projects[found]
	} else if len(repoCfg.Projects) != 1 {
		t.Fatalf("atlantis.yaml: want one project, got %d", len(repoCfg.Projects))
	}
	merged := pr.s.globalCfg.MergeProjectCfg(pr.s.log, repoID, project, repoCfg)
	return pr.s.ctxBuilder.BuildProjectContext(cmdCtx, cmd, "", merged, nil, cloneDir,
		repoCfg.Automerge != nil && *repoCfg.Automerge, false, false, false, false, pr.s.tf)
}

// stage is what one command did: its result as recorded, the comment Atlantis posts on the pull request,
// and its job (the output Atlantis streams to the job page linked from the commit status).
type stage struct {
	result  command.ProjectResult
	comment string
	jobID   string
}

// jobOutput waits (briefly: the handler copies lines asynchronously) for the job's output to contain want.
func (s *server) jobOutput(jobID string, want string) string {
	var text string
	for range 50 {
		text = strings.Join(s.jobs.GetProjectOutputBuffer(jobID).Buffer, "\n")
		if strings.Contains(text, want) {
			break
		}
		time.Sleep(40 * time.Millisecond)
	}
	return text
}

func (pr *pullRequest) record(cmdCtx *command.Context, ctx command.ProjectContext, out command.ProjectCommandOutput, pullCmd events.PullCommand) stage {
	t := pr.s.t
	t.Helper()
	result := command.ProjectResult{
		ProjectCommandOutput: out, Command: ctx.CommandName, RepoRelDir: ctx.RepoRelDir,
		Workspace: ctx.Workspace, ProjectName: ctx.ProjectName,
	}
	if _, err := pr.s.db.UpdatePullWithResults(pr.pull, []command.ProjectResult{result}); err != nil {
		t.Fatal(err)
	}
	comment := pr.s.renderer.Render(cmdCtx, command.Result{ProjectResults: []command.ProjectResult{result}}, pullCmd)
	t.Logf("pull request comment after %s:\n%s", ctx.CommandName, comment)
	return stage{result: result, comment: comment, jobID: ctx.JobID}
}

// autoplan is what Atlantis does when the pull request is opened: plan, then the policy check.
func (pr *pullRequest) autoplan() (plan stage, policyCheck stage) {
	t := pr.s.t
	t.Helper()
	cmdCtx := pr.commandContext(prAuthor)
	cmdCtx.Trigger = command.AutoTrigger
	contexts := pr.projectContexts(cmdCtx, command.Plan)
	if len(contexts) != 2 || contexts[1].CommandName != command.PolicyCheck {
		t.Fatalf("with policy checks enabled, a plan builds a plan and a policy_check context; got %d", len(contexts))
	}
	planCmd := &events.CommentCommand{Name: command.Plan}
	plan = pr.record(cmdCtx, contexts[0], pr.s.runner.Plan(contexts[0]), planCmd)
	if plan.result.Error != nil || plan.result.Failure != "" {
		t.Fatalf("plan failed: %v %s", plan.result.Error, plan.result.Failure)
	}
	policyCheck = pr.record(cmdCtx, contexts[1], pr.s.runner.PolicyCheck(contexts[1]), events.PolicyCheckCommand{})
	return plan, policyCheck
}

// comment runs a pull request comment (e.g. "atlantis apply -p example-terraform") as user, parsed by Atlantis.
func (pr *pullRequest) comment(user string, text string) stage {
	t := pr.s.t
	t.Helper()
	parsed := pr.s.commentParser.Parse(text, models.Github)
	if parsed.CommentResponse != "" || parsed.Command == nil {
		t.Fatalf("Atlantis does not accept the comment %q: %s", text, parsed.CommentResponse)
	}
	cmdCtx := pr.commandContext(user)
	cmdCtx.Trigger = command.CommentTrigger
	cmdCtx.PolicySet = parsed.Command.PolicySet
	cmdCtx.ClearPolicyApproval = parsed.Command.ClearPolicyApproval
	contexts := pr.projectContexts(cmdCtx, parsed.Command.Name)
	if len(contexts) != 1 {
		t.Fatalf("%q: want one project context, got %d", text, len(contexts))
	}
	ctx := contexts[0]
	if parsed.Command.ProjectName != "" && parsed.Command.ProjectName != ctx.ProjectName {
		t.Fatalf("%q names project %q, the repository has %q", text, parsed.Command.ProjectName, ctx.ProjectName)
	}
	var out command.ProjectCommandOutput
	switch parsed.Command.Name {
	case command.Apply:
		out = pr.s.runner.Apply(ctx)
	case command.ApprovePolicies:
		out = pr.s.runner.ApprovePolicies(ctx)
	default:
		t.Fatalf("the harness runs apply and approve_policies comments, not %q", text)
	}
	return pr.record(cmdCtx, ctx, out, parsed.Command)
}

// appliedAddresses reads the state terraform wrote in Atlantis's checkout: what was really applied.
func (pr *pullRequest) appliedAddresses() []string {
	t := pr.s.t
	t.Helper()
	data, err := os.ReadFile(filepath.Join(pr.cloneDir, "terraform.tfstate"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var state struct {
		Resources []struct {
			Type      string `json:"type"`
			Name      string `json:"name"`
			Instances []struct {
				IndexKey any `json:"index_key"`
			} `json:"instances"`
		} `json:"resources"`
	}
	if err := json.Unmarshal(data, &state); err != nil {
		t.Fatal(err)
	}
	var addresses []string
	for _, r := range state.Resources {
		for _, i := range r.Instances {
			address := r.Type + "." + r.Name
			if i.IndexKey != nil {
				address += fmt.Sprintf("[%v]", i.IndexKey)
			}
			addresses = append(addresses, address)
		}
	}
	return addresses
}

// approveDesign uploads and approves a design of the example package with the platform team's key.
func approveDesign(t *testing.T, designFile string) {
	t.Helper()
	approvePackageDesign(t, packageID, []byte(readExample(t, "terraform", designFile)))
}

// approvePackageDesign uploads and approves a design of package id with the platform team's key.
func approvePackageDesign(t *testing.T, id string, design []byte) {
	t.Helper()
	base := strings.TrimRight(os.Getenv("TFGATE_BASE_URL"), "/") + "/v1/analysis/conformance/packages/" + id
	for _, call := range []struct{ method, url, contentType string }{
		{http.MethodPut, base, "application/yaml"},
		{http.MethodPost, base + "/approve", "application/json"},
	} {
		body := design
		if call.method == http.MethodPost {
			body = nil
		}
		req, err := http.NewRequest(call.method, call.url, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Api-Key", os.Getenv("TFGATE_HARNESS_ADMIN_KEY"))
		req.Header.Set("Content-Type", call.contentType)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = res.Body.Close()
		if res.StatusCode >= 300 {
			t.Fatalf("%s %s: %s", call.method, call.url, res.Status)
		}
	}
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=Dev", "-c", "user.email=dev@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func writeFile(t *testing.T, path string, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
