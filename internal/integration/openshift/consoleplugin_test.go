package openshift

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/operands/consoleplugin"
)

// consolePlugins reads the Console operator configuration's spec.plugins.
func consolePlugins(ctx context.Context) ([]string, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(consoleplugin.ConsoleConfigKind)
	if err := k.Get(ctx, client.ObjectKey{Name: hco.ClusterConfigName}, u); err != nil {
		return nil, err
	}
	plugins, _, err := unstructured.NestedStringSlice(u.Object, "spec", "plugins")
	return plugins, err
}

// setConsolePlugins sets the Console operator configuration's spec.plugins
// as an admin would, creating the configuration if need be.
func setConsolePlugins(t *testing.T, plugins ...string) {
	t.Helper()
	ctx := context.Background()
	testenv.Eventually(t, "the Console configuration's plugins set", func() error {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(consoleplugin.ConsoleConfigKind)
		err := k.Get(ctx, client.ObjectKey{Name: hco.ClusterConfigName}, u)
		if client.IgnoreNotFound(err) != nil {
			return err
		}
		exists := err == nil
		u.SetName(hco.ClusterConfigName)
		list := make([]any, len(plugins))
		for i, p := range plugins {
			list[i] = p
		}
		if err := unstructured.SetNestedSlice(u.Object, list, "spec", "plugins"); err != nil {
			return err
		}
		_ = unstructured.SetNestedField(u.Object, "Managed", "spec", "managementState")
		if exists {
			return k.Update(ctx, u)
		}
		return k.Create(ctx, u)
	})
}

func expectConsolePlugins(t *testing.T, want ...string) {
	t.Helper()
	testenv.Eventually(t, fmt.Sprintf("the console's plugins %v", want), func() error {
		got, err := consolePlugins(context.Background())
		if err != nil {
			return err
		}
		if !slices.Equal(got, want) {
			return fmt.Errorf("plugins %v", got)
		}
		return nil
	})
}

// On OpenShift with both images, a default HyperConverged gets upstream's
// console plugin and proxy (the module's unit test compares each object
// with upstream's handlers' output), each taken by the API server as sent,
// nothing pruned; the plugin's name is added to the console's other
// plugins, put back when an admin takes it out, and removed with the
// HyperConverged, the others kept. The UI features an admin edits are
// kept, the operator's keys are not.
func TestConsolePlugin(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	setConsolePlugins(t, "monitoring-plugin", "networking-console-plugin")
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: ns}}
	testenv.CreateForTest(t, k, hc)

	facts := hco.OfflineFacts(operatorEnv)
	facts.Platform = hco.Platform{OpenShift: true, IPStack: hco.IPv4SingleStack}
	built, err := consoleplugin.New().Desired(hc.DeepCopy(), facts)
	if err != nil {
		t.Fatal(err)
	}
	// A Deployment's replicas follow the node facts, which differ offline.
	expectStoredAsSent(t, built, func(kind, field string) bool { return kind == "Deployment" && field == "spec" })
	expectConsolePlugins(t, "monitoring-plugin", "networking-console-plugin", consoleplugin.PluginName)

	setConsolePlugins(t, "monitoring-plugin")
	expectConsolePlugins(t, "monitoring-plugin", consoleplugin.PluginName)

	// An admin's edit of a feature is kept; the version is the operator's.
	testenv.Eventually(t, "the features edited", func() error {
		cm := &corev1.ConfigMap{}
		if err := k.Get(ctx, client.ObjectKey{Namespace: ns, Name: consoleplugin.FeaturesConfigMap}, cm); err != nil {
			return err
		}
		cm.Data["loadBalancerEnabled"] = "false"
		cm.Data[consoleplugin.VersionKey] = "0.0.1"
		return k.Update(ctx, cm)
	})
	testenv.Eventually(t, "the admin's feature kept, the version put back", func() error {
		cm := &corev1.ConfigMap{}
		if err := k.Get(ctx, client.ObjectKey{Namespace: ns, Name: consoleplugin.FeaturesConfigMap}, cm); err != nil {
			return err
		}
		if cm.Data[consoleplugin.VersionKey] != operatorEnv.Version || cm.Data["loadBalancerEnabled"] != "false" {
			return fmt.Errorf("features %v", cm.Data)
		}
		return nil
	})

	testenv.DeleteAndWait(t, k, hc.DeepCopy())
	expectConsolePlugins(t, "monitoring-plugin")
	cp := &unstructured.Unstructured{}
	cp.SetGroupVersionKind(consoleplugin.ConsolePluginKind)
	err = k.Get(ctx, client.ObjectKey{Name: consoleplugin.PluginName}, cp)
	assert.True(t, client.IgnoreNotFound(err) == nil && err != nil, "the ConsolePlugin is deleted with the HyperConverged: %v", err)
}
