// Package clidownload is the operand module for the virtctl download server
// (upstream's hyperconverged-cluster-cli-download): a Deployment and a
// Service, both named hyperconverged-cluster-cli-download in the
// HyperConverged's namespace, that serve the virtctl binaries from the image
// in Environment.Images[ImageKey]. Without that image the module wants
// nothing, so it is safe to register unconditionally. On OpenShift
// (hco.Facts.Platform) it also makes upstream's Route to the Service (its
// host under the ingress domain, or the one an admin set for the component
// route virt-downloads) and the ConsoleCLIDownload that links the console's
// command-line tools page to it.
//
// The pods are placed with the infra placement (spec.deployment.nodePlacements.infra) and
// run non-root with a read-only root filesystem. The component status comes
// from the Deployment's conditions.
//
// This package only computes; it must not call the API server, read the
// environment or hold state.
package clidownload
