// Package clidownload is the operand module for the virtctl download server
// (upstream's hyperconverged-cluster-cli-download). On OpenShift
// (hco.Facts.Platform), as upstream's operator: the Service
// hyperconverged-cluster-cli-download in the HyperConverged's namespace, the
// Route to it (its host under the ingress domain, or the one an admin set
// for the component route virt-downloads), the ConsoleCLIDownload that links
// the console's command-line tools page to it, and the component route's
// status; the Deployment behind them is the install's (operator/, upstream's
// objects, in config/overlays/openshift and the OLM bundle). With an image in
// Environment.Images[ImageKey] (CLI_DOWNLOAD_IMAGE, hcokit's own) the module
// deploys the server itself, on any platform: its Deployment and Service.
// Off OpenShift without that image it wants nothing, so it is safe to
// register unconditionally.
//
// The pods are placed with the infra placement (spec.deployment.nodePlacements.infra) and
// run non-root with a read-only root filesystem. The component status comes
// from the Deployment's conditions.
//
// This package only computes; it must not call the API server, read the
// environment or hold state.
package clidownload
