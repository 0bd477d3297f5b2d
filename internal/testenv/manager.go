package testenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// ManagerOptions are controller-runtime options for a manager inside a test
// process: no metrics or probe listeners, and no refusal of a controller
// name another manager of the same process already uses.
func ManagerOptions(scheme *runtime.Scheme) ctrl.Options {
	return ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	}
}

// RunManager starts mgr in the background and returns a function that stops
// it and waits until it has returned; calling it again does nothing.
func RunManager(mgr manager.Manager) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mgr.Start(ctx); err != nil && !errors.Is(err, context.Canceled) {
			fmt.Fprintln(os.Stderr, "testenv: manager stopped:", err)
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { cancel(); <-done }) }
}
