package install

import (
	"fmt"
	"strings"
)

// PinBaseImages returns the Dockerfile text with each base image that is
// named by tag only (FROM golang:1.26) named by its digest too (FROM
// golang:1.26@sha256:...), as digest answers for the reference, and the
// references it pinned. Images already named by digest, scratch, earlier
// stages (FROM build) and references built from build arguments ($VAR) are
// left as they are, so pinning twice changes nothing.
func PinBaseImages(text string, digest func(ref string) (string, error)) (string, []string, error) {
	lines := strings.SplitAfter(text, "\n")
	stages := map[string]bool{}
	var pinned []string
	for i, line := range lines {
		fields := strings.Fields(line)
		if len(fields) < 2 || !strings.EqualFold(fields[0], "FROM") {
			continue
		}
		at := 1
		for at < len(fields) && strings.HasPrefix(fields[at], "--") {
			at++
		}
		if at >= len(fields) {
			continue
		}
		ref := fields[at]
		stage := stages[strings.ToLower(ref)]
		if at+2 < len(fields) && strings.EqualFold(fields[at+1], "AS") {
			stages[strings.ToLower(fields[at+2])] = true
		}
		if ref == "scratch" || stage || strings.Contains(ref, "@") || strings.Contains(ref, "$") {
			continue
		}
		d, err := digest(ref)
		if err != nil {
			return "", nil, fmt.Errorf("line %d: the digest of %s: %w", i+1, ref, err)
		}
		if !strings.HasPrefix(d, "sha256:") {
			return "", nil, fmt.Errorf("line %d: the digest of %s: %q is no sha256 digest", i+1, ref, d)
		}
		lines[i] = strings.Replace(line, ref, ref+"@"+d, 1)
		pinned = append(pinned, ref+"@"+d)
	}
	return strings.Join(lines, ""), pinned, nil
}
