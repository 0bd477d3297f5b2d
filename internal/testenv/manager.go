package testenv

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	crwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
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

// WebhookManagerOptions are ManagerOptions serving webhooks on envtest's
// webhook address with its serving certificate, as `hco-operator webhook`
// serves them on a cluster.
func (e *Env) WebhookManagerOptions(scheme *runtime.Scheme) ctrl.Options {
	o := ManagerOptions(scheme)
	wio := e.Environment.WebhookInstallOptions
	o.WebhookServer = crwebhook.NewServer(crwebhook.Options{Host: wio.LocalServingHost, Port: wio.LocalServingPort, CertDir: wio.LocalServingCertDir})
	return o
}

// WaitWebhookServer waits, up to 20 s, until envtest's webhook address
// answers TLS.
func (e *Env) WaitWebhookServer() error {
	wio := e.Environment.WebhookInstallOptions
	addr := net.JoinHostPort(wio.LocalServingHost, strconv.Itoa(wio.LocalServingPort))
	deadline := time.Now().Add(20 * time.Second)
	for {
		conn, err := tls.DialWithDialer(&net.Dialer{Timeout: time.Second}, "tcp", addr, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // readiness probe only
		if err == nil {
			return conn.Close()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("webhook server at %s not up: %w", addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
