// Package featuregates translates the HyperConverged's spec.featureGates into
// KubeVirt's spec.configuration.developerConfiguration.featureGates, adding
// the opinionated gates the operator always enables.
//
// The output is sorted and free of duplicates, so the same input always
// yields the same list and an unchanged HyperConverged never causes an update.
//
// The package is a pure translator: it imports only API types and must not
// import a client, read the environment, log, or hold state.
package featuregates
