package testenv

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// modulePath is the module whose root RepoRoot finds.
const modulePath = "github.com/hcokit/hcokit"

// RepoRoot returns the repository root: the nearest directory at or above
// the working directory (a test's package directory) whose go.mod declares
// module github.com/hcokit/hcokit. Tool modules nested under it are skipped.
func RepoRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("finding repository root: %w", err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if moduleOf(filepath.Join(dir, "go.mod")) == modulePath {
			return dir, nil
		}
		if filepath.Dir(dir) == dir {
			return "", fmt.Errorf("finding repository root: no go.mod for module %s at or above %s", modulePath, wd)
		}
	}
}

// moduleOf returns the module path declared by the go.mod file at path, or ""
// when it cannot be read.
func moduleOf(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(line, "module"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			if i := strings.Index(rest, "//"); i >= 0 {
				rest = rest[:i]
			}
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}
