package preview

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// ErrDiffFailed marks a failure of the diff program (an exit status above
// 1): the error wraps its *exec.ExitError.
var ErrDiffFailed = errors.New("diff program failed")

// validArg is what kubectl diff lets through of KUBECTL_EXTERNAL_DIFF's
// arguments (k8s.io/kubectl pkg/cmd/diff at v0.37.1).
var validArg = regexp.MustCompile(`^[a-zA-Z0-9-=]+$`).MatchString

// Diff writes to stdout what differs between the Live and Merged documents
// of objs, as kubectl diff does: each object that differs is written as
// YAML into a file named by Object.FileName in two temporary directories,
// LIVE-* and MERGED-* (a side that does not exist has no file), and the two
// directories are compared by `diff -u -N`, or by externalDiff when it is
// not empty (the value of KUBECTL_EXTERNAL_DIFF: a program and arguments
// separated by spaces, the arguments limited to letters, digits, '-' and
// '=', as kubectl does). Each object that differs and carries a jsonpatch
// annotation in effect is named first, in a line of its own starting with
// "# ". Objects that do not differ are left out, and with none, no program
// runs and nothing is written.
//
// It reports whether the program found differences (its exit status 1;
// a status above 1 is an error wrapping ErrDiffFailed and the
// *exec.ExitError). The temporary directories are removed.
func Diff(ctx context.Context, stdout, stderr io.Writer, objs []Object, externalDiff string) (bool, error) {
	type file struct {
		name         string
		live, merged []byte
		header       string
	}
	var files []file
	for _, o := range objs {
		masked, unmasked := redacted(o.GVK.GroupKind(), o.Live, o.Merged)
		live, err := marshal(masked)
		if err != nil {
			return false, fmt.Errorf("%s: %w", o, err)
		}
		merged, err := marshal(unmasked)
		if err != nil {
			return false, fmt.Errorf("%s: %w", o, err)
		}
		if bytes.Equal(live, merged) && (o.Live == nil) == (o.Merged == nil) {
			continue
		}
		f := file{name: o.FileName(), live: live, merged: merged}
		if o.JSONPatch != "" && o.Merged != nil {
			f.header = fmt.Sprintf("# %s: jsonpatch annotation %q in effect (%d %s)\n", o, o.JSONPatch, o.JSONPatchOps, plural(o.JSONPatchOps, "operation"))
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return false, nil
	}
	slices.SortFunc(files, func(a, b file) int { return strings.Compare(a.name, b.name) })

	liveDir, err := os.MkdirTemp("", "LIVE-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(liveDir)
	mergedDir, err := os.MkdirTemp("", "MERGED-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(mergedDir)
	for _, f := range files {
		if f.live != nil {
			if err := os.WriteFile(filepath.Join(liveDir, f.name), f.live, 0o600); err != nil {
				return false, err
			}
		}
		if f.merged != nil {
			if err := os.WriteFile(filepath.Join(mergedDir, f.name), f.merged, 0o600); err != nil {
				return false, err
			}
		}
		if f.header != "" {
			if _, err := io.WriteString(stdout, f.header); err != nil {
				return false, err
			}
		}
	}

	program, args := "diff", []string{"-u", "-N", liveDir, mergedDir}
	if externalDiff != "" {
		fields := strings.Split(externalDiff, " ")
		program, args = fields[0], []string{liveDir, mergedDir}
		for _, a := range fields[1:] {
			if validArg(a) {
				args = append(args, a)
			}
		}
	}
	cmd := exec.CommandContext(ctx, program, args...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err = cmd.Run()
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return false, nil
	case errors.As(err, &exitErr) && exitErr.ExitCode() == 1:
		return true, nil
	case errors.As(err, &exitErr):
		return false, fmt.Errorf("%w: %q: %w", ErrDiffFailed, program, err)
	default:
		return false, fmt.Errorf("run the diff program %q (set KUBECTL_EXTERNAL_DIFF to another): %w", program, err)
	}
}

// secretFields are the members of a kind that hold secret material: a
// Route's private key (a custom host's certificate, copied from a Secret
// in openshift-config the diff's account cannot read). A Secret's data and
// stringData are masked besides.
var secretFields = map[schema.GroupKind][][]string{
	{Group: "route.openshift.io", Kind: "Route"}: {{"spec", "tls", "key"}},
}

// redacted returns copies of live and merged with the secret material of
// kind gk masked as kubectl diff masks a Secret's data: "***" where both
// sides hold the same value, "*** (before)" and "*** (after)" where they
// differ, so that the diff still shows that it changes.
func redacted(gk schema.GroupKind, live, merged map[string]any) (map[string]any, map[string]any) {
	paths := secretFields[gk]
	if gk == (schema.GroupKind{Kind: "Secret"}) {
		for _, doc := range []map[string]any{live, merged} {
			for _, field := range []string{"data", "stringData"} {
				m, _, _ := unstructured.NestedMap(doc, field)
				for k := range m {
					paths = append(paths, []string{field, k})
				}
			}
		}
	}
	if len(paths) == 0 {
		return live, merged
	}
	copyOf := func(doc map[string]any) map[string]any {
		if doc == nil {
			return nil
		}
		return runtime.DeepCopyJSON(doc)
	}
	live, merged = copyOf(live), copyOf(merged)
	for _, p := range paths {
		before, inLive, _ := unstructured.NestedFieldNoCopy(live, p...)
		after, inMerged, _ := unstructured.NestedFieldNoCopy(merged, p...)
		if inLive && inMerged && reflect.DeepEqual(before, after) {
			_ = unstructured.SetNestedField(live, "***", p...)
			_ = unstructured.SetNestedField(merged, "***", p...)
			continue
		}
		if inLive {
			_ = unstructured.SetNestedField(live, "*** (before)", p...)
		}
		if inMerged {
			_ = unstructured.SetNestedField(merged, "*** (after)", p...)
		}
	}
	return live, merged
}

// marshal is a document as YAML; nil for none.
func marshal(doc map[string]any) ([]byte, error) {
	if doc == nil {
		return nil, nil
	}
	return yaml.Marshal(doc)
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
