// Package manifestdir reads upstream HCO's manifest directories (the
// quickStart/ and dashboard/ directories under its working directory): the
// files of a directory whose names end in .yaml, in its subdirectories
// too, in lexical order, each holding one YAML document, as upstream's
// handlers walk them (fs.WalkDir) at 03da3cf.
//
// It reads only the fs.FS it is given; the operand packages decode the
// documents into their kinds (Load takes their decoder).
//
// Internal on purpose: the directory layout is upstream's, read by three
// stock operands (quickstart, dashboard, imagestream), and each of them is
// where a distribution changes it: their exported Load reads any fs.FS and
// directory a distribution gives (its own manifests, embedded or on disk).
// A distribution's own operand with manifests of its own builds them as
// every operand does; nothing here would spare it code.
package manifestdir
