// Package localcluster starts a local Kubernetes control plane (etcd and
// kube-apiserver built from source into bin/k8s) for `make run` and the
// benchmarks, installs the CRDs, and writes a kubeconfig that the stock
// binary, kubectl or any client can use.
//
// It is for local development and measurement, not for tests (use
// internal/testenv) and not for production. It must not download anything.
package localcluster
