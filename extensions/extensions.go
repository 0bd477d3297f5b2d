package extensions

import (
	"github.com/hcokit/hcokit/extensions/descheduler"
	"github.com/hcokit/hcokit/extensions/olm"
	"github.com/hcokit/hcokit/extensions/openshift"
	"github.com/hcokit/hcokit/extensions/sharedlists"
	"github.com/hcokit/hcokit/extensions/storedversions"
	"github.com/hcokit/hcokit/extensions/upgrade"
	"github.com/hcokit/hcokit/hco"
)

// Stock returns the stock binary's extensions.
func Stock() []hco.Extension {
	return []hco.Extension{openshift.New(), upgrade.New(), sharedlists.New(), olm.New(), descheduler.New(), storedversions.New()}
}
