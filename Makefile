# hcokit: the two commands a newcomer needs are `make run` and `make test`.
SHELL := /usr/bin/env bash
GO ?= go
BIN := $(CURDIR)/bin
# VERSION is what `hco-operator version` prints.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo 0.0.0-dev)
# BUNDLE_VERSION is the OLM bundle's version (semver): the CSV
# hcokit-operator.v$(BUNDLE_VERSION) and the operator image tag it installs.
BUNDLE_VERSION ?= 0.1.0
# BUNDLE_IMAGE is the operator image repository the bundle installs (the
# committed bundle: the default).
BUNDLE_IMAGE ?= quay.io/hcokit/hco-operator
# IMAGE_DIGEST, when set (sha256:...), names the operator image by digest in
# `make manifests` and `make bundle` instead of by tag: what the image build
# printed; nothing is pulled to learn it.
IMAGE_DIGEST ?=
K8S_BIN := $(BIN)/k8s
export KUBEBUILDER_ASSETS ?= $(K8S_BIN)

.PHONY: all build test unit controlplane generate bundle chart verify bench fuzz run run-once manifests pin-images clean

all: build

## build: compile every package and the hco-operator binary into bin/.
build:
	$(GO) build ./...
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-X main.version=$(VERSION)" -o $(BIN)/hco-operator ./cmd/hco-operator

## run: a local control plane, the operator, examples/hyperconverged.yaml and live status until Ctrl-C.
run: controlplane build
	$(GO) run ./internal/cmd/hcolocal -operator $(BIN)/hco-operator -f examples/hyperconverged.yaml $(RUN_ARGS)

## run-once: like run, but exit once the HyperConverged has converged.
run-once:
	$(MAKE) run RUN_ARGS=--once

## controlplane: build kube-apiserver, etcd and kubectl from source into bin/k8s (once; ~15 min cold on 2 cores).
controlplane:
	hack/build-controlplane.sh $(K8S_BIN)

## test: unit and integration tests against a real kube-apiserver (builds the control plane first if missing),
## the tool module that checks the cnao/hpp mirrors against the upstream types, the install test (tools/install), the OLM bundle's
## checks and the Helm chart's (tools/chart, with Helm's library).
test: controlplane
	$(GO) test -count=1 ./...
	cd tools/upstreamapis && $(GO) test -count=1 ./...
	cd tools/install && $(GO) test -count=1 ./...
	cd tools/bundle && $(GO) test -count=1 ./...
	cd tools/chart && $(GO) test -count=1 ./...

## unit: the tests that need no control plane (integration tests skip outside CI), and the mirror checks.
unit:
	KUBEBUILDER_ASSETS=/nonexistent $(GO) test -count=1 ./...
	cd tools/upstreamapis && $(GO) test -count=1 ./...
	cd tools/bundle && KUBEBUILDER_ASSETS=/nonexistent $(GO) test -count=1 ./...
	cd tools/install && KUBEBUILDER_ASSETS=/nonexistent $(GO) test -count=1 ./...
	cd tools/chart && $(GO) test -count=1 ./...

## generate: regenerate deepcopy code and CRDs (config/crd), and write the component operators'
## versions and digests (config/operators/versions.csv) into their descriptions (operands/*/operator).
generate:
	hack/generate.sh
	cd tools/bundle && $(GO) run ./cmd/operators -root ../..

## bundle: regenerate the OLM bundle (bundle/, bundle.Dockerfile) from config/overlays/olm at BUNDLE_VERSION; see docs/olm.md.
bundle:
	cd tools/bundle && $(GO) run ./cmd/bundle -root ../.. -version $(BUNDLE_VERSION) -image $(BUNDLE_IMAGE) -digest "$(IMAGE_DIGEST)"

## chart: regenerate the Helm chart (charts/hcokit) from config/ at BUNDLE_VERSION; see docs/install.md.
chart:
	cd tools/install && $(GO) run ./cmd/chart -root ../.. -version $(BUNDLE_VERSION)

## verify: fail when generated files (the OLM bundle and the Helm chart too) are stale, or code is not gofmt-clean or vet-clean.
verify:
	hack/generate.sh --check
	cd tools/bundle && $(GO) run ./cmd/operators -root ../.. -check
	cd tools/bundle && $(GO) run ./cmd/bundle -root ../.. -version $(BUNDLE_VERSION) -check
	cd tools/install && $(GO) run ./cmd/chart -root ../.. -version $(BUNDLE_VERSION) -check
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }
	$(GO) vet ./...

## manifests: make config/ install VERSION (make manifests VERSION=1.2.3): the image of both
## Deployments (tagged VERSION, or by IMAGE_DIGEST when set) and the operator's HCO_KV_IO_VERSION (docs/install.md).
manifests:
	@case "$(IMAGE_DIGEST)" in ""|sha256:????????????????????????????????????????????????????????????????) ;; *) echo "IMAGE_DIGEST=$(IMAGE_DIGEST): want sha256: and 64 hex digits"; exit 1;; esac
	sed -i -E -e 's#image: quay.io/hcokit/hco-operator[:@].*#image: quay.io/hcokit/hco-operator$(if $(IMAGE_DIGEST),@$(IMAGE_DIGEST),:$(VERSION))#' config/manager/manager.yaml config/webhook/deployment.yaml
	sed -i -e '/name: HCO_KV_IO_VERSION/{n;s|value: .*|value: "$(VERSION)"|}' config/manager/manager.yaml

## pin-images: name the Dockerfiles' base images by digest as well as by tag, as their registries give it now (needs the registries; docs/olm.md).
pin-images:
	cd tools/install && $(GO) run ./cmd/pinimages -root ../..

## bench: one table: pure costs, and the stock binary on a local control plane (latencies and requests from the audit log, RSS). See docs/performance.md.
bench: controlplane build
	$(GO) run ./internal/cmd/hcobench -operator $(BIN)/hco-operator $(BENCH_ARGS)

## fuzz: run every fuzz target for FUZZTIME each (default 20s).
FUZZTIME ?= 20s
fuzz:
	hack/fuzz.sh $(FUZZTIME)

clean:
	rm -rf $(BIN)/hco-operator
