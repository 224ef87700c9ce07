package procgroup

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// A Tail keeps exactly the last limit bytes, across writes of any size.
func TestTailKeepsTheLastBytes(t *testing.T) {
	tail := NewTail(10)
	for i := range 100 {
		fmt.Fprintf(tail, "%d,", i)
	}
	require.Equal(t, "97,98,99,", tail.String()[1:])
	require.Len(t, tail.Bytes(), 10)
	big := NewTail(4)
	_, err := big.Write([]byte("0123456789"))
	require.NoError(t, err)
	require.Equal(t, "6789", big.String())
}
