package netplan

import "errors"

// ErrNoFreeRange is matched (with errors.Is) by every error that says an
// address space is full, so that callers can report a precondition failure
// rather than invalid input.
var ErrNoFreeRange = errors.New("no free address range")

// noFreeRangeError carries a full-space message that tells the user what to
// do, while still matching ErrNoFreeRange.
type noFreeRangeError struct {
	msg string
}

func (e *noFreeRangeError) Error() string { return e.msg }

func (e *noFreeRangeError) Unwrap() error { return ErrNoFreeRange }
