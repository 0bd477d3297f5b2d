// Package testenv starts a real kube-apiserver and etcd (envtest) for tests
// that check what a user can observe: reconcile, status, webhooks, deletion,
// upgrade.
//
// The binaries are built from source by hack/build-controlplane.sh (make
// controlplane) into bin/k8s at the repository root; KUBEBUILDER_ASSETS
// overrides that directory. The HyperConverged CRD (config/crd/bases) and the
// operand CRDs (config/crd/operands) are installed by default.
//
// A test package starts one shared control plane from TestMain:
//
//	var env *testenv.Env
//
//	func TestMain(m *testing.M) {
//		testenv.Main(m, testenv.Options{AddToScheme: []func(*runtime.Scheme) error{hcov1beta1.AddToScheme}},
//			func(e *testenv.Env) { env = e })
//	}
//
//	func TestSomething(t *testing.T) {
//		env.Require(t) // skips when the binaries are missing outside CI
//		_ = env.Client.Create(ctx, obj)
//	}
//
// When the binaries are missing, tests are skipped with a message saying to
// run make controlplane, except with CI=true, where that is a failure: CI
// never skips these tests silently.
//
// This package is for tests only. It must not be imported by non-test code,
// must not download anything (no envtest binary downloads, no setup-envtest)
// and must not hold package-level mutable state.
package testenv
