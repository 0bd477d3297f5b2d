#!/usr/bin/env bash
# Builds the test control plane (kube-apiserver and etcd) and kubectl from
# source into OUTDIR (default: bin/k8s), for internal/testenv and anything
# using envtest; kubectl is for the tests of the kubectl plugin (kubectl hco).
#
#   hack/build-controlplane.sh [OUTDIR]
#
# The versions are pinned by the tool modules tools/controlplane/apiserver
# (kube-apiserver and kubectl, both from k8s.io/kubernetes) and
# tools/controlplane/etcd. The binaries are built once and reused: a stamp file
# in OUTDIR holds a hash of those go.mod/go.sum files, this recipe and the Go
# version, and the build runs again only when that hash changes.
#
# Needs only the Go toolchain and the Go module proxy; nothing prebuilt is
# downloaded. Environment:
#   CONTROLPLANE_FORCE=1   rebuild even when the stamp matches.
#   CONTROLPLANE_NICE=N    niceness for the compiler (default 10; 0 disables).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUTDIR="${1:-${ROOT}/bin/k8s}"
mkdir -p "${OUTDIR}"
OUTDIR="$(cd "${OUTDIR}" && pwd)"

APISERVER_MOD="${ROOT}/tools/controlplane/apiserver"
ETCD_MOD="${ROOT}/tools/controlplane/etcd"
STAMP="${OUTDIR}/.controlplane.stamp"

# Bump when the build recipe below changes in a way that changes the output.
RECIPE=3

log() { echo "controlplane: $*"; }

command -v go >/dev/null || { log "go is not on PATH"; exit 1; }

module_version() { # module_dir module_path
	(cd "$1" && go list -m -f '{{.Version}}' "$2")
}

stamp_value() {
	{
		echo "recipe ${RECIPE}"
		go env GOVERSION GOOS GOARCH
		cat "${APISERVER_MOD}/go.mod" "${APISERVER_MOD}/go.sum" \
			"${ETCD_MOD}/go.mod" "${ETCD_MOD}/go.sum"
	} | sha256sum | cut -d' ' -f1
}

want="$(stamp_value)"
if [[ "${CONTROLPLANE_FORCE:-0}" != 1 && -x "${OUTDIR}/kube-apiserver" && -x "${OUTDIR}/etcd" &&
	-x "${OUTDIR}/kubectl" && -f "${STAMP}" && "$(cat "${STAMP}")" == "${want}" ]]; then
	log "kube-apiserver, etcd and kubectl are up to date in ${OUTDIR}"
	exit 0
fi
rm -f "${STAMP}"

NICE=()
if [[ "${CONTROLPLANE_NICE:-10}" != 0 ]] && command -v nice >/dev/null; then
	NICE=(nice -n "${CONTROLPLANE_NICE:-10}")
fi

export CGO_ENABLED=0
# -mod=readonly: the committed go.mod/go.sum are the pin; never rewrite them here.
GO_BUILD_FLAGS=(-trimpath -buildvcs=false -mod=readonly)

build() { # module_dir package output ldflags
	local dir="$1" pkg="$2" out="$3" ldflags="$4" start
	start=${SECONDS}
	(cd "${dir}" && go mod download)
	(cd "${dir}" && "${NICE[@]}" go build "${GO_BUILD_FLAGS[@]}" -ldflags "${ldflags}" -o "${out}.tmp" "${pkg}")
	mv -f "${out}.tmp" "${out}"
	log "built ${out} in $((SECONDS - start))s"
}

kube_version="$(module_version "${APISERVER_MOD}" k8s.io/kubernetes)"
etcd_version="$(module_version "${ETCD_MOD}" go.etcd.io/etcd/server/v3)"
if [[ ! "${kube_version}" =~ ^v([0-9]+)\.([0-9]+)\.[0-9]+ ]]; then
	log "cannot parse k8s.io/kubernetes version '${kube_version}'"
	exit 1
fi
kube_major="${BASH_REMATCH[1]}"
kube_minor="${BASH_REMATCH[2]}"

# The same stamps hack/lib/version.sh in kubernetes sets, so /version reports
# the release instead of v0.0.0-master.
kube_ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
	kube_ldflags+=" -X ${pkg}.gitVersion=${kube_version}"
	kube_ldflags+=" -X ${pkg}.gitMajor=${kube_major}"
	kube_ldflags+=" -X ${pkg}.gitMinor=${kube_minor}"
	kube_ldflags+=" -X ${pkg}.gitTreeState=clean"
done

log "building etcd ${etcd_version} (a few minutes on 2 cores, once)..."
build "${ETCD_MOD}" go.etcd.io/etcd/server/v3 "${OUTDIR}/etcd" "-s -w"

log "building kube-apiserver ${kube_version} (10-15 minutes on 2 cores, once; later runs reuse it)..."
build "${APISERVER_MOD}" k8s.io/kubernetes/cmd/kube-apiserver "${OUTDIR}/kube-apiserver" "${kube_ldflags}"

# kubectl, for the tests that run hco-operator as a kubectl plugin
# (kubectl hco diff): the same release and the same stamps as kube-apiserver.
log "building kubectl ${kube_version} (a few minutes on 2 cores, once)..."
build "${APISERVER_MOD}" k8s.io/kubernetes/cmd/kubectl "${OUTDIR}/kubectl" "${kube_ldflags}"

echo "${want}" >"${STAMP}"
log "done: ${OUTDIR}/kube-apiserver, ${OUTDIR}/etcd and ${OUTDIR}/kubectl"
