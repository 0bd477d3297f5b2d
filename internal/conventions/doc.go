// Package conventions holds only tests: the house rules that a program can
// check (doc.go per package, documented exports, pure translators). It has
// no code for other packages to import.
package conventions
