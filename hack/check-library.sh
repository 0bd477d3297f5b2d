#!/usr/bin/env bash
# Checks that hcokit works as a library for someone else's module: a
# throwaway module in a temporary directory outside the repository requires
# github.com/hcokit/hcokit, pointed at this checkout by the one replace
# directive a local check needs, and builds and runs a program that imports
# hco, render, every operand and every translator (and, blank, every other
# non-internal package). It fails if
#   - the program does not build or run,
#   - the throwaway go.mod needs any replace besides hcokit's own (no
#     replace for any Kubernetes or KubeVirt module), or
#   - a module the library pins (k8s.io/*, sigs.k8s.io/controller-runtime,
#     kubevirt.io/*) resolves to another version for the importer than in
#     the library's own go.mod.
#
# Needs only the Go module proxy (GOPROXY) and the module cache; it never
# changes the repository.
#
#   hack/check-library.sh
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MODULE=github.com/hcokit/hcokit
export GOWORK=off GOFLAGS=-mod=mod GOTOOLCHAIN=local

WORK="$(mktemp -d "${TMPDIR:-/tmp}/hcokit-check-library.XXXXXX")"
trap 'rm -rf "${WORK}"' EXIT
case "${WORK}/" in "${ROOT}/"*) echo "check-library: ${WORK} is inside the repository" >&2; exit 1 ;; esac

# Every importable package: not internal, not a command, not an example, not
# tests only (such as api, which holds the upstream parity test).
mapfile -t PACKAGES < <(cd "${ROOT}" && go list -f '{{if and .GoFiles (ne .Name "main")}}{{.ImportPath}}{{end}}' ./... |
	grep -v -e '/internal/' -e '/examples' | sed '/^$/d')
for want in hco render placement featuregates migration hostdevices \
	operands operands/kubevirt operands/cdi operands/cnao operands/ssp operands/hpp operands/clidownload; do
	if ! printf '%s\n' "${PACKAGES[@]}" | grep -qx "${MODULE}/${want}"; then
		echo "check-library: package ${MODULE}/${want} not found" >&2
		exit 1
	fi
done

GO_DIRECTIVE="$(cd "${ROOT}" && go mod edit -json | sed -n 's/^\t"Go": "\(.*\)",$/\1/p')"
cat >"${WORK}/go.mod" <<MOD
module example.com/hcokit-consumer

go ${GO_DIRECTIVE}

require ${MODULE} v0.0.0-00010101000000-000000000000

replace ${MODULE} => ${ROOT}
MOD

{
	cat <<'GO'
// Command consumer uses hcokit the way a distribution would.
package main

import (
	"fmt"
	"os"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/featuregates"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hostdevices"
	"github.com/hcokit/hcokit/migration"
	"github.com/hcokit/hcokit/operands"
	"github.com/hcokit/hcokit/operands/cdi"
	"github.com/hcokit/hcokit/operands/clidownload"
	"github.com/hcokit/hcokit/operands/cnao"
	"github.com/hcokit/hcokit/operands/hpp"
	"github.com/hcokit/hcokit/operands/kubevirt"
	"github.com/hcokit/hcokit/operands/ssp"
	"github.com/hcokit/hcokit/placement"
	"github.com/hcokit/hcokit/render"
GO
	for p in "${PACKAGES[@]}"; do
		case "${p#"${MODULE}"/}" in
		api/v1 | api/v1beta1 | featuregates | hco | hostdevices | migration | operands | operands/cdi | operands/clidownload | \
			operands/cnao | operands/hpp | operands/kubevirt | operands/ssp | placement | render) ;;
		*) printf '\t_ "%s"\n' "${p}" ;;
		esac
	done
	cat <<'GO'
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "consumer:", err)
		os.Exit(1)
	}
}

func run() error {
	reg, err := hco.NewRegistry(kubevirt.New(), cdi.New(), cnao.New(), ssp.New(), hpp.New(), clidownload.New())
	if err != nil {
		return err
	}
	if _, err := hco.NewScheme(operands.AddToScheme); err != nil {
		return err
	}
	// Written as v1beta1, converted to the hub the library works on.
	old := &v1beta1.HyperConverged{}
	old.Name = v1beta1.HyperConvergedName
	v1beta1.Default(old)
	hc := &hcov1.HyperConverged{}
	if err := old.ConvertTo(hc); err != nil {
		return err
	}
	hcov1.Default(hc)
	if _, err := migration.ForKubeVirt(hc.Spec.Virtualization.LiveMigrationConfig); err != nil {
		return err
	}
	if _, err := hostdevices.ForKubeVirt(hc.Spec.Virtualization.PermittedHostDevices); err != nil {
		return err
	}
	_ = featuregates.ForKubeVirt(hc.Spec.FeatureGates, featuregates.Options{})
	_, _ = placement.ForKubeVirt(hc.Spec.InfraPlacement(), hc.Spec.WorkloadPlacement())
	objs, err := render.Objects(reg, hc, hco.Environment{})
	if err != nil {
		return err
	}
	fmt.Printf("rendered %d objects with %d operands\n", len(objs), len(reg.Operands()))
	return render.WriteYAML(os.Stdout, objs[:1])
}
GO
} >"${WORK}/main.go"

cd "${WORK}"
echo "check-library: resolving the consumer's dependencies (module proxy: $(go env GOPROXY))"
go mod tidy
go build -o consumer .
./consumer >consumer.out
head -n 1 consumer.out

# The importer needs no replace but the local pointer at this checkout.
replaces="$(go mod edit -json | sed -n '/"Replace": \[/,/^\t\]/p' | grep -c '"Path"' || true)"
if [ "${replaces}" -ne 2 ]; then # Old.Path and New.Path of the one replace
	echo "check-library: the consumer's go.mod needs other replace directives:" >&2
	go mod edit -json >&2
	exit 1
fi

# Minimal version selection gives the importer the versions the library pins.
status=0 compared=0
while read -r path version; do
	compared=$((compared + 1))
	got="$(go list -m -f '{{.Version}}' "${path}")"
	if [ "${got}" != "${version}" ]; then
		echo "check-library: ${path} is ${got} for an importer, ${version} in the library's go.mod" >&2
		status=1
	fi
done < <(cd "${ROOT}" && go list -m -f '{{if not .Main}}{{if not .Indirect}}{{.Path}} {{.Version}}{{end}}{{end}}' all 2>/dev/null |
	grep -E '^(k8s\.io/|sigs\.k8s\.io/controller-runtime |kubevirt\.io/)')
[ "${status}" -eq 0 ] && [ "${compared}" -gt 0 ] || exit 1
echo "check-library: ok: ${#PACKAGES[@]} packages build from an outside module with no replace for Kubernetes or KubeVirt; ${compared} pinned modules resolve to the library's versions"
