package main

import (
	"errors"
	"flag"
	"testing"
)

func TestHelpIsNotAFailureAndBadFlagsAreUsageErrors(t *testing.T) {
	getenv := func(string) string { return "" }
	for _, args := range [][]string{{"-h"}, {"render", "-h"}, {"webhook", "-h"}} {
		if err := dispatch(args, getenv); !errors.Is(err, flag.ErrHelp) {
			t.Errorf("%v: err = %v, want flag.ErrHelp", args, err)
		}
	}
	for _, args := range [][]string{{"--no-such-flag"}, {"render", "--no-such-flag"}, {"webhook", "--no-such-flag"}} {
		if err := dispatch(args, getenv); !errors.Is(err, errUsage) {
			t.Errorf("%v: err = %v, want a usage error", args, err)
		}
	}
}

func TestStockDefaults(t *testing.T) {
	c, _, _, err := parse(nil, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if c.operands != defaultOperands || !c.leaderElect || c.env.Namespace != "kubevirt-hyperconverged" {
		t.Errorf("defaults: operands %q, leader election %v, namespace %q", c.operands, c.leaderElect, c.env.Namespace)
	}
}
