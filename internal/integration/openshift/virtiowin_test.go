package openshift

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/operands/virtiowin"
)

// On OpenShift the virtio-win ConfigMap names the image, and any
// authenticated user may read it (the Role and RoleBinding), and only it.
func TestVirtioWinReadableByEveryUser(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	testenv.CreateForTest(t, k, &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: ns}})

	cfg := rest.CopyConfig(env.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "alice", Groups: []string{"system:authenticated"}}
	alice, err := client.New(cfg, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{}
	testenv.Eventually(t, "the virtio-win ConfigMap readable by alice", func() error {
		return alice.Get(ctx, client.ObjectKey{Namespace: ns, Name: virtiowin.ObjectName}, cm)
	})
	assert.Equal(t, operatorEnv.Images[virtiowin.ImageKey], cm.Data[virtiowin.ImageDataKey])
	err = alice.Get(ctx, client.ObjectKey{Namespace: ns, Name: "nginx-conf"}, &corev1.ConfigMap{})
	assert.True(t, apierrors.IsForbidden(err), "another ConfigMap is not alice's to read: %v", err)
}
