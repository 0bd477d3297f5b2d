package main

import (
	"strings"
	"testing"
	"time"

	"github.com/hcokit/hcokit/webhook"
)

func TestWebhookSubcommandIsDispatched(t *testing.T) {
	err := dispatch([]string{"webhook", "--no-such-flag"}, func(string) string { return "" })
	if err == nil || !strings.Contains(err.Error(), "no-such-flag") {
		t.Fatalf("dispatch webhook: got %v, want the webhook's flag error", err)
	}
}

func TestWebhookFlagsAndEnvironment(t *testing.T) {
	getenv := func(k string) string {
		return map[string]string{"OPERATOR_NAMESPACE": "virt", "KVM_EMULATION": "true"}[k]
	}
	c, _, err := parseWebhook(nil, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if c.env.Namespace != "virt" || !c.env.KVMEmulation || c.port != 9443 || c.certDir != "/tmp/k8s-webhook-server/serving-certs" ||
		c.operands != defaultOperands || c.lookupTimeout != webhook.DefaultLookupTimeout {
		t.Errorf("defaults: %+v", c)
	}
	c, _, err = parseWebhook([]string{"--cert-dir=/certs", "--port=8443", "--namespace=hco", "--operands=kubevirt", "--lookup-timeout=1s"}, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if c.certDir != "/certs" || c.port != 8443 || c.env.Namespace != "hco" || c.operands != "kubevirt" || c.lookupTimeout != time.Second {
		t.Errorf("flags: %+v", c)
	}
}
