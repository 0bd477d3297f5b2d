package hco

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEventNoteFitsAnEvent(t *testing.T) {
	assert.Equal(t, "short", eventNote("short"))
	long := eventNote(string(make([]byte, 3000)))
	assert.Len(t, long, maxEventNote)
	assert.Contains(t, long, "conditions hold it whole")
}
