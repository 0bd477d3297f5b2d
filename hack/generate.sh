#!/usr/bin/env bash
# Regenerates the committed generated files:
#   api/**/zz_generated.deepcopy.go, operands/{cnao,hpp}/api/**/zz_generated.deepcopy.go
#   config/crd/bases/     the HyperConverged CRD, from ./api/...
#   config/rbac/role.yaml the stock binary's RBAC, from the markers in cmd/hco-operator
#                         and the operand packages (operands/*/rbac.go); its Role in
#                         openshift-config-managed in config/openshift/role.yaml
#   config/crd/operands/  the operand CRDs, all from upstream Go API modules:
#                         KubeVirt, VirtualMachine, CDI, DataVolume and SSP
#                         pinned in tools/codegen/go.mod; NetworkAddonsConfig
#                         and HostPathProvisioner pinned in
#                         tools/upstreamapis/go.mod (not from our mirrors);
#                         MigController and AAQ likewise; FileRestoreOperator, whose
#                         module no proxy serves, from its mirror, checked
#                         against the operator's own CRD in tools/upstreamapis
#
#   hack/generate.sh           regenerate in place
#   hack/generate.sh --check   regenerate into a temporary copy of the tree and
#                              fail if any committed generated file is stale
#
# controller-gen (pinned in tools/codegen/go.mod) and tools/codegen/cmd/operandcrds
# are built into bin/ once and rebuilt when tools/codegen changes.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="${ROOT}/bin"
CONTROLLER_GEN="${BIN}/controller-gen"
OPERANDCRDS="${BIN}/operandcrds"

# Our API packages, and the operand mirrors (typed copies of upstream types
# whose Go modules we do not import; only their deepcopy code is generated).
API_DIRS=(./api)
MIRROR_DIRS=(./operands/cnao/api ./operands/hpp/api ./operands/migcontroller/api ./operands/filerestore/api ./operands/aaq/api ./operands/imagestream/api)
# Mirrors whose upstream module no proxy serves: their test CRDs are generated
# from the mirror itself, and tools/upstreamapis compares each with the CRD
# the operator ships (tools/upstreamapis/testdata).
CRD_FROM_MIRROR_DIRS=(./operands/filerestore/api)
# Upstream API packages, loaded from the tools/codegen module. Whole groups
# are generated; operandcrds keeps only the kinds we need.
UPSTREAM_PACKAGES=(
	kubevirt.io/api/core/v1
	kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1
)
# Upstream API packages whose own CRDs declare embedded ObjectMeta (the
# ssp-operator generates with crd:generateEmbeddedObjectMeta=true, so the
# golden images' metadata is not pruned).
UPSTREAM_EMBEDDED_META_PACKAGES=(
	kubevirt.io/ssp-operator/api/v1beta3
)
# The upstream API packages of the types we mirror, loaded from the
# tools/upstreamapis module (it needs replace directives the root never has).
# Every version the operator serves is listed.
UPSTREAM_MIRRORED_PACKAGES=(
	github.com/kubevirt/cluster-network-addons-operator/pkg/apis/networkaddonsoperator/v1
	github.com/kubevirt/cluster-network-addons-operator/pkg/apis/networkaddonsoperator/v1alpha1
	kubevirt.io/hostpath-provisioner-operator/pkg/apis/hostpathprovisioner/v1beta1
	kubevirt.io/kubevirt-migration-operator/api/v1alpha1
	kubevirt.io/application-aware-quota/staging/src/kubevirt.io/application-aware-quota-api/pkg/apis/core/v1alpha1
)

log() { echo "generate: $*"; }

mode=generate
case "${1:-}" in
"") ;;
--check) mode=check ;;
*)
	echo "usage: $0 [--check]" >&2
	exit 2
	;;
esac

build_tools() {
	local stamp="${BIN}/.codegen.stamp" want
	want="$(
		cd "${ROOT}/tools/codegen"
		{
			go env GOVERSION GOOS GOARCH
			cat go.mod go.sum
			find cmd -type f -name '*.go' | LC_ALL=C sort | xargs cat
		} | sha256sum | cut -d' ' -f1
	)"
	if [[ -x "${CONTROLLER_GEN}" && -x "${OPERANDCRDS}" && -f "${stamp}" && "$(cat "${stamp}")" == "${want}" ]]; then
		return
	fi
	mkdir -p "${BIN}"
	rm -f "${stamp}"
	log "building controller-gen and operandcrds into ${BIN}..."
	(
		cd "${ROOT}/tools/codegen"
		export CGO_ENABLED=0
		go build -trimpath -buildvcs=false -mod=readonly -o "${CONTROLLER_GEN}" sigs.k8s.io/controller-tools/cmd/controller-gen
		go build -trimpath -buildvcs=false -mod=readonly -o "${OPERANDCRDS}" ./cmd/operandcrds
	)
	echo "${want}" >"${stamp}"
}

# existing_paths TREE DIR... prints paths=DIR/... for each DIR in TREE that
# holds Go files.
existing_paths() {
	local tree="$1" d
	shift
	for d in "$@"; do
		if [[ -n "$(find "${tree}/${d}" -name '*.go' -print -quit 2>/dev/null)" ]]; then
			echo "paths=${d}/..."
		fi
	done
}

# replace_yaml FROM TO makes the YAML files in TO exactly those in FROM.
replace_yaml() {
	mkdir -p "$2"
	find "$2" -maxdepth 1 -name '*.yaml' -delete
	if compgen -G "$1/*.yaml" >/dev/null; then
		cp "$1"/*.yaml "$2"/
	fi
}

# upstream_crds MODULE OUT OPTIONS PACKAGE... renders the CRDs of the
# upstream API packages into OUT, loading them from the tool module in
# MODULE, with extra crd OPTIONS (comma-separated, may be empty).
upstream_crds() {
	local module="$1" out="$2" opts="crd:allowDangerousTypes=true,maxDescLen=0${3:+,$3}" p paths=()
	shift 3
	for p in "$@"; do paths+=("paths=${p}"); done
	(cd "${module}" && "${CONTROLLER_GEN}" "${opts}" \
		"${paths[@]}" output:crd:artifacts:config="${out}")
}

# The operator's Roles in namespaces only OpenShift has: openshift-config-managed
# (the dashboards, operands/dashboard/rbac.go) and openshift-monitoring (the
# Alertmanager silence, cmd/hco-operator/silence.go). The base install's
# namespace transform would move them into the operator's; they go into
# config/openshift, applied besides config on OpenShift.
OPENSHIFT_NAMESPACES="openshift-config-managed openshift-monitoring"
OPENSHIFT_ROLE=config/openshift/role.yaml

# split_roles IN BASE OPENSHIFT writes the documents of controller-gen's
# IN to BASE, but those in OPENSHIFT_NAMESPACES, which go to OPENSHIFT.
split_roles() {
	awk -v base="$2" -v openshift="$3" -v namespaces="${OPENSHIFT_NAMESPACES}" '
		function flush() {
			if (doc != "") { printf "---\n%s", doc > (elsewhere ? openshift : base) }
			doc = ""; elsewhere = 0
		}
		BEGIN {
			printf "" > base; printf "" > openshift
			n = split(namespaces, list, " ")
			for (i = 1; i <= n; i++) ns["  namespace: " list[i]] = 1
		}
		/^---$/ { flush(); next }
		{ doc = doc $0 "\n"; if ($0 in ns) elsewhere = 1 }
		END { flush() }
	' "$1"
}

# generate_into TREE regenerates every generated file inside TREE.
generate_into() {
	local tree="$1" tmp
	tmp="$(mktemp -d -p "${WORK}")"

	local api_paths mirror_paths
	mapfile -t api_paths < <(existing_paths "${tree}" "${API_DIRS[@]}")
	mapfile -t mirror_paths < <(existing_paths "${tree}" "${MIRROR_DIRS[@]}")

	if ((${#api_paths[@]} > 0)); then
		log "deepcopy and CRDs for ${API_DIRS[*]} -> config/crd/bases"
		(cd "${tree}" && "${CONTROLLER_GEN}" object:headerFile=hack/boilerplate.go.txt crd:generateEmbeddedObjectMeta=true \
			"${api_paths[@]}" output:crd:artifacts:config="${tmp}/bases")
		replace_yaml "${tmp}/bases" "${tree}/config/crd/bases"
	else
		log "no Go files under ${API_DIRS[*]}; skipped"
	fi

	if ((${#mirror_paths[@]} > 0)); then
		log "deepcopy for the operand mirrors ${MIRROR_DIRS[*]}"
		(cd "${tree}" && "${CONTROLLER_GEN}" object:headerFile=hack/boilerplate.go.txt "${mirror_paths[@]}")
	fi

	log "RBAC of the stock binary (cmd/hco-operator, operands/..., extensions/...) -> config/rbac/role.yaml, ${OPENSHIFT_ROLE}"
	(cd "${tree}" && "${CONTROLLER_GEN}" rbac:roleName=hco-operator paths=./cmd/hco-operator/... paths=./operands/... paths=./extensions/... \
		output:rbac:artifacts:config="${tmp}/rbac")
	mkdir -p "${tree}/config/rbac" "$(dirname "${tree}/${OPENSHIFT_ROLE}")"
	split_roles "${tmp}/rbac/role.yaml" "${tree}/config/rbac/role.yaml" "${tree}/${OPENSHIFT_ROLE}"

	# Floats in upstream types need allowDangerousTypes; descriptions are
	# dropped so that the VirtualMachine CRD stays far below etcd's size limit.
	log "CRDs for upstream ${UPSTREAM_PACKAGES[*]} ${UPSTREAM_EMBEDDED_META_PACKAGES[*]}"
	upstream_crds "${tree}/tools/codegen" "${tmp}/upstream" "" "${UPSTREAM_PACKAGES[@]}"
	upstream_crds "${tree}/tools/codegen" "${tmp}/upstream" generateEmbeddedObjectMeta=true "${UPSTREAM_EMBEDDED_META_PACKAGES[@]}"
	log "CRDs for upstream ${UPSTREAM_MIRRORED_PACKAGES[*]}"
	upstream_crds "${tree}/tools/upstreamapis" "${tmp}/upstreamapis" "" "${UPSTREAM_MIRRORED_PACKAGES[@]}"

	local from_mirror_paths
	mapfile -t from_mirror_paths < <(existing_paths "${tree}" "${CRD_FROM_MIRROR_DIRS[@]}")
	mkdir -p "${tmp}/mirrors"
	if ((${#from_mirror_paths[@]} > 0)); then
		log "CRDs from the mirrors ${CRD_FROM_MIRROR_DIRS[*]}"
		(cd "${tree}" && "${CONTROLLER_GEN}" crd:allowDangerousTypes=true,maxDescLen=0 \
			"${from_mirror_paths[@]}" output:crd:artifacts:config="${tmp}/mirrors")
	fi

	log "selecting operand CRDs -> config/crd/operands"
	mkdir -p "${tree}/config/crd/operands"
	"${OPERANDCRDS}" -out "${tree}/config/crd/operands" "${tmp}/upstream" "${tmp}/upstreamapis" "${tmp}/mirrors"
}

# generated_files TREE lists the generated files in TREE, relative to it.
generated_files() {
	(
		cd "$1"
		{
			find config/crd -type f 2>/dev/null || true
			echo config/rbac/role.yaml
			echo "${OPENSHIFT_ROLE}"
			find "${API_DIRS[@]}" "${MIRROR_DIRS[@]}" -name zz_generated.deepcopy.go 2>/dev/null || true
		} | LC_ALL=C sort
	)
}

WORK="$(mktemp -d)"
trap 'rm -rf "${WORK}"' EXIT

build_tools

if [[ "${mode}" == generate ]]; then
	generate_into "${ROOT}"
	log "done"
	exit 0
fi

copy="${WORK}/tree"
mkdir -p "${copy}"
log "regenerating into a temporary copy of the tree to check for stale files"
tar -C "${ROOT}" --exclude=./.git --exclude=./bin -cf - . | tar -C "${copy}" -xf -
generate_into "${copy}"

stale=0
if ! diff -u <(generated_files "${ROOT}") <(generated_files "${copy}") >"${copy}/.filelist.diff"; then
	log "the set of generated files differs (- committed, + generated):"
	sed -n '3,$p' "${copy}/.filelist.diff" | grep "^[-+]" || true
	stale=1
fi
while read -r f; do
	if [[ -f "${copy}/${f}" ]] && ! cmp -s "${ROOT}/${f}" "${copy}/${f}"; then
		log "stale: ${f}"
		stale=1
	fi
done < <(generated_files "${ROOT}")

if ((stale)); then
	log "FAIL: generated files are stale; run hack/generate.sh (make generate) and commit the result"
	exit 1
fi
log "generated files are up to date"
