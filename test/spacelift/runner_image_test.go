// Package spacelift checks examples/spacelift/runner-image/Dockerfile with Docker's own Dockerfile frontend
// (BuildKit's parser, instruction parser and linter, pinned in go.mod): docker cannot build here, so this is
// what `docker build` does before it pulls anything. It then writes the final stage's RUN steps, with the
// user each runs as, to $TFGATE_RUNNER_STEPS for test/examples/spacelift.test.ts, which runs the install
// and the smoke test in a sandbox.
package spacelift

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/linter"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
)

const (
	dockerfile  = "../../examples/spacelift/runner-image/Dockerfile"
	runnerImage = "public.ecr.aws/spacelift/runner-terraform"
	// Spacelift's documented run user: "spacelift", UID 1983.
	runUser = "spacelift"
)

// Step is one RUN of the final stage as the sandbox needs it.
type Step struct {
	User         string   `json:"user"`
	Script       string   `json:"script"`
	BindTargets  []string `json:"bind_targets"`
	CacheTargets []string `json:"cache_targets"`
}

func parseDockerfile(t *testing.T) (stages []instructions.Stage, metaArgs []instructions.ArgCommand, warnings []string) {
	t.Helper()
	f, err := os.Open(dockerfile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	result, err := parser.Parse(f)
	if err != nil {
		t.Fatalf("docker would refuse the Dockerfile: %v", err)
	}
	for _, w := range result.Warnings {
		warnings = append(warnings, w.Short)
	}
	lint := linter.New(&linter.Config{
		ExperimentalAll: true,
		Warn: func(rule, description, url, message string, location []parser.Range) {
			warnings = append(warnings, rule+": "+message)
		},
	})
	stages, metaArgs, err = instructions.Parse(result.AST, lint)
	if err != nil {
		t.Fatalf("docker would refuse the Dockerfile: %v", err)
	}
	return stages, metaArgs, warnings
}

func TestRunnerImageRecipe(t *testing.T) {
	stages, metaArgs, warnings := parseDockerfile(t)
	if len(warnings) > 0 {
		t.Errorf("docker build --check would warn:\n%s", strings.Join(warnings, "\n"))
	}
	if len(metaArgs) != 0 {
		t.Errorf("ARGs before FROM: %d; the base image is Spacelift's, not a variable", len(metaArgs))
	}
	if len(stages) != 1 {
		t.Fatalf("%d stages; the recipe builds on Spacelift's image in one stage", len(stages))
	}
	stage := stages[0]
	if !strings.HasPrefix(stage.BaseName, runnerImage+":") {
		t.Fatalf("FROM %s: the recipe must build on Spacelift's documented runner image %s", stage.BaseName, runnerImage)
	}

	user := runUser // the base image's own USER
	var steps []Step
	pinnedArg := false
	for _, cmd := range stage.Commands {
		switch c := cmd.(type) {
		case *instructions.ArgCommand:
			for _, arg := range c.Args {
				// No default: whoever builds the image chooses (and pins) the tfgate they reviewed.
				if arg.Key == "TFGATE_PACKAGE" && arg.Value == nil {
					pinnedArg = true
				}
			}
		case *instructions.UserCommand:
			user = c.User
		case *instructions.RunCommand:
			if !c.PrependShell || len(c.CmdLine) != 1 {
				t.Fatalf("RUN %v: use the shell form", c.CmdLine)
			}
			step := Step{User: user, Script: c.CmdLine[0]}
			// Mount options are read when the RUN is expanded; no build arg occurs in them.
			if err := c.Expand(func(word string) (string, error) { return word, nil }); err != nil {
				t.Fatal(err)
			}
			for _, m := range instructions.GetMounts(c) {
				switch m.Type {
				case instructions.MountTypeBind:
					step.BindTargets = append(step.BindTargets, m.Target)
				case instructions.MountTypeCache:
					step.CacheTargets = append(step.CacheTargets, m.Target)
				default:
					t.Errorf("RUN --mount=type=%s: the sandbox knows bind and cache mounts only", m.Type)
				}
			}
			steps = append(steps, step)
		case *instructions.CmdCommand, *instructions.EntrypointCommand:
			t.Errorf("%s: Spacelift ignores it (its worker is the container's root process)", cmd.Name())
		case *instructions.CopyCommand, *instructions.AddCommand:
			t.Errorf("%s: everything the image gets comes through npm in one RUN", cmd.Name())
		}
	}
	if !pinnedArg {
		t.Error("ARG TFGATE_PACKAGE (no default) is missing: the builder must choose the version")
	}
	if user != runUser {
		t.Errorf("the image ends as USER %q; Spacelift runs as %q", user, runUser)
	}
	installs := 0
	nodeAdded := false
	for _, step := range steps {
		// Spacelift's image (spacelift-io/runner-terraform, Alpine) has no Node.js: apk adds it, as root, first.
		if strings.HasPrefix(step.Script, "apk add ") && strings.Contains(step.Script, " nodejs") &&
			strings.Contains(step.Script, " npm") && step.User == "root" && installs == 0 {
			nodeAdded = true
		}
		if strings.Contains(step.Script, "npm install --global") {
			installs++
			if step.User != "root" {
				t.Errorf("npm install --global runs as %q: the global prefix is root's", step.User)
			}
			if !strings.Contains(step.Script, "--engine-strict") {
				t.Error("npm install without --engine-strict: an unsupported Node.js would only fail at run time")
			}
		}
	}
	if installs != 1 {
		t.Errorf("%d RUNs install tfgate; want one", installs)
	}
	if !nodeAdded {
		t.Error("no RUN adds Node.js and npm (apk add nodejs npm, as root) before the install: the base image has neither")
	}
	last := steps[len(steps)-1]
	if last.User != runUser || !strings.HasPrefix(last.Script, "tfgate ") {
		t.Errorf("the last RUN (%q as %q) must run tfgate as %s, proving the run user can", last.Script, last.User, runUser)
	}
	if out := os.Getenv("TFGATE_RUNNER_STEPS"); out != "" {
		data, err := json.MarshalIndent(steps, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(out, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A control: the linter does report problems, so "no warnings" above means something.
func TestLinterAndParserSeeProblems(t *testing.T) {
	result, err := parser.Parse(strings.NewReader("from " + runnerImage + ":latest as Runner\nUSER root\nRUN npm install --global tfgate\n"))
	if err != nil {
		t.Fatal(err)
	}
	var warnings []string
	lint := linter.New(&linter.Config{Warn: func(rule, _, _, _ string, _ []parser.Range) { warnings = append(warnings, rule) }})
	if _, _, err := instructions.Parse(result.AST, lint); err != nil {
		t.Fatal(err)
	}
	if len(warnings) == 0 {
		t.Fatal("the linter saw nothing wrong with a lower-case FROM and a capitalised stage name")
	}
}
