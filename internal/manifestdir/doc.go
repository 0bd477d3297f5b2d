// Package manifestdir reads upstream HCO's manifest directories (the
// quickStart/ and dashboard/ directories under its working directory): the
// files of a directory whose names end in .yaml, in its subdirectories
// too, in lexical order, each holding one YAML document, as upstream's
// handlers walk them (fs.WalkDir) at 03da3cf.
//
// It reads only the fs.FS it is given; the operand packages decode the
// documents into their kinds (Load takes their decoder).
package manifestdir
