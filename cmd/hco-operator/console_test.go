package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hcokit/hcokit/operands/dashboard"
	"github.com/hcokit/hcokit/operands/quickstart"
)

const (
	testQuickStart = "kind: ConsoleQuickStart\nmetadata:\n  name: tour\nspec:\n  displayName: Tour\n"
	testDashboard  = "kind: ConfigMap\nmetadata:\n  name: board\n  namespace: openshift-config-managed\ndata:\n  board.json: '{}'\n"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

// The operator reads upstream's directories under its working directory by
// default; the flags move them.
func TestConsoleDirFlags(t *testing.T) {
	getenv := func(string) string { return "" }
	c, _, _, err := parse(nil, getenv)
	require.NoError(t, err)
	assert.Equal(t, consoleDirs{quickStarts: "quickStart", dashboards: "dashboard"}, c.console)
	c, _, _, err = parse([]string{"--quickstart-dir=/qs", "--dashboard-dir="}, getenv)
	require.NoError(t, err)
	assert.Equal(t, consoleDirs{quickStarts: "/qs"}, c.console)
}

// The files of the directories become the quickstart and dashboard
// operands' content; a directory that does not exist holds none.
func TestWithConsoleContent(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "qs", "tour.yaml"), testQuickStart)
	write(t, filepath.Join(dir, "db", "sub", "board.yaml"), testDashboard)
	reg, err := stockRegistry("")
	require.NoError(t, err)
	qs, dbs, err := withConsoleContent(reg, consoleDirs{quickStarts: filepath.Join(dir, "qs"), dashboards: filepath.Join(dir, "db")})
	require.NoError(t, err)
	assert.Equal(t, []string{"tour"}, qs)
	assert.Equal(t, []string{"openshift-config-managed/board"}, dbs)
	op, _ := reg.Get(quickstart.Name)
	assert.Equal(t, []string{"tour"}, op.(quickstart.Operand).Names(), "the registry's operand has the content")
	op, _ = reg.Get(dashboard.Name)
	assert.Equal(t, []string{"openshift-config-managed/board"}, op.(dashboard.Operand).Names())

	reg, err = stockRegistry("")
	require.NoError(t, err)
	qs, dbs, err = withConsoleContent(reg, consoleDirs{quickStarts: filepath.Join(dir, "none"), dashboards: ""})
	require.NoError(t, err)
	assert.Empty(t, qs)
	assert.Empty(t, dbs)
}

// A broken file stops the start with an error that names the flag, the
// directory and the file; a directory that is a file too. A module left
// out (--operands) has its directory not read at all.
func TestWithConsoleContentRefusesABrokenFile(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "qs", "ok.yaml"), testQuickStart)
	write(t, filepath.Join(dir, "qs", "sub", "broken.yaml"), "kind: ConsoleQuickStart\nspec: {}\n")
	write(t, filepath.Join(dir, "file"), testDashboard)

	reg, err := stockRegistry("")
	require.NoError(t, err)
	_, _, err = withConsoleContent(reg, consoleDirs{quickStarts: filepath.Join(dir, "qs")})
	require.Error(t, err)
	assert.Equal(t, "--quickstart-dir "+filepath.Join(dir, "qs")+": sub/broken.yaml: metadata.name is empty", err.Error())

	_, _, err = withConsoleContent(reg, consoleDirs{dashboards: filepath.Join(dir, "file")})
	require.Error(t, err)
	assert.Equal(t, "--dashboard-dir "+filepath.Join(dir, "file")+": not a directory", err.Error())

	reg, err = stockRegistry("-quickstart")
	require.NoError(t, err)
	_, _, err = withConsoleContent(reg, consoleDirs{quickStarts: filepath.Join(dir, "qs")})
	assert.NoError(t, err, "quickstart is left out: its directory is not read")
}

// The diff leaves out the modules whose directories it is not given (the
// operator's are in its image) and names them; those given are read.
func TestDiffLeavesOutTheConsoleContentItIsNotGiven(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "tour.yaml"), testQuickStart)
	reg, err := stockRegistry("")
	require.NoError(t, err)
	left, err := leaveOutConsole(reg, consoleDirs{quickStarts: dir})
	require.NoError(t, err)
	assert.Equal(t, []string{dashboard.Name}, left)
	assert.Contains(t, enabledNames(reg), quickstart.Name)
	assert.NotContains(t, enabledNames(reg), dashboard.Name)
	qs, _, err := withConsoleContent(reg, consoleDirs{quickStarts: dir})
	require.NoError(t, err)
	assert.Equal(t, []string{"tour"}, qs)

	reg, err = stockRegistry("")
	require.NoError(t, err)
	left, err = leaveOutConsole(reg, consoleDirs{})
	require.NoError(t, err)
	assert.Equal(t, []string{dashboard.Name, quickstart.Name}, left)
}
