// Package conventions holds only tests: the house rules that a program can
// check (doc.go per package, documented exports, pure translators, and a
// stock binary that links neither k8s.io/apiserver nor OpenTelemetry nor
// gRPC). It has no code for other packages to import.
package conventions
