// Package migration translates the HyperConverged's spec.virtualization.liveMigrationConfig
// into KubeVirt's spec.configuration.migrations.
//
// The package is a pure translator: it imports only API types and must not
// import a client, read the environment, log, or hold state.
package migration
