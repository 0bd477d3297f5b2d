// Package bundle turns the manifests of config/overlays/olm into an OLM
// bundle in the registry+v1 format (bundle/manifests, bundle/metadata and
// bundle.Dockerfile at the repository root; make bundle runs cmd/bundle).
//
// Everything the CSV says about the install comes from the kustomize output:
// the Deployments become the install strategy, the RBAC bound to their
// service accounts becomes permissions and clusterPermissions, the webhook
// configurations and the CRD conversion become webhookdefinitions, and the
// other objects OLM accepts in a bundle (Services, ClusterRoles bound to no
// Deployment, ServiceMonitors, …) are written next to the CSV. Only what the
// manifests cannot say (version, channel, description, examples) comes from
// Metadata. An object of a kind OLM does not accept is an error that names
// the kind and the file it came from.
//
// Generate is pure: same objects and Metadata, same bundle, byte for byte
// (no timestamps), so that a committed bundle can be checked for staleness.
// This is a tool module: nothing in github.com/hcokit/hcokit imports it.
package bundle
