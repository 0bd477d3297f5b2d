package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	hcov1 "github.com/hcokit/hcokit/api/v1"
)

// subject is an operator binary the live benchmarks drive, and how it is
// started: hcokit's, or upstream HCO's beside it.
type subject struct {
	// name labels the run in the progress lines and names its state
	// directory and its copy of the binary.
	name string
	// who is its index in the turns (0 hcokit, 1 upstream).
	who int
	// binary is the operator to run; args and env (added to the bench's
	// own environment) are how it is started, dir its working directory
	// ("" for the bench's).
	binary string
	args   []string
	env    []string
	dir    string
	// hcCRD is a directory holding the HyperConverged CRD to install; ""
	// installs hcokit's (config/crd/bases).
	hcCRD string
	// objects are created before the operator starts: what it looks up
	// about itself. Nothing runs them.
	objects []client.Object
	// operandCRs are the resources of the operand CRs the operator creates
	// for a HyperConverged on this control plane: "all operand CRs exist"
	// is when the last of them is stored.
	operandCRs []string
	// foregroundGC: the operator deletes with propagationPolicy=Foreground
	// and waits, which needs a garbage collector (see foregroundGC).
	foregroundGC bool
	// conversion says whether `binary webhook` serves the HyperConverged
	// CRD's conversion; notConverted says why not, when it does not.
	conversion   bool
	notConverted string
}

// hcokitSubject is `make bench`'s stock binary.
func hcokitSubject(o options) subject {
	args := []string{"--metrics-bind-address=0", "--health-probe-bind-address=0", fmt.Sprintf("--leader-elect=%t", o.leaderElect)}
	if o.profileDir != "" {
		args = append(args, "--pprof-bind-address="+pprofAddr)
	}
	return subject{
		name:       "hcokit",
		binary:     o.operator,
		args:       args,
		env:        []string{"OPERATOR_NAMESPACE=" + hcov1.DefaultNamespace, "HCO_KV_IO_VERSION=bench"},
		operandCRs: []string{"kubevirts", "cdis", "networkaddonsconfigs", "ssps"},
		conversion: true,
	}
}

// upstreamOperator is the name of upstream's operator: its Deployment, its
// container, its command.
const upstreamOperator = "hyperconverged-cluster-operator"

// upstreamSubject is upstream HCO's operator, built from its source tree
// (the commit's vendor directory, upstream's release flags) into out, and
// started as its documented local run (docs/run-locally.md): the
// environment of the operator's container in deploy/operator.yaml,
// OSDK_FORCE_RUN_MODE=local, the image's working directory (assets/: the
// upgrade patches it reads at start), its own HyperConverged CRD
// (deploy/crds/hco00.crd.yaml) and its Deployment (the manifest's own, as
// an object: in local mode the operator reads it to own what it creates).
// Local mode is upstream's way to run outside a cluster: no leader election
// (hcokit's is off by default in the bench too), no OperatorCondition (which
// plain Kubernetes without OLM has not either) and no lookup of its own Pod,
// ReplicaSet and CSV (three GETs at start in a cluster). Nothing of
// upstream's is changed.
func upstreamSubject(o options, tree, out string) (subject, error) {
	if o.leaderElect {
		return subject{}, fmt.Errorf("-upstream-tree: upstream runs in local mode, which has no leader election: drop -leader-elect")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return subject{}, err
	}
	binary := filepath.Join(out, upstreamOperator)
	fmt.Fprintln(os.Stderr, "bench: building upstream's operator from", tree, "...")
	build := exec.Command("go", "build", "-ldflags=-w -s", "-o", binary, "./cmd/"+upstreamOperator)
	build.Dir = tree
	// Its own module and vendor directory, nothing of the bench's.
	build.Env = append(os.Environ(), "GOFLAGS=-mod=vendor", "GOWORK=off")
	if msg, err := build.CombinedOutput(); err != nil {
		return subject{}, fmt.Errorf("build upstream's operator in %s: %w\n%s", tree, err, msg)
	}

	crdDir := filepath.Join(out, "crd")
	if err := os.MkdirAll(crdDir, 0o755); err != nil {
		return subject{}, err
	}
	crd, err := os.ReadFile(filepath.Join(tree, "deploy", "crds", "hco00.crd.yaml"))
	if err != nil {
		return subject{}, fmt.Errorf("upstream's HyperConverged CRD: %w", err)
	}
	if err := os.WriteFile(filepath.Join(crdDir, "hco00.crd.yaml"), crd, 0o644); err != nil {
		return subject{}, err
	}
	// On Kubernetes upstream needs cert-manager (its deploy.sh installs it
	// first): a self-signed Issuer is one of its operands, and without the
	// kind it stops at it, before the SSP. The CRDs only: nothing runs them.
	certManager, err := crdsOf(filepath.Join(tree, "deploy", "cert-manager.yaml"))
	if err != nil {
		return subject{}, err
	}
	if err := os.WriteFile(filepath.Join(crdDir, "cert-manager.crds.yaml"), certManager, 0o644); err != nil {
		return subject{}, err
	}

	deployment, err := upstreamDeployment(filepath.Join(tree, "deploy", "operator.yaml"))
	if err != nil {
		return subject{}, err
	}
	env := []string{"OSDK_FORCE_RUN_MODE=local"}
	for _, c := range deployment.Spec.Template.Spec.Containers {
		if c.Name != upstreamOperator {
			continue
		}
		for _, e := range c.Env {
			// The downward API's (POD_NAME) is not used in local mode.
			if e.ValueFrom == nil {
				env = append(env, e.Name+"="+e.Value)
			}
			if e.Name == "OPERATOR_NAMESPACE" && e.Value != hcov1.DefaultNamespace {
				return subject{}, fmt.Errorf("deploy/operator.yaml: upstream's operator runs in namespace %q, the bench's HyperConverged is in %q", e.Value, hcov1.DefaultNamespace)
			}
		}
	}
	if len(env) == 1 {
		return subject{}, fmt.Errorf("deploy/operator.yaml: no container %q with an environment", upstreamOperator)
	}
	// The manifest is applied into the operator's namespace.
	deployment.Namespace = hcov1.DefaultNamespace
	if o.profileDir != "" {
		env = append(env, "HCO_PPROF_ADDR="+pprofAddr)
	}
	return subject{
		who:    1,
		name:   "upstream",
		binary: binary,
		env:    env,
		dir:    filepath.Join(tree, "assets"),
		hcCRD:  crdDir,
		// Upstream deploys the SSP on OpenShift only (operandHandler.go);
		// hcokit wherever its CRD is served, as here.
		operandCRs:   []string{"kubevirts", "cdis", "networkaddonsconfigs"},
		objects:      []client.Object{deployment},
		foregroundGC: true,
		notConverted: "upstream's conversion is its webhook binary's, not run",
	}, nil
}

// crdsOf is the CustomResourceDefinitions of a multi-document manifest.
func crdsOf(path string) ([]byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out [][]byte
	for _, doc := range bytes.Split(raw, []byte("\n---")) {
		var head struct {
			Kind string `json:"kind"`
		}
		if err := yaml.Unmarshal(doc, &head); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if head.Kind == "CustomResourceDefinition" {
			out = append(out, doc)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no CustomResourceDefinition", path)
	}
	return bytes.Join(out, []byte("\n---")), nil
}

// upstreamDeployment is the operator's Deployment from upstream's manifest.
func upstreamDeployment(path string) (*appsv1.Deployment, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("upstream's operator manifest: %w", err)
	}
	for _, doc := range bytes.Split(raw, []byte("\n---")) {
		if !strings.Contains(string(doc), "kind: Deployment") {
			continue
		}
		d := &appsv1.Deployment{}
		if err := yaml.Unmarshal(doc, d); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if d.Kind == "Deployment" && d.Name == upstreamOperator {
			return d, nil
		}
	}
	return nil, fmt.Errorf("%s: no Deployment %q", path, upstreamOperator)
}
