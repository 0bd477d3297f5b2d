package main

import (
	"context"
	"fmt"
	"os"
	"testing"

	"go.uber.org/zap/zapcore"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	kvv1 "kubevirt.io/api/core/v1"
	sspv1beta3 "kubevirt.io/ssp-operator/api/v1beta3"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/operands"
	"github.com/hcokit/hcokit/operands/aaq"
	aaqv1alpha1 "github.com/hcokit/hcokit/operands/aaq/api/v1alpha1"
	"github.com/hcokit/hcokit/operands/clidownload"
	"github.com/hcokit/hcokit/operands/filerestore"
	frv1alpha1 "github.com/hcokit/hcokit/operands/filerestore/api/v1alpha1"
	"github.com/hcokit/hcokit/operands/hpp"
	hppv1beta1 "github.com/hcokit/hcokit/operands/hpp/api/v1beta1"
	"github.com/hcokit/hcokit/operands/kubevirt"
	"github.com/hcokit/hcokit/operands/migcontroller"
	migv1alpha1 "github.com/hcokit/hcokit/operands/migcontroller/api/v1alpha1"
	"github.com/hcokit/hcokit/operands/namespacepolicy"
	"github.com/hcokit/hcokit/operands/priorityclass"
	"github.com/hcokit/hcokit/operands/ssp"
)

const ns = hcov1.DefaultNamespace

var env *testenv.Env

func TestMain(m *testing.M) {
	testenv.Main(m, testenv.Options{AddToScheme: []func(*runtime.Scheme) error{hcov1.AddToScheme, operands.AddToScheme}},
		func(e *testenv.Env) {
			env = e
			if err := startOperator(); err != nil {
				fmt.Fprintln(os.Stderr, "FAIL: start the distribution's operator:", err)
				os.Exit(1)
			}
		})
}

// startOperator runs the distribution's registry in a manager, as run does.
func startOperator() error {
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.Level(zapcore.ErrorLevel)))
	if err := env.Client.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		return err
	}
	reg, err := newRegistry()
	if err != nil {
		return err
	}
	_, err = env.StartOperator(reg, hco.Environment{Namespace: ns, Version: distributionVersion,
		Images: map[string]string{clidownload.ImageKey: downloadImage}}, testenv.OperatorOptions{})
	return err
}

func TestRegistryIsTheDistributions(t *testing.T) {
	reg, err := newRegistry()
	if err != nil {
		t.Fatal(err)
	}
	var enabled []string
	for _, op := range reg.Operands() {
		enabled = append(enabled, op.Name())
	}
	want := fmt.Sprint([]string{"priorityclass", kubevirt.Name, "cdi", "cnao", "aaq", migcontroller.Name, ssp.Name, "clidownload", "namespacepolicy", "distribution-info"})
	if fmt.Sprint(enabled) != want {
		t.Errorf("enabled operands = %v, want %s", enabled, want)
	}
	if op, _ := reg.Get(ssp.Name); op != (acmeSSP{}) {
		t.Errorf("operand %q is %T, want the acmeSSP variant", ssp.Name, op)
	}
}

func TestDistributionAgainstTheAPIServer(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	k := env.Client
	// The HyperConverged asks for the hostpath provisioner, which the
	// distribution disabled: none must appear.
	hc := &hcov1.HyperConverged{
		ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: ns},
		Spec: hcov1.HyperConvergedSpec{Storage: &hcov1.StorageConfig{HostpathProvisioner: &hcov1.HostpathProvisionerConfig{
			StoragePools: []hcov1.HostpathStoragePool{{Name: "local", Path: "/var/hpvolumes"}},
		}}},
	}
	if err := k.Create(ctx, hc); err != nil {
		t.Fatalf("create HyperConverged: %v", err)
	}

	cm := &corev1.ConfigMap{}
	testenv.Eventually(t, "the distribution's ConfigMap", func() error {
		return k.Get(ctx, client.ObjectKey{Namespace: ns, Name: infoName}, cm)
	})
	if cm.Data["distribution"] != distributionName || cm.Data["version"] != distributionVersion {
		t.Errorf("ConfigMap data = %v, want distribution %s version %s", cm.Data, distributionName, distributionVersion)
	}
	if cm.Labels["app.kubernetes.io/managed-by"] != "hco-operator" {
		t.Errorf("ConfigMap labels = %v, want the managed-by label", cm.Labels)
	}

	// Operands are applied concurrently: wait for each.
	cr := &sspv1beta3.SSP{}
	testenv.Eventually(t, "the SSP variant", func() error { return k.Get(ctx, client.ObjectKey{Namespace: ns, Name: ssp.CRName}, cr) })
	if cr.Spec.CommonTemplates.Namespace != templatesNamespace {
		t.Errorf("SSP common templates namespace = %q, want the distribution's %q", cr.Spec.CommonTemplates.Namespace, templatesNamespace)
	}
	if cr.Labels[tierLabel] != "premium" {
		t.Errorf("SSP labels = %v, want %s=premium", cr.Labels, tierLabel)
	}
	testenv.Eventually(t, "the stock KubeVirt operand", func() error {
		return k.Get(ctx, client.ObjectKey{Namespace: ns, Name: kubevirt.CRName}, &kvv1.KubeVirt{})
	})
	// Stock modules beyond the operand CRs: the PriorityClass and the
	// MigController, which the operator keeps as it built them.
	testenv.Eventually(t, "the PriorityClass", func() error {
		return k.Get(ctx, client.ObjectKey{Name: priorityclass.ObjectName}, &schedulingv1.PriorityClass{})
	})
	mig := &migv1alpha1.MigController{}
	testenv.Eventually(t, "the MigController", func() error {
		return k.Get(ctx, client.ObjectKey{Namespace: ns, Name: migcontroller.CRName}, mig)
	})
	mig.Spec.ImagePullPolicy = corev1.PullAlways
	if err := k.Update(ctx, mig); err != nil {
		t.Fatalf("edit the MigController: %v", err)
	}
	testenv.Eventually(t, "the MigController's edit reverted", func() error {
		got := &migv1alpha1.MigController{}
		if err := k.Get(ctx, client.ObjectKeyFromObject(mig), got); err != nil {
			return err
		}
		if got.Spec.ImagePullPolicy != corev1.PullIfNotPresent {
			return fmt.Errorf("imagePullPolicy %q", got.Spec.ImagePullPolicy)
		}
		return nil
	})
	// AAQ is made while the HyperConverged enables it, and removed when it
	// no longer does.
	setAAQ := func(enable bool) {
		t.Helper()
		patch := fmt.Sprintf(`{"spec":{"deployment":{"applicationAwareConfig":{"enable":%t}}}}`, enable)
		if err := k.Patch(ctx, &hcov1.HyperConverged{ObjectMeta: hc.ObjectMeta}, client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
			t.Fatal(err)
		}
	}
	setAAQ(true)
	testenv.Eventually(t, "the AAQ", func() error {
		return k.Get(ctx, client.ObjectKey{Name: aaq.CRName}, &aaqv1alpha1.AAQ{})
	})
	setAAQ(false)
	testenv.Eventually(t, "the AAQ removed", func() error {
		err := k.Get(ctx, client.ObjectKey{Name: aaq.CRName}, &aaqv1alpha1.AAQ{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("still there (%v)", err)
	})

	// The distribution disabled the file restore module: no FileRestoreOperator.
	fros := &frv1alpha1.FileRestoreOperatorList{}
	if err := k.List(ctx, fros); err != nil {
		t.Fatalf("list FileRestoreOperators: %v", err)
	}
	if len(fros.Items) != 0 {
		t.Errorf("found FileRestoreOperator %q; the distribution disabled %s", fros.Items[0].Name, filerestore.Name)
	}

	hpps := &hppv1beta1.HostPathProvisionerList{}
	if err := k.List(ctx, hpps); err != nil {
		t.Fatalf("list HostPathProvisioners: %v", err)
	}
	if len(hpps.Items) != 0 {
		t.Errorf("found HostPathProvisioner %q; the distribution disabled %s", hpps.Items[0].Name, hpp.Name)
	}

	// The stock CLI-download operand serves virtctl from the distribution's
	// image, and once applied it stays as it is: the operator does not fight
	// the API server's defaults.
	deploy := &appsv1.Deployment{}
	testenv.Eventually(t, "the CLI-download Deployment", func() error {
		return k.Get(ctx, client.ObjectKey{Namespace: ns, Name: clidownload.ObjectName}, deploy)
	})
	if img := deploy.Spec.Template.Spec.Containers[0].Image; img != downloadImage {
		t.Errorf("CLI-download image = %q, want %q", img, downloadImage)
	}
	testenv.Eventually(t, "the CLI-download Service", func() error {
		return k.Get(ctx, client.ObjectKey{Namespace: ns, Name: clidownload.ObjectName}, &corev1.Service{})
	})
	// A change to the HyperConverged that is not about CLI download triggers
	// a reconcile; the Deployment must not be rewritten. The reconcile has
	// applied every operand once status.observedGeneration reaches the new
	// generation (status is written last).
	got := &hcov1.HyperConverged{}
	testenv.Eventually(t, "update the HyperConverged (a status write of the operator may conflict)", func() error {
		if err := k.Get(ctx, client.ObjectKeyFromObject(hc), got); err != nil {
			return err
		}
		got.Spec.Virtualization.LiveMigrationConfig.ProgressTimeout = ptr.To[int64](200)
		return k.Update(ctx, got)
	})
	testenv.Eventually(t, "the change reconciled", func() error {
		now := &hcov1.HyperConverged{}
		if err := k.Get(ctx, client.ObjectKeyFromObject(hc), now); err != nil {
			return err
		}
		if now.Status.ObservedGeneration != got.Generation {
			return fmt.Errorf("observedGeneration %d, generation %d", now.Status.ObservedGeneration, got.Generation)
		}
		return nil
	})
	again := &appsv1.Deployment{}
	if err := k.Get(ctx, client.ObjectKeyFromObject(deploy), again); err != nil {
		t.Fatal(err)
	}
	if again.ResourceVersion != deploy.ResourceVersion {
		t.Errorf("the CLI-download Deployment was rewritten (resourceVersion %s -> %s)", deploy.ResourceVersion, again.ResourceVersion)
	}

	// The HyperConverged's related objects include the distribution's ConfigMap.
	testenv.Eventually(t, "the ConfigMap among the related objects", func() error {
		got := &hcov1.HyperConverged{}
		if err := k.Get(ctx, client.ObjectKeyFromObject(hc), got); err != nil {
			return err
		}
		for _, r := range got.Status.RelatedObjects {
			if r.Kind == "ConfigMap" && r.Name == infoName {
				return nil
			}
		}
		return fmt.Errorf("related objects %v", got.Status.RelatedObjects)
	})

	// Deleting the HyperConverged deletes what the stock modules made.
	if err := k.Delete(ctx, hc); err != nil {
		t.Fatal(err)
	}
	for _, o := range []client.Object{
		&schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: priorityclass.ObjectName}},
		&migv1alpha1.MigController{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: migcontroller.CRName}},
		&admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: namespacepolicy.PolicyName}},
		&admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: namespacepolicy.BindingName}},
		&hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: hcov1.HyperConvergedName}},
	} {
		testenv.Eventually(t, fmt.Sprintf("%T %s deleted", o, o.GetName()), func() error {
			err := k.Get(ctx, client.ObjectKeyFromObject(o), o)
			if apierrors.IsNotFound(err) {
				return nil
			}
			return fmt.Errorf("still there (%v)", err)
		})
	}
}
