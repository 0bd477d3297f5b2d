package stackstatus

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// ANSI colours, used only when Write is asked to (a terminal).
const (
	red   = "\x1b[31m"
	green = "\x1b[32m"
	bold  = "\x1b[1m"
	reset = "\x1b[0m"
)

// Write renders s as a tree, one line per node: the HyperConverged, each
// component with its CR, workloads and operator, the HyperConverged's
// conditions, then the first failure in words. color: ANSI colours (a
// terminal).
func Write(w io.Writer, s *Stack, color bool) error {
	paint := func(code, text string) string {
		if !color || text == "" {
			return text
		}
		return code + text + reset
	}
	mark := func(ok bool) string {
		if ok {
			return paint(green, "✓")
		}
		return paint(red, "✗")
	}
	failing := func(path []string) bool {
		f := s.FirstFailure
		if f == nil || len(f.Path) != len(path) {
			return false
		}
		for i := range path {
			if f.Path[i] != path[i] {
				return false
			}
		}
		return true
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	line := func(name, ready, reason, version string, highlight bool) {
		if highlight {
			name, reason = paint(bold+red, name+" ◀"), paint(bold+red, reason)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", name, ready, reason, version)
	}
	hc := s.HyperConverged
	fmt.Fprintf(tw, "NAME\tREADY\tREASON\tVERSION\n")
	hcVersion := ""
	for _, v := range hc.Versions {
		if v.Name == "operator" {
			hcVersion = v.Version
		}
	}
	avail, reason := hcSummary(hc)
	state := "healthy"
	if !s.Healthy {
		state = "not healthy"
	}
	if hc.Deleting {
		state += ", being deleted"
	}
	line(fmt.Sprintf("%s HyperConverged %s/%s (%s)", mark(s.Healthy), hc.Namespace, hc.Name, state), avail, reason, hcVersion,
		failing([]string{"HyperConverged " + hc.Name}))
	for i, c := range s.Components {
		branch, stem := "├─", "│ "
		if i == len(s.Components)-1 {
			branch, stem = "└─", "  "
		}
		line(fmt.Sprintf("%s%s %s %s", branch, mark(c.Healthy), c.Operand, c.Kind), c.Available.Status, componentReason(c), c.ObservedVersion,
			failing([]string{c.Operand}))
		children := c.Objects
		if c.Operator != nil {
			op := *c.Operator
			op.Kind = "operator Deployment"
			children = append(children[:len(children):len(children)], op)
		}
		for j, o := range children {
			sub := "├─"
			if j == len(children)-1 {
				sub = "└─"
			}
			ready, why := objectSummary(o)
			line(fmt.Sprintf("%s%s%s %s", stem, sub, o.Kind, qualified(o)), ready, why, "", failing([]string{c.Operand, o.Kind + " " + o.Name}))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	cw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(cw, "CONDITION\tSTATUS\tREASON\tMESSAGE\n")
	for _, c := range hc.Conditions {
		fmt.Fprintf(cw, "%s\t%s\t%s\t%s\n", c.Type, c.Status, c.Reason, oneLine(c.Message))
	}
	if err := cw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if s.FirstFailure == nil {
		_, err := fmt.Fprintln(w, paint(green, "The virtualization stack is healthy."))
		return err
	}
	_, err := fmt.Fprintf(w, "First failure: %s\n", paint(bold+red, oneLine(s.FirstFailure.String())))
	return err
}

// hcSummary is the HyperConverged's Available status and the reason of its
// first condition that is not as wanted.
func hcSummary(hc HyperConverged) (string, string) {
	avail := "Unknown"
	reason := ""
	for _, c := range hc.Conditions {
		if c.Type == "Available" {
			avail = c.Status
		}
	}
	for _, want := range [][2]string{{"Available", "True"}, {"Degraded", "False"}, {"Progressing", "False"}, {"ReconcileComplete", "True"}} {
		for _, c := range hc.Conditions {
			if c.Type == want[0] && c.Status != want[1] && reason == "" {
				reason = c.Reason
			}
		}
	}
	return avail, reason
}

// componentReason is the reason of the component's first condition that
// is not as wanted.
func componentReason(c Component) string {
	switch {
	case c.Degraded.Status == "True":
		return c.Degraded.Reason
	case c.Available.Status != "True":
		return c.Available.Reason
	case c.Progressing.Status == "True":
		return c.Progressing.Reason
	}
	return ""
}

// objectSummary is a workload's ready replicas, or a CR's Available status
// and the reason of its first condition that is not as wanted.
func objectSummary(o Object) (string, string) {
	if o.Replicas != nil {
		why := ""
		if !o.Replicas.ready() {
			why = "NotReady"
		}
		return fmt.Sprintf("%d/%d", o.Replicas.Ready, o.Replicas.Wanted), why
	}
	ready, why := "Unknown", ""
	for _, c := range o.Conditions {
		switch {
		case c.Type == "Available":
			ready = c.Status
			if c.Status != "True" && why == "" {
				why = c.Reason
			}
		case (c.Type == "Degraded" || c.Type == "Progressing") && c.Status == "True" && why == "":
			why = c.Reason
		}
	}
	return ready, why
}

func qualified(o Object) string {
	if o.Namespace == "" {
		return o.Name
	}
	return o.Namespace + "/" + o.Name
}

// oneLine is s with its line breaks as spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
