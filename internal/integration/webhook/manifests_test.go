package webhook

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/webhook"
)

// manifests reads the YAML documents of config/webhook/<file>.
func manifests(t *testing.T, file string) [][]byte {
	t.Helper()
	root, err := testenv.RepoRoot()
	require.NoError(t, err)
	raw, err := os.ReadFile(filepath.Join(root, "config", "webhook", file))
	require.NoError(t, err)
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(raw)))
	var docs [][]byte
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return docs
		}
		require.NoError(t, err)
		if len(bytes.TrimSpace(doc)) > 0 {
			docs = append(docs, doc)
		}
	}
}

// TestManifestsAreAcceptedByTheAPIServer creates the Deployment, Service and
// RBAC of config/webhook with strict field validation (nothing runs them here).
func TestManifestsAreAcceptedByTheAPIServer(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	for _, file := range []string{"rbac.yaml", "service.yaml", "deployment.yaml"} {
		for _, doc := range manifests(t, file) {
			u := &unstructured.Unstructured{}
			require.NoError(t, yaml.Unmarshal(doc, &u.Object), file)
			require.NoError(t, k.Create(ctx, u, client.FieldValidation(metav1.FieldValidationStrict)), "%s: %s %s", file, u.GetKind(), u.GetName())
			t.Cleanup(func() { _ = k.Delete(ctx, u) })
		}
	}
}

func TestDeploymentIsHighlyAvailableAndLockedDown(t *testing.T) {
	var d appsv1.Deployment
	require.NoError(t, yaml.UnmarshalStrict(manifests(t, "deployment.yaml")[0], &d))
	assert.Equal(t, int32(2), *d.Spec.Replicas)
	pod := d.Spec.Template.Spec
	require.Len(t, pod.Containers, 1)
	c := pod.Containers[0]
	assert.Equal(t, "webhook", c.Args[0], "runs the webhook subcommand")
	assert.True(t, *pod.SecurityContext.RunAsNonRoot)
	assert.True(t, *c.SecurityContext.ReadOnlyRootFilesystem)
	assert.False(t, *c.SecurityContext.AllowPrivilegeEscalation)
	assert.NotNil(t, c.ReadinessProbe)
	assert.NotNil(t, c.LivenessProbe)
	assert.False(t, c.Resources.Requests.Cpu().IsZero())
	assert.False(t, c.Resources.Limits.Memory().IsZero())
}

func TestWebhookConfigurationFailsClosedOnAllThreeOperations(t *testing.T) {
	var vwc admissionregistrationv1.ValidatingWebhookConfiguration
	require.NoError(t, yaml.UnmarshalStrict(manifests(t, "validatingwebhookconfiguration.yaml")[0], &vwc))
	require.Len(t, vwc.Webhooks, 2)
	w := vwc.Webhooks[0]
	assert.Equal(t, webhookName, w.Name)
	guard := vwc.Webhooks[1]
	assert.Equal(t, webhook.NamespacePath, *guard.ClientConfig.Service.Path)
	assert.Equal(t, admissionregistrationv1.Fail, *guard.FailurePolicy)
	assert.Equal(t, map[string]string{"kubernetes.io/metadata.name": ns}, guard.ObjectSelector.MatchLabels, "the operator namespace's deletion only")
	assert.Equal(t, []admissionregistrationv1.OperationType{admissionregistrationv1.Delete}, guard.Rules[0].Operations)
	assert.Equal(t, admissionregistrationv1.Fail, *w.FailurePolicy)
	assert.LessOrEqual(t, *w.TimeoutSeconds, int32(10))
	assert.Equal(t, webhook.Path, *w.ClientConfig.Service.Path)
	require.Len(t, w.Rules, 1)
	ops := w.Rules[0].Operations
	for _, op := range []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update, admissionregistrationv1.Delete} {
		assert.True(t, slices.Contains(ops, op), "%s in %v", op, ops)
	}
	assert.Equal(t, []string{"hyperconvergeds"}, w.Rules[0].Resources, "not the status subresource")
}
