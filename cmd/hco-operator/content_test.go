package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hcokit/hcokit/operands/dashboard"
	"github.com/hcokit/hcokit/operands/imagestream"
	"github.com/hcokit/hcokit/operands/quickstart"
)

const (
	testQuickStart  = "kind: ConsoleQuickStart\nmetadata:\n  name: tour\nspec:\n  displayName: Tour\n"
	testDashboard   = "kind: ConfigMap\nmetadata:\n  name: board\n  namespace: openshift-config-managed\ndata:\n  board.json: '{}'\n"
	testImageStream = "kind: ImageStream\nmetadata:\n  name: fedora\n  namespace: golden\nspec:\n  tags:\n  - name: latest\n"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

// The operator reads upstream's directories under its working directory by
// default; the flags move them.
func TestContentDirFlags(t *testing.T) {
	getenv := func(string) string { return "" }
	c, _, _, err := parse(nil, getenv)
	require.NoError(t, err)
	assert.Equal(t, contentDirs{quickStarts: "quickStart", dashboards: "dashboard", imageStreams: "imageStreams"}, c.content)
	c, _, _, err = parse([]string{"--quickstart-dir=/qs", "--dashboard-dir=", "--imagestream-dir=/is"}, getenv)
	require.NoError(t, err)
	assert.Equal(t, contentDirs{quickStarts: "/qs", imageStreams: "/is"}, c.content)
}

// The files of the directories become the quickstart, dashboard and
// imagestream operands' content; a directory that does not exist holds
// none.
func TestWithContent(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "qs", "tour.yaml"), testQuickStart)
	write(t, filepath.Join(dir, "db", "sub", "board.yaml"), testDashboard)
	write(t, filepath.Join(dir, "is", "fedora.yaml"), testImageStream)
	reg, err := stockRegistry("")
	require.NoError(t, err)
	content, err := withContent(reg, contentDirs{quickStarts: filepath.Join(dir, "qs"), dashboards: filepath.Join(dir, "db"), imageStreams: filepath.Join(dir, "is")})
	require.NoError(t, err)
	assert.Equal(t, map[string][]string{quickstart.Name: {"tour"}, dashboard.Name: {"openshift-config-managed/board"}, imagestream.Name: {"golden/fedora"}}, content)
	op, _ := reg.Get(quickstart.Name)
	assert.Equal(t, []string{"tour"}, op.(quickstart.Operand).Names(), "the registry's operand has the content")
	op, _ = reg.Get(dashboard.Name)
	assert.Equal(t, []string{"openshift-config-managed/board"}, op.(dashboard.Operand).Names())
	op, _ = reg.Get(imagestream.Name)
	assert.Equal(t, []string{"golden/fedora"}, op.(imagestream.Operand).Names())

	reg, err = stockRegistry("")
	require.NoError(t, err)
	content, err = withContent(reg, contentDirs{quickStarts: filepath.Join(dir, "none"), dashboards: ""})
	require.NoError(t, err)
	assert.Equal(t, map[string][]string{quickstart.Name: {}, dashboard.Name: {}, imagestream.Name: {}}, content)
}

// A broken file stops the start with an error that names the flag, the
// directory and the file; a directory that is a file too. A module left
// out (--operands) has its directory not read at all.
func TestWithContentRefusesABrokenFile(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "qs", "ok.yaml"), testQuickStart)
	write(t, filepath.Join(dir, "qs", "sub", "broken.yaml"), "kind: ConsoleQuickStart\nspec: {}\n")
	write(t, filepath.Join(dir, "file"), testDashboard)

	reg, err := stockRegistry("")
	require.NoError(t, err)
	_, err = withContent(reg, contentDirs{quickStarts: filepath.Join(dir, "qs")})
	require.Error(t, err)
	assert.Equal(t, "--quickstart-dir "+filepath.Join(dir, "qs")+": sub/broken.yaml: metadata.name is empty", err.Error())

	_, err = withContent(reg, contentDirs{dashboards: filepath.Join(dir, "file")})
	require.Error(t, err)
	assert.Equal(t, "--dashboard-dir "+filepath.Join(dir, "file")+": not a directory", err.Error())

	reg, err = stockRegistry("-quickstart")
	require.NoError(t, err)
	_, err = withContent(reg, contentDirs{quickStarts: filepath.Join(dir, "qs")})
	assert.NoError(t, err, "quickstart is left out: its directory is not read")
}

// The diff leaves out the modules whose directories it is not given (the
// operator's are in its image) and names them; those given are read.
func TestDiffLeavesOutTheContentItIsNotGiven(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "tour.yaml"), testQuickStart)
	reg, err := stockRegistry("")
	require.NoError(t, err)
	left, err := leaveOutContent(reg, contentDirs{quickStarts: dir})
	require.NoError(t, err)
	assert.Equal(t, []string{dashboard.Name, imagestream.Name}, left)
	assert.Contains(t, enabledNames(reg), quickstart.Name)
	assert.NotContains(t, enabledNames(reg), dashboard.Name)
	content, err := withContent(reg, contentDirs{quickStarts: dir})
	require.NoError(t, err)
	assert.Equal(t, map[string][]string{quickstart.Name: {"tour"}}, content)

	reg, err = stockRegistry("")
	require.NoError(t, err)
	left, err = leaveOutContent(reg, contentDirs{})
	require.NoError(t, err)
	assert.Equal(t, []string{dashboard.Name, imagestream.Name, quickstart.Name}, left)
}
