package main

import "testing"

func TestCLIDownloadRunsOnlyWithAnImage(t *testing.T) {
	env := func(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }
	tests := []struct {
		name string
		args []string
		vars map[string]string
		want string
	}{
		{"no image: left out", nil, nil, "kubevirt,cdi,cnao,ssp"},
		{"image from the environment", nil, map[string]string{"CLI_DOWNLOAD_IMAGE": "img"}, defaultOperands},
		{"image from the flag", []string{"--cli-download-image=img"}, nil, defaultOperands},
		{"explicit --operands wins", []string{"--operands=kubevirt,clidownload"}, nil, "kubevirt,clidownload"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, _, _, err := parse(tc.args, env(tc.vars))
			if err != nil {
				t.Fatal(err)
			}
			if c.operands != tc.want {
				t.Errorf("operands = %q, want %q", c.operands, tc.want)
			}
		})
	}
}
