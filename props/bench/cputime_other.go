//go:build !unix

package bench

import (
	"errors"
	"time"
)

// processCPU has no implementation here: the families that compare CPU
// time with the pi-ai peer run on unix systems only.
func processCPU() (time.Duration, error) {
	return 0, errors.New("bench: process CPU time is only measured on unix systems")
}
